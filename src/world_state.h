/*
 * world_state.h — the state of one world, shared by world.c (lifecycle and
 * the event loop), world_slots.c (request slots), the engine drivers
 * world_queue.c, world_llm.c and world_run.c (the LLM fast path), and the
 * fleet's world_fleet.c (life cycle), world_spot.c (spot capacity),
 * world_scale.c (the autoscaler), world_bill.c (the bill) and world_avail.c
 * (availability).  The drivers, world_fleet.c and world_spot.c hold the
 * handlers of their event kinds; figures go to the result only through the
 * recorder (recorder.h); only world*.c files touch the event queue.
 * Requests live in a slot pool (index + free list); engines see slot
 * numbers only.
 */
#ifndef FLEETSIM_WORLD_STATE_H
#define FLEETSIM_WORLD_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/autoscale.h"
#include "fleetsim/billing.h"
#include "fleetsim/eventq.h"
#include "fleetsim/llm_engine.h"
#include "fleetsim/min_tree.h"
#include "fleetsim/perf.h"
#include "fleetsim/qengine.h"
#include "fleetsim/rng.h"
#include "fleetsim/router.h"
#include "fleetsim/workload.h"
#include "fleetsim/world.h"
#include "recorder.h"

#define FS__WORLD_NO_SLOT UINT32_MAX
#define FS__RUN_MAX_STEPS 256        /* steps planned per run at most */
#define FS__PREPS 4                  /* decode batch terms kept per instance */

/* The engine's cost callback context of one instance: the step-time model,
 * keeping the modelled work of the step for achieved-MFU/MBU figures, and
 * the planned steps of a fast-path run.  Heap-allocated (freed with free())
 * so it stays put while the instance array grows. */
/* A pool's step pricing: one cache and token memo for all its instances
 * (they price with one configuration; every cached result is the bits of the
 * plain model, so which instance filled an entry does not matter), in one
 * world (one thread). */
struct fs__pool_pricing {
	struct fs_perf_step_cache cache;
	struct fs_perf_token_memo tokens;
};

struct fs__cost_ctx {
	const struct fs_perf_cfg *perf;
	double flops, bytes;         /* of the step last priced */
	double peak_flops_per_s, peak_bytes_per_s;   /* of the instance (all GPUs) */
	struct fs_perf_step_cache *cache;  /* the pool's: what does not change per step */
	fs_ns run_dur_ns[FS__RUN_MAX_STEPS];     /* planned steps of the run */
	double run_flops[FS__RUN_MAX_STEPS], run_bytes[FS__RUN_MAX_STEPS];
	struct fs_perf_decode_prep run_prep;     /* the run's batch size, priced */
	bool run_prep_ok;
	/* decode-only batches' terms, by batch size modulo FS__PREPS (a batch
	 * size moves by one or two between steps); n_seqs 0: none */
	struct fs_perf_decode_prep preps[FS__PREPS];
	/* by batch size modulo FS__PREPS (0: none), whether its decode terms
	 * are the whole numbers a closed-form run needs (world_run.c) */
	int64_t whole_n[FS__PREPS];
	bool whole_ok[FS__PREPS];
	bool run_lin_ok;                         /* run_lin holds: no run_flops/bytes */
	struct fs__rec_run_lin run_lin;          /* FLOPs, bytes of slot i, exact */
	uint32_t run_chunk;                      /* steps its next chunk plans */
	int64_t run_kv[FS__RUN_MAX_STEPS + 1];   /* KV blocks in use per step advanced */
};

struct fs__slot {
	struct fs_request req;
	fs_ns service_ns;            /* queue engine: drawn at arrival */
	fs_ns start_ns;              /* first scheduled, -1 before */
	fs_ns first_token_ns;        /* -1 before */
	int64_t carried_tokens;      /* LLM: outputs produced on a reclaimed instance */
	fs_ns carried_token_ns;      /* LLM: when the latest of them was streamed, -1 none */
	bool computed_here;          /* LLM: its instance scheduled it in an
	                              * iteration that ended (MODEL: F6) */
	uint32_t instance;           /* LLM: the instance serving it */
	uint32_t next_free;          /* free list link (also the unrouted line) */
	uint32_t agent;              /* closed-loop user or session that sent it,
	                              * FS_WORKLOAD_NO_AGENT: open arrival */
	bool in_use;
	bool routed;                 /* LLM: held by an instance's engine */
};

/* Where an instance is in its life (MODEL: F2). */
enum fs__inst_state {
	FS__INST_PROVISIONING,       /* requested; the machine is not running yet */
	FS__INST_STARTING,           /* running and billed: downloading, loading */
	FS__INST_SERVING,            /* takes new work */
	FS__INST_NOTICE,             /* spot reclaim notice: no new work */
	FS__INST_DRAINING,           /* scaled in: no new work, gone when empty */
	FS__INST_GONE
};

/* One LLM instance (a replica of TP GPUs) of a pool. */
struct fs__instance {
	uint32_t pool, zone;
	enum fs__inst_state state;
	bool spot;
	bool standin;                /* FALLBACK on-demand stand-in for a spot pool */
	uint32_t standin_for;        /* that spot pool */
	bool replacement;            /* launched to replace a reclaimed instance */
	bool overflow;               /* committed pool: above the commitment, billed
	                              * as usage at the overflow price (MODEL: B6) */
	struct fs_llm_engine *engine;/* while serving, notice or draining */
	struct fs__cost_ctx *cost;   /* the engine's cost context (owned), with it */
	uint64_t outstanding;        /* requests routed here and not finished */
	uint32_t serving_pos;        /* index in w->serving (valid while the list is) */
	bool stepping;               /* its iteration's end is in w->steps */
	bool kick_pending;           /* in w->kicks: starts a step once every
	                              * event of this instant has run (MODEL: V21) */
	struct fs_event_handle life_ev;
	double step_flops, step_bytes;
	fs_ns step_begin_ns;
	fs_ns requested_ns, billed_from_ns, serving_from_ns, gone_ns;
	double busy_ns;              /* Σ iteration time */
	double busy_mark_ns;         /* busy_ns at the last autoscaler look */
	double tokens_processed;     /* prefill + decode tokens of its iterations */
	double tokens_lost;          /* of those, lost to a reclaim */
	int64_t waiting, kv_used;    /* last readings (world totals) */
	fs_ns kv_since_ns;           /* kv_used held since (KV series accounted
	                              * up to here) */
	struct fs__hist_hint itl_hint;   /* histogram bucket of its last step time */
	uint32_t run_n, run_j;       /* fast path: steps of the open run (0: none
	                              * opened; 1: no step after the one in
	                              * flight) and the one in flight */
	bool run_more;               /* the run can go on past its planned chunk */
	bool idle;                   /* idle release: its own busy fraction was below
	                              * the bound at every look since idle_since_ns */
	fs_ns idle_since_ns;         /* start of that stretch (valid when idle) */
	double idle_mark_ns;         /* busy_ns at the last idle look */
};

/* Availability bookkeeping of a pool or of the fleet (MODEL: F15): the
 * serving and wanted counts in force since last_ns. */
struct fs__avail_track {
	int wanted;                  /* count, or the autoscaler's desired count */
	int serving;                 /* serving instances (stand-ins included) */
	bool reached;                /* serving >= wanted has happened */
	fs_ns last_ns;               /* time accounted up to */
};

/* A first token for the ttft_p90 metric: when, and the request's TTFT. */
struct fs__ttft_mark {
	fs_ns t_ns;
	fs_ns ttft_ns;
};

/* Runtime state of one pool. */
struct fs__pool {
	const struct fs_pool_cfg *cfg;
	const struct fs_perf_cfg *perf;
	int target;                  /* instances to run: count or the autoscaler's
	                              * decision (spot: + overprovision) */
	int alive;                   /* instances not gone and not draining */
	int standins;                /* FALLBACK stand-ins alive for this spot pool */
	int live;                    /* instances of this pool not gone */
	int committed_live;          /* of those, holding a commitment slot */
	int billed;                  /* instances being billed now */
	fs_ns billed_since_ns;       /* since when `billed` holds */
	uint32_t next_zone;          /* round-robin position when spreading */
	bool retry_pending;          /* a LAUNCH_RETRY event is scheduled */
	int replacements_due;        /* reclaimed instances not yet replaced */
	struct fs_autoscale_state scale;
	uint64_t arrived;            /* arrivals routed to its instances or queued
	                              * pinned to it, all time (not moves) */
	uint64_t arrived_mark;       /* fs__world_llm_arrived_for at the last
	                              * autoscaler look */
	uint64_t unrouted_pinned;    /* unrouted requests of classes pinned to it */
	double tokens_mark;          /* its output tokens then */
	double sat_tokens_per_s;     /* saturation throughput (capacity_util metric) */
	fs_ns at_max_ns, at_min_ns;  /* time the autoscaler held it at max / min */
	int desired;                 /* the autoscaler's last decision */
	fs_ns last_release_ns;       /* its last scale-in, -1 none */
	struct fs__ttft_mark *ttfts; /* ttft_p90: recent first tokens, oldest first */
	size_t n_ttfts, cap_ttfts;
	struct fs__avail_track avail;
	struct fs__pool_pricing *pricing;    /* its instances' shared step pricing,
	                                      * allocated at the first LLM engine */
	bool pricing_owned;          /* else borrowed from a pool with the same
	                              * step-time configuration */
};

/* Runtime state of one zone. */
struct fs__zone {
	int spot_alive;              /* spot instances not gone */
	fs_ns outage_until_ns;       /* no capacity before this (zone reclaim) */
};

struct fs_world {
	const struct fs_scenario *sc;
	fs_ns now_ns;
	bool ended;
	struct fs_eventq *q;         /* every event but the iterations' ends */
	struct fs_min_tree steps;    /* instance i's iteration (or run chunk)
	                              * ends at steps.key[i] (MODEL: E2) */
	struct fs_workload *workload;
	/* queue engine */
	struct fs_qengine *qengine;
	struct fs_rng *service_rng;
	/* LLM engine: the fleet */
	const struct fs_fleet_cfg *fleet;
	struct fs__instance *insts;
	size_t n_insts, cap_insts;
	struct fs__pool *pools;
	struct fs__zone *zones;
	struct fs_rng *fleet_rng;    /* provisioning delays */
	struct fs_rng *spot_rng;     /* instance interruptions, zone reclaims */
	struct fs_rng *routing_rng;  /* power-of-two choices */
	struct fs_router_state router;
	struct fs_route_candidate *cand;  /* scratch for routing */
	size_t cap_cand;
	uint32_t *serving;           /* serving instances in index order, rebuilt
	                              * after fleet events (serving_dirty) */
	size_t n_serving, cap_serving;
	struct fs_min_tree lo_tree;  /* least_outstanding over `serving`, keyed
	                              * by outstanding (valid while
	                              * !serving_dirty; MODEL: R2) */
	bool serving_dirty;
	bool in_fleet_event;         /* handling an event that may change
	                              * instance states: routing scans them all */
	uint32_t unrouted_head, unrouted_tail;  /* requests no instance can take yet */
	uint64_t n_unrouted;
	uint64_t n_unrouted_free;    /* of those, of classes pinned to no pool */
	uint64_t arrived_free;       /* arrivals queued there pinned to no pool,
	                              * all time */
	uint32_t busy_insts;         /* instances with a step in flight */
	bool draining;               /* past the horizon with simulation.drain */
	uint32_t *kicks;             /* idle instances given work at this instant,
	                              * in the order they got it (MODEL: V21) */
	size_t n_kicks, cap_kicks;
	uint64_t waiting_llm;        /* Σ waiting over instances + unrouted */
	int64_t kv_used_llm;         /* Σ KV blocks in use */
	int64_t kv_total_llm;        /* Σ KV blocks of serving instances */
	struct fs__avail_track fleet_avail;  /* the fleet as one pool */
	/* requests */
	struct fs__slot *slots;
	size_t n_slots, cap_slots;
	uint32_t free_head;
	uint64_t in_system;
	uint64_t arrivals;           /* requests taken, all of them */
	uint64_t completions;
	uint64_t failures;
	uint32_t tie_rank;           /* the event being handled's rank (MODEL: E2):
	                              * a run's step of instance i ending at this
	                              * very ns came before it iff 1 + i is less */
	struct fs_recorder rec;
};

/* Always-on check for invariants whose failure would corrupt results. */
#define FS__WORLD_CHECK(w, cond, what) \
	do { if (!(cond)) fs__world_fail((w), (what), __FILE__, __LINE__); } while (0)

_Noreturn void fs__world_fail(const struct fs_world *w, const char *what,
                              const char *file, int line);

/* MODEL: E2 — an iteration's end at t_ns on instance ii: after every other
 * kind of event of that instant, and in instance order among iterations
 * (w->steps' order by (time, slot); its event has rank 1 + ii). */
static inline void fs__world_push_step(struct fs_world *w, fs_ns t_ns, uint32_t ii)
{
	fs_min_tree_set(&w->steps, ii, t_ns);
}

/* A new request slot holding req (start and first token unset). */
uint32_t fs__world_slot_alloc(struct fs_world *w, const struct fs_request *req);
/* The request left the system (completed or failed). */
void fs__world_slot_release(struct fs_world *w, uint32_t slot);
/* The request ended (completed with output_tokens, or failed): its agent,
 * if any, schedules its next request (MODEL: U1); then the slot is released. */
void fs__world_slot_end(struct fs_world *w, uint32_t slot, bool completed,
                        int64_t output_tokens);

/* Queue engine driver (world_queue.c). */
void fs__world_queue_init(struct fs_world *w, uint64_t seed, uint64_t replication);
void fs__world_queue_fini(struct fs_world *w);
void fs__world_queue_arrival(struct fs_world *w, uint32_t slot);
void fs__world_queue_done(struct fs_world *w, uint32_t server, uint32_t slot);

/* The engine cost callback (ctx from fs__world_cost_ctx_alloc, heap, one per
 * instance, freed with free()). */
fs_ns fs__world_price_step(void *ctx, const struct fs_step_shape *shape);
/* The decode-only terms of a batch of n_seqs (>= 1), kept in c->preps. */
const struct fs_perf_decode_prep *fs__world_decode_prep(struct fs__cost_ctx *c,
                                                        int64_t n_seqs);
struct fs__cost_ctx *fs__world_cost_ctx_alloc(const struct fs_perf_cfg *perf,
                                              struct fs__pool_pricing *pricing);

/* LLM engine driver (world_llm.c): routing, iterations, evacuation. */
void fs__world_llm_arrival(struct fs_world *w, uint32_t slot);
void fs__world_llm_step_done(struct fs_world *w, uint32_t inst);
/* An instance began serving: give it work waiting for a home. */
void fs__world_llm_instance_ready(struct fs_world *w, uint32_t inst);
/* Unrouted requests pool p's instances could take: those of classes
 * pinned to it or to no pool (MODEL: A10).  O(1). */
uint64_t fs__world_llm_unrouted_for(const struct fs_world *w, uint32_t p);
/* Arrivals for pool p, all time: routed to it or queued for it (pinned to
 * it or to no pool); a request moved off a reclaimed instance is no new
 * arrival (MODEL: A10).  O(1). */
uint64_t fs__world_llm_arrived_for(const struct fs_world *w, uint32_t p);
/* Take every request off an instance; requeue them elsewhere or fail them. */
void fs__world_llm_evacuate(struct fs_world *w, uint32_t inst, bool fail);
/* Start an iteration on an idle instance with work. */
void fs__world_llm_kick(struct fs_world *w, uint32_t inst);
/* Kick the instances that got work at this instant (after its last event). */
void fs__world_llm_flush_kicks(struct fs_world *w);
/* Instance `in` holds `kv` KV blocks from t_ns on (accounts the KV series
 * span since its last change); account every instance up to now. */
void fs__world_llm_kv_level(struct fs_world *w, struct fs__instance *in, int64_t kv,
                            fs_ns t_ns);
void fs__world_llm_kv_account_all(struct fs_world *w);
/* Record one iteration that ended (its report, and the modelled work of
 * the step). */
void fs__world_llm_record_step(struct fs_world *w, struct fs__instance *in,
                               const struct fs_llm_report *rep, double flops,
                               double bytes);

/* The fast path (world_run.c, MODEL: V24).  Open a run on instance `in`
 * whose step 0 (dur0_ns) just began (`opened`: the engine opened it with
 * the step, fs_llm_engine_begin_run): returns when the last step of its
 * first chunk ends (now + dur0_ns without a run).  Sync: record the steps of ii's run
 * that ended before now (at now too when the current event was pushed
 * after that step began, as the reference path would order them).  Cut:
 * sync, then make the step in flight the run's last.  Sync all: every
 * instance.  Step work: the modelled FLOPs and bytes of ii's step in
 * flight. */
fs_ns fs__world_run_open(struct fs_world *w, struct fs__instance *in, fs_ns dur0_ns,
                         bool opened);
void fs__world_run_sync(struct fs_world *w, uint32_t ii);
void fs__world_run_cut(struct fs_world *w, uint32_t ii);
/* At the STEP_DONE event ending ii's planned chunk: plan the next chunk
 * and go on (true: the event is handled), or false: the step ends as
 * usual. */
bool fs__world_run_extend(struct fs_world *w, uint32_t ii);
/* At the STEP_DONE event ending the last step a run may reach (it completes
 * requests): end it into `rep` and go on with the requests left in a new
 * first chunk (fs_llm_engine_run_continue), setting *end_ns to when that
 * chunk's last step ends; false (nothing changed) when the step must end
 * as usual. */
bool fs__world_run_continue(struct fs_world *w, struct fs__instance *in,
                            struct fs_llm_report *rep, fs_ns *end_ns);
void fs__world_llm_sync_all(struct fs_world *w);
void fs__world_run_step_work(const struct fs__instance *in, double *flops, double *bytes);

/* The fleet (world_fleet.c): the instances' life cycle; its events are
 * dispatched here (spot ones to world_spot.c). */
void fs__world_fleet_init(struct fs_world *w, uint64_t seed, uint64_t replication);
void fs__world_fleet_fini(struct fs_world *w);
void fs__world_fleet_event(struct fs_world *w, enum fs_event_kind kind, uint32_t a,
                           int64_t b);
/* After an iteration of instance inst: a draining instance that became
 * empty is gone. */
void fs__world_fleet_after_step(struct fs_world *w, uint32_t inst);
/* Launch until pool p has its target (returning how many of the launches
 * were not replacements owed for reclaims) — fill tries nothing while a
 * failed spot launch waits for its retry, retry tries anyway (the retry
 * event, a rise of a capacity trace: MODEL: F10); stop an instance taking
 * work (one not yet serving goes at once, a serving one drains); whether
 * an instance counts toward its pool's size (world_fleet.c). */
int fs__world_fleet_fill(struct fs_world *w, uint32_t p);
int fs__world_fleet_retry(struct fs_world *w, uint32_t p);
/* The instances a pool runs to have `wanted` serving: with a spot pool's
 * over-provisioned spares (MODEL: F11). */
int fs__world_fleet_target(const struct fs_pool_cfg *pc, int wanted);
void fs__world_fleet_release(struct fs_world *w, uint32_t inst);
/* Pool p owes no more replacements than it lacks of its target (MODEL:
 * F13): called after fills and the autoscaler's decisions. */
void fs__world_fleet_trim_due(struct fs_world *w, uint32_t p);
bool fs__world_inst_counts(const struct fs__instance *in);
/* A pool's cold start after provisioning: download, load, engine start. */
fs_ns fs__world_cold_start_ns(const struct fs_pool_cfg *pc);
/* Launch one instance into pool p (false: a spot pool found no room, a
 * retry is scheduled; warm: serving at once, t = 0 only; standin_for >= 0:
 * a fallback stand-in for that spot pool).  An instance is gone now.  Pool
 * p's serving count changed: record it. */
bool fs__world_fleet_launch(struct fs_world *w, uint32_t p, bool warm, bool replacement,
                            int standin_for);
void fs__world_fleet_gone(struct fs_world *w, uint32_t inst);
void fs__world_fleet_note_pool(struct fs_world *w, uint32_t p);
/* Spot capacity (world_spot.c): spot room left in zone z now (INT32_MAX:
 * unlimited); draw a running spot instance's interruption; keep a spot
 * pool's fallback stand-ins at what it lacks (MODEL: F12; for_reclaim:
 * those launched stand in for capacity a reclaim took); schedule the
 * zones' capacity changes and reclaims (at init); a spot event (notice,
 * reclaim, zone reclaim, capacity change, launch retry). */
int32_t fs__world_spot_room(const struct fs_world *w, uint32_t z);
void fs__world_spot_arm(struct fs_world *w, uint32_t inst);
void fs__world_spot_rebalance(struct fs_world *w, uint32_t p, bool for_reclaim);
void fs__world_spot_init(struct fs_world *w);
void fs__world_spot_event(struct fs_world *w, enum fs_event_kind kind, uint32_t a);
/* The autoscaler (world_scale.c): set up (after the t = 0 launches), one
 * evaluation (FS_EV_AUTOSCALE), free its state. */
void fs__world_scale_init(struct fs_world *w);
void fs__world_scale_event(struct fs_world *w);
void fs__world_scale_fini(struct fs_world *w);
/* At the end of a run: note work left queued with no capacity. */
void fs__world_scale_finish(struct fs_world *w);
/* The bill (world_bill.c).  Pool p's billed instances change by delta at
 * t_ns (MODEL: B8); bill and close the fleet at end_ns into the result. */
void fs__world_note_billed(struct fs_world *w, uint32_t p, int delta, fs_ns t_ns);
void fs__world_fleet_finish(struct fs_world *w, fs_ns end_ns);
/* Levels changed: push queue length, busy instances and KV use to the
 * recorder. */
void fs__world_llm_note_levels(struct fs_world *w);

/* Availability (world_avail.c, MODEL: F15).  Start tracking with every
 * pool's wanted count set (after the t = 0 launches). */
void fs__world_avail_init(struct fs_world *w);
/* Serving counts may have changed now: account the time since the last
 * note with the counts then in force, then take the new ones. */
void fs__world_avail_note(struct fs_world *w);
/* Pool p now wants `wanted` serving instances: the time up to now is
 * accounted with the count it wanted until now, then the new count holds
 * (for the pool and for the fleet's sum). */
void fs__world_avail_want(struct fs_world *w, uint32_t p, int wanted);
/* Close the accounts at end_ns into the pool and fleet results. */
void fs__world_avail_finish(struct fs_world *w, fs_ns end_ns);

#endif
