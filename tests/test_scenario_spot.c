/*
 * test_scenario_spot.c — a pool's "spot" settings: every key with a bad
 * value is exit 2 from `fleetsim validate` and `fleetsim run` with
 * FILE:LINE:COL, the JSON path and the exact message, and nothing written;
 * and spot-only keys on a pool whose pricing a sweep axis, a variant or a
 * --set names: checked, unused where the pool is not spot, applied where it
 * is (the spot point's reclaim count against N x rate x horizon).
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

#include "fleetsim/capacity.h"
#include "fleetsim/scenario.h"
#include "util_scenario.h"
#include "util_test.h"

/* Ten Llama-3.1-8B instances on L40S for 30 days under a trickle of
 * requests, strategy "relaunch": a reclaimed spot instance is replaced, so
 * about ten are exposed to reclaims the whole horizon.  POOL goes inside
 * pool "a" after its count, ROOT after "fleet". */
#define DOC(strategy, pool, more_pools, root) \
	"{\n" \
	"  \"simulation\": {\"horizon\": \"30d\", \"warmup\": \"0s\", \"seed\": 3, " \
	"\"replications\": 16},\n" \
	"  \"workload\": {\"classes\": [{\"name\": \"chat\",\n" \
	"    \"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 0.001},\n" \
	"    \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 100},\n" \
	"    \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}]},\n" \
	"  \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\"},\n" \
	"  \"fleet\": {\"strategy\": \"" strategy "\", \"pools\": [" more_pools \
	"{\"name\": \"a\", \"count\": 10" pool "}]}" root "\n" \
	"}\n"

#define PRICING_SWEEP(pool_index) \
	",\n  \"sweep\": {\"axes\": [{\"path\": \"fleet.pools[" pool_index "].pricing\", " \
	"\"values\": [\"on_demand\", \"spot\"]}]}"

#define HOURS 720.0
#define COUNT 10

/* Write text to DIR/s.json; returns the path (heap). */
static char *write_scenario(const char *dir, const char *text)
{
	char *path = fs_test_path(dir, "s.json");
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Line and column (1-based, bytes) of the first `needle` in text, plus skip. */
static void line_col(const char *text, const char *needle, size_t skip, int *line, int *col)
{
	const char *at = strstr(text, needle), *p, *bol = text;

	assert_non_null(at);
	at += skip;
	*line = 1;
	for (p = text; p < at; p++)
		if (*p == '\n') {
			(*line)++;
			bol = p + 1;
		}
	*col = (int)(at - bol) + 1;
}

static struct fs_scenario *load_sets(const char *path, const char *set)
{
	const char *sets[1] = { set };
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_variant(path, NULL, sets, set != NULL,
	                                                  &err);

	if (sc == NULL)
		fs_error_print(&err);
	assert_non_null(sc);
	return sc;
}

/* ---- a bad value of every key: validate and run, exit 2, nothing written ---- */

/* A spot pool whose "spot" object is {KEY: VALUE}: `fleetsim validate` and
 * `fleetsim run` print exactly FILE:LINE:COL: fleet.pools[0].spot.KEY: MSG
 * (the position of VALUE) and exit 2; run writes nothing. */
static void check_bad(const char *key, const char *value, const char *msg)
{
	char *dir = fs_test_tmpdir(), *path, *out_dir = NULL, text[4096], pool[256];
	char want[2048], needle[256];
	const char *validate[] = { "validate", NULL, NULL };
	const char *run[] = { "run", NULL, "-o", NULL, "-q", NULL };
	struct fs_test_run r;
	int line, col;

	snprintf(pool, sizeof pool, ", \"pricing\": \"spot\",\n      \"spot\": {\"%s\": %s}",
	         key, value);
	snprintf(text, sizeof text, DOC("relaunch", "%s", "", ""), pool);
	path = write_scenario(dir, text);
	snprintf(needle, sizeof needle, "\"%s\": %s", key, value);
	line_col(text, needle, strlen(key) + 4, &line, &col);
	snprintf(want, sizeof want, "%s:%d:%d: fleet.pools[0].spot.%s: %s\n", path, line,
	         col, key, msg);

	validate[1] = path;
	r = fs_test_run_fleetsim(validate);
	assert_int_equal(r.exit_code, 2);
	assert_string_equal(r.err, want);
	assert_string_equal(r.out, "");
	fs_test_run_free(&r);

	out_dir = fs_test_path(dir, "out");
	run[1] = path;
	run[3] = out_dir;
	r = fs_test_run_fleetsim(run);
	assert_int_equal(r.exit_code, 2);
	assert_string_equal(r.err, want);
	assert_false(fs_test_exists(NULL, out_dir));
	fs_test_run_free(&r);
	free(out_dir);
	free(path);
	fs_test_tmpdir_free(dir);
}

static void test_spot_rate_above_one_is_rejected(void **state)
{
	(void)state;
	check_bad("interruption_rate_per_month", "1.5", "expected the share of instances "
	          "interrupted per month, a number 0 <= p < 1 (0.2 for 20%), found 1.5");
	check_bad("interruption_rate_per_month", "\"20%\"", "expected the share of "
	          "instances interrupted per month, a number 0 <= p < 1 (0.2 for 20%), "
	          "found \"20%\"");
}

static void test_spot_band_not_a_band_is_rejected_with_the_bands(void **state)
{
	(void)state;
	check_bad("interruption_band", "\"20%\"", "unknown interruption band \"20%\"; "
	          "expected one of <5%, 5-10%, 10-15%, 15-20%, >20% (did you mean "
	          "\"15-20%\"? for exactly 20% give \"interruption_rate_per_month\": "
	          "0.2 instead)");
	check_bad("interruption_band", "\"foo\"", "unknown interruption band \"foo\"; "
	          "expected one of <5%, 5-10%, 10-15%, 15-20%, >20%");
	check_bad("interruption_band", "\"5-10\"", "unknown interruption band \"5-10\"; "
	          "expected one of <5%, 5-10%, 10-15%, 15-20%, >20% (did you mean "
	          "\"5-10%\"?)");
	check_bad("interruption_band", "0.07", "expected an interruption band, one of "
	          "<5%, 5-10%, 10-15%, 15-20%, >20%, found 0.07 (a monthly share goes in "
	          "\"interruption_rate_per_month\")");
}

static void test_spot_negative_zone_reclaims_are_rejected(void **state)
{
	(void)state;
	check_bad("zone_reclaims_per_day", "-1", "expected a value >= 0, found -1");
}

static void test_spot_bad_zone_outage_is_rejected(void **state)
{
	(void)state;
	check_bad("zone_outage", "true", "expected a duration such as \"90s\", \"15m\", "
	          "\"2h\", \"1d\" or a number of seconds, found a boolean");
}

static void test_spot_negative_notice_is_rejected(void **state)
{
	(void)state;
	check_bad("notice", "-30", "expected a duration such as \"90s\", \"15m\", "
	          "\"2h\", \"1d\" or a number of seconds, found -30");
}

static void test_spot_unknown_in_flight_is_rejected_with_a_suggestion(void **state)
{
	(void)state;
	check_bad("in_flight", "\"requeu\"", "unknown in-flight action \"requeu\"; "
	          "expected one of drain, requeue, fail (did you mean \"requeue\"?)");
}

static void test_spot_zero_relaunch_retry_is_rejected(void **state)
{
	(void)state;
	check_bad("relaunch_retry", "\"0s\"", "expected a duration > 0, found \"0s\"");
}

/* ---- spot-only keys where pricing is open ---------------------------------------- */

static double cost_pool_figure(const char *dir, const char *what)
{
	char *path = fs_test_path(dir, "summary.json"), *text = fs_test_read_file(path, NULL);
	cJSON *root, *v;
	double x;

	assert_non_null(text);
	root = cJSON_Parse(text);
	assert_non_null(root);
	v = cJSON_GetObjectItemCaseSensitive(root, "cost");
	v = cJSON_GetObjectItemCaseSensitive(v, "pools");
	v = cJSON_GetObjectItemCaseSensitive(v, "a");
	v = cJSON_GetObjectItemCaseSensitive(v, what);
	v = cJSON_GetObjectItemCaseSensitive(v, "value");
	assert_true(cJSON_IsNumber(v));
	x = v->valuedouble;
	cJSON_Delete(root);
	free(text);
	free(path);
	return x;
}

/* `fleetsim run PATH --set SET -o DIR/NAME -q`: the pool's mean reclaims. */
static double run_reclaims(const char *dir, const char *path, const char *name,
                           const char *set)
{
	char *out = fs_test_path(dir, name);
	const char *args[] = { "run", path, "--set", set, "-o", out, "-q", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	double reclaims;

	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	reclaims = cost_pool_figure(out, "reclaims");
	free(out);
	return reclaims;
}

static double point_lost_usd(const char *dir, int point)
{
	char name[64], *path, *text;
	cJSON *root, *v;
	double x;

	snprintf(name, sizeof name, "sw/points/%d.json", point);
	path = fs_test_path(dir, name);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	root = cJSON_Parse(text);
	v = cJSON_GetObjectItemCaseSensitive(root, "figures");
	v = cJSON_GetObjectItemCaseSensitive(v, "lost_to_reclaims");
	assert_true(cJSON_IsArray(v));
	x = cJSON_GetArrayItem(v, 0)->valuedouble;
	cJSON_Delete(root);
	free(text);
	free(path);
	return x;
}

/* A sweep over pools[0].pricing ["on_demand", "spot"] on an on-demand pool
 * with "interruption_rate_per_month": 0.999.  The spot point (loaded, as
 * the sweep runner does, with --set pricing="spot") has the rate
 * -ln(1 - 0.999) / 730 per hour, so 10 instances over 720 h see about
 * 10 x 0.009463 x 720 = 68.1 reclaims (the default band 5-10% would give
 * 0.77); the on-demand point has none. */
static void test_spot_settings_follow_a_pricing_sweep_to_its_spot_point(void **state)
{
	char *dir = fs_test_tmpdir(), *path, *sw = NULL;
	const char *validate[] = { "validate", NULL, NULL };
	const char *sweep[] = { "sweep", NULL, "-r", "2", "-o", NULL, "-q", NULL };
	const double rate_per_h = -log1p(-0.999) / 730.0;
	const double expected = COUNT * rate_per_h * HOURS;
	struct fs_scenario *sc;
	struct fs_test_run r;
	double reclaims;

	(void)state;
	path = write_scenario(dir, DOC("relaunch", ", \"pricing\": \"on_demand\", "
	                               "\"spot\": {\"interruption_rate_per_month\": 0.999}",
	                               "", PRICING_SWEEP("0")));

	/* validate: the base is on-demand; its spot keys are printed back with
	 * the sweep and a note says they are unused here */
	validate[1] = path;
	r = fs_test_run_fleetsim(validate);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "\"spot\":\t{\n\t\t\t\t\t\"interruption_rate_per_month"
	                       "\":\t0.999\n"));
	assert_non_null(strstr(r.out, "// pool a is not spot here: its spot-only keys "
	                       "(spot) are checked but unused"));
	fs_test_run_free(&r);

	/* the points as the sweep loads them */
	sc = load_sets(path, "fleet.pools[0].pricing=\"spot\"");
	assert_int_equal(sc->fleet.pools[0].pricing, FS_PRICING_SPOT);
	assert_near(sc->fleet.pools[0].spot.interrupt_rate_per_h, rate_per_h, 0, 1e-12);
	assert_null(sc->fleet.pools[0].unused_spot_json);
	fs_scenario_free(sc);
	sc = load_sets(path, "fleet.pools[0].pricing=\"on_demand\"");
	assert_int_equal(sc->fleet.pools[0].pricing, FS_PRICING_ON_DEMAND);
	assert_true(sc->fleet.pools[0].spot.interrupt_rate_per_h ==
	            fs_spot_band_rate_per_h("5-10%"));
	assert_string_equal(sc->fleet.pools[0].unused_spot_json,
	                    "{\"spot\":{\"interruption_rate_per_month\":0.999}}");
	fs_scenario_free(sc);

	/* whole runs: 16 replications; sd of the mean ~ sqrt(68.1 / 16) = 2.1 */
	reclaims = run_reclaims(dir, path, "spot", "fleet.pools[0].pricing=\"spot\"");
	assert_near(reclaims, expected, 10.5, 0);
	reclaims = run_reclaims(dir, path, "od", "fleet.pools[0].pricing=\"on_demand\"");
	assert_true(reclaims == 0);

	/* and the sweep itself runs both points */
	sw = fs_test_path(dir, "sw");
	sweep[1] = path;
	sweep[5] = sw;
	fs_test_fleetsim_ok(sweep);
	assert_true(point_lost_usd(dir, 0) == 0);
	assert_true(point_lost_usd(dir, 1) > 0);
	free(sw);
	free(path);
	fs_test_tmpdir_free(dir);
}

/* The printed base of a pricing sweep loads back to the same bytes, its
 * unused spot keys included (so the printed sweep's spot point keeps them). */
static void test_spot_printed_pricing_sweep_keeps_its_spot_keys(void **state)
{
	const char *text = DOC("relaunch", ", \"pricing\": \"on_demand\", "
	                       "\"overprovision\": 2, \"price_schedule\": [{\"at\": \"1h\", "
	                       "\"usd_per_h\": 0.3}], \"spot\": {\"interruption_band\": "
	                       "\">20%\", \"notice\": \"30s\"}", "", PRICING_SWEEP("0"));
	struct fs_error err;
	struct fs_scenario *a, *b;
	char *ta, *tb;

	(void)state;
	a = fs_scenario_load_text(text, strlen(text), "t.json", ".", &err);
	assert_non_null(a);
	/* unused: no overprovision, no price steps, the default band */
	assert_int_equal(a->fleet.pools[0].overprovision, 0);
	assert_int_equal(a->fleet.pools[0].n_price_steps, 0);
	assert_true(a->fleet.pools[0].spot.interrupt_rate_per_h ==
	            fs_spot_band_rate_per_h("5-10%"));
	ta = print_to_string(a);
	b = fs_scenario_load_text(ta, strlen(ta), "printed.json", ".", &err);
	if (b == NULL)
		fs_error_print(&err);
	assert_non_null(b);
	assert_string_equal(a->fleet.pools[0].unused_spot_json,
	                    b->fleet.pools[0].unused_spot_json);
	tb = print_to_string(b);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	fs_scenario_free(a);
	fs_scenario_free(b);
}

/* A variant that makes the pool spot opens its pricing too; the base
 * prints without the unused keys (a printed scenario has no variants). */
static void test_spot_settings_follow_a_variant_that_makes_the_pool_spot(void **state)
{
	char *dir = fs_test_tmpdir(), *path, *text;
	struct fs_error err;
	struct fs_scenario *base, *v, *back;

	(void)state;
	path = write_scenario(dir, DOC("relaunch", ", \"spot\": {\"interruption_band\": "
	                               "\">20%\"}", "", ",\n  \"variants\": [{\"name\": "
	                               "\"spot\", \"set\": {\"fleet.pools[0].pricing\": "
	                               "\"spot\"}}]"));
	base = fs_scenario_load(path, &err);
	assert_non_null(base);
	assert_int_equal(base->fleet.pools[0].pricing, FS_PRICING_ON_DEMAND);
	assert_non_null(base->fleet.pools[0].unused_spot_json);
	text = print_to_string(base);
	assert_null(strstr(text, "\"spot\""));
	back = fs_scenario_load_text(text, strlen(text), "printed.json", dir, &err);
	assert_non_null(back);
	fs_scenario_free(back);
	free(text);
	v = fs_scenario_load_variant(path, "spot", NULL, 0, &err);
	assert_non_null(v);
	assert_int_equal(v->fleet.pools[0].pricing, FS_PRICING_SPOT);
	assert_true(v->fleet.pools[0].spot.interrupt_rate_per_h ==
	            fs_spot_band_rate_per_h(">20%"));
	fs_scenario_free(v);
	fs_scenario_free(base);
	free(path);
	fs_test_tmpdir_free(dir);
}

/* --set pricing away from spot: the spot pool's keys stay accepted, are
 * unused (fallback_pool too), and the printed point loads on its own. */
static void test_spot_set_pricing_on_demand_leaves_the_spot_keys_unused(void **state)
{
	char *dir = fs_test_tmpdir(), *path, *text;
	struct fs_error err;
	struct fs_scenario *sc, *back;

	(void)state;
	path = write_scenario(dir, DOC("fallback", ", \"pricing\": \"spot\", "
	                               "\"fallback_pool\": \"od\", \"overprovision\": 1, "
	                               "\"spot\": {\"notice\": \"30s\"}",
	                               "{\"name\": \"od\", \"count\": 0}, ", ""));
	sc = load_sets(path, NULL);
	assert_int_equal(sc->fleet.pools[1].fallback_pool, 0);
	assert_int_equal(sc->fleet.pools[1].overprovision, 1);
	assert_int_equal(sc->fleet.pools[1].spot.notice_ns, 30 * FS_NS_PER_S);
	fs_scenario_free(sc);
	sc = load_sets(path, "fleet.pools[1].pricing=\"on_demand\"");
	assert_int_equal(sc->fleet.pools[1].fallback_pool, -1);
	assert_int_equal(sc->fleet.pools[1].overprovision, 0);
	assert_int_equal(sc->fleet.pools[1].spot.notice_ns, 120 * FS_NS_PER_S);
	text = print_to_string(sc);
	assert_null(strstr(text, "fallback_pool"));
	back = fs_scenario_load_text(text, strlen(text), "printed.json", dir, &err);
	if (back == NULL)
		fs_error_print(&err);
	assert_non_null(back);
	fs_scenario_free(back);
	free(text);
	fs_scenario_free(sc);
	free(path);
	fs_test_tmpdir_free(dir);
}

/* Unused spot keys are still checked: a bad band under a pricing sweep is
 * exit 2 at the base, before any point runs, and nothing is written. */
static void test_spot_unused_keys_are_still_checked(void **state)
{
	char *dir = fs_test_tmpdir(), *path, *sw, want[1024];
	const char *text = DOC("relaunch", ", \"spot\": {\"interruption_band\": \"high\"}",
	                       "", PRICING_SWEEP("0"));
	const char *sweep[] = { "sweep", NULL, "-o", NULL, "-q", NULL };
	struct fs_test_run r;
	int line, col;

	(void)state;
	path = write_scenario(dir, text);
	line_col(text, "\"high\"", 0, &line, &col);
	snprintf(want, sizeof want, "%s:%d:%d: fleet.pools[0].spot.interruption_band: "
	         "unknown interruption band \"high\"; expected one of <5%%, 5-10%%, "
	         "10-15%%, 15-20%%, >20%%\n", path, line, col);
	sw = fs_test_path(dir, "sw");
	sweep[1] = path;
	sweep[3] = sw;
	r = fs_test_run_fleetsim(sweep);
	assert_int_equal(r.exit_code, 2);
	assert_string_equal(r.err, want);
	assert_false(fs_test_exists(NULL, sw));
	fs_test_run_free(&r);
	free(sw);
	free(path);
	fs_test_tmpdir_free(dir);
}

/* Without anything that sets this pool's pricing the keys stay a mistake,
 * also when another pool's pricing is swept. */
static void test_spot_keys_on_a_fixed_on_demand_pool_are_an_error(void **state)
{
	const char *text = DOC("relaunch", ", \"spot\": {\"notice\": \"30s\"}",
	                       "{\"name\": \"b\", \"count\": 1}, ", PRICING_SWEEP("0"));
	struct fs_error err;
	struct fs_scenario *sc;
	char got[2048];
	int line, col;

	(void)state;
	sc = fs_scenario_load_text(text, strlen(text), "t.json", ".", &err);
	assert_null(sc);
	fs_error_format(&err, got, sizeof got);
	line_col(text, "\"spot\": {", 0, &line, &col);
	{
		char want[1024];

		snprintf(want, sizeof want, "t.json:%d:%d: fleet.pools[1].spot: key \"spot\" "
		         "is not allowed unless pricing is \"spot\" (or a sweep axis, a "
		         "variant or --set sets fleet.pools[1].pricing)", line, col);
		assert_string_equal(got, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spot_rate_above_one_is_rejected),
		cmocka_unit_test(test_spot_band_not_a_band_is_rejected_with_the_bands),
		cmocka_unit_test(test_spot_negative_zone_reclaims_are_rejected),
		cmocka_unit_test(test_spot_bad_zone_outage_is_rejected),
		cmocka_unit_test(test_spot_negative_notice_is_rejected),
		cmocka_unit_test(test_spot_unknown_in_flight_is_rejected_with_a_suggestion),
		cmocka_unit_test(test_spot_zero_relaunch_retry_is_rejected),
		cmocka_unit_test(test_spot_settings_follow_a_pricing_sweep_to_its_spot_point),
		cmocka_unit_test(test_spot_printed_pricing_sweep_keeps_its_spot_keys),
		cmocka_unit_test(test_spot_settings_follow_a_variant_that_makes_the_pool_spot),
		cmocka_unit_test(test_spot_set_pricing_on_demand_leaves_the_spot_keys_unused),
		cmocka_unit_test(test_spot_unused_keys_are_still_checked),
		cmocka_unit_test(test_spot_keys_on_a_fixed_on_demand_pool_are_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
