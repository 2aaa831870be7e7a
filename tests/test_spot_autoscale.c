/*
 * test_spot_autoscale.c — spot strategies under the autoscaler, whole runs
 * pinned against a hand count: an autoscaled spot pool keeps its decision
 * plus its over-provisioned spares (without the spares reading as a surplus
 * to scale in or as a count to keep and add spares to again); a launch that
 * found no spot room is retried every relaunch_retry and at rises of the
 * capacity trace, not at every look; under fallback a scale-out that spot
 * cannot place is stood in for at the decision.  Scenarios are JSON text
 * loaded by the real loader.
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

#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "util_test.h"

#define REPS 2
#define SPOT_USD_PER_H 0.90
#define OD_USD_PER_H 3.60

/* Llama-3.1-8B chat traffic on L40S for one hour with the given "arrivals"
 * and "fleet" objects (JSON text); relative paths in tests/data. */
static struct fs_scenario *scenario(const char *arrivals_json, const char *fleet_json)
{
	char text[8192];

	snprintf(text, sizeof text,
	         "{\"simulation\": {\"horizon\": \"1h\", \"warmup\": \"0s\", "
	         "\"replications\": %d, \"seed\": 5},\n"
	         " \"workload\": {\"arrivals\": %s,\n"
	         "  \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
	         "   \"prompt_tokens\": {\"dist\": \"lognormal\", \"median\": 300, "
	         "\"sigma\": 0.5, \"max\": 4000},\n"
	         "   \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 100, "
	         "\"sigma\": 0.5, \"max\": 1000}}]},\n"
	         " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	         "\"gpu\": \"l40s\"},\n"
	         " \"fleet\": %s}\n", REPS, arrivals_json, fleet_json);
	return fs_test_load_text(text, "test.json", "tests/data");
}

static double usd(double instance_s, double usd_per_h)
{
	return instance_s * usd_per_h / 3600;
}

/* What a test checks of replication r's pool 0, printed. */
static void print_pool(const struct fs_rep_result *r)
{
	const struct fs_pool_result *pr = &r->fleet.pools[0];

	print_message("%llu launches, billed %.0f s, %.4f USD, mean desired %.4f, "
	              "short %.1f s\n", (unsigned long long)pr->launches,
	              pr->alive_ns / 1e9, pr->usd, fs_test_mean_desired(r, 0),
	              pr->avail.short_ns / 1e9);
}

#define NO_LOAD "{\"process\": \"poisson\", \"rate_per_s\": 1e-6}"
/* A spot pool of 2 warm instances and 1 spare at 0.90/h, a fixed 60 s
 * provisioning, no interruptions; the autoscaler's extra keys follow. */
#define SPARE_POOL(autoscale) \
	"{\"strategy\": \"relaunch\", \"pools\": [{\"name\": \"spot\", " \
	"\"pricing\": \"spot\", \"count\": 2, \"overprovision\": 1, \"min\": 1, " \
	"\"max\": 4, \"price_per_h\": 0.90, " \
	"\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"60s\"}, " \
	"\"spot\": {\"interruption_rate_per_month\": 0}}], " \
	"\"autoscale\": {\"pool\": \"spot\", \"interval\": \"30s\", " \
	"\"idle_release\": {\"for\": \"0s\"}, " autoscale "}}"

/*
 * MODEL: A12, F11, F15 — an autoscaled spot pool runs its decision plus
 * `overprovision` spares.  No load: the schedule's floor is the decision,
 * 2 until 15 min, 3 until 30 min, 1 after (scale-down window 0).  By hand:
 *   0: 2 warm instances serve (billed from 0); the spare is launched and
 *     billed from 60 s;
 *   15 min: 3 wanted: 4 to run, one launch billed from 960 s — and the
 *     pool is never short: the spare serves while it starts;
 *   30 min: 1 wanted: 2 to run; the two latest (idle) go at once.
 * Billed 3600 + 3600 + 1740 + 840 = 9780 instance-seconds, 2.445 USD;
 * 4 launches; mean desired (2 x 900 + 3 x 900 + 1 x 1800) / 3600 = 1.75.
 * (Before, the first look at 30 s took the decision as the target: the
 * spare, still provisioning, went unbilled, 15 min was short for 60 s + a
 * cold start, 30 min kept one instance: 3600 + 1800 + 840 s billed.)
 */
static void test_spot_autoscale_keeps_spares_on_top_of_the_decision(void **state)
{
	struct fs_scenario *sc = scenario(NO_LOAD, SPARE_POOL(
		"\"metric\": \"concurrency\", \"target\": 1, \"scale_down\": {\"window\": \"0s\"}, "
		"\"schedule\": [{\"at_hour\": 0, \"min\": 2}, {\"at_hour\": 0.25, \"min\": 3}, "
		"{\"at_hour\": 0.5, \"min\": 1}]"));
	struct fs_rep_result **res = fs_test_replicate(sc, 1, false);

	(void)state;
	for (int r = 0; r < REPS; r++) {
		const struct fs_pool_result *pr = &res[r]->fleet.pools[0];

		print_pool(res[r]);
		assert_int_equal(res[r]->cls[res[r]->n_classes].arrived, 0);
		assert_int_equal(pr->launches, 4);
		assert_near(pr->alive_ns, 9780e9, 1e3, 0);
		assert_near(pr->usd, usd(9780, SPOT_USD_PER_H), 1e-9, 0);
		assert_near(fs_test_mean_desired(res[r], 0), 1.75, 1e-9, 0);
		assert_near(pr->avail.short_ns, 0, 0, 0);
		assert_int_equal(pr->avail.min_serving, 2);
	}
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

/*
 * MODEL: A12 — the spares do not feed the autoscaler's decision back.
 * 2 req/s on request_rate with a target of 1 per instance and a tolerance
 * of 0.6: the pool's total asks for 2 instances, and 2 are what it wants
 * at every look (the 2 ready ones it counts see 1 req/s each), so it runs
 * 3 all hour: 2 warm + the spare billed from 60 s, 3600 + 3600 + 3540 s,
 * 2.685 USD, 3 launches, never short.  (Before, the first look counted the
 * spare starting as current and kept it, within the tolerance, as wanted:
 * 3 wanted and short until the spare served.)
 */
static void test_spot_autoscale_spares_are_not_wanted_within_tolerance(void **state)
{
	struct fs_scenario *sc = scenario("{\"process\": \"poisson\", \"rate_per_s\": 2}",
		SPARE_POOL("\"metric\": \"request_rate\", \"target\": 1, \"tolerance\": 0.6"));
	struct fs_rep_result **res = fs_test_replicate(sc, 1, false);

	(void)state;
	for (int r = 0; r < REPS; r++) {
		const struct fs_pool_result *pr = &res[r]->fleet.pools[0];

		print_pool(res[r]);
		assert_int_equal(pr->launches, 3);
		assert_int_equal(pr->peak_alive, 3);
		assert_near(pr->alive_ns, 10740e9, 1e3, 0);
		assert_near(pr->usd, usd(10740, SPOT_USD_PER_H), 1e-9, 0);
		assert_near(fs_test_mean_desired(res[r], 0), 2, 1e-12, 0);
		assert_near(pr->avail.short_ns, 0, 0, 0);
	}
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

/* Two warm spot instances at 0.90/h (min 2, max 4) in a zone whose replayed
 * capacity is 2, and 3 from 45 min; a fixed 60 s provisioning, no
 * interruptions, relaunch retried every 10 min; the schedule's floor wants
 * 2 until 30 min, then 3; looks every 30 s, no load. */
#define FULL_ZONE(strategy_and_pools) \
	"{\"zones\": [{\"name\": \"z\", \"capacity_trace\": " \
	"{\"path\": \"fleet/two_nodes_third_from_45m.csv\", \"format\": \"spotserve\", " \
	"\"loop\": false}}], " strategy_and_pools ", " \
	"\"autoscale\": {\"pool\": \"spot\", \"metric\": \"concurrency\", \"target\": 1, " \
	"\"interval\": \"30s\", \"idle_release\": {\"for\": \"0s\"}, " \
	"\"schedule\": [{\"at_hour\": 0, \"min\": 2}, {\"at_hour\": 0.5, \"min\": 3}]}}"
#define FULL_ZONE_SPOT(extra) \
	"{\"name\": \"spot\", \"pricing\": \"spot\", \"count\": 2, \"min\": 2, " \
	"\"max\": 4, \"price_per_h\": 0.90, " extra \
	"\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"60s\"}, " \
	"\"spot\": {\"interruption_rate_per_month\": 0, \"relaunch_retry\": \"10m\"}}"

/*
 * MODEL: F10 — a launch that found no spot room is retried every
 * relaunch_retry and at every rise of the trace, whoever asked for it.
 * By hand:
 *   30 min: the look wants 3: the third finds no room (1 failed launch),
 *     a retry is due at 40 min; the looks until 45 min join that wait;
 *   40 min: the retry fails (2), the next is due at 50 min;
 *   45 min: the trace rises to 3: the retry launches it, billed from
 *     46 min (840 s), serving a cold start C later; 50 min: nothing owed.
 * 2 failed launches, 3 launches, billed 7200 + 840 s = 2.01 USD; short
 * from 30 min to 46 min + C.  (Before, every look retried: 31 failed
 * launches by 45 min, 2 a minute.)
 */
static void test_spot_autoscale_failed_launch_waits_for_its_retry(void **state)
{
	struct fs_scenario *sc = scenario(NO_LOAD, FULL_ZONE(
		"\"strategy\": \"relaunch\", \"pools\": [" FULL_ZONE_SPOT("") "]"));
	struct fs_rep_result **res = fs_test_replicate(sc, 1, false);
	double cold_s = fs_test_cold_start_s(&sc->fleet.pools[0]);

	(void)state;
	for (int r = 0; r < REPS; r++) {
		const struct fs_pool_result *pr = &res[r]->fleet.pools[0];

		print_message("%llu launches, %llu failed, billed %.0f s, %.4f USD, short %.1f s\n",
		              (unsigned long long)pr->launches,
		              (unsigned long long)pr->failed_launches, pr->alive_ns / 1e9, pr->usd,
		              pr->avail.short_ns / 1e9);
		assert_int_equal(res[r]->cls[res[r]->n_classes].arrived, 0);
		assert_int_equal(pr->failed_launches, 2);
		assert_int_equal(pr->launches, 3);
		assert_near(pr->alive_ns, 8040e9, 1e3, 0);
		assert_near(pr->usd, usd(8040, SPOT_USD_PER_H), 1e-9, 0);
		assert_near(pr->avail.short_ns, (960 + cold_s) * 1e9, 1e3, 0);
	}
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

/* The on-demand pool the fallback stand-ins come from: 3.60/h, a fixed
 * 20 s provisioning (faster than spot's 60 s). */
#define OD_POOL \
	"{\"name\": \"od\", \"count\": 0, \"price_per_h\": 3.60, " \
	"\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"20s\"}}"
#define FALLBACK_POOLS \
	"\"strategy\": \"fallback\", \"pools\": [" \
	FULL_ZONE_SPOT("\"fallback_pool\": \"od\", ") ", " OD_POOL "]"

/*
 * MODEL: F12 — under fallback, a scale-out that spot cannot place is stood
 * in for from the decision.  The zone above (full until 45 min), the
 * schedule wanting 3 from 30 min; C: the cold start (the same GPU in both
 * pools).  By hand:
 *   30 min: the spot launch finds no room; 3 wanted - 2 serving spot = 1
 *     stand-in, billed from 30 min 20 s, serving 30 min 20 s + C;
 *   40 min: the spot retry fails (2 failed launches);
 *   45 min: the trace rises: the spot instance is launched, billed from
 *     46 min, serving 46 min + C, when the stand-in goes: billed
 *     ceil(940 + C) s.
 * Spot as without fallback: 3 launches, 8040 s, 2.01 USD.  On demand: 1
 * launch, ceil(940 + C) x 3.60 / 3600 USD, none of it lost to reclaims
 * (no reclaim took anything: MODEL: F13); short 20 s + C.  (Before, no
 * stand-in came until the retry at 40 min, billed from 40 min 20 s, its
 * cold start counted lost to reclaims: short 10 min 20 s + C.)
 */
static void test_spot_autoscale_fallback_stands_in_for_an_unplaced_scale_out(void **state)
{
	struct fs_scenario *sc = scenario(NO_LOAD, FULL_ZONE(FALLBACK_POOLS));
	struct fs_rep_result **res = fs_test_replicate(sc, 1, false);
	double cold_s = fs_test_cold_start_s(&sc->fleet.pools[1]);
	double od_s = ceil(940 + cold_s);

	(void)state;
	assert_near(cold_s, fs_test_cold_start_s(&sc->fleet.pools[0]), 0, 0);
	for (int r = 0; r < REPS; r++) {
		const struct fs_pool_result *ps = &res[r]->fleet.pools[0];
		const struct fs_pool_result *po = &res[r]->fleet.pools[1];

		print_message("spot %llu launches, %llu failed, %.4f USD; on demand %llu launches, "
		              "%.4f USD (hand %.4f), lost %.4f; short %.1f s\n",
		              (unsigned long long)ps->launches,
		              (unsigned long long)ps->failed_launches, ps->usd,
		              (unsigned long long)po->launches, po->usd, usd(od_s, OD_USD_PER_H),
		              po->lost_usd, ps->avail.short_ns / 1e9);
		assert_int_equal(ps->launches, 3);
		assert_int_equal(ps->failed_launches, 2);
		assert_near(ps->alive_ns, 8040e9, 1e3, 0);
		assert_near(ps->usd, usd(8040, SPOT_USD_PER_H), 1e-9, 0);
		assert_int_equal(po->launches, 1);
		assert_near(po->usd, usd(od_s, OD_USD_PER_H), 1e-9, 0);
		assert_near(po->lost_usd, 0, 0, 0);
		assert_near(ps->avail.short_ns, (20 + cold_s) * 1e9, 1e3, 0);
		assert_near(res[r]->fleet.avail.short_ns, (20 + cold_s) * 1e9, 1e3, 0);
	}
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

/*
 * MODEL: F12 — a scale-out whose spot launch found room is stood in for
 * through the spot instance's cold start, as a reclaim's replacement is.
 * The same pools in a zone without a trace.  By hand:
 *   30 min: 3 wanted: a spot launch, billed from 31 min, serving 31 min +
 *     C; 3 wanted - 2 serving spot = 1 stand-in, billed from 30 min 20 s,
 *     serving 30 min 20 s + C, gone when the spot instance serves: billed
 *     ceil(40 + C) s.
 * Spot: 3 launches, 7200 + 1740 s = 2.235 USD, no failed launch.  On
 * demand: 1 launch, ceil(40 + C) x 3.60 / 3600, none of it lost to
 * reclaims; short 20 s + C.  (Before, no stand-in: short 60 s + C.)
 */
static void test_spot_autoscale_fallback_covers_a_scale_out_cold_start(void **state)
{
	struct fs_scenario *sc = scenario(NO_LOAD,
		"{\"zones\": [{\"name\": \"z\"}], " FALLBACK_POOLS ", "
		"\"autoscale\": {\"pool\": \"spot\", \"metric\": \"concurrency\", \"target\": 1, "
		"\"interval\": \"30s\", \"idle_release\": {\"for\": \"0s\"}, "
		"\"schedule\": [{\"at_hour\": 0, \"min\": 2}, {\"at_hour\": 0.5, \"min\": 3}]}}");
	struct fs_rep_result **res = fs_test_replicate(sc, 1, false);
	double cold_s = fs_test_cold_start_s(&sc->fleet.pools[1]);
	double od_s = ceil(40 + cold_s);

	(void)state;
	for (int r = 0; r < REPS; r++) {
		const struct fs_pool_result *ps = &res[r]->fleet.pools[0];
		const struct fs_pool_result *po = &res[r]->fleet.pools[1];

		print_message("spot %llu launches, %.4f USD; on demand %llu launches, %.4f USD "
		              "(hand %.4f); short %.1f s\n", (unsigned long long)ps->launches,
		              ps->usd, (unsigned long long)po->launches, po->usd,
		              usd(od_s, OD_USD_PER_H), ps->avail.short_ns / 1e9);
		assert_int_equal(ps->launches, 3);
		assert_int_equal(ps->failed_launches, 0);
		assert_near(ps->usd, usd(8940, SPOT_USD_PER_H), 1e-9, 0);
		assert_int_equal(po->launches, 1);
		assert_near(po->usd, usd(od_s, OD_USD_PER_H), 1e-9, 0);
		assert_near(po->lost_usd, 0, 0, 0);
		assert_near(ps->avail.short_ns, (20 + cold_s) * 1e9, 1e3, 0);
	}
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spot_autoscale_keeps_spares_on_top_of_the_decision),
		cmocka_unit_test(test_spot_autoscale_spares_are_not_wanted_within_tolerance),
		cmocka_unit_test(test_spot_autoscale_failed_launch_waits_for_its_retry),
		cmocka_unit_test(test_spot_autoscale_fallback_stands_in_for_an_unplaced_scale_out),
		cmocka_unit_test(test_spot_autoscale_fallback_covers_a_scale_out_cold_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
