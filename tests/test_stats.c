/*
 * test_stats.c — Student-t intervals of a mean and Wilson intervals of a
 * proportion, pinned against values worked by hand from the closed forms.
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
