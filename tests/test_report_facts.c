/*
 * test_report_facts.c — the report's sentences are true of the directory
 * they describe.  Section 1's simulation line: the horizon includes the
 * warm-up, and a sweep states the fewest and most replications its points
 * ran (a point the sweep had to decide runs more), also when no point is
 * feasible; a run of a scenario with a sweep block lists no axes as swept.
 * The first page's cheaper plan: a pool on a commitment is not
 * said to pay by the hour; only the instances above its commitment (the
 * overflow, rented by the hour) are weighed against the break-even, with the
 * saving computed from summary.json's figures.  A run's first page
 * recommends the configuration only when it is stable and proven to meet
 * its SLO target.  Needs gnuplot for the plots:
 * skips with a message when it is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util_test.h"

#define SWEEP "tests/data/report_sweep_reps.json"
#define COMMIT "tests/data/report_commit.json"

static void need_gnuplot(void)
{
	if (!fs_test_have_cmd("gnuplot")) {
		fprintf(stderr, "gnuplot not in PATH (package gnuplot-nox): skipping\n");
		skip();
	}
}

/* The fewest and most replications of sweep.json's points. */
static void point_reps(const char *dir, double *lo, double *hi)
{
	cJSON *sweep = fs_test_read_json(dir, "sweep.json");
	const cJSON *p;

	*lo = 1e9;
	*hi = 0;
	cJSON_ArrayForEach(p, fs_test_json_at(sweep, "points")) {
		double n = fs_test_json_num(p, "replications");

		*lo = n < *lo ? n : *lo;
		*hi = n > *hi ? n : *hi;
	}
	cJSON_Delete(sweep);
}

static void test_report_facts_sweep_states_every_points_replications(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *sweep[] = { "sweep", SWEEP, "-r", "4", "-q", "-o", dir, NULL };
	const char *report[] = { "report", dir, "-q", NULL };
	char want[256], *md;
	double lo, hi;

	(void)state;
	need_gnuplot();
	fs_test_fleetsim_ok(sweep);
	point_reps(dir, &lo, &hi);
	assert_true(lo == 4 && hi > lo);     /* the data file's premise */
	fs_test_fleetsim_ok(report);
	md = fs_test_read_out(dir, "report.md");
	snprintf(want, sizeof want, "Simulated horizon 10m, of which the first 1m is a warm-up "
	         "whose requests are not counted; %g to %g replications per configuration", lo, hi);
	assert_has(md, want);
	assert_null(strstr(md, "(at least)"));
	assert_null(strstr(md, "after a warm-up"));
	free(md);
	fs_test_tmpdir_free(dir);
}

static void test_report_facts_sweep_without_feasible_point_states_replications(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *sweep[] = { "sweep", SWEEP, "-r", "4", "-q", "-o", dir,
	                        "--set", "workload.arrivals.rate_per_s=100", NULL };
	const char *report[] = { "report", dir, "-q", NULL };
	cJSON *best;
	char *md;

	(void)state;
	need_gnuplot();
	fs_test_fleetsim_ok(sweep);
	best = fs_test_read_json(dir, "best.json");
	assert_true(cJSON_IsNull(fs_test_json_at(best, "best")));   /* the premise */
	cJSON_Delete(best);
	fs_test_fleetsim_ok(report);
	md = fs_test_read_out(dir, "report.md");
	assert_has(md, "whose requests are not counted; 4 replications per configuration.");
	assert_null(strstr(md, "nan replications"));
	free(md);
	fs_test_tmpdir_free(dir);
}

/* A run of a scenario with a "sweep" block simulated one configuration:
 * section 1 does not list the axes as swept. */
static void test_report_facts_run_lists_no_sweep_axes(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *run[] = { "run", "scenarios/quickstart.json", "-r", "2", "-q", "-o", dir,
	                      "--set", "simulation.horizon=\"5m\"",
	                      "--set", "simulation.warmup=\"30s\"", NULL };
	const char *report[] = { "report", dir, "-q", NULL };
	cJSON *sc;
	char *md;

	(void)state;
	need_gnuplot();
	fs_test_fleetsim_ok(run);
	sc = fs_test_read_json(dir, "scenario.json");
	assert_non_null(fs_test_json_at(sc, "sweep.axes"));   /* the premise */
	cJSON_Delete(sc);
	fs_test_fleetsim_ok(report);
	md = fs_test_read_out(dir, "report.md");
	assert_has(md, "## 1. The question", "Simulated horizon 5m");
	assert_null(strstr(md, "Swept:"));
	free(md);
	fs_test_tmpdir_free(dir);
}

/* The cheaper-plan sentence of a run of COMMIT at rate_per_s (a --set). */
static char *commit_report(const char *dir, const char *rate_set)
{
	const char *run[] = { "run", COMMIT, "-q", "-o", dir, "--set", rate_set, NULL };
	const char *report[] = { "report", dir, "-q", NULL };

	fs_test_fleetsim_ok(run);
	fs_test_fleetsim_ok(report);
	return fs_test_read_out(dir, "report.md");
}

static void test_report_facts_committed_pool_is_not_said_to_pay_by_the_hour(void **state)
{
	char *dir = fs_test_tmpdir();
	char *md;

	(void)state;
	need_gnuplot();
	md = commit_report(dir, "workload.arrivals.rate_per_s=2");
	assert_null(strstr(md, "pool m pays by the hour"));
	assert_has(md, "Cheaper plan: none for pool m: it already commits 1 instance on the "
	           "monthly commitment plan (fee CNY 4200 per period), and no instance above "
	           "it (overflow at CNY 9.80/h)");
	free(md);
	fs_test_tmpdir_free(dir);
}

/* MODEL: B8 — the overflow instances (above the 1 committed) used more than
 * the break-even, and what committing them would save a month. */
static void test_report_facts_committed_pool_weighs_its_overflow_only(void **state)
{
	char *dir = fs_test_tmpdir();
	cJSON *sum;
	const cJSON *be, *v;
	double be_h, hourly, fee, saving = 0;
	int k = 0, worth = 0;
	char want[512], *md;

	(void)state;
	need_gnuplot();
	md = commit_report(dir, "workload.arrivals.rate_per_s=20");
	sum = fs_test_read_json(dir, "summary.json");
	be = fs_test_json_at(sum, "cost.pools.m.break_even");
	be_h = fs_test_json_num(be, "hours_per_month");
	hourly = fs_test_json_num(be, "hourly_price");
	fee = fs_test_json_num(be, "fee_per_period");
	cJSON_ArrayForEach(v, fs_test_json_at(be, "instance_hours_per_month"))
		if (k++ >= 1 && v->valuedouble > be_h) {
			worth++;
			saving += hourly * v->valuedouble - fee;   /* a 730-h month's fee */
		}
	assert_true(worth >= 1 && saving >= 100);   /* the premise: overflow worth it */
	snprintf(want, sizeof want, "Cheaper plan: pool m commits 1 instance on the monthly "
	         "commitment plan and rents those above by the hour (overflow at CNY 9.80/h), "
	         "but %d of them %s used more than the break-even of %.0f h a month (%.0f%%): "
	         "committing them too would cost CNY %.0f less per month.", worth,
	         worth == 1 ? "is" : "are", be_h, 100 * be_h / 730, saving);
	assert_has(md, want);
	cJSON_Delete(sum);
	free(md);
	fs_test_tmpdir_free(dir);
}

/* The first page of a run of the quickstart for 15 minutes on 4
 * replications with `replicas` L40S and simulation.max_in_system `cap`,
 * and its summary.json. */
static char *run_first_page(const char *dir, int replicas, int cap, cJSON **sum)
{
	char rep_set[64], cap_set[64];
	const char *run[] = { "run", "scenarios/quickstart.json", "-r", "4", "-q", "-o", dir,
	                      "--set", "simulation.horizon=\"15m\"", "--set", rep_set,
	                      "--set", cap_set, NULL };
	const char *report[] = { "report", dir, "-q", NULL };

	snprintf(rep_set, sizeof rep_set, "engine.replicas=%d", replicas);
	snprintf(cap_set, sizeof cap_set, "simulation.max_in_system=%d", cap);
	fs_test_fleetsim_ok(run);
	fs_test_fleetsim_ok(report);
	*sum = fs_test_read_json(dir, "summary.json");
	return fs_test_read_out(dir, "report.md");
}

/* MODEL: M7, S3 — a run's first page recommends the simulated
 * configuration only when it is stable and proven to meet its SLO target:
 * one L40S for the quickstart's traffic is proven to miss it, and with a
 * small max_in_system (50: every replication of seeds 1-5 passes it, where
 * 100 stops between one and four of them) some replications stop
 * unstable; two L40S on 4
 * replications of 15 minutes meet it in every run but are not yet proven
 * to (the number of replications that would decide it is summary.json's).
 * Each said "Recommendation: <the configuration>." before. */
static void test_report_facts_run_recommends_only_what_is_proven(void **state)
{
	char *dir = fs_test_tmpdir();
	char want[512], *md;
	cJSON *sum;

	(void)state;
	need_gnuplot();
	md = run_first_page(dir, 1, 1000000, &sum);
	assert_string_equal(fs_test_json_at(sum, "metrics.all.p_slo_met_verdict.verdict")
	                    ->valuestring, "not_met");
	assert_has(md, "Recommendation: none. The simulated configuration (1 x l40s on the "
	           "hourly (on demand) plan) does not meet its SLO target: its P(SLO met) is "
	           "proven below 80% (section 2).");
	cJSON_Delete(sum);
	free(md);

	md = run_first_page(dir, 1, 50, &sum);
	assert_true(fs_test_json_num(sum, "verdict.unstable_replications") >= 1);
	snprintf(want, sizeof want, "Recommendation: none. The simulated configuration (1 x "
	         "l40s on the hourly (on demand) plan) was unstable in %g of 4 replications",
	         fs_test_json_num(sum, "verdict.unstable_replications"));
	assert_has(md, want);
	cJSON_Delete(sum);
	free(md);

	md = run_first_page(dir, 2, 1000000, &sum);
	assert_string_equal(fs_test_json_at(sum, "metrics.all.p_slo_met_verdict.verdict")
	                    ->valuestring, "undecided");
	snprintf(want, sizeof want, "Recommendation: not yet. The simulated configuration (2 x "
	         "l40s on the hourly (on demand) plan) is not proven to meet its SLO target of "
	         "80%%; %g replications would decide it (fleetsim run -r %g) (section 2).",
	         fs_test_json_num(sum, "metrics.all.p_slo_met_verdict.replications_needed"),
	         fs_test_json_num(sum, "metrics.all.p_slo_met_verdict.replications_needed"));
	assert_has(md, want);
	cJSON_Delete(sum);
	free(md);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_facts_sweep_states_every_points_replications),
		cmocka_unit_test(test_report_facts_sweep_without_feasible_point_states_replications),
		cmocka_unit_test(test_report_facts_run_lists_no_sweep_axes),
		cmocka_unit_test(test_report_facts_committed_pool_is_not_said_to_pay_by_the_hour),
		cmocka_unit_test(test_report_facts_committed_pool_weighs_its_overflow_only),
		cmocka_unit_test(test_report_facts_run_recommends_only_what_is_proven),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
