/*
 * test_llm_world.c — the LLM engine driven by the world: every request ends
 * completed, failed or in flight; latencies are ordered (queue <= TTFT <=
 * E2E); a tiny KV cache ends without livelock; overload ends "unstable"
 * rather than hanging; throughput saturates with load; a measured step table
 * drives the step time.  Scenarios are JSON text loaded by the real loader.
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

#include "fleetsim/perf.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "util_test.h"

/* A one-class scenario: Poisson at rate_per_s, lognormal lengths, and the
 * given engine object (JSON text). */
static struct fs_scenario *scenario(double rate_per_s, const char *horizon,
                                    const char *engine_json)
{
	char text[4096];

	snprintf(text, sizeof text,
	         "{\"simulation\": {\"horizon\": \"%s\", \"warmup\": \"1m\", "
	         "\"replications\": 3, \"seed\": 11},\n"
	         " \"workload\": {\"arrivals\": {\"process\": \"poisson\", "
	         "\"rate_per_s\": %g},\n"
	         "  \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
	         "   \"prompt_tokens\": {\"dist\": \"lognormal\", \"median\": 800, "
	         "\"sigma\": 0.8, \"max\": 8000},\n"
	         "   \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 150, "
	         "\"sigma\": 0.8, \"max\": 2000},\n"
	         "   \"slo\": {\"ttft\": \"2s\", \"tpot\": \"100ms\"}}]},\n"
	         " \"engine\": %s}\n", horizon, rate_per_s, engine_json);
	return fs_test_load_text(text, "test.json", "tests/data");
}

static void check_conservation(struct fs_rep_result *const *results, int n_reps)
{
	int r;
	size_t c;

	for (r = 0; r < n_reps; r++) {
		for (c = 0; c <= results[r]->n_classes; c++) {
			const struct fs_class_result *cr = &results[r]->cls[c];

			assert_int_equal(cr->arrived, cr->completed + cr->in_flight + cr->failed);
		}
	}
}

#define L40S_8B "{\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\"}"

static void test_llm_world_requests_end_completed_failed_or_in_flight(void **state)
{
	struct fs_scenario *sc = scenario(3.0, "10m", L40S_8B);
	struct fs_rep_result **results = fs_test_replicate(sc, 2, true);
	const struct fs_rep_result *r0 = results[0];
	size_t i, completed = 0;

	(void)state;
	check_conservation(results, 3);
	assert_true(r0->cls[1].completed > 1000);
	assert_int_equal(r0->cls[1].failed, 0);
	for (i = 0; i < r0->n_rows; i++) {
		const struct fs_request_row *row = &r0->rows[i];

		if (!row->completed)
			continue;
		completed++;
		assert_true(row->arrival_ns <= row->start_ns);
		assert_true(row->start_ns < row->first_token_ns);
		assert_true(row->first_token_ns <= row->end_ns);
		assert_true(row->output_tokens >= 1);
		if (row->output_tokens == 1)
			assert_int_equal(row->first_token_ns, row->end_ns);
	}
	assert_true(completed > 1000);
	fs_replicate_free(results, 3);
	fs_scenario_free(sc);
}

/* 64 blocks of 16 tokens: most prompts cannot fit at all (failed at once),
 * the rest contend for blocks and get preempted — and the run still ends. */
static void test_llm_world_tiny_kv_cache_ends_without_livelock(void **state)
{
	struct fs_scenario *sc = scenario(2.0, "5m",
		"{\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\", "
		"\"kv_blocks\": 65, \"max_preemptions_per_request\": 0}");
	struct fs_rep_result **results = fs_test_replicate(sc, 2, false);
	const struct fs_class_result *all = &results[0]->cls[1];

	(void)state;
	check_conservation(results, 3);
	assert_true(all->failed > 0);
	assert_true(all->completed > 0);
	assert_true(results[0]->engine.preemptions > 0);
	fs_replicate_free(results, 3);
	fs_scenario_free(sc);
}

static void test_llm_world_overload_is_unstable_not_a_hang(void **state)
{
	struct fs_scenario *sc = scenario(200.0, "3m", L40S_8B);
	struct fs_rep_result **results = fs_test_replicate(sc, 2, false);
	struct fs_summary *s = fs_summary_build(sc, results, 3, sc->sim.seed);

	(void)state;
	check_conservation(results, 3);
	assert_int_equal(s->unstable_replications, 3);
	fs_summary_free(s);
	fs_replicate_free(results, 3);
	fs_scenario_free(sc);
}

/* Output tokens/s grows with offered load, then flattens at capacity. */
static void test_llm_world_throughput_saturates_with_load(void **state)
{
	const double rates[] = { 0.5, 2.0, 30.0, 60.0 };
	double tokens_per_s[4];
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		struct fs_scenario *sc = scenario(rates[i], "4m", L40S_8B);
		struct fs_rep_result **results = fs_test_replicate(sc, 2, false);
		struct fs_summary *s = fs_summary_build(sc, results, 3, sc->sim.seed);

		tokens_per_s[i] = s->tokens_per_s.value;
		print_message("rate %.1f/s: %.0f tokens/s, batch %.1f, MFU %.3f, MBU %.3f\n",
		              rates[i], tokens_per_s[i], s->batch_size.value,
		              s->mfu.value, s->mbu.value);
		assert_true(s->mfu.value > 0 && s->mfu.value <= 1.0);
		assert_true(s->mbu.value > 0 && s->mbu.value <= 1.0);
		fs_summary_free(s);
		fs_replicate_free(results, 3);
		fs_scenario_free(sc);
	}
	assert_true(tokens_per_s[1] > 3.0 * tokens_per_s[0]);   /* below capacity: ~linear */
	assert_true(tokens_per_s[2] > tokens_per_s[1]);
	assert_true(tokens_per_s[3] < 1.25 * tokens_per_s[2]);  /* at capacity: flat */
}

/* MODEL: S8 — the time series' capacity (the denominator of its MFU and
 * MBU columns) is the pool's busy time at its peaks: summed over the bins it
 * is the pool's whole busy time × peak FLOP/s (and × peak bytes/s), and no
 * bin's modelled work exceeds it. */
static void test_llm_world_bin_capacity_is_busy_time_at_peak(void **state)
{
	struct fs_scenario *sc = scenario(4.0, "5m", L40S_8B);
	struct fs_rep_result **results = fs_test_replicate(sc, 2, false);
	struct fs_perf_peaks peak = fs_perf_instance_peaks(&sc->fleet.pools[0].llm->perf);
	int r;

	(void)state;
	assert_true(peak.flops_per_s > 0 && peak.bytes_per_s > 0);
	for (r = 0; r < 3; r++) {
		const struct fs_rep_result *res = results[r];
		double busy_s = res->fleet.pools[0].busy_ns * 1e-9, cap_f = 0, cap_b = 0;
		size_t b;

		assert_true(busy_s > 1.0);
		for (b = 0; b < res->queue_len.n_bins; b++) {
			cap_f += res->bin_flops_cap[b];
			cap_b += res->bin_bytes_cap[b];
			assert_true(res->bin_flops[b] <= res->bin_flops_cap[b]);
			assert_true(res->bin_bytes[b] <= res->bin_bytes_cap[b]);
		}
		assert_true(fabs(cap_f / (busy_s * peak.flops_per_s) - 1.0) < 1e-12);
		assert_true(fabs(cap_b / (busy_s * peak.bytes_per_s) - 1.0) < 1e-12);
	}
	fs_replicate_free(results, 3);
	fs_scenario_free(sc);
}

/* With a measured step table the TPOT of a lone request is the table's
 * decode time at batch 1 (5-6 ms in step_table_small.csv). */
static void test_llm_world_step_table_sets_step_time(void **state)
{
	struct fs_scenario *sc = scenario(0.05, "30m",
		"{\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\", "
		"\"step_table\": \"step_table_small.csv\"}");
	struct fs_rep_result **results = fs_test_replicate(sc, 2, false);
	struct fs_summary *s = fs_summary_build(sc, results, 3, sc->sim.seed);
	double tpot_ms = s->groups[1].lat_ms[FS_LAT_TPOT][FS_QTY_P50].value;

	(void)state;
	print_message("table-driven TPOT p50 %.3f ms\n", tpot_ms);
	assert_true(tpot_ms >= 5.0 && tpot_ms <= 6.5);
	fs_summary_free(s);
	fs_replicate_free(results, 3);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llm_world_requests_end_completed_failed_or_in_flight),
		cmocka_unit_test(test_llm_world_tiny_kv_cache_ends_without_livelock),
		cmocka_unit_test(test_llm_world_overload_is_unstable_not_a_hang),
		cmocka_unit_test(test_llm_world_throughput_saturates_with_load),
		cmocka_unit_test(test_llm_world_bin_capacity_is_busy_time_at_peak),
		cmocka_unit_test(test_llm_world_step_table_sets_step_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
