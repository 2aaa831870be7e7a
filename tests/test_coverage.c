/*
 * test_coverage.c — do fleetsim's nominal 95% intervals cover the truth
 * about 95% of the time?  200 independent estimates (seeds 1..200) of the
 * M/M/1 mean wait at rho = 0.5, each from 5 replications with a Student-t
 * interval; the exact value is rho / (mu - lambda).  With 200 trials the
 * share that covers has a standard error of 1.5 points, so 91-99% is the
 * acceptance band (about +-2.6 standard errors around 95%).  Then the mean,
 * p90 and p99 sojourn (pooled quantiles, sectioning intervals) of M/M/1 at
 * rho 0.8 and 0.9 against Exp(mu - lambda): 40 seeds at rho 0.8 here, 300
 * seeds of 120,000 service times at each rho with FLEETSIM_CHECK_LONG=1
 * (`make check-long`, band 93-97%).  Fixed seeds: the outcome is deterministic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/replicate.h"
#include "fleetsim/scenario_cfg.h"
#include "fleetsim/summary.h"
#include "util_test.h"

#define SERVICE_MEAN_NS (10 * FS_NS_PER_MS)
#define N_TRIALS 200

static void test_coverage_mm1_mean_wait_95_percent_intervals(void **state)
{
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	double wq_ms = 0.5 / (1.0 - 0.5) * 10.0;
	int trial, covered = 0;

	(void)state;
	fs_test_mm1(&sc, &cls, 50.0, SERVICE_MEAN_NS,      /* rho 0.5 */
	            20000 * SERVICE_MEAN_NS, 200 * SERVICE_MEAN_NS, 5);
	for (trial = 1; trial <= N_TRIALS; trial++) {
		struct fs_run_opts opts = { 5, 0, 2, (uint64_t)trial, false };
		struct fs_rep_result **res = fs_replicate_run(&sc, &opts);
		struct fs_summary *s = fs_summary_build(&sc, res, 5, (uint64_t)trial);
		const struct fs_ci *ci = &s->groups[1].lat_ms[FS_LAT_QUEUE][FS_QTY_MEAN];

		covered += ci->ci_lo <= wq_ms && wq_ms <= ci->ci_hi;
		fs_summary_free(s);
		fs_replicate_free(res, 5);
	}
	print_message("coverage: %d of %d intervals (%.1f%%) contain Wq = %.3f ms\n",
	              covered, N_TRIALS, 100.0 * covered / N_TRIALS, wq_ms);
	assert_true(covered >= 182 && covered <= 198);      /* 91%..99% */
}

/*
 * Over seeds 1..n_trials, R = 10 replications of horizon_services mean
 * service times each (warm-up 1,000), count the intervals of the mean, p90
 * and p99 sojourn (E2E) that contain the exact values of M/M/1: sojourn ~
 * Exp(mu - lambda), so mean 1 / (mu - lambda) and p-quantile
 * -ln(1 - p) / (mu - lambda).  covered[0..2]: mean, p90, p99.
 */
static void sojourn_coverage(double rho, int n_trials, double horizon_services,
                             int covered[3])
{
	static const int qty[3] = { FS_QTY_MEAN, FS_QTY_P90, FS_QTY_P99 };
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	double gap_ms = 1000.0 / (100.0 - 100.0 * rho);     /* 1 / (mu - lambda) */
	double exact[3] = { gap_ms, log(10.0) * gap_ms, log(100.0) * gap_ms };
	int trial, i;

	fs_test_mm1(&sc, &cls, 100.0 * rho, SERVICE_MEAN_NS,
	            (fs_ns)(horizon_services * (double)SERVICE_MEAN_NS), 1000 * SERVICE_MEAN_NS, 10);
	covered[0] = covered[1] = covered[2] = 0;
	for (trial = 1; trial <= n_trials; trial++) {
		struct fs_run_opts opts = { 10, 0, 2, (uint64_t)trial, false };
		struct fs_rep_result **res = fs_replicate_run(&sc, &opts);
		struct fs_summary *s = fs_summary_build(&sc, res, 10, (uint64_t)trial);

		for (i = 0; i < 3; i++) {
			const struct fs_ci *ci = &s->groups[1].lat_ms[FS_LAT_E2E][qty[i]];

			covered[i] += ci->ci_lo <= exact[i] && exact[i] <= ci->ci_hi;
		}
		fs_summary_free(s);
		fs_replicate_free(res, 10);
	}
	print_message("rho %.2f, %d seeds: mean %d, p90 %d, p99 %d covered "
	              "(%.1f%%, %.1f%%, %.1f%%)\n", rho, n_trials, covered[0], covered[1],
	              covered[2], 100.0 * covered[0] / n_trials,
	              100.0 * covered[1] / n_trials, 100.0 * covered[2] / n_trials);
}

/* 40 seeds, rho 0.8, 20,000 service times per replication: a quick check
 * that the sectioning intervals are not far off; the standard error of a
 * share of 40 is 3.4 points, so 34 of 40 (85%) is the floor. */
static void test_coverage_mm1_sojourn_quantiles_quick(void **state)
{
	int covered[3], i;

	(void)state;
	sojourn_coverage(0.8, 40, 20000, covered);
	for (i = 0; i < 3; i++)
		assert_true(covered[i] >= 34);
}

/* 300 seeds at rho 0.8 and 0.9, 120,000 service times per replication (the
 * p99 sojourn at rho 0.9 is 460 service times, and a section's share of
 * values above it comes from a few congestion episodes: the sections must
 * be long for that share to be near normal, M10 corrects what skewness is
 * left): coverage of the mean, p90 and p99 must lie in 93-97% (279..291 of
 * 300) for every figure.  The standard error of a share of 300 near 95% is
 * 1.26 points, so the band is about 1.6 of them each side. */
static void test_coverage_mm1_sojourn_quantiles_long(void **state)
{
	static const double rhos[2] = { 0.8, 0.9 };
	int covered[3], i, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		sojourn_coverage(rhos[k], 300, 120000, covered);
		for (i = 0; i < 3; i++)
			assert_true(covered[i] >= 279 && covered[i] <= 291);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coverage_mm1_mean_wait_95_percent_intervals),
		cmocka_unit_test(test_coverage_mm1_sojourn_quantiles_quick),
	};
	const struct CMUnitTest long_tests[] = {
		cmocka_unit_test(test_coverage_mm1_sojourn_quantiles_long),
	};
	const char *want_long = getenv("FLEETSIM_CHECK_LONG");

	if (want_long != NULL && strcmp(want_long, "1") == 0)
		return cmocka_run_group_tests(long_tests, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
