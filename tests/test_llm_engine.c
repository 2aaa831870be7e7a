/*
 * test_llm_engine.c — the vLLM-style replica against a synthetic step cost
 * (1 ms + 0.01 ms per scheduled token): admission limits, chunked prefill,
 * first-token and completion timing, preemption (conservation, victims under
 * FCFS and priority), livelock freedom with a tiny KV cache, static batching
 * and determinism.  A small driver plays the world: it adds arrivals, runs
 * steps back to back and checks every report's invariants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fleetsim/llm_engine.h"
#include "util_test.h"

/* ---- synthetic cost and helpers ---------------------------------------- */

static fs_ns synth_cost(void *ctx, const struct fs_step_shape *sh)
{
	(void)ctx;
	return FS_NS_PER_MS + 10 * FS_NS_PER_US * (sh->prefill_tokens + sh->decode_seqs);
}

static struct fs_llm_engine_cfg base_cfg(void)
{
	struct fs_llm_engine_cfg c;

	fs_llm_engine_cfg_default(&c);
	c.kv_blocks = 100000;
	return c;
}

static struct fs_llm_engine *make_engine(const struct fs_llm_engine_cfg *c)
{
	struct fs_error err;
	struct fs_llm_engine *e = fs_llm_engine_alloc(c, synth_cost, NULL, &err);

	if (e == NULL)
		fail_msg("engine alloc: %s: %s", err.path, err.msg);
	return e;
}

/* Run one step at *t_ns, advance *t_ns to its end; false when idle. */
static bool step(struct fs_llm_engine *e, fs_ns *t_ns, struct fs_llm_report *r)
{
	fs_ns d = fs_llm_engine_begin_step(e, *t_ns);

	if (d < 0)
		return false;
	*t_ns += d;
	fs_llm_engine_end_step(e, *t_ns, r);
	return true;
}

static bool has_slot(const uint32_t *a, size_t n, uint32_t slot)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] == slot)
			return true;
	return false;
}

/* ---- a little world ----------------------------------------------------- */

struct req {
	fs_ns arrival_ns;
	int64_t prompt_tokens, output_tokens;
	int priority;
};

struct tally {
	int accepted, first, done, rejected, preempted;
	int64_t out_tokens;              /* from the done record */
	int64_t gaps;                    /* irregular ITL samples */
	fs_ns first_ns, done_ns;
};

struct outcome {
	struct tally *t;
	int64_t steps, preemptions, tokens_generated, max_running;
	uint64_t hash;
	fs_ns end_ns;
};

static void mix(uint64_t *h, int64_t v)
{
	*h = (*h ^ (uint64_t)v) * 0x100000001b3u;
}

static void check_report(const struct fs_llm_engine_cfg *c,
                         const struct fs_llm_engine *e,
                         const struct fs_llm_report *r, struct outcome *o)
{
	size_t i;

	assert_true(r->running <= c->max_num_seqs);
	assert_true(r->shape.n_seqs <= c->max_num_seqs);
	assert_true(r->shape.prefill_tokens + r->shape.decode_seqs <=
	            fs_llm_engine_token_budget(e));
	assert_true(r->kv_used_blocks <= fs_llm_engine_kv_total(e));
	assert_int_equal(r->tokens_generated,
	                 (int64_t)r->n_first_token + r->itl_regular_seqs +
	                 (int64_t)r->n_itl_gaps);
	for (i = 0; i < r->n_itl_gaps; i++)
		assert_true(r->itl_gaps[i].gap_ns > r->end_ns - r->begin_ns);
	if (r->running > o->max_running)
		o->max_running = r->running;
	o->steps++;
	o->tokens_generated += r->tokens_generated;
	o->preemptions += (int64_t)r->n_preempted;
	mix(&o->hash, r->begin_ns);
	mix(&o->hash, r->end_ns);
	mix(&o->hash, r->shape.prefill_tokens);
	mix(&o->hash, r->shape.prefill_attn_tokens);
	mix(&o->hash, r->shape.decode_context_tokens);
	mix(&o->hash, r->kv_used_blocks);
	for (i = 0; i < r->n_first_token; i++) {
		struct tally *t = &o->t[r->first_token[i]];

		t->first++;
		t->first_ns = r->end_ns;
		mix(&o->hash, r->first_token[i]);
	}
	for (i = 0; i < r->n_itl_gaps; i++) {
		o->t[r->itl_gaps[i].slot].gaps++;
		mix(&o->hash, r->itl_gaps[i].gap_ns);
	}
	for (i = 0; i < r->n_done; i++) {
		struct tally *t = &o->t[r->done[i].slot];

		t->done++;
		t->done_ns = r->end_ns;
		t->out_tokens = r->done[i].output_tokens;
		mix(&o->hash, r->done[i].slot);
	}
	for (i = 0; i < r->n_preempted; i++) {
		o->t[r->preempted[i]].preempted++;
		mix(&o->hash, 1000000 + r->preempted[i]);
	}
	for (i = 0; i < r->n_rejected; i++) {
		o->t[r->rejected[i].slot].rejected++;
		mix(&o->hash, 2000000 + r->rejected[i].slot);
	}
}

/* Feed `reqs` (sorted by arrival) to a fresh engine; run until idle. */
static void run_world(const struct fs_llm_engine_cfg *c, const struct req *reqs,
                      size_t n, struct outcome *o)
{
	struct fs_llm_engine *e = make_engine(c);
	struct fs_llm_report r;
	fs_ns t = 0;
	size_t a = 0;

	memset(o, 0, sizeof *o);
	o->t = calloc(n, sizeof *o->t);
	o->hash = 0xcbf29ce484222325u;
	for (;;) {
		while (a < n && reqs[a].arrival_ns <= t) {
			enum fs_llm_reject why = fs_llm_engine_add(e, (uint32_t)a,
			        reqs[a].prompt_tokens, reqs[a].output_tokens,
			        reqs[a].priority, a);

			if (why == FS_LLM_ACCEPTED)
				o->t[a].accepted = 1;
			else
				o->t[a].rejected++;
			a++;
		}
		if (step(e, &t, &r)) {
			check_report(c, e, &r, o);
			assert_true(o->steps < 10000000);   /* no livelock */
			continue;
		}
		if (a == n)
			break;
		t = reqs[a].arrival_ns;
	}
	o->end_ns = t;
	assert_int_equal(fs_llm_engine_kv_used(e), 0);
	assert_int_equal(fs_llm_engine_waiting(e), 0);
	assert_int_equal(fs_llm_engine_running(e), 0);
	assert_int_equal(fs_llm_engine_stats(e)->preemptions, (uint64_t)o->preemptions);
	fs_llm_engine_free(e);
}

/* Every request ends exactly once, completed or rejected; each completed
 * request saw one first token and its outputs; with nobody dropped after
 * acceptance, the tokens generated are exactly the completed outputs. */
static void check_conservation(const struct req *reqs, size_t n,
                               const struct outcome *o, int64_t max_model_len)
{
	int64_t sum_out = 0;
	bool dropped = false;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct tally *t = &o->t[i];

		assert_int_equal(t->done + t->rejected, 1);
		if (t->done) {
			int64_t want = reqs[i].output_tokens;

			if (want > max_model_len - reqs[i].prompt_tokens)
				want = max_model_len - reqs[i].prompt_tokens;
			assert_int_equal(t->first, 1);
			assert_int_equal(t->out_tokens, want);
			assert_true(t->gaps <= want - 1);
			assert_true(t->first_ns <= t->done_ns);
			sum_out += want;
		} else if (t->accepted) {
			dropped = true;
		}
	}
	if (!dropped)
		assert_int_equal(o->tokens_generated, sum_out);
}

static struct req *random_reqs(size_t n, uint64_t seed, int64_t max_prompt,
                               int64_t max_output, fs_ns mean_gap_ns)
{
	struct req *r = calloc(n, sizeof *r);
	fs_ns t = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		t += (fs_ns)(fs_test_xorshift64(&seed) % (uint64_t)(2 * mean_gap_ns + 1));
		r[i].arrival_ns = t;
		r[i].prompt_tokens = 1 + (int64_t)(fs_test_xorshift64(&seed) % (uint64_t)max_prompt);
		r[i].output_tokens = 1 + (int64_t)(fs_test_xorshift64(&seed) % (uint64_t)max_output);
		r[i].priority = (int)(fs_test_xorshift64(&seed) % 4);
	}
	return r;
}

/* ---- tests -------------------------------------------------------------- */

static void test_llm_engine_rejects_bad_config(void **state)
{
	struct fs_llm_engine_cfg c;
	struct fs_error err;

	(void)state;
	fs_llm_engine_cfg_default(&c);
	assert_null(fs_llm_engine_alloc(&c, synth_cost, NULL, &err));   /* kv_blocks 0 */
	assert_string_equal(err.path, "kv_blocks");
	c = base_cfg();
	c.max_num_seqs = 9000;
	assert_null(fs_llm_engine_alloc(&c, synth_cost, NULL, &err));
	assert_string_equal(err.path, "max_num_seqs");
	c = base_cfg();
	assert_null(fs_llm_engine_alloc(&c, NULL, NULL, &err));
	c.long_prefill_token_threshold = -1;
	assert_null(fs_llm_engine_alloc(&c, synth_cost, NULL, NULL));
}

static void test_llm_engine_add_rejects_impossible_requests(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	fs_ns t = 0;

	(void)state;
	c.max_model_len = 1000;
	c.kv_blocks = 50;                          /* 800 tokens */
	e = make_engine(&c);
	assert_int_equal(fs_llm_engine_add(e, 0, 0, 5, 0, 0), FS_LLM_REJECT_BAD_LENGTHS);
	assert_int_equal(fs_llm_engine_add(e, 1, 5, 0, 0, 1), FS_LLM_REJECT_BAD_LENGTHS);
	assert_int_equal(fs_llm_engine_add(e, 2, 1000, 5, 0, 2), FS_LLM_REJECT_PROMPT_TOO_LONG);
	/* 700 + 200 - 1 = 899 tokens of KV > 800 */
	assert_int_equal(fs_llm_engine_add(e, 3, 700, 200, 0, 3), FS_LLM_REJECT_KV_TOO_SMALL);
	/* exactly 800 tokens of KV fits */
	assert_int_equal(fs_llm_engine_add(e, 4, 700, 101, 0, 4), FS_LLM_ACCEPTED);
	assert_string_equal(fs_llm_reject_name(FS_LLM_REJECT_KV_TOO_SMALL), "kv_too_small");
	assert_int_equal(fs_llm_engine_stats(e)->rejected_at_add, 4);
	while (step(e, &t, &r))
		if (r.n_done > 0)
			assert_int_equal(r.done[0].output_tokens, 101);
	assert_int_equal(fs_llm_engine_stats(e)->completed, 1);
	assert_int_equal(fs_llm_engine_stats(e)->peak_kv_used_blocks, 50);
	fs_llm_engine_free(e);
}

static void test_llm_engine_output_truncated_at_max_model_len(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	fs_ns t = 0;
	int64_t got = 0;

	(void)state;
	c.max_model_len = 100;
	e = make_engine(&c);
	assert_int_equal(fs_llm_engine_add(e, 7, 90, 50, 0, 0), FS_LLM_ACCEPTED);
	while (step(e, &t, &r))
		if (r.n_done > 0)
			got = r.done[0].output_tokens;
	assert_int_equal(got, 10);
	fs_llm_engine_free(e);
}

static void test_llm_engine_first_token_in_prefill_step_then_n_minus_1_decodes(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e = make_engine(&c);
	struct fs_llm_report r;
	fs_ns t = 0;
	int k;

	(void)state;
	assert_int_equal(fs_llm_engine_add(e, 3, 100, 5, 0, 0), FS_LLM_ACCEPTED);
	assert_true(step(e, &t, &r));
	assert_int_equal(r.n_first_token, 1);
	assert_int_equal(r.first_token[0], 3);
	assert_int_equal(r.shape.prefill_tokens, 100);
	assert_int_equal(r.shape.prefill_attn_tokens, 100 * 100 / 2);
	assert_int_equal(r.shape.decode_seqs, 0);
	assert_int_equal(r.end_ns, FS_NS_PER_MS + 100 * 10 * FS_NS_PER_US);
	assert_int_equal(r.kv_used_blocks, 7);           /* ceil(100/16) */
	for (k = 1; k <= 4; k++) {
		assert_true(step(e, &t, &r));
		assert_int_equal(r.shape.decode_seqs, 1);
		assert_int_equal(r.shape.prefill_tokens, 0);
		/* the step feeds output k, at position 100 + k - 1 */
		assert_int_equal(r.shape.decode_context_tokens, 100 + k);
		assert_int_equal(r.itl_regular_seqs, 1);
		assert_int_equal(r.n_done, k == 4 ? 1 : 0);
	}
	assert_int_equal(r.done[0].slot, 3);
	assert_int_equal(r.done[0].output_tokens, 5);
	assert_int_equal(r.kv_used_blocks, 0);           /* freed on completion */
	assert_false(step(e, &t, &r));
	assert_int_equal(fs_llm_engine_stats(e)->steps, 5);

	/* one output token: first token and completion in the same step */
	assert_int_equal(fs_llm_engine_add(e, 4, 10, 1, 0, 1), FS_LLM_ACCEPTED);
	assert_true(step(e, &t, &r));
	assert_int_equal(r.n_first_token, 1);
	assert_int_equal(r.n_done, 1);
	assert_false(step(e, &t, &r));
	fs_llm_engine_free(e);
}

static void test_llm_engine_chunked_prefill_splits_by_budget(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	static const int64_t chunks[] = { 2048, 2048, 2048, 2048, 1808 };
	int64_t done_before = 0;
	fs_ns t = 0;
	int k;

	(void)state;
	c.max_num_batched_tokens = 2048;
	e = make_engine(&c);
	assert_int_equal(fs_llm_engine_add(e, 0, 10000, 3, 0, 0), FS_LLM_ACCEPTED);
	for (k = 0; k < 5; k++) {
		assert_true(step(e, &t, &r));
		assert_int_equal(r.shape.prefill_tokens, chunks[k]);
		assert_int_equal(r.shape.prefill_attn_tokens,
		                 chunks[k] * done_before + chunks[k] * chunks[k] / 2);
		assert_int_equal(r.n_first_token, k == 4 ? 1 : 0);   /* no token mid-prefill */
		assert_int_equal(r.tokens_generated, k == 4 ? 1 : 0);
		done_before += chunks[k];
	}
	fs_llm_engine_free(e);

	/* With a decoding request running, it goes first and the chunk gets
	 * the rest of the budget; a third request waits for leftover budget. */
	e = make_engine(&c);
	t = 0;
	assert_int_equal(fs_llm_engine_add(e, 1, 10, 100, 0, 0), FS_LLM_ACCEPTED);
	assert_true(step(e, &t, &r));
	assert_int_equal(fs_llm_engine_add(e, 2, 10000, 2, 0, 1), FS_LLM_ACCEPTED);
	assert_int_equal(fs_llm_engine_add(e, 3, 50, 2, 0, 2), FS_LLM_ACCEPTED);
	assert_true(step(e, &t, &r));
	assert_int_equal(r.shape.decode_seqs, 1);
	assert_int_equal(r.shape.prefill_tokens, 2047);
	assert_int_equal(fs_llm_engine_running(e), 2);
	assert_int_equal(fs_llm_engine_waiting(e), 1);
	for (k = 0; k < 3; k++) {           /* 10000 = 4 * 2047 + 1812 */
		assert_true(step(e, &t, &r));
		assert_int_equal(r.shape.prefill_tokens, 2047);
		assert_int_equal(r.n_first_token, 0);
		assert_int_equal(fs_llm_engine_waiting(e), 1);   /* one partial prefill */
	}
	/* the last chunk leaves budget over: slot 3 is admitted in the same step */
	assert_true(step(e, &t, &r));
	assert_int_equal(r.shape.decode_seqs, 1);
	assert_int_equal(r.shape.prefill_tokens, 1812 + 50);
	assert_int_equal(r.n_first_token, 2);
	assert_true(has_slot(r.first_token, r.n_first_token, 2));
	assert_true(has_slot(r.first_token, r.n_first_token, 3));
	fs_llm_engine_free(e);
}

static void test_llm_engine_no_chunking_admits_whole_prompts(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	fs_ns t = 0;

	(void)state;
	c.enable_chunked_prefill = false;
	c.max_num_batched_tokens = 2048;
	c.max_model_len = 16384;
	e = make_engine(&c);
	/* vLLM raises the budget to max_model_len without chunking */
	assert_int_equal(fs_llm_engine_token_budget(e), 16384);
	assert_int_equal(fs_llm_engine_add(e, 0, 10000, 2, 0, 0), FS_LLM_ACCEPTED);
	assert_true(step(e, &t, &r));
	assert_int_equal(r.shape.prefill_tokens, 10000);
	assert_int_equal(r.n_first_token, 1);
	fs_llm_engine_free(e);

	/* A prompt larger than the leftover budget waits (phase B stops). */
	c.max_num_batched_tokens = 4096;
	c.max_model_len = 4096;
	e = make_engine(&c);
	t = 0;
	assert_int_equal(fs_llm_engine_add(e, 0, 3000, 3, 0, 0), FS_LLM_ACCEPTED);
	assert_int_equal(fs_llm_engine_add(e, 1, 3000, 3, 0, 1), FS_LLM_ACCEPTED);
	assert_int_equal(fs_llm_engine_add(e, 2, 10, 3, 0, 2), FS_LLM_ACCEPTED);
	assert_true(step(e, &t, &r));
	assert_int_equal(r.shape.prefill_tokens, 3000);   /* slot 2 is behind slot 1 */
	assert_int_equal(fs_llm_engine_waiting(e), 2);
	assert_true(step(e, &t, &r));
	assert_int_equal(r.shape.decode_seqs, 1);
	assert_int_equal(r.shape.prefill_tokens, 3010);
	fs_llm_engine_free(e);
}

static void test_llm_engine_long_prefill_threshold_caps_chunks(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	fs_ns t = 0;

	(void)state;
	c.max_num_batched_tokens = 2048;
	c.long_prefill_token_threshold = 512;
	e = make_engine(&c);
	assert_int_equal(fs_llm_engine_add(e, 0, 5000, 2, 0, 0), FS_LLM_ACCEPTED);
	assert_int_equal(fs_llm_engine_add(e, 1, 5000, 2, 0, 1), FS_LLM_ACCEPTED);
	assert_int_equal(fs_llm_engine_add(e, 2, 5000, 2, 0, 2), FS_LLM_ACCEPTED);
	assert_true(step(e, &t, &r));
	/* three concurrent partial prefills of 512 each */
	assert_int_equal(r.shape.prefill_tokens, 1536);
	assert_int_equal(r.shape.n_seqs, 3);
	fs_llm_engine_free(e);
}

static void test_llm_engine_respects_admission_limits(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct req *reqs = random_reqs(400, 11, 300, 120, 200 * FS_NS_PER_US);
	struct outcome o;

	(void)state;
	c.max_num_seqs = 8;
	c.max_num_batched_tokens = 64;
	run_world(&c, reqs, 400, &o);       /* check_report asserts the limits */
	assert_int_equal(o.max_running, 8);
	check_conservation(reqs, 400, &o, c.max_model_len);
	free(o.t);
	free(reqs);
}

static void test_llm_engine_preemption_conserves_requests(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct req *reqs = random_reqs(300, 7, 200, 300, 100 * FS_NS_PER_US);
	struct outcome o;
	int policy;

	(void)state;
	for (policy = 0; policy < 2; policy++) {
		c.policy = policy ? FS_LLM_POLICY_PRIORITY : FS_LLM_POLICY_FCFS;
		c.kv_blocks = 40;                  /* 640 tokens */
		c.max_preemptions_per_request = 0; /* progress without the guard */
		run_world(&c, reqs, 300, &o);
		assert_true(o.preemptions > 10);
		check_conservation(reqs, 300, &o, c.max_model_len);
		free(o.t);
	}
	free(reqs);
}

static void test_llm_engine_tiny_kv_cache_ends_without_livelock(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct req *reqs = random_reqs(200, 3, 60, 40, 10 * FS_NS_PER_US);
	struct outcome o;
	size_t i;
	int variant, n_too_small = 0, n_guard = 0;

	(void)state;
	c.kv_blocks = 4;                           /* 64 tokens in all */
	c.max_num_seqs = 16;
	for (variant = 0; variant < 4; variant++) {
		c.policy = variant & 1 ? FS_LLM_POLICY_PRIORITY : FS_LLM_POLICY_FCFS;
		c.max_preemptions_per_request = variant & 2 ? 1 : 0;
		run_world(&c, reqs, 200, &o);
		for (i = 0; i < 200; i++) {
			assert_int_equal(o.t[i].done + o.t[i].rejected, 1);
			if (!o.t[i].accepted)
				n_too_small++;
			else if (o.t[i].rejected)
				n_guard++;
		}
		free(o.t);
	}
	assert_true(n_too_small > 0);      /* some could never fit: refused at add */
	assert_true(n_guard > 0);          /* the guard dropped some when set to 1 */
	free(reqs);
}

/* Running order [L, U]: under FCFS the tail U is the victim; under priority
 * the least urgent L is, even though it is ahead of U. */
static void test_llm_engine_preemption_victim_by_policy(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	int policy;

	(void)state;
	c.kv_blocks = 6;
	c.block_tokens = 16;
	c.max_preemptions_per_request = 0;
	for (policy = 0; policy < 2; policy++) {
		struct fs_llm_engine *e;
		struct fs_llm_report r;
		fs_ns t = 0;
		int pre_l = 0, pre_u = 0;
		int64_t done_order[2], n_done = 0;

		c.policy = policy ? FS_LLM_POLICY_PRIORITY : FS_LLM_POLICY_FCFS;
		e = make_engine(&c);
		assert_int_equal(fs_llm_engine_add(e, 0, 32, 60, 9, 0), FS_LLM_ACCEPTED);  /* L */
		assert_true(step(e, &t, &r));
		assert_int_equal(fs_llm_engine_add(e, 1, 32, 60, 0, 1), FS_LLM_ACCEPTED);  /* U */
		while (step(e, &t, &r)) {
			pre_l += has_slot(r.preempted, r.n_preempted, 0);
			pre_u += has_slot(r.preempted, r.n_preempted, 1);
			if (r.n_done > 0)
				done_order[n_done++] = r.done[0].slot;
		}
		assert_int_equal(n_done, 2);
		if (policy) {
			assert_true(fs_llm_engine_stats(e)->replans > 0);   /* L preempted itself */
			assert_true(pre_l > 0);
			assert_int_equal(pre_u, 0);
			assert_int_equal(done_order[0], 1);
		} else {
			assert_true(pre_u > 0);
			assert_int_equal(pre_l, 0);
			assert_int_equal(done_order[0], 0);
		}
		fs_llm_engine_free(e);
	}
}

/* A preempted request re-prefills its prompt plus the outputs it already
 * had, then continues with its next token (one long inter-token gap). */
static void test_llm_engine_recompute_includes_generated_tokens(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	fs_ns t = 0, preempted_at = -1;
	bool saw_reprefill = false;

	(void)state;
	c.kv_blocks = 5;
	c.max_preemptions_per_request = 0;
	e = make_engine(&c);
	assert_int_equal(fs_llm_engine_add(e, 0, 32, 40, 0, 0), FS_LLM_ACCEPTED);
	assert_int_equal(fs_llm_engine_add(e, 1, 32, 40, 0, 1), FS_LLM_ACCEPTED);
	assert_true(step(e, &t, &r));
	assert_int_equal(r.n_first_token, 2);
	assert_int_equal(r.kv_used_blocks, 4);
	assert_true(step(e, &t, &r));               /* slot 0 grows, tail slot 1 yields */
	assert_int_equal(r.n_preempted, 1);
	assert_int_equal(r.preempted[0], 1);
	assert_int_equal(r.shape.n_seqs, 1);
	assert_int_equal(fs_llm_engine_waiting(e), 1);
	preempted_at = r.begin_ns;
	while (step(e, &t, &r)) {
		assert_int_equal(r.n_preempted, 0);
		if (r.shape.prefill_tokens > 0) {
			assert_false(saw_reprefill);
			saw_reprefill = true;
			assert_int_equal(r.shape.prefill_tokens, 33);   /* 32 + 1 output */
			assert_int_equal(r.n_first_token, 0);           /* TTFT unchanged */
			assert_int_equal(r.n_itl_gaps, 1);
			assert_int_equal(r.itl_gaps[0].slot, 1);
			assert_int_equal(r.itl_gaps[0].gap_ns, r.end_ns - preempted_at);
		}
	}
	assert_true(saw_reprefill);
	assert_int_equal(fs_llm_engine_stats(e)->completed, 2);
	assert_int_equal(fs_llm_engine_stats(e)->preemptions, 1);
	fs_llm_engine_free(e);
}

static void test_llm_engine_priority_admits_urgent_first(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	static const int prio[] = { 5, 1, 3, 1 };
	static const uint32_t want_fcfs[] = { 0, 1, 2, 3 };
	static const uint32_t want_prio[] = { 1, 3, 2, 0 };
	uint32_t order[4];
	int policy, n, i;

	(void)state;
	c.max_num_seqs = 1;
	for (policy = 0; policy < 2; policy++) {
		fs_ns t = 0;

		c.policy = policy ? FS_LLM_POLICY_PRIORITY : FS_LLM_POLICY_FCFS;
		e = make_engine(&c);
		for (i = 0; i < 4; i++)
			assert_int_equal(fs_llm_engine_add(e, (uint32_t)i, 20, 3, prio[i],
			                                   (uint64_t)i), FS_LLM_ACCEPTED);
		n = 0;
		while (step(e, &t, &r)) {
			assert_true(r.running <= 1);
			if (r.n_first_token > 0)
				order[n++] = r.first_token[0];
		}
		assert_int_equal(n, 4);
		for (i = 0; i < 4; i++)
			assert_int_equal(order[i], policy ? want_prio[i] : want_fcfs[i]);
		fs_llm_engine_free(e);
	}
}

static void test_llm_engine_static_batching_never_admits_mid_batch(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	fs_ns t = 0;
	int64_t prev_running = 0, batches = 0, completed = 0;
	static const int64_t want_batch[] = { 4, 4, 3 };
	bool late_added = false;
	uint32_t i;

	(void)state;
	c.batching = FS_LLM_BATCHING_STATIC;
	c.max_num_seqs = 4;
	c.max_num_batched_tokens = 64;
	e = make_engine(&c);
	for (i = 0; i < 10; i++)
		assert_int_equal(fs_llm_engine_add(e, i, 30 + 10 * i, 2 + 3 * i, 0, i),
		                 FS_LLM_ACCEPTED);
	for (;;) {
		fs_ns d = fs_llm_engine_begin_step(e, t);

		if (d < 0)
			break;
		if (fs_llm_engine_running(e) > prev_running) {
			assert_int_equal(prev_running, 0);    /* only when idle */
			assert_true(batches < 3);
			assert_int_equal(fs_llm_engine_running(e), want_batch[batches]);
			batches++;
		}
		t += d;
		fs_llm_engine_end_step(e, t, &r);
		assert_int_equal(r.n_preempted, 0);
		completed += (int64_t)r.n_done;
		prev_running = r.running;
		if (batches == 1 && completed == 1 && !late_added) {
			late_added = true;                   /* arrival mid-batch waits */
			assert_int_equal(fs_llm_engine_add(e, 10, 20, 2, 0, 10), FS_LLM_ACCEPTED);
		}
	}
	assert_int_equal(completed, 11);
	assert_int_equal(batches, 3);
	assert_int_equal(fs_llm_engine_kv_used(e), 0);
	fs_llm_engine_free(e);
}

static void test_llm_engine_is_deterministic(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct req *reqs = random_reqs(300, 99, 400, 200, 50 * FS_NS_PER_US);
	struct outcome a, b;

	(void)state;
	c.kv_blocks = 60;
	c.policy = FS_LLM_POLICY_PRIORITY;
	run_world(&c, reqs, 300, &a);
	run_world(&c, reqs, 300, &b);
	assert_true(a.preemptions > 0);
	assert_int_equal(a.hash, b.hash);
	assert_int_equal(a.steps, b.steps);
	assert_int_equal(a.end_ns, b.end_ns);
	free(a.t);
	free(b.t);
	free(reqs);
}

/* Evacuating (a reclaimed instance) returns every request exactly once with
 * the tokens it already had, frees all KV, abandons the step in flight and
 * leaves an engine that serves again. */
static void test_llm_engine_evacuate_returns_every_request_once(void **state)
{
	struct fs_llm_engine_cfg c = base_cfg();
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	const struct fs_llm_evacuee *ev;
	size_t n = 0, i;
	bool seen[40] = { false };
	fs_ns t_ns = 0;
	uint32_t slot;
	int k;

	(void)state;
	c.max_num_seqs = 16;
	e = make_engine(&c);
	for (slot = 0; slot < 40; slot++)
		assert_int_equal(fs_llm_engine_add(e, slot, 300, 50, 0, slot), FS_LLM_ACCEPTED);
	for (k = 0; k < 30; k++)
		assert_true(step(e, &t_ns, &r));
	assert_true(fs_llm_engine_begin_step(e, t_ns) > 0);   /* a step in flight */
	fs_llm_engine_evacuate(e, &ev, &n);
	assert_int_equal(n + fs_llm_engine_stats(e)->completed, 40);
	for (i = 0; i < n; i++) {
		assert_true(ev[i].slot < 40 && !seen[ev[i].slot]);
		seen[ev[i].slot] = true;
		assert_true(ev[i].generated >= 0 && ev[i].generated < 50);
	}
	assert_true(ev[0].generated >= 1);                  /* running ones first */
	assert_int_equal(fs_llm_engine_kv_used(e), 0);
	assert_false(fs_llm_engine_in_step(e));
	assert_int_equal(fs_llm_engine_waiting(e) + fs_llm_engine_running(e), 0);
	assert_int_equal(fs_llm_engine_add(e, 99, 100, 3, 0, 99), FS_LLM_ACCEPTED);
	while (step(e, &t_ns, &r))
		;
	assert_int_equal(fs_llm_engine_stats(e)->completed + n, 41);
	fs_llm_engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llm_engine_evacuate_returns_every_request_once),
		cmocka_unit_test(test_llm_engine_rejects_bad_config),
		cmocka_unit_test(test_llm_engine_add_rejects_impossible_requests),
		cmocka_unit_test(test_llm_engine_output_truncated_at_max_model_len),
		cmocka_unit_test(test_llm_engine_first_token_in_prefill_step_then_n_minus_1_decodes),
		cmocka_unit_test(test_llm_engine_chunked_prefill_splits_by_budget),
		cmocka_unit_test(test_llm_engine_no_chunking_admits_whole_prompts),
		cmocka_unit_test(test_llm_engine_long_prefill_threshold_caps_chunks),
		cmocka_unit_test(test_llm_engine_respects_admission_limits),
		cmocka_unit_test(test_llm_engine_preemption_conserves_requests),
		cmocka_unit_test(test_llm_engine_tiny_kv_cache_ends_without_livelock),
		cmocka_unit_test(test_llm_engine_preemption_victim_by_policy),
		cmocka_unit_test(test_llm_engine_recompute_includes_generated_tokens),
		cmocka_unit_test(test_llm_engine_priority_admits_urgent_first),
		cmocka_unit_test(test_llm_engine_static_batching_never_admits_mid_batch),
		cmocka_unit_test(test_llm_engine_is_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
