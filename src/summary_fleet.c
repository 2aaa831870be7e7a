/*
 * summary_fleet.c — the fleet's figures across replications: cost (total,
 * per hour, per 1M output tokens, per 1k requests, idle, lost to spot
 * reclaims, by pricing mode, projected monthly) and per-pool use (busy
 * fraction, KV use, achieved MFU/MBU, launches, reclaims).  Each figure is
 * computed per replication from its fleet result, then given a Student-t CI
 * cut at 0 (shares also at 1).  Per-hour figures divide by the span each
 * replication simulated, shorter than the horizon when it was stopped early.
 */
#include <math.h>

#include "fleetsim/billing.h"
#include "fleetsim/perf.h"
#include "fleetsim/summary.h"

const char *fs_pricing_name(enum fs_pricing p)
{
	switch (p) {
	case FS_PRICING_ON_DEMAND: return "on_demand";
	case FS_PRICING_SPOT:      return "spot";
	case FS_PRICING_MONTHLY:   return "monthly";
	}
	return "?";
}

static double ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

static double total_usd(const struct fs_fleet_result *f)
{
	double usd = 0;
	size_t p;

	for (p = 0; p < f->n_pools; p++)
		usd += f->pools[p].usd;
	return usd;
}

/* Peak FLOP/s and bandwidth of one instance of pool p (TP GPUs). */
static void pool_peaks(const struct fs_pool_cfg *pc, double *flops_per_s, double *bytes_per_s)
{
	*flops_per_s = fs_perf_peak_flops_per_s(&pc->llm->perf) * pc->llm->perf.tp;
	*bytes_per_s = pc->llm->perf.gpu->mem_bw_bytes_per_s * pc->llm->perf.tp;
}

#define PER_REP(dst, expr) \
	do { \
		for (r = 0; r < n_reps; r++) { \
			const struct fs_fleet_result *f = &results[r]->fleet; \
			(void)f; \
			buf[r] = (expr); \
		} \
		(dst) = fs_stats_mean_ci_nonneg(buf, (size_t)n_reps, 0.95); \
	} while (0)

static void build_pools(struct fs_summary *s, const struct fs_scenario *sc,
                        struct fs_rep_result *const *results, int n_reps, double *buf)
{
	size_t p;
	int r;

	s->n_pools = sc->fleet.n_pools;
	s->pools = fs_xcalloc(s->n_pools, sizeof *s->pools);
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_cfg *pc = &sc->fleet.pools[p];
		struct fs_pool_summary *ps = &s->pools[p];
		double peak_flops, peak_bytes;

		pool_peaks(pc, &peak_flops, &peak_bytes);
		ps->name = pc->name;
		PER_REP(ps->usd, f->pools[p].usd);
		PER_REP(ps->idle_usd, f->pools[p].idle_usd);
		PER_REP(ps->lost_usd, f->pools[p].lost_usd);
		PER_REP(ps->instance_hours, f->pools[p].alive_ns / 3600e9);
		PER_REP(ps->busy_fraction, ratio(f->pools[p].busy_ns, f->pools[p].serving_ns));
		ps->busy_fraction = fs_stats_ci_clip(ps->busy_fraction, 0.0, 1.0);
		PER_REP(ps->kv_use, ratio(f->pools[p].kv_block_ns, f->pools[p].serving_ns *
		                          (double)f->pools[p].kv_blocks_per_instance));
		ps->kv_use = fs_stats_ci_clip(ps->kv_use, 0.0, 1.0);
		/* MODEL: S8 — achieved MFU/MBU: modelled work over iteration time. */
		PER_REP(ps->mfu, ratio(f->pools[p].flops, f->pools[p].busy_ns * 1e-9 * peak_flops));
		PER_REP(ps->mbu, ratio(f->pools[p].bytes, f->pools[p].busy_ns * 1e-9 * peak_bytes));
		PER_REP(ps->launches, (double)f->pools[p].launches);
		PER_REP(ps->failed_launches, (double)f->pools[p].failed_launches);
		PER_REP(ps->reclaims, (double)f->pools[p].reclaims);
	}
}

/* Σ over pools of f(pool result, pool config). */
static double fleet_sum(const struct fs_scenario *sc, const struct fs_fleet_result *f,
                        int what)
{
	double sum = 0, peak_flops, peak_bytes;
	size_t p;

	for (p = 0; p < f->n_pools; p++) {
		const struct fs_pool_result *pr = &f->pools[p];

		pool_peaks(&sc->fleet.pools[p], &peak_flops, &peak_bytes);
		switch (what) {
		case 0: sum += pr->busy_ns; break;
		case 1: sum += pr->serving_ns; break;
		case 2: sum += pr->flops; break;
		case 3: sum += pr->busy_ns * 1e-9 * peak_flops; break;
		case 4: sum += pr->bytes; break;
		case 5: sum += pr->busy_ns * 1e-9 * peak_bytes; break;
		case 6: sum += pr->idle_usd; break;
		default: sum += pr->lost_usd; break;
		}
	}
	return sum;
}

static double usd_by_pricing(const struct fs_scenario *sc, const struct fs_fleet_result *f,
                             enum fs_pricing pricing)
{
	double usd = 0;
	size_t p;

	for (p = 0; p < f->n_pools; p++)
		if (sc->fleet.pools[p].pricing == pricing)
			usd += f->pools[p].usd;
	return usd;
}

/* MODEL: S3, F14 — hours simulated by replication r: the horizon, or up to
 * the stop at max_in_system (billing stopped there too). */
static double span_h(const struct fs_scenario *sc, const struct fs_rep_result *r)
{
	fs_ns end_ns = r->end_ns < sc->sim.horizon_ns ? r->end_ns : sc->sim.horizon_ns;

	return (double)end_ns / 3600e9;
}

void fs__summary_build_fleet(struct fs_summary *s, const struct fs_scenario *sc,
                             struct fs_rep_result *const *results, int n_reps, double *buf)
{
	struct fs_cost_summary *c = &s->cost;
	int r, k;

	build_pools(s, sc, results, n_reps, buf);
	PER_REP(s->busy_fraction, ratio(fleet_sum(sc, f, 0), fleet_sum(sc, f, 1)));
	s->busy_fraction = fs_stats_ci_clip(s->busy_fraction, 0.0, 1.0);
	PER_REP(s->mfu, ratio(fleet_sum(sc, f, 2), fleet_sum(sc, f, 3)));
	PER_REP(s->mbu, ratio(fleet_sum(sc, f, 4), fleet_sum(sc, f, 5)));
	/* MODEL: F14 — cost figures cover the simulated span, warm-up included,
	 * and so do their denominators (all completions and their tokens, the
	 * hours simulated). */
	PER_REP(c->total_usd, total_usd(f));
	c->total_usd_per_rep = fs_xmalloc((size_t)n_reps * sizeof *c->total_usd_per_rep);
	for (r = 0; r < n_reps; r++)
		c->total_usd_per_rep[r] = total_usd(&results[r]->fleet);
	PER_REP(c->usd_per_hour, ratio(total_usd(f), span_h(sc, results[r])));
	PER_REP(c->monthly_usd, ratio(total_usd(f), span_h(sc, results[r])) *
	                        FS_HOURS_PER_MONTH);
	PER_REP(c->usd_per_1m_output_tokens,
	        ratio(total_usd(f), (double)f->all_output_tokens / 1e6));
	PER_REP(c->usd_per_1k_requests, ratio(total_usd(f), (double)f->all_completed / 1e3));
	PER_REP(c->idle_usd, fleet_sum(sc, f, 6));
	PER_REP(c->lost_usd, fleet_sum(sc, f, 7));
	for (k = 0; k < 3; k++)
		PER_REP(c->by_pricing_usd[k], usd_by_pricing(sc, f, (enum fs_pricing)k));
	PER_REP(c->requeued, (double)f->requeued);
}
