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

#include "fleetsim/scenario_hf_config.h"
#include "util_test.h"

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
	cJSON *x = fs_test_fleetsim_json(a, 0), *y = fs_test_fleetsim_json(b, 0);

	assert_near(fs_test_json_num(x, "kv_bytes_per_token"), fs_test_json_num(y, "kv_bytes_per_token"), 0, 0);
	assert_near(fs_test_json_num(x, "weights_bytes"), fs_test_json_num(y, "weights_bytes"), 0, 1e-3);
	assert_near(fs_test_json_num(x, "kv_blocks"), fs_test_json_num(y, "kv_blocks"), 0, 1e-3);
	assert_near(fs_test_json_num(x, "prefill_ms"), fs_test_json_num(y, "prefill_ms"), 0, 1e-3);
	assert_near(fs_test_json_num(x, "decode_step_ms"), fs_test_json_num(y, "decode_step_ms"), 0, 1e-3);
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
		cJSON *x = fs_test_fleetsim_json(a, 0);

		assert_near(fs_test_json_num(x, "weights_bytes"), 2 * 8030261248.0, 0, 0);
		assert_near(fs_test_json_num(x, "kv_bytes_per_token"), 2.0 * 32 * 8 * 128 * 2, 0, 0);
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

	snprintf(path, sizeof path, "%s/c.json", dir);
	fs_test_write_file(path, text);
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

/* Every number and string of two summaries is the same, except the keys
 * that name the model or hash the scenario text; counts how many numbers. */
static void same_json(const cJSON *a, const cJSON *b, const char *key, int *n_numbers)
{
	const cJSON *x, *y;

	if (key != NULL && (strcmp(key, "model") == 0 || strcmp(key, "scenario_sha256") == 0))
		return;
	assert_int_equal(a->type & 0xff, b->type & 0xff);
	if (cJSON_IsNumber(a)) {
		if (a->valuedouble != b->valuedouble)
			fail_msg("%s: %.17g != %.17g", key != NULL ? key : "?", a->valuedouble,
			         b->valuedouble);
		(*n_numbers)++;
	} else if (cJSON_IsString(a)) {
		assert_string_equal(a->valuestring, b->valuestring);
	}
	assert_int_equal(cJSON_GetArraySize(a), cJSON_GetArraySize(b));
	for (x = a->child, y = b->child; x != NULL; x = x->next, y = y->next)
		same_json(x, y, x->string != NULL ? x->string : key, n_numbers);
}

/* A scenario whose model is catalog.models[0].config (the Llama-3.1-8B
 * config.json, params_b pinned to the catalogue's 8.03) runs exactly as
 * the same scenario on the built-in llama-3.1-8b; the scenario.json of the
 * run records the shape and runs the same without the config file. */
static void test_model_config_scenario_run_matches_the_catalogue(void **state)
{
	char *dir = fs_test_tmpdir(), a[512], b[512], c[512], copy[512], *text;
	const char *run_a[] = { "run", "tests/data/hf/scenario_config.json", "-q", "-o", a,
	                        NULL };
	const char *run_b[] = { "run", "tests/data/hf/scenario_config.json", "-q", "-o", b,
	                        "--set", "engine.model=\"llama-3.1-8b\"", NULL };
	const char *run_c[] = { "run", copy, "-q", "-o", c, NULL };
	cJSON *x, *y, *z, *completed;
	int n = 0;

	(void)state;
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	snprintf(c, sizeof c, "%s/c", dir);
	x = fs_test_fleetsim_output(run_a, a, "summary.json");
	y = fs_test_fleetsim_output(run_b, b, "summary.json");
	same_json(x, y, NULL, &n);
	assert_true(n > 50);                 /* a whole summary, not an empty one */
	completed = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(x,
	                                             "requests"), "completed");
	if (completed != NULL)
		assert_true(cJSON_GetObjectItemCaseSensitive(completed, "value")->valuedouble > 100);

	/* The resolved scenario names no file: the shape itself, and it loads
	 * from another directory, where the config.json is not. */
	snprintf(copy, sizeof copy, "%s/a/scenario.json", dir);
	text = fs_test_read_file(copy, NULL);
	assert_non_null(text);
	assert_null(strstr(text, "\"config\""));
	assert_has(text, "\"layers\":\t32", "\"vocab\":\t128256");
	snprintf(copy, sizeof copy, "%s/elsewhere.json", dir);
	fs_test_write_file(copy, text);
	free(text);
	z = fs_test_fleetsim_output(run_c, c, "summary.json");
	n = 0;
	same_json(x, z, NULL, &n);
	assert_true(n > 50);
	cJSON_Delete(x);
	cJSON_Delete(y);
	cJSON_Delete(z);
	fs_test_tmpdir_free(dir);
}

/* The same entry in a --catalog file: estimate figures equal the built-in's. */
static void test_model_config_catalog_file_estimate_matches(void **state)
{
	const char *a[] = { "estimate", "--catalog", "tests/data/hf/catalog_config.json",
	                    "--model", "my-llama", "--gpu", "l40s", "--json", NULL };
	const char *b[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "l40s", "--json",
	                    NULL };
	cJSON *x = fs_test_fleetsim_json(a, 0), *y = fs_test_fleetsim_json(b, 0);
	int n = 0;

	(void)state;
	same_json(x, y, NULL, &n);
	assert_true(n > 5);
	assert_near(fs_test_json_num(x, "weights_bytes"), 2 * 8.03e9, 0, 0);
	cJSON_Delete(x);
	cJSON_Delete(y);
}

/* Write scenario text (with the config.json text `cfg` as DIR/c.json when
 * not NULL) and validate it: returns the run (caller frees), dir in *dir. */
static struct fs_test_run validate_text(const char *text, const char *cfg, char **dir)
{
	char path[512];
	const char *a[] = { "validate", path, NULL };

	*dir = fs_test_tmpdir();
	if (cfg != NULL) {
		snprintf(path, sizeof path, "%s/c.json", *dir);
		fs_test_write_file(path, cfg);
	}
	snprintf(path, sizeof path, "%s/s.json", *dir);
	fs_test_write_file(path, text);
	return fs_test_run_fleetsim(a);
}

#define SC_HEAD "{\"simulation\": {\"horizon\": \"1m\"},\n" \
	" \"workload\": {\"classes\": [{\"name\": \"a\", \"arrivals\": {\"process\": " \
	"\"poisson\", \"rate_per_s\": 1}, \"prompt_tokens\": {\"dist\": \"fixed\", " \
	"\"tokens\": 100}, \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}]},\n" \
	" \"engine\": {\"type\": \"vllm\", \"model\": \"m\", \"gpu\": \"h100\"},\n"

static void expect_scenario(const char *models, const char *cfg, int code,
                            const char *want1, const char *want2)
{
	char text[2048], *dir, want[700];
	struct fs_test_run r;

	snprintf(text, sizeof text, SC_HEAD " \"catalog\": {\"models\": [%s]}}\n", models);
	r = validate_text(text, cfg, &dir);
	if (r.exit_code != code)
		fail_msg("exit %d, expected %d: %s", r.exit_code, code, r.err);
	/* want1 naming s.json or c.json first: that file in dir */
	if (strncmp(want1, "s.json", 6) == 0 || strncmp(want1, "c.json", 6) == 0)
		snprintf(want, sizeof want, "%s/%s", dir, want1);
	else
		snprintf(want, sizeof want, "%s", want1);
	if (strstr(code == 0 ? r.out : r.err, want) == NULL ||
	    (want2 != NULL && strstr(code == 0 ? r.out : r.err, want2) == NULL))
		fail_msg("expected \"%s\" and \"%s\" in: %s%s", want,
		         want2 != NULL ? want2 : "", r.out, r.err);
	fs_test_run_free(&r);
	fs_test_tmpdir_free(dir);
}

static void test_model_config_scenario_key_errors_and_overrides(void **state)
{
	(void)state;
	/* the entry's own keys win over the file's */
	expect_scenario("{\"id\": \"m\", \"config\": \"c.json\", \"layers\": 16}",
	                "{\"num_hidden_layers\": 32, \"hidden_size\": 1024,\n"
	                " \"num_attention_heads\": 8, \"intermediate_size\": 4096,\n"
	                " \"vocab_size\": 32000, \"max_position_embeddings\": 4096}\n",
	                0, "\"layers\":\t16", "\"hidden\":\t1024");
	/* "config" and "base" together */
	expect_scenario("{\"id\": \"m\", \"base\": \"llama-3.1-8b\", \"config\": \"c.json\"}",
	                NULL, 2, "s.json:4:61: catalog.models[0].config: expected "
	                "either \"config\" or \"base\"", "found both");
	/* not a string; a missing file */
	expect_scenario("{\"id\": \"m\", \"config\": 3}", NULL, 2,
	                "s.json:4:47: catalog.models[0].config: expected a string",
	                NULL);
	expect_scenario("{\"id\": \"m\", \"config\": \"nope.json\"}", NULL, 2,
	                "s.json:4:47: catalog.models[0].config: cannot open model "
	                "config \"nope.json\"", NULL);
	/* a broken config.json names its own file, line, column and key, and the
	 * scenario key that named it */
	expect_scenario("{\"id\": \"m\", \"config\": \"c.json\"}",
	                "{\"num_hidden_layers\": 32, \"hidden_size\": 1024,\n"
	                " \"num_attention_heads\": \"8\", \"intermediate_size\": 4096,\n"
	                " \"vocab_size\": 32000, \"max_position_embeddings\": 4096}\n",
	                2, "c.json:2:25: num_attention_heads: expected",
	                "catalog.models[0].config");
	/* without base or config the shape keys stay required */
	expect_scenario("{\"id\": \"m\", \"hidden\": 64}", NULL, 2,
	                "missing required key \"layers\" (needed without \"base\" or "
	                "\"config\")", NULL);
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
		cmocka_unit_test(test_model_config_scenario_run_matches_the_catalogue),
		cmocka_unit_test(test_model_config_catalog_file_estimate_matches),
		cmocka_unit_test(test_model_config_scenario_key_errors_and_overrides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
