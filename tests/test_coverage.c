/*
 * test_coverage.c — do fleetsim's nominal 95% intervals cover the truth
 * about 95% of the time?  200 independent estimates (seeds 1..200) of the
 * M/M/1 mean wait at rho = 0.5, each from 5 replications with a Student-t
 * interval; the exact value is rho / (mu - lambda).  With 200 trials the
 * share that covers has a standard error of 1.5 points, so 91-99% is the
 * acceptance band (about +-2.6 standard errors around 95%).  Then the mean,
 * p90 and p99 sojourn (pooled quantiles, sectioning intervals) of M/M/1 at
 * rho 0.8 and 0.9 against Exp(mu - lambda), with the throughput (truth
 * lambda) and the share of requests meeting an E2E SLO at the exact p90
 * (truth 0.9) from the same runs; and the mean wait, the share waiting at
 * most one service time, the busy fraction and the throughput of M/D/1
 * (Pollaczek-Khinchine) and M/M/4 (Erlang C).  Quick versions here, long
 * ones with FLEETSIM_CHECK_LONG=1 (`make check-long`).  Fixed seeds: the
 * outcome is deterministic.  Each band is written, with its binomial
 * standard error, above its test.
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
		struct fs_run_opts opts = { 5, 0, 2, (uint64_t)trial, false, NULL };
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

/* 1 when the interval holds the exact value. */
static int holds(const struct fs_ci *ci, double exact)
{
	return ci->ci_lo <= exact && exact <= ci->ci_hi;
}

/* Runs seeds 1..n_trials of sc (R = sc->sim.replications each) and adds to
 * covered[i] the intervals that hold exact[i]; pick(s, i) is figure i of a
 * summary. */
typedef const struct fs_ci *(*pick_fn)(const struct fs_summary *s, int i);

static void count_coverage(const struct fs_scenario *sc, int n_trials, int n_figs,
                           pick_fn pick, const double *exact, int *covered)
{
	int reps = sc->sim.replications, trial, i;

	for (i = 0; i < n_figs; i++)
		covered[i] = 0;
	for (trial = 1; trial <= n_trials; trial++) {
		struct fs_run_opts opts = { reps, 0, 2, (uint64_t)trial, false, NULL };
		struct fs_rep_result **res = fs_replicate_run(sc, &opts);
		struct fs_summary *s = fs_summary_build(sc, res, reps, (uint64_t)trial);

		for (i = 0; i < n_figs; i++)
			covered[i] += holds(pick(s, i), exact[i]);
		fs_summary_free(s);
		fs_replicate_free(res, reps);
	}
}

/* Figures of the sojourn runs: mean, p90, p99 sojourn, throughput, the share
 * of requests within the E2E SLO. */
enum { SJ_MEAN, SJ_P90, SJ_P99, SJ_THROUGHPUT, SJ_ATTAINMENT, SJ__COUNT };

static const struct fs_ci *pick_sojourn(const struct fs_summary *s, int i)
{
	static const int qty[3] = { FS_QTY_MEAN, FS_QTY_P90, FS_QTY_P99 };

	if (i == SJ_THROUGHPUT)
		return &s->groups[1].throughput_rps;
	if (i == SJ_ATTAINMENT)
		return &s->groups[1].slo_attainment;
	return &s->groups[1].lat_ms[FS_LAT_E2E][qty[i]];
}

/*
 * Over seeds 1..n_trials, R = 10 replications of horizon_services mean
 * service times each (warm-up 1,000), count the intervals that contain the
 * exact values of M/M/1: sojourn ~ Exp(mu - lambda), so mean 1 / (mu -
 * lambda) and p-quantile -ln(1 - p) / (mu - lambda); throughput lambda; with
 * an E2E SLO at the exact p90, the share of requests within it 0.9.
 * covered[]: indexed by SJ_*.
 */
static void sojourn_coverage(double rho, int n_trials, double horizon_services,
                             int covered[SJ__COUNT])
{
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	double gap_ms = 1000.0 / (100.0 - 100.0 * rho);     /* 1 / (mu - lambda) */
	double exact[SJ__COUNT] = { gap_ms, log(10.0) * gap_ms, log(100.0) * gap_ms,
	                            100.0 * rho, 0.9 };

	fs_test_mm1(&sc, &cls, 100.0 * rho, SERVICE_MEAN_NS,
	            (fs_ns)(horizon_services * (double)SERVICE_MEAN_NS), 1000 * SERVICE_MEAN_NS, 10);
	cls.slo.e2e_ns = (fs_ns)llround(exact[SJ_P90] * (double)FS_NS_PER_MS);
	cls.slo.attainment = 0.9;
	count_coverage(&sc, n_trials, SJ__COUNT, pick_sojourn, exact, covered);
	print_message("M/M/1 rho %.2f, %d seeds: mean %d, p90 %d, p99 %d, throughput %d, "
	              "SLO share %d covered (%.1f%%, %.1f%%, %.1f%%, %.1f%%, %.1f%%)\n",
	              rho, n_trials, covered[0], covered[1], covered[2], covered[3], covered[4],
	              100.0 * covered[0] / n_trials, 100.0 * covered[1] / n_trials,
	              100.0 * covered[2] / n_trials, 100.0 * covered[3] / n_trials,
	              100.0 * covered[4] / n_trials);
}

/* Figures of the waiting-time runs: mean wait, the share of requests that
 * waited at most one mean service time (a TTFT SLO: in queue mode the first
 * token is the service start, MODEL Q5), busy fraction, throughput. */
enum { WT_MEAN, WT_SHARE, WT_BUSY, WT_THROUGHPUT, WT__COUNT };

static const struct fs_ci *pick_wait(const struct fs_summary *s, int i)
{
	if (i == WT_SHARE)
		return &s->groups[1].slo_attainment;
	if (i == WT_BUSY)
		return &s->busy_fraction;
	if (i == WT_THROUGHPUT)
		return &s->groups[1].throughput_rps;
	return &s->groups[1].lat_ms[FS_LAT_QUEUE][FS_QTY_MEAN];
}

/*
 * Seeds 1..n_trials of `servers` servers at utilisation rho, R replications
 * of horizon_services mean service times (warm-up 1,000).  Exact values, in
 * units of the service time S = 10 ms: M/D/1 (fixed service, servers = 1)
 * Wq = rho S / (2 (1 - rho)) (Pollaczek-Khinchine) and P(Wq <= S) =
 * (1 - rho) e^rho (Erlang's M/D/1 waiting-time distribution at t = S);
 * M/M/c Wq = C(c, a) S / (c - a) and P(Wq <= S) = 1 - C(c, a) e^-(c - a)
 * with a = c rho.  Busy fraction rho, throughput lambda.
 */
static void wait_coverage(enum fs_service_kind service, int servers, double rho,
                          int n_trials, double horizon_services, int reps,
                          int covered[WT__COUNT])
{
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	double a = rho * servers, service_ms = 10.0, exact[WT__COUNT];
	const char *name = service == FS_SERVICE_FIXED ? "M/D/1" : "M/M/c";

	if (service == FS_SERVICE_FIXED) {
		exact[WT_MEAN] = rho * service_ms / (2.0 * (1.0 - rho));
		exact[WT_SHARE] = (1.0 - rho) * exp(rho);
	} else {
		exact[WT_MEAN] = fs_test_erlang_c(servers, a) * service_ms / (servers - a);
		exact[WT_SHARE] = 1.0 - fs_test_erlang_c(servers, a) * exp(-(servers - a));
	}
	exact[WT_BUSY] = rho;
	exact[WT_THROUGHPUT] = 100.0 * a;
	fs_test_mm1(&sc, &cls, 100.0 * a, SERVICE_MEAN_NS,
	            (fs_ns)(horizon_services * (double)SERVICE_MEAN_NS), 1000 * SERVICE_MEAN_NS,
	            reps);
	sc.engine.servers = servers;
	sc.engine.service.kind = service;
	cls.slo.ttft_ns = SERVICE_MEAN_NS;
	cls.slo.attainment = 0.5;
	count_coverage(&sc, n_trials, WT__COUNT, pick_wait, exact, covered);
	print_message("%s c=%d rho %.2f, %d seeds x %d reps: mean wait %d, P(wait <= S) %d, "
	              "busy %d, throughput %d covered (%.1f%%, %.1f%%, %.1f%%, %.1f%%)\n",
	              name, servers, rho, n_trials, reps, covered[0], covered[1], covered[2],
	              covered[3], 100.0 * covered[0] / n_trials, 100.0 * covered[1] / n_trials,
	              100.0 * covered[2] / n_trials, 100.0 * covered[3] / n_trials);
}

/* 40 seeds, rho 0.8, 20,000 service times per replication: a quick check
 * that the sectioning intervals are not far off; the standard error of a
 * share of 40 is 3.4 points, so 34 of 40 (85%) is the floor. */
static void test_coverage_mm1_sojourn_quantiles_quick(void **state)
{
	int covered[SJ__COUNT], i;

	(void)state;
	sojourn_coverage(0.8, 40, 20000, covered);
	for (i = 0; i < SJ__COUNT; i++)
		assert_true(covered[i] >= 34);
}

/* 60 seeds of 5 replications of 10,000 service times (M/M/4: 3,000): M/D/1
 * at rho 0.8 and M/M/4 at rho 0.85.  The standard error of a share of 60
 * near 95% is 2.8 points: 51 of 60 (85%) is the floor, 3.6 of them below
 * 95%. */
static void test_coverage_md1_mmc_waits_quick(void **state)
{
	int covered[WT__COUNT], i;

	(void)state;
	wait_coverage(FS_SERVICE_FIXED, 1, 0.8, 60, 10000, 5, covered);
	for (i = 0; i < WT__COUNT; i++)
		assert_true(covered[i] >= 51);
	wait_coverage(FS_SERVICE_EXPONENTIAL, 4, 0.85, 60, 3000, 5, covered);
	for (i = 0; i < WT__COUNT; i++)
		assert_true(covered[i] >= 51);
}

/* 300 seeds at rho 0.8 and 0.9, 120,000 service times per replication (the
 * p99 sojourn at rho 0.9 is 460 service times, and a section's share of
 * values above it comes from a few congestion episodes: the sections must
 * be long for that share to be near normal, M10 corrects what skewness is
 * left): coverage of every figure must lie in 275..295 of 300 (91.7-98.3%).
 * The standard error of a share of 300 near 95% is 1.26 points, so the
 * band is 2.6 of them each side.  The mean, p90 and p99 were once held to
 * 93-97% (1.6 standard errors), which an honest method leaves on some
 * sets of 300 seeds: at rho 0.8 the taus2 streams of seeds 1-300 cover the
 * mean 92.0%, of seeds 301-600 92.3% and of seeds 601-900 96.7%, where
 * MT19937's gave 96.0% and 94.3% (docs/STATISTICS.md). */
static void test_coverage_mm1_sojourn_quantiles_long(void **state)
{
	static const double rhos[2] = { 0.8, 0.9 };
	int covered[SJ__COUNT], i, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		sojourn_coverage(rhos[k], 300, 120000, covered);
		for (i = 0; i < SJ__COUNT; i++)
			assert_true(covered[i] >= 275 && covered[i] <= 295);
	}
}

/* 300 seeds of 10 replications at rho 0.9: M/D/1 with 120,000 service times
 * per replication, M/M/4 with 30,000 (as many arrivals).  Band 275..295 of
 * 300 (91.7-98.3%): 2.6 binomial standard errors (1.26 points) each side. */
static void test_coverage_md1_mmc_waits_long(void **state)
{
	int covered[WT__COUNT], i;

	(void)state;
	wait_coverage(FS_SERVICE_FIXED, 1, 0.9, 300, 120000, 10, covered);
	for (i = 0; i < WT__COUNT; i++)
		assert_true(covered[i] >= 275 && covered[i] <= 295);
	wait_coverage(FS_SERVICE_EXPONENTIAL, 4, 0.9, 300, 30000, 10, covered);
	for (i = 0; i < WT__COUNT; i++)
		assert_true(covered[i] >= 275 && covered[i] <= 295);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coverage_mm1_mean_wait_95_percent_intervals),
		cmocka_unit_test(test_coverage_mm1_sojourn_quantiles_quick),
		cmocka_unit_test(test_coverage_md1_mmc_waits_quick),
	};
	const struct CMUnitTest long_tests[] = {
		cmocka_unit_test(test_coverage_mm1_sojourn_quantiles_long),
		cmocka_unit_test(test_coverage_md1_mmc_waits_long),
	};
	const char *want_long = getenv("FLEETSIM_CHECK_LONG");

	if (want_long != NULL && strcmp(want_long, "1") == 0)
		return cmocka_run_group_tests(long_tests, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
