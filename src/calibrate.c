/*
 * calibrate.c — the fit behind `fleetsim calibrate`: which step-model terms
 * the measurements identify, a trust-region nonlinear least-squares fit of
 * those on relative errors (gsl_multifit_nlinear), their standard errors,
 * and k-fold cross-validation.  Pure and deterministic: folds are i mod k,
 * the start is the catalogue.  Assumptions C1-C4 of docs/MODEL.md; a
 * point's model time (a step, or a whole run: C7) from fs__cal_point_ns.
 */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"

static const char *const NAMES[FS_CAL_N] = {
	"mfu", "mbu", "iteration_overhead", "per_seq_overhead"
};

const char *fs__cal_param_name(int i)
{
	return i >= 0 && i < FS_CAL_N ? NAMES[i] : "?";
}

void fs__cal_points_push(struct fs_cal_points *ps, const struct fs_cal_point *p)
{
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 16;
		ps->pts = fs_xrealloc(ps->pts, ps->cap * sizeof *ps->pts);
	}
	ps->pts[ps->n++] = *p;
}

double fs__cal_model_ns(const struct fs_perf_cfg *cfg, const struct fs_cal_params *p,
                        const struct fs_step_shape *shape)
{
	struct fs_perf_cfg c = *cfg;
	struct fs_step_cost cost;

	/* MODEL: C1 — the roofline parts depend on MFU and MBU only; the
	 * iteration and per-sequence overheads add linearly, so they are added
	 * here in double (no rounding to whole ns inside the fit). */
	c.table = NULL;
	c.mfu = fmin(fmax(p->v[FS_CAL_MFU], 1e-3), 1.0);
	c.mbu = fmin(fmax(p->v[FS_CAL_MBU], 1e-3), 1.0);
	c.iteration_overhead_ns = 0;
	c.per_seq_overhead_ns = 0;
	fs_perf_step_cost(&c, shape, &cost);
	return cost.gpu_ns +
	       cost.overhead_ns + fmax(p->v[FS_CAL_ITER], 0) +
	       fmax(p->v[FS_CAL_SEQ], 0) * (double)shape->n_seqs;
}

/* What the residual function sees. */
struct ctx {
	const struct fs_perf_cfg *cfg;
	const struct fs_cal_point *pts;
	const size_t *idx;           /* the points in this fit */
	size_t n;
	struct fs_cal_params base;   /* values of the kept terms */
	double scale[FS_CAL_N];      /* x_j × scale = value */
	int map[FS_CAL_N];           /* x index -> parameter */
	int p;
};

static void unpack(const struct ctx *c, const gsl_vector *x, struct fs_cal_params *v)
{
	int j;

	*v = c->base;
	for (j = 0; j < c->p; j++)
		v->v[c->map[j]] = gsl_vector_get(x, (size_t)j) * c->scale[c->map[j]];
}

/* MODEL: C2 — residuals are relative: (model − measured) / measured. */
static int resid(const gsl_vector *x, void *data, gsl_vector *f)
{
	const struct ctx *c = data;
	struct fs_cal_params v;
	size_t i;

	unpack(c, x, &v);
	for (i = 0; i < c->n; i++) {
		const struct fs_cal_point *pt = &c->pts[c->idx[i]];

		gsl_vector_set(f, i, fs__cal_point_ns(c->cfg, &v, pt) /
		                     pt->measured_ns - 1.0);
	}
	return GSL_SUCCESS;
}

static void scales_of(const struct fs_cal_params *b, double scale[FS_CAL_N])
{
	scale[FS_CAL_MFU] = b->v[FS_CAL_MFU];
	scale[FS_CAL_MBU] = b->v[FS_CAL_MBU];
	scale[FS_CAL_ITER] = b->v[FS_CAL_ITER] > 0 ? b->v[FS_CAL_ITER] : 1e6;
	scale[FS_CAL_SEQ] = b->v[FS_CAL_SEQ] > 0 ? b->v[FS_CAL_SEQ] : 1e4;
}

/*
 * MODEL: C3 — a term is fitted when the data identify it: a probe step of it
 * (PROBE: 0.01 of MFU or MBU, 10 us of iteration overhead, 1 us per
 * sequence — fixed sizes, so a small catalogue value is not mistaken for an
 * unidentifiable term) moves some point by at least 0.02%, and its
 * column is not (nearly) a combination of the columns of the terms taken
 * before it, in the order mfu, mbu, iteration, per-sequence.  MODEL: C4 —
 * at most n - 1 terms are taken from n points (the first ones in that
 * order), so one residual degree of freedom is left for the error estimate.
 */
static const double PROBE[FS_CAL_N] = { 0.01, 0.01, 10e3, 1e3 };

static int choose(const struct fs_perf_cfg *cfg, const struct fs_cal_points *ps,
                  const struct fs_cal_params *b, int fitted[FS_CAL_N])
{
	size_t n = ps->n, i;
	double *basis = fs_xmalloc(sizeof(double) * n * FS_CAL_N), *col;
	int j, k, nb = 0;

	col = fs_xmalloc(sizeof(double) * n);
	for (j = 0; j < FS_CAL_N; j++) {
		struct fs_cal_params up = *b;
		double norm0 = 0, norm = 0, maxabs = 0;

		fitted[j] = 0;
		if ((size_t)nb + 1 >= n)
			continue;
		up.v[j] = b->v[j] + PROBE[j];
		for (i = 0; i < n; i++) {
			const struct fs_cal_point *pt = &ps->pts[i];

			col[i] = (fs__cal_point_ns(cfg, &up, pt) -
			          fs__cal_point_ns(cfg, b, pt)) / pt->measured_ns / 0.01;
			maxabs = fmax(maxabs, fabs(col[i]));
			norm0 += col[i] * col[i];
		}
		if (maxabs < 0.02)
			continue;
		for (k = 0; k < nb; k++) {             /* Gram-Schmidt */
			double dot = 0;

			for (i = 0; i < n; i++)
				dot += col[i] * basis[(size_t)k * n + i];
			for (i = 0; i < n; i++)
				col[i] -= dot * basis[(size_t)k * n + i];
		}
		for (i = 0; i < n; i++)
			norm += col[i] * col[i];
		if (norm <= 1e-6 * norm0)
			continue;
		for (i = 0; i < n; i++)
			basis[(size_t)nb * n + i] = col[i] / sqrt(norm);
		nb++;
		fitted[j] = 1;
	}
	free(col);
	free(basis);
	return nb;
}

/* Fit the terms marked in fitted[] on points idx[0..n); values into *out,
 * standard errors into se (may be NULL).  Returns iterations, or -1. */
static int fit_subset(const struct fs_perf_cfg *cfg, const struct fs_cal_points *ps,
                      const size_t *idx, size_t n, const struct fs_cal_params *b,
                      const int fitted[FS_CAL_N], struct fs_cal_params *out,
                      double se[FS_CAL_N])
{
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_fdf fdf;
	gsl_multifit_nlinear_workspace *w;
	gsl_vector *x0;
	struct ctx c;
	int j, info = 0, status, iters;

	memset(&c, 0, sizeof c);
	c.cfg = cfg;
	c.pts = ps->pts;
	c.idx = idx;
	c.n = n;
	c.base = *b;
	scales_of(b, c.scale);
	for (j = 0; j < FS_CAL_N; j++)
		if (fitted[j])
			c.map[c.p++] = j;
	if (c.p == 0 || n < (size_t)c.p)
		return -1;
	x0 = gsl_vector_alloc((size_t)c.p);
	for (j = 0; j < c.p; j++)
		gsl_vector_set(x0, (size_t)j, b->v[c.map[j]] > 0 ? 1.0 : 0.0);
	memset(&fdf, 0, sizeof fdf);
	fdf.f = resid;
	fdf.n = n;
	fdf.p = (size_t)c.p;
	fdf.params = &c;
	fp.trs = gsl_multifit_nlinear_trs_lm;             /* trust region, LM step */
	fp.scale = gsl_multifit_nlinear_scale_more;
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, (size_t)c.p);
	gsl_multifit_nlinear_init(x0, &fdf, w);
	status = gsl_multifit_nlinear_driver(500, 1e-10, 1e-10, 0.0, NULL, NULL, &info, w);
	iters = (int)gsl_multifit_nlinear_niter(w);
	unpack(&c, gsl_multifit_nlinear_position(w), out);
	out->v[FS_CAL_MFU] = fmin(fmax(out->v[FS_CAL_MFU], 1e-3), 1.0);
	out->v[FS_CAL_MBU] = fmin(fmax(out->v[FS_CAL_MBU], 1e-3), 1.0);
	out->v[FS_CAL_ITER] = fmax(out->v[FS_CAL_ITER], 0);
	out->v[FS_CAL_SEQ] = fmax(out->v[FS_CAL_SEQ], 0);
	if (se != NULL) {
		gsl_matrix *cov = gsl_matrix_alloc((size_t)c.p, (size_t)c.p);
		double chi2 = 0;

		gsl_blas_ddot(gsl_multifit_nlinear_residual(w),
		              gsl_multifit_nlinear_residual(w), &chi2);
		gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
		for (j = 0; j < FS_CAL_N; j++)
			se[j] = 0;
		for (j = 0; j < c.p; j++) {
			double var = n > (size_t)c.p ? chi2 / (double)(n - (size_t)c.p) : 0;

			se[c.map[j]] = sqrt(fmax(gsl_matrix_get(cov, (size_t)j, (size_t)j), 0) *
			                    var) * c.scale[c.map[j]];
		}
		gsl_matrix_free(cov);
	}
	gsl_multifit_nlinear_free(w);
	gsl_vector_free(x0);
	return status == GSL_SUCCESS || status == GSL_EMAXITER ? iters : -1;
}

int fs__cal_fit(const struct fs_perf_cfg *cfg, const struct fs_cal_points *ps,
                struct fs_cal_result *res, struct fs_error *err)
{
	const struct fs_gpu_spec *g = cfg->gpu;
	size_t n = ps->n, i, *idx;
	int j, f;

	memset(res, 0, sizeof *res);
	res->before.v[FS_CAL_MFU] = fs_perf_mfu(cfg);
	res->before.v[FS_CAL_MBU] = cfg->mbu > 0 ? cfg->mbu : g->mbu;
	res->before.v[FS_CAL_ITER] = (double)(cfg->iteration_overhead_ns >= 0
	                                      ? cfg->iteration_overhead_ns
	                                      : g->iteration_overhead_ns);
	res->before.v[FS_CAL_SEQ] = (double)(cfg->per_seq_overhead_ns >= 0
	                                     ? cfg->per_seq_overhead_ns
	                                     : g->per_seq_overhead_ns);
	res->after = res->before;
	res->n_fitted = n > 0 ? choose(cfg, ps, &res->before, res->fitted) : 0;
	/* MODEL: C4 — at least two points: one term and a residual degree of
	 * freedom. */
	if (res->n_fitted == 0 || n < (size_t)res->n_fitted + 1) {
		fs_error_set(err, "", "measurements",
		             "expected at least %d points for %d fitted parameter%s, found %zu",
		             (res->n_fitted > 0 ? res->n_fitted : 1) + 1,
		             res->n_fitted > 0 ? res->n_fitted : 1,
		             res->n_fitted == 1 ? "" : "s", n);
		return -1;
	}
	idx = fs_xmalloc(sizeof *idx * n);
	for (i = 0; i < n; i++)
		idx[i] = i;
	res->iterations = fit_subset(cfg, ps, idx, n, &res->before, res->fitted,
	                             &res->after, res->stderr_v);
	if (res->iterations < 0) {
		free(idx);
		fs_error_set(err, "", "measurements", "the least-squares fit did not converge");
		return -1;
	}
	res->pred_before_ns = fs_xmalloc(sizeof(double) * n);
	res->pred_after_ns = fs_xmalloc(sizeof(double) * n);
	res->cv_pred_ns = fs_xmalloc(sizeof(double) * n);
	for (i = 0; i < n; i++) {
		res->pred_before_ns[i] = fs__cal_point_ns(cfg, &res->before, &ps->pts[i]);
		res->pred_after_ns[i] = fs__cal_point_ns(cfg, &res->after, &ps->pts[i]);
		res->cv_pred_ns[i] = NAN;
	}
	res->k_folds = n < 5 ? (int)n : 5;
	for (f = 0; f < res->k_folds; f++) {
		struct fs_cal_params cv;
		size_t m = 0;

		for (i = 0; i < n; i++)
			if ((int)(i % (size_t)res->k_folds) != f)
				idx[m++] = i;
		/* A fold whose training set cannot identify the terms stays NaN. */
		if (m < (size_t)res->n_fitted ||
		    fit_subset(cfg, ps, idx, m, &res->before, res->fitted, &cv, NULL) < 0)
			continue;
		for (i = (size_t)f; i < n; i += (size_t)res->k_folds)
			res->cv_pred_ns[i] = fs__cal_point_ns(cfg, &cv, &ps->pts[i]);
	}
	for (j = 0; j < FS_CAL_N; j++)
		if (!res->fitted[j])
			res->after.v[j] = res->before.v[j];
	free(idx);
	return 0;
}

void fs__cal_result_fini(struct fs_cal_result *res)
{
	free(res->pred_before_ns);
	free(res->pred_after_ns);
	free(res->cv_pred_ns);
	memset(res, 0, sizeof *res);
}
