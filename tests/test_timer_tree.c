/*
 * test_timer_tree.c — the instances' iteration timers: the earliest by
 * (time, index), ties to the smaller index on either side of a node, a
 * taken timer gone until set again, growth past the first leaves, and a
 * long randomized run against a linear scan.  The PRNG is the shared
 * xorshift with a fixed seed, so the run is the same every time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fleetsim/timer_tree.h"
#include "util_test.h"

static void test_timer_tree_empty_has_no_earliest(void **state)
{
	struct fs_timer_tree tt;
	fs_ns t = -7;
	uint32_t i = 99;

	(void)state;
	fs_timer_tree_init(&tt);
	assert_false(fs_timer_tree_peek(&tt, &t, &i));
	assert_false(fs_timer_tree_pending(&tt, 0));
	fs_timer_tree_clear(&tt, 3);             /* nothing to clear: no effect */
	assert_false(fs_timer_tree_peek(&tt, &t, &i));
	assert_int_equal(t, -7);
	assert_int_equal(i, 99);
	fs_timer_tree_fini(&tt);
	fs_timer_tree_fini(&tt);                 /* a second fini is harmless */
}

/* Equal times go by index wherever the two sit in the tree: siblings,
 * cousins, either side of the root, and the later-set first. */
static void test_timer_tree_ties_go_to_the_smaller_index(void **state)
{
	static const uint32_t order[] = { 6, 1, 7, 0, 5, 2, 4, 3 };
	struct fs_timer_tree tt;
	fs_ns t;
	uint32_t i, k;

	(void)state;
	fs_timer_tree_init(&tt);
	for (k = 0; k < 8; k++)
		fs_timer_tree_set(&tt, order[k], 100);
	for (k = 0; k < 8; k++) {
		assert_true(fs_timer_tree_peek(&tt, &t, &i));
		assert_int_equal(t, 100);
		assert_int_equal(i, k);
		fs_timer_tree_take(&tt, i);
		assert_false(fs_timer_tree_pending(&tt, i));
	}
	assert_false(fs_timer_tree_peek(&tt, &t, &i));
	fs_timer_tree_fini(&tt);
}

/* A taken timer is not pending; set again it comes back at its new time,
 * and a later one can overtake it. */
static void test_timer_tree_take_then_set_again(void **state)
{
	struct fs_timer_tree tt;
	fs_ns t;
	uint32_t i;

	(void)state;
	fs_timer_tree_init(&tt);
	fs_timer_tree_set(&tt, 2, 50);
	fs_timer_tree_set(&tt, 1, 70);
	assert_true(fs_timer_tree_peek(&tt, &t, &i));
	assert_int_equal(i, 2);
	fs_timer_tree_take(&tt, 2);
	assert_false(fs_timer_tree_pending(&tt, 2));
	assert_true(fs_timer_tree_pending(&tt, 1));
	fs_timer_tree_set(&tt, 2, 60);           /* the handler's follow-up */
	assert_true(fs_timer_tree_pending(&tt, 2));
	assert_true(fs_timer_tree_peek(&tt, &t, &i));
	assert_int_equal(t, 60);
	assert_int_equal(i, 2);
	fs_timer_tree_take(&tt, 2);
	fs_timer_tree_set(&tt, 2, 90);           /* later than 1 now */
	assert_true(fs_timer_tree_peek(&tt, &t, &i));
	assert_int_equal(t, 70);
	assert_int_equal(i, 1);
	fs_timer_tree_take(&tt, 1);              /* not set again: gone */
	assert_true(fs_timer_tree_peek(&tt, &t, &i));
	assert_int_equal(t, 90);
	assert_int_equal(i, 2);
	assert_false(fs_timer_tree_pending(&tt, 1));
	fs_timer_tree_clear(&tt, 2);
	assert_false(fs_timer_tree_peek(&tt, &t, &i));
	fs_timer_tree_fini(&tt);
}

/* Timers set before the tree grows keep their times and order. */
static void test_timer_tree_grows_and_keeps_what_it_held(void **state)
{
	struct fs_timer_tree tt;
	fs_ns t;
	uint32_t i, k;

	(void)state;
	fs_timer_tree_init(&tt);
	fs_timer_tree_set(&tt, 3, 30);
	fs_timer_tree_set(&tt, 0, 40);
	fs_timer_tree_set(&tt, 1000, 10);
	assert_true(tt.leaves >= 1001);
	fs_timer_tree_set(&tt, 77, 30);          /* ties with 3 */
	for (k = 0; k < 4; k++) {
		static const uint32_t want_i[] = { 1000, 3, 77, 0 };
		static const fs_ns want_t[] = { 10, 30, 30, 40 };

		assert_true(fs_timer_tree_peek(&tt, &t, &i));
		assert_int_equal(i, want_i[k]);
		assert_int_equal(t, want_t[k]);
		fs_timer_tree_take(&tt, i);
	}
	assert_false(fs_timer_tree_peek(&tt, &t, &i));
	fs_timer_tree_fini(&tt);
}

/* Linear-scan reference: the earliest set timer by (time, index). */
static int ref_min(const fs_ns *ref, uint32_t n)
{
	int best = -1;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (ref[i] != FS_NS_MAX && (best < 0 || ref[i] < ref[best]))
			best = (int)i;
	return best;
}

/* Sets (ties common), clears, takes with and without a follow-up set of
 * the same timer, over indices that make the tree grow twice. */
static void test_timer_tree_matches_a_scan_under_random_ops(void **state)
{
	enum { N = 150 };
	struct fs_timer_tree tt;
	fs_ns ref[N], now = 0, t;
	uint64_t rng = 0x9e3779b97f4a7c15u;
	uint32_t i, k, span = 6;
	long op;

	(void)state;
	fs_timer_tree_init(&tt);
	for (k = 0; k < N; k++)
		ref[k] = FS_NS_MAX;
	for (op = 0; op < 200000; op++) {
		uint64_t r = fs_test_xorshift64(&rng) % 100;
		int m;

		if (op == 50000)
			span = 40;
		if (op == 100000)
			span = N;
		k = (uint32_t)(fs_test_xorshift64(&rng) % span);
		if (r < 45) {
			fs_ns at = now + (fs_ns)(fs_test_xorshift64(&rng) % 16);

			fs_timer_tree_set(&tt, k, at);
			ref[k] = at;
		} else if (r < 55) {
			fs_timer_tree_clear(&tt, k);
			ref[k] = FS_NS_MAX;
		} else {
			m = ref_min(ref, N);
			if (m < 0) {
				assert_false(fs_timer_tree_peek(&tt, &t, &i));
				continue;
			}
			assert_true(fs_timer_tree_peek(&tt, &t, &i));
			assert_int_equal(i, (uint32_t)m);
			assert_int_equal(t, ref[m]);
			fs_timer_tree_take(&tt, i);
			now = t;
			ref[m] = FS_NS_MAX;
			if (r < 85) {                    /* the usual follow-up */
				fs_ns at = now + (fs_ns)(fs_test_xorshift64(&rng) % 16);

				fs_timer_tree_set(&tt, i, at);
				ref[m] = at;
			}
		}
		for (k = 0; k < N; k += 7)
			assert_int_equal(fs_timer_tree_pending(&tt, k), ref[k] != FS_NS_MAX);
	}
	fs_timer_tree_fini(&tt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer_tree_empty_has_no_earliest),
		cmocka_unit_test(test_timer_tree_ties_go_to_the_smaller_index),
		cmocka_unit_test(test_timer_tree_take_then_set_again),
		cmocka_unit_test(test_timer_tree_grows_and_keeps_what_it_held),
		cmocka_unit_test(test_timer_tree_matches_a_scan_under_random_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
