/*
 * test_upfront.c — everything is checked before anything runs: `validate`,
 * `run` and `sweep` load every variant and every distinct sweep axis value
 * up front, and a bad one exits 2 with FILE:LINE:COL at the value in the
 * file and its JSON path, leaving no output directory behind; variant names
 * that map to one output directory are refused; a name with '/' runs and
 * reports end to end (comparison.json records each variant's directory);
 * `sweep --set` works.
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
#include <sys/stat.h>

#include "util_test.h"

/* A fast queueing scenario; %s is spliced in before the closing brace. */
#define HEAD \
	"{\n" \
	"  \"simulation\": { \"horizon\": \"2m\", \"replications\": 2 },\n" \
	"  \"workload\": { \"classes\": [ { \"name\": \"chat\",\n" \
	"      \"arrivals\": { \"process\": \"poisson\", \"rate_per_s\": 2 },\n" \
	"      \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 100 },\n" \
	"      \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 20 } } ] },\n" \
	"  \"engine\": { \"type\": \"queue\", \"servers\": 2,\n" \
	"              \"service\": { \"dist\": \"exponential\", \"mean\": \"200ms\" } }"

struct fixture {
	char *dir;                   /* temporary directory */
	char *file;                  /* dir/s.json */
	char *out;                   /* dir/out (must not appear on bad input) */
	char *text;                  /* the scenario's text */
};

static struct fixture make(const char *tail)
{
	struct fixture f;
	size_t n;
	FILE *fp;

	f.dir = fs_test_tmpdir();
	n = strlen(f.dir) + 16;
	f.file = malloc(n);
	snprintf(f.file, n, "%s/s.json", f.dir);
	f.out = malloc(n);
	snprintf(f.out, n, "%s/out", f.dir);
	n = strlen(HEAD) + strlen(tail) + 8;
	f.text = malloc(n);
	snprintf(f.text, n, "%s%s\n}\n", HEAD, tail);
	fp = fopen(f.file, "w");
	assert_non_null(fp);
	fputs(f.text, fp);
	assert_int_equal(fclose(fp), 0);
	return f;
}

static void fixture_free(struct fixture *f)
{
	fs_test_tmpdir_free(f->dir);
	free(f->file);
	free(f->out);
	free(f->text);
}

/* "FILE:LINE:COL: PATH: " for the first occurrence of `at` in the text. */
static void where(const struct fixture *f, const char *at, const char *path, char *buf,
                  size_t len)
{
	const char *hit = strstr(f->text, at), *p;
	int line = 1, col = 1;

	assert_non_null(hit);
	for (p = f->text; p < hit; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(buf, len, "%s:%d:%d: %s: ", f->file, line, col, path);
}

/* Run fleetsim with args (NULL-terminated); expect exit 2, stderr starting
 * at `at` (see where) and holding `msg`, and no f->out. */
static void expect_refused(const struct fixture *f, const char *const *args, const char *at,
                           const char *path, const char *msg)
{
	struct fs_test_run r = fs_test_run_fleetsim(args);
	char want[1024];
	struct stat st;

	where(f, at, path, want, sizeof want);
	if (r.exit_code != 2 || strncmp(r.err, want, strlen(want)) != 0 ||
	    strstr(r.err, msg) == NULL)
		print_error("exit %d, stderr: %s\nwanted: %s...%s\n", r.exit_code, r.err, want,
		            msg);
	assert_int_equal(r.exit_code, 2);
	assert_true(strncmp(r.err, want, strlen(want)) == 0);
	assert_non_null(strstr(r.err, msg));
	assert_int_not_equal(stat(f->out, &st), 0);   /* nothing left behind */
	fs_test_run_free(&r);
}

static void expect_all_refuse(const struct fixture *f, bool sweep, const char *at,
                              const char *path, const char *msg)
{
	const char *validate[] = { "validate", f->file, NULL };
	const char *run[] = { "run", f->file, "-q", "-o", f->out, NULL };
	const char *sw[] = { "sweep", f->file, "-q", "-o", f->out, NULL };

	expect_refused(f, validate, at, path, msg);
	expect_refused(f, sweep ? sw : run, at, path, msg);
}

/* ---- item 2: variant names as directories ----------------------------------------- */

static void test_upfront_variant_names_mapping_to_one_directory_are_refused(void **state)
{
	struct fixture f = make(",\n  \"variants\": [ { \"name\": \"spot relaunch\" },\n"
	                        "    { \"name\": \"spot_relaunch\" } ]");

	(void)state;
	expect_all_refuse(&f, false, "\"spot_relaunch\"", "variants[1].name",
	                  "maps to \"spot_relaunch\" like variants[0] \"spot relaunch\"");
	fixture_free(&f);
}

static void test_upfront_a_slash_name_colliding_with_an_underscore_is_refused(void **state)
{
	struct fixture f = make(",\n  \"variants\": [ { \"name\": \"a_b\" },\n"
	                        "    { \"name\": \"a/b\" } ]");

	(void)state;
	expect_all_refuse(&f, false, "\"a/b\"", "variants[1].name", "maps to \"a_b\"");
	fixture_free(&f);
}

static void test_upfront_a_variant_named_base_is_refused(void **state)
{
	struct fixture f = make(",\n  \"variants\": [ { \"name\": \"base\" } ]");

	(void)state;
	expect_all_refuse(&f, false, "\"base\"", "variants[0].name",
	                  "expected a name other than \"base\"");
	fixture_free(&f);
}

static void test_upfront_a_variant_mapping_to_base_is_refused(void **state)
{
	struct fixture f = make(",\n  \"variants\": [ { \"name\": \"ok\" }, { \"name\": \"bas" 
	                        "e\" }, { \"name\": \"bas\\u00e9\" } ]");

	(void)state;
	/* "basé" keeps "bas" and maps its two UTF-8 bytes to "__": no clash;
	 * "base" itself is refused. */
	expect_all_refuse(&f, false, "\"base\"", "variants[1].name",
	                  "the base scenario's directory");
	fixture_free(&f);
}

static void test_upfront_an_overlong_variant_name_is_refused(void **state)
{
	char tail[600], name[260];

	(void)state;
	memset(name, 'n', 230);
	name[230] = '\0';
	snprintf(tail, sizeof tail, ",\n  \"variants\": [ { \"name\": \"%s\" } ]", name);
	{
		struct fixture f = make(tail);

		expect_all_refuse(&f, false, "\"nnn", "variants[0].name",
		                  "expected a name of at most 200 bytes");
		fixture_free(&f);
	}
}

/* A name with '/' runs into its mapped directory, comparison.json says so,
 * and report finds it there. */
static void test_upfront_a_variant_name_with_a_slash_runs_and_reports(void **state)
{
	struct fixture f = make(",\n  \"variants\": [ { \"name\": \"three/servers\", "
	                        "\"set\": { \"engine.servers\": 3 } } ]");
	const char *run[] = { "run", f.file, "-q", "-o", f.out, NULL };
	const char *report[] = { "report", f.out, NULL };
	char path[512], *text;
	cJSON *root;
	const cJSON *v;

	(void)state;
	fs_test_fleetsim_ok(run);
	snprintf(path, sizeof path, "%s/three_servers/summary.json", f.out);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	free(text);
	snprintf(path, sizeof path, "%s/comparison.json", f.out);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	root = cJSON_Parse(text);
	free(text);
	v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "variants"), 1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(v, "variant")->valuestring,
	                    "three/servers");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(v, "directory")->valuestring,
	                    "three_servers");
	v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "variants"), 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(v, "directory")->valuestring,
	                    "base");
	cJSON_Delete(root);
	if (!fs_test_have_cmd("gnuplot")) {
		print_message("gnuplot not found: report part skipped\n");
		fixture_free(&f);
		return;
	}
	fs_test_fleetsim_ok(report);
	snprintf(path, sizeof path, "%s/report.md", f.out);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "three/servers"));
	free(text);
	fixture_free(&f);
}

/* ---- item 5: every variant and axis value up front ---------------------------------- */

static void test_upfront_a_bad_second_variant_fails_before_the_first_runs(void **state)
{
	struct fixture f = make(",\n  \"variants\": [ { \"name\": \"ok\", \"set\": "
	                        "{ \"engine.servers\": 3 } },\n    { \"name\": \"bad\", "
	                        "\"set\": { \"engine.servers\": -1 } } ]");

	(void)state;
	expect_all_refuse(&f, false, "-1", "engine.servers",
	                  "expected a value >= 1, found -1");
	fixture_free(&f);
}

static void test_upfront_a_variant_with_a_bad_nested_value_is_refused(void **state)
{
	struct fixture f = make(",\n  \"variants\": [ { \"name\": \"slow\", \"set\": "
	                        "{ \"engine.service.mean\": \"-5ms\" } } ]");

	(void)state;
	expect_all_refuse(&f, false, "\"-5ms\"", "engine.service.mean", "");
	fixture_free(&f);
}

static void test_upfront_a_bad_last_axis_value_fails_before_any_point(void **state)
{
	struct fixture f = make(",\n  \"sweep\": { \"axes\": [ { \"path\": \"engine.servers\", "
	                        "\"values\": [1, 2, \"x\"] } ] }");

	(void)state;
	expect_all_refuse(&f, true, "\"x\"", "engine.servers",
	                  "expected an integer, found a string (in sweep point 2: "
	                  "engine.servers=\"x\")");
	fixture_free(&f);
}

static void test_upfront_a_bad_value_on_the_second_grid_axis_is_found(void **state)
{
	struct fixture f = make(",\n  \"sweep\": { \"axes\": [\n"
	                        "    { \"path\": \"engine.servers\", \"values\": [1, 2] },\n"
	                        "    { \"path\": \"simulation.horizon\", "
	                        "\"values\": [\"1m\", \"2m\", \"-3m\"] } ] }");

	(void)state;
	expect_all_refuse(&f, true, "\"-3m\"", "simulation.horizon", "sweep point 2");
	fixture_free(&f);
}

static void test_upfront_a_bad_range_value_points_at_the_range(void **state)
{
	struct fixture f = make(",\n  \"sweep\": { \"axes\": [ { \"path\": \"engine.servers\", "
	                        "\"range\": { \"from\": 0, \"to\": 2 } } ] }");

	(void)state;
	expect_all_refuse(&f, true, "0, \"to\"", "engine.servers",
	                  "expected a value >= 1, found 0");
	fixture_free(&f);
}

static void test_upfront_a_bad_zip_point_is_found(void **state)
{
	struct fixture f = make(",\n  \"sweep\": { \"mode\": \"zip\", \"axes\": [\n"
	                        "    { \"path\": \"engine.servers\", \"values\": [1, 2] },\n"
	                        "    { \"path\": \"workload.classes[0].arrivals.rate_per_s\", "
	                        "\"values\": [1, -2] } ] }");

	(void)state;
	expect_all_refuse(&f, true, "-2", "workload.classes[0].arrivals.rate_per_s",
	                  "sweep point 1");
	fixture_free(&f);
}

/* An axis path that an earlier axis's value no longer lets resolve. */
static void test_upfront_an_axis_path_broken_by_an_earlier_axis_is_found(void **state)
{
	struct fixture f = make(",\n  \"sweep\": { \"axes\": [\n"
	                        "    { \"path\": \"workload.classes\", \"values\": [\n"
	                        "      [ { \"name\": \"chat\", \"arrivals\": { \"process\": "
	                        "\"poisson\", \"rate_per_s\": 2 },\n"
	                        "          \"prompt_tokens\": { \"dist\": \"fixed\", "
	                        "\"tokens\": 100 },\n"
	                        "          \"output_tokens\": { \"dist\": \"fixed\", "
	                        "\"tokens\": 20 } } ], [] ] },\n"
	                        "    { \"path\": \"workload.classes[0].arrivals.rate_per_s\", "
	                        "\"values\": [1, 3] } ] }");

	(void)state;
	expect_all_refuse(&f, true, "1, 3]", "sweep.axes[1].values[0]",
	                  "index 0 is out of range");
	fixture_free(&f);
}

static void test_upfront_sweep_set_with_a_bad_value_writes_nothing(void **state)
{
	struct fixture f = make(",\n  \"sweep\": { \"axes\": [ { \"path\": \"engine.servers\", "
	                        "\"values\": [1, 2] } ] }");
	const char *sw[] = { "sweep", f.file, "-q", "-o", f.out, "--set",
	                     "simulation.horizon=\"-1m\"", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(sw);
	struct stat st;

	(void)state;
	assert_int_equal(r.exit_code, 2);
	assert_true(strncmp(r.err, "--set simulation.horizon=\"-1m\": simulation.horizon",
	                    51) == 0 || strstr(r.err, "--set simulation.horizon") != NULL);
	assert_int_not_equal(stat(f.out, &st), 0);
	fs_test_run_free(&r);
	fixture_free(&f);
}

/* A --set's error shows what was written: a number a double cannot hold
 * (1e400, 2^53 + 1) and an index past LONG_MAX as given, not as inf, 2^53
 * or LONG_MAX; a bare word whole, with how to quote a string. */
static void test_upfront_set_errors_show_the_value_as_written(void **state)
{
	static const struct {
		const char *set, *want;
	} cases[] = {
		{ "simulation.replications=1e400",
		  "simulation.replications: expected an integer, found 1e400" },
		{ "engine.replicas=9007199254740993",
		  "engine.replicas: expected a value <= 10000, found 9007199254740993" },
		{ "workload.classes[99999999999999999999].share=1",
		  "index 99999999999999999999 is out of range: workload.classes has 2 elements" },
		{ "engine.scheduler=prefill_first",
		  "found 'prefill_first' (a string is written in quotes: "
		  "--set 'engine.scheduler=\"...\"')" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *args[] = { "validate", "scenarios/quickstart.json", "--set",
		                       cases[i].set, NULL };
		struct fs_test_run r = fs_test_run_fleetsim(args);

		if (strstr(r.err, cases[i].want) == NULL)
			print_error("want \"%s\", got: %s\n", cases[i].want, r.err);
		assert_int_equal(r.exit_code, 2);
		assert_non_null(strstr(r.err, cases[i].want));
		fs_test_run_free(&r);
	}
}

/* A --set value obeys the strict text rules of files: invalid UTF-8, a raw
 * control character in a string or outside one, \u0000 and a leading zero
 * are refused with exit 2, naming the --set (bad bytes shown as '?'), and
 * `run` leaves no output behind. */
static void test_upfront_set_value_text_is_strict(void **state)
{
	static const struct { const char *set, *want; } cases[] = {
		{ "engine.servers=\"\xff\"",
		  "--set engine.servers=\"?\": value byte 2: invalid JSON: invalid UTF-8 in string\n" },
		{ "engine.servers=\"\xc0\xaf\"",
		  "--set engine.servers=\"??\": value byte 2: invalid JSON: invalid UTF-8 in string\n" },
		{ "engine.servers=\"a\x01\"",
		  "--set engine.servers=\"a?\": value byte 3: invalid JSON: raw control character "
		  "in string (write a tab as \\t, a newline as \\n)\n" },
		{ "engine.servers=\x01" "3",
		  "--set engine.servers=?3: value byte 1: invalid JSON: control character 0x01 "
		  "outside a string (whitespace is space, tab, newline or CR)\n" },
		{ "engine.servers=03",
		  "--set engine.servers=03: value byte 1: invalid JSON: invalid number (leading "
		  "zeros are not allowed)\n" },
		{ "engine\x02.servers=3",
		  "--set engine?.servers=3: expected a path of valid UTF-8 text without control "
		  "characters; invalid JSON: raw control character in string (write a tab as "
		  "\\t, a newline as \\n)\n" },
	};
	struct fixture f = make("");
	struct stat st;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *run[] = { "run", f.file, "-q", "-o", f.out, "--set", cases[i].set,
		                      NULL };
		struct fs_test_run r = fs_test_run_fleetsim(run);

		assert_int_equal(r.exit_code, 2);
		assert_string_equal(r.err, cases[i].want);
		assert_int_not_equal(stat(f.out, &st), 0);
		fs_test_run_free(&r);
	}
	/* \u0000 would silently cut a name short */
	{
		const char *run[] = { "validate", f.file, "--set", "name=\"a\\u0000b\"", NULL };
		struct fs_test_run r = fs_test_run_fleetsim(run);

		assert_int_equal(r.exit_code, 2);
		assert_non_null(strstr(r.err, "--set name=\"a\\u0000b\": value byte "));
		fs_test_run_free(&r);
	}
	fixture_free(&f);
}

/* validate with --set checks the axis values on the edited document. */
static void test_upfront_validate_set_checks_the_axis_values_too(void **state)
{
	struct fixture f = make(",\n  \"sweep\": { \"axes\": [ { \"path\": "
	                        "\"workload.classes[0].arrivals.rate_per_s\", "
	                        "\"values\": [1, 0] } ] }");
	const char *validate[] = { "validate", f.file, "--set", "engine.servers=3", NULL };

	(void)state;
	expect_refused(&f, validate, "0] }", "workload.classes[0].arrivals.rate_per_s",
	               "sweep point 1");
	fixture_free(&f);
}

/* sweep --set: the sweep runs (the section is kept) with the edit applied;
 * every point's scenario.json-free record reflects the shorter horizon. */
static void test_upfront_sweep_set_works(void **state)
{
	struct fixture f = make(",\n  \"sweep\": { \"axes\": [ { \"path\": \"engine.servers\", "
	                        "\"values\": [1, 2] } ] }");
	const char *sw[] = { "sweep", f.file, "-q", "-o", f.out, "-r", "2", "--set",
	                     "simulation.horizon=\"1m\"", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(sw);
	char path[512], *text;
	cJSON *root;

	(void)state;
	if (r.exit_code != 0)
		print_error("%s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	snprintf(path, sizeof path, "%s/sweep.json", f.out);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	root = cJSON_Parse(text);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(root, "points_evaluated")->valuedouble,
	                 2);
	cJSON_Delete(root);
	free(text);
	snprintf(path, sizeof path, "%s/scenario.json", f.out);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"1m\""));
	free(text);
	fixture_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upfront_variant_names_mapping_to_one_directory_are_refused),
		cmocka_unit_test(test_upfront_a_slash_name_colliding_with_an_underscore_is_refused),
		cmocka_unit_test(test_upfront_a_variant_named_base_is_refused),
		cmocka_unit_test(test_upfront_a_variant_mapping_to_base_is_refused),
		cmocka_unit_test(test_upfront_an_overlong_variant_name_is_refused),
		cmocka_unit_test(test_upfront_a_variant_name_with_a_slash_runs_and_reports),
		cmocka_unit_test(test_upfront_a_bad_second_variant_fails_before_the_first_runs),
		cmocka_unit_test(test_upfront_a_variant_with_a_bad_nested_value_is_refused),
		cmocka_unit_test(test_upfront_a_bad_last_axis_value_fails_before_any_point),
		cmocka_unit_test(test_upfront_a_bad_value_on_the_second_grid_axis_is_found),
		cmocka_unit_test(test_upfront_a_bad_range_value_points_at_the_range),
		cmocka_unit_test(test_upfront_a_bad_zip_point_is_found),
		cmocka_unit_test(test_upfront_an_axis_path_broken_by_an_earlier_axis_is_found),
		cmocka_unit_test(test_upfront_sweep_set_with_a_bad_value_writes_nothing),
		cmocka_unit_test(test_upfront_validate_set_checks_the_axis_values_too),
		cmocka_unit_test(test_upfront_sweep_set_works),
		cmocka_unit_test(test_upfront_set_value_text_is_strict),
		cmocka_unit_test(test_upfront_set_errors_show_the_value_as_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
