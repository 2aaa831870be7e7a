/*
 * test_stats_objective.c — quantile constraints judged on pooled intervals
 * (MODEL: M9): which constraints are pooled, the verdict of "quantile <=
 * max_ms" on an interval with the replications that would decide it, and
 * how the per-run share's verdict and the pooled verdicts combine.  Every
 * pinned number is worked by hand in the comment above its check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "fleetsim/objective.h"
#include "util_test.h"

static struct fs_constraint latency(int quantity, double max_ms)
{
	struct fs_constraint c;

	memset(&c, 0, sizeof c);
	c.kind = FS_CONSTRAINT_LATENCY;
	c.class_idx = -1;
	c.latency = FS_LAT_TTFT;
	c.quantity = quantity;
	c.max_ms = max_ms;
	return c;
}

static struct fs_ci interval(double value, double lo, double hi)
{
	struct fs_ci ci;

	memset(&ci, 0, sizeof ci);
	ci.value = value;
	ci.ci_lo = lo;
	ci.ci_hi = hi;
	ci.half_width = (hi - lo) / 2.0;
	return ci;
}

/* Quantile bounds are pooled; a mean bound and attainment stay per run. */
static void test_stats_objective_only_quantile_bounds_are_pooled(void **state)
{
	struct fs_constraint p99 = latency(FS_QTY_P99, 2000), p50 = latency(FS_QTY_P50, 500);
	struct fs_constraint mean = latency(FS_QTY_MEAN, 800), att;
	struct fs_constraint both[3];
	struct fs_objective_cfg obj;

	(void)state;
	memset(&att, 0, sizeof att);
	att.kind = FS_CONSTRAINT_ATTAINMENT;
	att.min = 0.95;
	assert_true(fs_constraint_pooled(&p99));
	assert_true(fs_constraint_pooled(&p50));
	assert_false(fs_constraint_pooled(&mean));
	assert_false(fs_constraint_pooled(&att));
	both[0] = p99;
	both[1] = att;
	both[2] = mean;
	memset(&obj, 0, sizeof obj);
	obj.present = true;
	obj.constraints = both;
	obj.n_constraints = 3;
	assert_int_equal(fs_objective_n_pooled(&obj), 1);
}

/* Interval [1800, 1950] under a 2000 ms bound: met; [2050, 2300]: not met;
 * an end exactly on the bound counts as met (<=). */
static void test_stats_objective_interval_clear_of_the_bound_decides(void **state)
{
	struct fs_constraint c = latency(FS_QTY_P99, 2000);
	struct fs_ci below = interval(1900, 1800, 1950), above = interval(2100, 2050, 2300);
	struct fs_ci on = interval(1900, 1800, 2000);
	size_t need = 99;

	(void)state;
	assert_int_equal(fs_objective_pooled_verdict(&c, &below, 8, &need), FS_SHARE_MET);
	assert_int_equal(need, 0);
	assert_int_equal(fs_objective_pooled_verdict(&c, &above, 8, &need), FS_SHARE_NOT_MET);
	assert_int_equal(need, 0);
	assert_int_equal(fs_objective_pooled_verdict(&c, &on, 8, &need), FS_SHARE_MET);
}

/*
 * Straddling: estimate 1900, interval [1800, 2100], bound 2000, 8
 * replications.  The upper side (200) must shrink to the gap (100): a
 * factor 2 in width, 4 in replications: 8 x (200 / 100)^2 = 32.  Above the
 * bound: estimate 2100, [1950, 2250]: the lower side 150 against the gap
 * 100: 8 x 1.5^2 = 18.  Estimate on the bound: no number decides (0).
 */
static void test_stats_objective_straddling_interval_projects_replications(void **state)
{
	struct fs_constraint c = latency(FS_QTY_P99, 2000);
	struct fs_ci under = interval(1900, 1800, 2100), over = interval(2100, 1950, 2250);
	struct fs_ci at = interval(2000, 1900, 2100), none = interval(NAN, NAN, NAN);
	size_t need;

	(void)state;
	assert_int_equal(fs_objective_pooled_verdict(&c, &under, 8, &need), FS_SHARE_UNDECIDED);
	assert_int_equal(need, 32);
	assert_int_equal(fs_objective_pooled_verdict(&c, &over, 8, &need), FS_SHARE_UNDECIDED);
	assert_int_equal(need, 18);
	assert_int_equal(fs_objective_pooled_verdict(&c, &at, 8, &need), FS_SHARE_UNDECIDED);
	assert_int_equal(need, 0);
	/* One replication has no interval: two would give one. */
	assert_int_equal(fs_objective_pooled_verdict(&c, &none, 1, &need), FS_SHARE_UNDECIDED);
	assert_int_equal(need, 2);
}

/* Combining: any NOT_MET wins; MET needs both; undecided parts ask for the
 * larger count, or none when a part cannot be decided. */
static void test_stats_objective_verdicts_combine_conservatively(void **state)
{
	size_t need = 99;

	(void)state;
	assert_int_equal(fs_objective_verdict_and(FS_SHARE_MET, 0, FS_SHARE_MET, 0, &need),
	                 FS_SHARE_MET);
	assert_int_equal(need, 0);
	assert_int_equal(fs_objective_verdict_and(FS_SHARE_UNDECIDED, 35, FS_SHARE_NOT_MET, 0,
	                                          &need), FS_SHARE_NOT_MET);
	assert_int_equal(need, 0);
	assert_int_equal(fs_objective_verdict_and(FS_SHARE_UNDECIDED, 35, FS_SHARE_UNDECIDED,
	                                          32, &need), FS_SHARE_UNDECIDED);
	assert_int_equal(need, 35);
	assert_int_equal(fs_objective_verdict_and(FS_SHARE_MET, 0, FS_SHARE_UNDECIDED, 18,
	                                          &need), FS_SHARE_UNDECIDED);
	assert_int_equal(need, 18);
	assert_int_equal(fs_objective_verdict_and(FS_SHARE_UNDECIDED, 0, FS_SHARE_UNDECIDED, 18,
	                                          &need), FS_SHARE_UNDECIDED);
	assert_int_equal(need, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_objective_only_quantile_bounds_are_pooled),
		cmocka_unit_test(test_stats_objective_interval_clear_of_the_bound_decides),
		cmocka_unit_test(test_stats_objective_straddling_interval_projects_replications),
		cmocka_unit_test(test_stats_objective_verdicts_combine_conservatively),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
