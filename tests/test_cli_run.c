/*
 * test_cli_run.c — `fleetsim run` end to end: byte-identical summary.json for
 * -j 1 and -j 2, the summary.json contract (with cost_per_rep and "exact"
 * zero-width intervals), figures of runs stopped at max_in_system, the
 * per-request CSV, seeds, and command-line errors (exit 2, nothing
 * written), and validate's option words (--opt=value like run's).  Runs
 * ./fleetsim.
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
#include <sys/stat.h>

#include "util_test.h"

#define SCENARIO "scenarios/quickstart.json"

/* Run `fleetsim run SCENARIO -r 4 -j THREADS -o DIR [extra]`; returns the
 * summary.json text (heap). */
static char *run_summary(const char *dir, const char *threads, const char *extra)
{
	const char *args[] = { "run", SCENARIO, "-r", "4", "-j", threads, "-o", dir,
	                       "-q", extra, NULL };

	fs_test_fleetsim_ok(args);
	return fs_test_read_out(dir, "summary.json");
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
	char *s1, *s2;

	(void)state;
	s1 = run_summary(d1, "2", NULL);
	fs_test_fleetsim_ok(args);
	s2 = fs_test_read_out(d2, "summary.json");
	assert_string_not_equal(s1, s2);
	assert_non_null(strstr(s2, "\"seed\":\t7"));
	free(s1);
	free(s2);
	fs_test_tmpdir_free(d1);
	fs_test_tmpdir_free(d2);
}

static void check_ci(const cJSON *o)
{
	assert_true(cJSON_IsNumber(fs_test_json_get(o, "value")));
	assert_true(cJSON_IsNumber(fs_test_json_get(o, "ci_lo")));
	assert_true(cJSON_IsNumber(fs_test_json_get(o, "ci_hi")));
	assert_true(fs_test_json_get(o, "ci_lo")->valuedouble <= fs_test_json_get(o, "value")->valuedouble);
	assert_true(fs_test_json_get(o, "value")->valuedouble <= fs_test_json_get(o, "ci_hi")->valuedouble);
}

static void check_group(const cJSON *g)
{
	static const char *lat[] = { "ttft_ms", "e2e_ms", "queue_ms" };
	static const char *qty[] = { "mean", "p50", "p90", "p99" };
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++)
			check_ci(fs_test_json_get(fs_test_json_get(g, lat[i]), qty[j]));
	check_ci(fs_test_json_get(g, "completed"));
	assert_true(fs_test_json_get(fs_test_json_get(g, "completed"), "value")->valuedouble > 0);
}

static void test_cli_run_summary_follows_the_contract(void **state)
{
	char *dir = fs_test_tmpdir();
	char *text = run_summary(dir, "2", NULL);
	cJSON *root = cJSON_Parse(text);
	const cJSON *prov, *metrics, *classes;

	(void)state;
	assert_non_null(root);
	prov = fs_test_json_get(root, "provenance");
	assert_true(cJSON_IsString(fs_test_json_get(prov, "fleetsim_version")));
	assert_int_equal(strlen(fs_test_json_get(prov, "scenario_sha256")->valuestring), 64);
	assert_int_equal(fs_test_json_get(prov, "seed")->valuedouble, 42);
	assert_int_equal(fs_test_json_get(prov, "replications")->valuedouble, 4);
	assert_true(cJSON_IsString(fs_test_json_get(prov, "rng")));
	metrics = fs_test_json_get(root, "metrics");
	check_group(fs_test_json_get(metrics, "all"));
	classes = fs_test_json_get(metrics, "classes");
	check_group(fs_test_json_get(classes, "chat"));
	check_group(fs_test_json_get(classes, "code"));
	check_ci(fs_test_json_get(fs_test_json_get(classes, "chat"), "slo_attainment"));
	cJSON_Delete(root);
	free(text);
	fs_test_tmpdir_free(dir);
}

/* Run fleetsim with args (exit 0 expected); returns DIR/summary.json parsed
 * and, when out is not NULL, the console output (heap). */
static cJSON *run_json(const char *const *args, const char *dir, char **out)
{
	struct fs_test_run r = fs_test_fleetsim_expect(args, 0);

	if (out != NULL) {
		*out = r.out;
		r.out = NULL;
	}
	fs_test_run_free(&r);
	return fs_test_read_json(dir, "summary.json");
}

/* cost.cost_per_rep holds one total per replication, in replication order;
 * their mean is cost.total's value (a fleet whose cost varies: the
 * relaunch variant of tests/data/scenario_fleet.json, with spot reclaims and
 * an autoscaler). */
static void test_cli_run_cost_per_rep_has_r_entries_with_the_total_as_mean(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "run", "tests/data/scenario_fleet.json", "--variant", "relaunch",
	                       "-r", "4", "-o", dir, "-q", NULL };
	cJSON *root = run_json(args, dir, NULL);
	const cJSON *cost = fs_test_json_get(root, "cost"), *per_rep = fs_test_json_get(cost, "cost_per_rep"), *v;
	double sum = 0, lo = INFINITY, hi = -INFINITY;

	(void)state;
	assert_true(cJSON_IsArray(per_rep));
	assert_int_equal(cJSON_GetArraySize(per_rep), 4);
	cJSON_ArrayForEach(v, per_rep) {
		assert_true(cJSON_IsNumber(v));
		sum += v->valuedouble;
		lo = fmin(lo, v->valuedouble);
		hi = fmax(hi, v->valuedouble);
	}
	assert_near(sum / 4, fs_test_json_get(fs_test_json_get(cost, "total"), "value")->valuedouble, 0.0, 1e-8);
	assert_true(lo < hi);
	assert_null(cJSON_GetObjectItemCaseSensitive(fs_test_json_get(cost, "total"), "exact"));
	cJSON_Delete(root);
	fs_test_tmpdir_free(dir);
}

/* A fixed fleet (quickstart: 2 on-demand L40S at $1.40/h for 1 h) costs
 * 2 x 1.40 x 1 = $2.80 in every replication: the zero-width interval is
 * marked "exact" in summary.json and explained on the console, not printed
 * as "2.8 ± 0"; a figure that varies keeps its interval, never below 0. */
static void test_cli_run_zero_width_interval_is_marked_exact(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "run", SCENARIO, "-r", "4", "-o", dir, NULL };
	char *out = NULL;
	cJSON *root = run_json(args, dir, &out);
	const cJSON *total = fs_test_json_get(fs_test_json_get(root, "cost"), "total"), *v;
	const cJSON *idle = fs_test_json_get(fs_test_json_get(root, "cost"), "idle");

	(void)state;
	assert_near(fs_test_json_get(total, "value")->valuedouble, 2.80, 1e-9, 0.0);
	assert_true(cJSON_IsTrue(fs_test_json_get(total, "exact")));
	cJSON_ArrayForEach(v, fs_test_json_get(fs_test_json_get(root, "cost"), "cost_per_rep"))
		assert_near(v->valuedouble, 2.80, 1e-9, 0.0);
	assert_null(cJSON_GetObjectItemCaseSensitive(idle, "exact"));
	assert_true(fs_test_json_get(idle, "ci_lo")->valuedouble >= 0.0);
	assert_non_null(strstr(out, "2.8 (exact)"));
	assert_null(strstr(out, "± 0\n"));
	assert_null(strstr(out, "± 0 "));
	assert_non_null(strstr(out, "\"exact\": the same in every replication"));
	free(out);
	cJSON_Delete(root);
	fs_test_tmpdir_free(dir);
}

/*
 * tests/data/overload_guard.json: 2 on-demand L40S at $1.40/h offered more
 * than they serve for a day; simulation.max_in_system stops every
 * replication after T_r simulated seconds (a quarter of an hour).  Billing
 * stops there too: per-second billing of both instances from 0 to T_r is
 * 2 x 1.40 x ceil(T_r) / 3600 USD.  Per hour of the span simulated that is
 * $2.80 (up to the rounding to whole seconds, < 0.2% here), not the $0.03
 * that dividing by the 24 h horizon would give; throughput likewise counts
 * over the span simulated.
 */
static void test_cli_run_guard_stop_reports_over_the_span_simulated(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "run", "tests/data/overload_guard.json", "-o", dir, NULL };
	char *out = NULL;
	cJSON *root = run_json(args, dir, &out);
	const cJSON *verdict = fs_test_json_get(root, "verdict"), *cost = fs_test_json_get(root, "cost");
	const cJSON *at = fs_test_json_get(verdict, "stopped_at_s");
	double per_h = fs_test_json_get(fs_test_json_get(cost, "per_hour"), "value")->valuedouble;
	int r;

	(void)state;
	assert_int_equal(fs_test_json_get(verdict, "stopped_early_replications")->valuedouble, 3);
	assert_int_equal(cJSON_GetArraySize(at), 3);
	for (r = 0; r < 3; r++) {
		double t_s = cJSON_GetArrayItem(at, r)->valuedouble;
		double usd = cJSON_GetArrayItem(fs_test_json_get(cost, "cost_per_rep"), r)->valuedouble;

		assert_true(t_s > 60 && t_s < 86400);
		assert_near(usd, 2 * 1.40 * ceil(t_s) / 3600, 1e-6, 0.0);
	}
	assert_true(per_h >= 2.80 && per_h < 2.80 * 1.002);
	assert_near(fs_test_json_get(fs_test_json_get(cost, "monthly_projected"), "value")->valuedouble,
	            2.80 * 730, 0.0, 0.002);
	assert_true(fs_test_json_get(fs_test_json_get(fs_test_json_get(fs_test_json_get(root, "metrics"), "all"), "throughput_rps"),
	                "value")->valuedouble > 5);
	assert_non_null(strstr(out, "stopped early: 3 of 3 replications"));
	{
		const char *ph = strstr(out, "per hour");
		double shown;

		assert_non_null(ph);
		shown = strtod(ph + strlen("per hour"), NULL);
		assert_true(shown >= 2.80 && shown < 2.81);   /* the console's figure too */
	}
	free(out);
	cJSON_Delete(root);
	fs_test_tmpdir_free(dir);
}

static void test_cli_run_requests_csv_has_a_row_per_request(void **state)
{
	char *dir = fs_test_tmpdir();
	char *text = run_summary(dir, "2", "--requests-csv");
	char *csv_path = fs_test_path(dir, "requests.csv");
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
	csv_path = fs_test_path(dir, "timeseries.csv");
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
	char *out = fs_test_path(dir, "never");
	const char *a1[] = { "run", SCENARIO, "-r", "0", "-o", out, NULL };
	const char *a2[] = { "run", SCENARIO, "-j", "two", "-o", out, NULL };
	const char *a3[] = { "run", SCENARIO, "--frobnicate", "-o", out, NULL };
	const char *a4[] = { "run", "-o", out, NULL };
	const char *a5[] = { "run", "tests/no-such-file.json", "-o", out, NULL };
	const char *a6[] = { "run", SCENARIO, "--seed", "-3", "-o", out, NULL };
	const char *a7[] = { "frobnicate", NULL };
	/* numbers follow the JSON grammar of scenario files: no '+', no
	 * leading space or zero, no hex */
	const char *a8[] = { "run", SCENARIO, "-r", "+3", "-o", out, NULL };
	const char *a9[] = { "run", SCENARIO, "-r", " 3", "-o", out, NULL };
	const char *a10[] = { "run", SCENARIO, "--seed", "07", "-o", out, NULL };
	const char *a11[] = { "run", SCENARIO, "--ci-target", "0x1p-3", "-o", out, NULL };
	/* a cap below the first batch, or a cap with no stopping rule */
	const char *a12[] = { "run", SCENARIO, "-r", "4", "--max-replications", "2",
	                      "--ci-target", "2%", "-o", out, NULL };
	const char *a13[] = { "run", SCENARIO, "--max-replications", "5", "-o", out, NULL };
	/* a long option is spelt in full: getopt's prefixes are not options */
	const char *a14[] = { "run", SCENARIO, "--repl", "1", "-o", out, NULL };
	const char *a15[] = { "run", SCENARIO, "--requests", "-o", out, NULL };
	const char *a16[] = { "run", SCENARIO, "-o", out, "--out=x", NULL };
	const char *a17[] = { "checkpoint", "x.json", "--thr", "2", "-o", out, NULL };
	const char *a18[] = { "budget", "x.json", "--ou", out, NULL };
	struct stat st;

	(void)state;
	expect_cli_error(a1, "fleetsim run: -r: expected an integer from 1 to 100000, found \"0\"");
	expect_cli_error(a2, "fleetsim run: -j: expected an integer from 1 to 1024, found \"two\"");
	expect_cli_error(a3, "fleetsim run: unknown option \"--frobnicate\"");
	expect_cli_error(a4, "fleetsim run: missing SCENARIO file");
	expect_cli_error(a5, "tests/no-such-file.json");
	expect_cli_error(a6, "fleetsim run: --seed: expected an integer");
	expect_cli_error(a7, "fleetsim: unknown command \"frobnicate\"");
	expect_cli_error(a8, "-r: expected an integer from 1 to 100000, found \"+3\"");
	expect_cli_error(a9, "-r: expected an integer from 1 to 100000, found \" 3\"");
	expect_cli_error(a10, "--seed: expected an integer");
	expect_cli_error(a11, "--ci-target: expected a fraction such as \"2%\" or \"0.02\"");
	expect_cli_error(a12, "--max-replications: expected at least the first batch's 4 "
	                 "replications, found 2");
	expect_cli_error(a13, "--max-replications caps the stopping rule, found no "
	                 "--ci-target");
	expect_cli_error(a14, "fleetsim run: unknown option \"--repl\"");
	expect_cli_error(a15, "fleetsim run: unknown option \"--requests\"");
	expect_cli_error(a16, "fleetsim run: unknown option \"--out=x\"");
	expect_cli_error(a17, "fleetsim checkpoint: unknown option \"--thr\"");
	expect_cli_error(a18, "fleetsim budget: unknown option \"--ou\"");
	assert_int_not_equal(stat(out, &st), 0);
	free(out);
	fs_test_tmpdir_free(dir);
}

/* A scenario is read once per variant and sweep point it loads: a path
 * that is not a regular file is refused before it is opened (a FIFO read
 * a second time blocked for ever, a pipe read empty). */
static void test_cli_run_scenario_must_be_a_regular_file(void **state)
{
	char *dir = fs_test_tmpdir();
	char *fifo = fs_test_path(dir, "fifo.json"), *out = fs_test_path(dir, "never");
	const char *a1[] = { "run", dir, "-o", out, NULL };
	const char *a2[] = { "run", fifo, "-o", out, NULL };
	const char *a3[] = { "validate", fifo, NULL };
	struct stat st;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	expect_cli_error(a1, "expected a scenario file (a regular file: it is read again "
	                 "for each variant and sweep point), found a directory");
	expect_cli_error(a2, "found a pipe");
	expect_cli_error(a3, "found a pipe");
	assert_int_not_equal(stat(out, &st), 0);
	free(fifo);
	free(out);
	fs_test_tmpdir_free(dir);
}

/* Run fleetsim with args and its standard output on /dev/full. */
static struct fs_test_run run_to_full(const char *arg1, const char *arg2)
{
	const char *bin = getenv("FLEETSIM_BIN");
	const char *argv[] = { "sh", "-c", "exec \"$0\" \"$@\" > /dev/full", NULL, arg1, arg2,
	                       NULL };

	argv[3] = bin != NULL && bin[0] != '\0' ? bin : "./fleetsim";
	return fs_test_run_cmd(argv);
}

/* What a command prints is part of its result: a table, schema or script
 * lost to a full disk is exit 1 with a message, not a success.  Stray
 * arguments to version and help are refused. */
static void test_cli_lost_standard_output_is_a_failure(void **state)
{
	const char *cmds[][2] = { { "version", NULL }, { "schema", NULL },
	                          { "completion", "bash" }, { "catalog", "gpus" } };
	const char *a1[] = { "version", "extra", NULL };
	const char *a2[] = { "help", "run", "extra", NULL };

	(void)state;
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		struct fs_test_run r = run_to_full(cmds[i][0], cmds[i][1]);

		if (r.exit_code != 1)
			print_error("%s: exit %d, stderr: %s\n", cmds[i][0], r.exit_code, r.err);
		assert_int_equal(r.exit_code, 1);
		assert_non_null(strstr(r.err, "cannot write the standard output"));
		fs_test_run_free(&r);
	}
	expect_cli_error(a1, "fleetsim version: unexpected argument \"extra\"");
	expect_cli_error(a2, "fleetsim help: unexpected argument \"extra\"");
}

static void test_cli_help_lists_commands(void **state)
{
	const char *a1[] = { "--help", NULL };
	const char *a2[] = { "run", "--help", NULL };
	struct fs_test_run r;

	(void)state;
	r = fs_test_run_fleetsim(a1);
	assert_int_equal(r.exit_code, 0);
	assert_has(r.out, "run SCENARIO", "validate SCENARIO");
	fs_test_run_free(&r);
	r = fs_test_run_fleetsim(a2);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "--requests-csv"));
	fs_test_run_free(&r);
}

/* The list names help and version as commands and says every command takes
 * --help (docs/fleetsim.1): `help help`, `help version`, `version --help`
 * and `help -h` print the list; a word that is no command is still refused. */
static void test_cli_help_and_version_take_help_like_every_command(void **state)
{
	static const char *const ok[][3] = {
		{ "help", "help", NULL }, { "help", "version", NULL },
		{ "version", "--help", NULL }, { "version", "-h", NULL },
		{ "help", "-h", NULL }, { "--help", "--help", NULL },
	};
	const char *bad[] = { "version", "extra", NULL };
	const char *nosuch[] = { "help", "nosuch", NULL };
	struct fs_test_run r;

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		const char *args[] = { ok[i][0], ok[i][1], NULL };

		r = fs_test_run_fleetsim(args);
		if (r.exit_code != 0)
			fail_msg("fleetsim %s %s: exit %d, stderr: %s", ok[i][0], ok[i][1],
			         r.exit_code, r.err);
		assert_has(r.out, "help [COMMAND]", "version, --version");
		fs_test_run_free(&r);
	}
	r = fs_test_run_fleetsim(bad);
	assert_int_equal(r.exit_code, 2);
	fs_test_run_free(&r);
	r = fs_test_run_fleetsim(nosuch);
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "unknown command \"nosuch\""));
	fs_test_run_free(&r);
}

/* fleetsim validate reads its words by hand: like run's getopt options it
 * takes --variant=NAME and --set=PATH=JSON as --variant NAME and --set
 * PATH=JSON (the same output), and says a missing value and an unknown
 * option in run's words (exit 2). */
static void test_cli_validate_takes_option_equals_value(void **state)
{
	const char *spaced[] = { "validate", "--variant", "all-spot-relaunch", "--set",
	                         "fleet.strategy=\"relaunch\"",
	                         "scenarios/spot-strategies.json", NULL };
	const char *joined[] = { "validate", "--variant=all-spot-relaunch",
	                         "--set=fleet.strategy=\"relaunch\"",
	                         "scenarios/spot-strategies.json", NULL };
	const char *a1[] = { "validate", SCENARIO, "--set", NULL };
	const char *a2[] = { "validate", SCENARIO, "--variant", NULL };
	const char *a3[] = { "validate", SCENARIO, "--vari=x", NULL };
	const char *a4[] = { "run", SCENARIO, "--seed", NULL };
	struct fs_test_run a, b;

	(void)state;
	a = fs_test_fleetsim_expect(spaced, 0);
	b = fs_test_fleetsim_expect(joined, 0);
	assert_string_equal(a.out, b.out);
	assert_non_null(strstr(b.out, "\"relaunch\""));
	fs_test_run_free(&a);
	fs_test_run_free(&b);
	expect_cli_error(a1, "fleetsim validate: option \"--set\" needs a value");
	expect_cli_error(a2, "fleetsim validate: option \"--variant\" needs a value");
	expect_cli_error(a3, "fleetsim validate: unknown option \"--vari=x\"");
	expect_cli_error(a4, "fleetsim run: option \"--seed\" needs a value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_run_thread_count_gives_identical_bytes),
		cmocka_unit_test(test_cli_run_different_seed_changes_results),
		cmocka_unit_test(test_cli_run_summary_follows_the_contract),
		cmocka_unit_test(test_cli_run_cost_per_rep_has_r_entries_with_the_total_as_mean),
		cmocka_unit_test(test_cli_run_zero_width_interval_is_marked_exact),
		cmocka_unit_test(test_cli_run_guard_stop_reports_over_the_span_simulated),
		cmocka_unit_test(test_cli_run_requests_csv_has_a_row_per_request),
		cmocka_unit_test(test_cli_run_bad_options_exit_2_and_write_nothing),
		cmocka_unit_test(test_cli_run_scenario_must_be_a_regular_file),
		cmocka_unit_test(test_cli_lost_standard_output_is_a_failure),
		cmocka_unit_test(test_cli_help_lists_commands),
		cmocka_unit_test(test_cli_help_and_version_take_help_like_every_command),
		cmocka_unit_test(test_cli_validate_takes_option_equals_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
