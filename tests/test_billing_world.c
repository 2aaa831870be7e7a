/*
 * test_billing_world.c — money that comes out of whole simulated runs,
 * pinned against hand computations: on-demand hours, per-hour rounding with
 * a minimum, a cold start billed from the moment the machine runs, a spot
 * instance reclaimed at a replayed instant billed to the second, daily and
 * weekly commitments, and a monthly pool that the autoscaler grows above its
 * commitment (commitment + overflow), the break-even, and a currency other
 * than USD carried into every output.  Scenarios are JSON text loaded by the
 * real loader; figures are read from the summary of whole runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "util_test.h"

#define REPS 2

/* Llama-3.1-8B chat traffic at rate_per_s for `horizon` with the given
 * "fleet" object (JSON text) and root keys (`extra`, may be ""). */
static struct fs_scenario *scenario(double rate_per_s, const char *horizon,
                                    const char *extra, const char *fleet_json)
{
	const struct fs_test_chat c = { rate_per_s, horizon, "0s", REPS, 11, extra, "",
	                                fleet_json, "test.json" };

	return fs_test_chat_fleet(&c);
}

/* 2 x 1.40/h on demand, warm, for 1 h: 2.80 exactly, 2 instance-hours, and
 * a projected month of 2.80 x 730. */
static void test_billing_world_two_on_demand_for_an_hour(void **state)
{
	struct fs_scenario *sc = scenario(2.0, "1h", "",
		"{\"pools\": [{\"name\": \"od\", \"count\": 2, \"price_per_h\": 1.40}]}");
	struct fs_summary *s = fs_test_summarise(sc, 2);

	(void)state;
	assert_exact_ci(&s->cost.total_usd, 2.80);
	assert_exact_ci(&s->cost.usd_per_hour, 2.80);
	assert_exact_ci(&s->cost.monthly_usd, 2.80 * 730);
	assert_exact_ci(&s->pools[0].instance_hours, 2.0);
	assert_exact_ci(&s->cost.by_pricing_usd[FS_PRICING_ON_DEMAND], 2.80);
	fs_summary_free(s);
	fs_scenario_free(sc);
}

/* One instance cold-starts: provisioning takes a fixed 60 s (not billed),
 * then it is billed until the horizon, 89 minutes later.  Per second:
 * 5340 s x 1.40 / 3600.  Per started hour: 2 h.  Per hour with a 3 h
 * minimum: 3 h.  The pool's instance-hours are the billed hours, so that
 * they times the price are the bill; it was alive 5340 s in each case. */
static void test_billing_world_rounding_minimum_and_cold_start(void **state)
{
	static const struct {
		const char *billing;
		double billed_h;
	} cases[] = {
		{ "{\"granularity\": \"second\", \"minimum\": \"60s\"}", 5340.0 / 3600 },
		{ "{\"granularity\": \"hour\", \"minimum\": \"0s\"}", 2 },
		{ "{\"granularity\": \"hour\", \"minimum\": \"3h\"}", 3 },
	};
	char fleet[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fs_scenario *sc;
		struct fs_summary *s;

		snprintf(fleet, sizeof fleet,
		         "{\"pools\": [{\"name\": \"od\", \"count\": 1, \"warm_start\": false, "
		         "\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"60s\"}, "
		         "\"price_per_h\": 1.40, \"billing\": %s}]}", cases[i].billing);
		sc = scenario(0.5, "90m", "", fleet);
		s = fs_test_summarise(sc, 2);
		print_message("%s: %.6f USD, %.6f instance-hours (expected %.6f h)\n",
		              cases[i].billing, s->cost.total_usd.value,
		              s->pools[0].instance_hours.value, cases[i].billed_h);
		assert_exact_ci(&s->cost.total_usd, cases[i].billed_h * 1.40);
		assert_exact_ci(&s->pools[0].instance_hours, cases[i].billed_h);
		assert_exact_ci(&s->pools[0].alive_hours, 5340.0 / 3600);
		/* MODEL: B8 — its use projected to a month: 5340 / 5400 x 730 h */
		assert_int_equal(s->pools[0].break_even.n_slots, 1);
		assert_near(s->pools[0].break_even.slot_hours_per_month[0], 5340.0 / 5400 * 730,
		            1e-9, 0);
		assert_int_equal(s->pools[0].break_even.worth_committing, 1);
		fs_summary_free(s);
		fs_scenario_free(sc);
	}
}

/* MODEL: B2 — a horizon under 10 billing units warns that the rounding can
 * overstate the per-hour figures: 90 min is 90 units of 60 s (no warning),
 * 1.5 of an hour and 0.5 of a 3-hour minimum (a warning naming the unit
 * and the horizon that would do: 10 h, 30 h); a committed pool, paid per
 * period, never warns; the summary's warnings carry it. */
static void test_billing_world_short_horizon_warns_of_rounding(void **state)
{
	static const struct {
		const char *pool;
		const char *want;          /* NULL: no warning */
	} cases[] = {
		{ "\"billing\": {\"granularity\": \"second\", \"minimum\": \"60s\"}", NULL },
		{ "\"billing\": {\"granularity\": \"hour\", \"minimum\": \"0s\"}",
		  "pool od: horizon 90m is under 10 billing units of 1h: each instance's bill "
		  "rounds up to whole units, up to 1h more than its alive time, so the cost "
		  "per hour and the monthly projection may overstate a longer run's; lengthen "
		  "the horizon to at least 10h" },
		{ "\"billing\": {\"granularity\": \"hour\", \"minimum\": \"3h\"}",
		  "units of 3h: " },
		{ "\"pricing\": \"monthly\", \"billing\": {\"granularity\": \"hour\"}", NULL },
	};
	char fleet[512], text[1024];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fs_scenario *sc;

		snprintf(fleet, sizeof fleet, "{\"pools\": [{\"name\": \"od\", \"count\": 1, "
		         "\"price_%s\": 1.40, %s}]}", strstr(cases[i].pool, "monthly") ?
		         "per_month" : "per_h", cases[i].pool);
		sc = scenario(0.5, "90m", "", fleet);
		if (cases[i].want == NULL) {
			assert_false(fs_summary_billing_warning(sc, 0, text, sizeof text));
			assert_string_equal(text, "");
		} else {
			assert_true(fs_summary_billing_warning(sc, 0, text, sizeof text));
			assert_has(text, cases[i].want);
		}
		if (i == 1) {              /* summary.json's warnings carry it */
			struct fs_summary *s = fs_test_summarise(sc, 2);
			char *dir = fs_test_tmpdir(), *path = fs_test_path(dir, "summary.json");
			struct fs_error err;
			char *json;

			assert_int_equal(fs_summary_write_json(s, sc, path, &err), 0);
			json = fs_test_read_file(path, NULL);
			assert_non_null(json);
			assert_has(json, "\"warnings\":", "is under 10 billing units of 1h");
			free(json);
			free(path);
			fs_test_tmpdir_free(dir);
			fs_summary_free(s);
		}
		fs_scenario_free(sc);
	}
}

/* Every output lists the same warnings in the same order: a spot pool too
 * short to see spot risk and two pools billed by the hour over 90 min give
 * three warnings, which the cursor yields kind by kind, summary.json's
 * "warnings" holds in that order and the console table prints; the cursor
 * then stays at its end with an empty text. */
static void test_billing_world_warnings_same_in_every_output(void **state)
{
	static const char fleet[] =
		"{\"strategy\": \"relaunch\", \"pools\": ["
		"{\"name\": \"od\", \"count\": 1, \"price_per_h\": 1.40, "
		"\"billing\": {\"granularity\": \"hour\"}},"
		"{\"name\": \"sp\", \"pricing\": \"spot\", \"count\": 1, "
		"\"price_per_h\": 0.70, \"billing\": {\"granularity\": \"hour\"}}]}";
	struct fs_scenario *sc = scenario(0.5, "90m", "", fleet);
	struct fs_summary *s = fs_test_summarise(sc, 2);
	struct fs_summary_warning_cursor cur = { 0, 0 };
	enum fs_summary_warning_kind kind, last = FS_WARN_SPOT_HORIZON;
	char text[1024], *dir = fs_test_tmpdir(), *path = fs_test_path(dir, "summary.json");
	char *json, *table = NULL, *at;
	size_t n = 0, table_len = 0;
	struct fs_error err;
	cJSON *root, *list;
	FILE *out = open_memstream(&table, &table_len);

	(void)state;
	assert_non_null(out);
	fs_summary_print_table(s, sc, out);
	fclose(out);
	assert_int_equal(fs_summary_write_json(s, sc, path, &err), 0);
	json = fs_test_read_file(path, NULL);
	root = cJSON_Parse(json);
	list = cJSON_GetObjectItemCaseSensitive(root, "warnings");
	assert_true(cJSON_IsArray(list));
	at = table;
	while (fs_summary_warning_next(s, sc, &cur, &kind, text, sizeof text)) {
		char line[1100];

		assert_true(kind >= last);
		last = kind;
		assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(list, (int)n)), text);
		snprintf(line, sizeof line, "warning: %s\n", text);
		at = strstr(at, line);               /* in the table, in order */
		assert_non_null(at);
		n++;
	}
	assert_string_equal(text, "");
	assert_int_equal(n, 3);
	assert_int_equal(cJSON_GetArraySize(list), 3);
	assert_has(cJSON_GetStringValue(cJSON_GetArrayItem(list, 0)), "pool sp: too short");
	assert_has(cJSON_GetStringValue(cJSON_GetArrayItem(list, 1)), "pool od: horizon 90m");
	assert_has(cJSON_GetStringValue(cJSON_GetArrayItem(list, 2)), "pool sp: horizon 90m");
	assert_false(fs_summary_warning_next(s, sc, &cur, &kind, text, sizeof text));
	cJSON_Delete(root);
	free(json);
	free(table);
	free(path);
	fs_test_tmpdir_free(dir);
	fs_summary_free(s);
	fs_scenario_free(sc);
}

/* MODEL: F13 — the idle part is a share of the billed span, not of the
 * alive one: the same cold-started instance (alive 5340 s) billed 5340 s
 * per second, 2 h per started hour and 3 h with a 3-hour minimum, so the
 * rounded-up time it paid for and never used is idle too.  Per
 * replication: idle = bill x (1 - iteration time / billed span). */
static void test_billing_world_idle_is_a_share_of_the_billed_span(void **state)
{
	static const struct {
		const char *billing;
		double usd, billed_s;
	} cases[] = {
		{ "{\"granularity\": \"second\", \"minimum\": \"60s\"}", 5340 * 1.40 / 3600, 5340 },
		{ "{\"granularity\": \"hour\", \"minimum\": \"0s\"}", 2 * 1.40, 7200 },
		{ "{\"granularity\": \"hour\", \"minimum\": \"3h\"}", 3 * 1.40, 10800 },
	};
	char fleet[512];
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fs_scenario *sc;
		struct fs_rep_result **res;
		struct fs_run_opts opts = { REPS, 0, 1, 11, false, NULL };

		snprintf(fleet, sizeof fleet,
		         "{\"pools\": [{\"name\": \"od\", \"count\": 1, \"warm_start\": false, "
		         "\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"60s\"}, "
		         "\"price_per_h\": 1.40, \"billing\": %s}]}", cases[i].billing);
		sc = scenario(0.5, "90m", "", fleet);
		res = fs_replicate_run(sc, &opts);
		for (r = 0; r < REPS; r++) {
			const struct fs_pool_result *pr = &res[r]->fleet.pools[0];
			double busy_s = pr->busy_ns / 1e9;
			double idle = cases[i].usd * (1 - busy_s / cases[i].billed_s);

			print_message("%s: busy %.3f s, idle %.6f (expected %.6f)\n",
			              cases[i].billing, busy_s, pr->idle_usd, idle);
			assert_true(busy_s > 60 && busy_s < 5340);
			assert_near(pr->usd, cases[i].usd, 1e-9, 0);
			assert_near(pr->idle_usd, idle, 1e-9, 0);
			assert_near(pr->lost_usd, 0, 0, 0);
		}
		fs_replicate_free(res, REPS);
		fs_scenario_free(sc);
	}
}

/* The only zone's spot capacity is removed at 10 min (a replayed trace);
 * with a 5-minute notice the instance is gone at 15 min and not replaced.
 * Billed to the second: 900 s x 0.90 / 3600 = 0.225. */
static void test_billing_world_spot_reclaim_billed_to_the_second(void **state)
{
	struct fs_scenario *sc = scenario(0.5, "30m", "",
		"{\"strategy\": \"none\", \"zones\": [{\"name\": \"z\", \"capacity_trace\": "
		"{\"path\": \"one_node_until_10m.csv\", \"format\": \"spotserve\", "
		"\"loop\": false}}], \"pools\": [{\"name\": \"spot\", \"pricing\": \"spot\", "
		"\"count\": 1, \"price_per_h\": 0.90, \"spot\": "
		"{\"interruption_rate_per_month\": 0, \"notice\": \"5m\", "
		"\"in_flight\": \"drain\"}}]}");
	struct fs_summary *s = fs_test_summarise(sc, 2);

	(void)state;
	assert_exact_ci(&s->pools[0].reclaims, 1);
	assert_exact_ci(&s->cost.total_usd, 900 * 0.90 / 3600);
	assert_exact_ci(&s->cost.by_pricing_usd[FS_PRICING_SPOT], 0.225);
	assert_exact_ci(&s->pools[0].instance_hours, 0.25);
	/* used half the time: 365 h per month, below the 0.60 x 730 h that a
	 * monthly commitment at the catalogue's fee needs against 0.90/h */
	assert_near(s->pools[0].break_even.slot_hours_per_month[0], 365, 1e-9, 0);
	assert_near(s->pools[0].break_even.hours_per_month, 613.2 / 0.90, 1e-9, 0);
	assert_int_equal(s->pools[0].break_even.worth_committing, 0);
	fs_summary_free(s);
	fs_scenario_free(sc);
}

/*
 * MODEL: F12, B1 — a fallback stand-in is billed in its own on-demand pool,
 * at that pool's price and rounding.  One warm spot instance at 0.90/h per
 * second in a zone whose capacity is 1, 0 from 10 min, 1 from 20 min;
 * notice 5 min; provisioning a fixed 60 s; no requests.
 *   spot: the first instance 0-15 min (900 s), the replacement launched at
 *     20 min, billed from 21 min to the end (2340 s): 0.9 h, 0.81 USD;
 *   od (3.60/h, per started hour): the stand-in launched at the notice,
 *     billed from 11 min until the replacement serves a cold start C after
 *     21 min: alive 600 + C s, billed 1 h, 3.60 USD, of which the cold start
 *     C x 3.60 / 3600 is lost to the reclaim (F13).
 * Each pool's instance-hours x its price is its bill, and the pools add up
 * to the total: 0.81 + 3.60 = 4.41 USD.
 */
static void test_billing_world_stand_in_billed_in_its_pool_by_the_hour(void **state)
{
	struct fs_scenario *sc = scenario(1e-6, "1h", "", FS_TEST_FALLBACK_FLEET);
	struct fs_summary *s = fs_test_summarise(sc, 2);
	double cold_s = fs_test_cold_start_s(&sc->fleet.pools[1]);

	(void)state;
	print_message("cold start %.3f s; od: %.4f USD, %.4f instance-hours, %.4f alive\n",
	              cold_s, s->pools[1].usd.value, s->pools[1].instance_hours.value,
	              s->pools[1].alive_hours.value);
	assert_true(cold_s > 10 && cold_s < 600);
	assert_exact_ci(&s->pools[0].usd, 0.81);
	assert_exact_ci(&s->pools[0].instance_hours, 0.9);
	assert_exact_ci(&s->pools[0].alive_hours, 0.9);
	assert_exact_ci(&s->pools[0].reclaims, 1);
	assert_exact_ci(&s->pools[1].usd, 3.60);
	assert_exact_ci(&s->pools[1].instance_hours, 1.0);
	assert_exact_ci(&s->pools[1].alive_hours, (600 + cold_s) / 3600);
	assert_exact_ci(&s->pools[1].launches, 1);
	assert_exact_ci(&s->pools[1].lost_usd, cold_s * 3.60 / 3600);
	assert_exact_ci(&s->pools[0].lost_usd, cold_s * 0.90 / 3600);
	assert_exact_ci(&s->cost.total_usd, 4.41);
	assert_exact_ci(&s->cost.by_pricing_usd[FS_PRICING_ON_DEMAND], 3.60);
	assert_exact_ci(&s->cost.by_pricing_usd[FS_PRICING_SPOT], 0.81);
	fs_summary_free(s);
	fs_scenario_free(sc);
}

/* Committed plans bill count x fee x horizon / period, used or not: 2
 * instances at 24 per day for 12 h = 24; at 168 per week for 12 h = 24; at
 * 8760 per year = 24 as well.  Default fees come from the catalogue. */
static void test_billing_world_daily_weekly_and_yearly_commitments(void **state)
{
	static const char *const plans[] = {
		"\"pricing\": \"daily\", \"price_per_day\": 24",
		"\"pricing\": \"weekly\", \"price_per_week\": 168",
		"\"pricing\": \"yearly\", \"price_per_year\": 8760",
		"\"pricing\": \"monthly\", \"price_per_month\": 730",
	};
	static const enum fs_pricing kinds[] = {
		FS_PRICING_DAILY, FS_PRICING_WEEKLY, FS_PRICING_YEARLY, FS_PRICING_MONTHLY
	};
	char fleet[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof plans / sizeof plans[0]; i++) {
		struct fs_scenario *sc;
		struct fs_summary *s;

		snprintf(fleet, sizeof fleet,
		         "{\"pools\": [{\"name\": \"c\", \"count\": 2, %s}]}", plans[i]);
		sc = scenario(0.2, "12h", "", fleet);
		s = fs_test_summarise(sc, 2);
		assert_exact_ci(&s->cost.total_usd, 24.0);
		assert_exact_ci(&s->pools[0].commit_usd, 24.0);
		assert_exact_ci(&s->pools[0].overflow_usd, 0.0);
		assert_exact_ci(&s->cost.by_pricing_usd[kinds[i]], 24.0);
		/* an idle commitment is still paid: nearly all of it idle */
		assert_true(s->cost.idle_usd.value > 0.5 * 24.0);
		fs_summary_free(s);
		fs_scenario_free(sc);
	}
	/* catalogue default: L40S 1.40/h x 24 h x 0.85 per day (MODEL: B7) */
	{
		struct fs_scenario *sc = scenario(0.2, "1h", "",
			"{\"pools\": [{\"name\": \"c\", \"count\": 1, \"pricing\": \"daily\"}]}");

		assert_near(sc->fleet.pools[0].commit_fee, 1.40 * 24 * 0.85, 1e-9, 0);
		assert_near(sc->fleet.pools[0].overflow_usd_per_h, 1.40, 1e-12, 0);
		fs_scenario_free(sc);
	}
}

/* A monthly pool of 2 that the autoscaler grows to 6 under load: the bill is
 * the commitment (2 x 730 x 2 h / 730 h = 4) plus every overflow instance at
 * 1.40/h, billed per second with a 60 s minimum.  The same fleet on demand
 * at 1.40/h pays for every instance-hour. */
static void test_billing_world_monthly_pool_scaled_out_pays_overflow(void **state)
{
	const char *autoscale =
		"\"autoscale\": {\"pool\": \"m\", \"metric\": \"queue_len\", \"target\": 2, "
		"\"interval\": \"30s\", \"scale_up\": {\"window\": \"1m\"}}";
	char fleet[1024];
	struct fs_scenario *sc, *od;
	struct fs_summary *s, *so;
	double overflow_h, launches_over;

	(void)state;
	snprintf(fleet, sizeof fleet,
	         "{\"pools\": [{\"name\": \"m\", \"pricing\": \"monthly\", \"count\": 2, "
	         "\"min\": 2, \"max\": 6, \"price_per_month\": 730, "
	         "\"overflow_price_per_h\": 1.40}], %s}", autoscale);
	sc = scenario(25.0, "2h", "", fleet);
	s = fs_test_summarise(sc, 2);
	snprintf(fleet, sizeof fleet,
	         "{\"pools\": [{\"name\": \"m\", \"count\": 2, \"min\": 2, \"max\": 6, "
	         "\"price_per_h\": 1.40}], %s}", autoscale);
	od = scenario(25.0, "2h", "", fleet);
	so = fs_test_summarise(od, 2);
	overflow_h = s->pools[0].overflow_hours.value;
	launches_over = s->pools[0].launches.value - 2;
	print_message("monthly: commitment %.4f, overflow %.4f (%.3f instance-hours, %.1f "
	              "launches above 2), total %.4f; on demand %.4f\n",
	              s->pools[0].commit_usd.value, s->pools[0].overflow_usd.value,
	              overflow_h, launches_over, s->cost.total_usd.value,
	              so->cost.total_usd.value);
	assert_exact_ci(&s->pools[0].commit_usd, 4.0);
	assert_true(launches_over >= 1);
	assert_true(overflow_h > 0.5);
	/* overflow at 1.40/h, rounded up to whole seconds with a 60 s minimum per
	 * overflow instance (launches counted over the replications' mean) */
	assert_true(s->pools[0].overflow_usd.value >= 1.40 * overflow_h - 1e-9);
	assert_true(s->pools[0].overflow_usd.value <=
	            1.40 * overflow_h + launches_over * 60 * 1.40 / 3600 + 1e-9);
	assert_near(s->cost.total_usd.value,
	            s->pools[0].commit_usd.value + s->pools[0].overflow_usd.value, 1e-9, 0);
	/* on demand, the first two instances cost 2 x 2 h x 1.40 = 5.60 on top */
	assert_true(so->cost.total_usd.value > 5.60);
	fs_summary_free(s);
	fs_summary_free(so);
	fs_scenario_free(sc);
	fs_scenario_free(od);
}

/* Break-even (MODEL: B8): a monthly fee of 613.20 against 1.40/h pays off
 * above 438 h per month; an on-demand L40S pool compares its price with the
 * catalogue's monthly fee. */
static void test_billing_world_break_even(void **state)
{
	struct fs_scenario *sc = scenario(0.2, "1h", "",
		"{\"pools\": [{\"name\": \"od\", \"count\": 1},"
		" {\"name\": \"m\", \"count\": 1, \"pricing\": \"monthly\", "
		"\"price_per_month\": 613.2, \"overflow_price_per_h\": 1.40},"
		" {\"name\": \"w\", \"count\": 1, \"pricing\": \"weekly\", "
		"\"price_per_week\": 168, \"overflow_price_per_h\": 2}]}");
	struct fs_break_even od = fs_summary_break_even(sc, &sc->fleet.pools[0]);
	struct fs_break_even m = fs_summary_break_even(sc, &sc->fleet.pools[1]);
	struct fs_break_even w = fs_summary_break_even(sc, &sc->fleet.pools[2]);

	(void)state;
	assert_true(od.available && m.available && w.available);
	assert_near(m.hours_per_month, 438.0, 1e-9, 0);
	assert_near(od.hours_per_month, 730 * 0.60, 1e-9, 0);   /* catalogue: 0.60 x 730 h */
	assert_near(w.hours_per_month, 168.0 * (730.0 / 168) / 2, 1e-9, 0);
	fs_scenario_free(sc);
}

/* A currency other than the catalogue's needs explicit prices; its label is
 * carried by the scenario. */
static void test_billing_world_currency_needs_explicit_prices(void **state)
{
	static const char *const bad[] = {
		/* the catalogue's USD default would be labelled CNY */
		"{\"pools\": [{\"name\": \"od\", \"count\": 1}]}",
		/* a key that names USD */
		"{\"pools\": [{\"name\": \"od\", \"count\": 1, \"price_usd_per_h\": 9}]}",
		/* an autoscaled commitment without its overflow price */
		"{\"pools\": [{\"name\": \"m\", \"count\": 1, \"max\": 3, \"pricing\": "
		"\"monthly\", \"price_per_month\": 4000}]}",
	};
	char text[4096];
	struct fs_error err;
	struct fs_scenario *sc;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text,
		         "{\"currency\": \"CNY\", \"simulation\": {\"horizon\": \"1h\"},\n"
		         " \"workload\": {\"arrivals\": {\"process\": \"poisson\", "
		         "\"rate_per_s\": 1}, \"classes\": [{\"name\": \"c\", \"share\": 1, "
		         "\"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 100}, "
		         "\"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}]},\n"
		         " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
		         "\"gpu\": \"l40s\"},\n \"fleet\": %s}\n", bad[i]);
		sc = fs_scenario_load_text(text, strlen(text), "cny.json", ".", &err);
		assert_null(sc);
		print_message("%s\n", err.msg);
		assert_non_null(strstr(err.msg, "CNY"));
		assert_non_null(strstr(err.where, "cny.json:"));
		assert_non_null(strstr(err.path, "fleet.pools[0]"));
	}
	sc = scenario(0.2, "1h", "\"currency\": \"CNY\", ",
		"{\"pools\": [{\"name\": \"od\", \"count\": 1, \"price_per_h\": 9.5}]}");
	assert_string_equal(sc->fleet.currency, "CNY");
	assert_near(sc->fleet.pools[0].price_usd_per_h, 9.5, 0, 0);
	fs_scenario_free(sc);
}

/* No "usd" (any case) in text: nothing says USD when the currency is CNY. */
static void assert_no_usd(const char *what, const char *text)
{
	const char *c;

	assert_non_null(text);
	for (c = text; *c != '\0'; c++)
		if (strncasecmp(c, "usd", 3) == 0) {
			print_error("%s says USD: ...%.60s\n", what, c > text + 30 ? c - 30 : text);
			fail();
		}
}

static void assert_file_in_cny(const char *dir, const char *name)
{
	char path[4096], *text;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	text = fs_test_read_file(path, NULL);
	if (text == NULL)
		fail_msg("missing %s", path);
	assert_non_null(strstr(text, "CNY"));
	assert_no_usd(path, text);
	free(text);
}

/* MODEL: B9 — a scenario in CNY (a monthly pool that overflows and a spot
 * pool, two variants): the console, every summary, the comparison and the
 * resolved scenarios carry "CNY" and never say USD; so do the report and
 * its plot scripts when gnuplot is installed. */
static void test_billing_world_currency_in_every_output(void **state)
{
	char *dir = fs_test_tmpdir(), out[4096];
	const char *run[] = { "run", "tests/data/currency_cny.json", "-o", out, "-j", "2", NULL };
	const char *report[] = { "report", out, NULL };
	static const char *const files[] = {
		"comparison.csv", "comparison.json", "base/summary.json", "base/scenario.json",
		"two/summary.json", "two/scenario.json",
	};
	struct fs_test_run r;
	size_t i;

	(void)state;
	snprintf(out, sizeof out, "%s/out", dir);
	r = fs_test_run_fleetsim(run);
	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "total CNY"));
	assert_no_usd("console", r.out);
	fs_test_run_free(&r);
	for (i = 0; i < sizeof files / sizeof files[0]; i++)
		assert_file_in_cny(out, files[i]);
	if (!fs_test_have_cmd("gnuplot")) {
		print_message("gnuplot is not installed: report not checked\n");
	} else {
		fs_test_fleetsim_ok(report);
		assert_file_in_cny(out, "report.md");
		assert_file_in_cny(out, "plots/cost_breakdown.gp");
		assert_file_in_cny(out, "plots/cost_per_rep.gp");
		assert_file_in_cny(out, "plots/spot_strategies.gp");
	}
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_billing_world_two_on_demand_for_an_hour),
		cmocka_unit_test(test_billing_world_rounding_minimum_and_cold_start),
		cmocka_unit_test(test_billing_world_short_horizon_warns_of_rounding),
		cmocka_unit_test(test_billing_world_warnings_same_in_every_output),
		cmocka_unit_test(test_billing_world_idle_is_a_share_of_the_billed_span),
		cmocka_unit_test(test_billing_world_spot_reclaim_billed_to_the_second),
		cmocka_unit_test(test_billing_world_stand_in_billed_in_its_pool_by_the_hour),
		cmocka_unit_test(test_billing_world_daily_weekly_and_yearly_commitments),
		cmocka_unit_test(test_billing_world_monthly_pool_scaled_out_pays_overflow),
		cmocka_unit_test(test_billing_world_break_even),
		cmocka_unit_test(test_billing_world_currency_needs_explicit_prices),
		cmocka_unit_test(test_billing_world_currency_in_every_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
