/*
 * test_out_format.c — the one output format (docs/OUTPUTS.md): the CSV
 * quoting rule case by case, the 9-significant-digit figures, the same
 * quoting and figures from different writers (timeseries.csv, latency_cdf.csv
 * and requests.csv of a run, comparison.csv of its variants, budget.csv and
 * budget.json of a budget; every number of a closed-loop sweep's sweep.json),
 * and atomic writes that fail leaving the old file
 * and no temporary behind.  Runs ./fleetsim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleetsim/escape.h"
#include "fleetsim/out_format.h"
#include "fleetsim/outfile.h"
#include "util_test.h"

static void test_out_format_csv_quoting_follows_rfc4180(void **state)
{
	(void)state;
	assert_csv_cell("chat", 0, "chat");
	assert_csv_cell("two words", 0, "two words");
	assert_csv_cell("", 0, "");
	assert_csv_cell("a,b", 0, "\"a,b\"");
	assert_csv_cell("say \"hi\"", 0, "\"say \"\"hi\"\"\"");
	assert_csv_cell("line\nbreak", 0, "\"line\nbreak\"");
	assert_csv_cell("cr\rhere", 0, "\"cr\rhere\"");
	assert_csv_cell(" lead", 0, "\" lead\"");
	assert_csv_cell("trail ", 0, "\"trail \"");
	assert_csv_cell("\"", 0, "\"\"\"\"");
	/* A column of names is quoted always, by the same function. */
	assert_csv_cell("chat", FS_CSV_QUOTE, "\"chat\"");
	assert_csv_cell("", FS_CSV_QUOTE, "\"\"");
	/* Names a spreadsheet would run are guarded (test_csv_guard's policy)... */
	assert_csv_cell("=1+2", 0, "\"'=1+2\"");
	assert_csv_cell("-x,y", 0, "\"'-x,y\"");
	/* ...values (JSON text of a sweep axis value) are not. */
	assert_csv_cell("-1", FS_CSV_VALUE, "-1");
	assert_csv_cell("-1", FS_CSV_VALUE | FS_CSV_QUOTE, "\"-1\"");
	assert_csv_cell("[1,2]", FS_CSV_VALUE, "\"[1,2]\"");
	assert_csv_cell("{\"a\":1}", FS_CSV_VALUE, "\"{\"\"a\"\":1}\"");
}

static void test_out_format_figures_have_nine_significant_digits(void **state)
{
	char buf[FS_OUT_NUM_LEN];
	cJSON *o = cJSON_CreateObject();
	char *text;
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(FS_OUT_DIGITS, 9);
	assert_string_equal(fs_out_num(buf, 1.0 / 3), "0.333333333");
	assert_string_equal(fs_out_num(buf, 2.0 / 3), "0.666666667");
	assert_string_equal(fs_out_num(buf, 1234567.891234), "1234567.89");
	assert_string_equal(fs_out_num(buf, 123456789012.0), "1.23456789e+11");
	assert_string_equal(fs_out_num(buf, 1e-12), "1e-12");
	assert_string_equal(fs_out_num(buf, -0.5), "-0.5");
	assert_string_equal(fs_out_num(buf, 0), "0");
	assert_string_equal(fs_out_num(buf, NAN), "");
	assert_string_equal(fs_out_num(buf, INFINITY), "");
	assert_true(fs_out_round(2.0 / 3) == 0.666666667);
	assert_true(isnan(fs_out_round(NAN)));

	/* JSON: the same digits; not finite is null. */
	fs_json_add_num(o, "third", 1.0 / 3);
	fs_json_add_num(o, "none", NAN);
	text = fs_json_text(o, 0);
	assert_string_equal(text, "{\"third\":0.333333333,\"none\":null}");
	free(text);
	text = fs_json_text(o, FS_JSON_NEWLINE);
	assert_string_equal(text, "{\"third\":0.333333333,\"none\":null}\n");
	free(text);
	cJSON_Delete(o);

	/* CSV: a separator, then the same digits; not finite is empty. */
	f = tmpfile();
	assert_non_null(f);
	fs_csv_put_num(f, 1.0 / 3);
	fs_csv_put_num(f, NAN);
	fs_csv_put_num(f, 42);
	rewind(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, ",0.333333333,,42");
}

/* Every cell of a CSV text that reads fully as a number is written in the
 * one format (fs_out_num of its own value).  Returns the number of such
 * cells; *max_digits gets the most significant digits seen. */
static size_t check_figures(const char *text, const char *name, int *max_digits)
{
	const char *p = strchr(text, '\n');     /* skip the header */
	size_t n = 0;

	*max_digits = 0;
	while (p != NULL && *++p != '\0') {
		const char *end = p + strcspn(p, ",\n");
		char cell[128], buf[FS_OUT_NUM_LEN];
		size_t len = (size_t)(end - p);

		if (*p != '"' && len > 0 && len < sizeof cell) {
			char *stop;
			double x;

			memcpy(cell, p, len);
			cell[len] = '\0';
			x = strtod(cell, &stop);
			if (*stop == '\0') {
				int digits = 0, seen = 0;
				const char *c;

				if (strcmp(fs_out_num(buf, x), cell) != 0)
					fail_msg("%s: cell \"%s\" is not in the %%.9g form \"%s\"",
					         name, cell, buf);
				/* significant: from the first non-zero digit on */
				for (c = cell; *c != '\0' && *c != 'e'; c++) {
					seen |= *c >= '1' && *c <= '9';
					digits += seen && *c >= '0' && *c <= '9';
				}
				if (digits > *max_digits)
					*max_digits = digits;
				n++;
			}
		}
		if (*p == '"') {                        /* a quoted cell: skip it */
			for (p++; *p != '\0' && !(*p == '"' && p[1] != '"'); p++)
				if (*p == '"')
					p++;
			end = p + 1;
		}
		p = *end == '\0' ? NULL : end;
	}
	return n;
}

static char *read_in(const char *dir, const char *file)
{
	char *p = fs_test_path(dir, file);
	char *text = fs_test_read_file(p, NULL);

	if (text == NULL)
		fail_msg("cannot read %s", p);
	free(p);
	return text;
}

static void test_out_format_writers_share_quoting_and_figures(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "run", "tests/data/csv_quoting.json", "-o", dir, "-q",
	                       "--requests-csv", NULL };
	struct fs_test_run r;
	char *ts, *cdf, *req, *cmp;
	int digits;

	(void)state;
	r = fs_test_run_fleetsim(args);
	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	ts = read_in(dir, "base/timeseries.csv");
	cdf = read_in(dir, "base/latency_cdf.csv");
	req = read_in(dir, "base/requests.csv");
	cmp = read_in(dir, "comparison.csv");
	/* The class name `chat, "eu"` is one RFC 4180 field in both writers of
	 * the outputs layer; the variant name ` x, "y"` (leading space) in the
	 * study layer's comparison.csv. */
	assert_non_null(strstr(cdf, "\n\"chat, \"\"eu\"\"\",ttft_ms,"));
	assert_non_null(strstr(req, ",\"chat, \"\"eu\"\"\",completed,"));
	assert_non_null(strstr(cmp, "\n\" x, \"\"y\"\"\",USD,"));
	/* Figures: the same 9-significant-digit form everywhere; timeseries.csv
	 * wrote 6 before, so some of its cells must now carry more. */
	assert_true(check_figures(ts, "timeseries.csv", &digits) > 50);
	assert_true(digits > 6);
	assert_true(digits <= 9);
	assert_true(check_figures(cdf, "latency_cdf.csv", &digits) > 50);
	assert_true(digits <= 9);
	assert_true(check_figures(cmp, "comparison.csv", &digits) > 10);
	assert_true(digits > 6 && digits <= 9);
	free(ts);
	free(cdf);
	free(req);
	free(cmp);
	fs_test_tmpdir_free(dir);
}

static double jnum(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void test_out_format_budget_csv_and_json_carry_the_same_figures(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "budget", "scenarios/budget-quarter.json", "-o", dir, "-q",
	                       NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	char *json, *csv, want[256], a[FS_OUT_NUM_LEN], b[FS_OUT_NUM_LEN];
	char c[FS_OUT_NUM_LEN], d[FS_OUT_NUM_LEN];
	const cJSON *tot;
	cJSON *j;
	int digits;

	(void)state;
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	json = read_in(dir, "budget.json");
	csv = read_in(dir, "budget.csv");
	j = cJSON_Parse(json);
	assert_non_null(j);
	tot = cJSON_GetObjectItemCaseSensitive(j, "totals");
	/* The TOTAL row holds the totals of budget.json, written alike. */
	snprintf(want, sizeof want, "\nTOTAL,,,%d,,,,%s,,%s,%s,%s,,,,,,,USD\n",
	         (int)jnum(tot, "peak_cards"), fs_out_num(a, jnum(tot, "card_h")),
	         fs_out_num(b, jnum(tot, "gpu_cost")), fs_out_num(c, jnum(tot, "machine_cost")),
	         fs_out_num(d, jnum(tot, "risk_cost")));
	if (strstr(csv, want) == NULL)
		fail_msg("budget.csv lacks %s", want);
	assert_true(check_figures(csv, "budget.csv", &digits) > 20);
	assert_true(digits <= 9);
	cJSON_Delete(j);
	free(json);
	free(csv);
	fs_test_tmpdir_free(dir);
}

/* Names in dir other than keep (NULL: any), as a count. */
static int others_in(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (keep != NULL && strcmp(e->d_name, keep) == 0))
			continue;
		print_message("left behind: %s\n", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static void write_old(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("old\n", f);
	fclose(f);
}

static void assert_old(const char *path)
{
	char *text = fs_test_read_file(path, NULL);

	assert_non_null(text);
	assert_string_equal(text, "old\n");
	free(text);
}

/* Fail naming the path unless every number under node is a 9-digit figure
 * (fs_out_round leaves it as it is); returns how many numbers it saw. */
static size_t check_json_figures(const cJSON *node, const char *path)
{
	const cJSON *it;
	size_t n = 0;

	cJSON_ArrayForEach(it, node) {
		char sub[512];

		snprintf(sub, sizeof sub, "%s.%s", path, it->string ? it->string : "[]");
		if (cJSON_IsNumber(it)) {
			if (fs_out_round(it->valuedouble) != it->valuedouble)
				fail_msg("%s: %.17g has more than 9 significant digits", sub,
				         it->valuedouble);
			n++;
		} else {
			n += check_json_figures(it, sub);
		}
	}
	return n;
}

/* sweep.json of a closed-loop sweep: the concurrency block of each point
 * (MODEL U7) in the same 9-digit figures as the rest of the file. */
static void test_out_format_sweep_json_concurrency_has_nine_digits(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "sweep", "scenarios/benchmark-concurrency.json", "-q", "-o", dir,
	                       NULL };
	cJSON *sweep;
	const cJSON *conc;

	(void)state;
	fs_test_fleetsim_ok(args);
	sweep = fs_test_read_json(dir, "sweep.json");
	conc = fs_test_json_at(cJSON_GetArrayItem(fs_test_json_at(sweep, "points"), 0),
	                       "concurrency");
	assert_non_null(conc);                            /* the premise */
	assert_true(check_json_figures(sweep, "sweep.json") > 0);
	cJSON_Delete(sweep);
	fs_test_tmpdir_free(dir);
}

static void test_out_format_failed_atomic_write_leaves_old_file(void **state)
{
	char *dir = fs_test_tmpdir();
	char *path = fs_test_path(dir, "out.json"), *sub = fs_test_path(dir, "sub");
	char *inner = fs_test_path(sub, "keep");
	cJSON *o = cJSON_CreateObject();
	struct fs_outfile of;
	struct fs_error err;

	(void)state;
	fs_json_add_num(o, "x", 1.0 / 3);
	write_old(path);

	/* An unwritable directory: no temporary can be made. */
	assert_int_equal(chmod(dir, 0555), 0);
	if (geteuid() == 0) {
		print_message("running as root, which writes in a 0555 directory: "
		              "the unwritable-directory case is skipped\n");
	} else {
		assert_int_equal(fs_outfile_write_json(path, o, &err), -1);
		assert_non_null(strstr(err.where, "out.json"));
		assert_old(path);
		assert_int_equal(others_in(dir, "out.json"), 0);
	}
	assert_int_equal(chmod(dir, 0755), 0);

	/* A write error on the stream: commit fails, the temporary goes. */
	assert_int_equal(fs_outfile_open(&of, path, &err), 0);
	fputs("{\"half\":", of.f);
	(void)fgetc(of.f);       /* reading a write-only stream sets its error */
	assert_true(ferror(of.f));
	assert_int_equal(fs_outfile_commit(&of, &err), -1);
	assert_non_null(strstr(err.msg, "cannot write output file"));
	assert_old(path);
	assert_int_equal(others_in(dir, "out.json"), 0);

	/* A rename that fails (the target is a non-empty directory). */
	assert_int_equal(mkdir(sub, 0755), 0);
	write_old(inner);
	assert_int_equal(fs_outfile_write_json(sub, o, &err), -1);
	assert_old(inner);
	assert_int_equal(others_in(sub, "keep"), 0);
	unlink(inner);
	rmdir(sub);
	assert_int_equal(others_in(dir, "out.json"), 0);

	/* And one that succeeds: indented JSON with a final newline. */
	assert_int_equal(fs_outfile_write_json(path, o, &err), 0);
	{
		char *text = fs_test_read_file(path, NULL);

		assert_non_null(text);
		assert_string_equal(text, "{\n\t\"x\":\t0.333333333\n}\n");
		free(text);
	}
	assert_int_equal(others_in(dir, "out.json"), 0);
	cJSON_Delete(o);
	free(inner);
	free(sub);
	free(path);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_format_csv_quoting_follows_rfc4180),
		cmocka_unit_test(test_out_format_figures_have_nine_significant_digits),
		cmocka_unit_test(test_out_format_writers_share_quoting_and_figures),
		cmocka_unit_test(test_out_format_budget_csv_and_json_carry_the_same_figures),
		cmocka_unit_test(test_out_format_sweep_json_concurrency_has_nine_digits),
		cmocka_unit_test(test_out_format_failed_atomic_write_leaves_old_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
