/*
 * test_coverage.c — do fleetsim's nominal 95% intervals cover the truth
 * about 95% of the time?  200 independent estimates (seeds 1..200) of the
 * M/M/1 mean wait at rho = 0.5, each from 5 replications with a Student-t
 * interval; the exact value is rho / (mu - lambda).  With 200 trials the
 * share that covers has a standard error of 1.5 points, so 91-99% is the
 * acceptance band (about +-2.6 standard errors around 95%).  Fixed seeds:
 * the outcome is deterministic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
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
	memset(&sc, 0, sizeof sc);
	memset(&cls, 0, sizeof cls);
	sc.name = "coverage";
	sc.sim.horizon_ns = 20000 * SERVICE_MEAN_NS;
	sc.sim.warmup_ns = 200 * SERVICE_MEAN_NS;
	sc.sim.sample_interval_ns = sc.sim.horizon_ns / 10;
	sc.sim.replications = 5;
	sc.sim.max_in_system = 1000000;
	sc.workload.has_shared_arrivals = true;
	sc.workload.arrivals.kind = FS_ARRIVAL_POISSON;
	sc.workload.arrivals.rate_per_s = 50.0;       /* rho = 50 / 100 */
	cls.name = "jobs";
	cls.share = 1.0;
	cls.prompt.kind = FS_LENGTH_FIXED;
	cls.prompt.fixed_tokens = cls.prompt.min_tokens = cls.prompt.max_tokens = 1;
	cls.output = cls.prompt;
	sc.workload.classes = &cls;
	sc.workload.n_classes = 1;
	sc.engine.kind = FS_ENGINE_QUEUE;
	sc.engine.servers = 1;
	sc.engine.service.kind = FS_SERVICE_EXPONENTIAL;
	sc.engine.service.mean_ns = SERVICE_MEAN_NS;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coverage_mm1_mean_wait_95_percent_intervals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
