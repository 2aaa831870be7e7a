/*
 * world_fleet.c — the life cycle of one world's instances: launched into a
 * pool and a zone, provisioning -> starting -> serving -> notice or
 * draining -> gone, and the fleet's events dispatched to their owners.
 * Spot capacity (interruptions, zone reclaims, traces, relaunch, stand-ins)
 * is world_spot.c's, the autoscaler's look world_scale.c's, the bill
 * world_bill.c's.  Instances are never removed from the array (ids stay
 * valid); a gone instance keeps its times for billing.
 */
#include "world_state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NO_ZONE UINT32_MAX

static const struct fs_pool_cfg *pool_cfg(const struct fs_world *w, uint32_t p)
{
	return w->pools[p].cfg;
}

static bool takes_capacity(const struct fs__instance *in)
{
	return in->state != FS__INST_GONE;
}

/* Counts toward its pool's size: not gone, not under notice, not draining. */
bool fs__world_inst_counts(const struct fs__instance *in)
{
	return in->state == FS__INST_PROVISIONING || in->state == FS__INST_STARTING ||
	       in->state == FS__INST_SERVING;
}

/* Instances of pool p (stand-ins excluded) alive in zone z. */
static int pool_in_zone(const struct fs_world *w, uint32_t p, uint32_t z)
{
	size_t i;
	int n = 0;

	for (i = 0; i < w->n_insts; i++)
		n += w->insts[i].pool == p && w->insts[i].zone == z && !w->insts[i].standin &&
		     fs__world_inst_counts(&w->insts[i]);
	return n;
}

/* MODEL: F4 — spreading puts a new instance in the pool's zone with the
 * fewest of its instances (ties: in list order from a rotating start);
 * otherwise the first zone with room. */
static uint32_t pick_zone(struct fs_world *w, uint32_t p, bool spot)
{
	const struct fs_pool_cfg *pc = pool_cfg(w, p);
	uint32_t best = NO_ZONE;
	int best_n = 0;
	size_t k;

	for (k = 0; k < pc->n_zones; k++) {
		uint32_t z = (uint32_t)pc->zones[(k + w->pools[p].next_zone) % pc->n_zones];
		int n;

		if (spot && fs__world_spot_room(w, z) <= 0)
			continue;
		if (!pc->spread_zones)
			return z;
		n = pool_in_zone(w, p, z);
		if (best == NO_ZONE || n < best_n) {
			best = z;
			best_n = n;
		}
	}
	if (best != NO_ZONE)
		w->pools[p].next_zone = (w->pools[p].next_zone + 1) % (uint32_t)pc->n_zones;
	return best;
}

static fs_ns draw_delay_ns(struct fs_world *w, const struct fs_delay_cfg *d)
{
	double x = (double)d->mean_ns;

	switch (d->kind) {
	case FS_DELAY_FIXED:
		break;
	case FS_DELAY_UNIFORM:
		x = (double)d->min_ns + fs_rng_uniform(w->fleet_rng) *
		    (double)(d->max_ns - d->min_ns);
		break;
	case FS_DELAY_EXPONENTIAL:
		x = fs_rng_exponential(w->fleet_rng, x);
		break;
	case FS_DELAY_LOGNORMAL: {
		double s2 = log1p(d->cv * d->cv);

		x = x > 0 ? fs_rng_lognormal(w->fleet_rng, log(x) - s2 / 2, sqrt(s2)) : 0;
		break;
	}
	}
	return x < 0 ? 0 : (fs_ns)llround(x);
}

/* MODEL: F3 — a cold start takes the weights' download, their load into GPU
 * memory, and the engine's start-up, one after another. */
fs_ns fs__world_cold_start_ns(const struct fs_pool_cfg *pc)
{
	double weights_bytes = pc->llm->mem.weights_bytes_per_gpu * pc->llm->perf.tp;
	double s = weights_bytes / pc->download_bytes_per_s +
	           pc->llm->mem.weights_bytes_per_gpu / pc->load_bytes_per_s;

	return (fs_ns)llround(s * FS_NS_PER_SECOND) + pc->engine_start_ns;
}

static uint32_t new_instance(struct fs_world *w, uint32_t p, uint32_t z)
{
	struct fs__instance *in;
	uint32_t ii;

	fs_xgrow((void **)&w->insts, &w->cap_insts, w->n_insts + 1, sizeof *w->insts);
	ii = (uint32_t)w->n_insts++;
	in = &w->insts[ii];
	*in = (struct fs__instance){ 0 };
	in->pool = p;
	in->zone = z;
	in->spot = pool_cfg(w, p)->pricing == FS_PRICING_SPOT;
	/* MODEL: B6 — a committed pool's instance takes a free commitment slot;
	 * with none free it is overflow for its whole life. */
	if (fs_pricing_committed(pool_cfg(w, p)->pricing)) {
		in->overflow = w->pools[p].committed_live >= pool_cfg(w, p)->count;
		w->pools[p].committed_live += !in->overflow;
	}
	in->requested_ns = w->now_ns;
	in->billed_from_ns = in->serving_from_ns = in->gone_ns = -1;
	if (in->spot)
		w->zones[z].spot_alive++;
	fs__rec_launch(&w->rec, p, ++w->pools[p].live);
	return ii;
}

/* Record pool p's serving instances (stand-ins included) from now on. */
void fs__world_fleet_note_pool(struct fs_world *w, uint32_t p)
{
	size_t i;
	int n = 0;

	for (i = 0; i < w->n_insts; i++)
		n += w->insts[i].pool == p && w->insts[i].state == FS__INST_SERVING;
	fs__recorder_pool_serving(&w->rec, p, w->now_ns, n);
	fs__world_avail_note(w);
}

/* Pool p's step pricing: that of a pool whose step-time configuration is
 * the same bytes (borrowed specs and tables by address: on-demand and spot
 * of one GPU), whose cache gives the same bits, else a new one. */
static void pool_pricing(struct fs_world *w, uint32_t p)
{
	const struct fs_perf_cfg *perf = &pool_cfg(w, p)->llm->perf;
	struct fs__pool *pool = &w->pools[p];
	uint32_t q;

	for (q = 0; q < w->fleet->n_pools; q++) {
		if (q == p || w->pools[q].pricing == NULL ||
		    memcmp(&pool_cfg(w, q)->llm->perf, perf, sizeof *perf) != 0)
			continue;
		pool->pricing = w->pools[q].pricing;
		pool->pricing_owned = false;
		return;
	}
	pool->pricing = fs_xcalloc(1, sizeof *pool->pricing);
	pool->pricing_owned = true;
	fs_perf_step_cache_init(&pool->pricing->cache, perf);
	fs_perf_step_cache_share(&pool->pricing->cache, &pool->pricing->tokens);
}

static void start_serving(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	const struct fs_pool_cfg *pc = pool_cfg(w, in->pool);
	struct fs_error err;

	struct fs__pool *pool = &w->pools[in->pool];

	in->state = FS__INST_SERVING;
	in->serving_from_ns = w->now_ns;
	if (pool->pricing == NULL)
		pool_pricing(w, in->pool);
	in->cost = fs__world_cost_ctx_alloc(&pc->llm->perf, pool->pricing);
	in->engine = fs_llm_engine_alloc(&pc->llm->sched, fs__world_price_step, in->cost, &err);
	if (in->engine == NULL) {
		fs_error_print(&err);
		fs__world_fail(w, "engine configuration rejected after loading",
		               __FILE__, __LINE__);
	}
	w->kv_total_llm += pc->llm->sched.kv_blocks;
	fs__world_fleet_note_pool(w, in->pool);
}

/* Launch one instance into pool p.  False when a spot pool found no room
 * (a retry is scheduled).  A warm instance serves at once (t = 0 only). */
bool fs__world_fleet_launch(struct fs_world *w, uint32_t p, bool warm, bool replacement,
                           int standin_for)
{
	const struct fs_pool_cfg *pc = pool_cfg(w, p);
	bool spot = pc->pricing == FS_PRICING_SPOT;
	uint32_t z = pick_zone(w, p, spot), ii;
	struct fs__instance *in;

	if (z == NO_ZONE) {
		fs__rec_launch_failed(&w->rec, p);
		if (!w->pools[p].retry_pending) {
			w->pools[p].retry_pending = true;
			fs_eventq_push(w->q, w->now_ns + pc->spot.relaunch_retry_ns,
			               FS_EV_LAUNCH_RETRY, p, 0);
		}
		return false;
	}
	ii = new_instance(w, p, z);
	in = &w->insts[ii];
	in->replacement = replacement;
	if (standin_for >= 0) {
		in->standin = true;
		in->standin_for = (uint32_t)standin_for;
		w->pools[standin_for].standins++;
	} else {
		w->pools[p].alive++;
	}
	if (warm) {
		in->billed_from_ns = w->now_ns;
		fs__world_note_billed(w, p, 1, w->now_ns);
		start_serving(w, ii);
		fs__world_spot_arm(w, ii);
		return true;
	}
	in->state = FS__INST_PROVISIONING;
	in->life_ev = fs_eventq_push(w->q, w->now_ns + draw_delay_ns(w, &pc->provisioning),
	                             FS_EV_INSTANCE_UP, ii, 0);
	return true;
}

/* MODEL: F11 — the instances a pool runs to have `wanted`: a spot pool
 * adds its over-provisioned spares (SpotHedge's target + N_extra). */
int fs__world_fleet_target(const struct fs_pool_cfg *pc, int wanted)
{
	return wanted + (pc->pricing == FS_PRICING_SPOT ? pc->overprovision : 0);
}

/* MODEL: F13 — replacements are owed only for capacity pool p still wants:
 * never more than it lacks of its target (the autoscaler may have lowered
 * the target since the reclaims). */
void fs__world_fleet_trim_due(struct fs_world *w, uint32_t p)
{
	struct fs__pool *pool = &w->pools[p];
	int lacking = pool->target > pool->alive ? pool->target - pool->alive : 0;

	if (pool->replacements_due > lacking)
		pool->replacements_due = lacking;
}

/* Launch until pool p has its target (or a spot launch finds no room).  A
 * launch that replaces a reclaimed instance is marked, for the cost of its
 * cold start (MODEL: F13). */
int fs__world_fleet_retry(struct fs_world *w, uint32_t p)
{
	int fresh = 0;

	while (w->pools[p].alive < w->pools[p].target) {
		bool replacement = w->pools[p].replacements_due > 0;

		if (!fs__world_fleet_launch(w, p, false, replacement, -1))
			break;
		if (replacement)
			w->pools[p].replacements_due--;
		else
			fresh++;
	}
	fs__world_fleet_trim_due(w, p);
	return fresh;
}

/* MODEL: F10 — as fs__world_fleet_retry, but while a spot launch that found
 * no room waits for its retry, whoever asks (a notice's replacement, the
 * autoscaler's look) joins that wait instead of trying again. */
int fs__world_fleet_fill(struct fs_world *w, uint32_t p)
{
	if (w->pools[p].retry_pending) {
		fs__world_fleet_trim_due(w, p);
		return 0;
	}
	return fs__world_fleet_retry(w, p);
}

void fs__world_fleet_gone(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	const struct fs_pool_cfg *pc = pool_cfg(w, in->pool);
	bool counted = fs__world_inst_counts(in);

	FS__WORLD_CHECK(w, in->outstanding == 0, "instance gone with requests on it");
	fs_eventq_cancel(w->q, in->life_ev);
	if (in->engine != NULL) {
		w->kv_total_llm -= pc->llm->sched.kv_blocks;
		free(in->cost);
		fs_llm_engine_free(in->engine);
		in->engine = NULL;
		in->cost = NULL;
	}
	if (in->spot && takes_capacity(in))
		w->zones[in->zone].spot_alive--;
	if (counted && in->standin)
		w->pools[in->standin_for].standins--;
	else if (counted)
		w->pools[in->pool].alive--;
	if (in->billed_from_ns >= 0)
		fs__world_note_billed(w, in->pool, -1, w->now_ns);
	in->state = FS__INST_GONE;
	in->gone_ns = w->now_ns;
	w->pools[in->pool].live--;
	if (fs_pricing_committed(pc->pricing) && !in->overflow)
		w->pools[in->pool].committed_live--;
	fs__world_fleet_note_pool(w, in->pool);
	fs__world_llm_note_levels(w);
}

/* Stop an instance taking work: one not yet serving goes at once, a serving
 * one drains (gone when empty). */
void fs__world_fleet_release(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];

	if (in->state != FS__INST_SERVING) {
		fs__world_fleet_gone(w, ii);
		return;
	}
	in->state = FS__INST_DRAINING;
	fs__world_fleet_note_pool(w, in->pool);
	if (in->standin)
		w->pools[in->standin_for].standins--;
	else
		w->pools[in->pool].alive--;
	if (in->outstanding == 0)
		fs__world_fleet_gone(w, ii);
}

static void on_instance_up(struct fs_world *w, uint32_t ii, int64_t stage)
{
	struct fs__instance *in = &w->insts[ii];
	const struct fs_pool_cfg *pc = pool_cfg(w, in->pool);

	if (in->state == FS__INST_GONE)
		return;
	if (stage == 0) {
		/* MODEL: F2 — billing starts when the machine runs. */
		in->state = FS__INST_STARTING;
		in->billed_from_ns = w->now_ns;
		fs__world_note_billed(w, in->pool, 1, w->now_ns);
		in->life_ev = fs_eventq_push(w->q, w->now_ns + fs__world_cold_start_ns(pc),
		                             FS_EV_INSTANCE_UP, ii, 1);
		return;
	}
	start_serving(w, ii);
	fs__world_spot_arm(w, ii);
	fs__world_llm_instance_ready(w, ii);
	fs__world_spot_rebalance(w, in->standin ? in->standin_for : in->pool, true);
}

void fs__world_fleet_after_step(struct fs_world *w, uint32_t ii)
{
	if (w->insts[ii].state == FS__INST_DRAINING && w->insts[ii].outstanding == 0)
		fs__world_fleet_gone(w, ii);
}

/* ---- lifecycle of the fleet ------------------------------------------------ */

void fs__world_fleet_init(struct fs_world *w, uint64_t seed, uint64_t replication)
{
	const struct fs_fleet_cfg *f = &w->sc->fleet;
	size_t p;
	int k;

	w->fleet = f;
	w->pools = fs_xcalloc(f->n_pools, sizeof *w->pools);
	w->zones = fs_xcalloc(f->n_zones, sizeof *w->zones);
	w->fleet_rng = fs_rng_alloc(seed, replication, FS_STREAM_FLEET, 0);
	w->spot_rng = fs_rng_alloc(seed, replication, FS_STREAM_SPOT, 0);
	w->routing_rng = fs_rng_alloc(seed, replication, FS_STREAM_ROUTING, 0);
	w->unrouted_head = w->unrouted_tail = FS__WORLD_NO_SLOT;
	for (p = 0; p < f->n_pools; p++) {
		struct fs__pool *pool = &w->pools[p];

		pool->cfg = &f->pools[p];
		pool->perf = &f->pools[p].llm->perf;
		pool->target = fs__world_fleet_target(pool->cfg, pool->cfg->count);
		/* MODEL: F15 — over-provisioned spares serve but are not wanted. */
		pool->avail.wanted = pool->cfg->count;
	}
	fs__world_avail_init(w);
	for (p = 0; p < f->n_pools; p++)
		for (k = 0; k < w->pools[p].target; k++)
			fs__world_fleet_launch(w, (uint32_t)p, w->pools[p].cfg->warm_start &&
			       k < w->pools[p].cfg->count, false, -1);
	for (p = 0; p < f->n_pools; p++)
		fs__world_spot_rebalance(w, (uint32_t)p, false);
	fs__world_spot_init(w);
}

void fs__world_fleet_fini(struct fs_world *w)
{
	size_t i;

	for (i = 0; i < w->n_insts; i++) {
		if (w->insts[i].engine != NULL) {
			free(w->insts[i].cost);
			fs_llm_engine_free(w->insts[i].engine);
		}
	}
	free(w->insts);
	for (i = 0; w->pools != NULL && i < w->fleet->n_pools; i++)
		if (w->pools[i].pricing_owned)
			free(w->pools[i].pricing);
	free(w->pools);
	free(w->zones);
	free(w->cand);
	fs_router_state_fini(&w->router);
	fs_rng_free(w->fleet_rng);
	fs_rng_free(w->spot_rng);
	fs_rng_free(w->routing_rng);
	w->insts = NULL;
	w->pools = NULL;
	w->zones = NULL;
	w->cand = NULL;
}

void fs__world_fleet_event(struct fs_world *w, enum fs_event_kind kind, uint32_t a,
                           int64_t b)
{
	switch (kind) {
	case FS_EV_INSTANCE_UP:
		on_instance_up(w, a, b);
		break;
	case FS_EV_SPOT_NOTICE:          /* world_spot.c's */
	case FS_EV_SPOT_RECLAIM:
	case FS_EV_ZONE_RECLAIM:
	case FS_EV_CAPACITY:
	case FS_EV_LAUNCH_RETRY:
		fs__world_spot_event(w, kind, a);
		break;
	case FS_EV_AUTOSCALE:            /* world_scale.c's */
	case FS_EV_ARRIVAL:
	case FS_EV_USER_SEND:
	case FS_EV_SERVICE_DONE:
	case FS_EV_HORIZON:
	case FS_EV_STEP_DONE:
		fs__world_fail(w, "not a fleet event", __FILE__, __LINE__);
	}
	fs__world_llm_note_levels(w);
}
