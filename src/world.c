/*
 * world.c — one replication (see world.h): lifecycle, the request slot pool
 * and the event loop.  Events come in (time, rank, seq) order (MODEL E2):
 * the event queue's, all of rank 0, and the instances' iteration ends, kept
 * apart in a min tree keyed by time (min_tree.h), instance i's of rank
 * 1 + i; one switch sends each kind to its handler (engine handlers live in
 * world_queue.c and world_llm.c).  The horizon event is pushed first, so
 * anything at exactly the horizon counts as still in flight (with
 * simulation.drain the world runs on until the system is empty, MODEL E5).
 * Invariants checked always: time never goes back, and every request ends
 * completed, failed or in flight.
 */
#include "world_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A request enters the system: an open arrival, or an agent's (a
 * closed-loop user's or a session's) next request. */
static void admit(struct fs_world *w, const struct fs_request *req, uint32_t agent)
{
	uint32_t slot;

	FS__WORLD_CHECK(w, req->class_idx < w->sc->workload.n_classes,
	                "class out of range");
	w->arrivals++;
	fs__recorder_arrival(&w->rec, req);
	slot = fs__world_slot_alloc(w, req);
	w->slots[slot].agent = agent;
	switch (w->sc->engine.kind) {
	case FS_ENGINE_QUEUE:
		fs__world_queue_arrival(w, slot);
		break;
	case FS_ENGINE_VLLM:
		fs__world_llm_arrival(w, slot);
		break;
	}
	if ((int64_t)w->in_system > w->sc->sim.max_in_system) {
		fs__recorder_stopped_early(&w->rec);   /* MODEL: S3 */
		w->ended = true;
	}
}

static void on_arrival(struct fs_world *w, uint32_t src)
{
	struct fs_request req;
	fs_ns next_ns = fs_workload_take(w->workload, src, w->now_ns, &req);

	if (next_ns != FS_NS_MAX)
		fs_eventq_push(w->q, next_ns, FS_EV_ARRIVAL, src, 0);
	admit(w, &req, fs_workload_taken_agent(w->workload));
}

/* MODEL: U1 — a closed-loop user (or a session's next turn) sends. */
static void on_user_send(struct fs_world *w, uint32_t agent)
{
	struct fs_request req;

	fs_workload_user_take(w->workload, agent, w->now_ns, &req);
	admit(w, &req, agent);
}

struct fs_world *fs_world_alloc(const struct fs_scenario *sc, uint64_t seed,
                                uint64_t replication, bool record_requests)
{
	struct fs_world *w = fs_xcalloc(1, sizeof *w);
	size_t src, n_src;
	int servers = 0;
	size_t n_pools = 0;

	w->sc = sc;
	w->q = fs_eventq_alloc(64);
	fs_min_tree_init(&w->steps);
	fs_min_tree_init(&w->lo_tree);
	w->workload = fs_workload_alloc(&sc->workload, &sc->sim, seed, replication);
	w->free_head = FS__WORLD_NO_SLOT;
	w->serving_dirty = true;
	w->in_fleet_event = true;        /* the fleet's launches at t = 0 */
	switch (sc->engine.kind) {
	case FS_ENGINE_QUEUE:
		fs__world_queue_init(w, seed, replication);
		servers = fs_qengine_servers(w->qengine);
		break;
	case FS_ENGINE_VLLM:
		n_pools = sc->fleet.n_pools;
		break;
	}
	fs__recorder_init(&w->rec, sc, replication, record_requests, servers, n_pools);
	if (n_pools > 0) {
		fs__world_fleet_init(w, seed, replication);
		fs__world_scale_init(w);
	}
	w->in_fleet_event = false;
	fs_eventq_push(w->q, sc->sim.horizon_ns, FS_EV_HORIZON, 0, 0);  /* MODEL: E2 */
	n_src = fs_workload_n_sources(w->workload);
	for (src = 0; src < n_src; src++) {
		fs_ns first_ns = fs_workload_first(w->workload, src);

		if (first_ns != FS_NS_MAX)
			fs_eventq_push(w->q, first_ns, FS_EV_ARRIVAL, (uint32_t)src, 0);
	}
	n_src = fs_workload_n_users(w->workload);
	for (src = 0; src < n_src; src++) {              /* MODEL: U1 */
		fs_ns first_ns = fs_workload_user_first(w->workload, (uint32_t)src);

		if (first_ns != FS_NS_MAX)
			fs_eventq_push(w->q, first_ns, FS_EV_USER_SEND, (uint32_t)src, 0);
	}
	return w;
}

void fs_world_free(struct fs_world *w)
{
	if (w == NULL)
		return;
	fs__recorder_fini(&w->rec);
	fs__world_queue_fini(w);
	fs__world_scale_fini(w);
	fs__world_fleet_fini(w);
	fs_workload_free(w->workload);
	fs_eventq_free(w->q);
	fs_min_tree_fini(&w->steps);
	free(w->kicks);
	free(w->serving);
	fs_min_tree_fini(&w->lo_tree);
	free(w->slots);
	free(w);
}

/* Take the next event into *ev: the queue's earliest, or the earliest
 * iteration's end where it comes first (at one instant, after every queued
 * event).  False when nothing is pending. */
static bool take_next(struct fs_world *w, struct fs_event *ev)
{
	fs_ns q_ns, step_ns;
	uint32_t ii;

	if (fs_min_tree_peek(&w->steps, &step_ns, &ii) &&
	    (!fs_eventq_peek_time(w->q, &q_ns) || step_ns < q_ns)) {
		fs_min_tree_take(&w->steps, ii);
		ev->t_ns = step_ns;
		ev->seq = 0;
		ev->rank = 1 + ii;
		ev->kind = FS_EV_STEP_DONE;
		ev->a = ii;
		ev->b = 0;
		return true;
	}
	return fs_eventq_pop(w->q, ev);
}

/* The time of the next event; false when nothing is pending. */
static bool next_time(struct fs_world *w, fs_ns *t_ns)
{
	fs_ns q_ns, step_ns;
	uint32_t ii;
	bool has_q = fs_eventq_peek_time(w->q, &q_ns);

	if (!fs_min_tree_peek(&w->steps, &step_ns, &ii))
		step_ns = FS_NS_MAX;
	else if (!has_q || step_ns < q_ns)
		q_ns = step_ns;
	*t_ns = q_ns;
	return has_q || step_ns != FS_NS_MAX;
}

bool fs_world_step(struct fs_world *w)
{
	struct fs_event ev;
	fs_ns next_ns;

	if (w->ended || !take_next(w, &ev)) {
		w->ended = true;
		return false;
	}
	FS__WORLD_CHECK(w, ev.t_ns >= w->now_ns, "time went backwards");
	w->now_ns = ev.t_ns;
	fs__recorder_event(&w->rec);
	/* MODEL: V24 — runs in flight are brought up to this event first:
	 * lazily for arrivals and sends (only where they go), for every
	 * instance before anything of the fleet, the autoscaler or the horizon */
	w->tie_rank = ev.rank;
	w->in_fleet_event = w->fleet != NULL && ev.kind != FS_EV_ARRIVAL &&
	                    ev.kind != FS_EV_USER_SEND && ev.kind != FS_EV_STEP_DONE;
	if (w->in_fleet_event) {
		fs__world_llm_sync_all(w);
		w->serving_dirty = true;
	}
	switch ((enum fs_event_kind)ev.kind) {
	case FS_EV_ARRIVAL:
		on_arrival(w, ev.a);
		break;
	case FS_EV_USER_SEND:
		on_user_send(w, ev.a);
		break;
	case FS_EV_SERVICE_DONE:
		fs__world_queue_done(w, ev.a, (uint32_t)ev.b);
		break;
	case FS_EV_STEP_DONE:
		fs__world_llm_step_done(w, ev.a);
		fs__world_fleet_after_step(w, ev.a);
		break;
	case FS_EV_HORIZON:
		/* MODEL: E5 — with drain, the world runs on (no arrivals are left)
		 * until every request in the system ended, for at most another
		 * horizon; a second HORIZON event marks that limit. */
		if (w->sc->sim.drain && !w->draining) {
			w->draining = true;
			fs_eventq_push(w->q, 2 * w->sc->sim.horizon_ns, FS_EV_HORIZON, 0, 0);
		} else {
			w->ended = true;
		}
		break;
	case FS_EV_INSTANCE_UP:
	case FS_EV_SPOT_NOTICE:
	case FS_EV_SPOT_RECLAIM:
	case FS_EV_ZONE_RECLAIM:
	case FS_EV_CAPACITY:
	case FS_EV_LAUNCH_RETRY:
		fs__world_fleet_event(w, (enum fs_event_kind)ev.kind, ev.a, ev.b);
		break;
	case FS_EV_AUTOSCALE:
		fs__world_scale_event(w);
		fs__world_llm_note_levels(w);
		break;
	}
	w->in_fleet_event = false;
	if (w->draining && w->in_system == 0)
		w->ended = true;                         /* MODEL: E5 */
	/* MODEL: V21 — idle instances given work start once this instant's
	 * last event has run. */
	if (w->n_kicks > 0 && !w->ended &&
	    (!next_time(w, &next_ns) || next_ns > w->now_ns))
		fs__world_llm_flush_kicks(w);
	return !w->ended;
}

void fs_world_run_until(struct fs_world *w, fs_ns t_ns)
{
	fs_ns next_ns;

	while (!w->ended && next_time(w, &next_ns) && next_ns <= t_ns)
		fs_world_step(w);
}

void fs_world_run(struct fs_world *w)
{
	while (fs_world_step(w))
		;
}

fs_ns fs_world_now(const struct fs_world *w)
{
	return w->now_ns;
}

bool fs_world_ended(const struct fs_world *w)
{
	return w->ended;
}

uint64_t fs_world_in_system(const struct fs_world *w)
{
	return w->in_system;
}

struct fs_rep_result *fs_world_take_result(struct fs_world *w)
{
	size_t i;
	uint64_t in_flight = 0;

	FS__WORLD_CHECK(w, w->ended, "result taken before the world ended");
	for (i = 0; i < w->n_slots; i++) {
		const struct fs__slot *s = &w->slots[i];

		if (!s->in_use)
			continue;
		in_flight++;                             /* MODEL: E4 */
		fs__recorder_in_flight(&w->rec, &s->req, s->start_ns, s->first_token_ns);
	}
	FS__WORLD_CHECK(w, in_flight == w->in_system, "request slots out of step");
	FS__WORLD_CHECK(w, w->arrivals == w->completions + w->failures + in_flight,
	                "requests not conserved");
	if (w->fleet != NULL) {
		fs__world_llm_sync_all(w);
		fs__world_llm_kv_account_all(w);
		fs__world_fleet_finish(w, w->now_ns);
		fs__world_avail_finish(w, w->now_ns);
		fs__world_scale_finish(w);
	}
	return fs__recorder_finish(&w->rec, w->now_ns);
}
