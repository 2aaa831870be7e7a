/*
 * llm_sched.c — planning one step of the LLM replica: vllm_semantics §0
 * phases A (running requests, preemption by recompute), B (admission from
 * waiting) and C (advance computed tokens, price the step); the waiting line
 * itself is in llm_waiting.c.  Invariants: blocks in use == private blocks
 * of running requests + prefix-cache entries they reference (a shared block
 * counts once, MODEL: V22); a waiting request holds no blocks and has
 * computed nothing.
 *
 * Cost: O(running) per step, plus O(log waiting) per admission or
 * preemption.  Steps that only decode an unchanged batch can instead be
 * advanced by the step counter, O(1) each (llm_run.c, MODEL: V24).
 */
#include "fleetsim/llm_engine.h"

#include <assert.h>
#include <string.h>

#include "llm_engine_internal.h"

/* ---- phases A and B ---------------------------------------------------- */

/* Tokens request `s` gets this step with `budget_tokens` left: the rest of
 * its tokens, capped by the long-prefill threshold and the budget; 0 when
 * chunked prefill is off and the rest does not fit (MODEL: V2, V3, V4). */
static int64_t tokens_wanted(const struct fs_llm_engine *e,
                             const struct llm_seq *s, int64_t budget_tokens)
{
	int64_t n = fs__llm_num_tokens(s) - s->computed_tokens;
	int64_t thr = e->cfg.long_prefill_token_threshold;

	if (thr > 0 && n > thr)
		n = thr;
	if (!e->cfg.enable_chunked_prefill && n > budget_tokens)
		return 0;
	return n < budget_tokens ? n : budget_tokens;
}

/* Index in `running` of the preemption victim: the tail under FCFS; under
 * priority the largest (priority, arrival_seq), latest admitted on a tie
 * (MODEL: V8, V13). */
static size_t pick_victim(const struct fs_llm_engine *e)
{
	size_t i, v = e->n_running - 1;

	if (e->cfg.policy != FS_LLM_POLICY_PRIORITY)
		return v;
	for (i = 0; i < e->n_running; i++) {
		const struct llm_seq *a = &e->seqs[e->running[i]];
		const struct llm_seq *b = &e->seqs[e->running[v]];

		if (a->priority > b->priority ||
		    (a->priority == b->priority && a->arrival_seq > b->arrival_seq))
			v = i;
	}
	return v;
}

/* Preempt running[v] by recompute: free its blocks, forget its computed
 * tokens (its outputs stay and are re-prefilled with the prompt), return
 * its scheduled tokens to the budget and put it at the front of waiting —
 * or drop it when it has been preempted too often (MODEL: V8, V11). */
static void preempt(struct fs_llm_engine *e, size_t v, int64_t *budget_tokens)
{
	uint32_t idx = e->running[v];
	struct llm_seq *s = &e->seqs[idx];
	int64_t max_pre = e->cfg.max_preemptions_per_request;

	*budget_tokens += s->sched_tokens;
	s->sched_tokens = 0;
	fs__llm_seq_free_blocks(e, s);         /* its cached prefix stays (V22) */
	s->computed_tokens = 0;
	memmove(&e->running[v], &e->running[v + 1],
	        (e->n_running - v - 1) * sizeof *e->running);
	e->n_running--;
	s->preemptions++;
	e->stats.preemptions++;
	fs_xgrow((void **)&e->rep_preempted, &e->cap_preempted, e->n_preempted + 1,
	         sizeof *e->rep_preempted);
	e->rep_preempted[e->n_preempted++] = s->slot;
	if (max_pre > 0 && s->preemptions > max_pre)
		fs__llm_reject(e, idx, FS_LLM_REJECT_PREEMPTED_TOO_OFTEN);
	else
		fs__llm_wait_push(e, idx, true);
}

/* Phase A: running requests in order; a failed allocation preempts until it
 * succeeds or the request preempted itself, which ends the phase (V8). */
static void phase_running(struct fs_llm_engine *e, int64_t *budget_tokens,
                          bool *preempted)
{
	size_t i = 0;

	while (i < e->n_running) {
		uint32_t idx = e->running[i];
		struct llm_seq *s = &e->seqs[idx];
		int64_t n = tokens_wanted(e, s, *budget_tokens);
		int64_t need;

		if (n == 0) {              /* skipped, not a stop (§1.1) */
			i++;
			continue;
		}
		/* MODEL: V6 — blocks for the KV written in this step only. */
		need = fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens + n) -
		       s->kv_blocks;
		if (need < 0)
			need = 0;          /* static batching reserved ahead */
		while (need > 0 && !fs_kvcache_allocate(&e->kv, need)) {
			size_t v = pick_victim(e);

			preempt(e, v, budget_tokens);
			*preempted = true;
			if (v == i)
				return;
			if (v < i)
				i--;
		}
		s->kv_blocks += need;
		s->sched_tokens = n;
		*budget_tokens -= n;
		if (s->hashes.n_units > 0)                     /* MODEL: V22 */
			fs__llm_prefix_commit(e, s, s->computed_tokens + n);
		i++;
	}
}

/* Phase B, continuous batching: admit from the head of waiting while the
 * budget, max_num_seqs and the KV gate allow; stop at the first that does
 * not fit — waiting requests never preempt (MODEL: V5, V7). */
void fs__llm_phase_admit(struct fs_llm_engine *e, int64_t *budget_tokens)
{
	const struct fs_llm_engine_cfg *c = &e->cfg;

	while (e->n_waiting > 0 && *budget_tokens > 0 &&
	       (int64_t)e->n_running < c->max_num_seqs) {
		uint32_t idx = e->waiting[0];
		struct llm_seq *s = &e->seqs[idx];
		int64_t n, need, gate, hit, revive;
		bool fits;

		assert(s->computed_tokens == 0 && s->kv_blocks == 0);
		/* MODEL: V22 — cached tokens need neither budget nor new blocks;
		 * reviving an unreferenced cached block takes it off the free list. */
		hit = fs__llm_prefix_lookup(e, s, &revive);
		s->computed_tokens = hit * e->kv.block_tokens;
		n = tokens_wanted(e, s, *budget_tokens);
		if (n == 0) {
			s->computed_tokens = 0;
			break;             /* chunked prefill off: whole rest must fit */
		}
		need = fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens + n) - hit;
		gate = c->reserve_full_input ?                  /* MODEL: V7 */
		       fs_kvcache_blocks_for_tokens(&e->kv, fs__llm_num_tokens(s)) - hit : need;
		fits = e->n_running > 0 ?
		       fs_kvcache_can_allocate_watermark(&e->kv, gate + revive) :
		       fs_kvcache_can_allocate(&e->kv, gate + revive);
		if (!fits) {
			s->computed_tokens = 0;
			break;
		}
		if (c->prefix_caching)
			fs__llm_prefix_take(e, s, hit);
		LLM_CHECK(fs_kvcache_allocate(&e->kv, need), "admission gate let in a misfit");
		fs__llm_wait_pop(e);
		e->running[e->n_running++] = idx;
		fs__llm_note_started(e, idx);
		s->kv_blocks = hit + need;
		s->sched_tokens = n;
		*budget_tokens -= n;
		if (s->hashes.n_units > 0)                     /* MODEL: V22 */
			fs__llm_prefix_commit(e, s, s->computed_tokens + n);
	}
}

/* KV blocks the batch running[0..n) plus candidate `cand` holds at its
 * peak, with KV growing one token per decode step and each member freeing
 * its blocks when it finishes: at age t (tokens sampled) a member with
 * prompt P and L outputs holds ceil((P + t)/B) blocks while t <= L - 1.  The
 * sum is largest just before some member leaves, so it is evaluated at each
 * member's last age.  O(n^2).  MODEL: V14 */
static int64_t batch_peak_blocks(const struct fs_llm_engine *e, const uint32_t *members,
                                 size_t n)
{
	int64_t peak = 0;

	for (size_t j = 0; j < n; j++) {
		int64_t t = e->seqs[members[j]].output_tokens - 1, sum = 0;

		for (size_t i = 0; i < n; i++) {
			const struct llm_seq *s = &e->seqs[members[i]];

			if (s->output_tokens - 1 >= t)
				sum += fs_kvcache_blocks_for_tokens(&e->kv, s->prompt_tokens + t);
		}
		if (sum > peak)
			peak = sum;
	}
	return peak;
}

/* Whether the first n requests of the waiting line (in line order, taken
 * from a copy of the heap so nothing moves) fit as one static batch. */
static bool batch_fits(struct fs_llm_engine *e, size_t n)
{
	return batch_peak_blocks(e, e->batch_scratch, n) <= fs_kvcache_total(&e->kv);
}

/* Phase B, static batching: only when nothing runs, form a batch from the
 * head of the line — the longest prefix of at most max_num_seqs requests
 * whose KV, allocated on demand as it grows, fits at every step (found by
 * bisection: a longer prefix never needs less).  Members allocate blocks
 * as they compute, like continuous batching; the token budget limits tokens
 * per step (prefill chunked across the batch), not the batch (MODEL: V14). */
static void phase_admit_static(struct fs_llm_engine *e, int64_t *budget_tokens)
{
	size_t lo = 0, hi, k, n_max;

	if (e->n_running > 0 || e->n_waiting == 0)
		return;
	n_max = e->n_waiting < (size_t)e->cfg.max_num_seqs ? e->n_waiting :
	        (size_t)e->cfg.max_num_seqs;
	fs_xgrow((void **)&e->batch_scratch, &e->cap_batch_scratch, n_max,
	         sizeof *e->batch_scratch);
	/* the line order: pop the head n_max times, then put them back */
	for (k = 0; k < n_max; k++)
		e->batch_scratch[k] = fs__llm_wait_pop(e);
	for (k = n_max; k-- > 0;)
		fs__llm_wait_push(e, e->batch_scratch[k], true);
	hi = n_max;
	while (lo < hi) {                  /* largest n in [lo, hi] that fits */
		size_t mid = lo + (hi - lo + 1) / 2;

		if (batch_fits(e, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	for (k = 0; k < lo; k++) {
		uint32_t idx = fs__llm_wait_pop(e);
		struct llm_seq *s = &e->seqs[idx];
		int64_t n = tokens_wanted(e, s, *budget_tokens), need;

		LLM_CHECK(idx == e->batch_scratch[k], "static batch out of line order");
		need = fs_kvcache_blocks_for_tokens(&e->kv, n);
		LLM_CHECK(fs_kvcache_allocate(&e->kv, need), "static batch misfit");
		e->running[e->n_running++] = idx;
		fs__llm_note_started(e, idx);
		s->kv_blocks = need;
		s->sched_tokens = n;
		*budget_tokens -= n;
	}
}

/* One plan: phases A and B.  Returns the tokens scheduled. */
static int64_t plan(struct fs_llm_engine *e, bool *preempted)
{
	int64_t budget = e->cfg.max_num_batched_tokens;     /* MODEL: V2 */

	*preempted = false;
	if (e->cfg.scheduler == FS_LLM_SCHED_PREFILL_FIRST) {
		/* MODEL: V20 — vLLM V0 default: admit whole prompts first; a step
		 * that prefills anything runs no decodes. */
		fs__llm_phase_admit(e, &budget);
		if (budget == e->cfg.max_num_batched_tokens)
			phase_running(e, &budget, preempted);
		LLM_CHECK(budget >= 0, "token budget overspent");
		return e->cfg.max_num_batched_tokens - budget;
	}
	phase_running(e, &budget, preempted);
	if (!*preempted) {                                   /* MODEL: V8 */
		if (e->cfg.batching == FS_LLM_BATCHING_STATIC)
			phase_admit_static(e, &budget);
		else
			fs__llm_phase_admit(e, &budget);
	}
	LLM_CHECK(budget >= 0, "token budget overspent");
	return e->cfg.max_num_batched_tokens - budget;
}

/* Phase C for running[from..]: advance computed tokens and add them to the
 * batch's description for pricing, sh. */
static void advance(struct fs_llm_engine *e, struct fs_step_shape *sh, size_t from)
{
	size_t i;

	for (i = from; i < e->n_running; i++) {
		struct llm_seq *s = &e->seqs[e->running[i]];
		int64_t n = s->sched_tokens;

		if (n == 0)
			continue;
		sh->n_seqs++;
		if (n == 1 && s->generated >= 1 &&            /* MODEL: V1 */
		    s->computed_tokens == fs__llm_num_tokens(s) - 1) {
			sh->decode_seqs++;
			sh->decode_context_tokens += s->computed_tokens + 1;
		} else {
			sh->prefill_tokens += n;
			sh->prefill_attn_tokens += n * s->computed_tokens + n * n / 2;
		}
		s->computed_tokens += n;
	}
}

fs_ns fs__llm_begin_priced(struct fs_llm_engine *e, size_t from)
{
	fs_ns dur_ns;

	advance(e, &e->shape, from);
	dur_ns = e->cost(e->cost_ctx, &e->shape);          /* MODEL: V1 */
	LLM_CHECK(dur_ns >= 1, "step cost must be at least 1 ns");
	e->in_step = true;
	e->step_dur_ns = dur_ns;
	e->stats.steps++;
	e->stats.sum_batch_seqs += e->shape.n_seqs;
	e->stats.sum_decode_seqs += e->shape.decode_seqs;
	e->stats.sum_prefill_tokens += e->shape.prefill_tokens;
	e->stats.prefix.query_tokens += e->step_prefix.query_tokens;
	e->stats.prefix.hit_tokens += e->step_prefix.hit_tokens;
	e->stats.prefix.query_blocks += e->step_prefix.query_blocks;
	e->stats.prefix.hit_blocks += e->step_prefix.hit_blocks;
	e->stats.prefix.saved_tokens += e->step_prefix.saved_tokens;
	if ((int64_t)e->n_running > e->stats.peak_running)
		e->stats.peak_running = (int64_t)e->n_running;
	if (fs_kvcache_used(&e->kv) > e->stats.peak_kv_used_blocks)
		e->stats.peak_kv_used_blocks = fs_kvcache_used(&e->kv);
	return dur_ns;
}

fs_ns fs_llm_engine_begin_step(struct fs_llm_engine *e, fs_ns now_ns)
{
	int64_t scheduled = 0, rounds;
	bool preempted;

	LLM_CHECK(!e->in_step, "begin_step while a step is in flight");
	LLM_CHECK(now_ns >= e->last_end_ns, "time went backwards");
	fs__llm_step_reset(e);
	/* MODEL: V12 — a plan that scheduled nothing because its work was
	 * preempted is redone at once; each such plan shrinks `running`. */
	for (rounds = 0;; rounds++) {
		LLM_CHECK(rounds <= e->cfg.max_num_seqs + 1, "scheduler livelock");
		scheduled = plan(e, &preempted);
		if (scheduled > 0 || (e->n_running == 0 && e->n_waiting == 0))
			break;
		LLM_CHECK(preempted, "scheduler stalled with work left");
		e->stats.replans++;
	}
	memset(&e->shape, 0, sizeof e->shape);
	e->step_begin_ns = now_ns;
	if (scheduled == 0) {
		if (e->n_preempted == 0 && e->n_rejected == 0)
			return -1;
		e->in_step = true;         /* only drops to report */
		e->step_dur_ns = 0;
		return 0;
	}
	return fs__llm_begin_priced(e, 0);
}
