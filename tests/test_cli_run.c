/*
 * test_cli_run.c — `fleetsim run` end to end: byte-identical summary.json for
 * -j 1 and -j 2, the summary.json contract, the per-request CSV, seeds, and
 * command-line errors (exit 2, nothing written).  Runs ./fleetsim.
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
#include <sys/stat.h>

#include "util_test.h"

#define SCENARIO "scenarios/quickstart.json"

static char *path_in(const char *dir, const char *file)
{
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = malloc(n);

	snprintf(p, n, "%s/%s", dir, file);
	return p;
}

/* Run `fleetsim run SCENARIO -r 4 -j THREADS -o DIR [extra]`; returns the
 * summary.json text (heap). */
static char *run_summary(const char *dir, const char *threads, const char *extra)
{
	const char *args[] = { "run", SCENARIO, "-r", "4", "-j", threads, "-o", dir,
	                       "-q", extra, NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	char *path = path_in(dir, "summary.json");
	char *text;

	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	free(path);
	return text;
}

static void test_cli_run_thread_count_gives_identical_bytes(void **state)
{
	char *d1 = fs_test_tmpdir(), *d2 = fs_test_tmpdir();
	char *s1, *s2;

	(void)state;
	s1 = run_summary(d1, "1", NULL);
	s2 = run_summary(d2, "2", NULL);
	assert_string_equal(s1, s2);
	free(s1);
	free(s2);
	fs_test_tmpdir_free(d1);
	fs_test_tmpdir_free(d2);
}

static void test_cli_run_different_seed_changes_results(void **state)
{
	char *d1 = fs_test_tmpdir(), *d2 = fs_test_tmpdir();
	const char *args[] = { "run", SCENARIO, "-r", "4", "-o", d2, "-q", "--seed",
	                       "7", NULL };
	struct fs_test_run r;
	char *s1, *s2, *p2;

	(void)state;
	s1 = run_summary(d1, "2", NULL);
	r = fs_test_run_fleetsim(args);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	p2 = path_in(d2, "summary.json");
	s2 = fs_test_read_file(p2, NULL);
	assert_non_null(s2);
	assert_string_not_equal(s1, s2);
	assert_non_null(strstr(s2, "\"seed\":\t7"));
	free(s1);
	free(s2);
	free(p2);
	fs_test_tmpdir_free(d1);
	fs_test_tmpdir_free(d2);
}

static const cJSON *get(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (v == NULL)
		print_error("missing key \"%s\"\n", key);
	assert_non_null(v);
	return v;
}

static void check_ci(const cJSON *o)
{
	assert_true(cJSON_IsNumber(get(o, "value")));
	assert_true(cJSON_IsNumber(get(o, "ci_lo")));
	assert_true(cJSON_IsNumber(get(o, "ci_hi")));
	assert_true(get(o, "ci_lo")->valuedouble <= get(o, "value")->valuedouble);
	assert_true(get(o, "value")->valuedouble <= get(o, "ci_hi")->valuedouble);
}

static void check_group(const cJSON *g)
{
	static const char *lat[] = { "ttft_ms", "e2e_ms", "queue_ms" };
	static const char *qty[] = { "mean", "p50", "p90", "p99" };
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++)
			check_ci(get(get(g, lat[i]), qty[j]));
	check_ci(get(g, "completed"));
	assert_true(get(get(g, "completed"), "value")->valuedouble > 0);
}

static void test_cli_run_summary_follows_the_contract(void **state)
{
	char *dir = fs_test_tmpdir();
	char *text = run_summary(dir, "2", NULL);
	cJSON *root = cJSON_Parse(text);
	const cJSON *prov, *metrics, *classes;

	(void)state;
	assert_non_null(root);
	prov = get(root, "provenance");
	assert_true(cJSON_IsString(get(prov, "fleetsim_version")));
	assert_int_equal(strlen(get(prov, "scenario_sha256")->valuestring), 64);
	assert_int_equal(get(prov, "seed")->valuedouble, 42);
	assert_int_equal(get(prov, "replications")->valuedouble, 4);
	assert_true(cJSON_IsString(get(prov, "rng")));
	metrics = get(root, "metrics");
	check_group(get(metrics, "all"));
	classes = get(metrics, "classes");
	check_group(get(classes, "chat"));
	check_group(get(classes, "code"));
	check_ci(get(get(classes, "chat"), "slo_attainment"));
	cJSON_Delete(root);
	free(text);
	fs_test_tmpdir_free(dir);
}

static void test_cli_run_requests_csv_has_a_row_per_request(void **state)
{
	char *dir = fs_test_tmpdir();
	char *text = run_summary(dir, "2", "--requests-csv");
	char *csv_path = path_in(dir, "requests.csv");
	char *csv = fs_test_read_file(csv_path, NULL);
	size_t lines = 0;
	const char *p;

	(void)state;
	assert_non_null(csv);
	assert_true(strncmp(csv, "id,class,status,counted,arrival_s,prompt_tokens,"
	                    "output_tokens,queue_ms,ttft_ms,e2e_ms\n", 85) == 0);
	for (p = csv; *p != '\0'; p++)
		lines += *p == '\n';
	/* ~4.5 requests/s (09:00-10:00 of the daily cycle) for an hour. */
	assert_true(lines > 10000);
	assert_non_null(strstr(csv, "\n0,"));
	free(csv);
	free(csv_path);
	/* The time series: a header and one row per grid bin (1h / 36s). */
	csv_path = path_in(dir, "timeseries.csv");
	csv = fs_test_read_file(csv_path, NULL);
	assert_non_null(csv);
	assert_true(strncmp(csv, "t_start_s,t_end_s,queue_len,", 28) == 0);
	for (lines = 0, p = csv; *p != '\0'; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 101);
	free(csv);
	free(csv_path);
	free(text);
	fs_test_tmpdir_free(dir);
}

static void expect_cli_error(const char *const *args, const char *expected_err)
{
	struct fs_test_run r = fs_test_run_fleetsim(args);

	assert_int_equal(r.exit_code, 2);
	if (strstr(r.err, expected_err) == NULL)
		print_error("stderr was: %s\n", r.err);
	assert_non_null(strstr(r.err, expected_err));
	fs_test_run_free(&r);
}

static void test_cli_run_bad_options_exit_2_and_write_nothing(void **state)
{
	char *dir = fs_test_tmpdir();
	char *out = path_in(dir, "never");
	const char *a1[] = { "run", SCENARIO, "-r", "0", "-o", out, NULL };
	const char *a2[] = { "run", SCENARIO, "-j", "two", "-o", out, NULL };
	const char *a3[] = { "run", SCENARIO, "--frobnicate", "-o", out, NULL };
	const char *a4[] = { "run", "-o", out, NULL };
	const char *a5[] = { "run", "tests/no-such-file.json", "-o", out, NULL };
	const char *a6[] = { "run", SCENARIO, "--seed", "-3", "-o", out, NULL };
	const char *a7[] = { "frobnicate", NULL };
	struct stat st;

	(void)state;
	expect_cli_error(a1, "fleetsim run: -r: expected an integer from 1 to 100000, found \"0\"");
	expect_cli_error(a2, "fleetsim run: -j: expected an integer from 1 to 1024, found \"two\"");
	expect_cli_error(a3, "fleetsim run: unknown option \"--frobnicate\"");
	expect_cli_error(a4, "fleetsim run: missing SCENARIO file");
	expect_cli_error(a5, "tests/no-such-file.json");
	expect_cli_error(a6, "fleetsim run: --seed: expected an integer");
	expect_cli_error(a7, "fleetsim: unknown command \"frobnicate\"");
	assert_int_not_equal(stat(out, &st), 0);
	free(out);
	fs_test_tmpdir_free(dir);
}

static void test_cli_help_lists_commands(void **state)
{
	const char *a1[] = { "--help", NULL };
	const char *a2[] = { "run", "--help", NULL };
	struct fs_test_run r;

	(void)state;
	r = fs_test_run_fleetsim(a1);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "run SCENARIO"));
	assert_non_null(strstr(r.out, "validate SCENARIO"));
	fs_test_run_free(&r);
	r = fs_test_run_fleetsim(a2);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "--requests-csv"));
	fs_test_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_run_thread_count_gives_identical_bytes),
		cmocka_unit_test(test_cli_run_different_seed_changes_results),
		cmocka_unit_test(test_cli_run_summary_follows_the_contract),
		cmocka_unit_test(test_cli_run_requests_csv_has_a_row_per_request),
		cmocka_unit_test(test_cli_run_bad_options_exit_2_and_write_nothing),
		cmocka_unit_test(test_cli_help_lists_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
