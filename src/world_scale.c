/*
 * world_scale.c — the autoscaler's side of the world: every interval it
 * measures the scaled pool's metric (queue length, concurrency, request
 * rate, KV use, busy, capacity utilisation, p90 TTFT), asks fs_autoscale_decide for a
 * count with the predictive floor, releases instances idle for long enough
 * (per instance, O(1) state each), launches or drains instances to match
 * (a spot pool's over-provisioned spares on top, left out of what it
 * reads), and keeps what the warnings need (time at max / min, scale
 * events).
 */
#include "world_state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/world_capacity_util.h"
#include "fleetsim/workload.h"
#include "workload_internal.h"

static double clock_hour(const struct fs_world *w)
{
	double h = w->sc->sim.start_hour + (double)w->now_ns / FS_NS_PER_HOUR;

	return fmod(h, 24.0);
}

/* Seconds pool p's instances spent serving (or draining) within the last
 * interval. */
static double serving_s(const struct fs_world *w, uint32_t p, fs_ns interval_ns)
{
	fs_ns from_ns = w->now_ns - interval_ns;
	double s = 0;

	if (from_ns < 0)
		from_ns = 0;
	for (size_t i = 0; i < w->n_insts; i++) {
		const struct fs__instance *in = &w->insts[i];
		fs_ns a_ns = in->serving_from_ns, b_ns;

		if (in->pool != p || in->standin || a_ns < 0)
			continue;
		b_ns = in->state == FS__INST_GONE ? in->gone_ns : w->now_ns;
		if (a_ns < from_ns)
			a_ns = from_ns;
		if (b_ns > a_ns)
			s += (double)(b_ns - a_ns) / FS_NS_PER_SECOND;
	}
	return s;
}

static int cmp_ns(const void *a, const void *b)
{
	fs_ns x = *(const fs_ns *)a, y = *(const fs_ns *)b;

	return (x > y) - (x < y);
}

/* The 90th percentile (nearest rank) of the TTFTs of the last ttft_window,
 * in seconds; NAN with none (MODEL: A10).  O(n log n) in that window. */
static double ttft_p90_s(struct fs_world *w, uint32_t p)
{
	struct fs__pool *pool = &w->pools[p];
	fs_ns from_ns = w->now_ns - w->fleet->autoscale.ttft_window_ns, *v;
	size_t k = 0, n, rank;
	double q;

	while (k < pool->n_ttfts && pool->ttfts[k].t_ns <= from_ns)
		k++;
	memmove(pool->ttfts, pool->ttfts + k, (pool->n_ttfts - k) * sizeof *pool->ttfts);
	pool->n_ttfts -= k;
	n = pool->n_ttfts;
	if (n == 0)
		return NAN;
	v = fs_xmalloc(n * sizeof *v);
	for (k = 0; k < n; k++)
		v[k] = pool->ttfts[k].ttft_ns;
	qsort(v, n, sizeof *v, cmp_ns);
	rank = (size_t)ceil(0.9 * (double)n);
	q = (double)v[rank > 0 ? rank - 1 : 0] / FS_NS_PER_SECOND;
	free(v);
	return q;
}

/* Measure pool p for the autoscaler: fills current, ready, work, busy and
 * returns the metric's mean over the ready instances (MODEL: A10).  The
 * requests waiting for an instance count when pool p could take them: a
 * class pinned to another pool is not its work. */
static double pool_metric(struct fs_world *w, uint32_t p, struct fs_autoscale_input *ai)
{
	const struct fs_autoscale_cfg *ac = &w->fleet->autoscale;
	uint64_t unrouted_n = fs__world_llm_unrouted_for(w, p), arrived_now;
	double unrouted = (double)unrouted_n, waiting = unrouted, running = unrouted;
	double kv = 0, busy_ns = 0, interval_s = (double)ac->interval_ns / FS_NS_PER_SECOND;
	double arrived, tokens, ready_s;
	int ready = 0, current = 0;

	for (size_t i = 0; i < w->n_insts; i++) {
		struct fs__instance *in = &w->insts[i];

		if (in->pool != p || in->standin)
			continue;
		if (in->state != FS__INST_GONE)
			running += (double)in->outstanding;
		current += fs__world_inst_counts(in);
		if (in->state != FS__INST_SERVING)
			continue;
		ready++;
		waiting += (double)in->waiting;
		kv += (double)in->kv_used / (double)w->pools[p].cfg->llm->sched.kv_blocks;
		busy_ns += in->busy_ns - in->busy_mark_ns;
		in->busy_mark_ns = in->busy_ns;
	}
	arrived_now = fs__world_llm_arrived_for(w, p);
	arrived = (double)(arrived_now - w->pools[p].arrived_mark);
	tokens = w->rec.result->fleet.pools[p].output_tokens - w->pools[p].tokens_mark;
	ready_s = serving_s(w, p, ac->interval_ns);
	w->pools[p].arrived_mark = arrived_now;
	w->pools[p].tokens_mark = w->rec.result->fleet.pools[p].output_tokens;
	ai->current = current;
	ai->ready = ready;
	ai->work = running;
	ai->busy = ready > 0 ? busy_ns / ((double)ready * (double)ac->interval_ns) : 0;
	if (ready == 0)
		return NAN;                                              /* MODEL: A1 */
	switch (ac->metric) {
	case FS_SCALE_QUEUE_LEN:
		return waiting / ready;
	case FS_SCALE_CONCURRENCY:
		return running / ready;
	case FS_SCALE_REQUEST_RATE:
		return arrived / interval_s / ready;
	case FS_SCALE_KV_USE:
		return kv / ready;
	case FS_SCALE_BUSY:
		return ai->busy;
	case FS_SCALE_CAPACITY_UTIL:
		if (!(w->pools[p].sat_tokens_per_s > 0) || !(ready_s > 0))
			return NAN;
		return tokens / (w->pools[p].sat_tokens_per_s * ready_s);  /* MODEL: S17 */
	case FS_SCALE_TTFT_P90:
		return ttft_p90_s(w, p);
	}
	return NAN;
}

/*
 * MODEL: A12 — the autoscaler decides the count the pool wants; a spot
 * pool's over-provisioned spares are the instances above its last
 * decision.  They are left out of the current and ready counts it reads,
 * and the metric keeps the pool's total: a mean over the ready instances
 * is taken over the fewer ready ones (ttft_p90 is the pool's own value).
 * So the spares neither read as a surplus to scale in nor, within the
 * tolerance, as a count to keep and add spares to again.
 */
static void leave_out_spares(const struct fs_world *w, uint32_t p,
                             struct fs_autoscale_input *in)
{
	int was = w->pools[p].desired, ready = in->ready < was ? in->ready : was;

	if (fs__world_fleet_target(w->pools[p].cfg, 0) == 0 || in->current <= was)
		return;
	if (ready == 0)
		in->metric = NAN;
	else if (w->fleet->autoscale.metric != FS_SCALE_TTFT_P90)
		in->metric *= (double)in->ready / (double)ready;
	in->current = was;
	in->ready = ready;
}

/* Expected requests per second and output tokens per second for pool p at
 * t_ns, from the scenario's arrival profiles (MODEL: A9), a session class's
 * turns and a closed loop's offered load at an unloaded response time
 * (U10). */
static void forecast(const struct fs_world *w, uint32_t p, fs_ns t_ns, double *req_per_s,
                     double *tokens_per_s)
{
	const struct fs_workload_cfg *wl = &w->sc->workload;

	*req_per_s = *tokens_per_s = 0;
	for (size_t c = 0; c < wl->n_classes; c++) {
		const struct fs_class_cfg *cc = &wl->classes[c];
		double r;

		if (w->fleet->class_pool != NULL && w->fleet->class_pool[c] >= 0 &&
		    (uint32_t)w->fleet->class_pool[c] != p)
			continue;
		r = fs__users_offered_per_s(wl, &w->sc->sim, c, t_ns,    /* MODEL: U10 */
		                            cc->closed != NULL && cc->closed->has_users ?
		                            fs_capacity_util_response_s(w->sc, p, c) : 0);
		*req_per_s += r;
		*tokens_per_s += r * fs_length_mean(&cc->output);
	}
}

/* The predictive floor (MODEL: A9): the instances the forecast needs at
 * the metric's target one lead time ahead, the lead being the pool's mean
 * provisioning plus cold start plus one interval. */
static int forecast_min(const struct fs_world *w, uint32_t p)
{
	const struct fs_autoscale_cfg *ac = &w->fleet->autoscale;
	const struct fs_pool_cfg *pc = w->pools[p].cfg;
	fs_ns lead_ns = pc->provisioning.mean_ns + fs__world_cold_start_ns(pc) + ac->interval_ns;
	double req_per_s, tokens_per_s, need;

	if (!ac->predictive)
		return 0;
	forecast(w, p, w->now_ns + lead_ns, &req_per_s, &tokens_per_s);
	if (ac->metric == FS_SCALE_REQUEST_RATE)
		need = req_per_s / ac->target;
	else if (w->pools[p].sat_tokens_per_s > 0)
		need = tokens_per_s / (w->pools[p].sat_tokens_per_s * ac->target);
	else
		return 0;
	need = ceil(need - 1e-9);
	return need < (double)INT32_MAX ? (int)need : INT32_MAX;
}

/* True when instance a is a better one to scale in than b: overflow before
 * committed (the overflow one costs money: MODEL: B6), then not yet serving
 * before serving, then fewer outstanding requests. */
static bool scale_in_before(const struct fs__instance *a, const struct fs__instance *b)
{
	bool a_up = a->state == FS__INST_SERVING, b_up = b->state == FS__INST_SERVING;

	if (a->overflow != b->overflow)
		return a->overflow;
	if (a_up != b_up)
		return !a_up;
	return a->outstanding < b->outstanding;
}

/* MODEL: A13 — scale in by one: the first instance by scale_in_before, the
 * latest on a tie. */
static void scale_in_one(struct fs_world *w, uint32_t p)
{
	size_t i, best = SIZE_MAX;

	for (i = w->n_insts; i-- > 0;) {
		const struct fs__instance *in = &w->insts[i];

		if (in->pool != p || in->standin || !fs__world_inst_counts(in))
			continue;
		if (best == SIZE_MAX || scale_in_before(in, &w->insts[best]))
			best = i;
	}
	if (best != SIZE_MAX)
		fs__world_fleet_release(w, (uint32_t)best);
}

/*
 * Idle tracking (MODEL: A5), one look: each serving instance of pool p
 * whose own busy fraction since the last look (or since it began serving)
 * is below the bound starts or continues an idle stretch from the start of
 * that span; one at or above it ends its stretch.  Returns how many have
 * been idle for at least idle_for.  O(instances), O(1) state each.
 */
static int track_idle(struct fs_world *w, uint32_t p)
{
	const struct fs_autoscale_cfg *ac = &w->fleet->autoscale;
	int n = 0;

	for (size_t i = 0; i < w->n_insts; i++) {
		struct fs__instance *in = &w->insts[i];
		fs_ns from_ns = w->now_ns - ac->interval_ns;
		double busy;

		if (in->pool != p || in->standin || in->state != FS__INST_SERVING)
			continue;
		if (from_ns < in->serving_from_ns)
			from_ns = in->serving_from_ns;
		if (w->now_ns <= from_ns)
			continue;
		busy = (in->busy_ns - in->idle_mark_ns) / (double)(w->now_ns - from_ns);
		in->idle_mark_ns = in->busy_ns;
		if (busy < ac->idle_busy_below) {
			if (!in->idle)
				in->idle_since_ns = from_ns;
			in->idle = true;
		} else {
			in->idle = false;
		}
		n += in->idle && w->now_ns - in->idle_since_ns >= ac->idle_for_ns;
	}
	return n;
}

/* Release up to n of pool p's instances idle for idle_for, the longest idle
 * first (the earliest launched on a tie); returns how many went. */
static int release_idle(struct fs_world *w, uint32_t p, int n)
{
	const struct fs_autoscale_cfg *ac = &w->fleet->autoscale;
	int done = 0;

	while (done < n) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < w->n_insts; i++) {
			const struct fs__instance *in = &w->insts[i];

			if (in->pool != p || in->standin || in->state != FS__INST_SERVING ||
			    !in->idle || w->now_ns - in->idle_since_ns < ac->idle_for_ns)
				continue;
			if (best == SIZE_MAX || in->idle_since_ns < w->insts[best].idle_since_ns)
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		w->insts[best].idle = false;
		fs__world_fleet_release(w, (uint32_t)best);                /* MODEL: A5 */
		done++;
	}
	return done;
}

/* The lower bound the decision could not go below, for the at-min account. */
static int floor_now(const struct fs_world *w, uint32_t p, int forecast)
{
	const struct fs_autoscale_cfg *ac = &w->fleet->autoscale;
	int lo = fs_autoscale_scheduled_min(ac, clock_hour(w));

	if (lo < w->pools[p].cfg->min_count)
		lo = w->pools[p].cfg->min_count;
	return lo > forecast ? lo : forecast;
}

/* One evaluation of the autoscaler (FS_EV_AUTOSCALE). */
void fs__world_scale_event(struct fs_world *w)
{
	const struct fs_autoscale_cfg *ac = &w->fleet->autoscale;
	uint32_t p = (uint32_t)ac->pool;
	struct fs_autoscale_input in = { 0 };
	int desired, idle;
	bool at_max;

	in.now_ns = w->now_ns;
	in.clock_hour = clock_hour(w);
	in.metric = pool_metric(w, p, &in);
	leave_out_spares(w, p, &in);
	in.forecast_min = forecast_min(w, p);
	idle = ac->idle_for_ns > 0 ? track_idle(w, p) : 0;
	desired = fs_autoscale_decide(ac, w->pools[p].cfg, &w->pools[p].scale, &in);
	if (idle > 0) {
		int may = fs_autoscale_idle_releasable(ac, w->pools[p].cfg, &w->pools[p].scale,
		                                       &in, desired);
		int gone = release_idle(w, p, idle < may ? idle : may);

		if (gone > 0) {
			fs_autoscale_note_release(ac, &w->pools[p].scale, w->now_ns, desired, gone);
			desired -= gone;                                     /* MODEL: A5 */
			fs__rec_idle_release(&w->rec, p, (uint64_t)gone);
			w->pools[p].last_release_ns = w->now_ns;
		}
	}
	at_max = desired >= w->pools[p].cfg->max_count;
	fs__rec_scale_look(&w->rec, p, (double)ac->interval_ns, at_max,
	                   !at_max && desired <= floor_now(w, p, in.forecast_min),
	                   desired != in.current);
	w->pools[p].desired = desired;
	w->pools[p].target = fs__world_fleet_target(w->pools[p].cfg, desired); /* MODEL: A12 */
	fs__world_avail_want(w, p, desired);         /* MODEL: F15 */
	fs__recorder_pool_desired(&w->rec, p, w->now_ns, desired);
	if (w->pools[p].target > w->pools[p].alive) {
		int launched = fs__world_fleet_fill(w, p);

		/* MODEL: A11 — the launches this look made, within an hour of a
		 * scale-in: not a spot launch that found no room, nor the
		 * replacement of a reclaimed instance (F11). */
		if (launched > 0 && w->pools[p].last_release_ns >= 0 &&
		    w->now_ns - w->pools[p].last_release_ns < 3600 * FS_NS_PER_S)
			fs__rec_scale_relaunch(&w->rec, p, (uint64_t)launched);
	}
	while (w->pools[p].alive > w->pools[p].target) {
		scale_in_one(w, p);
		w->pools[p].last_release_ns = w->now_ns;
	}
	fs__world_fleet_trim_due(w, p);              /* MODEL: F13 */
	fs__world_spot_rebalance(w, p, false);       /* MODEL: F12 — wanted may have moved */
	fs_eventq_push(w->q, w->now_ns + ac->interval_ns, FS_EV_AUTOSCALE, 0, 0);
}

/* Set up the autoscaler after the t = 0 launches: its state, the scaled
 * pool's saturation throughput when the metric or the forecast needs it,
 * and the first evaluation. */
void fs__world_scale_init(struct fs_world *w)
{
	const struct fs_autoscale_cfg *ac = &w->fleet->autoscale;
	uint32_t p;

	for (p = 0; p < w->fleet->n_pools; p++) {
		fs_autoscale_state_init(&w->pools[p].scale);
		w->pools[p].last_release_ns = -1;
	}
	if (!ac->enabled)
		return;
	p = (uint32_t)ac->pool;
	w->pools[p].desired = w->pools[p].cfg->count;
	fs__recorder_pool_desired(&w->rec, p, 0, w->pools[p].desired);
	if (ac->metric == FS_SCALE_CAPACITY_UTIL || ac->predictive) {
		struct fs_saturation sat;

		if (fs_capacity_util_saturation(w->sc, p, &sat) == 0)
			w->pools[p].sat_tokens_per_s = sat.output_tokens_per_s;
	}
	fs_eventq_push(w->q, ac->interval_ns, FS_EV_AUTOSCALE, 0, 0);
}

/* At the end: requests left waiting for the scaled pool (MODEL: A10) with
 * no instance of it serving or starting are stranded (a warning). */
void fs__world_scale_finish(struct fs_world *w)
{
	const struct fs_autoscale_cfg *ac;
	uint64_t waiting;

	if (w->fleet == NULL || !w->fleet->autoscale.enabled)
		return;
	ac = &w->fleet->autoscale;
	waiting = fs__world_llm_unrouted_for(w, (uint32_t)ac->pool);
	if (waiting > 0 && w->pools[ac->pool].alive == 0)
		fs__rec_stranded(&w->rec, (size_t)ac->pool, waiting);
}

void fs__world_scale_fini(struct fs_world *w)
{
	for (size_t p = 0; w->pools != NULL && p < w->fleet->n_pools; p++) {
		fs_autoscale_state_fini(&w->pools[p].scale);
		free(w->pools[p].ttfts);
		w->pools[p].ttfts = NULL;
	}
}
