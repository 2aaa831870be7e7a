/*
 * llm_run.c — the fast path of the LLM replica (MODEL: V24): a run of decode
 * iterations in which the batch does not change is described by aggregates
 * — the batch size, the sum of computed tokens and, per residue modulo the
 * block size, how many requests cross a block boundary — and advanced by a
 * step counter, with no work per request per iteration.  A run is opened
 * after a real step 0 that was a pure decode of every running request; it
 * ends before a step could differ from the reference path (a completion, a
 * KV allocation that would preempt) or where the caller cuts it.  It goes
 * on past completions (fs_llm_engine_run_continue) and through a step that
 * admits from waiting, which the admitted requests join at its end
 * (fs_llm_engine_run_admit, fs_llm_engine_run_join).  Closing it writes the
 * progress back into the requests.  O(running) to open and at a completion,
 * O(admitted) through an admission, O(1) per iteration.
 */
#include "fleetsim/llm_engine.h"

#include <string.h>

#include "llm_engine_internal.h"

/* The residue of r->cnt where a request with c computed tokens at step 0
 * counts: it needs a block at step i when c + i - 1 is a multiple of bt. */
static int64_t block_residue(const struct fs_llm_engine *e, int64_t c)
{
	int64_t bt = e->kv.block_tokens;

	return e->kv.block_shift >= 0 ? (-c) & (bt - 1) : (bt - c % bt) % bt;
}

/* The index of the step whose end samples s's last token (fields of step 0). */
static int64_t last_step(const struct llm_seq *s)
{
	return s->output_tokens - s->generated - 1;
}

/* Whether request s is a steady decoder whose progress the step counter
 * can carry: it fed one token in step 0, its last token came when step 0
 * began (so its gap is the step time), its blocks match its tokens, and no
 * prefix-cache commit can follow from its new tokens (it has no hashes, it
 * stopped caching, or every block its hashes cover is cached already). */
static bool steady(const struct fs_llm_engine *e, const struct llm_seq *s)
{
	return s->sched_tokens == 1 && s->generated >= 1 &&
	       s->computed_tokens == fs__llm_num_tokens(s) &&
	       s->last_token_ns == e->step_begin_ns &&
	       s->kv_blocks == fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens) &&
	       (s->hashes.n_units == 0 || s->cache_stop || !fs_kvcache_prefix_on(&e->kv) ||
	        fs_block_hash_n_blocks(&s->hashes, e->kv.block_tokens, INT64_MAX) <=
	        s->cached_blocks);
}

/* The run's per-residue counts, allocated once and zeroed (and the
 * requests' last steps, allocated with them). */
static void run_zero_counts(struct fs_llm_engine *e)
{
	struct llm_run *r = &e->run;
	size_t bt = (size_t)e->kv.block_tokens;

	if (r->cnt == NULL) {
		r->cnt = fs_xcalloc(bt, sizeof *r->cnt);
		r->last_of = fs_xmalloc((size_t)e->cfg.max_num_seqs * sizeof *r->last_of);
	}
	memset(r->cnt, 0, bt * sizeof *r->cnt);
	r->pre_ok = false;
}

/* Open the run on the step in flight (step 0) over every running request:
 * the first completion at step `last`, context sum `ctx` at step 0. */
static void run_start(struct fs_llm_engine *e, int64_t last, int64_t ctx)
{
	struct llm_run *r = &e->run;

	r->open = true;
	r->mixed = false;
	r->n = (int64_t)e->n_running;
	r->j = 0;
	r->planned = 1;
	r->last = last;
	r->ctx_tokens = ctx;
	r->plan_used = fs_kvcache_used(&e->kv);
	r->blocks_alloc = 0;
	r->res_plan = 0;
	r->res_adv = 0;
}

bool fs_llm_engine_run_open(struct fs_llm_engine *e)
{
	struct llm_run *r = &e->run;
	int64_t last = INT64_MAX, ctx = 0;
	size_t i;

	if (r->open && r->mixed)
		return false;              /* the step in flight prefills */
	LLM_CHECK(!r->open, "run opened twice");
	if (!e->cfg.fast_path || !e->in_step || e->n_running == 0 ||
	    e->n_preempted > 0 || e->n_rejected > 0 || e->n_started > 0 ||
	    e->shape.prefill_tokens != 0 || e->shape.decode_seqs != (int64_t)e->n_running ||
	    e->shape.n_seqs != (int64_t)e->n_running)
		return false;
	for (i = 0; i < e->n_running; i++) {
		const struct llm_seq *s = &e->seqs[e->running[i]];

		if (!steady(e, s))
			return false;
		if (last_step(s) < last)
			last = last_step(s);
		ctx += s->computed_tokens;
	}
	if (last < 1)
		return false;              /* step 0 already completes a request */
	LLM_CHECK(ctx == e->shape.decode_context_tokens, "run context out of step");
	run_zero_counts(e);
	for (i = 0; i < e->n_running; i++) {
		const struct llm_seq *s = &e->seqs[e->running[i]];

		r->cnt[block_residue(e, s->computed_tokens)]++;
		r->last_of[i] = last_step(s);
	}
	run_start(e, last, ctx);
	return true;
}

bool fs_llm_engine_run_plan(struct fs_llm_engine *e, struct fs_step_shape *shape)
{
	struct llm_run *r = &e->run;
	int64_t i = r->planned, need;

	if (!r->open || r->mixed || i > r->last)
		return false;
	need = r->cnt[r->res_plan];            /* residue (i - 1) mod B; MODEL: V6 */
	if (need > fs_kvcache_total(&e->kv) - r->plan_used)
		return false;              /* it would preempt: the reference path */
	if (++r->res_plan == e->kv.block_tokens)
		r->res_plan = 0;
	r->plan_used += need;
	memset(shape, 0, sizeof *shape);
	shape->decode_seqs = r->n;                                     /* MODEL: V1 */
	shape->n_seqs = r->n;
	shape->decode_context_tokens = r->ctx_tokens + r->n * i;
	r->planned++;
	return true;
}

/* The blocks k steps take from residue res on, from the prefix sums pre[]
 * of the counts by residue (bt a power of two 2^shift where shift >= 0):
 * whole periods take one block per request, the rest the counts of the
 * residues res .. res + k mod bt - 1, wrapping past bt - 1. */
static int64_t plan_blocks(const int64_t *pre, int64_t bt, int shift, int64_t res, int64_t k)
{
	int64_t whole = shift >= 0 ? k >> shift : k / bt;
	int64_t rest = shift >= 0 ? k & (bt - 1) : k % bt;
	int64_t part = res + rest <= bt ? pre[res + rest] - pre[res]
	                                : pre[bt] - pre[res] + pre[res + rest - bt];

	return whole * pre[bt] + part;
}

size_t fs_llm_engine_run_plan_n(struct fs_llm_engine *e, size_t max, int64_t *ctx_first)
{
	struct llm_run *r = &e->run;
	int64_t bt = e->kv.block_tokens, free_blocks, m, lo, hi, i;
	int shift = e->kv.block_shift;
	int64_t *pre;

	*ctx_first = r->ctx_tokens + r->n * r->planned;                /* MODEL: V1 */
	if (!r->open || r->mixed || r->planned > r->last)
		return 0;
	m = r->last - r->planned + 1;
	if ((int64_t)max < m)
		m = (int64_t)max;
	/* step planned + t takes the count of residue (res_plan + t) mod bt
	 * (MODEL: V6): the counts' prefix sums, once per change of the counts */
	if (r->pre == NULL)
		r->pre = fs_xcalloc((size_t)bt + 1, sizeof *r->pre);
	pre = r->pre;
	if (!r->pre_ok) {
		for (i = 0; i < bt; i++)
			pre[i + 1] = pre[i] + r->cnt[i];
		r->pre_ok = true;
	}
	/* the most steps, up to m, whose blocks fit without a preemption (the
	 * blocks of the first k steps grow with k): usually all m */
	free_blocks = fs_kvcache_total(&e->kv) - r->plan_used;
	lo = m;
	if (plan_blocks(pre, bt, shift, r->res_plan, m) > free_blocks) {
		lo = 0;
		hi = m - 1;
		while (lo < hi) {
			int64_t mid = lo + (hi - lo + 1) / 2;

			if (plan_blocks(pre, bt, shift, r->res_plan, mid) <= free_blocks)
				lo = mid;
			else
				hi = mid - 1;
		}
	}
	r->plan_used += plan_blocks(pre, bt, shift, r->res_plan, lo);
	r->res_plan = shift >= 0 ? (r->res_plan + lo) & (bt - 1) : (r->res_plan + lo) % bt;
	r->planned += lo;
	return (size_t)lo;
}

int64_t fs_llm_engine_run_planned(const struct fs_llm_engine *e)
{
	return e->run.open ? e->run.planned : 0;
}

void fs_llm_engine_run_cut(struct fs_llm_engine *e)
{
	struct llm_run *r = &e->run;

	if (r->open)
		r->planned = r->j + 1;
}

/* The begin of the run's next step: its index, after taking the blocks for
 * the KV it writes (the requests of its residue; MODEL: V6) and noting the
 * peak.  Blocks in use only grow from one run step's begin to the next. */
static int64_t begin_next_step(struct fs_llm_engine *e)
{
	struct llm_run *r = &e->run;
	int64_t need = r->cnt[r->res_adv];

	if (++r->res_adv == e->kv.block_tokens)
		r->res_adv = 0;
	if (need > 0) {
		LLM_CHECK(fs_kvcache_allocate(&e->kv, need), "run allocation failed");
		r->blocks_alloc += need;
		if (fs_kvcache_used(&e->kv) > e->stats.peak_kv_used_blocks)
			e->stats.peak_kv_used_blocks = fs_kvcache_used(&e->kv);
	}
	return ++r->j;
}

/* The report of the end of the step in flight at now_ns, as
 * fs_llm_engine_end_step begins it, with `regular` requests sampling a
 * regular token by the step counter (MODEL: V9, V16). */
static void run_report(const struct fs_llm_engine *e, fs_ns now_ns, int64_t regular,
                       struct fs_llm_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->begin_ns = e->step_begin_ns;
	rep->end_ns = now_ns;
	rep->shape = e->shape;
	rep->itl_regular_seqs = regular;
	rep->tokens_generated = regular;
}

/* Begin at now_ns a decode step of n requests with ctx context tokens
 * (MODEL: V1), its blocks already taken: priced through the cost callback
 * and counted as fs__llm_begin_priced counts it.  Returns its time. */
static fs_ns begin_decode(struct fs_llm_engine *e, fs_ns now_ns, int64_t n, int64_t ctx)
{
	fs_ns dur_ns;

	memset(&e->shape, 0, sizeof e->shape);
	e->shape.n_seqs = n;
	e->shape.decode_seqs = n;
	e->shape.decode_context_tokens = ctx;
	e->step_begin_ns = now_ns;
	dur_ns = e->cost(e->cost_ctx, &e->shape);
	LLM_CHECK(dur_ns >= 1, "step cost must be at least 1 ns");
	e->in_step = true;
	e->step_dur_ns = dur_ns;
	e->stats.steps++;
	e->stats.sum_batch_seqs += n;
	e->stats.sum_decode_seqs += n;
	if (n > e->stats.peak_running)
		e->stats.peak_running = n;
	if (fs_kvcache_used(&e->kv) > e->stats.peak_kv_used_blocks)
		e->stats.peak_kv_used_blocks = fs_kvcache_used(&e->kv);
	return dur_ns;
}

void fs_llm_engine_run_advance(struct fs_llm_engine *e, fs_ns now_ns, fs_ns next_dur_ns,
                               struct fs_llm_report *rep)
{
	struct llm_run *r = &e->run;
	int64_t i;

	LLM_CHECK(r->open && r->j + 1 < r->planned, "run advanced past its plan");
	LLM_CHECK(now_ns == e->step_begin_ns + e->step_dur_ns, "run step ends off time");
	/* the end of step j: every request samples one token (MODEL: V9, V16);
	 * field by field, this runs per iteration */
	rep->begin_ns = e->step_begin_ns;
	rep->end_ns = now_ns;
	rep->shape = e->shape;
	rep->started = rep->first_token = NULL;
	rep->n_started = rep->n_first_token = 0;
	rep->done = NULL;
	rep->n_done = 0;
	rep->preempted = NULL;
	rep->n_preempted = 0;
	rep->rejected = NULL;
	rep->n_rejected = 0;
	rep->itl_regular_seqs = r->n;
	rep->itl_gaps = NULL;
	rep->n_itl_gaps = 0;
	rep->tokens_generated = r->n;
	rep->kv_used_blocks = fs_kvcache_used(&e->kv);
	rep->waiting = (int64_t)e->n_waiting;
	rep->running = (int64_t)e->n_running;
	memset(&rep->prefix, 0, sizeof rep->prefix);
	e->stats.tokens_generated += r->n;
	e->stats.busy_ns += now_ns - e->step_begin_ns;
	e->last_end_ns = now_ns;
	i = begin_next_step(e);
	e->step_begin_ns = now_ns;
	e->step_dur_ns = next_dur_ns;
	e->shape.decode_context_tokens = r->ctx_tokens + r->n * i;
	e->stats.steps++;
	e->stats.sum_batch_seqs += r->n;
	e->stats.sum_decode_seqs += r->n;
}

void fs_llm_engine_run_advance_n(struct fs_llm_engine *e, size_t k, const fs_ns *dur_ns,
                                 int64_t *kv_used)
{
	struct llm_run *r = &e->run;
	int64_t bt = e->kv.block_tokens, res = r->res_adv, alloc = 0, used;
	fs_ns end_ns = e->step_begin_ns;
	size_t i;

	LLM_CHECK(r->open && k >= 1 && r->j + (int64_t)k < r->planned,
	          "run advanced past its plan");
	LLM_CHECK(dur_ns[0] == e->step_dur_ns, "run step ends off time");
	used = fs_kvcache_used(&e->kv);
	kv_used[0] = used;
	/* the begins of steps j + 1 .. j + k: blocks for the KV each writes
	 * (MODEL: V6); the ends sample one token per request (V9, V16).  The
	 * plan checked that each fits; taken in one allocation, which evicts
	 * the same cached blocks in the same order as one per step would.
	 * The residue wraps by a mask where the block size is a power of two
	 * (no branch per step). */
	if (e->kv.block_shift >= 0) {
		for (i = 1; i <= k; i++) {
			end_ns += dur_ns[i - 1];
			alloc += r->cnt[res];
			res = (res + 1) & (bt - 1);
			kv_used[i] = used + alloc;
		}
	} else {
		for (i = 1; i <= k; i++) {
			end_ns += dur_ns[i - 1];
			alloc += r->cnt[res];
			if (++res == bt)
				res = 0;
			kv_used[i] = used + alloc;
		}
	}
	if (alloc > 0)
		LLM_CHECK(fs_kvcache_allocate(&e->kv, alloc), "run allocation failed");
	r->res_adv = res;
	r->blocks_alloc += alloc;
	/* blocks in use only grow within a run: the last level is the peak */
	if (kv_used[k] > e->stats.peak_kv_used_blocks)
		e->stats.peak_kv_used_blocks = kv_used[k];
	e->stats.tokens_generated += r->n * (int64_t)k;
	e->stats.busy_ns += end_ns - e->step_begin_ns;
	e->stats.steps += k;
	e->stats.sum_batch_seqs += r->n * (int64_t)k;
	e->stats.sum_decode_seqs += r->n * (int64_t)k;
	e->last_end_ns = end_ns;
	r->j += (int64_t)k;
	e->step_begin_ns = end_ns;
	e->step_dur_ns = dur_ns[k];
	e->shape.decode_context_tokens = r->ctx_tokens + r->n * r->j;
}

int64_t fs_llm_engine_run_batch(const struct fs_llm_engine *e)
{
	return e->run.open ? e->run.n : 0;
}

void fs_llm_engine_run_context_span(const struct fs_llm_engine *e, int64_t *first,
                                    int64_t *last)
{
	const struct llm_run *r = &e->run;

	*first = r->open ? r->ctx_tokens + r->n * r->j : 0;
	*last = r->open ? r->ctx_tokens + r->n * r->last : 0;
}

/* Whether the reference's next plan after the run's step j admits from
 * waiting the way begin_admitting does it: the prefix cache off (no
 * commits, no cached blocks to evict), continuous batching with decodes
 * planned first, a budget of at least a token for each of the n requests
 * of the run. */
static bool admits_after_decodes(const struct fs_llm_engine *e, int64_t n)
{
	return e->n_waiting > 0 && !fs_kvcache_prefix_on(&e->kv) &&
	       e->cfg.batching != FS_LLM_BATCHING_STATIC &&
	       e->cfg.scheduler != FS_LLM_SCHED_PREFILL_FIRST &&
	       e->cfg.max_num_batched_tokens >= n;
}

/* The begin at now_ns of the run's step j (phase A by the step counter
 * done: every request of the run one token, the blocks of its residue
 * taken) as fs_llm_engine_begin_step goes on with it: phase B admits from
 * waiting with the budget left into running[n..]; phase C and pricing as
 * usual.  The run stays open through that mixed step.  Returns its time. */
static fs_ns begin_admitting(struct fs_llm_engine *e, fs_ns now_ns, int64_t j)
{
	struct llm_run *r = &e->run;
	int64_t n = r->n, budget;

	r->planned = j + 1;
	r->mixed = true;
	fs__llm_step_reset(e);
	budget = e->cfg.max_num_batched_tokens - n;
	fs__llm_phase_admit(e, &budget);
	memset(&e->shape, 0, sizeof e->shape);
	e->shape.n_seqs = n;                                           /* MODEL: V1 */
	e->shape.decode_seqs = n;
	e->shape.decode_context_tokens = r->ctx_tokens + n * j;
	e->step_begin_ns = now_ns;
	return fs__llm_begin_priced(e, (size_t)n);
}

/* fs_llm_engine_run_continue (admit false) and
 * fs_llm_engine_run_continue_admit (admit true). */
static bool run_continue(struct fs_llm_engine *e, fs_ns now_ns, struct fs_llm_report *rep,
                         fs_ns *next_dur_ns, bool admit)
{
	struct llm_run *r = &e->run;
	int64_t j = r->j, need, freed = 0, last = INT64_MAX, m = 0;
	size_t i, kept, first = 0;

	/* MODEL: V24 — only where the reference's next plan is a decode of
	 * every request left (no prefix-cache entries to keep: a release would
	 * not free them; no static batch) and, with admit, then admissions
	 * (admits_after_decodes); without, nothing waits.  Not through a
	 * mixed step: its admitted requests are not the run's yet */
	if (!r->open || r->mixed || j != r->last || j + 1 != r->planned ||
	    (e->n_waiting > 0) != admit ||
	    fs_kvcache_prefix_on(&e->kv) || e->cfg.batching == FS_LLM_BATCHING_STATIC)
		return false;
	LLM_CHECK(now_ns == e->step_begin_ns + e->step_dur_ns, "run step ends off time");
	need = r->cnt[r->res_adv];         /* blocks step j + 1 takes (MODEL: V6) */
	for (i = 0; i < e->n_running; i++) {
		if (r->last_of[i] == j) {
			const struct llm_seq *s = &e->seqs[e->running[i]];

			if (m++ == 0)
				first = i;
			freed += fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens + j);
			need -= block_residue(e, s->computed_tokens) == r->res_adv;
		} else if (r->last_of[i] < last) {
			last = r->last_of[i];
		}
	}
	if (m == 0 || m == (int64_t)e->n_running ||
	    need > fs_kvcache_total(&e->kv) - fs_kvcache_used(&e->kv) + freed)
		return false;              /* the next plan would preempt */
	if (admit && !admits_after_decodes(e, (int64_t)e->n_running - m))
		return false;

	/* the end of step j, as fs_llm_engine_end_step: every request samples
	 * a regular token (V9, V16), the finished ones leave in running order
	 * (those before the first stay where they are) */
	run_report(e, now_ns, r->n - m, rep);
	for (i = kept = first; i < e->n_running; i++) {
		uint32_t idx = e->running[i];
		struct llm_seq *s;
		int64_t c0, before;

		if (r->last_of[i] != j) {
			r->last_of[kept] = r->last_of[i];
			e->running[kept++] = idx;
			continue;
		}
		s = &e->seqs[idx];
		c0 = s->computed_tokens;
		before = s->kv_blocks;
		s->computed_tokens += j;
		s->generated += j;
		s->kv_blocks = fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens);
		s->last_token_ns = e->step_begin_ns;
		r->blocks_alloc -= s->kv_blocks - before;
		r->ctx_tokens -= c0;
		r->cnt[block_residue(e, c0)]--;
		r->pre_ok = false;
		LLM_CHECK(fs__llm_sample_token(e, idx, now_ns, rep), "run completion missed");
	}
	e->n_running = kept;
	r->n -= m;
	memset(&e->step_prefix, 0, sizeof e->step_prefix);   /* step j's, as planned */
	fs__llm_end_report(e, now_ns, rep);

	/* the begin of step j + 1: fs_llm_engine_begin_step's plan is a decode
	 * of every request left, one allocation for the blocks it writes */
	e->n_preempted = 0;
	e->n_rejected = 0;
	e->n_started = 0;
	j = begin_next_step(e);
	r->res_plan = r->res_adv;
	r->planned = j + 1;
	r->last = last;
	r->plan_used = fs_kvcache_used(&e->kv);
	/* then, with requests waiting, the admissions (begin_admitting) */
	*next_dur_ns = admit ? begin_admitting(e, now_ns, j) :
	               begin_decode(e, now_ns, r->n, r->ctx_tokens + r->n * j);
	return true;
}

bool fs_llm_engine_run_continue(struct fs_llm_engine *e, fs_ns now_ns,
                                struct fs_llm_report *rep, fs_ns *next_dur_ns)
{
	return run_continue(e, now_ns, rep, next_dur_ns, false);
}

bool fs_llm_engine_run_continue_admit(struct fs_llm_engine *e, fs_ns now_ns,
                                      struct fs_llm_report *rep, fs_ns *next_dur_ns)
{
	return run_continue(e, now_ns, rep, next_dur_ns, true);
}

bool fs_llm_engine_run_admit(struct fs_llm_engine *e, fs_ns now_ns,
                             struct fs_llm_report *rep, fs_ns *next_dur_ns)
{
	struct llm_run *r = &e->run;
	int64_t j = r->j, n = r->n;

	/* MODEL: V24 — only where the reference's next plan gives each request
	 * of the run one token without a preemption and then admits from
	 * waiting: no request finishes in step j, and admits_after_decodes */
	if (!r->open || r->mixed || j + 1 != r->planned || j >= r->last ||
	    !admits_after_decodes(e, n))
		return false;
	LLM_CHECK(now_ns == e->step_begin_ns + e->step_dur_ns, "run step ends off time");
	/* blocks step j + 1 takes (MODEL: V6) */
	if (r->cnt[r->res_adv] > fs_kvcache_total(&e->kv) - fs_kvcache_used(&e->kv))
		return false;              /* phase A would preempt */

	/* the end of step j, as fs_llm_engine_end_step: every request samples
	 * a regular token (V9, V16); the levels are the step's, before phase A */
	run_report(e, now_ns, n, rep);
	fs__llm_end_report(e, now_ns, rep);

	/* the begin of step j + 1 (fs_llm_engine_begin_step): phase A gives
	 * the run's requests one token each and the blocks for the KV it
	 * writes, by the step counter; then the admissions */
	*next_dur_ns = begin_admitting(e, now_ns, begin_next_step(e));
	return true;
}

/* Whether request s, admitted in the mixed step ending now, can join the
 * run: its prefill completes in the step, and after the step's token it
 * finishes neither then nor in the next step (fs_llm_engine_begin_run's
 * conditions one token later). */
static bool can_join(const struct llm_seq *s)
{
	return s->sched_tokens > 0 && s->computed_tokens == fs__llm_num_tokens(s) &&
	       s->output_tokens - s->generated >= 3;
}

/* Whether the mixed step in flight can end with its admitted requests
 * joining the run (fs_llm_engine_run_join's conditions but the waiting
 * line's). */
static bool join_ok(const struct fs_llm_engine *e)
{
	const struct llm_run *r = &e->run;
	int64_t need;
	size_t i;

	if (!r->open || !r->mixed || (int64_t)e->n_running == r->n || r->j >= r->last ||
	    e->cfg.max_num_batched_tokens < (int64_t)e->n_running)
		return false;
	need = r->cnt[r->res_adv];         /* the run's blocks for step j + 1 (V6) */
	for (i = (size_t)r->n; i < e->n_running; i++) {
		const struct llm_seq *s = &e->seqs[e->running[i]];

		if (!can_join(s))
			return false;
		need += fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens + 1) - s->kv_blocks;
	}
	return need <= fs_kvcache_total(&e->kv) - fs_kvcache_used(&e->kv);
}

/* The end at now_ns of the mixed step j (join_ok) and phase A of step
 * j + 1 with the admitted requests joined to the run; returns j + 1. */
static int64_t join(struct fs_llm_engine *e, fs_ns now_ns, struct fs_llm_report *rep)
{
	struct llm_run *r = &e->run;
	int64_t j, n = r->n, last = r->last;
	size_t i;

	LLM_CHECK(now_ns == e->step_begin_ns + e->step_dur_ns, "run step ends off time");
	/* the end of step j, as fs_llm_engine_end_step: the run's requests a
	 * regular token each (V9, V16), the admitted ones their first */
	run_report(e, now_ns, n, rep);
	for (i = (size_t)n; i < e->n_running; i++)
		LLM_CHECK(!fs__llm_sample_token(e, e->running[i], now_ns, rep),
		          "a joining request finished");
	fs__llm_end_report(e, now_ns, rep);

	/* the begin of step j + 1, phase A: one token and its blocks for every
	 * request; the admitted requests join the run with their fields
	 * shifted back by its index */
	fs__llm_step_reset(e);
	j = begin_next_step(e);
	for (i = (size_t)n; i < e->n_running; i++) {
		struct llm_seq *s = &e->seqs[e->running[i]];
		int64_t blocks = fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens + 1);

		LLM_CHECK(fs_kvcache_allocate(&e->kv, blocks - s->kv_blocks),
		          "run join allocation failed");
		s->kv_blocks = blocks;
		s->sched_tokens = 1;
		s->computed_tokens += 1 - j;
		s->generated -= j;
		r->cnt[block_residue(e, s->computed_tokens)]++;
		r->last_of[i] = last_step(s);
		if (r->last_of[i] < last)
			last = r->last_of[i];
		r->ctx_tokens += s->computed_tokens;
	}
	r->pre_ok = false;
	r->n = (int64_t)e->n_running;
	r->last = last;
	r->mixed = false;
	r->planned = j + 1;
	r->res_plan = r->res_adv;
	r->plan_used = fs_kvcache_used(&e->kv);
	return j;
}

bool fs_llm_engine_run_join(struct fs_llm_engine *e, fs_ns now_ns,
                            struct fs_llm_report *rep, fs_ns *next_dur_ns)
{
	struct llm_run *r = &e->run;
	int64_t j;

	if (e->n_waiting > 0 || !join_ok(e))
		return false;
	j = join(e, now_ns, rep);
	/* as fs_llm_engine_begin_run: a decode of every request */
	*next_dur_ns = begin_decode(e, now_ns, r->n, r->ctx_tokens + r->n * j);
	return true;
}

bool fs_llm_engine_run_join_admit(struct fs_llm_engine *e, fs_ns now_ns,
                                  struct fs_llm_report *rep, fs_ns *next_dur_ns)
{
	uint32_t *list;
	size_t cap;
	int64_t j;

	/* the run's requests once joined: those running now */
	if (!admits_after_decodes(e, (int64_t)e->n_running) || !join_ok(e))
		return false;
	j = join(e, now_ns, rep);
	/* rep lists the requests the ended step started; the next step's
	 * admissions are listed in the other list */
	list = e->rep_started;
	cap = e->cap_started;
	e->rep_started = e->spare_started;
	e->cap_started = e->cap_spare_started;
	e->spare_started = list;
	e->cap_spare_started = cap;
	*next_dur_ns = begin_admitting(e, now_ns, j);
	return true;
}

/* Blocks request s takes to begin a decode step as fs_llm_engine_begin_step
 * would plan it (phase A: one token, blocks for the KV it writes; MODEL: V6),
 * or -1 when that step would not leave it steady (fs_llm_engine_run_open):
 * its last token must have come at now_ns, its next token be its only one
 * left to compute, and it must not finish in the run's step 0. */
static int64_t decode_need(const struct fs_llm_engine *e, const struct llm_seq *s,
                           fs_ns now_ns)
{
	int64_t need;

	if (s->generated < 1 || s->last_token_ns != now_ns ||
	    s->computed_tokens != fs__llm_num_tokens(s) - 1 ||
	    s->output_tokens - s->generated - 1 < 1)
		return -1;
	need = fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens + 1) - s->kv_blocks;
	return need >= 0 ? need : -1;
}

bool fs_llm_engine_begin_run(struct fs_llm_engine *e, fs_ns now_ns, fs_ns *dur_ns)
{
	struct llm_run *r = &e->run;
	int64_t need = 0, last = INT64_MAX, ctx = 0;
	size_t i;

	/* MODEL: V24 — only where begin_step's plan is a decode of every
	 * running request: nothing waits, the budget holds one token each, no
	 * prefix cache (no commits, no cached blocks to evict), no static batch */
	if (!e->cfg.fast_path || e->in_step || r->open || e->n_running == 0 ||
	    e->n_waiting > 0 || fs_kvcache_prefix_on(&e->kv) ||
	    e->cfg.batching == FS_LLM_BATCHING_STATIC ||
	    e->cfg.max_num_batched_tokens < (int64_t)e->n_running || now_ns < e->last_end_ns)
		return false;
	for (i = 0; i < e->n_running; i++) {
		int64_t k = decode_need(e, &e->seqs[e->running[i]], now_ns);

		if (k < 0)
			return false;
		need += k;
	}
	if (need > fs_kvcache_total(&e->kv) - fs_kvcache_used(&e->kv))
		return false;              /* phase A would preempt */

	/* begin_step: each request one token and its blocks, in one allocation
	 * (nothing cached to evict); phase C advances it; run_open's counts */
	run_zero_counts(e);
	LLM_CHECK(fs_kvcache_allocate(&e->kv, need), "run begin allocation failed");
	for (i = 0; i < e->n_running; i++) {
		struct llm_seq *s = &e->seqs[e->running[i]];

		s->kv_blocks = fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens + 1);
		s->sched_tokens = 1;
		s->computed_tokens++;
		ctx += s->computed_tokens;
		if (last_step(s) < last)
			last = last_step(s);
		r->cnt[block_residue(e, s->computed_tokens)]++;
		r->last_of[i] = last_step(s);
	}
	fs__llm_step_reset(e);
	*dur_ns = begin_decode(e, now_ns, (int64_t)e->n_running, ctx);
	run_start(e, last, ctx);
	return true;
}

void fs__llm_run_close(struct fs_llm_engine *e)
{
	struct llm_run *r = &e->run;
	int64_t added = 0;
	size_t i;

	if (!r->open)
		return;
	r->open = false;
	r->mixed = false;
	if (r->j == 0)
		return;
	for (i = 0; i < (size_t)r->n; i++) {
		struct llm_seq *s = &e->seqs[e->running[i]];
		int64_t before = s->kv_blocks;

		s->computed_tokens += r->j;
		s->generated += r->j;
		s->kv_blocks = fs_kvcache_blocks_for_tokens(&e->kv, s->computed_tokens);
		s->last_token_ns = e->step_begin_ns;
		added += s->kv_blocks - before;
	}
	LLM_CHECK(added == r->blocks_alloc, "run blocks out of step");
}

bool fs_llm_engine_run_is_open(const struct fs_llm_engine *e)
{
	return e->run.open;
}
