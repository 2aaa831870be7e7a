/*
 * test_router.c — every routing policy on hand-made candidate lists: ties go
 * to the earliest candidate, round-robin cycles, power-of-two is reproducible
 * with a fixed seed and never takes the more loaded of its pair, and
 * cost-aware falls back to least outstanding when every instance is full.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fleetsim/rng.h"
#include "fleetsim/router.h"
#include "util_test.h"

#define N_OF(a) (sizeof (a) / sizeof (a)[0])

static struct fs_route_candidate cand_of(uint32_t id, uint64_t outstanding, double kv_frac,
                                         double price, int64_t max_num_seqs)
{
	struct fs_route_candidate c = {id, outstanding, kv_frac, price, max_num_seqs, 0};

	return c;
}

static void test_router_round_robin_cycles(void **state)
{
	struct fs_route_candidate c[3] = {
		cand_of(10, 5, 0.1, 1, 8), cand_of(11, 0, 0.1, 1, 8), cand_of(12, 9, 0.1, 1, 8)};
	struct fs_router_state st = {0};

	(void)state;
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < 3; i++)
			assert_int_equal(fs_router_pick(FS_ROUTER_ROUND_ROBIN, c, 3, &st, NULL), i);
	/* the list shrinks to two: the position wraps modulo the new size */
	assert_int_equal(st.next, 9);
	assert_int_equal(fs_router_pick(FS_ROUTER_ROUND_ROBIN, c, 2, &st, NULL), 1);
	assert_int_equal(fs_router_pick(FS_ROUTER_ROUND_ROBIN, c, 2, &st, NULL), 0);
}

static void test_router_least_outstanding_ties_to_earliest(void **state)
{
	struct fs_route_candidate c[4] = {
		cand_of(0, 4, 0.0, 1, 8), cand_of(1, 2, 0.9, 1, 8),
		cand_of(2, 2, 0.1, 1, 8), cand_of(3, 3, 0.0, 1, 8)};
	struct fs_router_state st = {0};

	(void)state;
	assert_int_equal(fs_router_pick(FS_ROUTER_LEAST_OUTSTANDING, c, 4, &st, NULL), 1);
	assert_int_equal(st.next, 0);
	assert_int_equal(fs_router_pick(FS_ROUTER_LEAST_OUTSTANDING, c, 1, &st, NULL), 0);
}

static void test_router_least_kv_ties_to_earliest(void **state)
{
	struct fs_route_candidate c[4] = {
		cand_of(0, 0, 0.50, 1, 8), cand_of(1, 9, 0.25, 1, 8),
		cand_of(2, 0, 0.25, 1, 8), cand_of(3, 0, 0.75, 1, 8)};

	(void)state;
	assert_int_equal(fs_router_pick(FS_ROUTER_LEAST_KV, c, 4, NULL, NULL), 1);
	c[2].kv_frac = 0.125;
	assert_int_equal(fs_router_pick(FS_ROUTER_LEAST_KV, c, 4, NULL, NULL), 2);
}

static void test_router_power_of_two_deterministic_and_less_loaded(void **state)
{
	struct fs_route_candidate c[6];
	struct fs_rng *r1 = fs_rng_alloc(42, 0, FS_STREAM_ROUTING, 0);
	struct fs_rng *r2 = fs_rng_alloc(42, 0, FS_STREAM_ROUTING, 0);
	struct fs_rng *shadow = fs_rng_alloc(42, 0, FS_STREAM_ROUTING, 0);
	int hits[6] = {0};

	(void)state;
	for (uint32_t i = 0; i < N_OF(c); i++)
		c[i] = cand_of(i, (uint64_t)((i * 5) % 6), 0, 1, 8);  /* 0,5,4,3,2,1 */
	for (int k = 0; k < 2000; k++) {
		size_t p1 = fs_router_pick(FS_ROUTER_POWER_OF_TWO, c, 6, NULL, r1);
		size_t p2 = fs_router_pick(FS_ROUTER_POWER_OF_TWO, c, 6, NULL, r2);
		/* replay the two draws to recover the pair */
		size_t a = (size_t)fs_rng_below(shadow, 6);
		size_t b = (size_t)fs_rng_below(shadow, 5);

		if (b >= a)
			b++;
		assert_int_equal(p1, p2);
		assert_true(p1 == a || p1 == b);
		assert_int_equal(p1, c[a].outstanding < c[b].outstanding ? a : b);
		hits[p1]++;
	}
	/* the most loaded candidate is never the less loaded of a pair */
	for (size_t i = 0; i < N_OF(c); i++)
		if (c[i].outstanding == 5)
			assert_int_equal(hits[i], 0);
		else
			assert_true(hits[i] > 0);
	fs_rng_free(r1);
	fs_rng_free(r2);
	fs_rng_free(shadow);
}

static void test_router_power_of_two_single_candidate_no_draw(void **state)
{
	struct fs_route_candidate c[2] = {cand_of(0, 3, 0, 1, 8), cand_of(1, 3, 0, 1, 8)};
	struct fs_rng *r1 = fs_rng_alloc(7, 1, FS_STREAM_ROUTING, 0);
	struct fs_rng *r2 = fs_rng_alloc(7, 1, FS_STREAM_ROUTING, 0);

	(void)state;
	assert_int_equal(fs_router_pick(FS_ROUTER_POWER_OF_TWO, c, 1, NULL, r1), 0);
	/* r1 did not advance: it still matches the untouched r2 */
	assert_int_equal(fs_rng_below(r1, 1000000), fs_rng_below(r2, 1000000));
	/* equal load: the earlier of the pair, i.e. index 0 with two candidates */
	for (int k = 0; k < 50; k++)
		assert_int_equal(fs_router_pick(FS_ROUTER_POWER_OF_TWO, c, 2, NULL, r1), 0);
	fs_rng_free(r1);
	fs_rng_free(r2);
}

static void test_router_cost_aware_cheapest_with_room(void **state)
{
	struct fs_route_candidate c[4] = {
		cand_of(0, 1, 0, 4.0, 8),     /* dear, room */
		cand_of(1, 8, 0, 1.0, 8),     /* cheapest, full */
		cand_of(2, 5, 0, 2.0, 8),     /* cheap, room */
		cand_of(3, 3, 0, 2.0, 8)};    /* same price, less loaded */

	(void)state;
	assert_int_equal(fs_router_pick(FS_ROUTER_COST_AWARE, c, 4, NULL, NULL), 3);
	c[3].outstanding = 5;             /* equal price and load: the earliest */
	assert_int_equal(fs_router_pick(FS_ROUTER_COST_AWARE, c, 4, NULL, NULL), 2);
	c[1].outstanding = 7;             /* the cheapest has room again */
	assert_int_equal(fs_router_pick(FS_ROUTER_COST_AWARE, c, 4, NULL, NULL), 1);
}

static void test_router_cost_aware_all_full_least_outstanding(void **state)
{
	struct fs_route_candidate c[3] = {
		cand_of(0, 9, 0, 1.0, 8), cand_of(1, 8, 0, 3.0, 8), cand_of(2, 8, 0, 2.0, 8)};

	(void)state;
	assert_int_equal(fs_router_pick(FS_ROUTER_COST_AWARE, c, 3, NULL, NULL), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_router_round_robin_cycles),
		cmocka_unit_test(test_router_least_outstanding_ties_to_earliest),
		cmocka_unit_test(test_router_least_kv_ties_to_earliest),
		cmocka_unit_test(test_router_power_of_two_deterministic_and_less_loaded),
		cmocka_unit_test(test_router_power_of_two_single_candidate_no_draw),
		cmocka_unit_test(test_router_cost_aware_cheapest_with_room),
		cmocka_unit_test(test_router_cost_aware_all_full_least_outstanding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
