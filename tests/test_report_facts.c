/*
 * test_report_facts.c — the report's sentences are true of the directory
 * they describe.  Section 1's simulation line: the horizon includes the
 * warm-up, and a sweep states the fewest and most replications its points
 * ran (a point the sweep had to decide runs more), also when no point is
 * feasible.  Needs gnuplot for the plots: skips with a message when it
 * is absent.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_facts_sweep_states_every_points_replications),
		cmocka_unit_test(test_report_facts_sweep_without_feasible_point_states_replications),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
