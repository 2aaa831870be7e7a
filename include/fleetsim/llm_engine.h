/*
 * llm_engine.h — one LLM serving replica with vLLM V1 continuous batching
 * (docs/MODEL.md V1–V23): token budget, chunked prefill, max_num_seqs,
 * paged KV blocks, preemption by recompute, FCFS or priority, and a static
 * batching baseline.  Like the queue engine it knows request slots only: the
 * world owns requests, the clock and the event queue.  The cost of one step
 * comes from a caller-supplied callback.  Everything the engine returns
 * (report arrays) is engine-owned and valid until the next call on it.
 */
#ifndef FLEETSIM_LLM_ENGINE_H
#define FLEETSIM_LLM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/block_hash.h"
#include "fleetsim/common.h"
#include "fleetsim/perf.h"

/*
 * struct fs_step_shape (what one iteration computes, all the step-time model
 * needs) comes from perf.h, so the engine's cost callback can be
 * fs_perf_step_ns behind a one-line adapter.  The engine fills it as:
 * prefill_tokens = tokens of prefill chunks, re-prefills after preemption
 * included; prefill_attn_tokens = sum of chunk * (computed before + chunk/2);
 * decode_seqs = requests feeding one sampled token; decode_context_tokens =
 * sum of their context lengths counting the token being fed; n_seqs = all.
 */

/* Duration of one step of the given shape, in ns (must be >= 1). */
typedef fs_ns (*fs_step_cost_fn)(void *ctx, const struct fs_step_shape *shape);

#define FS_LLM_POLICY_MAP(X)                                                                  \
	X(FS_LLM_POLICY_FCFS, "fcfs")          /* vLLM default */                             \
	X(FS_LLM_POLICY_PRIORITY, "priority")  /* lower priority value first, then arrival */
enum fs_llm_policy {
	FS_LLM_POLICY_MAP(FS_ENUM_MEMBER)
};

#define FS_LLM_BATCHING_MAP(X)                                                                         \
	X(FS_LLM_BATCHING_CONTINUOUS, "continuous")  /* vLLM V1 */                                     \
	X(FS_LLM_BATCHING_STATIC, "static")          /* baseline: admit only when idle (MODEL: V14) */
enum fs_llm_batching {
	FS_LLM_BATCHING_MAP(FS_ENUM_MEMBER)
};

/* How a step mixes prefills and decodes (MODEL: V20). */
#define FS_LLM_SCHEDULER_MAP(X)                                                                     \
	X(FS_LLM_SCHED_CHUNKED, "chunked")              /* vLLM V1: running first, then admissions, \
	                                                * one step mixes both (chunked prefill when \
	                                                * enable_chunked_prefill) */                \
	X(FS_LLM_SCHED_PREFILL_FIRST, "prefill_first")  /* vLLM V0 default: a step is all prefills  \
	                                                * (whole prompts) or all decodes, prefills  \
	                                                * first; implies no chunked prefill */
enum fs_llm_scheduler {
	FS_LLM_SCHEDULER_MAP(FS_ENUM_MEMBER)
};

struct fs_llm_engine_cfg {
	int64_t max_num_seqs;                /* running requests at most (256) */
	int64_t max_num_batched_tokens;      /* token budget per step (8192) */
	bool enable_chunked_prefill;         /* true */
	int64_t long_prefill_token_threshold;/* per-request cap per step, 0 = off */
	enum fs_llm_policy policy;           /* FCFS */
	enum fs_llm_batching batching;       /* CONTINUOUS */
	int64_t kv_blocks;                   /* usable KV blocks (null block excluded); required */
	int64_t block_tokens;                /* tokens per block (16) */
	int64_t max_model_len;               /* context limit, tokens (32768) */
	bool reserve_full_input;             /* 2026 admission gate (true) */
	double kv_watermark;                 /* 2026 watermark fraction (0) */
	int64_t max_preemptions_per_request; /* livelock guard, 0 = none (100) */
	enum fs_llm_scheduler scheduler;     /* CHUNKED */
	bool prefix_caching;                 /* automatic prefix caching (true, as
	                                      * vLLM V1); only requests carrying
	                                      * block hashes use it (MODEL: V22) */
	bool fast_path;                      /* allow runs of decode iterations
	                                      * (fs_llm_engine_run_open; true);
	                                      * false: step by step only */
};

/* Why a request was refused (FS_LLM_ACCEPTED = 0 means it was not). */
#define FS_LLM_REJECT_MAP(X)                                                                                            \
	X(FS_LLM_ACCEPTED, "accepted")                                                                                  \
	X(FS_LLM_REJECT_BAD_LENGTHS, "bad_lengths")                  /* prompt or output < 1 token */                   \
	X(FS_LLM_REJECT_PROMPT_TOO_LONG, "prompt_too_long")          /* prompt >= max_model_len */                      \
	X(FS_LLM_REJECT_KV_TOO_SMALL, "kv_too_small")                /* alone it needs more blocks than exist */        \
	X(FS_LLM_REJECT_PREEMPTED_TOO_OFTEN, "preempted_too_often")  /* livelock guard (max_preemptions_per_request) */
enum fs_llm_reject {
	FS_LLM_REJECT_MAP(FS_ENUM_MEMBER)
};

struct fs_llm_done {
	uint32_t slot;
	int64_t output_tokens;           /* tokens generated (after max_model_len truncation) */
};

struct fs_llm_gap {
	uint32_t slot;
	fs_ns gap_ns;                    /* time since this request's previous token */
};

struct fs_llm_rejected {
	uint32_t slot;
	enum fs_llm_reject reason;
};

/* Prefix-cache lookups (MODEL: V22).  Queries count the first admission of
 * every request that carries block hashes while prefix caching is on: its
 * tokens and its full blocks;
 * hits the cached tokens and blocks found then.  saved_tokens counts the
 * cached tokens of every admission (re-admissions after preemption too):
 * prefill work skipped. */
struct fs_llm_prefix_counts {
	int64_t query_tokens, hit_tokens;
	int64_t query_blocks, hit_blocks;
	int64_t saved_tokens;
};

/*
 * What one step did.  Arrays point into the engine and stay valid until the
 * next call on it.  Inter-token latencies: `itl_regular_seqs` requests got a
 * token in this step and in the step before with no gap between the steps,
 * so each of their gaps is end_ns - begin_ns (record with one weighted add);
 * every other non-first token (after a preemption, or after a step the
 * request sat out) is listed in `itl_gaps` with its own gap.
 */
struct fs_llm_report {
	fs_ns begin_ns, end_ns;
	struct fs_step_shape shape;              /* what was priced */
	const uint32_t *started;                 /* slots scheduled for the first
	                                          * time in this step (their queue
	                                          * delay ended at begin_ns) */
	size_t n_started;
	const uint32_t *first_token;             /* slots whose first token came now */
	size_t n_first_token;
	const struct fs_llm_done *done;          /* completed; their blocks are free */
	size_t n_done;
	const uint32_t *preempted;               /* preemption events in this step */
	size_t n_preempted;
	const struct fs_llm_rejected *rejected;  /* dropped by the livelock guard */
	size_t n_rejected;
	int64_t itl_regular_seqs;
	const struct fs_llm_gap *itl_gaps;
	size_t n_itl_gaps;
	int64_t tokens_generated;                /* output tokens sampled in this step */
	int64_t kv_used_blocks;                  /* after the step */
	int64_t waiting, running;                /* after the step */
	struct fs_llm_prefix_counts prefix;      /* admissions planned for this step */
};

/* Running totals since alloc. */
struct fs_llm_engine_stats {
	uint64_t added;                  /* accepted by fs_llm_engine_add */
	uint64_t rejected_at_add;        /* refused by fs_llm_engine_add (not counted in added) */
	uint64_t rejected_by_guard;      /* accepted, later dropped by the livelock guard */
	uint64_t completed;
	uint64_t evacuated;              /* taken out by fs_llm_engine_evacuate */
	uint64_t preemptions;            /* preemption events */
	uint64_t steps;                  /* steps with at least one scheduled token */
	uint64_t replans;                /* plans that scheduled nothing and were redone (V12) */
	int64_t sum_batch_seqs;          /* sum over steps of n_seqs: mean batch = sum/steps */
	int64_t sum_decode_seqs;
	int64_t sum_prefill_tokens;
	int64_t tokens_generated;
	int64_t peak_running;
	int64_t peak_kv_used_blocks;
	fs_ns busy_ns;                   /* sum of step durations */
	struct fs_llm_prefix_counts prefix;  /* prefix-cache lookups (V22) */
};

struct fs_llm_engine;

/* Fill `cfg` with the defaults listed next to its fields (kv_blocks = 0:
 * the caller must set it). */
void fs_llm_engine_cfg_default(struct fs_llm_engine_cfg *cfg);

/*
 * The `vllm serve` defaults on `gpu` (MODEL: V17), the one rule the scenario
 * loader and `fleetsim estimate` share.  fs_llm_big_gpu: device memory >=
 * 70 GiB and an id without "a100" (any case).  The token budget per step is
 * 8192 on a big GPU, else 2048; max_num_seqs is 1024 on a big GPU, else 256,
 * capped at `max_num_batched_tokens` (the budget actually used).
 */
bool fs_llm_big_gpu(const struct fs_gpu_spec *gpu);
int64_t fs_llm_default_max_num_batched_tokens(const struct fs_gpu_spec *gpu);
int64_t fs_llm_default_max_num_seqs(const struct fs_gpu_spec *gpu,
                                    int64_t max_num_batched_tokens);

/*
 * Create an idle engine.  `cost` prices each step (called once per step from
 * fs_llm_engine_begin_step with `cost_ctx`).  With chunked prefill off the
 * budget is raised to max(max_model_len, max_num_batched_tokens) (MODEL: V4).
 * Returns NULL with `err` filled (may be NULL) for an invalid configuration;
 * free with fs_llm_engine_free.
 */
struct fs_llm_engine *fs_llm_engine_alloc(const struct fs_llm_engine_cfg *cfg,
                                          fs_step_cost_fn cost, void *cost_ctx,
                                          struct fs_error *err);
void fs_llm_engine_free(struct fs_llm_engine *e);     /* NULL is fine */

/*
 * A request arrives: world slot `slot`, `prompt_tokens` and `output_tokens`
 * (>= 1 each), `priority` (lower first; only the priority policy uses it) and
 * `arrival_seq` (unique, increasing with arrival; breaks priority ties).  The
 * output is cut to max_model_len - prompt_tokens (MODEL: V10).  Returns
 * FS_LLM_ACCEPTED, or why it is refused at once (then the engine keeps no
 * trace of it).  O(log waiting).  May be called while a step is in flight;
 * the request is first considered by the next fs_llm_engine_begin_step.
 */
enum fs_llm_reject fs_llm_engine_add(struct fs_llm_engine *e, uint32_t slot,
                                     int64_t prompt_tokens, int64_t output_tokens,
                                     int priority, uint64_t arrival_seq);

/*
 * fs_llm_engine_add for a request whose blocks have content hashes
 * (`hashes` borrowed; it must stay valid until the request leaves the
 * engine — it points into trace storage or is session-derived; NULL or no
 * units: no hashes).  With prefix_caching on, its admission reuses cached
 * blocks of the longest cached prefix and its full blocks are cached when
 * the step that computes them is scheduled (MODEL: V22).
 */
enum fs_llm_reject fs_llm_engine_add_hashed(struct fs_llm_engine *e, uint32_t slot,
                                            int64_t prompt_tokens,
                                            int64_t output_tokens, int priority,
                                            uint64_t arrival_seq,
                                            const struct fs_block_hashes *hashes);

/*
 * Cached blocks a request with `hashes` and `num_tokens` tokens would reuse
 * if admitted now (the longest cached prefix, capped so one token is
 * computed); 0 with prefix caching off.  O(matched blocks).  For routers.
 */
int64_t fs_llm_engine_prefix_match(const struct fs_llm_engine *e,
                                   const struct fs_block_hashes *hashes,
                                   int64_t num_tokens);

/*
 * KV conservation check for tests, O(blocks + running): the pool's own
 * check (free + used + cached == total, the LRU list), blocks in use ==
 * private blocks of running requests + referenced cache entries, and the
 * references on entries == the cached blocks running requests hold.
 * Returns 0, or -1 when anything disagrees.
 */
int fs_llm_engine_kv_check(const struct fs_llm_engine *e);

/* Unreferenced cached blocks now (evictable; 0 with caching off). */
int64_t fs_llm_engine_kv_cached(const struct fs_llm_engine *e);

/*
 * Plan one iteration at `now_ns` (scheduler phases A–C of vllm_semantics §0)
 * and return its duration in ns (>= 1); the caller then calls
 * fs_llm_engine_end_step at now_ns + duration.  Returns 0 when nothing could
 * be scheduled but the plan dropped requests that must still be reported
 * (call end_step at once), and -1 when the engine is idle (no step started).
 * Must not be called while a step is in flight.  O(running + admitted·log
 * waiting); no allocation in steady state.
 */
fs_ns fs_llm_engine_begin_step(struct fs_llm_engine *e, fs_ns now_ns);

/*
 * Finish the step in flight at `now_ns`: sample tokens, record first tokens
 * and completions, free finished requests' blocks (phases D–E), and fill
 * `report` (its arrays are engine-owned, valid until the next call).  O(running).
 */
void fs_llm_engine_end_step(struct fs_llm_engine *e, fs_ns now_ns,
                            struct fs_llm_report *report);

/* A request taken out of an engine by fs_llm_engine_evacuate. */
struct fs_llm_evacuee {
	uint32_t slot;
	int64_t generated;           /* output tokens already sampled (>= 1: its
	                              * first token was delivered) */
	fs_ns last_token_ns;         /* when the latest of them was sampled, -1 none */
};

/*
 * Take every request out of the engine (running and waiting), free all KV
 * blocks and abandon a step in flight (its work is lost): the instance is
 * being reclaimed.  *out points to an engine-owned array of *n entries (valid
 * until the next call), running requests first in admission order, then
 * waiting ones in line order.  The engine is left idle and reusable.  O(n).
 */
void fs_llm_engine_evacuate(struct fs_llm_engine *e, const struct fs_llm_evacuee **out,
                            size_t *n);

/* The cost_ctx given to fs_llm_engine_alloc. */
void *fs_llm_engine_cost_ctx(const struct fs_llm_engine *e);

/* Counters. */
bool fs_llm_engine_in_step(const struct fs_llm_engine *e);
int64_t fs_llm_engine_waiting(const struct fs_llm_engine *e);
int64_t fs_llm_engine_running(const struct fs_llm_engine *e);
int64_t fs_llm_engine_kv_used(const struct fs_llm_engine *e);
int64_t fs_llm_engine_kv_total(const struct fs_llm_engine *e);
/* The effective token budget per step (after the V4 rule). */
int64_t fs_llm_engine_token_budget(const struct fs_llm_engine *e);
const struct fs_llm_engine_stats *fs_llm_engine_stats(const struct fs_llm_engine *e);

/*
 * The fast path (MODEL: V24).  Right after fs_llm_engine_begin_step returned
 * a step ("step 0"), fs_llm_engine_run_open says whether it and the steps
 * after it are decodes of the same batch that the step counter can carry:
 * every running request fed one token, got its previous token when step 0
 * began, and no admission, preemption or prefix-cache commit happened.  If
 * so a run is open and fs_llm_engine_run_plan hands out the shape of the
 * next step (1, 2, ...) for the caller to price, until a step would differ
 * from the reference path: the step after the first completion, or a step
 * whose KV allocation would preempt (fs_llm_engine_run_continue carries a
 * run on past a completion where nothing else changes).  The caller then moves the run along
 * step by step at its own pace: fs_llm_engine_run_advance at the end of the
 * step in flight (time now_ns, the next step lasting next_dur_ns) fills
 * `rep` as fs_llm_engine_end_step would have (no first tokens, completions,
 * gaps or drops; every request one regular token) and begins the next
 * planned step.  fs_llm_engine_run_cut makes the step in flight the last
 * (something arrived).  fs_llm_engine_end_step ends the last step as usual;
 * it and fs_llm_engine_evacuate close the run.  O(running) to open, O(1)
 * per planned or advanced step.  fs_llm_engine_run_planned: steps planned
 * (0 when no run is open).
 */
bool fs_llm_engine_run_open(struct fs_llm_engine *e);
bool fs_llm_engine_run_plan(struct fs_llm_engine *e, struct fs_step_shape *shape);
int64_t fs_llm_engine_run_planned(const struct fs_llm_engine *e);
/* Up to `max` calls of fs_llm_engine_run_plan at once: returns how many
 * steps were planned; their shapes are decodes of the run's batch
 * (fs_llm_engine_run_batch, n), the i-th of *ctx_first + n·i decode context
 * tokens.  O(block size + log max), not O(steps). */
size_t fs_llm_engine_run_plan_n(struct fs_llm_engine *e, size_t max, int64_t *ctx_first);
void fs_llm_engine_run_cut(struct fs_llm_engine *e);
void fs_llm_engine_run_advance(struct fs_llm_engine *e, fs_ns now_ns, fs_ns next_dur_ns,
                               struct fs_llm_report *rep);
bool fs_llm_engine_run_is_open(const struct fs_llm_engine *e);

/* k >= 1 steps of the open run end back to back, as k calls of
 * fs_llm_engine_run_advance would end them, with no report: the step in
 * flight (j) and the k - 1 after it.  dur_ns[0..k] are the times of steps
 * j .. j + k (dur_ns[0] the step in flight's, dur_ns[k] the one begun at the
 * last end); kv_used[0..k] receives the KV blocks in use during each of
 * them.  Every request samples one token per step (a regular ITL gap of the
 * step's time).  O(k) with no work per request.  fs_llm_engine_run_batch:
 * the run's batch size (0 when none is open). */
void fs_llm_engine_run_advance_n(struct fs_llm_engine *e, size_t k, const fs_ns *dur_ns,
                                 int64_t *kv_used);
int64_t fs_llm_engine_run_batch(const struct fs_llm_engine *e);
/* The decode context tokens of the open run's step in flight and of the
 * last step it may reach (a step's is step 0's + batch · index); 0 and 0
 * when no run is open.  O(1). */
void fs_llm_engine_run_context_span(const struct fs_llm_engine *e, int64_t *first,
                                    int64_t *last);

/* At now_ns, with no step in flight: where fs_llm_engine_begin_step would
 * plan a decode of every running request (nothing waits, no prefix cache,
 * continuous batching, every request's last token sampled at now_ns and
 * none finishing in that step, its blocks fitting without a preemption) and
 * fs_llm_engine_run_open would open a run on it, do both: begin the step,
 * priced through the cost callback into *dur_ns, with the same state,
 * statistics and run as the two calls.  Returns false and changes nothing
 * otherwise.  O(running), two passes instead of five. */
bool fs_llm_engine_begin_run(struct fs_llm_engine *e, fs_ns now_ns, fs_ns *dur_ns);

/* At now_ns, the end of the open run's step in flight, which is its last
 * (it completes requests): if nothing waits, the prefix cache is off and
 * the requests left fit the next step's KV, end it as
 * fs_llm_engine_end_step would (`rep` lists the completions; its arrays
 * are engine-owned) and go on with the rest of the batch: begin the next
 * step, priced through the cost callback into *next_dur_ns, as
 * fs_llm_engine_begin_step would plan it (a decode of every request left),
 * as the run's next step; its later steps plan as after fs_llm_engine_run_open.  Returns false and
 * changes nothing otherwise.  O(running), one pass. */
bool fs_llm_engine_run_continue(struct fs_llm_engine *e, fs_ns now_ns,
                                struct fs_llm_report *rep, fs_ns *next_dur_ns);
/* fs_llm_engine_run_continue where requests wait: where its conditions
 * hold but the waiting line's, and fs_llm_engine_run_admit's for the
 * requests left, end the step as it does (the finished requests leave) and
 * begin the next as fs_llm_engine_begin_step would: a decode of every
 * request left, then admissions from waiting; priced into *next_dur_ns.
 * The run stays open through that mixed step, as after
 * fs_llm_engine_run_admit.  Returns false and changes nothing otherwise.
 * O(running) (the completions' pass), O(admitted). */
bool fs_llm_engine_run_continue_admit(struct fs_llm_engine *e, fs_ns now_ns,
                                      struct fs_llm_report *rep, fs_ns *next_dur_ns);

/* At now_ns, the end of the open run's step in flight, which is its last
 * (the caller cut it: something waits): where no request finishes in it,
 * the prefix cache is off, batching is continuous with decodes planned
 * first, and fs_llm_engine_begin_step would give every request of the run
 * one token without a preemption, end the step as fs_llm_engine_end_step
 * would (`rep`: every request one regular token) and begin the next as
 * fs_llm_engine_begin_step would: those decodes, then admissions from
 * waiting; priced through the cost callback into *next_dur_ns.  The run
 * stays open through that mixed step, its requests' progress still kept by
 * the step counter (fs_llm_engine_run_open declines it: it prefills); at
 * its end fs_llm_engine_run_join carries the run on, or
 * fs_llm_engine_end_step ends the step as usual.  Returns false and
 * changes nothing otherwise.  O(1) in the run's requests; O(admitted). */
bool fs_llm_engine_run_admit(struct fs_llm_engine *e, fs_ns now_ns,
                             struct fs_llm_report *rep, fs_ns *next_dur_ns);

/* At now_ns, the end of a mixed step (fs_llm_engine_run_admit): where
 * nothing waits, no request of the run finishes in it, every request it
 * admitted completes its prefill in it and finishes neither in it nor in
 * the next step, and the next step's KV fits without a preemption, end it
 * as fs_llm_engine_end_step would (`rep`: a regular token for each request
 * of the run, a first token for each admitted one) and begin the next as
 * fs_llm_engine_begin_step would plan it, a decode of every request, priced
 * through the cost callback into *next_dur_ns, as the run's next step with
 * the admitted requests joined to it; its later steps plan as after
 * fs_llm_engine_run_open.  Returns false and changes nothing otherwise
 * (fs_llm_engine_end_step then ends the step).  O(admitted). */
bool fs_llm_engine_run_join(struct fs_llm_engine *e, fs_ns now_ns,
                            struct fs_llm_report *rep, fs_ns *next_dur_ns);
/* At now_ns, the end of a mixed step where requests wait again (arrived
 * during it): where fs_llm_engine_run_join's conditions hold but the
 * waiting line's, and fs_llm_engine_run_admit's for the run with the
 * admitted requests joined (the prefix cache off, continuous batching with
 * decodes planned first, a budget of a token each), end it as
 * fs_llm_engine_run_join does and begin the next as
 * fs_llm_engine_begin_step would: a decode of every request, then
 * admissions from waiting; priced into *next_dur_ns.  The run stays open
 * through that mixed step, as after fs_llm_engine_run_admit.  Returns
 * false and changes nothing otherwise.  O(admitted in either step). */
bool fs_llm_engine_run_join_admit(struct fs_llm_engine *e, fs_ns now_ns,
                                  struct fs_llm_report *rep, fs_ns *next_dur_ns);

/* A short constant name for a reject reason ("kv_too_small", ...). */
const char *fs_llm_reject_name(enum fs_llm_reject reason);
/* The reason named `name` (exact) into *out: 0, or -1 when none (*out untouched). */
int fs_llm_reject_from_name(const char *name, enum fs_llm_reject *out);

/* The names of the enums of the engine configuration as the scenario format spells them (their
 * tables' names; "?" for a value outside the enum), and the exact lookups:
 * 0 with *out set, or -1 when no member has that name (*out untouched).
 * Defined in config_names.c. */
const char *fs_llm_policy_name(enum fs_llm_policy v);
int fs_llm_policy_from_name(const char *name, enum fs_llm_policy *out);
const char *fs_llm_batching_name(enum fs_llm_batching v);
int fs_llm_batching_from_name(const char *name, enum fs_llm_batching *out);
const char *fs_llm_scheduler_name(enum fs_llm_scheduler v);
int fs_llm_scheduler_from_name(const char *name, enum fs_llm_scheduler *out);

#endif
