/*
 * test_rng_streams.c — the streams of low seeds are independent: for base
 * seeds 1..20, replications 0..15 and the arrival and service streams (640
 * streams, the ones an M/M/1 run of scenarios/mm1.json draws from), 2,048
 * uniforms each.  A derivation that mixed seeds weakly (seed + replication,
 * say, which makes seed s replication r+1 the stream of seed s+1
 * replication r) or tied the arrival stream to the service stream shows up
 * as identical or correlated streams.  Fixed seeds: deterministic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "fleetsim/rng.h"
#include "util_test.h"

#define N_SEEDS 20
#define N_REPS 16
#define N_STREAMS (2 * N_SEEDS * N_REPS)
#define N_DRAWS 2048

/* Standardised uniforms (u - 1/2) sqrt(12) of every stream, row-major. */
static double *draw_all(void)
{
	double *x = malloc((size_t)N_STREAMS * N_DRAWS * sizeof *x);
	int s, r, k, i, row = 0;

	assert_non_null(x);
	for (k = 0; k < 2; k++)
		for (s = 1; s <= N_SEEDS; s++)
			for (r = 0; r < N_REPS; r++, row++) {
				struct fs_rng *g = fs_rng_alloc((uint64_t)s, (uint64_t)r,
				                                k == 0 ? FS_STREAM_ARRIVALS
				                                       : FS_STREAM_SERVICE, 0);

				for (i = 0; i < N_DRAWS; i++)
					x[(size_t)row * N_DRAWS + (size_t)i] =
						(fs_rng_uniform(g) - 0.5) * sqrt(12.0);
				fs_rng_free(g);
			}
	return x;
}

/*
 * Each stream's mean: z = sum / sqrt(n) is about N(0, 1), so the sum of the
 * 640 z^2 is chi-square with 640 degrees of freedom (mean 640, standard
 * deviation sqrt(1280) = 35.8): accepted within 540..745 (about 2.9
 * standard deviations each side).
 */
static void test_rng_streams_means_of_low_seeds_are_unbiased(void **state)
{
	double *x = draw_all(), chi2 = 0;
	int row, i;

	(void)state;
	for (row = 0; row < N_STREAMS; row++) {
		double sum = 0;

		for (i = 0; i < N_DRAWS; i++)
			sum += x[(size_t)row * N_DRAWS + (size_t)i];
		chi2 += sum * sum / N_DRAWS;
	}
	print_message("sum of z^2 over %d stream means: %.1f\n", N_STREAMS, chi2);
	assert_true(chi2 > 540.0 && chi2 < 745.0);
	free(x);
}

/*
 * Every pair of the 640 streams (204,480 pairs, the arrival and service
 * streams of one replication included): z = sum(x y) / sqrt(n) is about
 * N(0, 1) for independent streams.  The mean of z^2 over the pairs is 1
 * with a standard error of about sqrt(2 / 204480) = 0.0031: accepted within
 * 0.98..1.02.  The largest |z| of 204,480 normal values is about 4.9;
 * accepted below 5.6 (two identical streams would give sqrt(2048) = 45).
 */
static void test_rng_streams_of_low_seeds_are_uncorrelated(void **state)
{
	double *x = draw_all(), sum_z2 = 0, max_abs = 0;
	long pairs = 0;
	int a, b, i;

	(void)state;
	for (a = 0; a < N_STREAMS; a++)
		for (b = a + 1; b < N_STREAMS; b++) {
			const double *xa = x + (size_t)a * N_DRAWS, *xb = x + (size_t)b * N_DRAWS;
			double dot = 0, z;

			for (i = 0; i < N_DRAWS; i++)
				dot += xa[i] * xb[i];
			z = dot / sqrt((double)N_DRAWS);
			sum_z2 += z * z;
			if (fabs(z) > max_abs)
				max_abs = fabs(z);
			pairs++;
		}
	print_message("%ld pairs: mean z^2 %.4f, largest |z| %.2f\n", pairs, sum_z2 / pairs,
	              max_abs);
	assert_int_equal(pairs, (long)N_STREAMS * (N_STREAMS - 1) / 2);
	assert_near(sum_z2 / (double)pairs, 1.0, 0.02, 0.0);
	assert_true(max_abs < 5.6);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_streams_means_of_low_seeds_are_unbiased),
		cmocka_unit_test(test_rng_streams_of_low_seeds_are_uncorrelated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
