/*
 * test_fleet_defects.c — fleet figures pinned against hand counts in whole
 * runs: a reclaim notice owes a replacement (whose cold start is lost to
 * reclaims, MODEL F13) only for capacity the pool counted and still wants —
 * not for an instance the autoscaler was already draining, nor after the
 * autoscaler gave the capacity up —; a prompt counts as recomputed (MODEL
 * F6) only at the reclaim of an instance that had processed it, not again
 * when it is moved off one that never did; and a moved request's
 * inter-token gap across the move is recorded like any other (F6, V16).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/perf.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/world.h"
#include "util_test.h"
#include "../src/world_state.h"

#define PRICE_PER_H 0.90

/* One spot pool "spot" of Llama-3.1-8B on L40S at 0.90 per hour in zone z
 * (zone_json: its object), 2 h, seed 11, one replication; `workload` is
 * the workload object, `pool_extra` and `fleet_extra` go into the pool and
 * the fleet objects.  Loaded from dir (for the trace files). */
static struct fs_scenario *scenario(const char *dir, const char *workload,
                                    const char *zone_json, const char *pool_extra,
                                    const char *fleet_extra)
{
	char text[8192];

	snprintf(text, sizeof text,
	         "{\"simulation\": {\"horizon\": \"2h\", \"warmup\": \"0s\", "
	         "\"replications\": 1, \"seed\": 11, \"sample_interval\": \"60s\"},\n"
	         " \"workload\": %s,\n"
	         " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	         "\"gpu\": \"l40s\"},\n"
	         " \"fleet\": {\"strategy\": \"relaunch\", \"zones\": [%s],\n"
	         "  \"pools\": [{\"name\": \"spot\", \"pricing\": \"spot\", \"count\": 2, "
	         "\"price_per_h\": %g, \"provisioning\": {\"dist\": \"fixed\", "
	         "\"mean\": \"60s\"}%s}]%s}}\n",
	         workload, zone_json, PRICE_PER_H, pool_extra, fleet_extra);
	return fs_test_load_text(text, "test.json", dir);
}

/* Requests from the Vidur trace trace.csv, lengths from the trace, no loop. */
#define TRACE_WORKLOAD \
	"{\"arrivals\": {\"process\": \"trace\", \"trace\": {\"path\": \"trace.csv\", " \
	"\"format\": \"vidur\", \"loop\": false}},\n" \
	"  \"classes\": [{\"name\": \"chat\", \"share\": 1, " \
	"\"prompt_tokens\": {\"dist\": \"trace\"}, \"output_tokens\": {\"dist\": \"trace\"}}]}"

static double usd(double seconds)
{
	return seconds * PRICE_PER_H / 3600;
}

/*
 * Two warm spot instances, each given one long request at t = 0 (1000
 * prompt and 20,000 output tokens: minutes of decoding).  The autoscaler
 * (concurrency target 100, no scale-down window, no idle release, a
 * scheduled floor of 1 until 01:00 and 2 from then) scales in to 1 at its
 * first look at 60 s: both hold one request, so the later one (instance 1)
 * drains.  At 61 s that draining instance gets an interruption notice
 * (60 s, in_flight fail): it counted for nothing when noticed, so no
 * replacement is owed.  At 01:00 the floor asks for a second instance: a
 * scale-out, not a replacement.
 *   instance 0: billed 0 .. 2 h           7200 s
 *   instance 1: billed 0 .. 121 s (reclaim) 121 s
 *   instance 2: launched 3600 s, provisioned 60 s, billed 3660 s .. 2 h: 3540 s
 * The bill is 10,861 s at 0.90 per hour; nothing is lost to reclaims: no
 * replacement's cold start (before the fix the scale-out was taken for the
 * replacement and its cold start counted as lost), no recomputed work (the
 * request on instance 1 fails).
 */
static void test_fleet_defects_notice_while_draining_owes_no_replacement(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_scenario *sc;
	struct fs_world *w;
	struct fs_rep_result *res;
	const struct fs_pool_result *pr;

	(void)state;
	free(fs_test_write(dir, "trace.csv",
	                   "arrived_at,num_prefill_tokens,num_decode_tokens\n"
	                   "0,1000,20000\n0,1000,20000\n"));
	sc = scenario(dir, TRACE_WORKLOAD, "{\"name\": \"z\"}",
	              ", \"min\": 1, \"max\": 2, \"spot\": {\"interruption_rate_per_month\": 0, "
	              "\"notice\": \"60s\", \"in_flight\": \"fail\", \"relaunch_retry\": \"10h\"}",
	              ", \"autoscale\": {\"pool\": \"spot\", \"metric\": \"concurrency\", "
	              "\"target\": 100, \"interval\": \"60s\", \"scale_down\": {\"window\": \"0s\"}, "
	              "\"idle_release\": {\"busy_below\": 0.1, \"for\": \"0s\"}, "
	              "\"schedule\": [{\"at_hour\": 0, \"min\": 1}, {\"at_hour\": 1, \"min\": 2}]}");
	w = fs_world_alloc(sc, sc->sim.seed, 0, false);
	fs_world_run_until(w, 60 * FS_NS_PER_S);
	assert_int_equal(w->n_insts, 2);
	assert_int_equal(w->insts[0].state, FS__INST_SERVING);
	assert_int_equal(w->insts[1].state, FS__INST_DRAINING);
	/* MODEL: F8 — an interruption of instance 1, at a chosen instant */
	fs_eventq_push(w->q, 61 * FS_NS_PER_S, FS_EV_SPOT_NOTICE, 1, 0);
	fs_world_run(w);
	res = fs_world_take_result(w);
	pr = &res->fleet.pools[0];
	print_message("cold start %.1f s; bill %.6f, lost %.6f, idle %.6f\n",
	              fs_test_cold_start_s(&sc->fleet.pools[0]), pr->usd, pr->lost_usd,
	              pr->idle_usd);
	assert_int_equal(pr->reclaims, 1);
	assert_int_equal(pr->reclaim_failed, 1);
	assert_int_equal(pr->launches, 3);
	assert_int_equal(pr->failed_launches, 0);
	assert_near(pr->alive_ns, (7200 + 121 + 3540) * 1e9, 1e3, 0);
	assert_near(pr->usd, usd(7200 + 121 + 3540), 1e-9, 0);
	assert_int_equal(res->fleet.recomputed_tokens, 0);
	assert_near(pr->lost_usd, 0, 0, 0);
	fs_rep_result_free(res);
	fs_world_free(w);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

/*
 * Two warm spot instances, no requests, a zone whose replayed capacity is
 * 2, then 1 from 630 s, then 2 again from 3630 s; notice 5 min; the
 * autoscaler's floor is 2 until 00:30, 1 until 01:00 and 2 from then (no
 * load: the floor is the decision).
 *   630 s: instance 1 gets its notice: a replacement is owed, but the zone
 *          has no room (one failed launch; the looks and the scale-out at
 *          3600 s wait for its retry, due after the horizon, or a rise).
 *   930 s: instance 1 is reclaimed (billed 930 s).
 *   1800 s: the autoscaler wants 1, which it has: the replacement is no
 *          longer owed.
 *   3600 s: the autoscaler wants 2: a scale-out, which finds no room yet.
 *   3630 s: room again: the scale-out is launched (instance 2), billed
 *          from 3690 s to 2 h, 3510 s, its cold start not lost to the
 *          reclaim (before the fix it was launched as the replacement).
 * The bill is 7200 + 930 + 3510 s at 0.90 per hour, none of it lost.
 */
static void test_fleet_defects_replacement_given_up_when_target_falls(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_scenario *sc;
	struct fs_rep_result **res;
	const struct fs_pool_result *pr;
	struct fs_run_opts opts = { 1, 0, 1, 11, false, NULL };

	(void)state;
	free(fs_test_write(dir, "capacity.csv",
	                   "0,add,n1\n0,add,n2\n630000,remove,n2\n3630000,add,n2\n"));
	sc = scenario(dir,
	              "{\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1e-6},\n"
	              "  \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
	              FS_TEST_CHAT_LENGTHS "}]}",
	              "{\"name\": \"z\", \"capacity_trace\": {\"path\": \"capacity.csv\", "
	              "\"format\": \"spotserve\", \"loop\": false}}",
	              ", \"min\": 1, \"max\": 2, \"spot\": {\"interruption_rate_per_month\": 0, "
	              "\"notice\": \"5m\", \"in_flight\": \"drain\", \"relaunch_retry\": \"10h\"}",
	              ", \"autoscale\": {\"pool\": \"spot\", \"metric\": \"concurrency\", "
	              "\"target\": 100, \"interval\": \"60s\", \"scale_down\": {\"window\": \"0s\"}, "
	              "\"idle_release\": {\"busy_below\": 0.1, \"for\": \"0s\"}, "
	              "\"schedule\": [{\"at_hour\": 0, \"min\": 2}, {\"at_hour\": 0.5, \"min\": 1}, "
	              "{\"at_hour\": 1, \"min\": 2}]}");
	res = fs_replicate_run(sc, &opts);
	pr = &res[0]->fleet.pools[0];
	print_message("cold start %.1f s; bill %.6f, lost %.6f, idle %.6f\n",
	              fs_test_cold_start_s(&sc->fleet.pools[0]), pr->usd, pr->lost_usd,
	              pr->idle_usd);
	assert_int_equal(res[0]->cls[res[0]->n_classes].arrived, 0);
	assert_int_equal(pr->reclaims, 1);
	assert_int_equal(pr->launches, 3);
	assert_int_equal(pr->failed_launches, 1);
	assert_near(pr->alive_ns, (7200 + 930 + 3510) * 1e9, 1e3, 0);
	assert_near(pr->usd, usd(7200 + 930 + 3510), 1e-9, 0);
	assert_near(pr->lost_usd, 0, 0, 0);
	assert_near(pr->idle_usd, pr->usd, 1e-12, 0);
	fs_replicate_free(res, 1);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

/*
 * Two warm spot instances (no autoscaler), two requests at t = 0 of P =
 * 16,000 prompt tokens and 20 output tokens, one on each (instance 0 takes
 * the first).  The zone's replayed capacity falls from 2 to 0 at DROP_MS,
 * while both prompts are still being prefilled in 2048-token chunks (both
 * have begun, neither has its first token: checked on the request rows),
 * and comes back at 5 min.  The drop notices the most recently launched
 * first (MODEL F10), in_flight requeue moves requests at the notice:
 *   instance 1: its request (processed there: P recomputed) moves to
 *               instance 0, which is still serving, and waits there;
 *   instance 0: its own request (P) and the one it never processed (0)
 *               go to the line of unrouted requests.
 * Recomputed: 2 P (before the fix 3 P: the moved request's prompt counted
 * again at instance 0, from its first start on instance 1).  Three
 * re-queues.  The replacements serve the two requests to the end.
 */
#define PROMPT_TOKENS 16000
#define DROP_MS 500
static void test_fleet_defects_prompt_recomputed_once_per_processing(void **state)
{
	char *dir = fs_test_tmpdir(), cap[256];
	struct fs_scenario *sc;
	struct fs_rep_result **res;
	struct fs_run_opts opts = { 1, 0, 1, 11, true, NULL };
	const struct fs_rep_result *r0;
	size_t i;

	(void)state;
	snprintf(cap, sizeof cap, "0,add,n1\n0,add,n2\n%d,remove,n1\n%d,remove,n2\n"
	         "300000,add,n1\n300000,add,n2\n", DROP_MS, DROP_MS);
	free(fs_test_write(dir, "capacity.csv", cap));
	free(fs_test_write(dir, "trace.csv",
	                   "arrived_at,num_prefill_tokens,num_decode_tokens\n"
	                   "0,16000,20\n0,16000,20\n"));
	sc = scenario(dir, TRACE_WORKLOAD,
	              "{\"name\": \"z\", \"capacity_trace\": {\"path\": \"capacity.csv\", "
	              "\"format\": \"spotserve\", \"loop\": false}}",
	              ", \"spot\": {\"interruption_rate_per_month\": 0, \"notice\": \"2m\", "
	              "\"in_flight\": \"requeue\", \"relaunch_retry\": \"10h\"}", "");
	res = fs_replicate_run(sc, &opts);
	r0 = res[0];
	assert_int_equal(r0->n_rows, 2);
	for (i = 0; i < r0->n_rows; i++) {
		const struct fs_request_row *row = &r0->rows[i];

		print_message("request %zu: start %.3f s, first token %.3f s, end %.3f s\n", i,
		              (double)row->start_ns / 1e9, (double)row->first_token_ns / 1e9,
		              (double)row->end_ns / 1e9);
		assert_int_equal(row->prompt_tokens, PROMPT_TOKENS);
		assert_true(row->completed);
		assert_int_equal(row->output_tokens, 20);
		/* begun before the drop, first token after it (on a replacement) */
		assert_true(row->start_ns >= 0 && row->start_ns < DROP_MS * 1000000LL);
		assert_true(row->first_token_ns > 300 * FS_NS_PER_S);
	}
	assert_int_equal(r0->fleet.pools[0].reclaims, 2);
	assert_int_equal(r0->fleet.pools[0].reclaim_requeued, 3);
	assert_int_equal(r0->fleet.requeued, 3);
	assert_int_equal(r0->fleet.recomputed_tokens, 2 * PROMPT_TOKENS);
	fs_replicate_free(res, 1);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

/*
 * Two warm spot instances each given a request at t = 0 (1000 prompt and
 * 400 output tokens); the zone's replayed capacity falls from 2 to 1 at
 * 5 s, and the notice of 0 s moves instance 1's request (notice F10: the
 * most recently launched) to instance 0, where it is prefilled again with
 * the tokens it carried.  Every output token but each request's first has
 * one inter-token gap, the one across the move included (MODEL F6, V16):
 * 2 x 399 ITL samples, and the largest is that gap, from the move's last
 * token before 5 s to its first token on instance 0 after its re-prefill:
 * longer than the re-prefill step (before the fix, 797 samples, the gap
 * missing).
 */
#define MOVE_S 5
static void test_fleet_defects_itl_gap_across_a_move_recorded(void **state)
{
	char *dir = fs_test_tmpdir(), cap[256];
	struct fs_scenario *sc;
	struct fs_world *w;
	struct fs_rep_result *res;
	const struct fs_hist *itl;
	struct fs_step_shape shape = { 0 };
	struct fs_step_cost cost;
	int64_t carried = -1;
	size_t i;

	(void)state;
	snprintf(cap, sizeof cap, "0,add,n1\n0,add,n2\n%d,remove,n2\n", MOVE_S * 1000);
	free(fs_test_write(dir, "capacity.csv", cap));
	free(fs_test_write(dir, "trace.csv",
	                   "arrived_at,num_prefill_tokens,num_decode_tokens\n"
	                   "0,1000,400\n0,1000,400\n"));
	sc = scenario(dir, TRACE_WORKLOAD,
	              "{\"name\": \"z\", \"capacity_trace\": {\"path\": \"capacity.csv\", "
	              "\"format\": \"spotserve\", \"loop\": false}}",
	              ", \"spot\": {\"interruption_rate_per_month\": 0, \"notice\": \"0s\", "
	              "\"in_flight\": \"requeue\", \"relaunch_retry\": \"10h\"}", "");
	w = fs_world_alloc(sc, sc->sim.seed, 0, false);
	fs_world_run_until(w, MOVE_S * FS_NS_PER_S + 1);
	for (i = 0; i < w->n_slots; i++)
		if (w->slots[i].in_use && w->slots[i].carried_tokens > 0)
			carried = w->slots[i].carried_tokens;
	assert_true(carried > 0 && carried < 400);
	fs_world_run(w);
	res = fs_world_take_result(w);
	itl = &res->itl_hist;
	/* the re-prefill: the moved prompt and its tokens beside one decode */
	shape.prefill_tokens = 1000 + carried;
	shape.prefill_attn_tokens = (1000 + carried) * (1000 + carried) / 2;
	shape.decode_seqs = 1;
	shape.decode_context_tokens = 1000 + MOVE_S * 10;
	shape.n_seqs = 2;
	fs_perf_step_cost(&sc->fleet.pools[0].llm->perf, &shape, &cost);
	print_message("carried %lld tokens; ITL samples %llu, max %.3f ms, min %.3f ms; "
	              "re-prefill about %.3f ms\n", (long long)carried,
	              (unsigned long long)itl->n, itl->max / 1e6, itl->min / 1e6,
	              (double)cost.total_ns / 1e6);
	assert_int_equal(res->fleet.requeued, 1);
	assert_int_equal(res->cls[res->n_classes].completed, 2);
	assert_int_equal(itl->n, 2 * 399);
	assert_true(itl->max > 0.9 * (double)cost.total_ns);
	assert_true(itl->max > 3 * itl->min);
	fs_rep_result_free(res);
	fs_world_free(w);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleet_defects_notice_while_draining_owes_no_replacement),
		cmocka_unit_test(test_fleet_defects_replacement_given_up_when_target_falls),
		cmocka_unit_test(test_fleet_defects_prompt_recomputed_once_per_processing),
		cmocka_unit_test(test_fleet_defects_itl_gap_across_a_move_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
