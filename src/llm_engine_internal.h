/*
 * llm_engine_internal.h — the state of one LLM replica, shared by
 * llm_engine.c (lifecycle, arrivals, step completion, counters) and
 * llm_sched.c (step planning and preemption).  Requests live in a pool of
 * `struct llm_seq` indexed by uint32; `running` and the waiting heap hold pool
 * indices.  Conservation (always checked): added = completed + rejected +
 * waiting + running.
 */
#ifndef FLEETSIM_LLM_ENGINE_INTERNAL_H
#define FLEETSIM_LLM_ENGINE_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/kvcache.h"
#include "fleetsim/llm_engine.h"

#define LLM_NONE UINT32_MAX
/* Bytes of a cache line (x86-64 and most ARM64 cores): struct llm_seq's
 * alignment, and its pool's. */
#define LLM_CACHE_LINE_BYTES 64

/* Always-on check for invariants whose failure would corrupt results. */
#define LLM_CHECK(cond, what) \
	do { if (!(cond)) fs__llm_fail((what), __FILE__, __LINE__); } while (0)

struct llm_seq {
	/* The first cache line (the pool is aligned to one): the fields every
	 * pass over the batch reads, at a step's end, a run's begin and end. */
	_Alignas(LLM_CACHE_LINE_BYTES) int64_t prompt_tokens;
	int64_t output_tokens;       /* target, after max_model_len truncation */
	int64_t generated;           /* outputs sampled so far (survive preemption) */
	int64_t computed_tokens;     /* num_computed_tokens: KV written */
	int64_t kv_blocks;           /* blocks held */
	int64_t sched_tokens;        /* tokens scheduled in the step being planned/run */
	fs_ns last_token_ns;         /* time of the latest sampled token, -1 none */
	uint32_t slot;               /* the world's request slot */
	int priority;                /* lower first (priority policy) */

	uint64_t arrival_seq;        /* priority tie-break */
	int64_t wait_key1, wait_key2;/* waiting-heap key (see llm_sched.c) */
	int64_t preemptions;
	bool admitted_once;          /* scheduled at least once (queue delay ends) */
	struct fs_block_hashes hashes;  /* content hashes of its blocks (V22) */
	int64_t cached_blocks;       /* leading kv_blocks that are prefix-cache
	                              * entries (the rest are private) */
	bool cache_stop;             /* a block it computed was already cached:
	                              * it caches no further blocks */
	uint32_t next_free;          /* pool free list */
};

/* A run of decode iterations of an unchanged batch (llm_run.c).  While it
 * is open the per-request fields computed_tokens, generated, kv_blocks and
 * last_token_ns of its members, running[0..n), are those of step 0 (the
 * real first step, or the step where a request joined, shifted back by its
 * index) and advance by the step counter `j`: they are written back by
 * fs__llm_run_close.  In a mixed step (fs_llm_engine_run_admit) the
 * members decode while the requests just admitted, running[n..], prefill
 * with fields of their own; at its end they join the run where they can
 * (fs_llm_engine_run_join). */
struct llm_run {
	bool open;
	bool mixed;                  /* the step in flight admitted running[n..] */
	int64_t n;                   /* requests in the batch (members) */
	int64_t j;                   /* index of the step in flight */
	int64_t planned;             /* steps handed out (step 0 included) */
	int64_t last;                /* the last step allowed: its end completes a request */
	int64_t ctx_tokens;          /* Σ computed tokens after step 0's phase C */
	int64_t plan_used;           /* KV blocks in use once every planned step began */
	int64_t blocks_alloc;        /* blocks the run's virtual begins allocated */
	int64_t *cnt;                /* [block_tokens]: requests that need a block at
	                              * step i >= 1 when (i - 1) % block_tokens == k */
	int64_t res_plan, res_adv;   /* (i - 1) % block_tokens of the next step
	                              * to plan / to begin */
	int64_t *pre;                /* [block_tokens + 1]: pre[x] = Σ cnt[y < x] */
	bool pre_ok;                 /* pre is of the counts as they are */
	int64_t *last_of;            /* [max_num_seqs]: beside running[], the step
	                              * that samples each request's last token */
};

struct fs_llm_engine {
	struct fs_llm_engine_cfg cfg;    /* as given, budget after the V4 rule */
	fs_step_cost_fn cost;
	void *cost_ctx;
	struct fs_kvcache kv;

	struct llm_seq *seqs;            /* pool */
	size_t n_seqs, cap_seqs;
	uint32_t free_head;

	uint32_t *running;               /* admission order; capacity max_num_seqs */
	size_t n_running;
	uint32_t *waiting;               /* binary min-heap on (key1, key2, slot) */
	size_t n_waiting, cap_waiting;
	int64_t front_pos, back_pos;     /* FCFS deque positions as heap keys */

	bool in_step;
	fs_ns step_begin_ns, step_dur_ns, last_end_ns;
	struct fs_step_shape shape;      /* of the step in flight */

	/* Report arrays, reused from step to step. */
	uint32_t *rep_first;             /* capacity max_num_seqs */
	struct fs_llm_done *rep_done;    /* capacity max_num_seqs */
	struct fs_llm_gap *rep_gaps;     /* capacity max_num_seqs */
	uint32_t *rep_preempted;
	size_t n_preempted, cap_preempted;
	uint32_t *rep_started;           /* slots scheduled for the first time */
	size_t n_started, cap_started;
	uint32_t *spare_started;         /* the other list of fs_llm_engine_run_join_admit,
	                                  * whose report keeps the one it ended with */
	size_t cap_spare_started;
	struct fs_llm_evacuee *rep_evacuees;
	size_t cap_evacuees;
	struct fs_llm_rejected *rep_rejected;
	size_t n_rejected, cap_rejected;
	uint32_t *batch_scratch;         /* static batching: the line's head */
	size_t cap_batch_scratch;

	struct fs_llm_engine_stats stats;
	struct fs_llm_prefix_counts step_prefix;  /* of the step being planned */
	struct llm_run run;              /* fast path (llm_run.c) */
};

_Noreturn void fs__llm_fail(const char *what, const char *file, int line);

/* Pool. */
void fs__llm_seq_release(struct fs_llm_engine *e, uint32_t idx);

/* Waiting line: push to the back or the front (FCFS), or by key (priority). */
void fs__llm_wait_push(struct fs_llm_engine *e, uint32_t idx, bool front);
uint32_t fs__llm_wait_pop(struct fs_llm_engine *e);

/* Note that request idx was scheduled for the first time in this plan. */
void fs__llm_note_started(struct fs_llm_engine *e, uint32_t idx);

/* Record a request dropped after acceptance (livelock guard) and free it. */
void fs__llm_reject(struct fs_llm_engine *e, uint32_t idx,
                    enum fs_llm_reject reason);

/* Prefix cache (llm_prefix.c, MODEL: V22). */
/* Longest cached prefix of waiting request s in blocks (capped so one token
 * is computed); *revive = how many of them are unreferenced now. */
int64_t fs__llm_prefix_lookup(const struct fs_llm_engine *e, const struct llm_seq *s,
                              int64_t *revive);
/* Reference the first `hit` blocks found by the lookup and count the
 * admission; s->computed_tokens and kv_blocks are set by the caller. */
void fs__llm_prefix_take(struct fs_llm_engine *e, struct llm_seq *s, int64_t hit);
/* Cache the full blocks among s's first `tokens` tokens: called when a
 * step schedules s, with its computed tokens plus those scheduled, as vLLM
 * caches them in allocate_slots, before the forward pass (MODEL: V22). */
void fs__llm_prefix_commit(struct fs_llm_engine *e, struct llm_seq *s, int64_t tokens);
/* Give back every block s holds (private ones free, entries to the LRU
 * list tail-first); s->kv_blocks and cached_blocks become 0. */
void fs__llm_seq_free_blocks(struct fs_llm_engine *e, struct llm_seq *s);

/* A new step's lists of preempted, rejected and started requests, and its
 * prefix-cache counts, emptied before it is planned. */
static inline void fs__llm_step_reset(struct fs_llm_engine *e)
{
	e->n_preempted = 0;
	e->n_rejected = 0;
	e->n_started = 0;
	memset(&e->step_prefix, 0, sizeof e->step_prefix);
}

/* Phase B, continuous batching (llm_sched.c): admit from the head of
 * waiting while *budget_tokens, max_num_seqs and the KV gate allow. */
void fs__llm_phase_admit(struct fs_llm_engine *e, int64_t *budget_tokens);
/* The end of a plan that scheduled something, the step beginning at
 * e->step_begin_ns: phase C for running[from..] added to e->shape (which
 * holds running[..from)'s already), the step priced through the cost
 * callback and counted in the statistics.  Returns its time. */
fs_ns fs__llm_begin_priced(struct fs_llm_engine *e, size_t from);

/* The end of the step in flight after its tokens were sampled into `r`:
 * the engine's totals, and the rest of the report (its arrays, levels). */
void fs__llm_end_report(struct fs_llm_engine *e, fs_ns now_ns, struct fs_llm_report *r);

/* Fast path: write a run's progress back into its requests and close it
 * (no-op when none is open).  Called before anything reads them. */
void fs__llm_run_close(struct fs_llm_engine *e);

static inline int64_t fs__llm_num_tokens(const struct llm_seq *s)
{
	return s->prompt_tokens + s->generated;
}

/* Phases D–E for one scheduled request: sample a token if its prefill (or
 * re-prefill) is complete.  Returns true when it finished and was freed. */
static inline bool fs__llm_sample_token(struct fs_llm_engine *e, uint32_t idx,
                                        fs_ns now_ns, struct fs_llm_report *r)
{
	struct llm_seq *s = &e->seqs[idx];

	s->sched_tokens = 0;
	if (s->computed_tokens < fs__llm_num_tokens(s))
		return false;              /* partial prefill: no token (MODEL: V9) */
	LLM_CHECK(s->computed_tokens == fs__llm_num_tokens(s),
	          "computed more tokens than the request has");
	s->generated++;
	r->tokens_generated++;
	if (s->generated == 1) {
		e->rep_first[r->n_first_token++] = s->slot;    /* MODEL: V9 */
	} else if (s->last_token_ns == e->step_begin_ns) {
		r->itl_regular_seqs++;                         /* MODEL: V16 */
	} else {
		e->rep_gaps[r->n_itl_gaps].slot = s->slot;
		e->rep_gaps[r->n_itl_gaps].gap_ns = now_ns - s->last_token_ns;
		r->n_itl_gaps++;
	}
	s->last_token_ns = now_ns;
	if (s->generated < s->output_tokens)
		return false;
	e->rep_done[r->n_done].slot = s->slot;                 /* MODEL: V9 */
	e->rep_done[r->n_done].output_tokens = s->generated;
	r->n_done++;
	fs__llm_seq_free_blocks(e, s);
	e->stats.completed++;
	fs__llm_seq_release(e, idx);
	return true;
}

#endif
