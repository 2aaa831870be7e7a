/*
 * test_kvcache.c — the KV block pool: argument checks, ceil rounding of
 * tokens to blocks, exhaustion, the watermark, and a long random run of
 * allocations and releases checked against a shadow count (fixed-seed
 * xorshift, so it is the same every time).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fleetsim/kvcache.h"
#include "util_test.h"

static void test_kvcache_init_rejects_bad_arguments(void **state)
{
	struct fs_kvcache kv;
	struct fs_error err;

	(void)state;
	memset(&kv, 0x5a, sizeof kv);
	assert_int_equal(fs_kvcache_init(&kv, 0, 16, 0.0, &err), -1);
	assert_non_null(strstr(err.msg, "at least 1 KV block"));
	assert_int_equal(kv.total_blocks, (int64_t)0x5a5a5a5a5a5a5a5a);   /* untouched */
	assert_int_equal(fs_kvcache_init(&kv, 10, 0, 0.0, &err), -1);
	assert_string_equal(err.path, "block_tokens");
	assert_int_equal(fs_kvcache_init(&kv, 10, 16, 1.0, &err), -1);
	assert_int_equal(fs_kvcache_init(&kv, 10, 16, -0.1, NULL), -1);
	assert_int_equal(fs_kvcache_init(&kv, 10, 16, 0.0, &err), 0);
	assert_int_equal(fs_kvcache_used(&kv), 0);
	assert_int_equal(fs_kvcache_free_blocks(&kv), 10);
	assert_int_equal(fs_kvcache_total(&kv), 10);
}

static void test_kvcache_blocks_for_tokens_rounds_up(void **state)
{
	struct fs_kvcache kv;

	(void)state;
	assert_int_equal(fs_kvcache_init(&kv, 100, 16, 0.0, NULL), 0);
	assert_int_equal(fs_kvcache_blocks_for_tokens(&kv, 0), 0);
	assert_int_equal(fs_kvcache_blocks_for_tokens(&kv, 1), 1);
	assert_int_equal(fs_kvcache_blocks_for_tokens(&kv, 15), 1);
	assert_int_equal(fs_kvcache_blocks_for_tokens(&kv, 16), 1);
	assert_int_equal(fs_kvcache_blocks_for_tokens(&kv, 17), 2);
	assert_int_equal(fs_kvcache_blocks_for_tokens(&kv, 10000), 625);
	assert_int_equal(fs_kvcache_blocks_for_tokens(&kv, 10001), 626);
	assert_int_equal(fs_kvcache_init(&kv, 100, 1, 0.0, NULL), 0);
	assert_int_equal(fs_kvcache_blocks_for_tokens(&kv, 7), 7);
}

static void test_kvcache_exhaustion_fails_without_side_effects(void **state)
{
	struct fs_kvcache kv;

	(void)state;
	assert_int_equal(fs_kvcache_init(&kv, 10, 16, 0.0, NULL), 0);
	assert_true(fs_kvcache_allocate(&kv, 7));
	assert_false(fs_kvcache_can_allocate(&kv, 4));
	assert_false(fs_kvcache_allocate(&kv, 4));
	assert_int_equal(fs_kvcache_used(&kv), 7);
	assert_true(fs_kvcache_allocate(&kv, 3));
	assert_int_equal(fs_kvcache_free_blocks(&kv), 0);
	assert_false(fs_kvcache_allocate(&kv, 1));
	assert_true(fs_kvcache_allocate(&kv, 0));
	fs_kvcache_release(&kv, 10);
	assert_int_equal(fs_kvcache_used(&kv), 0);
	assert_int_equal(kv.peak_used_blocks, 10);
}

static void test_kvcache_watermark_keeps_blocks_free(void **state)
{
	struct fs_kvcache kv;

	(void)state;
	assert_int_equal(fs_kvcache_init(&kv, 100, 16, 0.05, NULL), 0);
	assert_int_equal(kv.watermark_blocks, 5);
	assert_true(fs_kvcache_can_allocate_watermark(&kv, 95));
	assert_false(fs_kvcache_can_allocate_watermark(&kv, 96));
	assert_true(fs_kvcache_can_allocate(&kv, 100));   /* plain check ignores it */
	assert_int_equal(fs_kvcache_init(&kv, 10, 16, 0.0, NULL), 0);
	assert_true(fs_kvcache_can_allocate_watermark(&kv, 10));
}

/* vLLM's watermark is int(watermark x num_blocks) of all its blocks, the
 * null block included: 99 usable blocks are 100 in vLLM, and 1% of them
 * keeps 1 block free (1% of 99 would round down to none). */
static void test_kvcache_watermark_counts_the_null_block(void **state)
{
	struct fs_kvcache kv;

	(void)state;
	assert_int_equal(fs_kvcache_init(&kv, 99, 16, 0.01, NULL), 0);
	assert_int_equal(kv.watermark_blocks, 1);
	assert_true(fs_kvcache_can_allocate_watermark(&kv, 98));
	assert_false(fs_kvcache_can_allocate_watermark(&kv, 99));
}

static void test_kvcache_random_alloc_release_keeps_invariants(void **state)
{
	struct fs_kvcache kv;
	int64_t held[64] = { 0 };
	int64_t shadow = 0, peak = 0;
	uint64_t rng = 0x9e3779b97f4a7c15u;
	int i, fails = 0;

	(void)state;
	assert_int_equal(fs_kvcache_init(&kv, 500, 16, 0.0, NULL), 0);
	for (i = 0; i < 200000; i++) {
		int k = (int)(fs_test_xorshift64(&rng) % 64);

		if (fs_test_xorshift64(&rng) % 2 == 0) {
			int64_t n = (int64_t)(fs_test_xorshift64(&rng) % 40);
			bool ok = fs_kvcache_allocate(&kv, n);

			assert_int_equal(ok, shadow + n <= 500);
			if (ok) {
				held[k] += n;
				shadow += n;
			} else {
				fails++;
			}
		} else if (held[k] > 0) {
			int64_t n = 1 + (int64_t)(fs_test_xorshift64(&rng) % (uint64_t)held[k]);

			fs_kvcache_release(&kv, n);
			held[k] -= n;
			shadow -= n;
		}
		if (shadow > peak)
			peak = shadow;
		assert_int_equal(fs_kvcache_used(&kv), shadow);
		assert_true(fs_kvcache_used(&kv) <= fs_kvcache_total(&kv));
		assert_int_equal(fs_kvcache_free_blocks(&kv), 500 - shadow);
	}
	assert_true(fails > 0);            /* the pool really ran out */
	assert_int_equal(kv.peak_used_blocks, peak);
	for (i = 0; i < 64; i++)
		fs_kvcache_release(&kv, held[i]);
	assert_int_equal(fs_kvcache_used(&kv), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kvcache_init_rejects_bad_arguments),
		cmocka_unit_test(test_kvcache_blocks_for_tokens_rounds_up),
		cmocka_unit_test(test_kvcache_exhaustion_fails_without_side_effects),
		cmocka_unit_test(test_kvcache_watermark_keeps_blocks_free),
		cmocka_unit_test(test_kvcache_watermark_counts_the_null_block),
		cmocka_unit_test(test_kvcache_random_alloc_release_keeps_invariants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
