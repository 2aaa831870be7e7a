/*
 * fit_step.c — fits the step-time model's shared terms and the calibrated
 * GPUs' efficiencies to the fit rows of a published points file
 * (docs/data/step_points.csv) by nonlinear least squares on log errors
 * (gsl_multifit_nlinear), then reports the errors of the fit and held-out
 * validation rows per source and regime.  `make fit-step` runs it; the
 * fitted numbers are copied, with this provenance, into the catalogue.
 *   fit_step POINTS.csv [--rows] [--catalogue]
 *   (--rows: one markdown row per point; --catalogue: no fit, predict with
 *   the catalogue's defaults — the figures docs/VALIDATION.md reports)
 */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/perf_points.h"

/* One fitted quantity: how it is stored in x (log of the value, or of the
 * value minus 1 for the knee exponent; a logistic for a bounded fraction),
 * and which points it applies to. */
struct param {
	const char *name;
	const char *chip;            /* GPU ids it applies to, comma-separated; NULL = all */
	double init;                 /* start value (the catalogue's today) */
	double offset;               /* value = offset + exp(x), or when hi > 0 */
	double hi;                   /* value = hi / (1 + exp(-x)): a bounded fraction */
	double scale;                /* printed value = value x scale */
	const char *unit;
};

enum { P_KNEE, P_FLOOR, P_ELEM, P_LAUNCH, P_ITER, P_SEQ, P_LAYER,
       P_8BIT_HOPPER, P_8BIT_ADA, P_MFU_A100, P_MBU_A100, P_MFU_H100, P_MBU_H100, P_MBU_H200,
       P_LINK_A100, P_LINK_H100, P_ARLAT_A100, P_ARLAT_H100, P_SEQ_MI300X,
       P_ARLAT_MI300X, P_MBU_MI300X, N_PARAMS };

#define A100S "a100-80g,a100-40g,a100-80g-pcie"
#define H100S "h100,h200"   /* same GH100 die: one MFU */
static const struct param PARAMS[N_PARAMS] = {
	[P_KNEE] = { "knee_exp", NULL, 2.0, 1.0, 0, 1, "" },
	[P_FLOOR] = { "gemm_floor", NULL, 2e3, 0, 0, 1e-3, "us" },
	[P_ELEM] = { "elementwise_eff", NULL, 0.5, 0, 0.95, 1, "" },
	[P_LAUNCH] = { "eager_launch", NULL, 100e3, 0, 0, 1e-3, "us" },
	[P_ITER] = { "iteration_overhead", NULL, 1e6, 0, 0, 1e-3, "us" },
	[P_SEQ] = { "per_seq_overhead", NULL, 1e4, 0, 0, 1e-3, "us" },
	[P_LAYER] = { "layer_overhead", NULL, 25e3, 0, 0, 1e-3, "us" },
	[P_8BIT_HOPPER] = { "mfu_8bit/mfu hopper", H100S ",h100-pcie", 0.65, 0, 1.0, 1, "" },
	[P_8BIT_ADA] = { "mfu_8bit/mfu ada", "l40s,rtx4090,rtx6000-ada,l4", 0.65, 0, 1.0, 1, "" },
	[P_MFU_A100] = { "mfu a100", A100S, 0.72, 0, 0.95, 1, "" },
	[P_MBU_A100] = { "mbu a100", A100S, 0.76, 0, 0.95, 1, "" },
	[P_MFU_H100] = { "mfu h100", H100S, 0.71, 0, 0.95, 1, "" },
	[P_MBU_H100] = { "mbu h100", "h100", 0.82, 0, 0.95, 1, "" },
	[P_MBU_H200] = { "mbu h200", "h200", 0.82, 0, 0.95, 1, "" },
	[P_LINK_A100] = { "link a100", "a100-80g,a100-40g", 300e9, 0, 0, 1e-9, "GB/s" },
	[P_LINK_H100] = { "link h100", H100S, 450e9, 0, 0, 1e-9, "GB/s" },
	[P_ARLAT_A100] = { "allreduce_latency a100", "a100-80g,a100-40g", 60e3, 0, 0, 1e-3, "us" },
	[P_ARLAT_H100] = { "allreduce_latency h100", H100S, 37e3, 0, 0, 1e-3, "us" },
	[P_SEQ_MI300X] = { "per_seq_overhead mi300x", "mi300x", 1e4, 0, 0, 1e-3, "us" },
	[P_ARLAT_MI300X] = { "allreduce_latency mi300x", "mi300x", 60e3, 0, 0, 1e-3, "us" },
	[P_MBU_MI300X] = { "mbu mi300x", "mi300x", 0.74, 0, 0.95, 1, "" },
};

static int applies(const struct param *p, const char *gpu_id)
{
	const char *s = p->chip;
	size_t n = strlen(gpu_id);

	if (s == NULL)
		return 1;
	while (*s) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (len == n && strncmp(s, gpu_id, n) == 0)
			return 1;
		s += len + (e ? 1 : 0);
	}
	return 0;
}

static double value_of(int k, double x)
{
	if (PARAMS[k].hi > 0)
		return PARAMS[k].hi / (1.0 + exp(-x));
	return PARAMS[k].offset + exp(x);
}

static double x_of(int k, double value)
{
	if (PARAMS[k].hi > 0)
		return -log(PARAMS[k].hi / value - 1.0);
	return log(value - PARAMS[k].offset);
}

/* The point's configuration with the parameter vector applied. */
static void tuned_cfg(const struct fs_perf_point *pt, const double *v, struct fs_perf_cfg *c)
{
	const char *id = pt->gpu->id;

	fs_perf_point_cfg(pt, c);
	c->knee_exp = v[P_KNEE];
	c->gemm_floor_ns = (fs_ns)llround(v[P_FLOOR]);
	c->elementwise_eff = fmin(v[P_ELEM], 1);
	c->eager_launch_ns = (fs_ns)llround(v[P_LAUNCH]);
	c->iteration_overhead_ns = (fs_ns)llround(v[P_ITER]);
	c->per_seq_overhead_ns = (fs_ns)llround(v[P_SEQ]);
	c->layer_overhead_ns = (fs_ns)llround(v[P_LAYER]);
	for (int k = P_MFU_A100; k <= P_ARLAT_H100; k++) {
		if (!applies(&PARAMS[k], id))
			continue;
		if (k == P_MFU_A100 || k == P_MFU_H100)
			c->mfu = fmin(v[k], 1);
		else if (k == P_MBU_A100 || k == P_MBU_H100 || k == P_MBU_H200)
			c->mbu = fmin(v[k], 1);
		else if (k == P_LINK_A100 || k == P_LINK_H100)
			c->link_bytes_per_s = v[k];
		else
			c->allreduce_latency_ns = (fs_ns)llround(v[k]);
	}
	if (applies(&PARAMS[P_SEQ_MI300X], id))
		c->per_seq_overhead_ns = (fs_ns)llround(v[P_SEQ_MI300X]);
	if (applies(&PARAMS[P_ARLAT_MI300X], id))
		c->allreduce_latency_ns = (fs_ns)llround(v[P_ARLAT_MI300X]);
	if (applies(&PARAMS[P_MBU_MI300X], id))
		c->mbu = fmin(v[P_MBU_MI300X], 1);
	for (int k = P_8BIT_HOPPER; k <= P_8BIT_ADA; k++)
		if (applies(&PARAMS[k], id)) {
			double mfu16 = c->mfu > 0 ? c->mfu : pt->gpu->mfu;

			c->mfu_8bit = fmin(mfu16 * v[k], 1);
		}
	/* An 8-bit point's explicit mfu would override mfu_8bit (P9): keep
	 * the 16-bit one only for 16-bit runs. */
	if (c->mfu > 0 && fs_perf_peak_flops_per_s(c) != pt->gpu->fp16_flops_per_s)
		c->mfu = 0;
}

struct fit {
	const struct fs_perf_point *pts;
	size_t *idx, n;              /* fit rows */
	double *w;                   /* weight of each fit row: 1 / (rows of its kind) */
	int *free_k, n_free;         /* parameters being fitted */
	double v[N_PARAMS];          /* current values of all parameters */
};

static double predict(const struct fs_perf_point *pt, const double *v)
{
	struct fs_perf_cfg c;

	tuned_cfg(pt, v, &c);
	return fs_perf_point_predict_ms(pt, &c);
}

static int resid(const gsl_vector *x, void *data, gsl_vector *f)
{
	struct fit *ft = data;
	double v[N_PARAMS];

	memcpy(v, ft->v, sizeof v);
	for (int j = 0; j < ft->n_free; j++)
		v[ft->free_k[j]] = value_of(ft->free_k[j], gsl_vector_get(x, (size_t)j));
	for (size_t i = 0; i < ft->n; i++) {
		const struct fs_perf_point *pt = &ft->pts[ft->idx[i]];

		gsl_vector_set(f, i, sqrt(ft->w[i]) * log(predict(pt, v) / pt->measured_ms));
	}
	return GSL_SUCCESS;
}

/* Which parameters the fit rows move at all (others stay at their start). */
static void find_free(struct fit *ft)
{
	ft->n_free = 0;
	for (int k = 0; k < N_PARAMS; k++) {
		double v[N_PARAMS];
		int moved = 0;

		memcpy(v, ft->v, sizeof v);
		v[k] = PARAMS[k].offset + (v[k] - PARAMS[k].offset) * 1.2;
		for (size_t i = 0; i < ft->n && !moved; i++)
			moved = fabs(predict(&ft->pts[ft->idx[i]], v) -
			             predict(&ft->pts[ft->idx[i]], ft->v)) > 1e-9;
		if (moved)
			ft->free_k[ft->n_free++] = k;
	}
}

/* Heteroskedasticity-robust (sandwich, HC0) covariance of the fitted x:
 * (JᵀJ)⁻¹ Jᵀ diag(r²) J (JᵀJ)⁻¹ — the weights balance kinds, they are not
 * inverse variances, so the plain (JᵀJ)⁻¹ σ² would not be honest. */
static void robust_cov(const gsl_matrix *jac, const gsl_vector *r, gsl_matrix *cov)
{
	size_t n = jac->size1, p = jac->size2;
	gsl_matrix *a = gsl_matrix_alloc(p, p), *b = gsl_matrix_calloc(p, p);
	gsl_matrix *t = gsl_matrix_alloc(p, p);

	gsl_multifit_nlinear_covar(jac, 0.0, a);
	for (size_t i = 0; i < n; i++) {
		double ri = gsl_vector_get(r, i);

		for (size_t u = 0; u < p; u++)
			for (size_t v = 0; v < p; v++)
				gsl_matrix_set(b, u, v, gsl_matrix_get(b, u, v) + ri * ri *
				               gsl_matrix_get(jac, i, u) * gsl_matrix_get(jac, i, v));
	}
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, a, b, 0.0, t);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, t, a, 0.0, cov);
	gsl_matrix_free(a);
	gsl_matrix_free(b);
	gsl_matrix_free(t);
}

static void run_fit(struct fit *ft)
{
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_fdf fdf = { 0 };
	gsl_multifit_nlinear_workspace *w;
	gsl_vector *x0 = gsl_vector_alloc((size_t)ft->n_free);
	gsl_matrix *cov = gsl_matrix_alloc((size_t)ft->n_free, (size_t)ft->n_free);
	double chisq;
	int info;

	for (int j = 0; j < ft->n_free; j++) {
		int k = ft->free_k[j];

		gsl_vector_set(x0, (size_t)j, x_of(k, ft->v[k]));
	}
	fdf.f = resid;
	fdf.n = ft->n;
	fdf.p = (size_t)ft->n_free;
	fdf.params = ft;
	fp.trs = gsl_multifit_nlinear_trs_lm;
	fp.scale = gsl_multifit_nlinear_scale_more;
	fp.h_df = 1e-2;               /* integer-ns terms need a visible step */
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, ft->n, fdf.p);
	gsl_multifit_nlinear_init(x0, &fdf, w);
	gsl_multifit_nlinear_driver(1000, 1e-10, 1e-10, 0.0, NULL, NULL, &info, w);
	robust_cov(gsl_multifit_nlinear_jac(w), gsl_multifit_nlinear_residual(w), cov);
	gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w), &chisq);
	printf("fitted on %zu rows, %d parameters, weighted rms log error %.4f\n", ft->n,
	       ft->n_free, sqrt(chisq));
	for (int j = 0; j < ft->n_free; j++) {
		int k = ft->free_k[j];
		double xj = gsl_vector_get(w->x, (size_t)j);
		double se = sqrt(gsl_matrix_get(cov, (size_t)j, (size_t)j));

		ft->v[k] = value_of(k, xj);
		/* relative standard error of the value: d(value)/dx / value */
		if (PARAMS[k].hi > 0)
			se *= 1.0 - ft->v[k] / PARAMS[k].hi;
		else
			se *= (ft->v[k] - PARAMS[k].offset) / ft->v[k];
		printf("  %-26s %10.4g %-5s (standard error %s%.0f%%)\n", PARAMS[k].name,
		       ft->v[k] * PARAMS[k].scale, PARAMS[k].unit, se > 10 ? ">" : "",
		       100 * fmin(se, 10));
	}
	gsl_multifit_nlinear_free(w);
	gsl_vector_free(x0);
	gsl_matrix_free(cov);
}

static double median_abs(double *e, size_t n)
{
	if (n == 0)
		return NAN;
	gsl_sort(e, 1, n);
	return gsl_stats_median_from_sorted_data(e, 1, n);
}

/* The groups errors are reported by. */
enum group { G_SOURCE, G_REGIME, G_WHOLE, G_PREFILL, G_TP, G_DTYPE, N_GROUPS };

static bool whole_step(const struct fs_perf_point *p)
{
	return p->kind == FS_POINT_PREFILL || p->kind == FS_POINT_DECODE;
}

/* The point's label in group g, or NULL when the group does not hold it
 * (the TP and dtype groups hold whole steps only). */
static const char *label_of(const struct fs_perf_point *p, enum group g)
{
	switch (g) {
	case G_SOURCE:
		return p->source;
	case G_REGIME:
		return fs_perf_point_regime(p);
	case G_WHOLE:
		return whole_step(p) ? "whole steps" : NULL;
	case G_PREFILL:
		return p->kind == FS_POINT_PREFILL ? "batch-1 prefill (TTFT)" : NULL;
	case G_TP:
		if (!whole_step(p))
			return NULL;
		return p->tp == 1 ? "steps TP 1" : p->tp <= 4 ? "steps TP 2-4" : "steps TP 8";
	case G_DTYPE:
		if (!whole_step(p))
			return NULL;
		return fs_dtype_bytes(p->weight_dtype) < 2 ? "steps 8-bit" : "steps 16-bit";
	case N_GROUPS:
		break;
	}
	return NULL;
}

/* Median |error| of the points of one set (0 fit, 1 validation, 2 other)
 * whose label in group g is `want` (NULL: all points); prints one line. */
static void report_group(const struct fs_perf_point *pts, const double *err, size_t n,
                         int set, enum group g, const char *want)
{
	double *e = malloc(sizeof *e * n);
	size_t m = 0;
	int over20 = 0;

	for (size_t i = 0; i < n; i++) {
		const char *label = label_of(&pts[i], g);

		if ((pts[i].other ? 2 : (int)pts[i].validation) != set)
			continue;
		if (want != NULL && (label == NULL || strcmp(label, want) != 0))
			continue;
		e[m++] = fabs(err[i]);
		over20 += fabs(err[i]) > 0.20;
	}
	if (m > 0)
		printf("| %s | %s | %zu | %.1f%% | %d |\n",
		       set == 2 ? "other" : set ? "validation" : "fit",
		       want ? want : "all", m, 100 * median_abs(e, m), over20);
	free(e);
}

/* Each distinct label of group g once, in first-seen order. */
static void report_by(const struct fs_perf_point *pts, const double *err, size_t n,
                      int set, enum group g)
{
	for (size_t i = 0; i < n; i++) {
		const char *label = label_of(&pts[i], g);
		size_t j = 0;

		if (label == NULL)
			continue;
		for (; j < i; j++)
			if (label_of(&pts[j], g) != NULL && strcmp(label, label_of(&pts[j], g)) == 0)
				break;
		if (j == i)
			report_group(pts, err, n, set, g, label);
	}
}

int main(int argc, char **argv)
{
	struct fs_perf_point *pts = NULL;   /* set by fs_perf_points_load */
	struct fs_error err;
	size_t n = 0;
	struct fit ft;
	double *errs;
	int rows = 0, catalogue = 0;

	for (int a = 2; a < argc; a++) {
		if (strcmp(argv[a], "--rows") == 0)
			rows = 1;
		else if (strcmp(argv[a], "--catalogue") == 0)
			catalogue = 1;
		else
			argc = 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: fit_step POINTS.csv [--rows] [--catalogue]\n");
		return 2;
	}
	if (fs_perf_points_load(argv[1], argv[1], &pts, &n, &err) < 0) {
		fs_error_print(&err);
		return 2;
	}
	memset(&ft, 0, sizeof ft);
	ft.pts = pts;
	ft.idx = malloc(sizeof *ft.idx * n);
	ft.free_k = malloc(sizeof *ft.free_k * N_PARAMS);
	for (int k = 0; k < N_PARAMS; k++)
		ft.v[k] = PARAMS[k].init;
	for (size_t i = 0; i < n; i++)
		if (!pts[i].validation && !pts[i].other)
			ft.idx[ft.n++] = i;
	/* Each kind (GEMM, elementwise, all-reduce, prefill, decode) weighs the
	 * same in total, so the many kernel rows do not outvote the whole
	 * steps the simulator exists to predict. */
	ft.w = malloc(sizeof *ft.w * (ft.n ? ft.n : 1));
	for (size_t i = 0; i < ft.n; i++) {
		size_t same = 0;

		for (size_t j = 0; j < ft.n; j++)
			same += pts[ft.idx[j]].kind == pts[ft.idx[i]].kind;
		ft.w[i] = 1.0 / (double)same;
	}
	errs = malloc(sizeof *errs * n);
	if (catalogue) {
		/* The catalogue's own defaults, as a simulation uses them. */
		printf("predicted with the catalogue defaults (no fit)\n");
		for (size_t i = 0; i < n; i++) {
			struct fs_perf_cfg c;

			fs_perf_point_cfg(&pts[i], &c);
			errs[i] = fs_perf_point_predict_ms(&pts[i], &c) / pts[i].measured_ms - 1;
		}
	} else {
		find_free(&ft);
		run_fit(&ft);
		for (size_t i = 0; i < n; i++)
			errs[i] = predict(&pts[i], ft.v) / pts[i].measured_ms - 1;
	}
	printf("\n| set | group | points | median abs error | over 20%% |\n|---|---|---|---|---|\n");
	for (int set = 0; set < 3; set++) {
		report_group(pts, errs, n, set, G_SOURCE, NULL);
		for (int g = 0; g < N_GROUPS; g++)
			report_by(pts, errs, n, set, (enum group)g);
	}
	if (rows) {
		printf("\n| id | set | GPU | model | TP | dtype | kind | tokens | batch | "
		       "context | measured ms | predicted ms | error |\n"
		       "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < n; i++)
			printf("| %s | %s | %s | %s | %d | %s | %s | %lld | %lld | %lld | %.4g | "
			       "%.4g | %+.1f%% |\n", pts[i].id,
			       pts[i].other ? "other" : pts[i].validation ? "validation" : "fit",
			       pts[i].gpu->id,
			       pts[i].model ? pts[i].model->id : "-", pts[i].tp, fs_dtype_name(pts[i].weight_dtype),
			       fs_point_kind_name(pts[i].kind), (long long)pts[i].tokens,
			       (long long)pts[i].batch, (long long)pts[i].context,
			       pts[i].measured_ms, pts[i].measured_ms * (1 + errs[i]),
			       100 * errs[i]);
	}
	free(errs);
	free(ft.idx);
	free(ft.w);
	free(ft.free_k);
	free(pts);
	return 0;
}
