/*
 * test_stats.c — Student-t intervals of a mean (and their cut at the bounds
 * of non-negative quantities and shares), Wilson intervals of a proportion
 * and the share verdict with the trials it needs, pinned against values
 * worked by hand from the closed forms.
 * Each pinned number says where it comes from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "fleetsim/stats.h"
#include "util_test.h"

/*
 * x = 1..5: mean 3, s^2 = (4+1+0+1+4)/4 = 2.5, s/sqrt(5) = sqrt(0.5).
 * t_{0.975, 4} = 2.776445: R's qt(0.975, 4) to 6 decimals (the
 * NIST/SEMATECH e-Handbook t table, section 1.3.6.7.2, lists 2.776 for
 * df = 4, upper tail 0.025); 6 decimals give the 1e-6 relative tolerance.
 * Half width = 2.776445 * sqrt(0.5) = 1.963243.
 */
#define T_975_DF4 2.776445
#define HW_1_TO_5 (T_975_DF4 * 0.70710678118654752)

static void test_stats_t_ci_of_small_sample_matches_hand_values(void **state)
{
	static const double x[] = { 1, 2, 3, 4, 5 };
	struct fs_ci ci = fs_stats_mean_ci(x, 5, 0.95);

	(void)state;
	assert_int_equal(ci.n, 5);
	assert_near(ci.value, 3.0, 1e-15, 0.0);
	assert_near(ci.half_width, HW_1_TO_5, 0.0, 1e-6);
	assert_near(ci.half_width, 1.963243, 0.0, 1e-6);
	assert_near(ci.ci_lo, 3.0 - HW_1_TO_5, 0.0, 1e-6);
	assert_near(ci.ci_hi, 3.0 + HW_1_TO_5, 0.0, 1e-6);
}

static void test_stats_t_ci_skips_nan_entries(void **state)
{
	static const double x[] = { NAN, 1, 2, NAN, 3, 4, 5, NAN };
	struct fs_ci ci = fs_stats_mean_ci(x, 8, 0.95);

	(void)state;
	assert_int_equal(ci.n, 5);
	assert_near(ci.value, 3.0, 1e-15, 0.0);
	assert_near(ci.half_width, HW_1_TO_5, 0.0, 1e-6);
}

static void test_stats_t_ci_of_one_value_has_no_interval(void **state)
{
	static const double x[] = { NAN, 42.0 };
	struct fs_ci ci = fs_stats_mean_ci(x, 2, 0.95);

	(void)state;
	assert_int_equal(ci.n, 1);
	assert_near(ci.value, 42.0, 0.0, 0.0);
	assert_true(isnan(ci.ci_lo));
	assert_true(isnan(ci.ci_hi));
	assert_true(isnan(ci.half_width));
}

static void test_stats_t_ci_of_no_values_is_nan(void **state)
{
	static const double x[] = { NAN, NAN };
	struct fs_ci ci = fs_stats_mean_ci(x, 2, 0.95);
	struct fs_ci none = fs_stats_mean_ci(NULL, 0, 0.95);

	(void)state;
	assert_int_equal(ci.n, 0);
	assert_true(isnan(ci.value));
	assert_true(isnan(ci.ci_lo));
	assert_int_equal(none.n, 0);
	assert_true(isnan(none.value));
}

static void test_stats_t_ci_of_constant_sample_collapses_to_the_mean(void **state)
{
	static const double x[] = { 7.5, 7.5, 7.5 };
	struct fs_ci ci = fs_stats_mean_ci(x, 3, 0.95);

	(void)state;
	assert_near(ci.value, 7.5, 0.0, 0.0);
	assert_near(ci.ci_lo, 7.5, 0.0, 0.0);
	assert_near(ci.ci_hi, 7.5, 0.0, 0.0);
	assert_near(ci.half_width, 0.0, 0.0, 0.0);
}

/*
 * Wilson score interval (Wilson 1927; the no-continuity-correction interval
 * of R's prop.test), worked by hand from the closed form with
 * z = Phi^-1(0.975) = 1.959963984540054:
 *   8/10:  centre (0.8 + z^2/20) / (1 + z^2/10) = 0.7167402,
 *          half 0.2265777  ->  [0.4901625, 0.9433178]
 *   0/10:  [0, z^2/10 / (1 + z^2/10)] = [0, 0.2775328]
 * The 8/10 values agree with the 0.490 - 0.943 usually tabulated for it.
 */
static void test_stats_wilson_8_of_10_matches_published_values(void **state)
{
	struct fs_ci ci = fs_stats_wilson(8, 10, 0.95);

	(void)state;
	assert_int_equal(ci.n, 10);
	assert_near(ci.value, 0.8, 1e-15, 0.0);
	assert_near(ci.ci_lo, 0.4901625, 1e-7, 0.0);
	assert_near(ci.ci_hi, 0.9433178, 1e-7, 0.0);
	assert_near(ci.half_width, 0.2265777, 1e-7, 0.0);
}

static void test_stats_wilson_stays_inside_unit_interval(void **state)
{
	struct fs_ci zero = fs_stats_wilson(0, 10, 0.95);
	struct fs_ci all = fs_stats_wilson(10, 10, 0.95);
	struct fs_ci none = fs_stats_wilson(0, 0, 0.95);

	(void)state;
	assert_near(zero.ci_lo, 0.0, 1e-15, 0.0);
	assert_near(zero.ci_hi, 0.2775328, 1e-7, 0.0);
	assert_true(zero.ci_lo >= 0.0);
	assert_near(all.ci_lo, 1.0 - 0.2775328, 1e-7, 0.0);
	assert_near(all.ci_hi, 1.0, 1e-15, 0.0);
	assert_true(all.ci_hi <= 1.0);
	assert_int_equal(none.n, 0);
	assert_true(isnan(none.value));
	assert_true(isnan(none.ci_lo));
}

/*
 * x = {0, 0, 0, 0, 5} (a cost or a count that is mostly zero): mean 1,
 * s^2 = (4 * 1 + 16) / 4 = 5, s / sqrt(5) = 1, so the t interval is
 * 1 ± 2.776445 = [-1.776445, 3.776445]; a quantity that cannot be negative
 * reports [0, 3.776445] with the mean and half width unchanged.
 */
static void test_stats_nonneg_ci_never_goes_below_zero(void **state)
{
	static const double x[] = { 0, 0, 0, 0, 5 };
	struct fs_ci raw = fs_stats_mean_ci(x, 5, 0.95);
	struct fs_ci ci = fs_stats_mean_ci_nonneg(x, 5, 0.95);

	(void)state;
	assert_near(raw.ci_lo, 1.0 - T_975_DF4, 1e-6, 0.0);
	assert_false(fs_stats_ci_clipped(&raw));
	assert_near(ci.value, 1.0, 1e-15, 0.0);
	assert_near(ci.half_width, T_975_DF4, 0.0, 1e-6);
	assert_true(ci.ci_lo == 0.0);
	assert_near(ci.ci_hi, 1.0 + T_975_DF4, 0.0, 1e-6);
	assert_true(fs_stats_ci_clipped(&ci));
}

/* A share (utilisation, attainment) is cut to [0, 1] at both ends:
 * x = {1, 1, 1, 1, 0.5}: mean 0.9, s^2 = (4 * 0.01 + 0.16) / 4 = 0.05,
 * s / sqrt(5) = 0.1, interval 0.9 ± 0.2776445, upper end cut to 1. */
static void test_stats_clip_keeps_a_share_inside_unit_interval(void **state)
{
	static const double x[] = { 1, 1, 1, 1, 0.5 };
	struct fs_ci ci = fs_stats_ci_clip(fs_stats_mean_ci(x, 5, 0.95), 0.0, 1.0);

	(void)state;
	assert_near(ci.ci_lo, 0.9 - 0.1 * T_975_DF4, 1e-6, 0.0);
	assert_true(ci.ci_hi == 1.0);
	assert_true(fs_stats_ci_clipped(&ci));
}

/* Every replication costs exactly 2.8: a zero-width interval that is
 * "exact", not noise; one value has no interval and is not exact. */
static void test_stats_zero_width_interval_is_exact(void **state)
{
	static const double x[] = { 2.8, 2.8, 2.8 };
	struct fs_ci ci = fs_stats_mean_ci_nonneg(x, 3, 0.95);
	struct fs_ci one = fs_stats_mean_ci_nonneg(x, 1, 0.95);
	static const double y[] = { 2.8, 2.9 };
	struct fs_ci two = fs_stats_mean_ci_nonneg(y, 2, 0.95);

	(void)state;
	assert_true(fs_stats_ci_exact(&ci));
	assert_false(fs_stats_ci_clipped(&ci));
	assert_false(fs_stats_ci_exact(&one));
	assert_false(fs_stats_ci_exact(&two));
}

/*
 * With every trial a success the Wilson lower end is n / (n + z^2), z^2 =
 * 3.841459: 8/8 gives 0.675592 (the [67.6%, 100%] of 8 replications), below
 * 0.9 with an upper end of 1 -> undecided.  n / (n + z^2) >= 0.9 needs
 * n >= 9 z^2 = 34.573 -> 35 (35/38.841 = 0.90110; 34/37.841 = 0.89849).
 * 0/8 has upper end z^2 / (8 + z^2) = 0.324408 < 0.9 -> not met.
 */
static void test_stats_share_verdict_uses_the_wilson_interval(void **state)
{
	(void)state;
	assert_int_equal(fs_stats_share_verdict(8, 8, 0.9, 0.95), FS_SHARE_UNDECIDED);
	assert_int_equal(fs_stats_share_verdict(34, 34, 0.9, 0.95), FS_SHARE_UNDECIDED);
	assert_int_equal(fs_stats_share_verdict(35, 35, 0.9, 0.95), FS_SHARE_MET);
	assert_int_equal(fs_stats_share_verdict(0, 8, 0.9, 0.95), FS_SHARE_NOT_MET);
	assert_int_equal(fs_stats_share_verdict(0, 0, 0.9, 0.95), FS_SHARE_UNDECIDED);
	assert_near(fs_stats_wilson(8, 8, 0.95).ci_lo, 0.675592, 1e-6, 0.0);
}

/*
 * Trials needed, by hand from n / (n + z^2) >= c (all successes) and
 * z^2 / (n + z^2) < c (none):
 *   8 of 8 against 0.9:  n >= 9 z^2 = 34.57       -> 35
 *   16 of 16 against 0.8: decided (16 / 19.841 = 0.8064) -> 16 itself
 *   8 of 8 against 0.8:  n >= 4 z^2 = 15.37       -> 16
 *   0 of 1 against 0.5:  z^2 / (n + z^2) < 0.5 needs n > z^2 = 3.84 -> 4
 *   1 of 2 against 0.5 and 8 of 8 against 1: the share sits on the
 *   threshold, nothing decides -> 0.
 */
static void test_stats_share_trials_needed_matches_hand_values(void **state)
{
	(void)state;
	assert_int_equal(fs_stats_share_trials_needed(8, 8, 0.9, 0.95), 35);
	assert_int_equal(fs_stats_share_trials_needed(34, 34, 0.9, 0.95), 35);
	assert_int_equal(fs_stats_share_trials_needed(16, 16, 0.8, 0.95), 16);
	assert_int_equal(fs_stats_share_trials_needed(8, 8, 0.8, 0.95), 16);
	assert_int_equal(fs_stats_share_trials_needed(0, 1, 0.5, 0.95), 4);
	assert_int_equal(fs_stats_share_trials_needed(1, 2, 0.5, 0.95), 0);
	assert_int_equal(fs_stats_share_trials_needed(8, 8, 1.0, 0.95), 0);
	assert_int_equal(fs_stats_share_trials_needed(0, 0, 0.9, 0.95), 0);
}

/* A share between: 7 of 8 (0.875) against 0.8 is undecided; the needed
 * count is the first n at which the interval of share 0.875 clears 0.8, so
 * one trial fewer must not, checked against the closed form directly. */
static void test_stats_share_trials_needed_is_the_first_deciding_count(void **state)
{
	const double z = 1.959963984540054, p = 0.875, c = 0.8;
	size_t n = fs_stats_share_trials_needed(7, 8, c, 0.95);
	double lo_n, lo_prev;

	(void)state;
	assert_int_equal(fs_stats_share_verdict(7, 8, c, 0.95), FS_SHARE_UNDECIDED);
	assert_true(n > 8);
#define WILSON_LO(m) (((p + z * z / (2.0 * (m))) - z * sqrt(p * (1 - p) / (m) + \
                      z * z / (4.0 * (m) * (m)))) / (1 + z * z / (m)))
	lo_n = WILSON_LO((double)n);
	lo_prev = WILSON_LO((double)(n - 1));
#undef WILSON_LO
	assert_true(lo_n >= c);
	assert_true(lo_prev < c);
	print_message("7 of 8 against 0.8: %zu trials needed\n", n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_t_ci_of_small_sample_matches_hand_values),
		cmocka_unit_test(test_stats_t_ci_skips_nan_entries),
		cmocka_unit_test(test_stats_t_ci_of_one_value_has_no_interval),
		cmocka_unit_test(test_stats_t_ci_of_no_values_is_nan),
		cmocka_unit_test(test_stats_t_ci_of_constant_sample_collapses_to_the_mean),
		cmocka_unit_test(test_stats_wilson_8_of_10_matches_published_values),
		cmocka_unit_test(test_stats_wilson_stays_inside_unit_interval),
		cmocka_unit_test(test_stats_nonneg_ci_never_goes_below_zero),
		cmocka_unit_test(test_stats_clip_keeps_a_share_inside_unit_interval),
		cmocka_unit_test(test_stats_zero_width_interval_is_exact),
		cmocka_unit_test(test_stats_share_verdict_uses_the_wilson_interval),
		cmocka_unit_test(test_stats_share_trials_needed_matches_hand_values),
		cmocka_unit_test(test_stats_share_trials_needed_is_the_first_deciding_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
