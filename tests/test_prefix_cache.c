/*
 * test_prefix_cache.c — automatic prefix caching (MODEL: V22): a scripted
 * hash sequence on a tiny cache against hand-computed LRU hits and eviction
 * order, blocks shared by running requests counted once, KV conservation
 * (free + used + cached == total and the per-request accounting) after every
 * step of a loaded run with preemptions, block keys, the session and prefix
 * routers, Mooncake hash_ids parsing, a whole replay of the shipped
 * Mooncake slice with caching on and off, and multi-turn sessions: later
 * turns hit their earlier turns' blocks (hand-counted), and the session
 * router keeps a session's turns on one replica.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/block_hash.h"
#include "fleetsim/llm_engine.h"
#include "fleetsim/replicate.h"
#include "fleetsim/router.h"
#include "fleetsim/scenario.h"
#include "fleetsim/workload.h"
#include "fleetsim/trace.h"
#include "util_test.h"

#define MOONCAKE_SLICE "scenarios/traces/mooncake_conversation_1000.jsonl"

/* 1 ms + 0.01 ms per scheduled token. */
static fs_ns synth_cost(void *ctx, const struct fs_step_shape *sh)
{
	(void)ctx;
	return FS_NS_PER_MS + 10 * FS_NS_PER_US * (sh->prefill_tokens + sh->decode_seqs);
}

static struct fs_llm_engine *make_engine(int64_t kv_blocks, int64_t block_tokens)
{
	struct fs_llm_engine_cfg c;
	struct fs_error err;
	struct fs_llm_engine *e;

	fs_llm_engine_cfg_default(&c);
	c.kv_blocks = kv_blocks;
	c.block_tokens = block_tokens;
	e = fs_llm_engine_alloc(&c, synth_cost, NULL, &err);
	if (e == NULL)
		fail_msg("engine alloc: %s: %s", err.path, err.msg);
	return e;
}

/* Run steps until idle, checking KV conservation after each. */
static void run_to_idle(struct fs_llm_engine *e, fs_ns *t_ns)
{
	struct fs_llm_report r;
	fs_ns d;

	while ((d = fs_llm_engine_begin_step(e, *t_ns)) >= 0) {
		assert_int_equal(fs_llm_engine_kv_check(e), 0);
		*t_ns += d;
		fs_llm_engine_end_step(e, *t_ns, &r);
		assert_int_equal(fs_llm_engine_kv_check(e), 0);
	}
}

/* Trace-style hashes: ids, one per `unit` tokens. */
static struct fs_block_hashes ids_of(const uint64_t *ids, uint32_t n, uint32_t unit)
{
	struct fs_block_hashes h = {ids, 42, 0, n, unit};

	return h;
}

/*
 * B = 4 tokens, 5 blocks.  Every request has 9 prompt tokens (2 full
 * blocks, both hittable: the cap is (9 - 1) / 4 = 2) and 1 output token, so
 * it holds 3 blocks and finishes in its prefill step; its 2 full blocks stay
 * cached, freed tail-first (block 1 older than block 0 in the LRU list).
 * Requests run one at a time.  By hand (LRU oldest first, F = free blocks):
 *   [1,2] miss            cache 2,1          F 3
 *   [3,4] miss            cache 2,1,4,3      F 1
 *   [1,2] hit 2           cache 4,3,2,1      F 1
 *   [5,6] miss, evicts 4,3   cache 2,1,6,5   F 1
 *   [3,4] miss, evicts 2,1   cache 6,5,4,3   F 1
 *   [5,6] hit 2           cache 4,3,6,5      F 1
 *   [1,2] miss, evicts 4,3   cache 6,5,2,1   F 1
 * Hits 4 of 14 blocks, 16 of 63 tokens; 6 evictions; prefill 63 - 16.
 */
static void test_prefix_cache_scripted_lru_hits(void **state)
{
	static const uint64_t seq[7][2] = {
		{1, 2}, {3, 4}, {1, 2}, {5, 6}, {3, 4}, {5, 6}, {1, 2}};
	static const int64_t want_hit[7] = {0, 0, 2, 0, 0, 2, 0};
	struct fs_llm_engine *e = make_engine(5, 4);
	const struct fs_llm_engine_stats *st = fs_llm_engine_stats(e);
	struct fs_block_hashes h[7];
	fs_ns t = 0;

	(void)state;
	for (uint32_t i = 0; i < 7; i++) {
		int64_t saved_before = st->prefix.saved_tokens;

		h[i] = ids_of(seq[i], 2, 4);
		/* the prefix router's probe sees what the admission will hit */
		assert_int_equal(fs_llm_engine_prefix_match(e, &h[i], 9), want_hit[i]);
		assert_int_equal(fs_llm_engine_add_hashed(e, i, 9, 1, 0, i, &h[i]),
		                 FS_LLM_ACCEPTED);
		run_to_idle(e, &t);
		assert_int_equal(st->prefix.saved_tokens - saved_before, 4 * want_hit[i]);
		assert_int_equal(fs_llm_engine_kv_used(e), 0);
		assert_int_equal(fs_llm_engine_kv_cached(e), i == 0 ? 2 : 4);
	}
	assert_int_equal(st->completed, 7);
	assert_int_equal(st->prefix.query_blocks, 14);
	assert_int_equal(st->prefix.hit_blocks, 4);
	assert_int_equal(st->prefix.query_tokens, 63);
	assert_int_equal(st->prefix.hit_tokens, 16);
	assert_int_equal(st->sum_prefill_tokens, 63 - 16);
	assert_near((double)st->prefix.hit_blocks / (double)st->prefix.query_blocks,
	            4.0 / 14.0, 1e-12, 0);
	/* the last state: 6,5 survived, 4,3 were evicted */
	assert_int_equal(fs_llm_engine_prefix_match(e, &h[3], 9), 2);
	assert_int_equal(fs_llm_engine_prefix_match(e, &h[1], 9), 0);
	fs_llm_engine_free(e);
}

/* A request's blocks are freed tail-first: evicting one block of [1,2]
 * takes block 2 and leaves block 1, so [1,2] then hits one block. */
static void test_prefix_cache_evicts_the_chain_tail_first(void **state)
{
	static const uint64_t a[2] = {1, 2}, b[3] = {3, 4, 5};
	struct fs_llm_engine *e = make_engine(5, 4);
	struct fs_block_hashes ha = ids_of(a, 2, 4), hb = ids_of(b, 3, 4);
	const struct fs_llm_engine_stats *st = fs_llm_engine_stats(e);
	fs_ns t = 0;

	(void)state;
	fs_llm_engine_add_hashed(e, 0, 9, 1, 0, 0, &ha);
	run_to_idle(e, &t);
	/* 13 tokens: 4 blocks, 3 free -> one eviction */
	fs_llm_engine_add_hashed(e, 1, 13, 1, 0, 1, &hb);
	run_to_idle(e, &t);
	assert_int_equal(fs_llm_engine_prefix_match(e, &ha, 9), 1);
	fs_llm_engine_add_hashed(e, 2, 9, 1, 0, 2, &ha);
	run_to_idle(e, &t);
	assert_int_equal(st->prefix.hit_blocks, 1);
	assert_int_equal(st->prefix.query_blocks, 2 + 3 + 2);
	fs_llm_engine_free(e);
}

/*
 * vLLM keeps one free queue of every free block, cached or not, in the
 * order they were freed, and an allocation pops its head (evicting the
 * cache entry of a cached block).  B = 4 tokens, 6 blocks (A: a block with
 * no content, oldest first):
 *   start                          [A A A A A A]
 *   [1,2], 9 tokens: takes 3 A,    frees A, 2, 1 -> [A A A A 2 1]
 *   no hashes, 16 tokens: 4 A,     frees 4 A     -> [2 1 A A A A]
 *   no hashes, 5 tokens: 2 blocks from the head: evicts 2 and 1
 * so [1,2] no longer hits: freshly freed empty blocks do not jump the queue.
 */
static void test_prefix_cache_evicts_in_free_order_with_empty_blocks(void **state)
{
	static const uint64_t a[2] = {1, 2};
	struct fs_llm_engine *e = make_engine(6, 4);
	struct fs_block_hashes ha = ids_of(a, 2, 4);
	fs_ns t = 0;

	(void)state;
	assert_int_equal(fs_llm_engine_add_hashed(e, 0, 9, 1, 0, 0, &ha), FS_LLM_ACCEPTED);
	run_to_idle(e, &t);
	assert_int_equal(fs_llm_engine_prefix_match(e, &ha, 9), 2);
	assert_int_equal(fs_llm_engine_add(e, 1, 16, 1, 0, 1), FS_LLM_ACCEPTED);
	run_to_idle(e, &t);
	assert_int_equal(fs_llm_engine_prefix_match(e, &ha, 9), 2);   /* not yet */
	assert_int_equal(fs_llm_engine_add(e, 2, 5, 1, 0, 2), FS_LLM_ACCEPTED);
	run_to_idle(e, &t);
	assert_int_equal(fs_llm_engine_kv_cached(e), 0);
	assert_int_equal(fs_llm_engine_prefix_match(e, &ha, 9), 0);
	fs_llm_engine_free(e);
}

/*
 * vLLM caches a request's full blocks when it schedules them
 * (allocate_slots), before the forward pass, so a request admitted later
 * in the same step already hits them.  B = 4, budget 100: two requests of
 * 9 tokens with the same 2-block prefix, queued together.  Step 1 admits
 * the first (9 tokens, blocks 0-1 cached at once), then the second, which
 * hits both blocks and computes 1 token: 10 prefill tokens, not 18.
 */
static void test_prefix_cache_same_step_admission_hits_scheduled_blocks(void **state)
{
	static const uint64_t a[3] = {1, 2, 3};
	struct fs_llm_engine *e = make_engine(100, 4);
	struct fs_block_hashes ha = ids_of(a, 3, 4);
	struct fs_llm_report r;
	fs_ns t = 0, d;

	(void)state;
	assert_int_equal(fs_llm_engine_add_hashed(e, 0, 9, 2, 0, 0, &ha), FS_LLM_ACCEPTED);
	assert_int_equal(fs_llm_engine_add_hashed(e, 1, 9, 2, 0, 1, &ha), FS_LLM_ACCEPTED);
	d = fs_llm_engine_begin_step(e, t);
	assert_true(d > 0);
	t += d;
	fs_llm_engine_end_step(e, t, &r);
	assert_int_equal(r.shape.prefill_tokens, 9 + 1);
	assert_int_equal(r.n_first_token, 2);
	assert_int_equal(r.prefix.hit_tokens, 8);
	assert_int_equal(r.kv_used_blocks, 3 + 1);     /* blocks 0-1 shared */
	run_to_idle(e, &t);
	fs_llm_engine_free(e);
}

/*
 * The same for a running request's chunk: budget 12, a 20-token prompt
 * (5 blocks) takes 12 tokens in step 1 and its last 8 in step 2, when a
 * second request with the same 5-block prefix arrives.  Step 2 caches
 * blocks 3-4 while scheduling the first, so the second hits 4 blocks (the
 * cap (20 - 1) / 4) and its 4 remaining tokens fit the 4 tokens of budget
 * left: both get their first token in step 2.
 */
static void test_prefix_cache_same_step_hits_a_running_chunk(void **state)
{
	static const uint64_t a[5] = {1, 2, 3, 4, 5};
	struct fs_llm_engine_cfg c;
	struct fs_error err;
	struct fs_llm_engine *e;
	struct fs_block_hashes ha = ids_of(a, 5, 4);
	struct fs_llm_report r;
	fs_ns t = 0, d;

	(void)state;
	fs_llm_engine_cfg_default(&c);
	c.kv_blocks = 100;
	c.block_tokens = 4;
	c.max_num_batched_tokens = 12;
	c.max_num_seqs = 8;
	e = fs_llm_engine_alloc(&c, synth_cost, NULL, &err);
	assert_non_null(e);
	assert_int_equal(fs_llm_engine_add_hashed(e, 0, 20, 2, 0, 0, &ha), FS_LLM_ACCEPTED);
	d = fs_llm_engine_begin_step(e, t);
	t += d;
	fs_llm_engine_end_step(e, t, &r);
	assert_int_equal(r.shape.prefill_tokens, 12);
	assert_int_equal(fs_llm_engine_add_hashed(e, 1, 20, 2, 0, 1, &ha), FS_LLM_ACCEPTED);
	d = fs_llm_engine_begin_step(e, t);
	t += d;
	fs_llm_engine_end_step(e, t, &r);
	assert_int_equal(r.shape.prefill_tokens, 8 + 4);
	assert_int_equal(r.prefix.hit_tokens, 16);
	assert_int_equal(r.n_first_token, 2);
	run_to_idle(e, &t);
	fs_llm_engine_free(e);
}

/* Two running requests with the same 2-block prefix: the second reuses the
 * first's cached blocks and KV use counts them once (3 + 1, not 3 + 3). */
static void test_prefix_cache_shared_blocks_count_once(void **state)
{
	static const uint64_t a[2] = {7, 8};
	struct fs_llm_engine *e = make_engine(100, 4);
	struct fs_block_hashes h = ids_of(a, 2, 4);
	struct fs_llm_report r;
	fs_ns t = 0, d;

	(void)state;
	fs_llm_engine_add_hashed(e, 0, 9, 5, 0, 0, &h);
	d = fs_llm_engine_begin_step(e, t);        /* prefill: blocks 0, 1 cached */
	fs_llm_engine_end_step(e, t += d, &r);
	assert_int_equal(fs_llm_engine_kv_used(e), 3);
	fs_llm_engine_add_hashed(e, 1, 9, 5, 0, 1, &h);
	d = fs_llm_engine_begin_step(e, t);
	assert_int_equal(r.n_first_token, 1);
	assert_int_equal(fs_llm_engine_kv_check(e), 0);
	/* first: 2 shared + 1 private (its decode token fits block 2);
	 * second: 1 private for its one computed token */
	assert_int_equal(fs_llm_engine_kv_used(e), 4);
	fs_llm_engine_end_step(e, t += d, &r);
	assert_int_equal(r.prefix.hit_blocks, 2);
	assert_int_equal(r.prefix.saved_tokens, 8);
	assert_int_equal(r.shape.prefill_tokens, 1);
	run_to_idle(e, &t);
	assert_int_equal(fs_llm_engine_kv_used(e), 0);
	assert_int_equal(fs_llm_engine_kv_cached(e), 2);
	fs_llm_engine_free(e);
}

/* A loaded engine with a small cache: 6 sessions with growing histories,
 * arrivals while steps run, preemptions and evictions.  After every step
 * free + used + cached == total, blocks in use == private blocks of running
 * requests + referenced entries, and references == cached blocks held. */
static void test_prefix_cache_conserves_blocks_every_step(void **state)
{
	struct fs_llm_engine *e = make_engine(120, 16);
	const struct fs_llm_engine_stats *st = fs_llm_engine_stats(e);
	struct fs_block_hashes *h = calloc(400, sizeof *h);
	int64_t history[6] = {0};
	uint64_t rng = 88172645463325252ULL;
	struct fs_llm_report r;
	fs_ns t = 0, d;
	uint32_t added = 0;

	(void)state;
	while (added < 400 || fs_llm_engine_running(e) + fs_llm_engine_waiting(e) > 0) {
		for (int k = 0; k < 2 && added < 400; k++) {
			uint32_t s = (uint32_t)(fs_test_xorshift64(&rng) % 6);
			int64_t fresh = 20 + (int64_t)(fs_test_xorshift64(&rng) % 200);
			int64_t out = 1 + (int64_t)(fs_test_xorshift64(&rng) % 60);
			int64_t prompt = history[s] + fresh;

			if (prompt + out > 1500) {         /* a new conversation */
				history[s] = 0;
				prompt = fresh;
			}
			fs_block_hashes_session(&h[added], 1000 + s, prompt + out, 16);
			assert_int_equal(fs_llm_engine_add_hashed(e, added, prompt, out, 0,
			                                          added, &h[added]),
			                 FS_LLM_ACCEPTED);
			history[s] = prompt + out;
			added++;
		}
		d = fs_llm_engine_begin_step(e, t);
		assert_int_equal(fs_llm_engine_kv_check(e), 0);
		if (d < 0)
			continue;
		fs_llm_engine_end_step(e, t += d, &r);
		assert_int_equal(fs_llm_engine_kv_check(e), 0);
		assert_true(fs_llm_engine_kv_used(e) + fs_llm_engine_kv_cached(e) <=
		            fs_llm_engine_kv_total(e));
	}
	assert_int_equal(st->completed + st->rejected_by_guard, 400);
	assert_true(st->preemptions > 0);         /* the paths were exercised */
	assert_true(st->prefix.hit_blocks > 0);
	assert_true(st->prefix.hit_blocks < st->prefix.query_blocks);
	assert_int_equal(fs_llm_engine_kv_used(e), 0);
	free(h);
	fs_llm_engine_free(e);
}

/* Without hashes (or with caching off) nothing is cached or counted. */
static void test_prefix_cache_off_or_unhashed_changes_nothing(void **state)
{
	static const uint64_t a[2] = {1, 2};
	struct fs_llm_engine_cfg c;
	struct fs_block_hashes h = ids_of(a, 2, 4);
	struct fs_llm_engine *e;
	fs_ns t = 0;

	(void)state;
	fs_llm_engine_cfg_default(&c);
	c.kv_blocks = 50;
	c.block_tokens = 4;
	c.prefix_caching = false;
	e = fs_llm_engine_alloc(&c, synth_cost, NULL, NULL);
	for (uint32_t i = 0; i < 3; i++) {
		fs_llm_engine_add_hashed(e, i, 9, 1, 0, i, &h);
		run_to_idle(e, &t);
	}
	assert_int_equal(fs_llm_engine_stats(e)->sum_prefill_tokens, 27);
	assert_int_equal(fs_llm_engine_stats(e)->prefix.query_tokens, 0);
	assert_int_equal(fs_llm_engine_kv_cached(e), 0);
	fs_llm_engine_free(e);
	e = make_engine(50, 4);
	for (uint32_t i = 0; i < 3; i++) {
		fs_llm_engine_add(e, i, 9, 1, 0, i);
		run_to_idle(e, &t);
	}
	assert_int_equal(fs_llm_engine_stats(e)->sum_prefill_tokens, 27);
	assert_int_equal(fs_llm_engine_stats(e)->prefix.query_tokens, 0);
	fs_llm_engine_free(e);
}

/* Keys: equal prefixes give equal keys, a block is keyed only when full and
 * covered; Mooncake's 512-token units map onto 16-token blocks. */
static void test_prefix_cache_block_keys(void **state)
{
	static const uint64_t a[2] = {0, 1}, b[2] = {0, 2};
	struct fs_block_hashes ha = ids_of(a, 2, 512), hb = ids_of(b, 2, 512), s1, s2;

	(void)state;
	/* 1000 tokens: units cover 1024, so blocks 0..61 (992 tokens) */
	assert_int_equal(fs_block_hash_n_blocks(&ha, 16, 1000), 62);
	assert_int_equal(fs_block_hash_key(&ha, 62, 16, 1000), 0);
	assert_true(fs_block_hash_key(&ha, 61, 16, 1000) != 0);
	/* first unit shared: its 32 blocks match, the next ones do not */
	for (int64_t blk = 0; blk < 32; blk++)
		assert_true(fs_block_hash_key(&ha, blk, 16, 1000) ==
		            fs_block_hash_key(&hb, blk, 16, 1000));
	assert_true(fs_block_hash_key(&ha, 32, 16, 1000) !=
	            fs_block_hash_key(&hb, 32, 16, 1000));
	assert_true(fs_block_hash_key(&ha, 0, 16, 1000) !=
	            fs_block_hash_key(&ha, 1, 16, 1000));
	/* sessions: a longer history keeps the keys of the shorter one */
	fs_block_hashes_session(&s1, 5, 100, 16);
	fs_block_hashes_session(&s2, 5, 300, 16);
	assert_int_equal(s1.n_units, 6);
	for (int64_t blk = 0; blk < 6; blk++)
		assert_true(fs_block_hash_key(&s1, blk, 16, 100) ==
		            fs_block_hash_key(&s2, blk, 16, 300));
	fs_block_hashes_session(&s2, 6, 300, 16);
	assert_true(fs_block_hash_key(&s1, 0, 16, 100) != fs_block_hash_key(&s2, 0, 16, 300));
	assert_true(fs_block_hash_session_unit(5, 3) != 0);
	/* session id 0 is a session like any other (its key is not 0) */
	fs_block_hashes_session(&s2, 0, 100, 16);
	assert_true(s2.session != 0);
	assert_true(fs_block_hash_key(&s2, 0, 16, 100) != 0);
}

static struct fs_route_candidate cand_of(uint32_t id, uint64_t outstanding,
                                         int64_t prefix_blocks)
{
	struct fs_route_candidate c = {id, outstanding, 0.0, 0.0, 8, prefix_blocks};

	return c;
}

static void test_prefix_cache_session_router_sticks_while_alive(void **state)
{
	struct fs_route_candidate c[3] = {cand_of(10, 3, 0), cand_of(11, 1, 0),
	                                  cand_of(12, 2, 0)};
	struct fs_router_state st = {0};
	struct fs_route_request a = {77}, b = {78}, none = {0};

	(void)state;
	assert_int_equal(fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL, &a), 1);
	c[1].outstanding = 9;                      /* now the busiest: still sticks */
	assert_int_equal(fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL, &a), 1);
	assert_int_equal(fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL, &b), 2);
	assert_int_equal(fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL, &none), 2);
	/* instance 11 gone: least outstanding, and the session moves there */
	c[1] = cand_of(13, 0, 0);
	assert_int_equal(fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL, &a), 1);
	c[1].outstanding = 5;
	assert_int_equal(fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL, &a), 1);
	/* many sessions: the map grows and keeps every entry */
	for (uint64_t s = 1000; s < 1300; s++)
		fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL,
		                   &(struct fs_route_request){s});
	assert_int_equal(st.sess_n, 302);
	assert_int_equal(fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL, &b), 2);
	fs_router_state_fini(&st);
}

static void test_prefix_cache_prefix_router_longest_then_least_loaded(void **state)
{
	struct fs_route_candidate c[4] = {cand_of(1, 0, 3), cand_of(2, 5, 7),
	                                  cand_of(3, 2, 7), cand_of(4, 0, 0)};
	struct fs_router_state st = {0};

	(void)state;
	assert_int_equal(fs_router_pick(FS_ROUTER_PREFIX, c, 4, &st, NULL), 2);
	c[2].outstanding = 5;                      /* full tie: the earliest */
	assert_int_equal(fs_router_pick(FS_ROUTER_PREFIX, c, 4, &st, NULL), 1);
	for (int i = 0; i < 4; i++)
		c[i].prefix_blocks = 0;            /* nothing cached: least loaded */
	assert_int_equal(fs_router_pick(FS_ROUTER_PREFIX, c, 4, &st, NULL), 0);
}

/* hash_ids are read into the rows; a malformed list is an error at its
 * column. */
static void test_prefix_cache_mooncake_hash_ids_parsed(void **state)
{
	struct fs_error err;
	struct fs_trace *t = fs_trace_load(MOONCAKE_SLICE, NULL, FS_TRACE_MOONCAKE, &err);
	char *dir = fs_test_tmpdir(), path[512];

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->n_rows, 1000);
	/* line 1: 6758 tokens, hash_ids 0..13 (14 units of 512 tokens) */
	assert_int_equal(t->rows[0].prompt_tokens, 6758);
	assert_int_equal(t->rows[0].hashes.n_units, 14);
	assert_int_equal(t->rows[0].hashes.unit_tokens, 512);
	assert_int_equal(t->rows[0].hashes.ids[13], 13);
	/* line 2 shares block 0 only */
	assert_int_equal(t->rows[1].hashes.ids[0], 0);
	assert_int_equal(t->rows[1].hashes.ids[1], 14);
	fs_trace_free(t);

	snprintf(path, sizeof path, "%s/bad.jsonl", dir);
	fs_test_write_file(path, "{\"timestamp\": 0, \"input_length\": 9, \"output_length\": 1, "
	      "\"hash_ids\": [1, \"x\"]}\n");
	assert_null(fs_trace_load(path, "bad.jsonl", FS_TRACE_MOONCAKE, &err));
	assert_string_equal(err.msg, "expected a block id (integer >= 0) in \"hash_ids\", "
	                    "found a string");
	assert_string_equal(err.where, "bad.jsonl:1:73");
	fs_test_tmpdir_free(dir);
}

/* Run the shipped example's variant on one H200 replica, the trace slowed
 * to a fifth of its rate, over 600 s (about 400 requests, drained); return
 * summary.json parsed.  One replica: no routing choice differs between
 * the runs, only the cache. */
static cJSON *run_variant(const char *variant, const char *dir)
{
	const char *args[] = {"run", "scenarios/mooncake-prefix.json", "--variant", variant,
	                      "--set", "simulation.horizon=\"600s\"",
	                      "--set", "fleet.pools[0].count=1",
	                      "--set", "engine.gpu=\"h200\"",
	                      "--set", "workload.classes[0].arrivals.trace.rate_scale=0.2",
	                      "-o", dir, "-q", NULL};

	return fs_test_fleetsim_output(args, dir, "summary.json");
}

static double value_at(const cJSON *root, const char *const *keys)
{
	const cJSON *o = root;

	for (; *keys != NULL; keys++) {
		o = cJSON_GetObjectItemCaseSensitive(o, *keys);
		if (o == NULL)
			fail_msg("no key %s", *keys);
	}
	o = cJSON_GetObjectItemCaseSensitive(o, "value");
	assert_true(cJSON_IsNumber(o));
	return o->valuedouble;
}

/* The Mooncake replay reports a hit rate and a lower TTFT with caching on
 * than off, on the same router and traffic; saved prefill tokens equal the
 * drop in prefill work. */
static void test_prefix_cache_mooncake_replay_lowers_ttft(void **state)
{
	static const char *const ttft[] = {"metrics", "all", "ttft_ms", "mean", NULL};
	static const char *const hit[] = {"engine", "prefix_cache", "hit_rate_tokens", NULL};
	static const char *const saved[] = {"engine", "prefix_cache",
	                                    "saved_prefill_tokens", NULL};
	char *d_on = fs_test_tmpdir(), *d_off = fs_test_tmpdir();
	cJSON *on, *off;
	double rate;

	(void)state;
	on = run_variant("least-outstanding", d_on);
	off = run_variant("no-cache", d_off);
	rate = value_at(on, hit);
	/* above 0, below the infinite-cache share of the slice (21.5%) */
	assert_true(rate > 0.01 && rate < 0.216);
	assert_true(value_at(on, saved) > 0);
	assert_null(cJSON_GetObjectItemCaseSensitive(
	        cJSON_GetObjectItemCaseSensitive(off, "engine"), "prefix_cache"));
	assert_true(value_at(on, ttft) < value_at(off, ttft));
	cJSON_Delete(on);
	cJSON_Delete(off);
	fs_test_tmpdir_free(d_on);
	fs_test_tmpdir_free(d_off);
}

/* ---- multi-turn sessions (MODEL: U4, V22, V23, R5) ------------------------- */

/* N users, each holding one 2-turn session in the run: both think 1 s, send
 * turn 0 (a 100-token message, 10-token answer) at 1 s, turn 1 (history 110
 * + a new 100 = 210 tokens) 2 s after the response, and would start their
 * next session after 1 s more, past the 4 s horizon; drained.  On H100 a
 * turn takes about 70 ms, so nothing else is sent. */
static struct fs_scenario *sessions_scenario(int users, int replicas, const char *router,
                                             bool caching)
{
	char text[1400];
	struct fs_error err;
	struct fs_scenario *sc;

	snprintf(text, sizeof text,
	         "{ \"name\": \"sessions\", \"simulation\": { \"horizon\": \"4s\","
	         " \"drain\": true, \"seed\": 3 },"
	         " \"workload\": { \"classes\": [ { \"name\": \"chat\", \"users\": %d,"
	         " \"think\": \"1s\","
	         " \"session\": { \"turns\": { \"dist\": \"fixed\", \"tokens\": 2 },"
	         " \"think\": \"2s\" },"
	         " \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 100 },"
	         " \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 10 } } ] },"
	         " \"engine\": { \"type\": \"vllm\", \"model\": \"llama-3.1-8b\","
	         " \"gpu\": \"h100\", \"tp\": 1, \"prefix_caching\": %s },"
	         " \"fleet\": { \"router\": \"%s\","
	         " \"pools\": [ { \"name\": \"h100\", \"count\": %d } ] } }",
	         users, caching ? "true" : "false", router, replicas);
	sc = fs_scenario_load_text(text, strlen(text), "sessions.json", ".", &err);
	if (sc == NULL)
		fail_msg("%s: %s: %s", err.where, err.path, err.msg);
	return sc;
}

/* One replication of sessions_scenario: its engine totals (whole run: no
 * warm-up), after checking that every turn completed. */
static struct fs_engine_totals run_sessions(int users, int replicas, const char *router,
                                            bool caching)
{
	struct fs_scenario *sc = sessions_scenario(users, replicas, router, caching);
	struct fs_run_opts opts = { 1, 0, 1, sc->sim.seed, false, NULL };
	struct fs_rep_result **res = fs_replicate_run(sc, &opts);
	struct fs_engine_totals tot = res[0]->engine;

	assert_int_equal(res[0]->cls[res[0]->n_classes].completed, 2 * users);
	fs_replicate_free(res, 1);
	fs_scenario_free(sc);
	return tot;
}

/* Two sessions on one replica.  By hand (16-token blocks): turn 0 computes
 * 100 + 9 tokens (its last sampled token is never fed), so its 6 full
 * blocks (96 tokens) are cached under the session's hashes.  Turn 1's
 * 210-token prompt starts with those 96 tokens: 6 of its 13 full prompt
 * blocks hit.  Tokens: 2 x 96 hit of 2 x (100 + 210) = 192 / 620; blocks:
 * 12 / (2 x (6 + 13)) = 12 / 38; saved prefill 192.  Caching off: none. */
static void test_prefix_cache_sessions_hit_on_later_turns(void **state)
{
	struct fs_engine_totals on = run_sessions(2, 1, "least_outstanding", true);
	struct fs_engine_totals off = run_sessions(2, 1, "least_outstanding", false);

	(void)state;
	assert_int_equal(on.prefix_query_tokens, 620);
	assert_int_equal(on.prefix_hit_tokens, 192);
	assert_int_equal(on.prefix_query_blocks, 38);
	assert_int_equal(on.prefix_hit_blocks, 12);
	assert_int_equal(on.prefix_saved_tokens, 192);
	assert_near((double)on.prefix_hit_tokens / (double)on.prefix_query_tokens,
	            192.0 / 620.0, 1e-12, 0);
	/* the saved tokens are prefill work not done */
	assert_int_equal(off.prefill_tokens - on.prefill_tokens, 192);
	assert_int_equal(off.prefix_hit_tokens, 0);
	assert_int_equal(off.prefix_saved_tokens, 0);
}

/* Three sessions on two replicas.  Turn 0s arrive together: the session
 * router sends sessions 1 and 3 to replica 0 and session 2 to replica 1
 * (least outstanding), then keeps each turn 1 there, so every turn 1 hits
 * its 6 blocks: 3 x 96 = 288 of 3 x 310 = 930 tokens.  A router blind to
 * sessions sends some turn 1 to the other replica, where it misses. */
static void test_prefix_cache_session_router_keeps_turns_on_one_replica(void **state)
{
	struct fs_engine_totals sess = run_sessions(3, 2, "session", true);
	struct fs_engine_totals lo = run_sessions(3, 2, "least_outstanding", true);
	struct fs_engine_totals rr = run_sessions(3, 2, "round_robin", true);

	(void)state;
	assert_int_equal(sess.prefix_query_tokens, 930);
	assert_int_equal(sess.prefix_hit_tokens, 288);
	assert_int_equal(sess.prefix_hit_blocks, 18);
	assert_int_equal(sess.prefix_saved_tokens, 288);
	assert_true(lo.prefix_hit_tokens < 288);
	assert_true(rr.prefix_hit_tokens < 288);
}

/* The requests a session workload generates carry their session in
 * block_hashes.session: routed by the session router, every turn of a
 * session goes where its first went, whatever the loads; distinct
 * sessions have distinct keys. */
static void test_prefix_cache_session_requests_carry_their_session(void **state)
{
	struct fs_scenario *sc = sessions_scenario(3, 2, "session", true);
	struct fs_workload *w = fs_workload_alloc(&sc->workload, &sc->sim, 3, 0);
	struct fs_route_candidate c[3] = {cand_of(0, 0, 0), cand_of(1, 0, 0),
	                                  cand_of(2, 0, 0)};
	struct fs_router_state st = {0};
	size_t first[3];
	uint64_t keys[3];

	(void)state;
	for (uint32_t turn = 0; turn < 2; turn++) {
		for (uint32_t u = 0; u < 3; u++) {
			struct fs_request req;
			struct fs_route_request rq;
			size_t pick;

			fs_workload_user_take(w, u, FS_NS_PER_S + turn, &req);
			assert_int_equal(req.turn, turn);
			assert_true(req.block_hashes.session != 0);
			assert_true(req.block_hashes.n_units > 0);
			rq.session = req.block_hashes.session;
			pick = fs_router_pick_for(FS_ROUTER_SESSION, c, 3, &st, NULL, &rq);
			if (turn == 0) {
				first[u] = pick;
				keys[u] = rq.session;
			} else {
				assert_int_equal(pick, first[u]);
				assert_true(rq.session == keys[u]);
			}
			c[pick].outstanding += 5;   /* its replica now the busiest */
			fs_workload_user_done(w, u, FS_NS_PER_S + turn + 1, true, 10);
		}
	}
	/* three sessions spread by load over the three replicas */
	assert_true(first[0] != first[1] && first[1] != first[2] && first[0] != first[2]);
	assert_true(keys[0] != keys[1] && keys[1] != keys[2] && keys[0] != keys[2]);
	fs_router_state_fini(&st);
	fs_workload_free(w);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_cache_scripted_lru_hits),
		cmocka_unit_test(test_prefix_cache_evicts_the_chain_tail_first),
		cmocka_unit_test(test_prefix_cache_evicts_in_free_order_with_empty_blocks),
		cmocka_unit_test(test_prefix_cache_same_step_admission_hits_scheduled_blocks),
		cmocka_unit_test(test_prefix_cache_same_step_hits_a_running_chunk),
		cmocka_unit_test(test_prefix_cache_shared_blocks_count_once),
		cmocka_unit_test(test_prefix_cache_conserves_blocks_every_step),
		cmocka_unit_test(test_prefix_cache_off_or_unhashed_changes_nothing),
		cmocka_unit_test(test_prefix_cache_block_keys),
		cmocka_unit_test(test_prefix_cache_session_router_sticks_while_alive),
		cmocka_unit_test(test_prefix_cache_prefix_router_longest_then_least_loaded),
		cmocka_unit_test(test_prefix_cache_mooncake_hash_ids_parsed),
		cmocka_unit_test(test_prefix_cache_mooncake_replay_lowers_ttft),
		cmocka_unit_test(test_prefix_cache_sessions_hit_on_later_turns),
		cmocka_unit_test(test_prefix_cache_session_router_keeps_turns_on_one_replica),
		cmocka_unit_test(test_prefix_cache_session_requests_carry_their_session),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
