/*
 * test_metrics.c — the log-bucket histogram (quantiles against exact sorted
 * quantiles, zeros, merge, cdf), Welford moments and Chan's merge, and the
 * time-weighted series.  Samples are quantile functions evaluated on a
 * regular grid, so no randomness is involved and they come out sorted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/metrics.h"
#include "util_test.h"

#define N_GRID 10000
/* The bound a plus slack for the rounding of log() at bucket edges. */
#define HIST_TOL (FS_HIST_REL_ERR * (1.0 + 1e-6))

/* Inverse CDFs evaluated at u in (0, 1); each is increasing in u. */
static double q_uniform(double u)
{
	return 1.0 + u * (1e6 - 1.0);
}

static double q_exponential(double u)
{
	return -2.5e6 * log1p(-u);            /* mean 2.5 ms in ns */
}

static double q_pareto(double u)
{
	return 1e3 * pow(1.0 - u, -1.0 / 1.5); /* x_m = 1 us, alpha = 1.5 */
}

static double q_wide_log(double u)
{
	return pow(10.0, 0.5 + 14.0 * u);     /* log-uniform over 14 decades */
}

/* values[k] = q((k + 0.5) / n): sorted, deterministic. */
static double *grid_sample(double (*q)(double), size_t n)
{
	double *v = malloc(n * sizeof *v);
	size_t k;

	assert_non_null(v);
	for (k = 0; k < n; k++)
		v[k] = q(((double)k + 0.5) / (double)n);
	return v;
}

static void check_quantiles(double (*q)(double))
{
	double *v = grid_sample(q, N_GRID);
	struct fs_hist h;
	size_t k, rank;
	static const size_t pm[] = { 1, 10, 100, 250, 500, 750, 900, 950, 990, 999, 1000 };

	fs_hist_init(&h);
	for (k = 0; k < N_GRID; k++)
		fs_hist_add(&h, v[k]);
	assert_int_equal(h.n, N_GRID);
	for (k = 0; k < sizeof pm / sizeof pm[0]; k++) {
		/* Nearest rank ceil(p n) in exact integer arithmetic. */
		rank = (pm[k] * N_GRID + 999) / 1000;
		assert_near(fs_hist_quantile(&h, (double)pm[k] / 1000.0), v[rank - 1],
		            0.0, HIST_TOL);
	}
	assert_near(fs_hist_quantile(&h, 0.0), v[0], 0.0, 0.0);
	assert_near(fs_hist_quantile(&h, 1.0), v[N_GRID - 1], 0.0, 0.0);
	assert_near(h.min, v[0], 0.0, 0.0);
	assert_near(h.max, v[N_GRID - 1], 0.0, 0.0);
	fs_hist_fini(&h);
	free(v);
}

static void test_hist_quantiles_within_relative_error_uniform(void **state)
{
	(void)state;
	check_quantiles(q_uniform);
}

static void test_hist_quantiles_within_relative_error_exponential(void **state)
{
	(void)state;
	check_quantiles(q_exponential);
}

static void test_hist_quantiles_within_relative_error_pareto(void **state)
{
	(void)state;
	check_quantiles(q_pareto);
}

static void test_hist_quantiles_within_relative_error_log_uniform(void **state)
{
	(void)state;
	check_quantiles(q_wide_log);
}

static void test_hist_every_bucket_value_is_within_error_of_its_members(void **state)
{
	double v;

	(void)state;
	for (v = 1.0; v < 1e16; v *= 1.0137)
		assert_near(fs_hist_bucket_value(fs_hist_bucket_of(v)), v, 0.0, HIST_TOL);
	assert_int_equal(fs_hist_bucket_of(1.0), 0);
	assert_int_equal(fs_hist_bucket_of(0.25), 0);
	assert_int_equal(fs_hist_bucket_of(-3.0), 0);
	assert_int_equal(fs_hist_bucket_of(1e16), fs_hist_n_buckets() - 1);
	assert_int_equal(fs_hist_bucket_of(1e300), fs_hist_n_buckets() - 1);
	assert_int_equal(fs_hist_bucket_of(INFINITY), fs_hist_n_buckets() - 1);
	/* ceil(ln(1e16) / ln(1.005 / 0.995)) + 1 = 3685 + 1, by hand. */
	assert_int_equal(fs_hist_n_buckets(), 3686);
}

static void test_hist_counts_zeros_exactly(void **state)
{
	struct fs_hist h;
	int i;

	(void)state;
	fs_hist_init(&h);
	for (i = 0; i < 30; i++)
		fs_hist_add(&h, 0.0);
	for (i = 1; i <= 70; i++)
		fs_hist_add(&h, 1000.0 * i);
	assert_int_equal(h.n, 100);
	assert_int_equal(h.n_zero, 30);
	assert_near(fs_hist_quantile(&h, 0.0), 0.0, 0.0, 0.0);
	assert_near(fs_hist_quantile(&h, 0.30), 0.0, 0.0, 0.0);
	assert_near(fs_hist_quantile(&h, 0.31), 1000.0, 0.0, HIST_TOL);
	assert_near(fs_hist_quantile(&h, 1.0), 70000.0, 0.0, 0.0);
	assert_near(fs_hist_cdf(&h, 0.0), 0.30, 1e-12, 0.0);
	assert_near(fs_hist_cdf(&h, -1.0), 0.0, 0.0, 0.0);
	/* A negative value counts as a zero but is kept as the exact minimum. */
	fs_hist_add(&h, -2.0);
	assert_int_equal(h.n_zero, 31);
	assert_near(h.min, -2.0, 0.0, 0.0);
	assert_near(fs_hist_quantile(&h, 0.0), -2.0, 0.0, 0.0);
	fs_hist_fini(&h);
}

static void test_hist_tiny_and_huge_values_clamp_to_min_and_max(void **state)
{
	struct fs_hist h;

	(void)state;
	fs_hist_init(&h);
	fs_hist_add(&h, 0.01);               /* below FS_HIST_MIN_VALUE: bucket 0 */
	fs_hist_add(&h, 0.02);
	fs_hist_add(&h, 0.03);
	assert_int_equal(h.buckets[0], 3);
	/* Rank 2 of 3: bucket 0's representative (~0.995) clamped to max. */
	assert_near(fs_hist_quantile(&h, 0.5), 0.03, 0.0, 0.0);
	fs_hist_add(&h, 5e17);               /* above FS_HIST_MAX_VALUE: top bucket */
	assert_int_equal(h.buckets[fs_hist_n_buckets() - 1], 1);
	assert_near(fs_hist_quantile(&h, 1.0), 5e17, 0.0, 0.0);
	fs_hist_fini(&h);
}

static void test_hist_empty_gives_nan_quantile_and_zero_cdf(void **state)
{
	struct fs_hist h;

	(void)state;
	fs_hist_init(&h);
	assert_true(isnan(fs_hist_quantile(&h, 0.5)));
	assert_true(isnan(h.min));
	assert_near(fs_hist_cdf(&h, 10.0), 0.0, 0.0, 0.0);
	fs_hist_add(&h, 3.0);
	assert_true(isnan(fs_hist_quantile(&h, 1.5)));
	assert_true(isnan(fs_hist_quantile(&h, -0.1)));
	fs_hist_fini(&h);
}

static void test_hist_merge_equals_adding_all(void **state)
{
	double *v = grid_sample(q_pareto, N_GRID);
	struct fs_hist all, part[3], merged;
	size_t k, i;

	(void)state;
	fs_hist_init(&all);
	fs_hist_init(&merged);
	for (i = 0; i < 3; i++)
		fs_hist_init(&part[i]);
	for (k = 0; k < N_GRID; k++) {
		double x = (k % 11 == 0) ? 0.0 : v[k];

		fs_hist_add(&all, x);
		fs_hist_add(&part[(k * 7) % 3], x);
	}
	for (i = 0; i < 3; i++)
		fs_hist_merge(&merged, &part[i]);
	assert_int_equal(merged.n, all.n);
	assert_int_equal(merged.n_zero, all.n_zero);
	assert_near(merged.min, all.min, 0.0, 0.0);
	assert_near(merged.max, all.max, 0.0, 0.0);
	assert_memory_equal(merged.buckets, all.buckets,
	                    fs_hist_n_buckets() * sizeof *all.buckets);
	assert_near(fs_hist_quantile(&merged, 0.99), fs_hist_quantile(&all, 0.99), 0.0, 0.0);
	for (i = 0; i < 3; i++)
		fs_hist_fini(&part[i]);
	fs_hist_fini(&merged);
	fs_hist_fini(&all);
	free(v);
}

/* Exact fraction of the sorted sample v[0..n) that is <= x. */
static double exact_cdf(const double *v, size_t n, double x)
{
	size_t k = 0;

	while (k < n && v[k] <= x)
		k++;
	return (double)k / (double)n;
}

static void test_hist_cdf_brackets_exact_cdf_within_relative_error(void **state)
{
	double *v = grid_sample(q_exponential, N_GRID);
	struct fs_hist h;
	size_t k;
	double x;

	(void)state;
	fs_hist_init(&h);
	for (k = 0; k < N_GRID; k++)
		fs_hist_add(&h, v[k]);
	for (x = 1e3; x < 1e8; x *= 1.37) {
		double c = fs_hist_cdf(&h, x);

		/* A value is counted iff its bucket's representative is <= x,
		 * and the representative is within a of the value. */
		assert_true(c >= exact_cdf(v, N_GRID, x / (1.0 + 2.0 * FS_HIST_REL_ERR)));
		assert_true(c <= exact_cdf(v, N_GRID, x * (1.0 + 2.0 * FS_HIST_REL_ERR)));
	}
	for (k = 1; k < 100; k++) {
		double p = (double)k / 100.0;

		assert_true(fs_hist_cdf(&h, fs_hist_quantile(&h, p)) >= p - 1e-12);
	}
	assert_near(fs_hist_cdf(&h, v[0] * 0.5), 0.0, 0.0, 0.0);
	assert_near(fs_hist_cdf(&h, v[N_GRID - 1]), 1.0, 0.0, 0.0);
	fs_hist_fini(&h);
	free(v);
}

/* The finder gives every value fs_hist_bucket_of's bucket: values spread
 * log-uniformly over the whole range and beyond it, each bucket's floor and
 * the double just below it, whole numbers (latencies in ns) and the odd
 * ones (0, negative, below the minimum, infinity, NaN). */
static void test_hist_finder_matches_bucket_of(void **state)
{
	static const double odd[] = { 0.0, -1.0, 0.5, 1.0, 1.0000000000000002, 1e16,
	                              1e17, 1e300, INFINITY, -INFINITY, NAN };
	struct fs_hist_finder f;
	uint64_t x = 88172645463325252u;
	size_t i, nb = fs_hist_n_buckets();

	(void)state;
	fs_hist_finder_init(&f);
	for (i = 0; i < sizeof odd / sizeof odd[0]; i++)
		assert_int_equal(fs_hist_finder_bucket(&f, odd[i]), fs_hist_bucket_of(odd[i]));
	for (i = 0; i < 200000; i++) {
		double u, v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		u = (double)(x >> 11) * 0x1p-53;
		v = pow(10.0, -2.0 + 20.0 * u);               /* 1e-2 .. 1e18 */
		assert_int_equal(fs_hist_finder_bucket(&f, v), fs_hist_bucket_of(v));
		v = floor(v);                                 /* whole ns */
		assert_int_equal(fs_hist_finder_bucket(&f, v), fs_hist_bucket_of(v));
	}
	for (i = 1; i < nb; i += 7) {
		double edge = fs_hist_bucket_floor(i);

		assert_int_equal(fs_hist_finder_bucket(&f, edge), i);
		assert_int_equal(fs_hist_finder_bucket(&f, nextafter(edge, 0.0)),
		                 fs_hist_bucket_of(nextafter(edge, 0.0)));
		assert_true(fs_hist_finder_floor(&f, i) == edge);
	}
	assert_true(isinf(fs_hist_finder_floor(&f, nb)));
	fs_hist_finder_fini(&f);
}

static void test_moments_welford_matches_two_pass(void **state)
{
	/* A large offset: the naive sum-of-squares formula would lose it all. */
	double *v = grid_sample(q_exponential, N_GRID);
	struct fs_moments m;
	double sum = 0.0, ss = 0.0, mean;
	size_t k;

	(void)state;
	fs_moments_init(&m);
	assert_true(isnan(fs_moments_variance(&m)));
	for (k = 0; k < N_GRID; k++) {
		v[k] += 1e9;
		fs_moments_add(&m, v[k]);
		sum += v[k];
	}
	mean = sum / N_GRID;
	for (k = 0; k < N_GRID; k++)
		ss += (v[k] - mean) * (v[k] - mean);
	assert_int_equal(m.n, N_GRID);
	assert_near(m.mean, mean, 0.0, 1e-13);
	assert_near(fs_moments_variance(&m), ss / (N_GRID - 1), 0.0, 1e-9);
	assert_near(m.min, v[0], 0.0, 0.0);
	assert_near(m.max, v[N_GRID - 1], 0.0, 0.0);
	free(v);
}

static void test_moments_small_sample_by_hand(void **state)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct fs_moments m;
	size_t k;

	(void)state;
	fs_moments_init(&m);
	for (k = 0; k < 8; k++)
		fs_moments_add(&m, x[k]);
	/* mean 40/8 = 5; squared deviations sum to 32; sample variance 32/7. */
	assert_near(m.mean, 5.0, 1e-15, 0.0);
	assert_near(m.m2, 32.0, 1e-12, 0.0);
	assert_near(fs_moments_variance(&m), 32.0 / 7.0, 1e-12, 0.0);
	fs_moments_init(&m);
	fs_moments_add(&m, 3.0);
	assert_true(isnan(fs_moments_variance(&m)));
}

static void test_moments_chan_merge_equals_adding_all(void **state)
{
	double *v = grid_sample(q_pareto, N_GRID);
	static const size_t cuts[] = { 0, 1, 17, N_GRID / 2, N_GRID - 1, N_GRID };
	size_t c, k;
	struct fs_moments all;

	(void)state;
	fs_moments_init(&all);
	for (k = 0; k < N_GRID; k++)
		fs_moments_add(&all, v[k]);
	for (c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
		struct fs_moments lo, hi, hi_lo;

		fs_moments_init(&lo);
		fs_moments_init(&hi);
		for (k = 0; k < cuts[c]; k++)
			fs_moments_add(&lo, v[k]);
		for (k = cuts[c]; k < N_GRID; k++)
			fs_moments_add(&hi, v[k]);
		hi_lo = hi;
		fs_moments_merge(&hi_lo, &lo);       /* both orders */
		fs_moments_merge(&lo, &hi);
		assert_int_equal(lo.n, all.n);
		assert_near(lo.mean, all.mean, 0.0, 1e-12);
		assert_near(fs_moments_variance(&lo), fs_moments_variance(&all), 0.0, 1e-10);
		assert_near(lo.min, all.min, 0.0, 0.0);
		assert_near(lo.max, all.max, 0.0, 0.0);
		assert_int_equal(hi_lo.n, all.n);
		assert_near(hi_lo.mean, all.mean, 0.0, 1e-12);
		assert_near(fs_moments_variance(&hi_lo), fs_moments_variance(&all), 0.0, 1e-10);
		assert_near(hi_lo.min, all.min, 0.0, 0.0);
		assert_near(hi_lo.max, all.max, 0.0, 0.0);
	}
	free(v);
}

/*
 * interval 10, horizon 35: bins [0,10) [10,20) [20,30) [30,35).
 * value 2 on [0,5), 4 on [5,27) (crossing two bin edges in one set), 1 on
 * [27,35).  Areas by hand: 2*5+4*5 = 30, 4*10 = 40, 4*7+1*3 = 31, 1*5 = 5.
 */
static void test_tseries_step_function_by_hand(void **state)
{
	struct fs_tseries ts;

	(void)state;
	fs_tseries_init(&ts, 10, 35);
	assert_int_equal(ts.n_bins, 4);
	fs_tseries_set(&ts, 0, 2.0);
	fs_tseries_set(&ts, 5, 4.0);
	fs_tseries_set(&ts, 27, 1.0);
	fs_tseries_finish(&ts, 35);
	assert_near(fs_tseries_mean(&ts, 0), 3.0, 1e-12, 0.0);
	assert_near(fs_tseries_mean(&ts, 1), 4.0, 1e-12, 0.0);
	assert_near(fs_tseries_mean(&ts, 2), 3.1, 1e-12, 0.0);
	assert_near(fs_tseries_mean(&ts, 3), 1.0, 1e-12, 0.0);  /* 5 over 5 ns, not 10 */
	assert_near(fs_tseries_mean_over(&ts, 0, 35), 106.0 / 35.0, 1e-12, 0.0);
	assert_near(fs_tseries_mean_over(&ts, 10, 30), 71.0 / 20.0, 1e-12, 0.0);
	assert_near(fs_tseries_mean_over(&ts, -100, 1000), 106.0 / 35.0, 1e-12, 0.0);
	/* Half of bin 0 and half of bin 1, pro rata: (15 + 20) / 10. */
	assert_near(fs_tseries_mean_over(&ts, 5, 15), 3.5, 1e-12, 0.0);
	assert_true(isnan(fs_tseries_mean_over(&ts, 20, 20)));
	fs_tseries_fini(&ts);
}

static void test_tseries_value_is_zero_before_first_set(void **state)
{
	struct fs_tseries ts;

	(void)state;
	fs_tseries_init(&ts, 100, 300);
	fs_tseries_set(&ts, 150, 8.0);
	fs_tseries_finish(&ts, 300);
	assert_near(fs_tseries_mean(&ts, 0), 0.0, 0.0, 0.0);
	assert_near(fs_tseries_mean(&ts, 1), 4.0, 1e-12, 0.0);
	assert_near(fs_tseries_mean(&ts, 2), 8.0, 1e-12, 0.0);
	fs_tseries_fini(&ts);
}

static void test_tseries_partial_coverage_and_time_past_horizon(void **state)
{
	struct fs_tseries ts;

	(void)state;
	fs_tseries_init(&ts, 10, 40);
	fs_tseries_set(&ts, 0, 6.0);
	fs_tseries_set(&ts, 22, 3.0);
	/* Finished mid-bin: bin 2 is covered over [20, 25) only. */
	fs_tseries_finish(&ts, 25);
	assert_near(fs_tseries_mean(&ts, 2), (6.0 * 2 + 3.0 * 3) / 5.0, 1e-12, 0.0);
	assert_true(isnan(fs_tseries_mean(&ts, 3)));
	assert_near(fs_tseries_mean_over(&ts, 0, 40), (6.0 * 22 + 3.0 * 3) / 25.0, 1e-12, 0.0);
	fs_tseries_fini(&ts);

	fs_tseries_init(&ts, 10, 20);
	fs_tseries_set(&ts, 5, 1.0);
	fs_tseries_set(&ts, 50, 9.0);        /* beyond the horizon: ignored */
	fs_tseries_finish(&ts, 60);
	assert_near(fs_tseries_mean(&ts, 0), 0.5, 1e-12, 0.0);
	assert_near(fs_tseries_mean(&ts, 1), 1.0, 1e-12, 0.0);
	assert_near(fs_tseries_mean_over(&ts, 0, 20), 15.0 / 20.0, 1e-12, 0.0);
	fs_tseries_fini(&ts);
}

/* add_n(x, k) is the same as k calls of add(x), for histograms and moments. */
static void test_metrics_add_n_equals_repeated_add(void **state)
{
	struct fs_hist a, b;
	struct fs_moments ma, mb;
	const double values[] = { 3.5e6, 0.0, 1.2e7, 3.5e6, 9.9e8 };
	const uint64_t counts[] = { 4, 2, 1, 7, 3 };
	size_t i, k;

	(void)state;
	fs_hist_init(&a);
	fs_hist_init(&b);
	fs_moments_init(&ma);
	fs_moments_init(&mb);
	for (i = 0; i < 5; i++) {
		fs_hist_add_n(&a, values[i], counts[i]);
		fs_moments_add_n(&ma, values[i], counts[i]);
		for (k = 0; k < counts[i]; k++) {
			fs_hist_add(&b, values[i]);
			fs_moments_add(&mb, values[i]);
		}
	}
	assert_int_equal(a.n, b.n);
	assert_int_equal(a.n_zero, b.n_zero);
	assert_memory_equal(a.buckets, b.buckets, fs_hist_n_buckets() * sizeof *a.buckets);
	assert_near(a.min, b.min, 0.0, 0.0);
	assert_near(a.max, b.max, 0.0, 0.0);
	assert_int_equal(ma.n, mb.n);
	assert_near(ma.mean, mb.mean, 0.0, 1e-12);
	assert_near(fs_moments_variance(&ma), fs_moments_variance(&mb), 0.0, 1e-9);
	fs_hist_add_n(&a, 5.0, 0);                 /* a zero count adds nothing */
	assert_int_equal(a.n, b.n);
	fs_hist_fini(&a);
	fs_hist_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_quantiles_within_relative_error_uniform),
		cmocka_unit_test(test_hist_quantiles_within_relative_error_exponential),
		cmocka_unit_test(test_hist_quantiles_within_relative_error_pareto),
		cmocka_unit_test(test_hist_quantiles_within_relative_error_log_uniform),
		cmocka_unit_test(test_hist_every_bucket_value_is_within_error_of_its_members),
		cmocka_unit_test(test_hist_counts_zeros_exactly),
		cmocka_unit_test(test_hist_tiny_and_huge_values_clamp_to_min_and_max),
		cmocka_unit_test(test_hist_empty_gives_nan_quantile_and_zero_cdf),
		cmocka_unit_test(test_hist_merge_equals_adding_all),
		cmocka_unit_test(test_hist_cdf_brackets_exact_cdf_within_relative_error),
		cmocka_unit_test(test_hist_finder_matches_bucket_of),
		cmocka_unit_test(test_moments_welford_matches_two_pass),
		cmocka_unit_test(test_moments_small_sample_by_hand),
		cmocka_unit_test(test_moments_chan_merge_equals_adding_all),
		cmocka_unit_test(test_tseries_step_function_by_hand),
		cmocka_unit_test(test_tseries_value_is_zero_before_first_set),
		cmocka_unit_test(test_tseries_partial_coverage_and_time_past_horizon),
		cmocka_unit_test(test_metrics_add_n_equals_repeated_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
