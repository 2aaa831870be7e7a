/*
 * test_golden.c — the golden run: `fleetsim run tests/golden/small.json`
 * (one on-demand and two spot L40S replicas, 3 replications, seed 7) must
 * write tests/golden/small.summary.json byte for byte, on 1 and on 2 threads.
 * Only the value of "fleetsim_version" is not compared (a release changes it,
 * not the figures).  After an intended change of figures, `make
 * golden-update` rewrites the file; review its diff before committing it.
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

#define GOLDEN_SCENARIO "tests/golden/small.json"
#define GOLDEN_SUMMARY "tests/golden/small.summary.json"

/* Blank the value of "fleetsim_version" in place (the characters between
 * the quotes after its key become '#'), so that two summaries differing only
 * in the version compare equal.  Returns 1 when the key was found. */
static int mask_version(char *text)
{
	char *p = strstr(text, "\"fleetsim_version\":");
	char *q;

	if (p == NULL)
		return 0;
	p = strchr(p + strlen("\"fleetsim_version\":"), '"');
	if (p == NULL)
		return 0;
	for (q = p + 1; *q != '\0' && *q != '"'; q++)
		*q = '#';
	return 1;
}

/* The 1-based line on which a and b first differ (0: they are equal). */
static int first_diff_line(const char *a, const char *b)
{
	int line = 1;

	for (; *a != '\0' && *a == *b; a++, b++)
		if (*a == '\n')
			line++;
	return *a == *b ? 0 : line;
}

/* Print line n of text (1-based) to stderr with a label. */
static void print_line(const char *label, const char *text, int n)
{
	const char *end;

	while (--n > 0 && text != NULL) {
		text = strchr(text, '\n');
		if (text != NULL)
			text++;
	}
	if (text == NULL) {
		print_error("%s: (past the end)\n", label);
		return;
	}
	end = strchr(text, '\n');
	print_error("%s: %.*s\n", label, (int)(end != NULL ? end - text : (long)strlen(text)),
	            text);
}

/* The golden run on `threads` threads; `quiet` false leaves the progress
 * reporting on (the replications then run through its telling loop: the
 * same bytes). */
static void check_golden(const char *threads, bool quiet)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "run", GOLDEN_SCENARIO, "-j", threads, "-o", dir,
	                       quiet ? "-q" : NULL, NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	size_t n = strlen(dir) + sizeof "/summary.json";
	char *path = malloc(n);
	char *got, *want;
	int line;

	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	snprintf(path, n, "%s/summary.json", dir);
	got = fs_test_read_file(path, NULL);
	want = fs_test_read_file(GOLDEN_SUMMARY, NULL);
	assert_non_null(got);
	assert_non_null(want);
	assert_int_equal(mask_version(got), 1);
	assert_int_equal(mask_version(want), 1);
	line = first_diff_line(got, want);
	if (line != 0) {
		print_error("summary.json (-j %s) differs from " GOLDEN_SUMMARY
		            " first at line %d; after an intended change run"
		            " `make golden-update` and review the diff\n", threads, line);
		print_line("got ", got, line);
		print_line("want", want, line);
	}
	assert_int_equal(line, 0);
	free(got);
	free(want);
	free(path);
	fs_test_tmpdir_free(dir);
}

static void test_golden_summary_matches_on_one_thread(void **state)
{
	(void)state;
	check_golden("1", true);
}

static void test_golden_summary_matches_on_two_threads(void **state)
{
	(void)state;
	check_golden("2", false);
}

/* The golden file pins figures, not an empty shell: its on-demand pool is
 * one L40S at the catalogue's 1.40 USD/h for the 30 simulated minutes, so it
 * cost 1.40 x 0.5 = 0.70 USD in every replication, and its spot pool saw
 * reclaims.  A golden-update that wrote a broken run fails here too. */
static void test_golden_file_holds_a_fleet_with_cost(void **state)
{
	char *want = fs_test_read_file(GOLDEN_SUMMARY, NULL);
	cJSON *root, *pools, *od, *spot;

	(void)state;
	assert_non_null(want);
	root = cJSON_Parse(want);
	assert_non_null(root);
	pools = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(root, "cost"), "pools");
	od = cJSON_GetObjectItemCaseSensitive(pools, "on-demand");
	spot = cJSON_GetObjectItemCaseSensitive(pools, "spot");
	assert_non_null(od);
	assert_non_null(spot);
	assert_near(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(od, "total"), "value")->valuedouble,
		1.40 * 0.5, 1e-9, 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(od, "total"), "exact")));
	assert_non_null(strstr(want, "\"reclaims\":"));
	assert_null(strstr(want, ":\tnan"));
	cJSON_Delete(root);
	free(want);
}

/* The comparison itself: a changed digit is caught, the version is not. */
static void test_golden_compare_ignores_only_the_version(void **state)
{
	char a[] = "{\"fleetsim_version\":\t\"0.1.0\",\n\"x\":\t1.5\n}";
	char b[] = "{\"fleetsim_version\":\t\"9.9.9\",\n\"x\":\t1.5\n}";
	char c[] = "{\"fleetsim_version\":\t\"0.1.0\",\n\"x\":\t1.6\n}";

	(void)state;
	assert_int_equal(mask_version(a), 1);
	assert_int_equal(mask_version(b), 1);
	assert_int_equal(mask_version(c), 1);
	assert_int_equal(first_diff_line(a, b), 0);
	assert_int_equal(first_diff_line(a, c), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_compare_ignores_only_the_version),
		cmocka_unit_test(test_golden_file_holds_a_fleet_with_cost),
		cmocka_unit_test(test_golden_summary_matches_on_one_thread),
		cmocka_unit_test(test_golden_summary_matches_on_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
