/*
 * test_fleet_world.c — the fleet driven by the world: requests are conserved
 * across spot reclaims (re-queued or failed), no new work reaches an
 * instance under a reclaim notice, a cold start takes at least the weights'
 * download and load (and billing starts after provisioning), and spot runs
 * are identical on 1 and 2 threads.  Scenarios are JSON text
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
#include "fleetsim/summary.h"
#include "util_test.h"

/* Llama-3.1-8B chat traffic at rate_per_s for `horizon`, with the given
 * "fleet" object (JSON text), its TTFT target 2 s. */
static struct fs_scenario *scenario(double rate_per_s, const char *horizon,
                                    const char *fleet_json)
{
	const struct fs_test_chat c = { rate_per_s, horizon, "0s", 4, 5, "",
	                                ",\n   \"slo\": {\"ttft\": \"2s\"}", fleet_json,
	                                "test.json" };

	return fs_test_chat_fleet(&c);
}

static void check_conservation(struct fs_rep_result *const *results, int n_reps)
{
	int r;

	for (r = 0; r < n_reps; r++) {
		const struct fs_class_result *all = &results[r]->cls[results[r]->n_classes];

		assert_int_equal(all->arrived, all->completed + all->in_flight + all->failed);
	}
}

/* Two spot instances in one zone with a zone reclaim every ~10 minutes: 12
 * expected in each 2-hour replication, none at odds of e^-12 (at 72 a day,
 * 6 expected, one replication of another generator's saw none). */
#define HARSH_SPOT(in_flight) \
	"{\"strategy\": \"relaunch\", \"pools\": [{\"name\": \"spot\", " \
	"\"pricing\": \"spot\", \"count\": 2, \"spot\": {\"zone_reclaims_per_day\": 144, " \
	"\"zone_outage\": \"2m\", \"notice\": \"30s\", \"in_flight\": \"" in_flight "\"}}]}"

static void test_fleet_world_requests_conserved_across_requeueing_reclaims(void **state)
{
	struct fs_scenario *sc = scenario(2.0, "2h", HARSH_SPOT("requeue"));
	struct fs_rep_result **results = fs_test_replicate(sc, 2, false);
	int r;

	(void)state;
	check_conservation(results, 4);
	for (r = 0; r < 4; r++) {
		assert_true(results[r]->fleet.pools[0].reclaims > 0);
		assert_true(results[r]->fleet.requeued > 0);
		assert_true(results[r]->fleet.recomputed_tokens > 0);
		assert_int_equal(results[r]->cls[1].failed, 0);
	}
	fs_replicate_free(results, 4);
	fs_scenario_free(sc);
}

static void test_fleet_world_requests_conserved_across_failing_reclaims(void **state)
{
	struct fs_scenario *sc = scenario(2.0, "2h", HARSH_SPOT("fail"));
	struct fs_rep_result **results = fs_test_replicate(sc, 2, false);
	uint64_t failed = 0;
	int r;

	(void)state;
	check_conservation(results, 4);
	for (r = 0; r < 4; r++) {
		failed += results[r]->cls[1].failed;
		assert_int_equal(results[r]->fleet.requeued, 0);
	}
	assert_true(failed > 0);
	fs_replicate_free(results, 4);
	fs_scenario_free(sc);
}

/* The only zone loses its one spot slot at 10 min (a replayed trace), with a
 * 5-minute notice and no relaunch: requests arriving after the notice never
 * start (nothing may route to the noticed instance), requests already there
 * keep being served through the notice (drain). */
static void test_fleet_world_no_new_work_after_a_notice(void **state)
{
	struct fs_scenario *sc = scenario(1.0, "30m",
		"{\"strategy\": \"none\", \"zones\": [{\"name\": \"z\", \"capacity_trace\": "
		"{\"path\": \"one_node_until_10m.csv\", \"format\": \"spotserve\", "
		"\"loop\": false}}], \"pools\": [{\"name\": \"spot\", \"pricing\": \"spot\", "
		"\"count\": 1, \"spot\": {\"interruption_rate_per_month\": 0, "
		"\"notice\": \"5m\", \"in_flight\": \"drain\"}}]}");
	struct fs_rep_result **results = fs_test_replicate(sc, 1, true);
	const struct fs_rep_result *r0 = results[0];
	fs_ns notice_ns = 10 * 60 * FS_NS_PER_S;
	size_t i, served_during_notice = 0, after = 0;

	(void)state;
	check_conservation(results, 4);
	for (i = 0; i < r0->n_rows; i++) {
		const struct fs_request_row *row = &r0->rows[i];

		if (row->arrival_ns > notice_ns) {
			after++;
			assert_true(row->start_ns < 0);
		} else if (row->completed && row->end_ns > notice_ns) {
			served_during_notice++;
		}
	}
	assert_true(after > 100);
	assert_true(served_during_notice > 0);
	assert_int_equal(r0->fleet.pools[0].reclaims, 1);
	fs_replicate_free(results, 4);
	fs_scenario_free(sc);
}

/* Cold start: fixed 60 s provisioning, then 16.06 GB at 0.5 GB/s, 16.06 GB
 * at 2 GB/s and 30 s of engine start: nothing can start before ~130 s. */
static void test_fleet_world_cold_start_covers_weights_over_bandwidth(void **state)
{
	struct fs_scenario *sc = scenario(1.0, "10m",
		"{\"pools\": [{\"name\": \"od\", \"count\": 1, \"warm_start\": false, "
		"\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"60s\"}, "
		"\"download_gbps\": 0.5, \"load_gbps\": 2, \"engine_start\": \"30s\"}]}");
	struct fs_rep_result **results = fs_test_replicate(sc, 1, true);
	const struct fs_rep_result *r0 = results[0];
	double weights_bytes = sc->fleet.pools[0].llm->mem.weights_bytes_per_gpu;
	fs_ns min_ns = (fs_ns)(60e9 + weights_bytes / 0.5 + weights_bytes / 2.0 + 30e9);
	fs_ns first_start_ns = FS_NS_MAX;
	size_t i;

	(void)state;
	for (i = 0; i < r0->n_rows; i++)
		if (r0->rows[i].start_ns >= 0 && r0->rows[i].start_ns < first_start_ns)
			first_start_ns = r0->rows[i].start_ns;
	print_message("first start %.1f s, cold start bound %.1f s\n",
	              (double)first_start_ns / 1e9, (double)min_ns / 1e9);
	assert_true(first_start_ns >= min_ns);
	assert_true(first_start_ns < min_ns + FS_NS_PER_S * 2);
	/* Billing starts when the machine runs (after provisioning). */
	assert_near(r0->fleet.pools[0].alive_ns, 540e9, 1e6, 0);
	fs_replicate_free(results, 4);
	fs_scenario_free(sc);
}

/* Same seed, 1 and 2 threads: the same fleet results, bit for bit. */
static void test_fleet_world_spot_runs_do_not_depend_on_threads(void **state)
{
	struct fs_scenario *sc = scenario(2.0, "1h", HARSH_SPOT("drain"));
	struct fs_rep_result **a = fs_test_replicate(sc, 1, false), **b = fs_test_replicate(sc, 2, false);
	int r;

	(void)state;
	for (r = 0; r < 4; r++) {
		struct fs_pool_result pa = a[r]->fleet.pools[0], pb = b[r]->fleet.pools[0];

		/* the level array is compared by content, the rest bit for bit */
		assert_int_equal(pa.n_levels, pb.n_levels);
		assert_memory_equal(pa.level_ns, pb.level_ns, pa.n_levels * sizeof *pa.level_ns);
		pa.level_ns = pb.level_ns = NULL;
		assert_memory_equal(&pa, &pb, sizeof pa);
		assert_int_equal(a[r]->fleet.requeued, b[r]->fleet.requeued);
		assert_int_equal(a[r]->cls[1].completed, b[r]->cls[1].completed);
	}
	fs_replicate_free(a, 4);
	fs_replicate_free(b, 4);
	fs_scenario_free(sc);
}

/* Target tracking adds instances under load (after their cold start) and
 * idle release gives them back when the load is gone. */
static void test_fleet_world_autoscaler_follows_the_load(void **state)
{
	struct fs_scenario *busy = scenario(12.0, "1h",
		"{\"pools\": [{\"name\": \"od\", \"count\": 1, \"min\": 1, \"max\": 4}], "
		"\"autoscale\": {\"pool\": \"od\", \"metric\": \"queue_len\", \"target\": 4, "
		"\"interval\": \"30s\", \"scale_up\": {\"window\": \"2m\"}}}");
	struct fs_scenario *quiet = scenario(0.05, "2h",
		"{\"pools\": [{\"name\": \"od\", \"count\": 3, \"min\": 1, \"max\": 3}], "
		"\"autoscale\": {\"pool\": \"od\", \"target\": 4, "
		"\"idle_release\": {\"busy_below\": 0.5, \"for\": \"10m\"}}}");
	struct fs_rep_result **rb = fs_test_replicate(busy, 2, false), **rq = fs_test_replicate(quiet, 2, false);

	(void)state;
	check_conservation(rb, 4);
	check_conservation(rq, 4);
	print_message("busy: %llu launches, peak %llu, %.2f instance-hours; quiet: %.2f "
	              "instance-hours\n", (unsigned long long)rb[0]->fleet.pools[0].launches,
	              (unsigned long long)rb[0]->fleet.pools[0].peak_alive,
	              rb[0]->fleet.pools[0].alive_ns / 3600e9,
	              rq[0]->fleet.pools[0].alive_ns / 3600e9);
	assert_true(rb[0]->fleet.pools[0].launches > 1);
	assert_true(rb[0]->fleet.pools[0].peak_alive > 1);
	assert_true(rb[0]->fleet.pools[0].peak_alive <= 4);     /* max */
	assert_true(rb[0]->fleet.pools[0].alive_ns > 1.5 * 3600e9);
	assert_true(rq[0]->fleet.pools[0].alive_ns < 0.8 * 3 * 2 * 3600e9);
	assert_true(rq[0]->fleet.pools[0].alive_ns >= 2 * 3600e9);   /* min 1 kept */
	fs_replicate_free(rb, 4);
	fs_replicate_free(rq, 4);
	fs_scenario_free(busy);
	fs_scenario_free(quiet);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleet_world_requests_conserved_across_requeueing_reclaims),
		cmocka_unit_test(test_fleet_world_requests_conserved_across_failing_reclaims),
		cmocka_unit_test(test_fleet_world_no_new_work_after_a_notice),
		cmocka_unit_test(test_fleet_world_cold_start_covers_weights_over_bandwidth),
		cmocka_unit_test(test_fleet_world_spot_runs_do_not_depend_on_threads),
		cmocka_unit_test(test_fleet_world_autoscaler_follows_the_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
