/*
 * test_lengths.c — prompt/output length distributions: fixed, uniform,
 * lognormal, Zipf and empirical draws against their exact moments or
 * probabilities, clamping, the Zipf table and its errors, and fs_length_mean.
 * Fixed seeds; each statistical tolerance is a number of standard errors
 * computed from the distribution's own variance (stated at the check).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "util_test.h"

#define N_DRAWS 200000

static struct fs_rng *stream(uint32_t index)
{
	return fs_rng_alloc(42, 0, FS_STREAM_PROMPT_LEN, index);
}

/* Tolerance for a frequency with probability p over n draws: 5 binomial
 * standard errors. */
static double freq_tol(double p, double n)
{
	return 5.0 * sqrt(p * (1.0 - p) / n);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void test_lengths_fixed_is_clamped(void **state)
{
	struct fs_length_cfg c = {.kind = FS_LENGTH_FIXED, .fixed_tokens = 5,
	                          .min_tokens = 10, .max_tokens = 100};
	struct fs_rng *r = stream(0);

	(void)state;
	assert_int_equal(fs_length_sample(&c, r), 10);
	c.fixed_tokens = 500;
	assert_int_equal(fs_length_sample(&c, r), 100);
	c.fixed_tokens = 0;
	c.min_tokens = 0;                  /* min below 1 means 1 */
	c.max_tokens = 0;                  /* no upper bound */
	assert_int_equal(fs_length_sample(&c, r), 1);
	assert_near(fs_length_mean(&c), 1.0, 0, 0);
	fs_rng_free(r);
}

static void test_lengths_uniform_bounds_and_mean(void **state)
{
	struct fs_length_cfg c = {.kind = FS_LENGTH_UNIFORM, .min_tokens = 3, .max_tokens = 7};
	struct fs_rng *r = stream(1);
	long counts[8] = {0};
	double sum = 0.0;

	(void)state;
	for (int i = 0; i < N_DRAWS; i++) {
		int64_t v = fs_length_sample(&c, r);

		assert_true(v >= 3 && v <= 7);
		counts[v]++;
		sum += (double)v;
	}
	/* variance of the discrete uniform on 5 values: (5^2 - 1)/12 = 2;
	 * 5 standard errors of the mean */
	assert_near(sum / N_DRAWS, 5.0, 5.0 * sqrt(2.0 / N_DRAWS), 0);
	for (int v = 3; v <= 7; v++)
		assert_near((double)counts[v] / N_DRAWS, 0.2, freq_tol(0.2, N_DRAWS), 0);
	assert_near(fs_length_mean(&c), 5.0, 1e-12, 0);
	fs_rng_free(r);
}

static void test_lengths_lognormal_median(void **state)
{
	const double median = 500.0, sigma = 1.0;
	struct fs_length_cfg c = {.kind = FS_LENGTH_LOGNORMAL, .median_tokens = median,
	                          .sigma = sigma, .min_tokens = 1, .max_tokens = 0};
	struct fs_rng *r = stream(2);
	int64_t *v = malloc(N_DRAWS * sizeof *v);
	double se;

	(void)state;
	for (int i = 0; i < N_DRAWS; i++)
		v[i] = fs_length_sample(&c, r);
	qsort(v, N_DRAWS, sizeof *v, cmp_i64);
	/* SE of a sample median: 1/(2 f(m) sqrt(n)), f(m) = 1/(m sigma sqrt(2 pi))
	 * for the lognormal; 5 SE plus 1 token of rounding */
	se = median * sigma * sqrt(2.0 * M_PI) / (2.0 * sqrt((double)N_DRAWS));
	assert_near((double)v[N_DRAWS / 2], median, 5.0 * se + 1.0, 0);
	/* unclamped mean m e^{sigma^2/2}; the min of 1 changes it by < 1e-6 */
	assert_near(fs_length_mean(&c), median * exp(0.5 * sigma * sigma), 0, 1e-6);
	free(v);
	fs_rng_free(r);
}

static double phi(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

static void test_lengths_lognormal_clamps(void **state)
{
	struct fs_length_cfg c = {.kind = FS_LENGTH_LOGNORMAL, .median_tokens = 500.0,
	                          .sigma = 2.0, .min_tokens = 100, .max_tokens = 1000};
	struct fs_rng *r = stream(3);
	long at_min = 0, at_max = 0;
	double sum = 0.0, sum2 = 0.0, mean, sd;
	/* round(X) <= 100 iff X < 100.5; round(X) >= 1000 iff X >= 999.5 */
	double p_min = phi((log(100.5) - log(500.0)) / 2.0);
	double p_max = 1.0 - phi((log(999.5) - log(500.0)) / 2.0);

	(void)state;
	for (int i = 0; i < N_DRAWS; i++) {
		int64_t v = fs_length_sample(&c, r);

		assert_true(v >= 100 && v <= 1000);
		at_min += v == 100;
		at_max += v == 1000;
		sum += (double)v;
		sum2 += (double)v * (double)v;
	}
	assert_near((double)at_min / N_DRAWS, p_min, freq_tol(p_min, N_DRAWS), 0);
	assert_near((double)at_max / N_DRAWS, p_max, freq_tol(p_max, N_DRAWS), 0);
	/* fs_length_mean ignores rounding inside the range (< 0.5 token); the
	 * sample mean is within 5 SE (SE from the sample variance) */
	mean = sum / N_DRAWS;
	sd = sqrt(sum2 / N_DRAWS - mean * mean);
	assert_near(fs_length_mean(&c), mean, 5.0 * sd / sqrt((double)N_DRAWS) + 0.5, 0);
	fs_rng_free(r);
}

static void test_lengths_zipf_frequencies(void **state)
{
	struct fs_length_cfg c = {.kind = FS_LENGTH_ZIPF, .zipf_s = 1.2, .zipf_n = 100,
	                          .min_tokens = 1, .max_tokens = 0};
	struct fs_rng *r = stream(4);
	char msg[256];
	long n1 = 0, n2 = 0;
	double h = 0.0, p1, p2, sum = 0.0, mean_exact = 0.0;

	(void)state;
	assert_int_equal(fs_length_prepare(&c, msg, sizeof msg), 0);
	assert_non_null(c.zipf_cdf);
	assert_near(c.zipf_cdf[99], 1.0, 0, 0);
	for (int k = 1; k <= 100; k++) {
		h += pow(k, -1.2);
		mean_exact += k * pow(k, -1.2);
	}
	p1 = 1.0 / h;
	p2 = pow(2.0, -1.2) / h;
	mean_exact /= h;
	for (int i = 0; i < N_DRAWS; i++) {
		int64_t v = fs_length_sample(&c, r);

		assert_true(v >= 1 && v <= 100);
		n1 += v == 1;
		n2 += v == 2;
		sum += (double)v;
	}
	assert_near((double)n1 / N_DRAWS, p1, freq_tol(p1, N_DRAWS), 0);
	assert_near((double)n2 / N_DRAWS, p2, freq_tol(p2, N_DRAWS), 0);
	assert_near(fs_length_mean(&c), mean_exact, 0, 1e-9);
	/* the sample mean: 5 SE with the SD bounded by the range (< 50) */
	assert_near(sum / N_DRAWS, mean_exact, 5.0 * 50.0 / sqrt((double)N_DRAWS), 0);
	/* clamped to [5, 10]: P(5) = P(k <= 5) */
	c.min_tokens = 5;
	c.max_tokens = 10;
	for (int i = 0; i < 1000; i++) {
		int64_t v = fs_length_sample(&c, r);
		assert_true(v >= 5 && v <= 10);
	}
	fs_length_fini(&c);
	assert_null(c.zipf_cdf);
	fs_rng_free(r);
}

static void test_lengths_zipf_prepare_errors(void **state)
{
	struct fs_length_cfg c = {.kind = FS_LENGTH_ZIPF, .zipf_s = 0.0, .zipf_n = 100};
	char msg[256];

	(void)state;
	assert_int_equal(fs_length_prepare(&c, msg, sizeof msg), -1);
	assert_string_equal(msg, "expected a zipf exponent s > 0, found 0");
	c.zipf_s = 1.0;
	c.zipf_n = 2000000;
	assert_int_equal(fs_length_prepare(&c, msg, sizeof msg), -1);
	assert_string_equal(msg, "expected a zipf support size n in 1..1000000, found 2000000");
	assert_null(c.zipf_cdf);
	c.kind = FS_LENGTH_FIXED;               /* other kinds need nothing */
	assert_int_equal(fs_length_prepare(&c, msg, sizeof msg), 0);
}

static void test_lengths_empirical_uniform_choice(void **state)
{
	struct fs_length_cfg c = {.kind = FS_LENGTH_EMPIRICAL, .min_tokens = 1,
	                          .max_tokens = 35};
	struct fs_rng *r = stream(5);
	long counts[4] = {0};

	(void)state;
	c.n_empirical = 4;
	c.empirical = malloc(4 * sizeof *c.empirical);
	c.empirical_path = strdup("lens.txt");
	for (int i = 0; i < 4; i++)
		c.empirical[i] = 10 * (i + 1);
	for (int i = 0; i < N_DRAWS; i++) {
		int64_t v = fs_length_sample(&c, r);

		assert_true(v == 10 || v == 20 || v == 30 || v == 35);   /* 40 clamped */
		counts[v == 35 ? 3 : v / 10 - 1]++;
	}
	for (int i = 0; i < 4; i++)
		assert_near((double)counts[i] / N_DRAWS, 0.25, freq_tol(0.25, N_DRAWS), 0);
	assert_near(fs_length_mean(&c), (10 + 20 + 30 + 35) / 4.0, 1e-12, 0);
	fs_length_fini(&c);
	assert_null(c.empirical);
	assert_null(c.empirical_path);
	fs_rng_free(r);
}

static void test_lengths_same_seed_same_draws(void **state)
{
	struct fs_length_cfg c = {.kind = FS_LENGTH_LOGNORMAL, .median_tokens = 100,
	                          .sigma = 0.5, .min_tokens = 1, .max_tokens = 10000};
	struct fs_rng *a = stream(7), *b = stream(7);

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(fs_length_sample(&c, a), fs_length_sample(&c, b));
	fs_rng_free(a);
	fs_rng_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths_fixed_is_clamped),
		cmocka_unit_test(test_lengths_uniform_bounds_and_mean),
		cmocka_unit_test(test_lengths_lognormal_median),
		cmocka_unit_test(test_lengths_lognormal_clamps),
		cmocka_unit_test(test_lengths_zipf_frequencies),
		cmocka_unit_test(test_lengths_zipf_prepare_errors),
		cmocka_unit_test(test_lengths_empirical_uniform_choice),
		cmocka_unit_test(test_lengths_same_seed_same_draws),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
