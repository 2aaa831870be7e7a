/*
 * test_csv_guard.c — CSV cells from names (classes, variants, sweep labels
 * and string axis values) that start with = + - @ tab or CR are written as
 * OWASP recommends, quoted with a single quote in front, by every CSV writer
 * (requests.csv, latency_cdf.csv, comparison.csv, sweep.csv); numbers are
 * left alone; the report's reader gives the names back.  Runs ./fleetsim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "util_test.h"

#define SCENARIO "tests/data/csv_injection.json"

static char *csv_of(const char *s, int always_quote)
{
	struct fs_sbuf b;
	char *out;

	fs_sbuf_init(&b);
	fs_sbuf_csv(&b, s, always_quote);
	out = strdup(fs_sbuf_str(&b));
	fs_sbuf_fini(&b);
	return out;
}

static void test_csv_guard_formula_cells_get_a_quote(void **state)
{
	(void)state;
	assert_csv_cell("=1+2", 0, "\"'=1+2\"");
	assert_csv_cell("+cmd", 0, "\"'+cmd\"");
	assert_csv_cell("-2", 0, "\"'-2\"");
	assert_csv_cell("@SUM(A1)", 0, "\"'@SUM(A1)\"");
	assert_csv_cell("\tx", 0, "\"'\tx\"");
	assert_csv_cell("\rx", 0, "\"'\rx\"");
	assert_csv_cell("=HYPERLINK(\"http://x\")", 1, "\"'=HYPERLINK(\"\"http://x\"\")\"");
	/* A leading quote is guarded too, so names come back exactly. */
	assert_csv_cell("'=x", 0, "\"''=x\"");
	/* Ordinary names: as before (quoted only when needed or asked). */
	assert_csv_cell("chat", 0, "chat");
	assert_csv_cell("a,b", 0, "\"a,b\"");
	assert_csv_cell("chat", 1, "\"chat\"");
	assert_csv_cell("x=1", 0, "x=1");
	assert_csv_cell("", 0, "");
	assert_true(fs_csv_needs_guard("=x"));
	assert_false(fs_csv_needs_guard("x-"));
}

static void test_csv_guard_unguard_gives_every_name_back(void **state)
{
	static const char *const names[] = { "=1+2", "+cmd", "-2", "@x", "\tx", "'=x",
	                                     "''", "'plain", "plain", "=" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *cell = csv_of(names[i], 1);
		size_t n = strlen(cell);
		char *inner = malloc(n);
		size_t j, k = 0;

		/* Strip the quotes and undouble "" as a CSV reader does. */
		for (j = 1; j + 1 < n; j++) {
			inner[k++] = cell[j];
			if (cell[j] == '"')
				j++;
		}
		inner[k] = '\0';
		assert_string_equal(fs_csv_unguard(inner), names[i]);
		free(inner);
		free(cell);
	}
}

/* 1 if some line of the file starts with or contains `cell` at a cell
 * boundary (after a comma or at the start of a line). */
static int has_cell(const char *text, const char *cell)
{
	const char *p = text;
	size_t n = strlen(cell);

	while ((p = strstr(p, cell)) != NULL) {
		if ((p == text || p[-1] == ',' || p[-1] == '\n') &&
		    (p[n] == ',' || p[n] == '\n' || p[n] == '\0'))
			return 1;
		p++;
	}
	return 0;
}

static void test_csv_guard_run_outputs_guard_class_and_variant_names(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "run", SCENARIO, "-r", "1", "-o", dir, "-q",
	                       "--requests-csv", NULL };
	char *req, *cdf, *cmp;

	(void)state;
	fs_test_fleetsim_ok(args);
	req = fs_test_read_at(dir, "base/requests.csv");
	cdf = fs_test_read_at(dir, "base/latency_cdf.csv");
	cmp = fs_test_read_at(dir, "comparison.csv");
	assert_non_null(req);
	assert_non_null(cdf);
	assert_non_null(cmp);
	assert_true(has_cell(req, "\"'=1+2\""));
	assert_true(has_cell(req, "\"'@SUM(A1)\""));
	assert_false(has_cell(req, "=1+2"));
	assert_false(has_cell(req, "@SUM(A1)"));
	assert_true(has_cell(cdf, "\"'=1+2\""));
	assert_true(has_cell(cdf, "\"'@SUM(A1)\""));
	assert_true(has_cell(cdf, "\"all\""));
	assert_true(has_cell(cmp, "\"base\""));
	assert_true(has_cell(cmp, "\"'+cmd\""));
	assert_true(has_cell(cmp, "\"'-2\""));
	assert_false(has_cell(cmp, "\"-2\""));
	free(req);
	free(cdf);
	free(cmp);
	fs_test_tmpdir_free(dir);
}

static void test_csv_guard_sweep_guards_string_values_not_numbers(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "sweep", SCENARIO, "-r", "1", "-o", dir, "-q", NULL };
	char *csv;

	(void)state;
	fs_test_fleetsim_ok(args);
	csv = fs_test_read_at(dir, "sweep.csv");
	assert_non_null(csv);
	/* The axis value "-x" is a name: guarded; "plain" is not touched. */
	assert_true(has_cell(csv, "\"'-x\""));
	assert_true(has_cell(csv, "\"plain\""));
	assert_false(has_cell(csv, "\"-x\""));
	/* Labels start with the axis path and stay as they were. */
	assert_true(has_cell(csv, "\"workload.classes[0].name=\"\"-x\"\"\""));
	free(csv);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_guard_formula_cells_get_a_quote),
		cmocka_unit_test(test_csv_guard_unguard_gives_every_name_back),
		cmocka_unit_test(test_csv_guard_run_outputs_guard_class_and_variant_names),
		cmocka_unit_test(test_csv_guard_sweep_guards_string_values_not_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
