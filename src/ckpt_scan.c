/*
 * ckpt_scan.c — fs_ckpt_run: checks the config, loads the trace, runs the
 * policy, and scans checkpoint intervals for the simulated best one with a
 * sectioning interval; also the closed forms beside it (Young, Daly, the
 * renewal mean and its optimum; docs/MODEL.md K4, K5, K7).  The scan reuses
 * each replication's streams at every interval (common random numbers), so
 * the differences between intervals are not drowned by noise.
 */
#include "ckpt_internal.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/capacity.h"

#define MAX_SECTIONS 20
#define REFINE_HALF 3               /* neighbours each side in the fit */
#define SCAN_SPAN 4.0               /* the scan covers ref / 4 .. ref x 4 */

double fs_ckpt_young_h(double delta_h, double mtbi_h)
{
	if (!isfinite(mtbi_h))
		return INFINITY;
	return sqrt(2 * delta_h * mtbi_h);                      /* MODEL: K4 */
}

double fs_ckpt_daly_h(double delta_h, double mtbi_h)
{
	double r;

	if (!isfinite(mtbi_h))
		return INFINITY;
	if (delta_h >= 2 * mtbi_h)
		return mtbi_h;
	r = delta_h / (2 * mtbi_h);                              /* MODEL: K4 */
	return sqrt(2 * delta_h * mtbi_h) * (1 + sqrt(r) / 3 + r / 9) - delta_h;
}

/* Mean time of one segment of w_h (K5), renewal argument. */
static double segment_h(double w_h, double delta_h, double restart_h, double rate_per_h,
                        double unavail_h)
{
	if (rate_per_h <= 0)
		return w_h + delta_h;
	/* MODEL: K5 */
	return expm1(rate_per_h * (w_h + delta_h)) * (1 / rate_per_h + unavail_h + restart_h);
}

double fs_ckpt_expected_h(double work_h, double interval_h, double delta_h,
                          double restart_h, double rate_per_h, double unavail_h)
{
	struct fs__ckpt_plan p;
	double tau_h, last_h;

	if (fs__ckpt_plan(work_h, interval_h, &p) != 0)
		return NAN;
	tau_h = fs__ckpt_h(p.tau_ns);
	last_h = fs__ckpt_h(p.last_ns);
	return (double)(p.n_seg - 1) * segment_h(tau_h, delta_h, restart_h, rate_per_h, unavail_h)
	       + segment_h(last_h, delta_h, restart_h, rate_per_h, unavail_h);
}

double fs_ckpt_renewal_opt_h(double delta_h, double rate_per_h)
{
	double lo = 0, hi = 1, d = rate_per_h * delta_h;

	if (!(rate_per_h > 0))
		return INFINITY;
	/* (1 - x) e^{x + d} - 1 falls from e^d - 1 >= 0 at 0 to -1 at 1 */
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);

		if ((1 - mid) * exp(mid + d) - 1 > 0)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi) / rate_per_h;
}

/* ---- config ------------------------------------------------------------------ */

static int bad(struct fs_error *err, const char *path, const char *expected, double v)
{
	return fs_error_set(err, NULL, path, "expected %s, found %g", expected, v);
}

static int check_cfg(const struct fs_ckpt_cfg *c, struct fs_error *err)
{
	if (!(c->work_h > 0 && c->work_h < 1e6))
		return bad(err, "work", "hours > 0 and < 10^6", c->work_h);
	if (c->cards < 1)
		return bad(err, "cards", "an integer >= 1", c->cards);
	if (!(c->interval_h >= 0 && c->interval_h < 1e6))
		return bad(err, "interval", "hours >= 0 (0 = Daly's)", c->interval_h);
	if (!(c->ckpt_cost_h >= 0 && c->ckpt_cost_h < 1e6))
		return bad(err, "checkpoint_cost", "hours >= 0", c->ckpt_cost_h);
	if (!(c->restart_cost_h >= 0 && c->restart_cost_h < 1e6))
		return bad(err, "restart_cost", "hours >= 0", c->restart_cost_h);
	if (!(c->deadline_h >= 0 && c->deadline_h < 1e6))
		return bad(err, "deadline", "hours >= 0 (0 = none)", c->deadline_h);
	if (c->policy == FS_CKPT_SPOT_FALLBACK && c->deadline_h <= 0)
		return fs_error_set(err, NULL, "deadline", "expected a deadline > 0 for the "
		                    "spot_fallback policy, found none");
	if (!(c->spot_price_per_h >= 0 && isfinite(c->spot_price_per_h)))
		return bad(err, "spot_price_per_h", "a price >= 0", c->spot_price_per_h);
	if (!(c->on_demand_price_per_h >= 0 && isfinite(c->on_demand_price_per_h)))
		return bad(err, "on_demand_price_per_h", "a price >= 0", c->on_demand_price_per_h);
	if (!(c->spot.rate_per_h >= 0 && c->spot.rate_per_h <= 1e4))
		return bad(err, "interruptions.rate_per_h", "a rate >= 0 and <= 10^4",
		           c->spot.rate_per_h);
	if (!(c->spot.unavailable_mean_h >= 0 && c->spot.unavailable_mean_h < 1e6))
		return bad(err, "interruptions.unavailable_mean", "hours >= 0",
		           c->spot.unavailable_mean_h);
	if (c->spot.trace_instances < 0)
		return bad(err, "interruptions.instances", "an integer >= 1",
		           c->spot.trace_instances);
	if (c->replications < 1 || c->replications > 10000000)
		return bad(err, "replications", "an integer in [1, 10^7]", c->replications);
	if (c->scan_points < 0 || c->scan_points > FS_CKPT_MAX_SCAN || c->scan_points == 1 ||
	    c->scan_points == 2)
		return bad(err, "scan_points", "0 or an integer in [3, 201]", c->scan_points);
	if (!(c->level == 0 || (c->level > 0 && c->level < 1)))
		return bad(err, "level", "a confidence level in (0, 1)", c->level);
	return 0;
}

/* Uptime (capacity >= needs) and drops below needs over one looped pass. */
static double trace_mtbi_h(const struct fs_capacity_trace *t, int32_t needs, double *up_share)
{
	fs_ns up_ns = 0, span_ns = t->span_ns;
	size_t drops = 0, n = 0;

	while (n < t->n_steps && (n == 0 || t->t_ns[n] < span_ns))
		n++;
	for (size_t i = 0; i < n; i++) {
		fs_ns end_ns = i + 1 < n ? t->t_ns[i + 1] : span_ns;
		bool up = t->capacity[i] >= needs;
		bool next_up = t->capacity[i + 1 < n ? i + 1 : 0] >= needs;

		if (up)
			up_ns += end_ns - t->t_ns[i];
		drops += up && !next_up && n > 1;
	}
	*up_share = span_ns > 0 ? (double)up_ns / (double)span_ns
	                        : (t->capacity[0] >= needs ? 1.0 : 0.0);
	if (drops == 0)
		return INFINITY;
	return fs__ckpt_h(up_ns) / (double)drops;
}

static void job_init(const struct fs_ckpt_cfg *c, const struct fs_capacity_trace *trace,
                     struct fs__ckpt_job *j)
{
	memset(j, 0, sizeof *j);
	j->delta_ns = fs__ckpt_ns(c->ckpt_cost_h);
	j->restart_ns = fs__ckpt_ns(c->restart_cost_h);
	j->deadline_ns = c->deadline_h > 0 ? fs__ckpt_ns(c->deadline_h) : FS_NS_MAX;
	j->rate_per_h = trace != NULL ? 0 : c->spot.rate_per_h;
	j->unavail_h = c->spot.unavailable_mean_h;
	j->trace = trace;
	j->needs = c->spot.trace_instances > 0 ? c->spot.trace_instances : 1;
	j->cards = c->cards;
	j->spot_price_per_h = c->spot_price_per_h;
	j->od_price_per_h = c->on_demand_price_per_h;
	j->replications = c->replications;
	j->threads = c->threads > 0 ? c->threads : omp_get_num_procs();
	j->seed = c->seed;
	j->level = c->level > 0 ? c->level : FS_CI_LEVEL;
}

/* ---- the scan ------------------------------------------------------------------ */

/* The grid point minimising y[0..n) (first on ties), refined by the vertex
 * of the least-squares parabola in log interval through it and up to
 * REFINE_HALF neighbours on each side, kept within those points (MODEL: K7). */
static double argmin_refined(const double *log_tau, const double *y, int n, int *at)
{
	int i = 0, a, b;
	double s[5] = { 0 }, t[3] = { 0 }, x0, det, c1, c2, v;

	for (int k = 1; k < n; k++)
		if (y[k] < y[i])
			i = k;
	*at = i;
	a = i - REFINE_HALF < 0 ? 0 : i - REFINE_HALF;
	b = i + REFINE_HALF > n - 1 ? n - 1 : i + REFINE_HALF;
	if (i == 0 || i == n - 1 || b - a < 2)
		return exp(log_tau[i]);
	x0 = log_tau[i];
	for (int k = a; k <= b; k++) {
		double x = log_tau[k] - x0, p = 1;

		for (int e = 0; e < 5; e++, p *= x)
			s[e] += p;
		t[0] += y[k];
		t[1] += x * y[k];
		t[2] += x * x * y[k];
	}
	/* normal equations of y = c0 + c1 x + c2 x^2, by Cramer's rule */
	det = s[0] * (s[2] * s[4] - s[3] * s[3]) - s[1] * (s[1] * s[4] - s[3] * s[2]) +
	      s[2] * (s[1] * s[3] - s[2] * s[2]);
	if (!(fabs(det) > 0))
		return exp(x0);
	c1 = (s[0] * (t[1] * s[4] - s[3] * t[2]) - t[0] * (s[1] * s[4] - s[3] * s[2]) +
	      s[2] * (s[1] * t[2] - t[1] * s[2])) / det;
	c2 = (s[0] * (s[2] * t[2] - t[1] * s[3]) - s[1] * (s[1] * t[2] - t[1] * s[2]) +
	      t[0] * (s[1] * s[3] - s[2] * s[2])) / det;
	if (!(c2 > 0))
		return exp(x0);
	v = x0 - c1 / (2 * c2);
	v = fmax(log_tau[a], fmin(log_tau[b], v));
	return exp(v);
}

static int scan(const struct fs_ckpt_cfg *c, const struct fs__ckpt_job *j, double ref_h,
                struct fs_ckpt_result *res, struct fs_error *err)
{
	int np = c->scan_points, at, k;
	size_t nr = (size_t)c->replications;
	double lo_h = ref_h / SCAN_SPAN, hi_h = fmin(ref_h * SCAN_SPAN, c->work_h);
	double *log_tau = fs_xcalloc((size_t)np, sizeof *log_tau);
	double *y = fs_xcalloc((size_t)np, sizeof *y);
	double *done = fs_xcalloc((size_t)np * nr, sizeof *done);
	struct fs__ckpt_plan *plans = fs_xcalloc((size_t)np, sizeof *plans);
	int failed = 0;

	if (!(hi_h > lo_h))
		hi_h = lo_h * SCAN_SPAN * SCAN_SPAN;
	for (int i = 0; i < np; i++) {
		log_tau[i] = log(lo_h) + (log(hi_h) - log(lo_h)) * i / (np - 1);
		if (fs__ckpt_plan(c->work_h, exp(log_tau[i]), &plans[i]) != 0)
			failed = 1;
	}
	if (!failed) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(j->threads)
		for (long r = 0; r < (long)nr; r++) {
			for (int i = 0; i < np; i++) {
				struct fs__ckpt_rep o;

				fs__ckpt_replicate(j, &plans[i], FS_CKPT_SPOT_ONLY, (uint64_t)r, &o);
				done[(size_t)i * nr + (size_t)r] = o.failed ? NAN : o.completion_h;
			}
		}
		for (size_t m = 0; m < (size_t)np * nr; m++)
			failed |= isnan(done[m]);
	}
	if (failed) {
		free(log_tau); free(y); free(done); free(plans);
		return fs_error_set(err, NULL, "scan_points", "expected every interval of the "
		                    "scan (%g h to %g h) to finish the job, found one that "
		                    "does not", lo_h, hi_h);
	}
	res->n_scan = np;
	for (int i = 0; i < np; i++) {
		struct fs_ckpt_scan_point *sp = &res->scan[i];

		sp->interval_h = exp(log_tau[i]);
		sp->completion_h = fs_stats_mean_ci_nonneg(done + (size_t)i * nr, nr, j->level);
		sp->expected_h = j->trace != NULL ? NAN :
			fs_ckpt_expected_h(c->work_h, sp->interval_h, c->ckpt_cost_h,
			                   c->restart_cost_h, j->rate_per_h, j->unavail_h);
		y[i] = sp->completion_h.value;
	}
	res->best_interval_h = argmin_refined(log_tau, y, np, &at);
	res->best_completion_h = res->scan[at].completion_h;
	/* MODEL: K7 — sectioning: the estimate on each section of consecutive
	 * replications, their spread around the pooled estimate */
	k = nr < MAX_SECTIONS ? (int)nr : MAX_SECTIONS;
	memset(&res->best_interval_ci, 0, sizeof res->best_interval_ci);
	res->best_interval_ci.value = res->best_interval_h;
	res->best_interval_ci.method = FS_CI_SECTIONING;
	res->best_interval_ci.n = nr;
	res->best_interval_ci.sections = (size_t)k;
	res->best_interval_ci.ci_lo = res->best_interval_ci.ci_hi = NAN;
	res->best_interval_ci.half_width = NAN;
	if (k >= 2) {
		double ss = 0, t, hw;

		for (int s = 0; s < k; s++) {
			size_t r0 = nr * (size_t)s / (size_t)k, r1 = nr * (size_t)(s + 1) / (size_t)k;
			int at_s;
			double est;

			for (int i = 0; i < np; i++) {
				double sum = 0;

				for (size_t r = r0; r < r1; r++)
					sum += done[(size_t)i * nr + r];
				y[i] = sum / (double)(r1 - r0);
			}
			est = argmin_refined(log_tau, y, np, &at_s);
			ss += (est - res->best_interval_h) * (est - res->best_interval_h);
		}
		t = gsl_cdf_tdist_Pinv(0.5 + j->level / 2, k - 1);
		hw = t * sqrt(ss / (k - 1)) / sqrt((double)k);
		res->best_interval_ci.half_width = hw;
		res->best_interval_ci.ci_lo = fmax(res->best_interval_h - hw, 0);
		res->best_interval_ci.ci_hi = res->best_interval_h + hw;
	}
	free(log_tau); free(y); free(done); free(plans);
	return 0;
}

/* ---- fs_ckpt_run -------------------------------------------------------------- */

int fs_ckpt_run(const struct fs_ckpt_cfg *cfg, struct fs_ckpt_result *res,
                struct fs_error *err)
{
	struct fs_capacity_trace *trace = NULL;
	struct fs__ckpt_job job;
	struct fs__ckpt_plan plan;
	struct fs_ckpt_result *out;
	double up_share = 1, ref_h;
	int rc = -1;

	if (check_cfg(cfg, err) != 0)
		return -1;
	if (cfg->spot.trace_path != NULL) {
		const char *shown = cfg->spot.trace_display ? cfg->spot.trace_display
		                                            : cfg->spot.trace_path;

		trace = fs_capacity_trace_load(cfg->spot.trace_path, shown,
		                               cfg->spot.trace_format, 1.0, true, err);
		if (trace == NULL)
			return -1;
	}
	out = fs_xcalloc(1, sizeof *out);
	job_init(cfg, trace, &job);
	if (trace != NULL) {
		out->mtbi_h = trace_mtbi_h(trace, job.needs, &up_share);   /* MODEL: K3 */
		if (up_share <= 0) {
			fs_error_set(err, cfg->spot.trace_display ? cfg->spot.trace_display
			             : cfg->spot.trace_path, "interruptions.instances",
			             "expected a trace that sometimes has %d instances, found "
			             "none in the whole trace", (int)job.needs);
			goto done;
		}
		out->renewal_opt_h = NAN;
	} else {
		out->mtbi_h = cfg->spot.rate_per_h > 0 ? 1 / cfg->spot.rate_per_h : INFINITY;
		out->renewal_opt_h = fs_ckpt_renewal_opt_h(cfg->ckpt_cost_h, cfg->spot.rate_per_h);
	}
	out->young_h = fs_ckpt_young_h(cfg->ckpt_cost_h, out->mtbi_h);
	out->daly_h = fs_ckpt_daly_h(cfg->ckpt_cost_h, out->mtbi_h);
	out->interval_h = cfg->interval_h > 0 ? cfg->interval_h : out->daly_h;
	if (out->interval_h == 0) {
		fs_error_set(err, NULL, "interval", "expected an interval when checkpoints "
		             "cost nothing (checkpoint_cost 0: Daly's interval is 0), found none");
		goto done;
	}
	if (!(out->interval_h > 0) || out->interval_h > cfg->work_h)
		out->interval_h = cfg->work_h;   /* no interruptions or free checkpoints */
	if (fs__ckpt_plan(cfg->work_h, out->interval_h, &plan) != 0) {
		fs_error_set(err, NULL, "interval", "expected at most 10^7 checkpoints, "
		             "found work / interval = %g", cfg->work_h / out->interval_h);
		goto done;
	}
	out->segments = (int)plan.n_seg;
	if (fs__ckpt_policy_run(&job, &plan, cfg->policy, out, err) != 0)
		goto done;
	out->expected_h = NAN;
	if (trace == NULL && cfg->policy == FS_CKPT_SPOT_ONLY)
		out->expected_h = fs_ckpt_expected_h(cfg->work_h, out->interval_h,
		                                     cfg->ckpt_cost_h, cfg->restart_cost_h,
		                                     cfg->spot.rate_per_h,
		                                     cfg->spot.unavailable_mean_h);
	out->best_interval_h = NAN;
	out->best_interval_ci.value = out->best_interval_ci.ci_lo = NAN;
	out->best_interval_ci.ci_hi = out->best_interval_ci.half_width = NAN;
	out->best_completion_h = out->best_interval_ci;
	ref_h = isfinite(out->daly_h) && out->daly_h > 0 ? out->daly_h : out->young_h;
	if (cfg->scan_points > 0 && isfinite(ref_h) && ref_h > 0 &&
	    scan(cfg, &job, ref_h, out, err) != 0)
		goto done;
	*res = *out;
	rc = 0;
done:
	free(out);
	fs_capacity_trace_free(trace);
	return rc;
}
