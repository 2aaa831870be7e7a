/*
 * test_engine_fixes.c — engine defects found by an outside check: a mixed
 * step from a measured table pays the weights once (P19), `fleetsim
 * estimate` uses the engine's own max_num_seqs default (V17), same-instant
 * arrivals share the first step, static batching admits by growing KV
 * (V14), the prefill_first scheduler (V20) and simulation.drain (E5).
 * Figures are checked against hand computations written next to them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/llm_engine.h"
#include "fleetsim/perf.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "util_test.h"

/* ---- P19: mixed steps from a table ------------------------------------- */

static struct fs_step_table *load_table(const char *file)
{
	char path[256];
	struct fs_error err;
	struct fs_step_table *t;

	snprintf(path, sizeof path, "tests/data/%s", file);
	t = fs_step_table_load(path, file, &err);
	if (t == NULL)
		fail_msg("%s: %s", err.where, err.msg);
	return t;
}

/* step_table_small.csv: prefill 10 ms at 128 tokens, 30 ms at 512; decode at
 * batch 8: 7 ms at context 128, 11 ms at 1024.  A step with 256 prompt
 * tokens and 8 decodes at context 576:
 *   prefill(264) = 10 + 20 * 136/384          = 17.083333 ms
 *   decode(8, 576) = 9; decode(8, 0) = 7 - 4 * 128/896 = 6.428571 (> 0)
 *   context part = 9 - 6.428571                 =  2.571429 ms
 *   total                                       = 19.654762 ms
 * The old rule paid the weights twice: 16.666667 + 9 - overhead. */
static void test_engine_table_mixed_step_pays_weights_once(void **state)
{
	struct fs_step_table *t = load_table("step_table_small.csv");
	struct fs_step_shape s = { .prefill_tokens = 256, .decode_seqs = 8,
	                            .decode_context_tokens = 8 * 576, .n_seqs = 9 };

	(void)state;
	assert_near((double)fs_step_table_step_ns(t, &s, 1000000),
	            (10.0 + 20.0 * 136.0 / 384.0 + 9.0 - (7.0 - 4.0 * 128.0 / 896.0)) * 1e6,
	            1, 0);
	assert_true(fs_step_table_step_ns(t, &s, 1000000) < 16666667 + 9000000 - 1000000);
	fs_step_table_free(t);
}

/* step_table_ctx_base.csv: decode 1 ms at context 100, 3 ms at 200; extended to
 * context 0 it would be -1 ms, so the base is context 100.  One decode at
 * context 150 with 200 prompt tokens:
 *   prefill(201) = 8 + 4 * 101/200 = 10.02 ms; context part = 2 - 1 = 1 ms. */
static void test_engine_table_context_base_is_smallest_context_when_unsound(void **state)
{
	struct fs_step_table *t = load_table("step_table_ctx_base.csv");
	struct fs_step_shape s = { .prefill_tokens = 200, .decode_seqs = 1,
	                            .decode_context_tokens = 150, .n_seqs = 2 };

	(void)state;
	assert_near((double)fs_step_table_step_ns(t, &s, 0), 11.02e6, 1, 0);
	/* context below the table: no negative context part; the step is the
	 * prefill(201) alone, floored at its larger part */
	s.decode_context_tokens = 75;
	assert_near((double)fs_step_table_step_ns(t, &s, 0), 10.02e6, 1, 0);
	fs_step_table_free(t);
}

/* ---- V17: one max_num_seqs default for run and estimate ---------------- */

static double estimate_peak_batch(const char *gpu)
{
	const char *args[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", gpu,
	                       "--context", "128", "--json", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	cJSON *j, *v;
	double out;

	assert_int_equal(r.exit_code, 0);
	j = cJSON_Parse(r.out);
	assert_non_null(j);
	v = cJSON_GetObjectItemCaseSensitive(j, "peak_decode_batch");
	assert_true(cJSON_IsNumber(v));
	out = v->valuedouble;
	cJSON_Delete(j);
	fs_test_run_free(&r);
	return out;
}

static void test_engine_estimate_peak_uses_engine_max_num_seqs(void **state)
{
	const char *help[] = { "estimate", "--help", NULL };
	struct fs_test_run r;

	(void)state;
	/* at context 128 an 8B model's KV fits far more than 1024 sequences on
	 * both GPUs, so the cap is the default rule: 1024 on H100, 256 on A100 */
	assert_near(estimate_peak_batch("h100"), 1024, 0, 0);
	assert_near(estimate_peak_batch("a100-80g"), 256, 0, 0);
	r = fs_test_run_fleetsim(help);
	assert_int_equal(r.exit_code, 0);
	assert_null(strstr(r.out, "capped at 256 sequences"));
	assert_non_null(strstr(r.out, "1024"));
	fs_test_run_free(&r);
}

static void test_engine_default_rule_is_shared(void **state)
{
	struct fs_gpu_spec big = { 0 }, a100 = { 0 }, small = { 0 };

	(void)state;
	big.id = "H100-SXM";
	big.mem_bytes = 80e9;
	a100.id = "a100-80g";
	a100.mem_bytes = 80e9;
	small.id = "l4";
	small.mem_bytes = 24e9;
	assert_int_equal(fs_llm_default_max_num_batched_tokens(&big), 8192);
	assert_int_equal(fs_llm_default_max_num_seqs(&big, 8192), 1024);
	assert_int_equal(fs_llm_default_max_num_seqs(&big, 512), 512);
	assert_int_equal(fs_llm_default_max_num_batched_tokens(&a100), 2048);
	assert_int_equal(fs_llm_default_max_num_seqs(&a100, 2048), 256);
	assert_int_equal(fs_llm_default_max_num_seqs(&small, 2048), 256);
}

/* ---- V21: same-instant arrivals share the first step ------------------ */

/* A scenario (tests/data as its directory) with one class replaying a vidur
 * trace once, and the given extra simulation keys and engine object. */
static struct fs_scenario *trace_scenario(const char *trace, const char *sim_extra,
                                          const char *engine_json)
{
	char text[4096];

	snprintf(text, sizeof text,
	         "{\"simulation\": {\"horizon\": \"10m\", \"replications\": 1, "
	         "\"seed\": 3%s},\n"
	         " \"workload\": {\"classes\": [{\"name\": \"c\",\n"
	         "   \"arrivals\": {\"process\": \"trace\", \"trace\": {\"path\": "
	         "\"traces/%s\", \"format\": \"vidur\", \"loop\": false}},\n"
	         "   \"slo\": {\"ttft\": \"2s\", \"tpot\": \"100ms\"}}]},\n"
	         " \"engine\": %s}\n", sim_extra, trace, engine_json);
	return fs_test_load_text(text, "test.json", "tests/data");
}

#define TABLE_ENGINE(extra) "{\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", " \
	"\"gpu\": \"l40s\", \"step_table\": \"step_table_small.csv\"" extra "}"

/* Eight requests (100-token prompts, 10 outputs) arrive at one instant on an
 * idle replica.  All join the first step: 800 prefill tokens, priced from
 * step_table_small.csv by extending its last segment: 30 + 20 * 288/384 =
 * 45 ms, so every TTFT is 45 ms.  (Before, the first request ran alone for
 * 8.54 ms and the other seven waited for it.) */
static void test_engine_same_instant_arrivals_share_first_step(void **state)
{
	struct fs_scenario *sc = trace_scenario("same_instant.csv", "", TABLE_ENGINE(""));
	struct fs_rep_result **res = fs_test_replicate(sc, 1, true);
	const struct fs_rep_result *r = res[0];
	size_t i;

	(void)state;
	assert_int_equal(r->n_rows, 8);
	for (i = 0; i < r->n_rows; i++) {
		assert_int_equal(r->rows[i].arrival_ns, r->rows[0].arrival_ns);
		assert_int_equal(r->rows[i].start_ns, r->rows[0].arrival_ns);
		assert_int_equal(r->rows[i].first_token_ns, r->rows[0].arrival_ns + 45000000);
		assert_true(r->rows[i].completed);
	}
	fs_replicate_free(res, 1);
	fs_scenario_free(sc);
}

/* ---- V20: prefill_first against chunked ------------------------------- */

/* 1 ms per step + 0.01 ms per token through the model. */
static fs_ns synth_cost(void *ctx, const struct fs_step_shape *sh)
{
	(void)ctx;
	return FS_NS_PER_MS + 10 * FS_NS_PER_US * (sh->prefill_tokens + sh->decode_seqs);
}

/* Token times of slots 0 (A: prompt 100, 3 outputs, arrives at 0) and 1
 * (B: prompt 200, 2 outputs, arrives at 0.5 ms, during A's first step). */
static void two_requests(enum fs_llm_scheduler sched, fs_ns tok[2][3])
{
	struct fs_llm_engine_cfg c;
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	struct fs_error err;
	fs_ns now_ns = 0, dur_ns;
	int n_tok[2] = { 0, 0 };
	bool b_added = false;

	fs_llm_engine_cfg_default(&c);
	c.kv_blocks = 1000;
	c.max_num_seqs = 16;
	c.max_model_len = 4096;
	c.scheduler = sched;
	e = fs_llm_engine_alloc(&c, synth_cost, NULL, &err);
	assert_non_null(e);
	assert_int_equal(fs_llm_engine_add(e, 0, 100, 3, 0, 0), FS_LLM_ACCEPTED);
	while ((dur_ns = fs_llm_engine_begin_step(e, now_ns)) > 0) {
		if (!b_added) {
			assert_int_equal(fs_llm_engine_add(e, 1, 200, 2, 0, 1), FS_LLM_ACCEPTED);
			b_added = true;
		}
		now_ns += dur_ns;
		fs_llm_engine_end_step(e, now_ns, &r);
		for (size_t i = 0; i < r.n_first_token; i++)
			tok[r.first_token[i]][n_tok[r.first_token[i]]++] = now_ns;
		for (size_t i = 0; i < r.n_itl_gaps; i++)
			tok[r.itl_gaps[i].slot][n_tok[r.itl_gaps[i].slot]++] = now_ns;
		if (r.itl_regular_seqs > 0)     /* both or the one decoding */
			for (uint32_t sl = 0; sl < 2; sl++)
				if (n_tok[sl] > 0 && n_tok[sl] < (sl == 0 ? 3 : 2) &&
				    tok[sl][n_tok[sl] - 1] == r.begin_ns)
					tok[sl][n_tok[sl]++] = now_ns;
	}
	assert_int_equal(n_tok[0], 3);
	assert_int_equal(n_tok[1], 2);
	fs_llm_engine_free(e);
}

/* Hand computation (step = 1 ms + 0.01 ms per token):
 * chunked: [A prefill 100] 2.00 ms -> A1 at 2.00; [A decode + B prefill 200]
 *   1 + 2.01 = 3.01 -> A2, B1 at 5.01; [A, B decode] 1.02 -> A3, B2 at 6.03.
 *   B's TTFT 4.51 ms; A's ITLs 3.01, 1.02.
 * prefill_first: [A prefill] 2.00 -> A1 at 2.00; [B prefill only] 3.00 -> B1
 *   at 5.00 (A paused); [A, B decode] 1.02 -> A2, B2 at 6.02; [A decode]
 *   1.01 -> A3 at 7.03.  B's TTFT 4.50 ms; A's ITLs 4.02, 1.01. */
static void test_engine_prefill_first_pauses_decodes_chunked_mixes(void **state)
{
	fs_ns ch[2][3] = { { 0 } }, pf[2][3] = { { 0 } };
	const fs_ns ms = FS_NS_PER_MS, us = FS_NS_PER_US;

	(void)state;
	two_requests(FS_LLM_SCHED_CHUNKED, ch);
	two_requests(FS_LLM_SCHED_PREFILL_FIRST, pf);
	assert_int_equal(ch[0][0], 2 * ms);
	assert_int_equal(ch[0][1], 5 * ms + 10 * us);
	assert_int_equal(ch[1][0], 5 * ms + 10 * us);
	assert_int_equal(ch[0][2], 6 * ms + 30 * us);
	assert_int_equal(ch[1][1], 6 * ms + 30 * us);
	assert_int_equal(pf[0][0], 2 * ms);
	assert_int_equal(pf[1][0], 5 * ms);
	assert_int_equal(pf[0][1], 6 * ms + 20 * us);
	assert_int_equal(pf[1][1], 6 * ms + 20 * us);
	assert_int_equal(pf[0][2], 7 * ms + 30 * us);
	/* B's TTFT (arrival 0.5 ms) and A's first ITL */
	assert_int_equal(ch[1][0] - 500 * us, 4510 * us);
	assert_int_equal(pf[1][0] - 500 * us, 4500 * us);
	assert_int_equal(ch[0][1] - ch[0][0], 3010 * us);
	assert_int_equal(pf[0][1] - pf[0][0], 4020 * us);
}

static void test_engine_prefill_first_scenario_key(void **state)
{
	struct fs_scenario *sc = trace_scenario("same_instant.csv", "",
		TABLE_ENGINE(", \"scheduler\": \"prefill_first\""));
	char text[2048];
	struct fs_error err;

	(void)state;
	assert_int_equal(sc->fleet.pools[0].llm->sched.scheduler, FS_LLM_SCHED_PREFILL_FIRST);
	assert_false(sc->fleet.pools[0].llm->sched.enable_chunked_prefill);
	fs_scenario_free(sc);
	snprintf(text, sizeof text, "{\"simulation\": {\"horizon\": \"1m\"}, "
	         "\"workload\": {\"arrivals\": {\"process\": \"poisson\", "
	         "\"rate_per_s\": 1}, \"classes\": [{\"name\": \"c\", \"share\": 1, "
	         "\"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}, "
	         "\"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}]}, "
	         "\"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	         "\"gpu\": \"l40s\", \"scheduler\": \"prefill_first\", "
	         "\"chunked_prefill\": true}}");
	assert_null(fs_scenario_load_text(text, strlen(text), "x.json", ".", &err));
	if (strcmp(err.path, "engine.chunked_prefill") != 0)
		fail_msg("%s: %s", err.where, err.msg);
}

/* ---- V14: static batches admitted by growing KV ------------------------ */

/* 16-token blocks, 12 usable.  R1: prompt 32, 161 outputs (peak at age 160:
 * 192 tokens = 12 blocks); R2-R4: prompt 32, one output (2 blocks each,
 * done in the prefill step).  Whole-life reservation needs 12 + 3 * 2 = 18
 * blocks, so R1 ran alone; with KV growing per step the batch holds 8 blocks
 * at age 0 and 12 at age 160, so all four run as one batch.  R5 (like R1)
 * would need 24 blocks at age 160: it waits for the next batch. */
static void test_engine_static_batch_admitted_by_growing_kv(void **state)
{
	struct fs_llm_engine_cfg c;
	struct fs_llm_engine *e;
	struct fs_llm_report r;
	struct fs_error err;
	fs_ns now_ns = 0, dur_ns;
	uint32_t k;
	int steps = 0;

	(void)state;
	fs_llm_engine_cfg_default(&c);
	c.kv_blocks = 12;
	c.max_num_seqs = 16;
	c.max_model_len = 4096;
	c.batching = FS_LLM_BATCHING_STATIC;
	e = fs_llm_engine_alloc(&c, synth_cost, NULL, &err);
	assert_non_null(e);
	assert_int_equal(fs_llm_engine_add(e, 0, 32, 161, 0, 0), FS_LLM_ACCEPTED);
	for (k = 1; k < 4; k++)
		assert_int_equal(fs_llm_engine_add(e, k, 32, 1, 0, k), FS_LLM_ACCEPTED);
	assert_int_equal(fs_llm_engine_add(e, 4, 32, 161, 0, 4), FS_LLM_ACCEPTED);
	dur_ns = fs_llm_engine_begin_step(e, now_ns);
	assert_true(dur_ns > 0);
	assert_int_equal(fs_llm_engine_running(e), 4);
	assert_int_equal(fs_llm_engine_waiting(e), 1);
	assert_int_equal(fs_llm_engine_kv_used(e), 8);
	do {
		now_ns += dur_ns;
		fs_llm_engine_end_step(e, now_ns, &r);
		steps++;
	} while ((dur_ns = fs_llm_engine_begin_step(e, now_ns)) > 0);
	/* batch 1: 1 prefill step + 160 decode steps; batch 2 (R5) the same */
	assert_int_equal(steps, 2 * 161);
	assert_int_equal(fs_llm_engine_stats(e)->completed, 5);
	assert_int_equal(fs_llm_engine_stats(e)->preemptions, 0);
	assert_int_equal(fs_llm_engine_stats(e)->peak_kv_used_blocks, 12);
	fs_llm_engine_free(e);
}

/* ---- E5: simulation.drain ---------------------------------------------- */

static struct fs_rep_result **drain_run(bool drain, struct fs_scenario **sc_out)
{
	char text[2048];
	struct fs_error err;
	struct fs_scenario *sc;

	snprintf(text, sizeof text, "{\"simulation\": {\"horizon\": \"1m\", "
	         "\"replications\": 1, \"seed\": 5%s}, "
	         "\"workload\": {\"arrivals\": {\"process\": \"poisson\", "
	         "\"rate_per_s\": 1}, \"classes\": [{\"name\": \"c\", \"share\": 1, "
	         "\"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 500}, "
	         "\"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1000}}]}, "
	         "\"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	         "\"gpu\": \"l40s\"}}", drain ? ", \"drain\": true" : "");
	sc = fs_scenario_load_text(text, strlen(text), "x.json", ".", &err);
	if (sc == NULL)
		fs_error_print(&err);
	assert_non_null(sc);
	*sc_out = sc;
	return fs_test_replicate(sc, 1, true);
}

static void test_engine_drain_completes_every_request(void **state)
{
	struct fs_scenario *sc_off, *sc_on;
	struct fs_rep_result **off = drain_run(false, &sc_off);
	struct fs_rep_result **on = drain_run(true, &sc_on);
	const struct fs_class_result *a_off = &off[0]->cls[off[0]->n_classes];
	const struct fs_class_result *a_on = &on[0]->cls[on[0]->n_classes];

	(void)state;
	/* the same arrivals (same seed): 1000-token outputs at ~20 ms a step
	 * cannot all finish by the 60 s horizon without a drain */
	assert_int_equal(a_off->arrived, a_on->arrived);
	assert_true(a_off->arrived > 40);
	assert_true(a_off->in_flight > 0);
	assert_int_equal(a_off->arrived, a_off->completed + a_off->in_flight + a_off->failed);
	assert_int_equal(off[0]->end_ns, 60 * FS_NS_PER_S);
	assert_int_equal(a_on->in_flight, 0);
	assert_int_equal(a_on->failed, 0);
	assert_int_equal(a_on->completed, a_on->arrived);
	assert_true(on[0]->end_ns > 60 * FS_NS_PER_S);
	assert_true(on[0]->end_ns < 120 * FS_NS_PER_S);
	/* every completion is the end of some request's row, the last one the drain's end */
	{
		fs_ns last_ns = 0;

		for (size_t i = 0; i < on[0]->n_rows; i++)
			if (on[0]->rows[i].end_ns > last_ns)
				last_ns = on[0]->rows[i].end_ns;
		assert_int_equal(last_ns, on[0]->end_ns);
	}
	fs_replicate_free(off, 1);
	fs_replicate_free(on, 1);
	fs_scenario_free(sc_off);
	fs_scenario_free(sc_on);
}

/* Throughput and output tokens/s keep the measured window [warm-up,
 * horizon) (MODEL E5, S6): the requests completed in it per second of it.
 * A drain changes nothing before the horizon, so the run with it reports
 * the same rates as the run without it, the completions before the horizon
 * counted by hand from the rows.  They were every completion, the drain's
 * included, over the window: 0.85 req/s here (51 requests in 60 s), where
 * the replica had completed 26, 0.43 req/s, by the horizon. */
static void test_engine_drain_keeps_throughput_in_the_measured_window(void **state)
{
	struct fs_scenario *sc_off, *sc_on;
	struct fs_rep_result **off = drain_run(false, &sc_off);
	struct fs_rep_result **on = drain_run(true, &sc_on);
	struct fs_summary *s_off = fs_summary_build(sc_off, off, 1, sc_off->sim.seed);
	struct fs_summary *s_on = fs_summary_build(sc_on, on, 1, sc_on->sim.seed);
	const struct fs_group_summary *g_off = &s_off->groups[s_off->n_classes];
	const struct fs_group_summary *g_on = &s_on->groups[s_on->n_classes];
	double window_s = (double)(sc_on->sim.horizon_ns - sc_on->sim.warmup_ns) / 1e9;
	double n = 0, tokens = 0;

	(void)state;
	for (size_t i = 0; i < on[0]->n_rows; i++) {
		const struct fs_request_row *row = &on[0]->rows[i];

		if (row->completed && row->end_ns >= sc_on->sim.warmup_ns &&
		    row->end_ns < sc_on->sim.horizon_ns) {
			n++;
			tokens += (double)row->output_tokens;
		}
	}
	printf("by the horizon %.0f of %.0f completed; throughput %.4f req/s without a drain, "
	       "%.4f with it (by hand %.4f)\n", n, g_on->completed.value,
	       g_off->throughput_rps.value, g_on->throughput_rps.value, n / window_s);
	assert_true(g_on->completed.value > n);          /* the drain completed more */
	assert_near(g_on->throughput_rps.value, n / window_s, 1e-12, 1e-12);
	assert_near(g_on->output_tokens_per_s.value, tokens / window_s, 1e-12, 1e-12);
	assert_near(g_off->throughput_rps.value, g_on->throughput_rps.value, 1e-12, 1e-12);
	assert_near(g_off->output_tokens_per_s.value, g_on->output_tokens_per_s.value,
	            1e-12, 1e-12);
	fs_summary_free(s_off);
	fs_summary_free(s_on);
	fs_replicate_free(off, 1);
	fs_replicate_free(on, 1);
	fs_scenario_free(sc_off);
	fs_scenario_free(sc_on);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_table_mixed_step_pays_weights_once),
		cmocka_unit_test(test_engine_table_context_base_is_smallest_context_when_unsound),
		cmocka_unit_test(test_engine_estimate_peak_uses_engine_max_num_seqs),
		cmocka_unit_test(test_engine_default_rule_is_shared),
		cmocka_unit_test(test_engine_same_instant_arrivals_share_first_step),
		cmocka_unit_test(test_engine_prefill_first_pauses_decodes_chunked_mixes),
		cmocka_unit_test(test_engine_prefill_first_scenario_key),
		cmocka_unit_test(test_engine_static_batch_admitted_by_growing_kv),
		cmocka_unit_test(test_engine_drain_completes_every_request),
		cmocka_unit_test(test_engine_drain_keeps_throughput_in_the_measured_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
