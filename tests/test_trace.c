/*
 * test_trace.c — the trace and empirical readers: the three formats on small
 * files under tests/data/traces/ (exact nanosecond times, stable sort, zero
 * outputs clamped), the shipped Azure traces, and every error message with
 * its file:line:col.  Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleetsim/trace.h"
#include "util_test.h"

#define DATA "tests/data/traces/"

static struct fs_trace *load_ok(const char *path, enum fs_trace_format f)
{
	struct fs_error err = {0};
	struct fs_trace *t = fs_trace_load(path, path, f, &err);

	if (t == NULL) {
		fs_error_print(&err);
		fail_msg("loading %s failed", path);
	}
	return t;
}

/* Load must fail with exactly `expected` as "where: msg". */
static void expect_error(const char *path, enum fs_trace_format f, const char *expected)
{
	struct fs_error err = {0};
	char buf[2048];

	assert_null(fs_trace_load(path, path, f, &err));
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, expected);
}

static void test_trace_azure_small_sorted_exact_ns(void **state)
{
	struct fs_trace *t = load_ok(DATA "azure_small.csv", FS_TRACE_AZURE);

	(void)state;
	assert_int_equal(t->n_rows, 5);
	assert_int_equal(t->format, FS_TRACE_AZURE);
	assert_string_equal(t->path, DATA "azure_small.csv");
	/* 18:17:03.5 sorts first and becomes t = 0; its 0 output is clamped to 1 */
	assert_int_equal(t->rows[0].t_ns, 0);
	assert_int_equal(t->rows[0].prompt_tokens, 100);
	assert_int_equal(t->rows[0].output_tokens, 1);
	assert_int_equal(t->rows[1].t_ns, INT64_C(479960000));
	assert_int_equal(t->rows[1].prompt_tokens, 4808);
	/* two rows at 04.0319600 keep their file order (stable sort) */
	assert_int_equal(t->rows[2].t_ns, INT64_C(531960000));
	assert_int_equal(t->rows[2].prompt_tokens, 3180);
	assert_int_equal(t->rows[3].t_ns, INT64_C(531960000));
	assert_int_equal(t->rows[3].prompt_tokens, 200);
	/* next day 00:00:00 - 18:17:03.5 = 20576.5 s */
	assert_int_equal(t->rows[4].t_ns, INT64_C(20576500000000));
	assert_int_equal(t->span_ns, INT64_C(20576500000000));
	assert_int_equal(t->loop_gap_ns, INT64_C(20576500000000) / 4);
	fs_trace_free(t);
}

static void test_trace_azure_leap_day_and_nine_digits(void **state)
{
	struct fs_trace *t = load_ok(DATA "azure_leap.csv", FS_TRACE_AZURE);

	(void)state;
	assert_int_equal(t->n_rows, 2);
	/* 2024-02-29 exists: 1 day + 0.876543211 s */
	assert_int_equal(t->rows[1].t_ns, INT64_C(86400876543211));
	fs_trace_free(t);
}

static void test_trace_vidur_columns_by_name(void **state)
{
	struct fs_trace *t = load_ok(DATA "vidur_small.csv", FS_TRACE_VIDUR);

	(void)state;
	assert_int_equal(t->n_rows, 4);
	assert_int_equal(t->rows[0].t_ns, 0);
	assert_int_equal(t->rows[0].prompt_tokens, 1024);   /* 0.25, file row 2 */
	assert_int_equal(t->rows[1].t_ns, 0);
	assert_int_equal(t->rows[1].prompt_tokens, 9);      /* 2.5e-1, file row 4 */
	assert_int_equal(t->rows[2].t_ns, INT64_C(250000000));
	assert_int_equal(t->rows[2].output_tokens, 128);
	assert_int_equal(t->rows[3].t_ns, INT64_C(750000001));
	assert_int_equal(t->rows[3].prompt_tokens, 7);
	assert_int_equal(t->rows[3].output_tokens, 3);
	assert_int_equal(t->span_ns, INT64_C(750000001));
	fs_trace_free(t);
}

static void test_trace_mooncake_keys_any_order(void **state)
{
	struct fs_trace *t = load_ok(DATA "mooncake_small.jsonl", FS_TRACE_MOONCAKE);

	(void)state;
	assert_int_equal(t->n_rows, 3);
	assert_int_equal(t->rows[0].prompt_tokens, 6758);
	assert_int_equal(t->rows[0].output_tokens, 500);
	assert_int_equal(t->rows[1].t_ns, INT64_C(1200500000));
	assert_int_equal(t->rows[1].prompt_tokens, 20);
	assert_int_equal(t->rows[1].output_tokens, 7);
	assert_int_equal(t->rows[2].t_ns, INT64_C(1500000000));
	assert_int_equal(t->loop_gap_ns, INT64_C(750000000));
	fs_trace_free(t);
}

static void test_trace_shipped_azure_code_and_conv(void **state)
{
	struct fs_trace *t = load_ok("scenarios/traces/AzureLLMInferenceTrace_code.csv",
	                             FS_TRACE_AZURE);

	(void)state;
	assert_int_equal(t->n_rows, 8819);
	assert_int_equal(t->rows[0].prompt_tokens, 4808);
	assert_int_equal(t->rows[0].output_tokens, 10);
	assert_int_equal(t->rows[1].t_ns, INT64_C(52000000));     /* 04.03196 - 03.97996 */
	/* last row 19:14:19.9280160 - 18:17:03.9799600 */
	assert_int_equal(t->span_ns, INT64_C(3435948056000));
	assert_int_equal(t->rows[8818].prompt_tokens, 549);
	assert_int_equal(t->rows[8818].output_tokens, 173);
	fs_trace_free(t);
	t = load_ok("scenarios/traces/AzureLLMInferenceTrace_conv.csv", FS_TRACE_AZURE);
	assert_int_equal(t->n_rows, 19366);
	fs_trace_free(t);
}

/* The Mooncake traces are not shipped (see DESIGN.md): use ../shared if there. */
static void test_trace_real_mooncake_if_present(void **state)
{
	const char *path = "../shared/data/traces/mooncake_fast25/conversation_trace.jsonl";
	struct fs_trace *t;

	(void)state;
	if (access(path, R_OK) != 0) {
		printf("skipped: %s not present\n", path);
		return;
	}
	t = load_ok(path, FS_TRACE_MOONCAKE);
	assert_int_equal(t->n_rows, 12031);
	assert_int_equal(t->rows[0].prompt_tokens, 6758);
	fs_trace_free(t);
}

static void test_trace_error_messages(void **state)
{
	(void)state;
	expect_error(DATA "bad_count.csv", FS_TRACE_AZURE,
	             DATA "bad_count.csv:3:23: expected an integer token count in column "
	             "ContextTokens, found \"abc\"");
	expect_error(DATA "bad_header.csv", FS_TRACE_AZURE,
	             DATA "bad_header.csv:1:1: missing column GeneratedTokens in the header "
	             "(the azure format needs TIMESTAMP,ContextTokens,GeneratedTokens)");
	expect_error(DATA "bad_empty.csv", FS_TRACE_AZURE,
	             DATA "bad_empty.csv: the azure trace has no requests");
	expect_error(DATA "no_such_file.csv", FS_TRACE_AZURE,
	             DATA "no_such_file.csv: cannot open: No such file or directory");
	expect_error(DATA "bad_timestamp.csv", FS_TRACE_AZURE,
	             DATA "bad_timestamp.csv:3:1: expected a timestamp like "
	             "2023-11-16 18:17:03.9799600 in column TIMESTAMP, found "
	             "\"2023-13-16 18:17:03.0\"");
	expect_error(DATA "bad_zero_prompt.csv", FS_TRACE_AZURE,
	             DATA "bad_zero_prompt.csv:2:23: expected a prompt length >= 1 token "
	             "in ContextTokens, found 0");
	expect_error(DATA "bad_short_row.csv", FS_TRACE_VIDUR,
	             DATA "bad_short_row.csv:3:7: expected a value in column "
	             "num_decode_tokens, found the end of the line");
	expect_error(DATA "azure_small.csv", FS_TRACE_VIDUR,
	             DATA "azure_small.csv:1:1: missing column arrived_at in the header "
	             "(the vidur format needs arrived_at,num_prefill_tokens,"
	             "num_decode_tokens)");
	expect_error(DATA "bad_missing_key.jsonl", FS_TRACE_MOONCAKE,
	             DATA "bad_missing_key.jsonl:2:1: missing key \"input_length\" (a "
	             "mooncake trace needs timestamp, input_length, output_length)");
	expect_error(DATA "bad_mooncake_time.jsonl", FS_TRACE_MOONCAKE,
	             DATA "bad_mooncake_time.jsonl:2:15: expected a time in milliseconds "
	             ">= 0 and below 100 years (3155760000000 ms) for \"timestamp\", found "
	             "a string");
	expect_error(DATA "vidur_small.csv", FS_TRACE_MOONCAKE,
	             DATA "vidur_small.csv:1:1: expected a JSON object per line, found 'r'");
}

/* Write `text` as dir/name and expect loading it in `format` to fail with
 * "name:" followed by `where_msg` (the display name is the bare file name). */
static void expect_text_error(const char *dir, const char *name, const char *text,
                              enum fs_trace_format format, const char *where_msg)
{
	char *path = fs_test_write(dir, name, text), want[1024], got[2048];
	struct fs_error err = {0};

	assert_null(fs_trace_load(path, name, format, &err));
	fs_error_format(&err, got, sizeof got);
	snprintf(want, sizeof want, "%s:%s", name, where_msg);
	assert_string_equal(got, want);
	free(path);
}

/* Write `text` as dir/name and load it (failing the test if it does not). */
static struct fs_trace *load_text(const char *dir, const char *name, const char *text,
                                  enum fs_trace_format format)
{
	char *path = fs_test_write(dir, name, text);
	struct fs_trace *t = load_ok(path, format);

	free(path);
	return t;
}

#define MC_ROW "\"timestamp\": 0, \"input_length\": 600, \"output_length\": 50"

/* Dates that do not exist are refused at the row, not moved to the next
 * month: February 29 of common years (2023, and 1900: a century not divisible
 * by 400), the 31st of a 30-day month.  2000-02-29 exists. */
static void test_trace_azure_nonexistent_dates_refused(void **state)
{
	static const char *const bad[] = {
		"2023-02-29 00:00:01", "1900-02-29 00:00:00", "2023-04-31 00:00:00",
		"2024-02-30 00:00:00"
	};
	char *dir = fs_test_tmpdir(), text[256], want[256];
	struct fs_trace *t;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
		         "2023-02-28 23:59:59,10,1\n%s,20,2\n", bad[i]);
		snprintf(want, sizeof want, "3:1: expected a timestamp like 2023-11-16 "
		         "18:17:03.9799600 in column TIMESTAMP, found \"%s\"", bad[i]);
		expect_text_error(dir, "dates.csv", text, FS_TRACE_AZURE, want);
	}
	t = load_text(dir, "y2k.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	              "2000-02-28 23:59:59,10,1\n2000-02-29 00:00:01,20,2\n", FS_TRACE_AZURE);
	assert_int_equal(t->rows[1].t_ns, 2 * FS_NS_PER_S);
	fs_trace_free(t);
	fs_test_tmpdir_free(dir);
}

/* A Mooncake line is one JSON object: only its own keys count (a nested
 * "input_length" is not the request's), and a second object, trailing text,
 * a missing or trailing comma are errors at their column, not read past.
 * Other top-level keys (hash_ids, or anything else) are still accepted. */
static void test_trace_mooncake_line_is_one_json_object(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_trace *t;

	(void)state;
	t = load_text(dir, "nested.jsonl", "{\"timestamp\": 0, \"meta\": {\"input_length\": 7}, "
	              "\"input_length\": 600, \"output_length\": 50}\n", FS_TRACE_MOONCAKE);
	assert_int_equal(t->n_rows, 1);
	assert_int_equal(t->rows[0].prompt_tokens, 600);
	assert_int_equal(t->rows[0].output_tokens, 50);
	fs_trace_free(t);
	t = load_text(dir, "extra.jsonl", "{\"session\": {\"turn\": [1, {\"x\": \"}\"}]}, "
	              "\"note\": \"a,b}\", " MC_ROW ", \"hash_ids\": [4, 5]}\n"
	              "{\"timestamp\": 1200.123456, \"input_length\": 7, "
	              "\"output_length\": 0}\n"
	              "{\"timestamp\": 1300.1234569, \"input_length\": 7, "
	              "\"output_length\": 2}\n",
	              FS_TRACE_MOONCAKE);
	assert_int_equal(t->n_rows, 3);
	/* MODEL: W14 — below 1 ns truncated, as Vidur's seconds are */
	assert_int_equal(t->rows[2].t_ns, INT64_C(1300123456));
	assert_int_equal(t->rows[0].hashes.n_units, 2);
	assert_int_equal(t->rows[0].hashes.ids[1], 5);
	assert_int_equal(t->rows[1].t_ns, INT64_C(1200123456));  /* exact to the ns */
	assert_int_equal(t->rows[1].output_tokens, 1);
	fs_trace_free(t);
	expect_text_error(dir, "only_nested.jsonl", "{\"timestamp\": 0, \"meta\": "
	                  "{\"input_length\": 7}, \"output_length\": 50}\n", FS_TRACE_MOONCAKE,
	                  "1:1: missing key \"input_length\" (a mooncake trace needs "
	                  "timestamp, input_length, output_length)");
	expect_text_error(dir, "two.jsonl", "{" MC_ROW "}\n{" MC_ROW "}{" MC_ROW "}\n",
	                  FS_TRACE_MOONCAKE, "2:59: invalid JSON: unexpected text after the "
	                  "end of the JSON value");
	expect_text_error(dir, "garbage.jsonl", "{" MC_ROW "}garbage\n", FS_TRACE_MOONCAKE,
	                  "1:59: invalid JSON: unexpected text after the end of the JSON "
	                  "value");
	expect_text_error(dir, "comma.jsonl", "{\"timestamp\": 0 \"input_length\": 600, "
	                  "\"output_length\": 50}\n", FS_TRACE_MOONCAKE,
	                  "1:17: invalid JSON: expected ',' or '}' after object member");
	expect_text_error(dir, "trailing.jsonl", "{" MC_ROW ",}\n", FS_TRACE_MOONCAKE,
	                  "1:59: invalid JSON: expected a key after ',' (trailing commas are "
	                  "not allowed)");
	expect_text_error(dir, "zeros.jsonl", "{\"timestamp\": 0, \"input_length\": 0600, "
	                  "\"output_length\": 50}\n", FS_TRACE_MOONCAKE, "1:34: invalid JSON: "
	                  "invalid number (leading zeros are not allowed)");
	fs_test_tmpdir_free(dir);
}

/* A key given twice is refused at its second place, whichever key it is
 * (cJSON keeps both; a lookup would take the first).  Past 16 keys the
 * finder sorts instead of comparing pairs: the same answer, the earliest
 * repeat. */
static void test_trace_mooncake_duplicate_keys_refused(void **state)
{
	char *dir = fs_test_tmpdir(), line[1024];
	size_t n = 0;

	(void)state;
	expect_text_error(dir, "dup.jsonl", "{" MC_ROW "}\n{\"timestamp\": 0, \"input_length\": "
	                  "600, \"input_length\": 5000, \"output_length\": 50}\n",
	                  FS_TRACE_MOONCAKE, "2:39: duplicate key \"input_length\" (first "
	                  "given at column 18)");
	expect_text_error(dir, "dup_other.jsonl", "{\"hash_ids\": [1], " MC_ROW ", "
	                  "\"hash_ids\": [2]}\n", FS_TRACE_MOONCAKE, "1:77: duplicate key "
	                  "\"hash_ids\" (first given at column 2)");
	/* 20 keys k0..k19, then k17 again and k3 again: k17 repeats first. */
	n += (size_t)snprintf(line + n, sizeof line - n, "{" MC_ROW);
	for (int k = 0; k < 20; k++)
		n += (size_t)snprintf(line + n, sizeof line - n, ", \"k%d\": %d", k, k);
	snprintf(line + n, sizeof line - n, ", \"k17\": 1, \"k3\": 2}\n");
	expect_text_error(dir, "dup_many.jsonl", line, FS_TRACE_MOONCAKE,
	                  "1:260: duplicate key \"k17\" (first given at column 227)");
	fs_test_tmpdir_free(dir);
}

/* Each value is checked for its type and range at its own column. */
static void test_trace_mooncake_value_types(void **state)
{
	char *dir = fs_test_tmpdir();

	(void)state;
	expect_text_error(dir, "str.jsonl", "{\"timestamp\": 0, \"input_length\": \"600\", "
	                  "\"output_length\": 50}\n", FS_TRACE_MOONCAKE, "1:34: expected an "
	                  "integer token count for \"input_length\", found a string");
	expect_text_error(dir, "frac.jsonl", "{\"timestamp\": 0, \"input_length\": 600, "
	                  "\"output_length\": 2.5}\n", FS_TRACE_MOONCAKE, "1:56: expected an "
	                  "integer token count for \"output_length\", found \"2.5\"");
	expect_text_error(dir, "neg.jsonl", "{\"timestamp\": 0, \"input_length\": 600, "
	                  "\"output_length\": -3}\n", FS_TRACE_MOONCAKE, "1:56: expected an "
	                  "integer token count for \"output_length\", found \"-3\"");
	expect_text_error(dir, "zero.jsonl", "{\"timestamp\": 0, \"input_length\": 0, "
	                  "\"output_length\": 3}\n", FS_TRACE_MOONCAKE, "1:34: expected a "
	                  "prompt length >= 1 token in input_length, found 0");
	expect_text_error(dir, "null_time.jsonl", "{\"timestamp\": null, \"input_length\": 6, "
	                  "\"output_length\": 3}\n", FS_TRACE_MOONCAKE, "1:15: expected a "
	                  "time in milliseconds >= 0 and below 100 years (3155760000000 ms) "
	                  "for \"timestamp\", found null");
	expect_text_error(dir, "ids_obj.jsonl", "{" MC_ROW ", \"hash_ids\": {}}\n",
	                  FS_TRACE_MOONCAKE, "1:72: expected a list of block ids for "
	                  "\"hash_ids\", found an object");
	expect_text_error(dir, "ids_neg.jsonl", "{" MC_ROW ", \"hash_ids\": [1, -1]}\n",
	                  FS_TRACE_MOONCAKE, "1:76: expected a block id (integer >= 0) in "
	                  "\"hash_ids\", found \"-1\"");
	fs_test_tmpdir_free(dir);
}

/* Through the binary: a bad line is exit status 2 with its file:line:col,
 * and the run writes nothing. */
static void test_trace_mooncake_bad_line_exits_2(void **state)
{
	char *dir = fs_test_tmpdir(), *trace, *scenario, *out = fs_test_path(dir, "out");
	const char *args[] = {"run", NULL, "-o", out, "-q", "--requests-csv", NULL};
	struct fs_test_run r;

	(void)state;
	trace = fs_test_write(dir, "t.jsonl", "{" MC_ROW "}\n{\"timestamp\": 5, "
	                      "\"input_length\": 600, \"input_length\": 5000, "
	                      "\"output_length\": 50}\n");
	scenario = fs_test_write(dir, "s.json", "{\n"
	        " \"simulation\": {\"horizon\": \"10s\", \"replications\": 1},\n"
	        " \"workload\": {\"classes\": [{\"name\": \"c\", \"arrivals\": {\"process\": "
	        "\"trace\", \"trace\": {\"path\": \"t.jsonl\", \"format\": \"mooncake\", "
	        "\"loop\": false}}}]},\n"
	        " \"engine\": {\"type\": \"queue\", \"service\": {\"dist\": \"exponential\", "
	        "\"mean\": \"200ms\"}}\n}\n");
	args[1] = scenario;
	r = fs_test_fleetsim_expect(args, 2);
	assert_has(r.err, "t.jsonl:2:39: ", "duplicate key \"input_length\" (first given at "
	           "column 18)");
	assert_false(fs_test_exists(NULL, out));
	fs_test_run_free(&r);
	free(trace);
	free(scenario);
	free(out);
	fs_test_tmpdir_free(dir);
}

#define AZ_HEAD "TIMESTAMP,ContextTokens,GeneratedTokens\n"

/* CSV rows: a field past the header's, a sign on a token count and spaces
 * around a value are refused at their column; a quoted value is still CSV. */
static void test_trace_csv_fields_strict(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_trace *t;

	(void)state;
	t = load_text(dir, "quoted.csv", AZ_HEAD "2023-11-16 18:17:04.0,\"10\",8\n",
	              FS_TRACE_AZURE);
	assert_int_equal(t->rows[0].prompt_tokens, 10);
	fs_trace_free(t);
	expect_text_error(dir, "extra.csv", AZ_HEAD "2023-11-16 18:17:03.0,4,5\n"
	                  "2023-11-16 18:17:04.0,10,8,9\n", FS_TRACE_AZURE,
	                  "3:28: expected 3 fields as in the header, found 4");
	expect_text_error(dir, "trailing.csv", AZ_HEAD "2023-11-16 18:17:04.0,10,8,\n",
	                  FS_TRACE_AZURE, "2:28: expected 3 fields as in the header, found 4");
	expect_text_error(dir, "plus.csv", AZ_HEAD "2023-11-16 18:17:04.0,+10,8\n",
	                  FS_TRACE_AZURE, "2:23: expected an integer token count in column "
	                  "ContextTokens, found \"+10\"");
	expect_text_error(dir, "space.csv", AZ_HEAD "2023-11-16 18:17:04.0, 10,8\n",
	                  FS_TRACE_AZURE, "2:23: expected a value without spaces around it "
	                  "in column ContextTokens, found \" 10\"");
	expect_text_error(dir, "space_after.csv", AZ_HEAD "2023-11-16 18:17:04.0,10,8 \n",
	                  FS_TRACE_AZURE, "2:26: expected a value without spaces around it "
	                  "in column GeneratedTokens, found \"8 \"");
	expect_text_error(dir, "space_time.csv", AZ_HEAD " 2023-11-16 18:17:04.0,10,8\n",
	                  FS_TRACE_AZURE, "2:1: expected a value without spaces around it "
	                  "in column TIMESTAMP, found \" 2023-11-16 18:17:04.0\"");
	expect_text_error(dir, "vidur_extra.csv", "arrived_at,num_prefill_tokens,"
	                  "num_decode_tokens\n0.5,10,8,9\n", FS_TRACE_VIDUR,
	                  "2:10: expected 3 fields as in the header, found 4");
	expect_text_error(dir, "vidur_plus.csv", "arrived_at,num_prefill_tokens,"
	                  "num_decode_tokens\n0.5,10,+8\n", FS_TRACE_VIDUR,
	                  "2:8: expected an integer token count in column num_decode_tokens, "
	                  "found \"+8\"");
	fs_test_tmpdir_free(dir);
}

/* Azure dates far apart: every row within 100 years of every other loads,
 * exact to the ns, whichever side of the first row they lie; a row that
 * widens the span to 100 years is refused where it stands (the rows'
 * differences after sorting, and a replay period of span + loop gap, must
 * fit 2^63 ns: 292 years).  Vidur and Mooncake offsets stop there too. */
static void test_trace_azure_dates_within_200_years(void **state)
{
	struct fs_trace *t = load_ok(DATA "azure_wide.csv", FS_TRACE_AZURE);

	(void)state;
	assert_int_equal(t->n_rows, 3);
	assert_int_equal(t->rows[0].prompt_tokens, 30);          /* 1950 first */
	assert_int_equal(t->rows[1].t_ns, INT64_C(1577836800000000000));
	assert_int_equal(t->rows[2].t_ns, INT64_C(3137270400500000000));
	assert_int_equal(t->span_ns, INT64_C(3137270400500000000));
	fs_trace_free(t);
	/* 2000, then 2090 (90 years later), then 1910 (180 years before it) */
	expect_error(DATA "bad_azure_span.csv", FS_TRACE_AZURE,
	             DATA "bad_azure_span.csv:4:1: timestamp 100 years or more from "
	             "another row's (a trace's times must lie within 100 years)");
	expect_error(DATA "bad_vidur_span.csv", FS_TRACE_VIDUR,
	             DATA "bad_vidur_span.csv:3:1: expected a time in seconds >= 0 and "
	             "below 100 years (3155760000 s) in column arrived_at, found "
	             "\"3155760000\"");
	expect_error(DATA "bad_mooncake_span.jsonl", FS_TRACE_MOONCAKE,
	             DATA "bad_mooncake_span.jsonl:2:15: expected a time in milliseconds "
	             ">= 0 and below 100 years (3155760000000 ms) for \"timestamp\", found "
	             "\"4000000000000\"");
}

/* Vidur and Mooncake times are offsets like Azure's dates: never negative. */
static void test_trace_negative_times_refused_in_every_format(void **state)
{
	(void)state;
	expect_error(DATA "bad_vidur_negative.csv", FS_TRACE_VIDUR,
	             DATA "bad_vidur_negative.csv:3:1: expected a time in seconds >= 0 "
	             "and below 100 years (3155760000 s) in column arrived_at, found "
	             "\"-1.25\"");
	expect_error(DATA "bad_mooncake_negative.jsonl", FS_TRACE_MOONCAKE,
	             DATA "bad_mooncake_negative.jsonl:2:15: expected a time in "
	             "milliseconds >= 0 and below 100 years (3155760000000 ms) for "
	             "\"timestamp\", found \"-27\"");
}

/* A directory is not a trace: refused at open by every reader. */
static void test_trace_directory_is_refused(void **state)
{
	struct fs_error err = {0};
	int64_t *v = NULL;
	size_t n = 0;
	char buf[2048];

	(void)state;
	expect_error(DATA "a_directory.csv", FS_TRACE_AZURE,
	             DATA "a_directory.csv: cannot open: it is a directory; expected a file");
	expect_error(DATA "a_directory.csv", FS_TRACE_MOONCAKE,
	             DATA "a_directory.csv: cannot open: it is a directory; expected a file");
	assert_int_equal(fs_empirical_load(DATA "a_directory.csv", "d", NULL, &v, &n, &err),
	                 -1);
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, "d: cannot open: it is a directory; expected a file");
	assert_null(v);
}

static void test_trace_format_names(void **state)
{
	enum fs_trace_format f;

	(void)state;
	assert_lookup(fs_trace_format_parse, "azure", f, FS_TRACE_AZURE);
	assert_lookup(fs_trace_format_parse, "vidur", f, FS_TRACE_VIDUR);
	assert_lookup(fs_trace_format_parse, "mooncake", f, FS_TRACE_MOONCAKE);
	assert_int_equal(fs_trace_format_parse("Azure", &f), -1);
	assert_string_equal(fs_trace_format_name(FS_TRACE_MOONCAKE), "mooncake");
	assert_string_equal(fs_trace_format_name(FS_TRACE_VIDUR), "vidur");
}

static void test_trace_empirical_list_and_column(void **state)
{
	struct fs_error err = {0};
	int64_t *v = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(fs_empirical_load(DATA "empirical_list.txt", NULL, NULL, &v, &n,
	                                   &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 100);
	assert_int_equal(v[1], 200);
	assert_int_equal(v[2], 300);
	free(v);
	assert_int_equal(fs_empirical_load("scenarios/traces/AzureLLMInferenceTrace_code.csv",
	                                   "code.csv", "GeneratedTokens", &v, &n, &err), 0);
	assert_int_equal(n, 8819);
	assert_int_equal(v[0], 10);
	free(v);
}

static void test_trace_empirical_errors(void **state)
{
	struct fs_error err = {0};
	int64_t *v = NULL;
	size_t n = 0;
	char buf[2048];

	(void)state;
	assert_int_equal(fs_empirical_load(DATA "bad_empirical.csv", "e.csv", "tokens", &v, &n,
	                                   &err), -1);
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, "e.csv:3:3: expected a positive integer token count in "
	                    "column tokens, found \"0\"");
	assert_int_equal(fs_empirical_load(DATA "bad_empirical.csv", "e.csv", "len", &v, &n,
	                                   &err), -1);
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, "e.csv:1:1: missing column len in the header");
	assert_int_equal(fs_empirical_load(DATA "bad_empirical.csv", "e.csv", NULL, &v, &n,
	                                   &err), -1);
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, "e.csv:1:1: expected a positive integer token count, "
	                    "found \"id,tokens\"");
	assert_int_equal(fs_empirical_load(DATA "bad_empty.csv", "x.txt", "TIMESTAMP", &v, &n,
	                                   &err), -1);
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, "x.txt: no token counts found (expected rows after the "
	                    "header)");
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_azure_small_sorted_exact_ns),
		cmocka_unit_test(test_trace_azure_leap_day_and_nine_digits),
		cmocka_unit_test(test_trace_azure_nonexistent_dates_refused),
		cmocka_unit_test(test_trace_vidur_columns_by_name),
		cmocka_unit_test(test_trace_mooncake_keys_any_order),
		cmocka_unit_test(test_trace_shipped_azure_code_and_conv),
		cmocka_unit_test(test_trace_real_mooncake_if_present),
		cmocka_unit_test(test_trace_error_messages),
		cmocka_unit_test(test_trace_mooncake_line_is_one_json_object),
		cmocka_unit_test(test_trace_mooncake_duplicate_keys_refused),
		cmocka_unit_test(test_trace_mooncake_value_types),
		cmocka_unit_test(test_trace_mooncake_bad_line_exits_2),
		cmocka_unit_test(test_trace_csv_fields_strict),
		cmocka_unit_test(test_trace_azure_dates_within_200_years),
		cmocka_unit_test(test_trace_negative_times_refused_in_every_format),
		cmocka_unit_test(test_trace_directory_is_refused),
		cmocka_unit_test(test_trace_format_names),
		cmocka_unit_test(test_trace_empirical_list_and_column),
		cmocka_unit_test(test_trace_empirical_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
