/*
 * objective.c — per-replication decision figures, pooled latency figures and
 * the verdict on quantile constraints, and the stopping rule (see
 * objective.h).  The stopping rule is deterministic: how many replications
 * run depends only on the results of earlier ones, never on threads.
 */
#include "fleetsim/objective.h"

#include <math.h>
#include <stdlib.h>

#include "fleetsim/billing.h"
#include "fleetsim/common.h"
#include "fleetsim/stats.h"

static double ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

struct fs_rep_cost fs_rep_cost_figures(const struct fs_scenario *sc,
                                       const struct fs_rep_result *r)
{
	/* MODEL: S3, F14, E5 — the span billed: the horizon, or up to the stop
	 * at max_in_system (billing stopped there too); with drain, up to the
	 * end of the drain, where billing ends. */
	fs_ns end_ns = r->end_ns < sc->sim.horizon_ns || sc->sim.drain ? r->end_ns :
	               sc->sim.horizon_ns;
	struct fs_rep_cost c;
	size_t p;

	c.total_usd = 0;
	for (p = 0; p < r->fleet.n_pools; p++)
		c.total_usd += r->fleet.pools[p].usd;
	c.span_h = (double)end_ns / 3600e9;
	/* MODEL: F14 — cost figures cover the simulated span, warm-up included,
	 * and so do their denominators (all completions and their tokens, the
	 * hours simulated). */
	c.usd_per_hour = ratio(c.total_usd, c.span_h);
	c.monthly_usd = c.usd_per_hour * FS_HOURS_PER_MONTH;
	c.usd_per_1m_output_tokens = ratio(c.total_usd,
	                                   (double)r->fleet.all_output_tokens / 1e6);
	c.usd_per_1k_requests = ratio(c.total_usd, (double)r->fleet.all_completed / 1e3);
	return c;
}

double fs_objective_value(enum fs_objective_metric m, const struct fs_scenario *sc,
                          const struct fs_rep_result *r)
{
	struct fs_rep_cost c;

	if (r->fleet.n_pools == 0)
		return NAN;
	c = fs_rep_cost_figures(sc, r);
	switch (m) {
	case FS_OBJ_TOTAL_USD:         return c.total_usd;
	case FS_OBJ_MONTHLY_USD:       return c.monthly_usd;
	case FS_OBJ_USD_PER_1M_TOKENS: return c.usd_per_1m_output_tokens;
	}
	return NAN;
}

FS_ENUM_FUNCS(enum fs_objective_metric, FS_OBJECTIVE_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_objective_name, fs_objective_from_name, "?")

static const struct fs_class_result *group(const struct fs_rep_result *r, int class_idx)
{
	return &r->cls[class_idx < 0 ? r->n_classes : (size_t)class_idx];
}

double fs_rep_latency_ms(const struct fs_rep_result *r, int class_idx,
                         enum fs_latency k, enum fs_quantity q)
{
	static const double p[FS_QTY__COUNT] = { 0, 0.50, 0.90, 0.95, 0.99 };
	const struct fs_class_result *cr = group(r, class_idx);

	if (cr->lat_hist[k].n == 0)
		return NAN;
	if (q == FS_QTY_MEAN)
		return cr->lat_moments[k].mean / 1e6;
	return fs_hist_quantile(&cr->lat_hist[k], p[q]) / 1e6;
}

double fs_rep_attainment(const struct fs_rep_result *r, int class_idx)
{
	const struct fs_class_result *cr = group(r, class_idx);
	uint64_t n = cr->completed + cr->in_flight + cr->failed;

	return n > 0 ? (double)cr->slo_met / (double)n : NAN;
}

/* The availability record of pool_idx (-1: the fleet), NULL when the
 * replication has no such pool. */
static const struct fs_availability *avail_of(const struct fs_rep_result *r, int pool_idx)
{
	if (r->fleet.n_pools == 0)
		return NULL;
	if (pool_idx < 0)
		return &r->fleet.avail;
	return (size_t)pool_idx < r->fleet.n_pools ? &r->fleet.pools[pool_idx].avail : NULL;
}

double fs_rep_availability(const struct fs_rep_result *r, int pool_idx)
{
	const struct fs_availability *a = avail_of(r, pool_idx);

	return a != NULL && a->window_ns > 0 ? 1.0 - a->short_ns / a->window_ns : NAN;
}

double fs_rep_min_serving(const struct fs_rep_result *r, int pool_idx)
{
	const struct fs_availability *a = avail_of(r, pool_idx);

	return a != NULL && a->min_serving >= 0 ? (double)a->min_serving : NAN;
}

/* One constraint's figure in replication r. */
static double constraint_figure(const struct fs_constraint *c, const struct fs_rep_result *r)
{
	switch (c->kind) {
	case FS_CONSTRAINT_LATENCY:
		return fs_rep_latency_ms(r, c->class_idx, (enum fs_latency)c->latency,
		                         (enum fs_quantity)c->quantity);
	case FS_CONSTRAINT_ATTAINMENT:
		return fs_rep_attainment(r, c->class_idx);
	case FS_CONSTRAINT_AVAILABILITY:
		return fs_rep_availability(r, c->pool_idx);
	case FS_CONSTRAINT_MIN_SERVING:
		return fs_rep_min_serving(r, c->pool_idx);
	}
	return NAN;
}

/* Whether r meets every constraint, leaving out the pooled ones when
 * skip_pooled (a figure with no data fails). */
static bool met(const struct fs_objective_cfg *obj, const struct fs_rep_result *r,
                bool skip_pooled)
{
	size_t i;

	for (i = 0; i < obj->n_constraints; i++) {
		const struct fs_constraint *c = &obj->constraints[i];
		double v;

		if (skip_pooled && fs_constraint_pooled(c))
			continue;
		v = constraint_figure(c, r);
		if (c->kind == FS_CONSTRAINT_LATENCY ? !(v <= c->max_ms) : !(v >= c->min))
			return false;
	}
	return true;
}

/* MODEL: S11, S20 — a replication meets the objective's constraints when
 * each holds in it (a figure with no data fails). */
bool fs_objective_met(const struct fs_objective_cfg *obj, const struct fs_rep_result *r)
{
	return met(obj, r, false);
}

/* MODEL: S11, M9 — quantile constraints are judged on pooled intervals. */
bool fs_constraint_pooled(const struct fs_constraint *c)
{
	return c->kind == FS_CONSTRAINT_LATENCY && c->quantity != FS_QTY_MEAN;
}

bool fs_objective_met_per_run(const struct fs_objective_cfg *obj, const struct fs_rep_result *r)
{
	return met(obj, r, true);
}

size_t fs_objective_n_pooled(const struct fs_objective_cfg *obj)
{
	size_t i, n = 0;

	for (i = 0; i < obj->n_constraints; i++)
		n += fs_constraint_pooled(&obj->constraints[i]);
	return n;
}

/* MODEL: M8 — quantiles from the pooled histograms with their sectioning
 * interval; means as the mean of replication means with a t interval. */
struct fs_ci fs_objective_latency_ci(struct fs_rep_result *const *res, int n, int class_idx,
                                     enum fs_latency k, enum fs_quantity q)
{
	static const double p[FS_QTY__COUNT] = { 0, 0.50, 0.90, 0.95, 0.99 };
	struct fs_ci ci;
	int i;

	if (q == FS_QTY_MEAN) {
		double *x = fs_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *x);

		for (i = 0; i < n; i++)
			x[i] = fs_rep_latency_ms(res[i], class_idx, k, q);
		ci = fs_stats_mean_ci_nonneg(x, (size_t)n, FS_CI_LEVEL);
		free(x);
		return ci;
	} else {
		const struct fs_hist **h = fs_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *h);

		for (i = 0; i < n; i++)
			h[i] = &group(res[i], class_idx)->lat_hist[k];
		ci = fs_stats_quantile_ci(h, (size_t)n, p[q], FS_CI_LEVEL);
		free(h);
	}
	ci.value /= 1e6;                     /* ns to ms */
	ci.ci_lo /= 1e6;
	ci.ci_hi /= 1e6;
	ci.half_width /= 1e6;
	return ci;
}

/*
 * MODEL: M9 — "quantile <= max_ms" is met when the whole interval is at or
 * below the bound, not met when it lies above it.  Undecided: the sectioning
 * interval narrows about as 1 / sqrt(R), so the side facing the bound must
 * shrink by (distance to the bound) / (that side's length), which takes
 * R (side / distance)^2 replications.
 */
enum fs_share_verdict fs_objective_pooled_verdict(const struct fs_constraint *c,
                                                  const struct fs_ci *ci, size_t n_reps,
                                                  size_t *needed)
{
	double side, gap, need;

	*needed = 0;
	if (!isfinite(ci->ci_lo) || !isfinite(ci->ci_hi) || !isfinite(ci->value)) {
		if (n_reps < 2)
			*needed = 2;         /* one replication has no interval */
		return FS_SHARE_UNDECIDED;
	}
	if (ci->ci_hi <= c->max_ms)
		return FS_SHARE_MET;
	if (ci->ci_lo > c->max_ms)
		return FS_SHARE_NOT_MET;
	if (ci->value == c->max_ms)
		return FS_SHARE_UNDECIDED;   /* no number of replications decides */
	side = ci->value < c->max_ms ? ci->ci_hi - ci->value : ci->value - ci->ci_lo;
	gap = fabs(c->max_ms - ci->value);
	need = ceil((double)n_reps * (side / gap) * (side / gap));
	if (!(need < 1e9))
		return FS_SHARE_UNDECIDED;
	*needed = need > (double)n_reps ? (size_t)need : n_reps + 1;
	return FS_SHARE_UNDECIDED;
}

enum fs_share_verdict fs_objective_verdict_and(enum fs_share_verdict a, size_t needed_a,
                                               enum fs_share_verdict b, size_t needed_b,
                                               size_t *needed)
{
	*needed = 0;
	if (a == FS_SHARE_NOT_MET || b == FS_SHARE_NOT_MET)
		return FS_SHARE_NOT_MET;
	if (a == FS_SHARE_MET && b == FS_SHARE_MET)
		return FS_SHARE_MET;
	/* Undecided: as many as the hungrier part needs; none when a part
	 * cannot be decided by more replications. */
	if ((a == FS_SHARE_UNDECIDED && needed_a == 0) ||
	    (b == FS_SHARE_UNDECIDED && needed_b == 0))
		return FS_SHARE_UNDECIDED;
	*needed = needed_a > needed_b ? needed_a : needed_b;
	return FS_SHARE_UNDECIDED;
}

double fs_objective_default_figure(const struct fs_scenario *sc,
                                   const struct fs_rep_result *r)
{
	if (sc->objective.present)
		return fs_objective_value(sc->objective.minimize, sc, r);
	if (r->fleet.n_pools > 0)
		return fs_rep_cost_figures(sc, r).total_usd;
	return fs_rep_latency_ms(r, -1, FS_LAT_E2E, FS_QTY_MEAN);
}

static double rel_half_width(const struct fs_scenario *sc, struct fs_rep_result *const *res,
                             int n, double (*figure)(const struct fs_scenario *,
                                                     const struct fs_rep_result *))
{
	double *x = fs_xmalloc((size_t)n * sizeof *x);
	struct fs_ci ci;
	int i;

	for (i = 0; i < n; i++)
		x[i] = figure(sc, res[i]);
	ci = fs_stats_mean_ci(x, (size_t)n, FS_CI_LEVEL);
	free(x);
	if (!isfinite(ci.half_width) || ci.value == 0)
		return INFINITY;
	/* An interval the skewness check distrusts is not tight, however
	 * narrow it looks (docs/STATISTICS.md, "The stopping rule"). */
	if (ci.n_suggested > ci.n)
		return INFINITY;
	return ci.half_width / fabs(ci.value);
}

struct fs_rep_result **fs_objective_run(const struct fs_scenario *sc,
                                        const struct fs_run_opts *opts,
                                        double (*figure)(const struct fs_scenario *,
                                                         const struct fs_rep_result *),
                                        double ci_target, int max_reps, int *n_reps)
{
	struct fs_rep_result **all = fs_replicate_run(sc, opts);
	int n = opts->replications;

	while (ci_target > 0 && n < max_reps &&
	       rel_half_width(sc, all, n, figure) > ci_target) {
		struct fs_run_opts more = *opts;
		struct fs_rep_result **extra;

		more.first_replication = opts->first_replication + n;
		more.replications = opts->replications;
		if (n + more.replications > max_reps)
			more.replications = max_reps - n;
		more.record_first = false;
		extra = fs_replicate_run(sc, &more);
		all = fs_xrealloc(all, (size_t)(n + more.replications) * sizeof *all);
		for (int i = 0; i < more.replications; i++)
			all[n + i] = extra[i];
		free(extra);
		n += more.replications;
	}
	*n_reps = n;
	return all;
}

double fs_objective_rel_half_width(const struct fs_scenario *sc,
                                   struct fs_rep_result *const *res, int n,
                                   double (*figure)(const struct fs_scenario *,
                                                    const struct fs_rep_result *))
{
	return rel_half_width(sc, res, n, figure);
}
