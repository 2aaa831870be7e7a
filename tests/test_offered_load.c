/*
 * test_offered_load.c — the offered load of closed-loop classes (MODEL:
 * U10): the unloaded response time from the step-time model, N / (R + Z)
 * and its session form against a hand computation, the capacity-utilisation
 * mix weighing a closed class like an open class at that rate, and the
 * predictive autoscaler sizing for users who log on at a known time.
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

#include "fleetsim/world_capacity_util.h"
#include "fleetsim/perf.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/metrics.h"
#include "../src/workload_internal.h"
#include "util_test.h"

static struct fs_scenario *load(const char *text)
{
	return fs_test_load_text(text, "load.json", ".");
}

/* Alone on the instance, by the step-time model's own pieces: one prefill
 * of `prompt` tokens, then output - 1 decode steps at batch 1 with the
 * context at prompt + output / 2. */
static double alone_s(const struct fs_perf_cfg *perf, int64_t prompt, int64_t output)
{
	return ((double)fs_perf_prefill_ns(perf, prompt) +
	        (double)(output - 1) * (double)fs_perf_decode_ns(perf, 1, prompt + output / 2)) *
	       1e-9;
}

/* 40 users thinking 10 s (1000 in, 100 out) and 10 users holding 3-turn
 * sessions (messages 200, answers 50; 5 s between turns, 30 s between
 * sessions), on one L40S.  By hand: R = alone(1000, 100) and the bench
 * class offers 40 / (R + 10) requests/s; a session's mean prompt is
 * 200 + (3 - 1) / 2 x (200 + 50) = 450, R' = alone(450, 50), and a user's
 * session cycle is 3 R' + 2 x 5 + 30 s for 3 requests: 10 x 3 / cycle.  An
 * open class of 0.5 sessions/s of 3 turns offers 1.5 requests/s. */
static void test_offered_load_is_users_over_response_plus_think(void **state)
{
	struct fs_scenario *sc = load(
		"{ \"name\": \"offered\", \"simulation\": { \"horizon\": \"1h\" },"
		" \"workload\": { \"classes\": ["
		" { \"name\": \"bench\", \"users\": 40, \"think\": \"10s\","
		"   \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 1000 },"
		"   \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 100 } },"
		" { \"name\": \"chat\", \"users\": 10, \"think\": \"30s\","
		"   \"session\": { \"turns\": { \"dist\": \"fixed\", \"tokens\": 3 },"
		"                  \"think\": \"5s\" },"
		"   \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 200 },"
		"   \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 50 } },"
		" { \"name\": \"open\", \"arrivals\": { \"process\": \"poisson\","
		"   \"rate_per_s\": 0.5 },"
		"   \"session\": { \"turns\": { \"dist\": \"fixed\", \"tokens\": 3 } },"
		"   \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 200 },"
		"   \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 50 } },"
		" { \"name\": \"bench0\", \"users\": 8,"
		"   \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 1000 },"
		"   \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 100 } } ] },"
		" \"engine\": { \"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\" },"
		" \"fleet\": { \"pools\": [ { \"name\": \"l40s\", \"count\": 1 } ] } }");
	const struct fs_perf_cfg *perf = &sc->fleet.pools[0].llm->perf;
	const struct fs_workload_cfg *wl = &sc->workload;
	double r_s = alone_s(perf, 1000, 100), rs_s = alone_s(perf, 450, 50);
	fs_ns t_ns = 600 * FS_NS_PER_S;

	(void)state;
	print_message("R bench %.4f s, R session turn %.4f s\n", r_s, rs_s);
	assert_true(r_s > 0.1 && r_s < 10);
	assert_near(fs_capacity_util_response_s(sc, 0, 0), r_s, 0, 1e-12);
	assert_near(fs_capacity_util_response_s(sc, 0, 1), rs_s, 0, 1e-12);
	assert_near(fs__users_mean_prompt_tokens(&wl->classes[1]), 450, 0, 1e-12);
	assert_near(fs__users_offered_per_s(wl, &sc->sim, 0, t_ns, r_s), 40 / (r_s + 10),
	            0, 1e-12);
	assert_near(fs__users_offered_per_s(wl, &sc->sim, 1, t_ns, rs_s),
	            30 / (3 * rs_s + 2 * 5 + 30), 0, 1e-12);
	assert_near(fs__users_offered_per_s(wl, &sc->sim, 2, t_ns, 0), 1.5, 0, 1e-12);
	/* benchmark mode: N / R; with no estimate of R nothing is offered */
	assert_near(fs__users_offered_per_s(wl, &sc->sim, 3, t_ns, r_s), 8 / r_s, 0, 1e-12);
	assert_near(fs__users_offered_per_s(wl, &sc->sim, 3, t_ns, NAN), 0, 0, 0);
	fs_scenario_free(sc);
}

/* Capacity utilisation's saturation mix: a closed class of 60 users weighs
 * exactly like an open class whose Poisson rate is its offered load, so the
 * two scenarios measure the same saturation throughput; leaving the users
 * out (the earlier weight 0) measures another. */
static void test_offered_load_weighs_closed_classes_in_the_saturation_mix(void **state)
{
	static const char *const fmt =
		"{ \"name\": \"mix\", \"simulation\": { \"horizon\": \"1h\" },"
		" \"workload\": { \"classes\": ["
		" { \"name\": \"short\", \"arrivals\": { \"process\": \"poisson\","
		"   \"rate_per_s\": 2 },"
		"   \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 100 },"
		"   \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 20 } },"
		" { \"name\": \"long\", %s,"
		"   \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 3000 },"
		"   \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 600 } } ] },"
		" \"engine\": { \"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\" },"
		" \"fleet\": { \"pools\": [ { \"name\": \"l40s\", \"count\": 1 } ] } }";
	char text[2048], who[256];
	struct fs_scenario *closed, *open, *none;
	struct fs_saturation s_closed, s_open, s_none;
	double rate;

	(void)state;
	snprintf(text, sizeof text, fmt, "\"users\": 60, \"think\": \"20s\"");
	closed = load(text);
	rate = 60 / (alone_s(&closed->fleet.pools[0].llm->perf, 3000, 600) + 20);
	snprintf(who, sizeof who, "\"arrivals\": { \"process\": \"poisson\", "
	         "\"rate_per_s\": %.17g }", rate);
	snprintf(text, sizeof text, fmt, who);
	open = load(text);
	snprintf(text, sizeof text, fmt, "\"users\": 0");
	none = load(text);
	assert_int_equal(fs_capacity_util_saturation(closed, 0, &s_closed), 0);
	assert_int_equal(fs_capacity_util_saturation(open, 0, &s_open), 0);
	assert_int_equal(fs_capacity_util_saturation(none, 0, &s_none), 0);
	print_message("offered %.4f req/s; saturation tokens/s: users %.1f, open %.1f, "
	              "no users %.1f\n", rate, s_closed.output_tokens_per_s,
	              s_open.output_tokens_per_s, s_none.output_tokens_per_s);
	assert_true(s_closed.output_tokens_per_s == s_open.output_tokens_per_s);
	assert_true(s_closed.requests_per_s == s_open.requests_per_s);
	/* the long class dominates the tokens: requests/s fall well below the
	 * short-only mix */
	assert_true(s_closed.requests_per_s < 0.5 * s_none.requests_per_s);
	fs_scenario_free(closed);
	fs_scenario_free(open);
	fs_scenario_free(none);
}

/* The predictive autoscaler on request rate per instance (target 1.5):
 * 120 users log on at 30 min and think 20 s, offering 120 / (R + 20)
 * requests/s, about 5.5.  The floor ceil(offered / 1.5) is forecast one
 * lead time (90 s provisioning + cold start + 15 s) ahead, so that many
 * instances serve in the minute from 30 min; without the forecast the pool
 * still has its one instance then. */
static void test_offered_load_predictive_autoscaler_sees_users(void **state)
{
	static const char *const fmt =
		"{ \"name\": \"users-scale\", \"simulation\": { \"horizon\": \"40m\","
		" \"sample_interval\": \"60s\", \"replications\": 1, \"seed\": 4 },"
		" \"workload\": { \"classes\": [ { \"name\": \"chat\","
		"   \"users\": { \"steps\": [ { \"at\": 0, \"users\": 0 },"
		"                            { \"at\": \"30m\", \"users\": 120 } ] },"
		"   \"think\": \"20s\","
		"   \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 300 },"
		"   \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 100 } } ] },"
		" \"engine\": { \"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\" },"
		" \"fleet\": { \"pools\": [ { \"name\": \"l40s\", \"count\": 1, \"min\": 1,"
		"   \"max\": 8, \"provisioning\": { \"dist\": \"fixed\", \"mean\": \"90s\" } } ],"
		"   \"autoscale\": { \"pool\": \"l40s\", \"metric\": \"request_rate\","
		"                  \"target\": 1.5, \"predictive\": %s } } }";
	char text[2048];
	struct fs_scenario *pred, *react;
	struct fs_run_opts opts = { 1, 0, 1, 4, false, NULL };
	struct fs_rep_result **rp, **rr;
	double offered, want, at30_p, at30_r;

	(void)state;
	snprintf(text, sizeof text, fmt, "true");
	pred = load(text);
	snprintf(text, sizeof text, fmt, "false");
	react = load(text);
	offered = 120 / (alone_s(&pred->fleet.pools[0].llm->perf, 300, 100) + 20);
	want = ceil(offered / 1.5);
	rp = fs_replicate_run(pred, &opts);
	rr = fs_replicate_run(react, &opts);
	at30_p = fs_tseries_mean(&rp[0]->pool_serving[0], 30);
	at30_r = fs_tseries_mean(&rr[0]->pool_serving[0], 30);
	print_message("offered %.3f req/s, floor %.0f; serving 30-31 min: predictive %.2f, "
	              "reactive %.2f\n", offered, want, at30_p, at30_r);
	assert_true(want >= 3 && want <= 8);
	assert_true(at30_p >= want - 1e-9);
	assert_true(at30_r <= 1 + 1e-9);
	/* before the users come the floor is one instance (nothing offered) */
	assert_true(fs_tseries_mean(&rp[0]->pool_serving[0], 20) <= 1 + 1e-9);
	fs_replicate_free(rp, 1);
	fs_replicate_free(rr, 1);
	fs_scenario_free(pred);
	fs_scenario_free(react);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offered_load_is_users_over_response_plus_think),
		cmocka_unit_test(test_offered_load_weighs_closed_classes_in_the_saturation_mix),
		cmocka_unit_test(test_offered_load_predictive_autoscaler_sees_users),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
