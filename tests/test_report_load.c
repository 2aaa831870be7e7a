/*
 * test_report_load.c — `fleetsim report` on directories whose summary,
 * comparison or sweep files are JSON but not what fleetsim writes (null,
 * {}, [], an object without its main member): exit 2 at the file's
 * line:col, saying what was expected, and nothing written into the
 * directory.  The load fails before any plot, so gnuplot is not needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"
#include "fleetsim/report.h"
#include "util_test.h"

/* Write text to DIR/name. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* The number of entries of dir, "." and ".." aside. */
static int n_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* DIR/name holding `text` (alone in DIR) must be refused by the library
 * and by `fleetsim report` (exit 2, `want` after "DIR/name:" on stderr),
 * leaving the directory as it was. */
static void expect_refused(const char *name, const char *text, const char *want)
{
	char *dir = fs_test_tmpdir(), got[2048], expect[2048];
	const char *args[] = { "report", dir, NULL };
	struct fs_error err = {0};
	struct fs_test_run run;

	put(dir, name, text);
	snprintf(expect, sizeof expect, "%s/%s:%s", dir, name, want);
	assert_int_equal(fs_report_build(dir, "gnuplot", NULL, 0, &err), FS_EXIT_INPUT);
	fs_error_format(&err, got, sizeof got);
	assert_string_equal(got, expect);
	assert_int_equal(n_entries(dir), 1);
	if (fs_test_have_cmd("gnuplot")) {
		run = fs_test_run_fleetsim(args);
		assert_int_equal(run.exit_code, 2);
		assert_non_null(run.err);
		assert_non_null(strstr(run.err, expect));
		assert_int_equal(n_entries(dir), 1);
		fs_test_run_free(&run);
	} else {
		print_message("skipping the fleetsim report run: gnuplot not found\n");
	}
	fs_test_tmpdir_free(dir);
}

static void test_report_load_null_summary_is_refused(void **state)
{
	(void)state;
	expect_refused("summary.json", "null\n",
	               "1:1: $: expected the object fleetsim wrote, with \"metrics\", "
	               "found null: not an output of fleetsim run or fleetsim sweep");
}

static void test_report_load_empty_object_summary_is_refused(void **state)
{
	(void)state;
	expect_refused("summary.json", "\n  {}\n",
	               "2:3: $: expected the object fleetsim wrote, with \"metrics\", "
	               "found an empty object {}: not an output of fleetsim run or "
	               "fleetsim sweep");
}

static void test_report_load_array_summary_is_refused(void **state)
{
	(void)state;
	expect_refused("summary.json", "[]",
	               "1:1: $: expected the object fleetsim wrote, with \"metrics\", "
	               "found an array: not an output of fleetsim run or fleetsim sweep");
}

static void test_report_load_summary_without_metrics_is_refused(void **state)
{
	(void)state;
	expect_refused("summary.json", "{\"name\": \"x\"}",
	               "1:1: $: expected the object fleetsim wrote, with \"metrics\", "
	               "found an object without it: not an output of fleetsim run or "
	               "fleetsim sweep");
}

static void test_report_load_null_comparison_and_sweep_are_refused(void **state)
{
	(void)state;
	expect_refused("comparison.json", "null",
	               "1:1: $: expected the object fleetsim wrote, with \"variants\", "
	               "found null: not an output of fleetsim run or fleetsim sweep");
	expect_refused("sweep.json", "{}",
	               "1:1: $: expected the object fleetsim wrote, found an empty "
	               "object {}: not an output of fleetsim run or fleetsim sweep");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_load_null_summary_is_refused),
		cmocka_unit_test(test_report_load_empty_object_summary_is_refused),
		cmocka_unit_test(test_report_load_array_summary_is_refused),
		cmocka_unit_test(test_report_load_summary_without_metrics_is_refused),
		cmocka_unit_test(test_report_load_null_comparison_and_sweep_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
