/*
 * world_spot.c — spot capacity of one world's fleet: interruptions of
 * running spot instances, reclaim notices and reclaims, zone-wide reclaims
 * with their outage, replayed capacity traces, relaunch retries, and the
 * fallback strategy's on-demand stand-ins.  The instances' life cycle
 * (launch, serving, gone) is world_fleet.c's; this file decides when spot
 * capacity is taken away and what replaces it.
 */
#include "world_state.h"

#include <math.h>

#include "fleetsim/capacity.h"

static const struct fs_pool_cfg *pool_cfg(const struct fs_world *w, uint32_t p)
{
	return w->pools[p].cfg;
}

/* Spot capacity left in zone z now (INT32_MAX: unlimited). */
int32_t fs__world_spot_room(const struct fs_world *w, uint32_t z)
{
	const struct fs_zone_cfg *zc = &w->fleet->zones[z];
	int32_t cap;

	if (w->now_ns < w->zones[z].outage_until_ns)
		return 0;                            /* MODEL: F9 */
	if (zc->trace == NULL)
		return INT32_MAX;
	cap = fs_capacity_at(zc->trace, w->now_ns);   /* MODEL: F10 */
	return cap - w->zones[z].spot_alive;
}

/* A spot instance began running: draw its interruption. */
void fs__world_spot_arm(struct fs_world *w, uint32_t ii)
{
	const struct fs_spot_cfg *sp = &pool_cfg(w, w->insts[ii].pool)->spot;
	double mean_ns;

	if (!w->insts[ii].spot || sp->interrupt_rate_per_h <= 0)
		return;
	/* MODEL: F8 — interruptions of a running spot instance are Poisson. */
	mean_ns = FS_NS_PER_HOUR / sp->interrupt_rate_per_h;
	w->insts[ii].life_ev = fs_eventq_push(w->q, w->now_ns +
		(fs_ns)llround(fs_rng_exponential(w->spot_rng, mean_ns)), FS_EV_SPOT_NOTICE, ii, 0);
}

/* Serving spot instances of pool p (under no notice). */
static int serving_count(const struct fs_world *w, uint32_t p)
{
	size_t i;
	int n = 0;

	for (i = 0; i < w->n_insts; i++)
		n += w->insts[i].pool == p && !w->insts[i].standin &&
		     w->insts[i].state == FS__INST_SERVING;
	return n;
}

/* MODEL: F12 — FALLBACK keeps (wanted - serving spot instances) on-demand
 * stand-ins of the fallback pool, so they cover both the time spot is short
 * and the cold start of its replacement or of a scale-out; surplus
 * stand-ins are released, those not yet serving first.  Wanted is the count
 * or the autoscaler's decision (F15): over-provisioned spares are not stood
 * in for.  The stand-ins launched stand in for capacity a reclaim took
 * (their cold start is lost to reclaims, F13) unless `for_reclaim` is
 * false: at t = 0 and at the autoscaler's decision. */
void fs__world_spot_rebalance(struct fs_world *w, uint32_t p, bool for_reclaim)
{
	const struct fs_pool_cfg *pc = pool_cfg(w, p);
	int wanted, i;

	if (w->fleet->strategy != FS_STRATEGY_FALLBACK || pc->pricing != FS_PRICING_SPOT ||
	    pc->fallback_pool < 0)
		return;
	wanted = w->pools[p].avail.wanted - serving_count(w, p);
	if (wanted < 0)
		wanted = 0;
	while (w->pools[p].standins < wanted)
		fs__world_fleet_launch(w, (uint32_t)pc->fallback_pool, false, for_reclaim,
		                       (int)p);
	for (i = 0; i < 2 && w->pools[p].standins > wanted; i++) {
		size_t k;

		for (k = w->n_insts; k-- > 0 && w->pools[p].standins > wanted;) {
			struct fs__instance *in = &w->insts[k];

			if (in->standin && in->standin_for == p && fs__world_inst_counts(in) &&
			    (i == 1 || in->state != FS__INST_SERVING))
				fs__world_fleet_release(w, (uint32_t)k);
		}
	}
}

/* A reclaim notice for instance ii (MODEL: F7). */
static void notice(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	const struct fs_pool_cfg *pc = pool_cfg(w, in->pool);
	uint32_t p = in->pool;
	bool counted = fs__world_inst_counts(in);    /* not draining */

	if (in->state == FS__INST_GONE || in->state == FS__INST_NOTICE)
		return;
	fs_eventq_cancel(w->q, in->life_ev);
	if (in->state == FS__INST_PROVISIONING || in->state == FS__INST_STARTING) {
		fs__rec_reclaim(&w->rec, p, w->now_ns);
		fs__world_fleet_gone(w, ii);
	} else {
		if (in->state == FS__INST_SERVING)
			w->pools[p].alive--;
		in->state = FS__INST_NOTICE;
		fs__world_fleet_note_pool(w, p);
		if (pc->spot.in_flight == FS_INFLIGHT_REQUEUE)
			fs__world_llm_evacuate(w, ii, false);
		in->life_ev = fs_eventq_push(w->q, w->now_ns + pc->spot.notice_ns,
		                             FS_EV_SPOT_RECLAIM, ii, 0);
	}
	/* MODEL: F11 — the strategy decides whether the capacity is replaced;
	 * MODEL: F13 — only capacity the pool counted is owed a replacement (an
	 * instance the autoscaler was draining was given up already). */
	if (w->fleet->strategy == FS_STRATEGY_NONE) {
		w->pools[p].target = w->pools[p].alive;
	} else {
		if (counted)
			w->pools[p].replacements_due++;
		fs__world_fleet_fill(w, p);
	}
	fs__world_spot_rebalance(w, p, true);
}

static void on_reclaim(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	const struct fs_pool_cfg *pc = pool_cfg(w, in->pool);

	if (in->state != FS__INST_NOTICE)
		return;
	fs__world_llm_evacuate(w, ii, pc->spot.in_flight == FS_INFLIGHT_FAIL);
	fs__rec_reclaim(&w->rec, in->pool, w->now_ns);
	fs__world_fleet_gone(w, ii);
}

/* Zone-wide reclaim rate and outage: the largest of the spot pools using z. */
static void zone_reclaim_params(const struct fs_world *w, uint32_t z, double *rate_per_h,
                                fs_ns *outage_ns)
{
	size_t p, k;

	*rate_per_h = 0;
	*outage_ns = 0;
	for (p = 0; p < w->fleet->n_pools; p++) {
		const struct fs_pool_cfg *pc = pool_cfg(w, (uint32_t)p);

		if (pc->pricing != FS_PRICING_SPOT)
			continue;
		for (k = 0; k < pc->n_zones; k++) {
			if ((uint32_t)pc->zones[k] != z)
				continue;
			*rate_per_h = fmax(*rate_per_h, pc->spot.zone_reclaim_rate_per_h);
			if (pc->spot.zone_outage_ns > *outage_ns)
				*outage_ns = pc->spot.zone_outage_ns;
		}
	}
}

static void schedule_zone_reclaim(struct fs_world *w, uint32_t z)
{
	double rate_per_h;
	fs_ns outage_ns;

	zone_reclaim_params(w, z, &rate_per_h, &outage_ns);
	if (rate_per_h > 0)
		fs_eventq_push(w->q, w->now_ns + (fs_ns)llround(
			fs_rng_exponential(w->spot_rng, FS_NS_PER_HOUR / rate_per_h)),
			FS_EV_ZONE_RECLAIM, z, 0);
}

/* MODEL: F10 — a rise of a capacity trace retries every spot pool's
 * launches, whether or not a retry is pending. */
static void retry_spot_pools(struct fs_world *w)
{
	size_t p;

	for (p = 0; p < w->fleet->n_pools; p++)
		if (pool_cfg(w, (uint32_t)p)->pricing == FS_PRICING_SPOT)
			fs__world_fleet_retry(w, (uint32_t)p);
}

/* MODEL: F9 — a zone reclaim notices every spot instance in the zone and
 * leaves it without capacity for the outage.  Only the instances there at
 * the reclaim: with `zone_outage` 0 their replacements, launched by the
 * notices, may land in the same zone and are not reclaimed again (which
 * would never end). */
static void on_zone_reclaim(struct fs_world *w, uint32_t z)
{
	double rate_per_h;
	fs_ns outage_ns;
	size_t i, n = w->n_insts;

	zone_reclaim_params(w, z, &rate_per_h, &outage_ns);
	w->zones[z].outage_until_ns = w->now_ns + outage_ns;
	for (i = 0; i < n; i++)
		if (w->insts[i].spot && w->insts[i].zone == z)
			notice(w, (uint32_t)i);
	schedule_zone_reclaim(w, z);
}

/* MODEL: F10 — when a zone's traced capacity falls below its spot instances,
 * the most recently launched ones are reclaimed (with notice); when it
 * rises, launches that found no room are retried. */
static void on_capacity(struct fs_world *w, uint32_t z)
{
	const struct fs_capacity_trace *t = w->fleet->zones[z].trace;
	fs_ns next_ns = fs_capacity_next_change(t, w->now_ns);
	int32_t cap = fs_capacity_at(t, w->now_ns);
	bool rose = w->now_ns > 0 && cap > fs_capacity_at(t, w->now_ns - 1);
	int live = 0;
	size_t i;

	for (i = 0; i < w->n_insts; i++)
		live += w->insts[i].spot && w->insts[i].zone == z &&
		        fs__world_inst_counts(&w->insts[i]);
	for (i = w->n_insts; i-- > 0 && live > cap;) {
		if (w->insts[i].spot && w->insts[i].zone == z && fs__world_inst_counts(&w->insts[i])) {
			notice(w, (uint32_t)i);
			live--;
		}
	}
	if (next_ns != FS_NS_MAX && next_ns < w->sc->sim.horizon_ns)
		fs_eventq_push(w->q, next_ns, FS_EV_CAPACITY, z, 0);
	if (rose)
		retry_spot_pools(w);
}

void fs__world_spot_init(struct fs_world *w)
{
	const struct fs_fleet_cfg *f = w->fleet;
	size_t z;

	for (z = 0; z < f->n_zones; z++) {
		if (f->zones[z].trace != NULL) {
			fs_ns next_ns = fs_capacity_next_change(f->zones[z].trace, 0);

			if (next_ns != FS_NS_MAX && next_ns < w->sc->sim.horizon_ns)
				fs_eventq_push(w->q, next_ns, FS_EV_CAPACITY, (uint32_t)z, 0);
		}
		schedule_zone_reclaim(w, (uint32_t)z);
	}
}

void fs__world_spot_event(struct fs_world *w, enum fs_event_kind kind, uint32_t a)
{
	switch (kind) {
	case FS_EV_SPOT_NOTICE:
		notice(w, a);
		break;
	case FS_EV_SPOT_RECLAIM:
		on_reclaim(w, a);
		break;
	case FS_EV_ZONE_RECLAIM:
		on_zone_reclaim(w, a);
		break;
	case FS_EV_CAPACITY:
		on_capacity(w, a);
		break;
	case FS_EV_LAUNCH_RETRY:
		w->pools[a].retry_pending = false;
		fs__world_fleet_fill(w, a);
		fs__world_spot_rebalance(w, a, true);
		break;
	case FS_EV_INSTANCE_UP:
	case FS_EV_AUTOSCALE:
	case FS_EV_ARRIVAL:
	case FS_EV_USER_SEND:
	case FS_EV_SERVICE_DONE:
	case FS_EV_HORIZON:
	case FS_EV_STEP_DONE:
		fs__world_fail(w, "not a spot event", __FILE__, __LINE__);
	}
}
