/*
 * test_capacity.c — spot-capacity traces: both formats on small files under
 * tests/data/capacity/ (exact steps, scaling, looping, next-change times),
 * every error message with its file:line:col, the Spot Advisor band rates,
 * and the real traces in ../shared/data/traces/ when that folder is present
 * (skipped with a message otherwise).  Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fleetsim/capacity.h"
#include "util_test.h"

#define DATA "tests/data/capacity/"
#define SHARED "../shared/data/traces/"
#define AWS9 SHARED "spot_skypilot_cantbelate/availability/1-node/aws-02-15-2023/"
#define S(x) ((fs_ns)((x) * 1e9))

static struct fs_capacity_trace *load_ok(const char *path, enum fs_capacity_format f,
                                         double scale, bool loop)
{
	struct fs_error err = {0};
	struct fs_capacity_trace *t = fs_capacity_trace_load(path, NULL, f, scale, loop, &err);

	if (t == NULL) {
		fs_error_print(&err);
		fail_msg("loading %s failed", path);
	}
	return t;
}

/* Load must fail with exactly `expected` as "where: path: msg". */
static void expect_error(const char *path, enum fs_capacity_format f, const char *expected)
{
	struct fs_error err = {0};
	char buf[2048];

	assert_null(fs_capacity_trace_load(path, path, f, 1.0, false, &err));
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, expected);
}

static void expect_steps(const struct fs_capacity_trace *t, const fs_ns *t_ns,
                         const int32_t *cap, size_t n)
{
	assert_int_equal(t->n_steps, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t->t_ns[i], t_ns[i]);
		assert_int_equal(t->capacity[i], cap[i]);
	}
}

static int shared_present(const char *path)
{
	if (access(path, R_OK) == 0)
		return 1;
	printf("skipped: %s not present\n", path);
	return 0;
}

static void test_capacity_skypilot_small_steps(void **state)
{
	/* data [0, 0, 1, 1, 1, 2, 0, 0] every 60 s */
	struct fs_capacity_trace *t = load_ok(DATA "sky_small.json", FS_CAPACITY_SKYPILOT, 1, false);
	const fs_ns ts[] = {0, S(120), S(300), S(360)};
	const int32_t cs[] = {0, 1, 2, 0};

	(void)state;
	expect_steps(t, ts, cs, 4);
	assert_int_equal(t->span_ns, S(480));
	assert_int_equal(t->format, FS_CAPACITY_SKYPILOT);
	assert_string_equal(t->path, DATA "sky_small.json");
	assert_int_equal(fs_capacity_at(t, -5), 0);
	assert_int_equal(fs_capacity_at(t, S(119)), 0);
	assert_int_equal(fs_capacity_at(t, S(120)), 1);
	assert_int_equal(fs_capacity_at(t, S(359)), 2);
	assert_int_equal(fs_capacity_at(t, S(10000)), 0);      /* last value */
	assert_int_equal(fs_capacity_next_change(t, 0), S(120));
	assert_int_equal(fs_capacity_next_change(t, S(120)), S(300));
	assert_int_equal(fs_capacity_next_change(t, S(359)), S(360));
	assert_int_equal(fs_capacity_next_change(t, S(360)), FS_NS_MAX);
	/* up over [120 s, 360 s) of 480 s */
	assert_near(fs_capacity_available_fraction(t), 0.5, 1e-15, 0);
	fs_capacity_trace_free(t);
}

static void test_capacity_scale_rounds_and_compresses(void **state)
{
	struct fs_capacity_trace *t = load_ok(DATA "sky_small.json", FS_CAPACITY_SKYPILOT, 4, false);
	const fs_ns ts4[] = {0, S(120), S(300), S(360)};
	const int32_t cs4[] = {0, 4, 8, 0};
	const fs_ns ts04[] = {0, S(300), S(360)};
	const int32_t cs04[] = {0, 1, 0};      /* 0.4 -> 0, 0.8 -> 1 */

	(void)state;
	expect_steps(t, ts4, cs4, 4);
	fs_capacity_trace_free(t);
	t = load_ok(DATA "sky_small.json", FS_CAPACITY_SKYPILOT, 0.4, false);
	expect_steps(t, ts04, cs04, 3);
	assert_near(fs_capacity_available_fraction(t), 60.0 / 480.0, 1e-15, 0);
	fs_capacity_trace_free(t);
	t = load_ok(DATA "sky_small.json", FS_CAPACITY_SKYPILOT, 0, false);
	assert_int_equal(t->n_steps, 1);
	assert_int_equal(fs_capacity_next_change(t, 0), FS_NS_MAX);
	fs_capacity_trace_free(t);
}

static void test_capacity_skypilot_loop(void **state)
{
	struct fs_capacity_trace *t = load_ok(DATA "sky_small.json", FS_CAPACITY_SKYPILOT, 1, true);

	(void)state;
	assert_int_equal(fs_capacity_at(t, S(480)), 0);
	assert_int_equal(fs_capacity_at(t, S(600)), 1);          /* = at 120 s */
	assert_int_equal(fs_capacity_at(t, S(480 * 3 + 300)), 2);
	assert_int_equal(fs_capacity_next_change(t, S(350)), S(360));
	/* last step 0 = first value 0: the next change is 120 s into the next pass */
	assert_int_equal(fs_capacity_next_change(t, S(400)), S(600));
	assert_int_equal(fs_capacity_next_change(t, S(480)), S(600));
	assert_int_equal(fs_capacity_next_change(t, S(960 + 400)), S(1440 + 120));
	fs_capacity_trace_free(t);
}

static void test_capacity_loop_first_value_differs(void **state)
{
	/* data [1, 1, 0] every 10 s: steps (0, 1), (20 s, 0); span 30 s */
	struct fs_capacity_trace *t = load_ok(DATA "sky_loop.json", FS_CAPACITY_SKYPILOT, 1, true);

	(void)state;
	assert_int_equal(t->span_ns, S(30));
	assert_int_equal(fs_capacity_next_change(t, S(25)), S(30));
	assert_int_equal(fs_capacity_at(t, S(30)), 1);
	assert_int_equal(fs_capacity_next_change(t, S(30)), S(50));
	assert_int_equal(fs_capacity_at(t, S(55)), 0);
	assert_near(fs_capacity_available_fraction(t), 2.0 / 3.0, 1e-15, 0);
	fs_capacity_trace_free(t);
}

static void test_capacity_spotserve_small(void **state)
{
	/* a, b at 1 s; c at 2.5 s; a out and d in at 4 s (no change); b, c out
	 * at 6 s; a blank line and a CRLF ending on the way */
	struct fs_capacity_trace *t = load_ok(DATA "spotserve_small.csv", FS_CAPACITY_SPOTSERVE,
	                                      1, false);
	const fs_ns ts[] = {0, S(1), S(2.5), S(6)};
	const int32_t cs[] = {0, 2, 3, 1};

	(void)state;
	expect_steps(t, ts, cs, 4);
	assert_int_equal(t->span_ns, S(6));
	assert_int_equal(fs_capacity_at(t, S(7)), 1);             /* after the end */
	assert_int_equal(fs_capacity_next_change(t, S(5)), S(6));
	assert_int_equal(fs_capacity_next_change(t, S(6)), FS_NS_MAX);
	assert_near(fs_capacity_available_fraction(t), 5.0 / 6.0, 1e-15, 0);
	fs_capacity_trace_free(t);
	/* looped: the state after the last event is not replayed */
	t = load_ok(DATA "spotserve_small.csv", FS_CAPACITY_SPOTSERVE, 2, true);
	assert_int_equal(fs_capacity_at(t, S(6)), 0);
	assert_int_equal(fs_capacity_at(t, S(7)), 4);             /* 2 nodes x 2 */
	assert_int_equal(fs_capacity_next_change(t, S(5)), S(6));
	assert_int_equal(fs_capacity_next_change(t, S(6)), S(7));
	assert_int_equal(fs_capacity_next_change(t, S(8.5)), S(12));
	fs_capacity_trace_free(t);
}

static void test_capacity_skypilot_errors(void **state)
{
	(void)state;
	expect_error(DATA "sky_syntax.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_syntax.json:2:16: invalid JSON: expected a value (object, "
	             "array, string, number, true, false or null), found ','");
	expect_error(DATA "sky_no_gap.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_no_gap.json:1:14: metadata.gap_seconds: missing; expected the "
	             "seconds between samples (a number > 0)");
	expect_error(DATA "sky_gap_zero.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_gap_zero.json:1:30: metadata.gap_seconds: expected a number of "
	             "seconds > 0 (and below 1e9), found 0");
	expect_error(DATA "sky_negative.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_negative.json:4:12: data[2]: expected a capacity: an integer "
	             ">= 0, found -1");
	expect_error(DATA "sky_string_value.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_string_value.json:1:47: data[1]: expected a capacity: an "
	             "integer >= 0, found a string");
	expect_error(DATA "sky_empty.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_empty.json:1:43: data: expected at least one capacity, found "
	             "an empty array");
	expect_error(DATA "sky_no_data.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_no_data.json:1:1: data: missing; expected an array of "
	             "capacities, one per gap_seconds");
	expect_error(DATA "sky_not_object.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_not_object.json:1:1: expected an object {\"metadata\": "
	             "{\"gap_seconds\": G}, \"data\": [...]}, found an array");
	expect_error(DATA "missing.json", FS_CAPACITY_SKYPILOT,
	             DATA "missing.json: cannot open: No such file or directory");
}

/* A key given twice is refused at its second place (cJSON keeps both and a
 * lookup takes the first, so [0, 0] would have been replayed silently). */
static void test_capacity_skypilot_duplicate_keys(void **state)
{
	(void)state;
	expect_error(DATA "sky_dup_data.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_dup_data.json:3:2: data: duplicate key \"data\" (first given "
	             "at line 2, column 2)");
	expect_error(DATA "sky_dup_gap.json", FS_CAPACITY_SKYPILOT,
	             DATA "sky_dup_gap.json:1:34: metadata.gap_seconds: duplicate key "
	             "\"gap_seconds\" (first given at line 1, column 15)");
}

static void test_capacity_spotserve_errors(void **state)
{
	struct fs_error err = {0};
	char buf[512];

	(void)state;
	expect_error(DATA "ss_unknown_remove.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_unknown_remove.csv:2:13: cannot remove node \"b\": it is not up "
	             "(never added, or removed already)");
	expect_error(DATA "ss_bad_op.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_bad_op.csv:2:6: expected \"add\" or \"remove\", found \"delete\"");
	expect_error(DATA "ss_bad_time.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_bad_time.csv:2:1: expected a time in milliseconds (an integer "
	             ">= 0, below 1e12), found \"2x00\"");
	expect_error(DATA "ss_out_of_order.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_out_of_order.csv:3:1: expected events in time order, found "
	             "2000 ms after 3000 ms (line 2)");
	expect_error(DATA "ss_dup_add.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_dup_add.csv:2:10: node \"a\" is already up (added at line 1)");
	expect_error(DATA "ss_few_fields.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_few_fields.csv:1:9: expected 3 fields "
	             "timestamp_ms,add|remove,node_id, found 2");
	expect_error(DATA "ss_many_fields.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_many_fields.csv:1:12: expected 3 fields "
	             "timestamp_ms,add|remove,node_id, found 4");
	expect_error(DATA "ss_empty_id.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_empty_id.csv:1:10: expected a node id, found an empty field");
	expect_error(DATA "ss_empty.csv", FS_CAPACITY_SPOTSERVE,
	             DATA "ss_empty.csv: expected events timestamp_ms,add|remove,node_id, "
	             "found none");
	assert_null(fs_capacity_trace_load(DATA "spotserve_small.csv", "z.csv",
	                                   FS_CAPACITY_SPOTSERVE, -1, false, &err));
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, "z.csv: expected a capacity scale >= 0, found -1");
}

static void test_capacity_format_names(void **state)
{
	enum fs_capacity_format f;

	(void)state;
	assert_lookup(fs_capacity_format_parse, "skypilot", f, FS_CAPACITY_SKYPILOT);
	assert_lookup(fs_capacity_format_parse, "spotserve", f, FS_CAPACITY_SPOTSERVE);
	assert_int_equal(fs_capacity_format_parse("SkyPilot", &f), -1);
	assert_int_equal(fs_capacity_format_parse(NULL, &f), -1);
	assert_string_equal(fs_capacity_format_name(FS_CAPACITY_SKYPILOT), "skypilot");
	assert_string_equal(fs_capacity_format_name(FS_CAPACITY_SPOTSERVE), "spotserve");
}

static void test_capacity_band_rates(void **state)
{
	(void)state;
	/* P(at least one interruption in 730 h) = band midpoint */
	assert_near(fs_spot_band_rate_per_h("<5%"), -log(0.975) / 730.0, 1e-18, 1e-14);
	assert_near(fs_spot_band_rate_per_h("5-10%"), -log(0.925) / 730.0, 1e-18, 1e-14);
	assert_near(fs_spot_band_rate_per_h("10-15%"), -log(0.875) / 730.0, 1e-18, 1e-14);
	assert_near(fs_spot_band_rate_per_h("15-20%"), -log(0.825) / 730.0, 1e-18, 1e-14);
	assert_near(fs_spot_band_rate_per_h(">20%"), -log(0.75) / 730.0, 1e-18, 1e-14);
	assert_near(fs_spot_band_rate_per_h("5-10%"), 1.068e-4, 1e-7, 0);
	assert_near(fs_spot_band_rate_per_h("10-20%"), -1.0, 0, 0);
	assert_near(fs_spot_band_rate_per_h(NULL), -1.0, 0, 0);
}

/* The 9-zone V100 trace: 20,158 ticks of 195 s; per-zone availability as in
 * the data README (us-east-1a 0.17 ... us-west-2b 0.91), and at least one
 * zone up 99.2% / all nine 9.4% of the time (spot_and_cost.md section 2). */
static void test_capacity_real_aws_nine_zones(void **state)
{
	static const char *const zones[9] = {
		"us-east-1a", "us-east-1c", "us-east-1d", "us-east-1f", "us-east-2a",
		"us-east-2b", "us-west-2a", "us-west-2b", "us-west-2c"};
	static const double readme_frac[9] = {
		0.17, 0.47, 0.45, 0.59, 0.76, 0.68, 0.88, 0.91, 0.89};
	struct fs_capacity_trace *t[9];
	const fs_ns gap_ns = S(195);
	long any = 0, all = 0;

	(void)state;
	if (!shared_present(AWS9 "us-east-1a_v100_1.json"))
		return;
	for (int z = 0; z < 9; z++) {
		char path[512];

		snprintf(path, sizeof path, AWS9 "%s_v100_1.json", zones[z]);
		t[z] = load_ok(path, FS_CAPACITY_SKYPILOT, 1, false);
		assert_int_equal(t[z]->span_ns, 20158 * gap_ns);
		/* the README rounds to two decimals (us-west-2b is 0.90495) */
		assert_near(fs_capacity_available_fraction(t[z]), readme_frac[z], 0.0051, 0);
	}
	for (long k = 0; k < 20158; k++) {
		int up = 0;

		for (int z = 0; z < 9; z++)
			up += fs_capacity_at(t[z], k * gap_ns + gap_ns / 2) >= 1;
		any += up > 0;
		all += up == 9;
	}
	assert_near((double)any / 20158.0, 0.992, 0.0005, 0);
	assert_near((double)all / 20158.0, 0.094, 0.0005, 0);
	for (int z = 0; z < 9; z++)
		fs_capacity_trace_free(t[z]);
}

/* SpotServe g4dn.csv: 153 events, at most 24 nodes, time-weighted mean 12.8
 * from the first event (minute 8) to the last (minute 646). */
static void test_capacity_real_spotserve_g4dn(void **state)
{
	const char *path = SHARED "spotserve_g4dn/g4dn.csv";
	struct fs_capacity_trace *t;
	int32_t max_nodes = 0;
	double node_ns = 0;

	(void)state;
	if (!shared_present(path))
		return;
	t = load_ok(path, FS_CAPACITY_SPOTSERVE, 1, false);
	assert_int_equal(t->t_ns[1], S(480));
	assert_int_equal(t->span_ns, S(38760));
	for (size_t i = 0; i < t->n_steps; i++) {
		fs_ns end_ns = i + 1 < t->n_steps ? t->t_ns[i + 1] : t->span_ns;

		if (t->capacity[i] > max_nodes)
			max_nodes = t->capacity[i];
		node_ns += (double)t->capacity[i] * (double)(end_ns - t->t_ns[i]);
	}
	assert_int_equal(max_nodes, 24);
	assert_near(node_ns / (double)(t->span_ns - S(480)), 12.8, 0.05, 0);
	assert_int_equal(fs_capacity_at(t, FS_NS_MAX), 5);        /* 79 adds - 74 removes */
	fs_capacity_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_skypilot_small_steps),
		cmocka_unit_test(test_capacity_scale_rounds_and_compresses),
		cmocka_unit_test(test_capacity_skypilot_loop),
		cmocka_unit_test(test_capacity_loop_first_value_differs),
		cmocka_unit_test(test_capacity_spotserve_small),
		cmocka_unit_test(test_capacity_skypilot_errors),
		cmocka_unit_test(test_capacity_skypilot_duplicate_keys),
		cmocka_unit_test(test_capacity_spotserve_errors),
		cmocka_unit_test(test_capacity_format_names),
		cmocka_unit_test(test_capacity_band_rates),
		cmocka_unit_test(test_capacity_real_aws_nine_zones),
		cmocka_unit_test(test_capacity_real_spotserve_g4dn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
