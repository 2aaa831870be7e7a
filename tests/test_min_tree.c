/*
 * test_min_tree.c — the least of a set of keyed slots (the instances'
 * iteration ends, the least_outstanding router): the least by (key, slot),
 * ties to the smaller slot on either side of a node, a taken slot gone until
 * set again, growth past the first leaves keeping what it held, a build
 * over fewer slots than the tree holds, and a long randomised run against a
 * linear scan.  The PRNG is the shared xorshift with a fixed seed, so the
 * run is the same every time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fleetsim/min_tree.h"
#include "util_test.h"

static void test_min_tree_empty_has_no_least(void **state)
{
	struct fs_min_tree tt;
	int64_t t = -7;
	uint32_t i = 99;

	(void)state;
	fs_min_tree_init(&tt);
	assert_false(fs_min_tree_peek(&tt, &t, &i));
	assert_false(fs_min_tree_pending(&tt, 0));
	fs_min_tree_clear(&tt, 3);             /* nothing to clear: no effect */
	assert_false(fs_min_tree_peek(&tt, &t, &i));
	assert_int_equal(t, -7);
	assert_int_equal(i, 99);
	fs_min_tree_fini(&tt);
	fs_min_tree_fini(&tt);                 /* a second fini is harmless */
}

/* Equal keys go by slot wherever the two sit in the tree: siblings,
 * cousins, either side of the root, and the later-set first. */
static void test_min_tree_ties_go_to_the_smaller_slot(void **state)
{
	static const uint32_t order[] = { 6, 1, 7, 0, 5, 2, 4, 3 };
	struct fs_min_tree tt;
	int64_t t;
	uint32_t i, k;

	(void)state;
	fs_min_tree_init(&tt);
	for (k = 0; k < 8; k++)
		fs_min_tree_set(&tt, order[k], 100);
	for (k = 0; k < 8; k++) {
		assert_true(fs_min_tree_peek(&tt, &t, &i));
		assert_int_equal(t, 100);
		assert_int_equal(i, k);
		fs_min_tree_take(&tt, i);
		assert_false(fs_min_tree_pending(&tt, i));
	}
	assert_false(fs_min_tree_peek(&tt, &t, &i));
	fs_min_tree_fini(&tt);
}

/* A taken slot is not pending; set again it comes back with its new key,
 * and a later one can overtake it. */
static void test_min_tree_take_then_set_again(void **state)
{
	struct fs_min_tree tt;
	int64_t t;
	uint32_t i;

	(void)state;
	fs_min_tree_init(&tt);
	fs_min_tree_set(&tt, 2, 50);
	fs_min_tree_set(&tt, 1, 70);
	assert_true(fs_min_tree_peek(&tt, &t, &i));
	assert_int_equal(i, 2);
	fs_min_tree_take(&tt, 2);
	assert_false(fs_min_tree_pending(&tt, 2));
	assert_true(fs_min_tree_pending(&tt, 1));
	fs_min_tree_set(&tt, 2, 60);           /* the handler's follow-up */
	assert_true(fs_min_tree_pending(&tt, 2));
	assert_true(fs_min_tree_peek(&tt, &t, &i));
	assert_int_equal(t, 60);
	assert_int_equal(i, 2);
	fs_min_tree_take(&tt, 2);
	fs_min_tree_set(&tt, 2, 90);           /* later than 1 now */
	assert_true(fs_min_tree_peek(&tt, &t, &i));
	assert_int_equal(t, 70);
	assert_int_equal(i, 1);
	fs_min_tree_take(&tt, 1);              /* not set again: gone */
	assert_true(fs_min_tree_peek(&tt, &t, &i));
	assert_int_equal(t, 90);
	assert_int_equal(i, 2);
	assert_false(fs_min_tree_pending(&tt, 1));
	fs_min_tree_clear(&tt, 2);
	assert_false(fs_min_tree_peek(&tt, &t, &i));
	fs_min_tree_fini(&tt);
}

/* Timers set before the tree grows keep their times and order. */
static void test_min_tree_grows_and_keeps_what_it_held(void **state)
{
	struct fs_min_tree tt;
	int64_t t;
	uint32_t i, k;

	(void)state;
	fs_min_tree_init(&tt);
	fs_min_tree_set(&tt, 3, 30);
	fs_min_tree_set(&tt, 0, 40);
	fs_min_tree_set(&tt, 1000, 10);
	assert_true(tt.leaves >= 1001);
	fs_min_tree_set(&tt, 77, 30);          /* ties with 3 */
	for (k = 0; k < 4; k++) {
		static const uint32_t want_i[] = { 1000, 3, 77, 0 };
		static const int64_t want_t[] = { 10, 30, 30, 40 };

		assert_true(fs_min_tree_peek(&tt, &t, &i));
		assert_int_equal(i, want_i[k]);
		assert_int_equal(t, want_t[k]);
		fs_min_tree_take(&tt, i);
	}
	assert_false(fs_min_tree_peek(&tt, &t, &i));
	fs_min_tree_fini(&tt);
}

/* A build sets slots 0..n-1 and unsets the rest, also where the tree
 * already holds more slots (the router's serving set shrinking), and drops
 * a taken slot. */
static void test_min_tree_build_over_fewer_slots_unsets_the_rest(void **state)
{
	static const int64_t keys[] = { 5, 3, 3, 9 };
	struct fs_min_tree tt;
	int64_t t;
	uint32_t i;

	(void)state;
	fs_min_tree_init(&tt);
	fs_min_tree_set(&tt, 20, 1);
	fs_min_tree_set(&tt, 7, 2);
	assert_true(fs_min_tree_peek(&tt, &t, &i));
	fs_min_tree_take(&tt, i);
	fs_min_tree_build(&tt, keys, 4);
	assert_true(tt.leaves >= 21);
	assert_false(fs_min_tree_pending(&tt, 20));
	assert_false(fs_min_tree_pending(&tt, 7));
	assert_true(fs_min_tree_pending(&tt, 3));
	assert_true(fs_min_tree_peek(&tt, &t, &i));
	assert_int_equal(t, 3);
	assert_int_equal(i, 1);
	fs_min_tree_set(&tt, 1, 4);
	assert_true(fs_min_tree_peek(&tt, &t, &i));
	assert_int_equal(t, 3);
	assert_int_equal(i, 2);
	fs_min_tree_build(&tt, keys, 0);
	assert_false(fs_min_tree_peek(&tt, &t, &i));
	fs_min_tree_fini(&tt);
}

/* Linear-scan reference: the least set slot by (key, slot). */
static int ref_min(const int64_t *ref, uint32_t n)
{
	int best = -1;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (ref[i] != FS_MIN_TREE_NONE && (best < 0 || ref[i] < ref[best]))
			best = (int)i;
	return best;
}

/* Sets (ties common), clears, takes with and without a follow-up set of
 * the same slot, over slots that make the tree grow twice. */
static void test_min_tree_matches_a_scan_under_random_ops(void **state)
{
	enum { N = 150 };
	struct fs_min_tree tt;
	int64_t ref[N], now = 0, t;
	uint64_t rng = 0x9e3779b97f4a7c15u;
	uint32_t i, k, span = 6;
	long op;

	(void)state;
	fs_min_tree_init(&tt);
	for (k = 0; k < N; k++)
		ref[k] = FS_MIN_TREE_NONE;
	for (op = 0; op < 200000; op++) {
		uint64_t r = fs_test_xorshift64(&rng) % 100;
		int m;

		if (op == 50000)
			span = 40;
		if (op == 100000)
			span = N;
		k = (uint32_t)(fs_test_xorshift64(&rng) % span);
		if (r < 45) {
			int64_t at = now + (int64_t)(fs_test_xorshift64(&rng) % 16);

			fs_min_tree_set(&tt, k, at);
			ref[k] = at;
		} else if (r < 55) {
			fs_min_tree_clear(&tt, k);
			ref[k] = FS_MIN_TREE_NONE;
		} else {
			m = ref_min(ref, N);
			if (m < 0) {
				assert_false(fs_min_tree_peek(&tt, &t, &i));
				continue;
			}
			assert_true(fs_min_tree_peek(&tt, &t, &i));
			assert_int_equal(i, (uint32_t)m);
			assert_int_equal(t, ref[m]);
			fs_min_tree_take(&tt, i);
			now = t;
			ref[m] = FS_MIN_TREE_NONE;
			if (r < 85) {                    /* the usual follow-up */
				int64_t at = now + (int64_t)(fs_test_xorshift64(&rng) % 16);

				fs_min_tree_set(&tt, i, at);
				ref[m] = at;
			}
		}
		for (k = 0; k < N; k += 7)
			assert_int_equal(fs_min_tree_pending(&tt, k), ref[k] != FS_MIN_TREE_NONE);
	}
	fs_min_tree_fini(&tt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_tree_empty_has_no_least),
		cmocka_unit_test(test_min_tree_ties_go_to_the_smaller_slot),
		cmocka_unit_test(test_min_tree_take_then_set_again),
		cmocka_unit_test(test_min_tree_grows_and_keeps_what_it_held),
		cmocka_unit_test(test_min_tree_build_over_fewer_slots_unsets_the_rest),
		cmocka_unit_test(test_min_tree_matches_a_scan_under_random_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
