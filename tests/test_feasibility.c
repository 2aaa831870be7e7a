/*
 * test_feasibility.c — a sweep point is feasible only when the lower end of
 * the 95% Wilson interval of its share of replications meeting every
 * constraint judged per run reaches the confidence (MODEL: S12, M7), on
 * tests/data/feasibility*.json (one or two L40S, confidence 0.9, a mean
 * TTFT constraint), and when each quantile constraint's pooled interval is
 * below its bound (M9, feasibility_pooled.json).  Checked
 * by hand from the closed form (z = 1.959964, z^2 = 3.841459):
 *   8 of 8 met:  [8 / (8 + z^2), 1] = [0.675592, 1]: straddles 0.9, undecided;
 *                n / (n + z^2) >= 0.9 needs n >= 9 z^2 = 34.57, so 35;
 *   35 of 35:    lower end 35 / 38.841459 = 0.901099 >= 0.9: feasible;
 *   1 of 8:      centre (1/8 + z^2/16) / (1 + z^2/8) = 0.246653, half width
 *                0.224235: [0.022417, 0.470888], upper end < 0.9: infeasible,
 *                and no extra replications.
 * Runs ./fleetsim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util_test.h"

#define Z2 3.841458820694124

static cJSON *sweep_file(const char *scenario, const char *dir, const char *file)
{
	const char *args[] = { "sweep", scenario, "-o", dir, "-q", "-j", "2", NULL };

	return fs_test_fleetsim_output(args, dir, file);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = fs_test_json_get(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

/* The sweep.json point with fleet.pools[0].count = count. */
static const cJSON *point(const cJSON *sweep, int count)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, fs_test_json_get(sweep, "points"))
		if (num(fs_test_json_get(p, "set"), "fleet.pools[0].count") == count)
			return p;
	fail_msg("no point with count %d", count);
	return NULL;
}

/* 8 of 8 replications meeting the constraint is 100% [67.6%, 100%]: not
 * feasible at 0.9, undecided, 35 replications needed; the capped sweep
 * recommends nothing and names the undecided point. */
static void test_feasibility_8_of_8_is_undecided_at_0_9(void **state)
{
	char *dir = fs_test_tmpdir();
	cJSON *sweep = sweep_file("tests/data/feasibility.json", dir, "sweep.json");
	cJSON *best = sweep_file("tests/data/feasibility.json", dir, "best.json");
	const cJSON *two = point(sweep, 2), *one = point(sweep, 1), *und;
	char *csv, path[4096];

	(void)state;
	assert_int_equal(num(two, "replications"), 8);
	assert_near(num(fs_test_json_get(two, "p_slo_met"), "value"), 1.0, 1e-12, 0.0);
	assert_near(num(fs_test_json_get(two, "p_slo_met"), "ci_lo"), 8.0 / (8.0 + Z2), 1e-8, 0.0);
	assert_false(cJSON_IsTrue(fs_test_json_get(two, "feasible")));
	assert_string_equal(fs_test_json_get(two, "decision")->valuestring, "undecided");
	assert_int_equal(num(two, "replications_needed"), 35);
	/* k of 8 with k <= 2 (one small GPU is overloaded): the Wilson upper
	 * end, (p + z²/2n + z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), is below
	 * 0.9 (1 of 8: 0.470888). */
	assert_string_equal(fs_test_json_get(one, "decision")->valuestring, "infeasible");
	assert_int_equal(num(one, "replications"), 8);
	{
		double p = num(fs_test_json_get(one, "p_slo_met"), "value"), n = 8;
		double hi = (p + Z2 / (2 * n) + sqrt(Z2) * sqrt(p * (1 - p) / n +
		             Z2 / (4 * n * n))) / (1 + Z2 / n);

		assert_true(p * n <= 2.0 + 1e-9);
		assert_near(num(fs_test_json_get(one, "p_slo_met"), "ci_hi"), hi, 1e-6, 0.0);
		assert_true(hi < 0.9);
	}
	assert_true(cJSON_IsNull(fs_test_json_get(one, "replications_needed")));
	assert_true(cJSON_IsNull(fs_test_json_get(best, "best")));
	assert_int_equal(num(best, "points_feasible"), 0);
	assert_int_equal(num(best, "points_undecided"), 1);
	und = cJSON_GetArrayItem(fs_test_json_get(best, "undecided"), 0);
	assert_int_equal(num(und, "replications_needed"), 35);
	assert_non_null(strstr(fs_test_json_get(best, "why")->valuestring, "35 would decide it"));
	snprintf(path, sizeof path, "%s/sweep.csv", dir);
	csv = fs_test_read_file(path, NULL);
	assert_non_null(csv);
	assert_has(csv, ",decision,replications_needed,diff_vs_best,", ",undecided,35,");
	free(csv);
	cJSON_Delete(sweep);
	cJSON_Delete(best);
	fs_test_tmpdir_free(dir);
}

/* With room for them (max_replications 40) the undecided point runs the 35
 * replications that decide it and is proven feasible; the infeasible one
 * runs none extra. */
static void test_feasibility_undecided_point_runs_the_replications_it_needs(void **state)
{
	char *dir = fs_test_tmpdir();
	cJSON *sweep = sweep_file("tests/data/feasibility_settle.json", dir, "sweep.json");
	cJSON *best = sweep_file("tests/data/feasibility_settle.json", dir, "best.json");
	const cJSON *two = point(sweep, 2), *one = point(sweep, 1), *b;

	(void)state;
	assert_int_equal(num(two, "replications"), 35);
	assert_near(num(fs_test_json_get(two, "p_slo_met"), "ci_lo"), 35.0 / (35.0 + Z2), 1e-8, 0.0);
	assert_true(num(fs_test_json_get(two, "p_slo_met"), "ci_lo") >= 0.9);
	assert_string_equal(fs_test_json_get(two, "decision")->valuestring, "feasible");
	assert_true(cJSON_IsTrue(fs_test_json_get(two, "feasible")));
	assert_int_equal(num(one, "replications"), 8);
	assert_string_equal(fs_test_json_get(one, "decision")->valuestring, "infeasible");
	b = fs_test_json_get(best, "best");
	assert_int_equal(num(b, "point"), 1);
	assert_int_equal(num(best, "points_undecided"), 0);
	/* The fixed fleet costs 2 x $1.40/h x 730 h in every replication. */
	assert_near(num(fs_test_json_get(b, "objective"), "value"), 2 * 1.40 * 730, 1e-6, 0.0);
	assert_true(cJSON_IsTrue(fs_test_json_get(fs_test_json_get(b, "objective"), "exact")));
	/* Compared against the recommendation: the cheaper point costs 1022 less. */
	assert_near(num(fs_test_json_get(one, "diff_vs_best"), "value"), -1.40 * 730, 1e-6, 0.0);
	cJSON_Delete(sweep);
	cJSON_Delete(best);
	fs_test_tmpdir_free(dir);
}

/* A p99 TTFT constraint is judged on the pooled p99's interval: two L40S
 * are feasible with their 8 replications although 8 of 8 replications
 * meeting a per-run p99 would leave a share undecided at 0.9 (the Wilson
 * interval is still reported as P(SLO met), [0.676, 1]); one L40S is
 * infeasible.  The interval is the p99 TTFT of `fleetsim run` at the same
 * point, seed and replications (same pooled histograms), and the Pareto
 * latency (the same figure) equals it. */
static void test_feasibility_p99_constraint_is_judged_on_the_pooled_interval(void **state)
{
	char *dir = fs_test_tmpdir(), *rdir = fs_test_tmpdir();
	cJSON *sweep = sweep_file("tests/data/feasibility_pooled.json", dir, "sweep.json");
	const cJSON *two = point(sweep, 2), *one = point(sweep, 1), *q2, *q1, *p99;
	const char *args[] = { "run", "tests/data/feasibility_pooled.json", "-o", rdir, "-q",
	                       "--set", "fleet.pools[0].count=2", NULL };
	cJSON *summary;

	(void)state;
	assert_int_equal(num(two, "replications"), 8);
	assert_near(num(fs_test_json_get(two, "p_slo_met"), "ci_lo"), 8.0 / (8.0 + Z2), 1e-8, 0.0);
	q2 = cJSON_GetArrayItem(fs_test_json_get(two, "quantile_constraints"), 0);
	assert_non_null(q2);
	assert_near(num(q2, "max_ms"), 2000.0, 1e-9, 0.0);
	assert_true(num(q2, "ci_lo") <= num(q2, "value") && num(q2, "value") <= num(q2, "ci_hi"));
	assert_true(num(q2, "ci_hi") < num(q2, "ci_lo") * 2.0);       /* not degenerate */
	assert_true(num(q2, "ci_hi") <= 2000.0);
	assert_string_equal(fs_test_json_get(q2, "decision")->valuestring, "feasible");
	assert_string_equal(fs_test_json_get(two, "decision")->valuestring, "feasible");
	assert_true(cJSON_IsTrue(fs_test_json_get(two, "feasible")));
	assert_near(num(fs_test_json_get(two, "pareto_latency_ms"), "value"), num(q2, "value"), 1e-6, 0.0);
	q1 = cJSON_GetArrayItem(fs_test_json_get(one, "quantile_constraints"), 0);
	assert_non_null(q1);
	assert_true(num(q1, "ci_lo") > 2000.0);
	assert_string_equal(fs_test_json_get(one, "decision")->valuestring, "infeasible");

	fs_test_fleetsim_ok(args);
	summary = fs_test_read_json(rdir, "summary.json");
	p99 = fs_test_json_get(fs_test_json_get(fs_test_json_get(fs_test_json_get(summary, "metrics"), "all"), "ttft_ms"), "p99");
	assert_near(num(q2, "value"), num(p99, "value"), 1e-4, 1e-8);
	assert_near(num(q2, "ci_lo"), num(p99, "ci_lo"), 1e-4, 1e-8);
	assert_near(num(q2, "ci_hi"), num(p99, "ci_hi"), 1e-4, 1e-8);
	cJSON_Delete(summary);
	cJSON_Delete(sweep);
	fs_test_tmpdir_free(rdir);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feasibility_8_of_8_is_undecided_at_0_9),
		cmocka_unit_test(test_feasibility_undecided_point_runs_the_replications_it_needs),
		cmocka_unit_test(test_feasibility_p99_constraint_is_judged_on_the_pooled_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
