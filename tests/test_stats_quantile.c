/*
 * test_stats_quantile.c — the pooled quantile and its sectioning interval
 * (CDF inversion, Hall's skewness-corrected test, ends interpolated inside
 * their bucket, the histogram's error added in quadrature), and the skewness check of
 * a t interval, pinned against values worked by hand.  Each pinned number
 * says where it comes from.  Histograms are built here; nothing runs a
 * world.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "fleetsim/metrics.h"
#include "fleetsim/stats.h"
#include "util_test.h"

#define GAMMA ((1.0 + FS_HIST_REL_ERR) / (1.0 - FS_HIST_REL_ERR))
#define A FS_HIST_REL_ERR

/* t_{0.975, 2} = 4.302653 (R's qt(0.975, 2); NIST e-Handbook table: 4.303). */
#define T_975_DF2 4.302653

#define MAX_REPS 40

/* The histograms of n replications, empty after reps_init, and the
 * pointers fs_stats_quantile_ci takes. */
struct reps {
	struct fs_hist h[MAX_REPS];
	const struct fs_hist *hp[MAX_REPS];
	int n;
};

static void reps_init(struct reps *s, int n)
{
	assert_true(n <= MAX_REPS);
	s->n = n;
	for (int r = 0; r < n; r++) {
		fs_hist_init(&s->h[r]);
		s->hp[r] = &s->h[r];
	}
}

static void reps_fini(struct reps *s)
{
	for (int r = 0; r < s->n; r++)
		fs_hist_fini(&s->h[r]);
}

/* The q-quantile of the pooled replications with its 95% interval. */
static struct fs_ci reps_quantile(const struct reps *s, double q)
{
	return fs_stats_quantile_ci(s->hp, (size_t)s->n, q, 0.95);
}

/* Add count copies of each listed value to h. */
static void fill(struct fs_hist *h, const double *values, size_t n_values, uint64_t count)
{
	for (size_t i = 0; i < n_values; i++)
		fs_hist_add_n(h, values[i], count);
}

/* Four replications holding the same ten values: every section's quantile
 * falls in the same bucket, which used to give a zero-width interval.  The
 * shares are equal in every section (spread 0): 0.4 at the lower edge of
 * the median's bucket b = ceil(log(500) / log g), 0.5 at its upper edge
 * U = m g^b, so interpolated inside the bucket the test passes only at U
 * itself: both statistical ends are U, the lower one brought to the
 * estimate q = 2 U / (g + 1) = U (1 - a) (a = 0.005; (g - 1) / (g + 1) = a).
 * The histogram's error a q is then added in quadrature on each side:
 *     lo = q - a q = U (1 - a)^2,
 *     hi = q + sqrt((U - q)^2 + (a q)^2) = U (1 - a + a sqrt(1 + (1 - a)^2)),
 * [0.990025 U, 1.002053 U]: about the bucket, never zero width. */
static void test_stats_quantile_same_bucket_is_not_zero_width(void **state)
{
	static const double v[] = { 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000 };
	double b = ceil(log(500.0) / log(GAMMA));
	struct reps s;
	struct fs_ci ci;

	(void)state;
	reps_init(&s, 4);
	for (int r = 0; r < 4; r++)
		fill(&s.h[r], v, 10, 1);
	ci = reps_quantile(&s, 0.5);
	assert_int_equal(ci.method, FS_CI_SECTIONING);
	assert_int_equal(ci.sections, 4);
	assert_near(ci.value, fs_hist_bucket_value((size_t)b), 0, 1e-12);
	assert_near(ci.ci_lo, pow(GAMMA, b) * (1 - A) * (1 - A), 0, 1e-9);
	assert_near(ci.ci_hi, pow(GAMMA, b) * (1 - A + A * sqrt(1 + (1 - A) * (1 - A))), 0, 1e-9);
	assert_near(ci.ci_hi / pow(GAMMA, b), 1.002053, 0, 1e-6);
	assert_true(ci.ci_lo <= 500.0 && 500.0 <= ci.ci_hi);
	assert_true(ci.ci_hi > ci.ci_lo);
	assert_false(fs_stats_ci_exact(&ci));
	reps_fini(&s);
}

/* Every value the same: the quantile is deterministic, "exact". */
static void test_stats_quantile_of_constant_is_exact(void **state)
{
	static const double v[] = { 250 };
	struct reps s;
	struct fs_ci ci;

	(void)state;
	reps_init(&s, 3);
	for (int r = 0; r < 3; r++)
		fill(&s.h[r], v, 1, 7);
	ci = reps_quantile(&s, 0.99);
	assert_near(ci.value, 250.0, 0, 1e-15);
	assert_near(ci.ci_lo, 250.0, 0, 1e-15);
	assert_near(ci.ci_hi, 250.0, 0, 1e-15);
	assert_true(fs_stats_ci_exact(&ci));
	reps_fini(&s);
}

/*
 * Three replications of ten values each: all 100, all 200, all 300.  Pooled
 * median: rank 15 of 30, the bucket of 200.  The test of "mean share 0.5"
 * is Hall's T = sqrt(3) (u + g/18 + g u^2/3 + g^2 u^3/27), u = (Fbar -
 * 0.5) / s, g the shares' skewness (mean cubed deviation / s^3).  At the
 * upper edge of the bucket of 100 the shares are (1, 0, 0): Fbar 1/3,
 * s = 0.57735, u = -0.288675, g = 0.384900, T = -0.444673 >= -4.302653, so
 * the lower end lies in that bucket (brought up to the smallest value,
 * 100); at 200, (1, 1, 0): T = +0.444673 < 4.302653; at 300, (1, 1, 1):
 * s = 0 and Fbar >= 0.5, so the upper end lies in the bucket of 300
 * (brought down to the largest value, 300).
 */
static void test_stats_quantile_interval_matches_hand_inversion(void **state)
{
	static const double v[3] = { 100, 200, 300 };
	struct reps s;
	struct fs_ci ci;

	(void)state;
	assert_near(T_975_DF2 * sqrt(1.0 / 3.0) / sqrt(3.0), 1.434218, 0, 1e-6);
	reps_init(&s, 3);
	for (int r = 0; r < 3; r++)
		fill(&s.h[r], &v[r], 1, 10);
	ci = reps_quantile(&s, 0.5);
	assert_near(ci.value, fs_hist_bucket_value(fs_hist_bucket_of(200.0)), 0, 1e-12);
	assert_near(ci.ci_lo, 100.0, 0, 1e-12);
	assert_near(ci.ci_hi, 300.0, 0, 1e-12);
	/* The old estimator, the mean of the replications' medians, gives 200
	 * too here, but with a t half-width of 4.302653 x 100 / sqrt(3) = 248.4
	 * it reaches below 0; the inversion stays inside the data. */
	reps_fini(&s);
}

/*
 * A quantile on the atom at 0: 4, 6 and 8 zeros of 10 values (the rest 50).
 * Pooled: 18 zeros of 30, so the median is 0.  Shares at 0: 0.4, 0.6, 0.8,
 * mean 0.6, s = 0.2, skewness 0: T = sqrt(3) x 0.1 / 0.2 = 0.866 >= -4.302653
 * (lower end 0) but < 4.302653, so the upper end lies in the bucket of 50,
 * where the shares move to 1 (interpolated, the test passes from 44% of
 * the way through it; brought down to 50): [0, 50], not [0, 0].
 */
static void test_stats_quantile_at_zero_atom_has_an_upper_end(void **state)
{
	static const double fifty = 50.0;
	static const uint64_t zeros[3] = { 4, 6, 8 };
	struct reps s;
	struct fs_ci ci;

	(void)state;
	reps_init(&s, 3);
	for (int r = 0; r < 3; r++) {
		fill(&s.h[r], &fifty, 1, 10 - zeros[r]);
		fs_hist_add_n(&s.h[r], 0.0, zeros[r]);
	}
	ci = reps_quantile(&s, 0.5);
	assert_near(ci.value, 0.0, 1e-15, 0);
	assert_near(ci.ci_lo, 0.0, 1e-15, 0);
	assert_near(ci.ci_hi, 50.0, 0, 1e-12);
	reps_fini(&s);
}

/* Empty histograms (replications with no value) are skipped; none left:
 * NAN; one left: a value without an interval. */
static void test_stats_quantile_skips_empty_replications(void **state)
{
	static const double v[] = { 10, 20, 30 };
	struct reps s;
	struct fs_ci ci;

	(void)state;
	reps_init(&s, 3);
	ci = reps_quantile(&s, 0.5);
	assert_true(isnan(ci.value));
	fill(&s.h[1], v, 3, 1);
	ci = reps_quantile(&s, 0.5);
	assert_int_equal(ci.n, 1);
	assert_near(ci.value, fs_hist_bucket_value(fs_hist_bucket_of(20.0)), 0, 1e-12);
	assert_true(isnan(ci.ci_lo) && isnan(ci.ci_hi));
	reps_fini(&s);
}

/* More replications than sections: 40 replications make 20 sections of 2. */
static void test_stats_quantile_caps_the_sections(void **state)
{
	struct reps s;
	struct fs_ci ci;

	(void)state;
	reps_init(&s, 40);
	for (int r = 0; r < 40; r++) {
		double v[2] = { 10.0 + r, 1000.0 - r };

		fill(&s.h[r], v, 2, 3);
	}
	ci = reps_quantile(&s, 0.9);
	assert_int_equal(ci.sections, FS_STATS_MAX_SECTIONS);
	assert_int_equal(ci.n, 40);
	assert_true(ci.ci_lo <= ci.value && ci.value <= ci.ci_hi && ci.ci_hi > ci.ci_lo);
	reps_fini(&s);
}

/*
 * Nineteen replications at 1 and one at 100: sample skewness, by the
 * definition GSL uses (mean of cubed deviations over s^3, s with n - 1),
 * computed here from the formula: about 3.82, beyond 2 sqrt(6 / 20) = 1.095,
 * so Cochran's rule asks for ceil(25 g^2) replications.  1..20 is
 * symmetric: skewness 0, nothing suggested.
 */
static void test_stats_skewed_values_suggest_more_replications(void **state)
{
	double x[20], mean = 0, ss = 0, s3 = 0, sd, g;
	struct fs_ci ci;
	int i;

	(void)state;
	for (i = 0; i < 20; i++)
		x[i] = i == 19 ? 100.0 : 1.0;
	for (i = 0; i < 20; i++)
		mean += x[i] / 20.0;
	for (i = 0; i < 20; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	sd = sqrt(ss / 19.0);
	for (i = 0; i < 20; i++)
		s3 += pow((x[i] - mean) / sd, 3.0) / 20.0;
	g = s3;
	assert_true(g > 3.8 && g < 3.85);
	ci = fs_stats_mean_ci(x, 20, 0.95);
	assert_near(ci.skew, g, 0, 1e-9);
	assert_int_equal(ci.n_suggested, (size_t)ceil(25.0 * g * g));
	for (i = 0; i < 20; i++)
		x[i] = i + 1;
	ci = fs_stats_mean_ci(x, 20, 0.95);
	assert_near(ci.skew, 0.0, 1e-12, 0);
	assert_int_equal(ci.n_suggested, 0);
}

/* Five values cannot be checked: the largest skewness five values can
 * have, (5 - 2) / sqrt(5 - 1) = 1.5 with the n - 1 deviation smaller still,
 * is below 2 sqrt(6 / 5) = 2.19. */
static void test_stats_skew_check_needs_enough_values(void **state)
{
	static const double x[] = { 1, 1, 1, 1, 1000 };
	struct fs_ci ci = fs_stats_mean_ci(x, 5, 0.95);

	(void)state;
	assert_true(ci.skew > 1.0);
	assert_int_equal(ci.n_suggested, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_quantile_same_bucket_is_not_zero_width),
		cmocka_unit_test(test_stats_quantile_of_constant_is_exact),
		cmocka_unit_test(test_stats_quantile_interval_matches_hand_inversion),
		cmocka_unit_test(test_stats_quantile_at_zero_atom_has_an_upper_end),
		cmocka_unit_test(test_stats_quantile_skips_empty_replications),
		cmocka_unit_test(test_stats_quantile_caps_the_sections),
		cmocka_unit_test(test_stats_skewed_values_suggest_more_replications),
		cmocka_unit_test(test_stats_skew_check_needs_enough_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
