/*
 * test_report_na.c — a normal report says everything it shows: `fleetsim
 * report` on a run and on a sweep of scenarios/quickstart.json (the sweep on
 * a 5-minute horizon to keep it short) writes report.html and report.md with
 * no "n/a", "nan", "inf" or "(null)" in their text.  Embedded images
 * (data: URIs, base64) are not text and are skipped.  Needs gnuplot for the
 * plots: skips with a message when it is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util_test.h"

#define SCENARIO "scenarios/quickstart.json"

static void need_gnuplot(void)
{
	if (!fs_test_have_cmd("gnuplot")) {
		fprintf(stderr, "gnuplot not in PATH (package gnuplot-nox): skipping\n");
		skip();
	}
}

/* Cut every data: URI out of text in place (up to the quote or parenthesis
 * that ends it), so base64 image bytes are not read as words. */
static void strip_data_uris(char *text)
{
	char *out = text, *in = text;

	while (*in != '\0') {
		if (strncmp(in, "data:", 5) == 0) {
			while (*in != '\0' && *in != '"' && *in != '\'' && *in != ')')
				in++;
			continue;
		}
		*out++ = *in++;
	}
	*out = '\0';
}

static int is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The first placeholder in text as a whole word ("n/a", "nan", "-nan",
 * "inf", "(null)", case-insensitive), or NULL; *at is where it starts. */
static const char *find_placeholder(const char *text, const char **at)
{
	static const char *const words[] = { "n/a", "nan", "inf", "(null)", NULL };
	const char *p;
	size_t i;

	for (p = text; *p != '\0'; p++) {
		if (p > text && is_word_char(p[-1]))
			continue;
		for (i = 0; words[i] != NULL; i++) {
			size_t n = strlen(words[i]);

			if (strncasecmp(p, words[i], n) == 0 && !is_word_char(p[n])) {
				*at = p;
				return words[i];
			}
		}
	}
	return NULL;
}

/* Fail, with the placeholder's context, when the file at dir/name has one. */
static void check_file(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = malloc(n);
	char *text;
	const char *word, *at = NULL;

	snprintf(path, n, "%s/%s", dir, name);
	text = fs_test_read_file(path, NULL);
	if (text == NULL)
		print_error("cannot read %s\n", path);
	assert_non_null(text);
	strip_data_uris(text);
	word = find_placeholder(text, &at);
	if (word != NULL)
		print_error("%s has \"%s\": ...%.80s...\n", path,
		            word, at - text > 60 ? at - 60 : text);
	assert_null(word);
	free(text);
	free(path);
}

static void run_ok(const char *const *args)
{
	struct fs_test_run r = fs_test_run_fleetsim(args);

	if (r.exit_code != 0)
		print_error("fleetsim %s: exit %d, stderr: %s\n", args[0], r.exit_code, r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
}

static void test_report_na_scan_catches_placeholders(void **state)
{
	const char *at;
	char img[] = "<img src=\"data:image/png;base64,AA+n/a+nan/C\"> ok";

	(void)state;
	assert_string_equal(find_placeholder("p99 n/a ms", &at), "n/a");
	assert_string_equal(find_placeholder("<td>-nan</td>", &at), "nan");
	assert_string_equal(find_placeholder("cost INF", &at), "inf");
	assert_string_equal(find_placeholder("name (null)", &at), "(null)");
	assert_null(find_placeholder("financial information, infeasible", &at));
	assert_non_null(find_placeholder(img, &at));
	strip_data_uris(img);
	assert_null(find_placeholder(img, &at));
	assert_string_equal(img, "<img src=\"\"> ok");
}

static void test_report_na_run_report_has_none(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *run[] = { "run", SCENARIO, "-r", "4", "-q", "-o", dir, NULL };
	const char *report[] = { "report", dir, NULL };

	(void)state;
	need_gnuplot();
	run_ok(run);
	run_ok(report);
	check_file(dir, "report.html");
	check_file(dir, "report.md");
	fs_test_tmpdir_free(dir);
}

static void test_report_na_sweep_report_has_none(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *sweep[] = { "sweep", SCENARIO, "-q", "-o", dir,
	                        "--set", "simulation.horizon=\"5m\"",
	                        "--set", "simulation.warmup=\"30s\"", NULL };
	const char *report[] = { "report", dir, NULL };

	(void)state;
	need_gnuplot();
	run_ok(sweep);
	run_ok(report);
	check_file(dir, "report.html");
	check_file(dir, "report.md");
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_na_scan_catches_placeholders),
		cmocka_unit_test(test_report_na_run_report_has_none),
		cmocka_unit_test(test_report_na_sweep_report_has_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
