/*
 * world_bill.c — the bill of one world's fleet: each instance's usage charge
 * (or its pool's commitment) with its idle part and the part lost to spot
 * reclaims, and the time each pool spent at each count of billed instances
 * (for the break-even of commitments).  Pure accounting over the instance
 * records kept by world_fleet.c; called as instances start and stop being
 * billed and once at the end of the run.
 */
#include "world_state.h"

#include <math.h>
#include <stdlib.h>

static const struct fs_pool_cfg *pool_cfg(const struct fs_world *w, uint32_t p)
{
	return w->pools[p].cfg;
}

/* MODEL: B8 — the time pool p spent with each count of billed instances, up
 * to t_ns; then the count changes by delta.  O(1) amortised. */
void fs__world_note_billed(struct fs_world *w, uint32_t p, int delta, fs_ns t_ns)
{
	struct fs__pool *pool = &w->pools[p];

	fs__rec_billed_level(&w->rec, p, (size_t)pool->billed,
	                     (double)(t_ns - pool->billed_since_ns));
	pool->billed += delta;
	pool->billed_since_ns = t_ns;
}

/* MODEL: S1, S7 — the part of [from_ns, to_ns) after the warm-up, the span
 * of the engine's step totals (a drain's tail included, E5, as it is in
 * theirs). */
static double measured_ns(const struct fs_scenario *sc, fs_ns from_ns, fs_ns to_ns)
{
	fs_ns lo = from_ns > sc->sim.warmup_ns ? from_ns : sc->sim.warmup_ns;

	return to_ns > lo ? (double)(to_ns - lo) : 0.0;
}

/* MODEL: F13 — the bill of one instance, and which part of it was idle or
 * lost to spot reclaims.  A committed pool's committed instances are paid by
 * the pool's commitment (below); only its overflow instances are billed
 * here (MODEL: B6). */
static void bill_instance(struct fs_world *w, const struct fs__instance *in, fs_ns end_ns,
                          double *commit_busy_ns)
{
	const struct fs_pool_cfg *pc = pool_cfg(w, in->pool);
	fs_ns until_ns = in->gone_ns >= 0 ? in->gone_ns : end_ns;
	struct fs__rec_bill b = { 0 };
	double cold_ns, lost_cold_ns, billed_ns;

	if (in->billed_from_ns < 0 || until_ns <= in->billed_from_ns)
		return;
	b.alive_ns = (double)(until_ns - in->billed_from_ns);
	b.billed_ns = b.alive_ns;
	if (in->serving_from_ns >= 0) {
		b.serving_ns = (double)(until_ns - in->serving_from_ns);
		b.serving_measured_ns = measured_ns(w->sc, in->serving_from_ns, until_ns);
	}
	if (fs_pricing_committed(pc->pricing) && !in->overflow) {
		commit_busy_ns[in->pool] += in->busy_ns;
		fs__rec_instance_bill(&w->rec, in->pool, &b);   /* billed per pool below */
		return;
	}
	b.usd = fs_billing_usage_usd(pc, in->billed_from_ns, until_ns);
	b.overflow = in->overflow;
	/* the parts are shares of the billed span (B1, B2: the alive span
	 * rounded up, at least the minimum), which is what the bill pays for */
	billed_ns = (double)fs_billing_billed_ns(&pc->billing, in->billed_from_ns, until_ns);
	b.billed_ns = billed_ns;
	cold_ns = (double)((in->serving_from_ns >= 0 ? in->serving_from_ns : until_ns) -
	                   in->billed_from_ns);
	/* A replacement's cold start is lost to the reclaim, not idle: each
	 * dollar in one part only, so that used + idle + lost is the bill. */
	lost_cold_ns = in->replacement ? cold_ns : 0;
	b.idle_usd = b.usd * fmax(0.0, 1.0 - (in->busy_ns + lost_cold_ns) / billed_ns);
	if (in->replacement)
		b.lost_cold_usd = b.usd * cold_ns / billed_ns;
	if (in->tokens_lost > 0 && in->tokens_processed > 0)
		b.lost_work_usd = b.usd * (in->busy_ns / billed_ns) *
		                  fmin(1.0, in->tokens_lost / in->tokens_processed);
	fs__rec_instance_bill(&w->rec, in->pool, &b);
}

void fs__world_fleet_finish(struct fs_world *w, fs_ns end_ns)
{
	double *commit_busy_ns = fs_xcalloc(w->fleet->n_pools, sizeof *commit_busy_ns);
	size_t i, p;

	for (i = 0; i < w->n_insts; i++)
		bill_instance(w, &w->insts[i], end_ns, commit_busy_ns);
	for (p = 0; p < w->fleet->n_pools; p++) {
		const struct fs_pool_cfg *pc = pool_cfg(w, (uint32_t)p);

		fs__rec_pool_kv_blocks(&w->rec, p, pc->llm->sched.kv_blocks);
		fs__world_note_billed(w, (uint32_t)p, 0, end_ns);
		if (fs_pricing_committed(pc->pricing)) {
			/* MODEL: B4 — the commitment is paid whether used or not. */
			double fee = fs_billing_commit_usd(pc, end_ns);
			double capacity_ns = (double)end_ns * pc->count;
			double idle_usd = 0;

			if (capacity_ns > 0)
				idle_usd = fee * fmax(0.0, 1.0 - commit_busy_ns[p] / capacity_ns);
			fs__rec_commitment(&w->rec, p, fee, idle_usd);
		}
	}
	free(commit_busy_ns);
}
