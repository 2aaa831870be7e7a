/*
 * objective.c — per-replication decision figures and the stopping rule (see
 * objective.h).  The stopping rule is deterministic: how many replications
 * run depends only on the results of earlier ones, never on threads.
 */
#include "fleetsim/objective.h"

#include <math.h>
#include <stdlib.h>

#include "fleetsim/billing.h"
#include "fleetsim/stats.h"

static double total_usd(const struct fs_rep_result *r)
{
	double usd = 0;
	size_t p;

	for (p = 0; p < r->fleet.n_pools; p++)
		usd += r->fleet.pools[p].usd;
	return usd;
}

double fs_objective_value(enum fs_objective_metric m, const struct fs_scenario *sc,
                          const struct fs_rep_result *r)
{
	/* MODEL: F14 — per hour of the span simulated (shorter when stopped early). */
	double hours = (double)(r->end_ns < sc->sim.horizon_ns ? r->end_ns
	                                                       : sc->sim.horizon_ns) / 3600e9;

	if (r->fleet.n_pools == 0)
		return NAN;
	switch (m) {
	case FS_OBJ_TOTAL_USD:
		return total_usd(r);
	case FS_OBJ_MONTHLY_USD:
		return hours > 0 ? total_usd(r) / hours * FS_HOURS_PER_MONTH : NAN;
	case FS_OBJ_USD_PER_1M_TOKENS:
		return r->fleet.all_output_tokens > 0 ?
		       total_usd(r) / ((double)r->fleet.all_output_tokens / 1e6) : NAN;
	}
	return NAN;
}

const char *fs_objective_name(enum fs_objective_metric m)
{
	switch (m) {
	case FS_OBJ_TOTAL_USD:         return "total_cost";
	case FS_OBJ_MONTHLY_USD:       return "monthly_cost";
	case FS_OBJ_USD_PER_1M_TOKENS: return "cost_per_1m_output_tokens";
	}
	return "?";
}

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

/* MODEL: S11, S20 — a replication meets the objective's constraints when
 * each holds in it (a figure with no data fails). */
bool fs_objective_met(const struct fs_objective_cfg *obj, const struct fs_rep_result *r)
{
	size_t i;

	for (i = 0; i < obj->n_constraints; i++) {
		const struct fs_constraint *c = &obj->constraints[i];
		double v = constraint_figure(c, r);

		if (c->kind == FS_CONSTRAINT_LATENCY ? !(v <= c->max_ms) : !(v >= c->min))
			return false;
	}
	return true;
}

double fs_objective_default_figure(const struct fs_scenario *sc,
                                   const struct fs_rep_result *r)
{
	if (sc->objective.present)
		return fs_objective_value(sc->objective.minimize, sc, r);
	if (r->fleet.n_pools > 0)
		return total_usd(r);
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
	ci = fs_stats_mean_ci(x, (size_t)n, 0.95);
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
