/*
 * world_state.h — the state of one world, shared by world.c (lifecycle and
 * the event loop), world_slots.c (request slots) and the engine drivers
 * world_queue.c and world_llm.c, which hold the handlers of their event kinds.  Only these
 * files touch the event queue.  Requests live in a slot pool (index + free
 * list); engines see slot numbers only.
 */
#ifndef FLEETSIM_WORLD_STATE_H
#define FLEETSIM_WORLD_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/eventq.h"
#include "fleetsim/llm_engine.h"
#include "fleetsim/qengine.h"
#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "fleetsim/world.h"
#include "recorder.h"

#define FS__WORLD_NO_SLOT UINT32_MAX

struct fs__slot {
	struct fs_request req;
	fs_ns service_ns;            /* queue engine: drawn at arrival */
	fs_ns start_ns;              /* first scheduled, -1 before */
	fs_ns first_token_ns;        /* -1 before */
	uint32_t replica;            /* LLM: the replica serving it */
	uint32_t next_free;          /* free list link */
	bool in_use;
};

/* One LLM replica: its engine and what the world knows of it. */
struct fs__replica {
	struct fs_llm_engine *engine;
	const struct fs_perf_cfg *perf;  /* the scenario's step-time model */
	uint64_t outstanding;        /* requests routed here and not finished */
	bool stepping;               /* a STEP_DONE event is pending */
	double step_flops;           /* modelled work of the step in flight */
	double step_bytes;
};

struct fs_world {
	const struct fs_scenario *sc;
	fs_ns now_ns;
	bool ended;
	struct fs_eventq *q;
	struct fs_workload *workload;
	/* queue engine */
	struct fs_qengine *qengine;
	struct fs_rng *service_rng;
	/* LLM engine */
	struct fs__replica *replicas;
	uint32_t n_replicas;
	uint32_t busy_replicas;      /* replicas with a step in flight */
	uint64_t waiting_llm;        /* Σ waiting over replicas (last reports) */
	int64_t kv_used_llm;         /* Σ KV blocks in use (last reports) */
	/* requests */
	struct fs__slot *slots;
	size_t n_slots, cap_slots;
	uint32_t free_head;
	uint64_t in_system;
	uint64_t arrivals;           /* requests taken, all of them */
	uint64_t completions;
	uint64_t failures;
	struct fs_recorder rec;
};

/* Always-on check for invariants whose failure would corrupt results. */
#define FS__WORLD_CHECK(w, cond, what) \
	do { if (!(cond)) fs__world_fail((w), (what), __FILE__, __LINE__); } while (0)

_Noreturn void fs__world_fail(const struct fs_world *w, const char *what,
                              const char *file, int line);

/* A new request slot holding req (start and first token unset). */
uint32_t fs__world_slot_alloc(struct fs_world *w, const struct fs_request *req);
/* The request left the system (completed or failed). */
void fs__world_slot_release(struct fs_world *w, uint32_t slot);

/* Queue engine driver (world_queue.c). */
void fs__world_queue_init(struct fs_world *w, uint64_t seed, uint64_t replication);
void fs__world_queue_fini(struct fs_world *w);
void fs__world_queue_arrival(struct fs_world *w, uint32_t slot);
void fs__world_queue_done(struct fs_world *w, uint32_t server, uint32_t slot);

/* LLM engine driver (world_llm.c). */
void fs__world_llm_init(struct fs_world *w);
void fs__world_llm_fini(struct fs_world *w);
void fs__world_llm_arrival(struct fs_world *w, uint32_t slot);
void fs__world_llm_step_done(struct fs_world *w, uint32_t replica);
int64_t fs__world_llm_kv_total(const struct fs_world *w);

#endif
