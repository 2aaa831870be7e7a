/*
 * world_queue.c — the world's driver of the `queue` engine (validation
 * mode): service times drawn at arrival, one SERVICE_DONE event per request
 * in service.
 */
#include "world_state.h"

#include <stdlib.h>

static void note_levels(struct fs_world *w)
{
	fs__recorder_levels(&w->rec, w->now_ns, fs_qengine_waiting(w->qengine),
	                    fs_qengine_busy(w->qengine));
}

static void start_service(struct fs_world *w, int server, uint32_t slot)
{
	struct fs__slot *s = &w->slots[slot];

	s->start_ns = w->now_ns;
	/* MODEL: Q5 — the first token is the service start in queue mode. */
	s->first_token_ns = w->now_ns;
	fs_eventq_push(w->q, w->now_ns + s->service_ns, FS_EV_SERVICE_DONE,
	               (uint32_t)server, (int64_t)slot);
}

void fs__world_queue_init(struct fs_world *w, uint64_t seed, uint64_t replication)
{
	w->qengine = fs_qengine_alloc(&w->sc->engine);
	w->service_rng = fs_rng_alloc(seed, replication, FS_STREAM_SERVICE, 0);
}

void fs__world_queue_fini(struct fs_world *w)
{
	fs_rng_free(w->service_rng);
	fs_qengine_free(w->qengine);
	w->service_rng = NULL;
	w->qengine = NULL;
}

void fs__world_queue_arrival(struct fs_world *w, uint32_t slot)
{
	struct fs__slot *s = &w->slots[slot];
	const struct fs_class_cfg *cls = &w->sc->workload.classes[s->req.class_idx];
	int server;

	/* MODEL: Q2 — service drawn at arrival, so a request keeps its
	 * service time whatever the server count (common random numbers). */
	s->service_ns = fs_qengine_draw_service_ns(&w->sc->engine.service, w->service_rng);
	server = fs_qengine_arrive(w->qengine, slot, cls->priority, s->req.id);
	if (server >= 0)
		start_service(w, server, slot);
	note_levels(w);
}

void fs__world_queue_done(struct fs_world *w, uint32_t server, uint32_t slot)
{
	struct fs__slot *s = &w->slots[slot];
	uint32_t next;

	FS__WORLD_CHECK(w, s->in_use && s->start_ns >= 0, "completion of an idle slot");
	fs__recorder_completion(&w->rec, &s->req, s->start_ns, s->first_token_ns,
	                        w->now_ns, s->req.output_tokens);
	w->completions++;
	fs__world_slot_end(w, slot, true, s->req.output_tokens);
	next = fs_qengine_finish(w->qengine, (int)server);
	if (next != FS_QENGINE_NONE)
		start_service(w, (int)server, next);
	note_levels(w);
}
