/*
 * world.c — one replication (see world.h).  Requests live in a slot pool
 * (index + free list); the queue engine sees slot numbers only.  Events pop in
 * (time, seq) order; the horizon event is pushed first, so anything at exactly
 * the horizon counts as still in flight.  Invariants checked always: time
 * never goes back, and every request ends completed or in flight.
 */
#include "fleetsim/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/eventq.h"
#include "fleetsim/qengine.h"
#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "recorder.h"

struct slot {
	struct fs_request req;
	fs_ns service_ns;
	fs_ns start_ns;              /* -1 while waiting */
	uint32_t next_free;          /* free list link */
	bool in_use;
};

struct fs_world {
	const struct fs_scenario *sc;
	fs_ns now_ns;
	bool ended;
	struct fs_eventq *q;
	struct fs_workload *workload;
	struct fs_qengine *engine;
	struct fs_rng *service_rng;
	struct slot *slots;
	size_t n_slots, cap_slots;
	uint32_t free_head;          /* FS_QENGINE_NONE when empty */
	uint64_t in_system;
	uint64_t arrivals;           /* requests taken, all of them */
	uint64_t completions;
	struct fs_recorder rec;
};

/* Always-on check for invariants whose failure would corrupt results. */
#define WORLD_CHECK(cond, what) \
	do { if (!(cond)) world_fail(w, (what), __FILE__, __LINE__); } while (0)

static void world_fail(const struct fs_world *w, const char *what,
                       const char *file, int line)
{
	fprintf(stderr, "fleetsim: internal error at %s:%d: %s (t=%lld ns)\n",
	        file, line, what, (long long)w->now_ns);
	abort();
}

static uint32_t slot_alloc(struct fs_world *w)
{
	uint32_t i;

	if (w->free_head != FS_QENGINE_NONE) {
		i = w->free_head;
		w->free_head = w->slots[i].next_free;
	} else {
		fs_xgrow((void **)&w->slots, &w->cap_slots, w->n_slots + 1,
		         sizeof *w->slots);
		i = (uint32_t)w->n_slots++;
	}
	w->slots[i].in_use = true;
	return i;
}

static void slot_free(struct fs_world *w, uint32_t i)
{
	w->slots[i].in_use = false;
	w->slots[i].next_free = w->free_head;
	w->free_head = i;
}

static void note_levels(struct fs_world *w)
{
	fs__recorder_levels(&w->rec, w->now_ns, fs_qengine_waiting(w->engine),
	                   fs_qengine_busy(w->engine));
}

static void start_service(struct fs_world *w, int server, uint32_t slot_idx)
{
	struct slot *s = &w->slots[slot_idx];

	s->start_ns = w->now_ns;
	fs_eventq_push(w->q, w->now_ns + s->service_ns, FS_EV_SERVICE_DONE,
	               (uint32_t)server, (int64_t)slot_idx);
}

static void on_arrival(struct fs_world *w, uint32_t src)
{
	const struct fs_class_cfg *cls;
	struct fs_request req;
	fs_ns next_ns = fs_workload_take(w->workload, src, w->now_ns, &req);
	uint32_t slot_idx;
	int server;

	if (next_ns != FS_NS_MAX)
		fs_eventq_push(w->q, next_ns, FS_EV_ARRIVAL, src, 0);
	WORLD_CHECK(req.class_idx < w->sc->workload.n_classes, "class out of range");
	cls = &w->sc->workload.classes[req.class_idx];
	slot_idx = slot_alloc(w);
	w->slots[slot_idx].req = req;
	w->slots[slot_idx].start_ns = -1;
	/* MODEL: Q2 — service drawn at arrival, so a request keeps its
	 * service time whatever the server count (common random numbers). */
	w->slots[slot_idx].service_ns =
		fs_qengine_draw_service_ns(&w->sc->engine.service, w->service_rng);
	w->in_system++;
	w->arrivals++;
	fs__recorder_arrival(&w->rec, &req);
	server = fs_qengine_arrive(w->engine, slot_idx, cls->priority, req.id);
	if (server >= 0)
		start_service(w, server, slot_idx);
	note_levels(w);
	if ((int64_t)w->in_system > w->sc->sim.max_in_system) {
		w->rec.result->stopped_early = true;   /* MODEL: S3 */
		w->ended = true;
	}
}

static void on_service_done(struct fs_world *w, uint32_t server, uint32_t slot_idx)
{
	struct slot *s = &w->slots[slot_idx];
	uint32_t next;

	WORLD_CHECK(s->in_use && s->start_ns >= 0, "completion of an idle slot");
	/* MODEL: Q5 — first token = service start in queue mode. */
	fs__recorder_completion(&w->rec, &s->req, s->start_ns, s->start_ns, w->now_ns);
	w->in_system--;
	w->completions++;
	slot_free(w, slot_idx);
	next = fs_qengine_finish(w->engine, (int)server);
	if (next != FS_QENGINE_NONE)
		start_service(w, (int)server, next);
	note_levels(w);
}

struct fs_world *fs_world_alloc(const struct fs_scenario *sc, uint64_t seed,
                                uint64_t replication, bool record_requests)
{
	struct fs_world *w = fs_xcalloc(1, sizeof *w);
	size_t src, n_src;

	w->sc = sc;
	w->q = fs_eventq_alloc(64);
	w->workload = fs_workload_alloc(&sc->workload, &sc->sim, seed, replication);
	w->engine = fs_qengine_alloc(&sc->engine);
	w->service_rng = fs_rng_alloc(seed, replication, FS_STREAM_SERVICE, 0);
	w->free_head = FS_QENGINE_NONE;
	fs__recorder_init(&w->rec, sc, replication, record_requests,
	                 fs_qengine_servers(w->engine));
	fs_eventq_push(w->q, sc->sim.horizon_ns, FS_EV_HORIZON, 0, 0);  /* MODEL: E2 */
	n_src = fs_workload_n_sources(w->workload);
	for (src = 0; src < n_src; src++) {
		fs_ns first_ns = fs_workload_first(w->workload, src);

		if (first_ns != FS_NS_MAX)
			fs_eventq_push(w->q, first_ns, FS_EV_ARRIVAL, (uint32_t)src, 0);
	}
	return w;
}

void fs_world_free(struct fs_world *w)
{
	if (w == NULL)
		return;
	fs__recorder_fini(&w->rec);
	fs_rng_free(w->service_rng);
	fs_qengine_free(w->engine);
	fs_workload_free(w->workload);
	fs_eventq_free(w->q);
	free(w->slots);
	free(w);
}

bool fs_world_step(struct fs_world *w)
{
	struct fs_event ev;

	if (w->ended || !fs_eventq_pop(w->q, &ev)) {
		w->ended = true;
		return false;
	}
	WORLD_CHECK(ev.t_ns >= w->now_ns, "time went backwards");
	w->now_ns = ev.t_ns;
	w->rec.result->events++;
	switch ((enum fs_event_kind)ev.kind) {
	case FS_EV_ARRIVAL:
		on_arrival(w, ev.a);
		break;
	case FS_EV_SERVICE_DONE:
		on_service_done(w, ev.a, (uint32_t)ev.b);
		break;
	case FS_EV_HORIZON:
		w->ended = true;
		break;
	}
	return !w->ended;
}

void fs_world_run_until(struct fs_world *w, fs_ns t_ns)
{
	fs_ns next_ns;

	while (!w->ended && fs_eventq_peek_time(w->q, &next_ns) && next_ns <= t_ns)
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

	WORLD_CHECK(w->ended, "result taken before the world ended");
	for (i = 0; i < w->n_slots; i++) {
		const struct slot *s = &w->slots[i];

		if (!s->in_use)
			continue;
		in_flight++;                             /* MODEL: E4 */
		fs__recorder_in_flight(&w->rec, &s->req, s->start_ns);
	}
	WORLD_CHECK(in_flight == w->in_system, "request slots out of step");
	WORLD_CHECK(w->arrivals == w->completions + in_flight,
	            "requests not conserved");
	return fs__recorder_finish(&w->rec, w->now_ns);
}
