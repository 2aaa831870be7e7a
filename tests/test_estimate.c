/*
 * test_estimate.c — `fleetsim estimate` end to end: the JSON keys and the
 * values pinned by the brief (Llama-2-7B KV bytes and weights), the
 * does-not-fit and unknown-name errors (exit 2), an unknown last option
 * called unknown, TP, pinned blocks and a measured step table, a --catalog
 * file's GPUs and models, no int4 KV cache, a context and a prompt within
 * the model's context.  Runs ./fleetsim.
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

#include "fleetsim/scenario.h"
#include "util_test.h"

static void test_estimate_llama2_7b_a100_json_has_the_pinned_values(void **state)
{
	const char *args[] = { "estimate", "--model", "llama-2-7b", "--gpu", "a100-80g",
	                       "--json", NULL };
	static const char *const keys[] = {
		"weights_bytes", "kv_bytes_per_token", "kv_blocks", "max_seqs_at_context",
		"prefill_ms", "decode_step_ms", "peak_decode_tokens_per_s",
		"activation_bytes_per_gpu", "usable_bytes_per_gpu",
	};
	cJSON *j;

	(void)state;
	j = fs_test_fleetsim_json(args, 0);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		assert_true(fs_test_json_num(j, keys[i]) > 0);
	assert_near(fs_test_json_num(j, "kv_bytes_per_token"), 524288, 0, 0);
	assert_near(fs_test_json_num(j, "weights_bytes"), 13.48e9, 0, 0.01);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "fits")));
	assert_near(fs_test_json_num(j, "max_seqs_at_context"),
	            (double)((int64_t)fs_test_json_num(j, "kv_blocks") / 128), 0, 0);
	cJSON_Delete(j);
}

/* MODEL: B7, B8 — every plan's fee for the instance (tp 2: two GPUs), and
 * the break-even of each commitment against on demand: a monthly fee of
 * 2 x 613.20 against 2 x 1.40/h pays off above 438 h per month. */
/* estimate plans memory with the engine's own scheduler defaults (MODEL
 * V17, P6): the activation reserve and the KV blocks it prints are those a
 * scenario on the same model and GPU loads with, on a big GPU (token
 * budget 8192, 1024 sequences) as on the others (2048, 256).  It used the
 * small-GPU budget on an H100 (0.90 GB of activations against 2.04 GB,
 * 26,243 blocks against 25,703). */
static void test_estimate_memory_matches_a_scenarios(void **state)
{
	static const char *const gpus[] = { "h100", "h200", "l40s", "a100-80g" };

	(void)state;
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
		const char *args[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", gpus[i],
		                       "--json", NULL };
		char text[1024];
		struct fs_scenario *sc;
		const struct fs_mem_plan *m;
		cJSON *j = fs_test_fleetsim_json(args, 0);

		snprintf(text, sizeof text,
		         "{\"simulation\": {\"horizon\": \"1m\"},"
		         " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1},"
		         " \"classes\": [{\"name\": \"c\", \"share\": 1,"
		         " \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 100},"
		         " \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}]},"
		         " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
		         "\"gpu\": \"%s\"}}", gpus[i]);
		sc = fs_test_load_text(text, "t.json", "tests/data");
		m = &sc->fleet.pools[0].llm->mem;
		print_message("%s: activations %.0f / %.0f, blocks %.0f / %lld\n", gpus[i],
		              fs_test_json_num(j, "activation_bytes_per_gpu"),
		              m->activation_bytes_per_gpu, fs_test_json_num(j, "kv_blocks"),
		              (long long)m->kv_blocks);
		assert_true(fs_test_json_num(j, "activation_bytes_per_gpu") ==
		            m->activation_bytes_per_gpu);
		assert_true(fs_test_json_num(j, "kv_blocks") == (double)m->kv_blocks);
		fs_scenario_free(sc);
		cJSON_Delete(j);
	}
}

static void test_estimate_plans_and_break_even(void **state)
{
	const char *args[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "l40s",
	                       "--tp", "2", "--json", NULL };
	const cJSON *plans, *plan;
	cJSON *j;
	int seen = 0;

	(void)state;
	j = fs_test_fleetsim_json(args, 0);
	plans = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "prices"),
	                                         "plans");
	assert_int_equal(cJSON_GetArraySize(plans), 6);
	cJSON_ArrayForEach(plan, plans) {
		const char *name = cJSON_GetObjectItemCaseSensitive(plan, "plan")->valuestring;

		if (strcmp(name, "on_demand") == 0) {
			assert_near(fs_test_json_num(plan, "fee_per_period"), 2.80, 1e-9, 0);
			assert_null(cJSON_GetObjectItemCaseSensitive(plan, "break_even_hours_per_month"));
			seen++;
		} else if (strcmp(name, "monthly") == 0) {
			assert_near(fs_test_json_num(plan, "fee_per_period"), 2 * 613.2, 1e-6, 0);
			assert_near(fs_test_json_num(plan, "break_even_hours_per_month"), 438, 1e-6, 0);
			assert_near(fs_test_json_num(plan, "break_even_share"), 0.6, 1e-9, 0);
			seen++;
		} else if (strcmp(name, "daily") == 0) {
			assert_near(fs_test_json_num(plan, "fee_per_period"), 2 * 1.40 * 24 * 0.85, 1e-6, 0);
			assert_near(fs_test_json_num(plan, "break_even_hours_per_month"), 730 * 0.85, 1e-6, 0);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	cJSON_Delete(j);
}

/* The plans' heading names the prices' date, and only when there is one: a
 * GPU without catalogue prices says so per plan, with no empty date. */
static void test_estimate_plans_heading_dates_only_priced_gpus(void **state)
{
	const char *priced[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "l40s", NULL };
	const char *unpriced[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "mi300x",
	                           NULL };
	struct fs_test_run r = fs_test_fleetsim_expect(priced, 0);

	(void)state;
	assert_has(r.out, "(1 x l40s; catalogue examples, USD, 2026-03)\n");
	fs_test_run_free(&r);
	r = fs_test_fleetsim_expect(unpriced, 0);
	assert_has(r.out, "(1 x mi300x; catalogue examples, USD)\n",
	           "hourly (on demand)   no catalogue price");
	assert_null(strstr(r.out, ", )"));
	fs_test_run_free(&r);
}

static void test_estimate_70b_on_rtx4090_does_not_fit(void **state)
{
	const char *args[] = { "estimate", "--model", "llama-3.1-70b", "--gpu", "rtx4090",
	                       NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);

	(void)state;
	assert_int_equal(r.exit_code, 2);
	/* 0.9 x 23.64 GiB (the RTX 4090's total_memory) = 22.85e9 B usable */
	assert_has(r.err, "does not fit", "141.2 GB", "GB needed", "22.8 GB are usable");
	fs_test_run_free(&r);
}

static void test_estimate_70b_json_does_not_fit_prints_fits_false(void **state)
{
	const char *args[] = { "estimate", "--model", "llama-3.1-70b", "--gpu", "rtx4090",
	                       "--json", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	cJSON *j;

	(void)state;
	assert_int_equal(r.exit_code, 2);
	j = cJSON_Parse(r.out);
	assert_non_null(j);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "fits")));
	assert_true(fs_test_json_num(j, "needed_bytes_per_gpu") > fs_test_json_num(j, "usable_bytes_per_gpu"));
	cJSON_Delete(j);
	fs_test_run_free(&r);
}

static void test_estimate_70b_on_four_a100_fits(void **state)
{
	const char *args[] = { "estimate", "--model", "llama-3.1-70b", "--gpu", "a100-80g",
	                       "--tp", "4", "--json", NULL };
	cJSON *j;

	(void)state;
	j = fs_test_fleetsim_json(args, 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "fits")));
	assert_near(fs_test_json_num(j, "weights_bytes_per_gpu"), 35.3e9, 0, 0.01);
	assert_true(fs_test_json_num(j, "kv_blocks") > 1000);
	cJSON_Delete(j);
}

static void test_estimate_unknown_gpu_suggests_a_name(void **state)
{
	const char *args[] = { "estimate", "--model", "llama-2-7b", "--gpu", "a100-8g", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);

	(void)state;
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "fleetsim estimate: unknown GPU \"a100-8g\"; "
	                       "did you mean \"a100-80g\"?"));
	fs_test_run_free(&r);
}

static void test_estimate_bad_options_exit_2(void **state)
{
	const char *no_gpu[] = { "estimate", "--model", "llama-2-7b", NULL };
	const char *bad_tp[] = { "estimate", "--model", "llama-2-7b", "--gpu", "h100",
	                         "--tp", "3", NULL };
	const char *bad_dtype[] = { "estimate", "--model", "llama-2-7b", "--gpu", "h100",
	                            "--kv-dtype", "fp12", NULL };
	const char *bad_util[] = { "estimate", "--model", "llama-2-7b", "--gpu", "h100",
	                           "--gpu-mem-util", "1.5", NULL };
	const char *const *cases[] = { no_gpu, bad_tp, bad_dtype, bad_util };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct fs_test_run r = fs_test_run_fleetsim(cases[i]);

		assert_int_equal(r.exit_code, 2);
		assert_non_null(strstr(r.err, "fleetsim estimate"));
		fs_test_run_free(&r);
	}
}

/* An unknown option is unknown wherever it stands, the last argument
 * included (it is not "missing its value"), with and without --train; a
 * known option at the end does need a value. */
static void test_estimate_unknown_last_option_is_unknown(void **state)
{
	const char *a0[] = { "estimate", "--model", "llama-2-7b", "--gpu", "h100", "--bogus",
	                     NULL };
	const char *a1[] = { "estimate", "--train", "full", "--model", "llama-2-7b", "--gpu",
	                     "h100", "--bogus", NULL };
	const char *a2[] = { "estimate", "--model", "llama-2-7b", "--gpu", "h100", "--tp",
	                     NULL };
	const char *a3[] = { "estimate", "--train", "full", "--model", "llama-2-7b", "--gpu",
	                     "h100", "--seq", NULL };
	const char *const *cases[] = { a0, a1, a2, a3 };
	const char *const want[] = {
		"fleetsim estimate: unknown option \"--bogus\"\n",
		"fleetsim estimate: unknown option \"--bogus\" with --train\n",
		"fleetsim estimate: option \"--tp\" needs a value\n",
		"fleetsim estimate: option \"--seq\" needs a value\n",
	};

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct fs_test_run r = fs_test_fleetsim_expect(cases[i], 2);

		assert_non_null(strstr(r.err, want[i]));
		fs_test_run_free(&r);
	}
}

/* Every option takes its value after '=' as well as as the next word, as
 * the getopt-based commands do (fleetsim run --output=DIR): the same
 * output both ways, with and without --train; a flag given a value and a
 * prefix stay unknown, a name with '=' and nothing after is an empty
 * value. */
static void test_estimate_takes_option_equals_value(void **state)
{
	const char *s0[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "l40s", "--tp", "2",
	                     "--kv-dtype", "fp8", "--json", NULL };
	const char *j0[] = { "estimate", "--model=llama-3.1-8b", "--gpu=l40s", "--tp=2",
	                     "--kv-dtype=fp8", "--json", NULL };
	const char *s1[] = { "estimate", "--train", "lora", "--model", "llama-3.1-8b", "--gpu",
	                     "l40s", "--seq", "1024", "--lora-rank", "8", "--json", NULL };
	const char *j1[] = { "estimate", "--train=lora", "--model=llama-3.1-8b", "--gpu=l40s",
	                     "--seq=1024", "--lora-rank=8", "--json", NULL };
	const char *const *spaced[] = { s0, s1 }, *const *joined[] = { j0, j1 };
	const char *b0[] = { "estimate", "--model=llama-3.1-8b", "--gpu=l40s", "--json=1", NULL };
	const char *b1[] = { "estimate", "--model=llama-3.1-8b", "--gpu=l40s", "--kv=fp8", NULL };
	const char *b2[] = { "estimate", "--model=llama-3.1-8b", "--gpu=l40s", "--tp=", NULL };
	const char *const *bad[] = { b0, b1, b2 };
	const char *const want[] = {
		"fleetsim estimate: unknown option \"--json=1\"\n",
		"fleetsim estimate: unknown option \"--kv=fp8\"\n",
		"fleetsim estimate: --tp: expected an integer from 1 to 64, found \"\"\n",
	};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct fs_test_run a = fs_test_fleetsim_expect(spaced[i], 0);
		struct fs_test_run b = fs_test_fleetsim_expect(joined[i], 0);

		assert_string_equal(a.out, b.out);
		fs_test_run_free(&a);
		fs_test_run_free(&b);
	}
	for (size_t i = 0; i < 3; i++) {
		struct fs_test_run r = fs_test_fleetsim_expect(bad[i], 2);

		if (strstr(r.err, want[i]) == NULL)
			fail_msg("stderr lacks %s: %s", want[i], r.err);
		fs_test_run_free(&r);
	}
}

static void test_estimate_pinned_blocks_and_step_table(void **state)
{
	const char *args[] = { "estimate", "--model", "llama-2-7b", "--gpu", "a100-80g",
	                       "--kv-blocks", "100", "--step-table",
	                       "tests/data/step_table_small.csv", "--prompt", "512",
	                       "--json", NULL };
	cJSON *j;

	(void)state;
	j = fs_test_fleetsim_json(args, 0);
	assert_near(fs_test_json_num(j, "kv_blocks"), 100, 0, 0);
	assert_near(fs_test_json_num(j, "prefill_ms"), 30, 1e-6, 0);
	cJSON_Delete(j);
}

static void test_estimate_text_output_shows_the_breakdown(void **state)
{
	const char *args[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "l4", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);

	(void)state;
	assert_int_equal(r.exit_code, 0);
	assert_has(r.out, "weights", "KV pool", "peak decode", "fits: yes");
	fs_test_run_free(&r);
}

static void test_estimate_catalog_file_gpu_is_used(void **state)
{
	const char *args[] = { "estimate", "--catalog", "tests/data/catalog_custom.json",
	                       "--gpu", "my-gpu", "--model", "llama-2-7b", "--json", NULL };
	cJSON *j;

	(void)state;
	j = fs_test_fleetsim_json(args, 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "gpu")->valuestring,
	                    "my-gpu");
	/* 64 GB x 0.90 from the file's "mem_gb": 64 */
	assert_near(fs_test_json_num(j, "mem_bytes_per_gpu"), 64e9, 0, 0);
	assert_near(fs_test_json_num(j, "usable_bytes_per_gpu"), 57.6e9, 0, 1e-12);
	assert_near(fs_test_json_num(j, "weights_bytes"), 13.48e9, 0, 0.01);
	assert_true(fs_test_json_num(j, "kv_blocks") > 0);
	cJSON_Delete(j);
}

static void test_estimate_catalog_file_model_and_built_ins_still_found(void **state)
{
	const char *model[] = { "estimate", "--catalog", "tests/data/catalog_custom.json",
	                        "--gpu", "l40s", "--model", "tiny-1b", "--json", NULL };
	const char *typo[] = { "estimate", "--catalog", "tests/data/catalog_custom.json",
	                       "--gpu", "my-gpo", "--model", "tiny-1b", NULL };
	const char *bad[] = { "estimate", "--catalog", "tests/bad/vllm_tp_zero.json",
	                      "--gpu", "l40s", "--model", "tiny-1b", NULL };
	struct fs_test_run r;
	cJSON *j;

	(void)state;
	j = fs_test_fleetsim_json(model, 0);
	/* 2 x 16 layers x 8 KV heads x 64 dims x 2 bytes */
	assert_near(fs_test_json_num(j, "kv_bytes_per_token"), 32768, 0, 0);
	cJSON_Delete(j);
	r = fs_test_run_fleetsim(typo);
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "did you mean \"my-gpu\"?"));
	fs_test_run_free(&r);
	r = fs_test_run_fleetsim(bad);
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "tests/bad/vllm_tp_zero.json:3:2: name: unknown key "
	                              "\"name\"; expected one of: gpus, models"));
	fs_test_run_free(&r);
}

/* The KV cache has no int4 (vLLM has no 4-bit KV cache): refused in the
 * words the scenario loader uses for engine.kv_dtype (tests/bad/
 * vllm_kv_dtype_int4.json), while int4 weights stay accepted. */
static void test_estimate_kv_dtype_int4_is_refused_as_a_scenario_refuses_it(void **state)
{
	const char *kv[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "l40s",
	                     "--kv-dtype", "int4", NULL };
	const char *weights[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "l40s",
	                          "--weights-dtype", "int4", "--kv-dtype", "FP8", NULL };
	char *bad = fs_test_read_file("tests/bad/vllm_kv_dtype_int4.json", NULL), *nl;
	const char *scenario_msg;
	struct fs_test_run r;

	(void)state;
	assert_non_null(bad);
	nl = strchr(bad, '\n');
	assert_non_null(nl);
	*nl = '\0';
	scenario_msg = strstr(bad, "engine.kv_dtype: ");
	assert_non_null(scenario_msg);
	scenario_msg += strlen("engine.kv_dtype: ");
	r = fs_test_fleetsim_expect(kv, 2);
	assert_string_equal(r.out, "");
	assert_has(r.err, "fleetsim estimate: --kv-dtype: ", scenario_msg);
	fs_test_run_free(&r);
	free(bad);
	fs_test_fleetsim_ok(weights);
}

/* MODEL: V10 — one sequence lives within the model's context: Llama-3.1-8B
 * has 131,072 tokens, so a context above it is refused, and a prompt must
 * leave one output token; both at the limit are accepted.  A model with a
 * shorter context than the defaults gets them cut to it. */
static void test_estimate_context_and_prompt_within_the_model_context(void **state)
{
	const char *ctx[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "h200",
	                      "--context", "200000", NULL };
	const char *prompt[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "h200",
	                         "--prompt", "131072", "--json", NULL };
	const char *at_limit[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "h200",
	                           "--prompt", "131071", "--context", "131072", "--json",
	                           NULL };
	char *dir = fs_test_tmpdir(), *cat;
	const char *short_ctx[] = { "estimate", "--catalog", NULL, "--model", "tiny",
	                            "--gpu", "l4", "--json", NULL };
	struct fs_test_run r;
	cJSON *j;

	(void)state;
	r = fs_test_fleetsim_expect(ctx, 2);
	assert_string_equal(r.out, "");
	assert_has(r.err, "fleetsim estimate: --context: expected at most 131072 tokens (the "
	           "context of llama-3.1-8b), found 200000\n");
	fs_test_run_free(&r);
	r = fs_test_fleetsim_expect(prompt, 2);
	assert_string_equal(r.out, "");
	assert_has(r.err, "fleetsim estimate: --prompt: expected at most 131071 tokens (a "
	           "prompt and one output token within the 131072-token context of "
	           "llama-3.1-8b), found 131072\n");
	fs_test_run_free(&r);
	j = fs_test_fleetsim_json(at_limit, 0);
	assert_near(fs_test_json_num(j, "context_tokens"), 131072, 0, 0);
	assert_near(fs_test_json_num(j, "prompt_tokens"), 131071, 0, 0);
	cJSON_Delete(j);
	cat = fs_test_write(dir, "cat.json", "{\"models\": [{\"id\": \"tiny\", \"layers\": 2, "
	                    "\"hidden\": 256, \"heads\": 4, \"kv_heads\": 4, \"ffn\": 512, "
	                    "\"vocab\": 1000, \"params_b\": 0.002, \"max_context\": 300}]}");
	short_ctx[2] = cat;
	j = fs_test_fleetsim_json(short_ctx, 0);
	assert_near(fs_test_json_num(j, "context_tokens"), 300, 0, 0);
	assert_near(fs_test_json_num(j, "prompt_tokens"), 299, 0, 0);
	cJSON_Delete(j);
	free(cat);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate_llama2_7b_a100_json_has_the_pinned_values),
		cmocka_unit_test(test_estimate_plans_heading_dates_only_priced_gpus),
		cmocka_unit_test(test_estimate_70b_on_rtx4090_does_not_fit),
		cmocka_unit_test(test_estimate_plans_and_break_even),
		cmocka_unit_test(test_estimate_memory_matches_a_scenarios),
		cmocka_unit_test(test_estimate_70b_json_does_not_fit_prints_fits_false),
		cmocka_unit_test(test_estimate_70b_on_four_a100_fits),
		cmocka_unit_test(test_estimate_unknown_gpu_suggests_a_name),
		cmocka_unit_test(test_estimate_unknown_last_option_is_unknown),
		cmocka_unit_test(test_estimate_takes_option_equals_value),
		cmocka_unit_test(test_estimate_bad_options_exit_2),
		cmocka_unit_test(test_estimate_pinned_blocks_and_step_table),
		cmocka_unit_test(test_estimate_text_output_shows_the_breakdown),
		cmocka_unit_test(test_estimate_catalog_file_gpu_is_used),
		cmocka_unit_test(test_estimate_catalog_file_model_and_built_ins_still_found),
		cmocka_unit_test(test_estimate_kv_dtype_int4_is_refused_as_a_scenario_refuses_it),
		cmocka_unit_test(test_estimate_context_and_prompt_within_the_model_context),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
