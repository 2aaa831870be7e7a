/*
 * test_sweep_share.c — the sweep's shared simulations and count search end
 * to end: points differing only in a pricing plan that leaves the run alone
 * share one simulation yet write the bytes of the unshared run (--no-share),
 * also under an autoscaler where some cannot share; committed bills match a
 * hand computation; the galloping count search finds the exhaustive grid's
 * answer in fewer points; progress goes to a log and the end names the
 * recommendation and the report.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util_test.h"

/* Run a sweep into dir; returns its run (caller frees) after checking exit 0. */
static struct fs_test_run sweep(const char *scenario, const char *dir, const char *extra)
{
	const char *args[] = { "sweep", scenario, "-o", dir, "-j", "2", extra, NULL };

	return fs_test_fleetsim_expect(args, 0);
}

/* The files every sweep writes. */
static const char *const OUTPUTS[] = { "sweep.csv", "sweep.json", "pareto.csv", "best.json",
                                       "sweep_cdf.csv", NULL };

static void assert_same_outputs(const char *a, const char *b)
{
	fs_test_assert_same_files(a, b, OUTPUTS);
}

/* The last progress line's count of borrowed replications. */
static long borrowed(const char *err)
{
	const char *p = err, *last = NULL;

	while ((p = strstr(p, " borrowed from a point")) != NULL)
		last = p++;
	assert_non_null(last);
	while (last > err && last[-1] >= '0' && last[-1] <= '9')
		last--;
	return strtol(last, NULL, 10);
}

/* figures.total_cost[0] of point `point`'s record. */
static double total_cost(const char *dir, int point)
{
	char name[64], *text;
	cJSON *rec, *v;
	double x;

	snprintf(name, sizeof name, "points/%d.json", point);
	text = fs_test_read_out(dir, name);
	rec = cJSON_Parse(text);
	assert_non_null(rec);
	v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(rec, "figures"), "total_cost"), 0);
	assert_true(cJSON_IsNumber(v));
	x = v->valuedouble;
	cJSON_Delete(rec);
	free(text);
	return x;
}

/* tests/data/sweep_share.json: pricing [monthly, on_demand, yearly, spot,
 * daily] x count [1..4]; for each count the four plans other than spot share
 * one simulation (3 borrowers x 4 counts x 4 replications). */
static void test_sweep_share_pricing_points_write_the_unshared_bytes(void **state)
{
	char *shared = fs_test_tmpdir(), *alone = fs_test_tmpdir();
	struct fs_test_run a, b;
	int c;

	(void)state;
	a = sweep("tests/data/sweep_share.json", shared, NULL);
	b = sweep("tests/data/sweep_share.json", alone, "--no-share");
	assert_same_outputs(shared, alone);
	assert_int_equal(borrowed(a.err), 48);
	assert_int_equal(borrowed(b.err), 0);
	/* MODEL: B4, B7 — a committed pool pays count x fee x 10 min / period
	 * with the yearly fee 8,760 h x 0.53 and the daily one 24 h x 0.85 of the
	 * on-demand price, and the on-demand point pays count x price x 600 s
	 * (warm instances billed per second over the whole horizon): yearly /
	 * on-demand = 0.53, daily / on-demand = 0.85 for every count. */
	for (c = 0; c < 4; c++) {
		double od = total_cost(shared, 4 + c);

		assert_true(od > 0);
		assert_near(total_cost(shared, 8 + c) / od, 0.53, 0, 1e-9);
		assert_near(total_cost(shared, 16 + c) / od, 0.85, 0, 1e-9);
	}
	fs_test_run_free(&a);
	fs_test_run_free(&b);
	fs_test_tmpdir_free(shared);
	fs_test_tmpdir_free(alone);
}

/* tests/data/sweep_share_auto.json: where the autoscaler grows the pool
 * past its count (weekly's extra instances would be overflow) a replication
 * is not borrowed; where it stays within the count (count 6 = max) it is:
 * some replications are borrowed, not all, and the outputs are the same. */
static void test_sweep_share_falls_back_where_the_plan_changes_the_run(void **state)
{
	char *shared = fs_test_tmpdir(), *alone = fs_test_tmpdir();
	struct fs_test_run a, b;

	(void)state;
	a = sweep("tests/data/sweep_share_auto.json", shared, NULL);
	b = sweep("tests/data/sweep_share_auto.json", alone, "--no-share");
	assert_same_outputs(shared, alone);
	assert_true(borrowed(a.err) > 0);
	assert_true(borrowed(a.err) < 8);
	fs_test_run_free(&a);
	fs_test_run_free(&b);
	fs_test_tmpdir_free(shared);
	fs_test_tmpdir_free(alone);
}

/* The smallest feasible count per GPU, from sweep.json's points. */
static void min_feasible(const char *dir, int n_gpus, int n_counts, int *out)
{
	char *text = fs_test_read_out(dir, "sweep.json");
	cJSON *root = cJSON_Parse(text), *p;
	int g;

	assert_non_null(root);
	for (g = 0; g < n_gpus; g++)
		out[g] = -1;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(root, "points")) {
		int i = (int)cJSON_GetObjectItemCaseSensitive(p, "point")->valuedouble;
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(p, "feasible");

		if (cJSON_IsTrue(f) && (out[i / n_counts] < 0 || i % n_counts < out[i / n_counts]))
			out[i / n_counts] = i % n_counts;
	}
	cJSON_Delete(root);
	free(text);
}

/* A copy of scenario in dir with the TTFT bound "2s" replaced by `max`
 * (the objective cannot be --set); returns its path (caller frees). */
static char *with_bound(const char *scenario, const char *dir, const char *max)
{
	char *text = fs_test_read_file(scenario, NULL), *at, *path = fs_test_path(dir, "s.json");
	FILE *f;

	assert_non_null(text);
	at = strstr(text, "\"max\": \"2s\"");
	assert_non_null(at);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%.*s\"max\": \"%s\"%s", (int)(at - text), text, max,
	        at + strlen("\"max\": \"2s\""));
	fclose(f);
	free(text);
	return path;
}

/* tests/data/sweep_gallop*.json: GPU [l40s, a100-80g, l4] x count 1..8 at 40
 * requests/s, the grid and its search twin, with the TTFT bound 2 s (the
 * capacity bound is the answer or one below it: the search gallops up) and
 * 60 s (counts below the capacity bound meet it: the search gallops down and
 * bisects). */
static void test_sweep_gallop_finds_the_exhaustive_minimum(void **state)
{
	static const char *const bounds[] = { "2s", "60s" };
	size_t k;

	(void)state;
	for (k = 0; k < 2; k++) {
		char *in = fs_test_tmpdir(), *grid = fs_test_tmpdir(), *search = fs_test_tmpdir();
		char *sg = with_bound("tests/data/sweep_gallop_grid.json", in, bounds[k]);
		struct fs_test_run a = sweep(sg, grid, NULL);
		char *ss = (free(sg), with_bound("tests/data/sweep_gallop.json", in, bounds[k]));
		struct fs_test_run b = sweep(ss, search, NULL);
		char *b1 = fs_test_read_out(grid, "best.json"), *b2 = fs_test_read_out(search, "best.json");
		cJSON *j1 = cJSON_Parse(b1), *j2 = cJSON_Parse(b2);
		int m1[3], m2[3], g;

		min_feasible(grid, 3, 8, m1);
		min_feasible(search, 3, 8, m2);
		for (g = 0; g < 3; g++)
			assert_int_equal(m1[g], m2[g]);
		/* The same recommendation (its other members compare it with the
		 * points evaluated, which differ). */
		assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(
		                                  cJSON_GetObjectItemCaseSensitive(j1, "best"), "label"),
		                          cJSON_GetObjectItemCaseSensitive(
		                                  cJSON_GetObjectItemCaseSensitive(j2, "best"), "label"),
		                          1));
		assert_non_null(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(j1, "best"), "label"));
		/* A bisection from the top loads 4 of 8 counts per GPU (12). */
		assert_true(cJSON_GetObjectItemCaseSensitive(j2, "points_evaluated")->valuedouble <
		            12);
		cJSON_Delete(j1);
		cJSON_Delete(j2);
		free(b1);
		free(b2);
		free(ss);
		fs_test_run_free(&a);
		fs_test_run_free(&b);
		fs_test_tmpdir_free(in);
		fs_test_tmpdir_free(grid);
		fs_test_tmpdir_free(search);
	}
}

/* Off a terminal (the test's pipes) progress is a log line; the end prints
 * the recommended point and where best.json is. */
static void test_sweep_logs_progress_and_names_the_recommendation(void **state)
{
	char *dir = fs_test_tmpdir(), *want = fs_test_path(dir, "best.json");
	struct fs_test_run r;

	(void)state;
	r = sweep("tests/data/sweep_share.json", dir, NULL);
	assert_non_null(strstr(r.err, "fleetsim sweep: 20 points done"));
	assert_null(strchr(r.err, '\r'));
	assert_non_null(strstr(r.out, "recommended: point 9, pricing=yearly count=2"));
	assert_non_null(strstr(r.out, want));
	fs_test_run_free(&r);
	free(want);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_share_pricing_points_write_the_unshared_bytes),
		cmocka_unit_test(test_sweep_share_falls_back_where_the_plan_changes_the_run),
		cmocka_unit_test(test_sweep_gallop_finds_the_exhaustive_minimum),
		cmocka_unit_test(test_sweep_logs_progress_and_names_the_recommendation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
