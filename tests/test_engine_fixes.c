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
	struct fs_step_shape s = { 0 };

	(void)state;
	s.prefill_tokens = 256;
	s.decode_seqs = 8;
	s.decode_context_tokens = 8 * 576;
	s.n_seqs = 9;
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
	struct fs_step_shape s = { 0 };

	(void)state;
	s.prefill_tokens = 200;
	s.decode_seqs = 1;
	s.decode_context_tokens = 150;
	s.n_seqs = 2;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_table_mixed_step_pays_weights_once),
		cmocka_unit_test(test_engine_table_context_base_is_smallest_context_when_unsound),
		cmocka_unit_test(test_engine_estimate_peak_uses_engine_max_num_seqs),
		cmocka_unit_test(test_engine_default_rule_is_shared),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
