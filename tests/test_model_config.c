/*
 * test_model_config.c — models from a Hugging Face config.json: the real
 * Llama-3.1-8B and Mixtral-8x7B configs (tests/data/hf) give the parameter
 * counts computed by hand and the same `fleetsim estimate --json` figures as
 * the catalogue entries; bad configs exit 2 at FILE:LINE:COL with the key.
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

#include "fleetsim/model_config.h"
#include "util_test.h"

static cJSON *estimate_json(const char *const *args)
{
	struct fs_test_run r = fs_test_run_fleetsim(args);
	cJSON *j;

	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	j = cJSON_Parse(r.out);
	assert_non_null(j);
	fs_test_run_free(&r);
	return j;
}

static double num(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	if (!cJSON_IsNumber(v))
		fail_msg("missing number \"%s\"", key);
	return v->valuedouble;
}

/* The config run and the catalogue run of one model agree: KV bytes per
 * token and blocks exactly, weights and step times within the catalogue's
 * rounding of params to three significant digits (< 0.1%). */
static void compare_runs(const char *config, const char *model, const char *gpu,
                         const char *tp)
{
	const char *a[] = { "estimate", "--model-config", config, "--gpu", gpu, "--tp", tp,
	                    "--json", NULL };
	const char *b[] = { "estimate", "--model", model, "--gpu", gpu, "--tp", tp,
	                    "--json", NULL };
	cJSON *x = estimate_json(a), *y = estimate_json(b);

	assert_near(num(x, "kv_bytes_per_token"), num(y, "kv_bytes_per_token"), 0, 0);
	assert_near(num(x, "weights_bytes"), num(y, "weights_bytes"), 0, 1e-3);
	assert_near(num(x, "kv_blocks"), num(y, "kv_blocks"), 0, 1e-3);
	assert_near(num(x, "prefill_ms"), num(y, "prefill_ms"), 0, 1e-3);
	assert_near(num(x, "decode_step_ms"), num(y, "decode_step_ms"), 0, 1e-3);
	cJSON_Delete(x);
	cJSON_Delete(y);
}

static void test_model_config_llama_3_1_8b_matches_the_catalogue(void **state)
{
	struct fs_model_spec m;
	struct fs_error err;

	(void)state;
	assert_int_equal(fs_model_config_load("tests/data/hf/llama-3.1-8b.json", NULL, &m,
	                                      &err), 0);
	assert_int_equal(m.layers, 32);
	assert_int_equal(m.kv_heads, 8);
	assert_int_equal(m.head_dim, 128);      /* 4096 / 32, not given */
	assert_int_equal(m.ffn, 14336);
	assert_int_equal(m.max_context_tokens, 131072);
	/* By hand: embeddings 2 x 128256 x 4096 = 1050673152; a layer
	 * 2x4096x4096 + 2x4096x1024 (attention) + 3x4096x14336 (FFN) + 2x4096
	 * (norms) = 218112000, x32 = 6979584000; final norm 4096. */
	assert_near(m.params, 8030261248.0, 0, 0);
	assert_near(m.active_params, m.params, 0, 0);
	fs_model_config_fini(&m);
	compare_runs("tests/data/hf/llama-3.1-8b.json", "llama-3.1-8b", "h100", "1");
	{
		/* weights_bytes = params x 2 (bf16) exactly */
		const char *a[] = { "estimate", "--model-config",
		                    "tests/data/hf/llama-3.1-8b.json", "--gpu", "h100",
		                    "--json", NULL };
		cJSON *x = estimate_json(a);

		assert_near(num(x, "weights_bytes"), 2 * 8030261248.0, 0, 0);
		assert_near(num(x, "kv_bytes_per_token"), 2.0 * 32 * 8 * 128 * 2, 0, 0);
		cJSON_Delete(x);
	}
}

static void test_model_config_mixtral_moe_matches_the_catalogue(void **state)
{
	struct fs_model_spec m;
	struct fs_error err;

	(void)state;
	assert_int_equal(fs_model_config_load("tests/data/hf/mixtral-8x7b.json", "mx", &m,
	                                      &err), 0);
	assert_string_equal(m.id, "mx");
	assert_int_equal(m.experts, 8);
	assert_int_equal(m.experts_per_token, 2);
	/* By hand: a layer has attention 41943040, router 4096x8 = 32768,
	 * norms 8192 and 8 experts of 3x4096x14336 = 176160768; embeddings
	 * 2 x 32000 x 4096 = 262144000; final norm 4096.  Active: 2 experts. */
	assert_near(m.params, 32 * (41943040.0 + 32768 + 8192 + 8 * 176160768.0) +
	            262144000.0 + 4096, 0, 0);
	assert_near(m.active_params, 32 * (41943040.0 + 32768 + 8192 + 2 * 176160768.0) +
	            262144000.0 + 4096, 0, 0);
	assert_near(m.params, 46.7e9, 0, 1e-3);        /* the published 46.7B / 12.9B */
	assert_near(m.active_params, 12.9e9, 0, 2e-3);
	fs_model_config_fini(&m);
	compare_runs("tests/data/hf/mixtral-8x7b.json", "mixtral-8x7b", "h100", "2");
}

static void test_model_config_qwen2_counts_the_qkv_bias(void **state)
{
	struct fs_model_spec m;
	struct fs_error err;

	(void)state;
	assert_int_equal(fs_model_config_load("tests/data/hf/qwen2.5-7b.json", NULL, &m,
	                                      &err), 0);
	/* Layer: 2x3584x3584 + 2x3584x512 + bias 3584+2x512 + 3x3584x18944 +
	 * 2x3584 = 233057792, x28; embeddings 2 x 152064 x 3584; final norm. */
	assert_near(m.params, 28 * 233057792.0 + 2 * 152064.0 * 3584 + 3584, 0, 0);
	assert_near(m.params, 7.62e9, 0, 1e-3);
	fs_model_config_fini(&m);
}

/* Write text as DIR/c.json, run estimate on it, expect exit 2 with
 * "c.json:LINE:COL" and `key` in the message. */
static void expect_bad(const char *text, const char *where, const char *key)
{
	char *dir = fs_test_tmpdir(), path[512], want[600];
	const char *a[] = { "estimate", "--model-config", path, "--gpu", "h100", NULL };
	struct fs_test_run r;
	FILE *f;

	snprintf(path, sizeof path, "%s/c.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	r = fs_test_run_fleetsim(a);
	assert_int_equal(r.exit_code, 2);
	snprintf(want, sizeof want, "%s:%s", path, where);
	if (strstr(r.err, want) == NULL || strstr(r.err, key) == NULL)
		fail_msg("expected %s and %s in: %s", want, key, r.err);
	fs_test_run_free(&r);
	fs_test_tmpdir_free(dir);
}

static void test_model_config_bad_configs_exit_2_with_the_key(void **state)
{
	(void)state;
	expect_bad("{\"hidden_size\": 4096, \"num_attention_heads\": 32,\n"
	           " \"intermediate_size\": 14336, \"vocab_size\": 32000,\n"
	           " \"max_position_embeddings\": 4096}\n",
	           "1:1", "missing required key \"num_hidden_layers\"");
	expect_bad("{\"num_hidden_layers\": 2, \"hidden_size\": 100,\n"
	           " \"num_attention_heads\": 3, \"intermediate_size\": 64,\n"
	           " \"vocab_size\": 10, \"max_position_embeddings\": 64}\n",
	           "2:25", "num_attention_heads: expected a divisor of hidden_size");
	expect_bad("{\"num_hidden_layers\": 2, \"hidden_size\": 64,\n"
	           " \"num_attention_heads\": 4, \"intermediate_size\": -128,\n"
	           " \"vocab_size\": 10, \"max_position_embeddings\": 64}\n",
	           "2:49", "intermediate_size");
	expect_bad("{\"num_hidden_layers\": 2, \"hidden_size\": 64,\n"
	           " \"num_attention_heads\": 4, \"num_key_value_heads\": 3,\n"
	           " \"intermediate_size\": 128, \"vocab_size\": 10,\n"
	           " \"max_position_embeddings\": 64}\n",
	           "2:51", "num_key_value_heads");
	expect_bad("{\"num_hidden_layers\": 2, \"hidden_size\": 64,\n"
	           " \"num_attention_heads\": 4, \"intermediate_size\": 128,\n"
	           " \"vocab_size\": 10, \"max_position_embeddings\": 64,\n"
	           " \"n_routed_experts\": 8, \"num_experts_per_tok\": 2,\n"
	           " \"kv_lora_rank\": 512}\n",
	           "5:18", "kv_lora_rank: multi-head latent attention");
	expect_bad("{\"num_hidden_layers\": 2, \"hidden_size\": 64,\n"
	           " \"num_attention_heads\": 4, \"moe_intermediate_size\": 32,\n"
	           " \"vocab_size\": 10, \"max_position_embeddings\": 64,\n"
	           " \"num_experts\": 8, \"num_experts_per_tok\": 9}\n",
	           "4:43", "num_experts_per_tok");
}

static void test_model_config_needs_exactly_one_model_option(void **state)
{
	const char *a[] = { "estimate", "--model", "llama-3.1-8b", "--model-config",
	                    "tests/data/hf/llama-3.1-8b.json", "--gpu", "h100", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(a);

	(void)state;
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "--model-config"));
	fs_test_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_config_llama_3_1_8b_matches_the_catalogue),
		cmocka_unit_test(test_model_config_mixtral_moe_matches_the_catalogue),
		cmocka_unit_test(test_model_config_qwen2_counts_the_qkv_bias),
		cmocka_unit_test(test_model_config_bad_configs_exit_2_with_the_key),
		cmocka_unit_test(test_model_config_needs_exactly_one_model_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
