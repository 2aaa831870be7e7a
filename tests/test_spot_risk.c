/*
 * test_spot_risk.c — spot risk made visible: availability and outage minutes
 * of a replayed capacity trace with a known outage against a hand count
 * (warm and cold starts, a warm-up, fallback stand-ins), availability's
 * interval cut at 1 as a share's, the "too short to
 * see spot risk" warning of `fleetsim run`, and a redundancy constraint that
 * keeps a sweep from recommending a single instance.
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

#include "fleetsim/objective.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/stats.h"
#include "fleetsim/summary.h"
#include "util_test.h"

#define MONTH_MIN (730.0 * 60.0)

static void write_file(const char *dir, const char *file, const char *text)
{
	char *p = fs_test_path(dir, file);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

/* SkyPilot format, 10-minute ticks over 2 h: one spot slot, none from
 * 40 min to 70 min. */
static const char TRACE[] =
	"{\"metadata\": {\"gap_seconds\": 600},\n"
	" \"data\": [1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1]}\n";

#define WORKLOAD \
	"\"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1},\n" \
	" \"classes\": [{\"name\": \"chat\", \"share\": 1,\n" \
	"  \"prompt_tokens\": {\"dist\": \"lognormal\", \"median\": 500, \"sigma\": 0.8, " \
	"\"max\": 8000},\n" \
	"  \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 150, \"sigma\": 0.8, " \
	"\"max\": 2000}}]},\n" \
	"\"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\"},\n"

/* One spot instance in zone z (the trace above), relaunched when the trace
 * allows, no provisioning delay, no notice; `extra_pools` follow it. */
static struct fs_scenario *trace_scenario(const char *dir, const char *warmup, bool warm,
                                          const char *strategy, const char *extra)
{
	char text[8192];

	snprintf(text, sizeof text,
	         "{\"simulation\": {\"horizon\": \"2h\", \"warmup\": \"%s\", "
	         "\"replications\": 2, \"seed\": 5},\n" WORKLOAD
	         "\"fleet\": {\"strategy\": \"%s\", \"zones\": [{\"name\": \"z\", "
	         "\"capacity_trace\": {\"path\": \"cap.json\", \"format\": \"skypilot\", "
	         "\"loop\": false}}],\n"
	         " \"pools\": [{\"name\": \"spot\", \"pricing\": \"spot\", \"count\": 1, "
	         "\"warm_start\": %s, \"provisioning\": {\"dist\": \"fixed\", \"mean\": \"0s\"}, "
	         "\"spot\": {\"interruption_rate_per_month\": 0, \"notice\": \"0s\", "
	         "\"in_flight\": \"requeue\"}%s}]}}\n",
	         warmup, strategy, warm ? "true" : "false", extra);
	write_file(dir, "cap.json", TRACE);
	return fs_test_load_text(text, "test.json", dir);
}

/* Every replication (nothing random touches the fleet): window, outage and
 * summary figures against the hand count. */
static void check_availability(const struct fs_scenario *sc, double window_s,
                               double short_s, double down_s)
{
	struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
	struct fs_summary *s = fs_summary_build(sc, res, 2, sc->sim.seed);
	int r;

	print_message("window %.3f s, short %.3f s: availability %.6f, outage %.1f "
	              "min/month\n", window_s, short_s, 1 - short_s / window_s,
	              short_s / window_s * MONTH_MIN);
	for (r = 0; r < 2; r++) {
		const struct fs_pool_result *pr = &res[r]->fleet.pools[0];

		assert_near(pr->avail.window_ns, window_s * 1e9, 2, 0);
		assert_near(pr->avail.short_ns, short_s * 1e9, 2, 0);
		assert_near(pr->avail.down_ns, down_s * 1e9, 2, 0);
		assert_int_equal(pr->avail.min_serving, 0);
		assert_int_equal(pr->reclaims, 1);
		assert_int_equal(pr->reclaim_requeued, res[r]->fleet.requeued);
		assert_int_equal(pr->reclaim_failed, 0);
		assert_near(fs_rep_availability(res[r], 0), 1 - short_s / window_s, 1e-12, 0);
	}
	assert_near(s->pools[0].avail.availability.value, 1 - short_s / window_s, 1e-9, 0);
	assert_near(s->pools[0].avail.outage_min_per_month.value,
	            short_s / window_s * MONTH_MIN, 1e-6, 0);
	assert_near(s->pools[0].avail.down_min_per_month.value,
	            down_s / window_s * MONTH_MIN, 1e-6, 0);
	/* One trace drop below the one instance within the horizon. */
	assert_near(s->pools[0].expected_reclaims, 1.0, 0, 0);
	fs_summary_free(s);
	fs_replicate_free(res, 2);
}

/* Warm at t = 0; capacity gone 40-70 min; the replacement launches at 70 min
 * and serves one cold start later: short 30 min + cold start of 2 h. */
static void test_spot_risk_availability_of_a_replayed_outage_is_the_hand_count(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_scenario *sc = trace_scenario(dir, "0s", true, "relaunch", "");
	double c = fs_test_cold_start_s(&sc->fleet.pools[0]);

	(void)state;
	check_availability(sc, 7200, 1800 + c, 1800 + c);
	/* The fleet is this one pool. */
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

/* With a 20-minute warm-up the window is the last 100 minutes. */
static void test_spot_risk_availability_counts_after_the_warmup(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_scenario *sc = trace_scenario(dir, "20m", true, "relaunch", "");
	double c = fs_test_cold_start_s(&sc->fleet.pools[0]);

	(void)state;
	check_availability(sc, 6000, 1800 + c, 1800 + c);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

/* Cold-started at t = 0: start-up is not an outage; the window opens when
 * the first instance serves (one cold start after t = 0). */
static void test_spot_risk_cold_start_at_zero_is_not_an_outage(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_scenario *sc = trace_scenario(dir, "0s", false, "relaunch", "");
	double c = fs_test_cold_start_s(&sc->fleet.pools[0]);

	(void)state;
	check_availability(sc, 7200 - c, 1800 + c, 1800 + c);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

/* Fallback: an on-demand stand-in (no provisioning delay) is requested at
 * the notice and serves one cold start later; it counts for the spot pool,
 * which is then short only for that cold start.  The fleet (Σ serving vs
 * Σ wanted) sees the same. */
static void test_spot_risk_fallback_standins_count_for_the_spot_pool(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_scenario *sc = trace_scenario(dir, "0s", true, "fallback",
		", \"fallback_pool\": \"od\"}, {\"name\": \"od\", \"count\": 0, \"max\": 1, "
		"\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"0s\"}");
	struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
	double c = fs_test_cold_start_s(&sc->fleet.pools[1]) * 1e9;
	int r;

	(void)state;
	for (r = 0; r < 2; r++) {
		const struct fs_fleet_result *f = &res[r]->fleet;

		assert_near(f->pools[0].avail.short_ns, c, 2, 0);
		assert_near(f->pools[0].avail.down_ns, c, 2, 0);
		assert_near(f->pools[0].avail.window_ns, 7200e9, 0, 0);
		assert_near(f->pools[1].avail.short_ns, 0, 0, 0);   /* wants none */
		assert_near(f->avail.short_ns, c, 2, 0);
		assert_int_equal(f->avail.min_serving, 0);
	}
	fs_replicate_free(res, 2);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

/* Availability is a share: its interval is cut at 1 (STATISTICS, bounds),
 * as summary.json, comparison.* and the report print it.  One spot instance
 * reclaimed at random in some replications and not in others: the t
 * interval of the per-replication shares reaches above 1; the summary's
 * stops at 1 with the same mean and lower end, for the pool and the fleet. */
static void test_spot_risk_availability_interval_stops_at_one(void **state)
{
	static const char text[] =
		"{\"simulation\": {\"horizon\": \"2h\", \"replications\": 8, \"seed\": 11},\n"
		WORKLOAD
		"\"fleet\": {\"strategy\": \"relaunch\", \"zones\": [{\"name\": \"z\"}],\n"
		" \"pools\": [{\"name\": \"spot\", \"pricing\": \"spot\", \"count\": 1, "
		"\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"10m\"}, "
		"\"spot\": {\"interruption_rate_per_month\": 0, \"zone_reclaims_per_day\": 4, "
		"\"notice\": \"0s\"}}]}}\n";
	struct fs_scenario *sc = fs_test_load_text(text, "test.json", NULL);
	struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
	struct fs_summary *s = fs_summary_build(sc, res, 8, sc->sim.seed);
	const struct fs_ci *fleet = &s->avail.availability, *pool = &s->pools[0].avail.availability;
	double share[8];
	struct fs_ci raw;
	int r;

	(void)state;
	for (r = 0; r < 8; r++)
		share[r] = fs_rep_availability(res[r], 0);
	raw = fs_stats_mean_ci(share, 8, FS_CI_LEVEL);
	print_message("availability %.6f [%.6f, %.6f] before the cut\n", raw.value, raw.ci_lo,
	              raw.ci_hi);
	assert_true(raw.value < 1 && raw.ci_hi > 1);            /* the premise */
	assert_near(pool->value, raw.value, 1e-12, 0);
	assert_near(pool->ci_lo, raw.ci_lo, 1e-12, 0);
	assert_true(pool->ci_hi == 1.0);
	assert_near(fleet->value, raw.value, 1e-12, 0);
	assert_true(fleet->ci_hi == 1.0);
	fs_summary_free(s);
	fs_replicate_free(res, 8);
	fs_scenario_free(sc);
}

/* `fleetsim run` of a single spot instance for `horizon` with the given
 * "spot" object; returns the parsed summary.json and the console text. */
static cJSON *run_cli(const char *horizon, const char *spot, int count, char **console)
{
	char *dir = fs_test_tmpdir(), *out = fs_test_path(dir, "out"), *sc_path, *json_path, *text;
	char doc[4096];
	const char *args[] = { "run", NULL, "-r", "2", "-j", "2", "-o", out, NULL };
	struct fs_test_run r;
	cJSON *json;

	snprintf(doc, sizeof doc,
	         "{\"name\": \"risk\", \"simulation\": {\"horizon\": \"%s\", \"warmup\": \"0s\", "
	         "\"replications\": 2, \"seed\": 3},\n"
	         "\"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 0.005},\n"
	         " \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
	         "  \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 200},\n"
	         "  \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 20}}]},\n"
	         "\"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\"},\n"
	         "\"fleet\": {\"strategy\": \"relaunch\", \"pools\": [{\"name\": \"spot\", "
	         "\"pricing\": \"spot\", \"count\": %d, \"spot\": %s}]}}\n", horizon, count, spot);
	write_file(dir, "risk.json", doc);
	sc_path = fs_test_path(dir, "risk.json");
	args[1] = sc_path;
	r = fs_test_run_fleetsim(args);
	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	json_path = fs_test_path(out, "summary.json");
	text = fs_test_read_file(json_path, NULL);
	assert_non_null(text);
	json = cJSON_Parse(text);
	assert_non_null(json);
	*console = r.out;
	r.out = NULL;
	fs_test_run_free(&r);
	free(text);
	free(json_path);
	free(sc_path);
	free(out);
	fs_test_tmpdir_free(dir);
	return json;
}

/* The number at a dotted path of root ("a.b.c"; names hold no dots). */
static double json_num(const cJSON *root, const char *path)
{
	char buf[256], *key, *save = NULL;
	const cJSON *n = root;

	snprintf(buf, sizeof buf, "%s", path);
	for (key = strtok_r(buf, ".", &save); key != NULL; key = strtok_r(NULL, ".", &save))
		n = cJSON_GetObjectItemCaseSensitive(n, key);
	if (!cJSON_IsNumber(n))
		print_error("%s is not a number\n", path);
	assert_true(cJSON_IsNumber(n));
	return n->valuedouble;
}

/* One day of one spot instance at the default Spot Advisor band (5-10%:
 * -ln(0.925)/730 per hour): 24 h x 1.068e-4 = 0.00256 expected reclaims. */
static void test_spot_risk_one_day_of_one_spot_instance_is_too_short(void **state)
{
	char *console;
	cJSON *js = run_cli("24h", "{}", 1, &console);
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(js, "warnings");
	double y = -log(0.925) / 730.0 * 24.0;

	(void)state;
	assert_near(json_num(js, "availability.pools.spot.expected_reclaims_per_replication"),
	            y, 1e-9, 1e-6);
	assert_int_equal(cJSON_GetArraySize(w), 1);
	assert_non_null(strstr(cJSON_GetArrayItem(w, 0)->valuestring,
	                       "pool spot: too short to see spot risk: horizon 24 h"));
	assert_non_null(strstr(console, "warning: pool spot: too short to see spot risk"));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(js, "availability"), "pools"), "spot"),
		"too_short_for_spot_risk")));
	/* Per-month projections come after the horizon's cost block, not in it. */
	{
		const char *cost = strstr(console, "cost over the simulated 1d");
		const char *month = strstr(console, "projected to a 730-hour month");
		const char *usd_month = strstr(console, "cost per month");

		assert_non_null(cost);
		assert_non_null(month);
		assert_non_null(usd_month);
		assert_true(cost < month && month < usd_month);
	}
	free(console);
	cJSON_Delete(js);
}

/* 30 days of two instances at 90% a month: -ln(0.1)/730 x 2 x 720 h = 4.54
 * expected reclaims, no warning. */
static void test_spot_risk_thirty_days_at_a_high_rate_is_not_too_short(void **state)
{
	char *console;
	cJSON *js = run_cli("30d", "{\"interruption_rate_per_month\": 0.9}", 2, &console);
	double y = -log(0.1) / 730.0 * 2 * 720.0;

	(void)state;
	assert_near(json_num(js, "availability.pools.spot.expected_reclaims_per_replication"),
	            y, 1e-9, 1e-6);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(js, "warnings")), 0);
	assert_null(strstr(console, "too short"));
	print_message("30 days: %g reclaims, availability %g, outage %g min/month\n",
	              json_num(js, "cost.pools.spot.reclaims.value"),
	              json_num(js, "availability.fleet.availability.value"),
	              json_num(js, "availability.fleet.outage_minutes_per_month.value"));
	assert_true(json_num(js, "cost.pools.spot.reclaims.value") > 0);
	assert_true(json_num(js, "availability.fleet.availability.value") < 1);
	free(console);
	cJSON_Delete(js);
}

/* `fleetsim sweep` over on-demand counts 1..3 with light traffic (one
 * instance is plenty); returns best.json's label. */
static char *sweep_best(const char *constraint)
{
	char *dir = fs_test_tmpdir(), *out = fs_test_path(dir, "out"), *sc_path, *best_path, *text;
	char doc[4096], *label;
	const char *args[] = { "sweep", NULL, "-o", out, "-q", "-j", "2", NULL };
	cJSON *best;

	snprintf(doc, sizeof doc,
	         "{\"name\": \"redundancy\", \"simulation\": {\"horizon\": \"10m\", "
	         "\"warmup\": \"1m\", \"replications\": 5, \"seed\": 3},\n" WORKLOAD
	         "\"fleet\": {\"pools\": [{\"name\": \"p\", \"count\": 1}]},\n"
	         "\"sweep\": {\"mode\": \"grid\", \"axes\": [{\"path\": \"fleet.pools[0].count\", "
	         "\"range\": {\"from\": 1, \"to\": 3}}]},\n"
	         "\"objective\": {\"minimize\": \"monthly_usd\", \"confidence\": 0.5, "
	         "\"constraints\": ["
	         "{\"metric\": \"ttft_ms\", \"quantile\": \"p99\", \"max\": \"5s\"}%s]}}\n",
	         constraint);
	write_file(dir, "sweep.json", doc);
	sc_path = fs_test_path(dir, "sweep.json");
	args[1] = sc_path;
	fs_test_fleetsim_ok(args);
	best_path = fs_test_path(out, "best.json");
	text = fs_test_read_file(best_path, NULL);
	assert_non_null(text);
	best = cJSON_Parse(text);
	assert_non_null(best);
	/* 5 of 5 at confidence 0.5 is decided (Wilson lower end 0.57) */
	assert_true(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(best, "best")));
	label = fs_xstrdup(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(best, "best"), "label")->valuestring);
	cJSON_Delete(best);
	free(text);
	free(best_path);
	free(sc_path);
	free(out);
	fs_test_tmpdir_free(dir);
	return label;
}

static void test_spot_risk_redundancy_constraint_rejects_a_single_instance(void **state)
{
	char *plain = sweep_best(""), *redundant;

	(void)state;
	redundant = sweep_best(", {\"metric\": \"min_serving\", \"min\": 2}");
	print_message("best without: %s; with min_serving 2: %s\n", plain, redundant);
	assert_string_equal(plain, "fleet.pools[0].count=1");
	assert_string_equal(redundant, "fleet.pools[0].count=2");
	free(plain);
	free(redundant);
}

/* The constraint reads the replication's availability record: a pool that
 * dipped to 0 fails min_serving 1, its availability fails 0.99 (about 25%
 * short in the trace run) but meets 0.7. */
static void test_spot_risk_constraints_test_one_replication(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_scenario *sc = trace_scenario(dir, "0s", true, "relaunch", "");
	struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
	struct fs_constraint c[2] = {
		{ .kind = FS_CONSTRAINT_MIN_SERVING, .min = 1, .pool_idx = 0 },
		{ .kind = FS_CONSTRAINT_AVAILABILITY, .min = 0.99, .pool_idx = -1 },
	};
	struct fs_objective_cfg obj = { .present = true, .constraints = c, .n_constraints = 1 };

	(void)state;
	assert_false(fs_objective_met(&obj, res[0]));
	c[0].min = 0;
	assert_true(fs_objective_met(&obj, res[0]));
	obj.constraints = &c[1];
	assert_false(fs_objective_met(&obj, res[0]));
	c[1].min = 0.7;
	assert_true(fs_objective_met(&obj, res[0]));
	c[1].pool_idx = 5;                              /* no such pool: no data */
	assert_false(fs_objective_met(&obj, res[0]));
	fs_replicate_free(res, 2);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spot_risk_availability_of_a_replayed_outage_is_the_hand_count),
		cmocka_unit_test(test_spot_risk_availability_counts_after_the_warmup),
		cmocka_unit_test(test_spot_risk_cold_start_at_zero_is_not_an_outage),
		cmocka_unit_test(test_spot_risk_fallback_standins_count_for_the_spot_pool),
		cmocka_unit_test(test_spot_risk_availability_interval_stops_at_one),
		cmocka_unit_test(test_spot_risk_one_day_of_one_spot_instance_is_too_short),
		cmocka_unit_test(test_spot_risk_thirty_days_at_a_high_rate_is_not_too_short),
		cmocka_unit_test(test_spot_risk_redundancy_constraint_rejects_a_single_instance),
		cmocka_unit_test(test_spot_risk_constraints_test_one_replication),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
