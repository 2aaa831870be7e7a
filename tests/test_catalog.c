/*
 * test_catalog.c — the built-in GPU and model catalogue: every required
 * entry is present and found by id and aliases (any case), the figures are
 * sane, KV bytes per token match gpu_facts.md §3, suggestions, and the
 * `fleetsim catalog` command (table, JSON, bad arguments).  Runs ./fleetsim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "fleetsim/catalog.h"
#include "util_test.h"

static const char *const gpu_ids[] = {
	"rtx4090", "rtx6000-ada", "l4", "l40s", "a10g", "a10", "t4", "v100",
	"a100-40g", "a100-80g", "a100-80g-pcie", "h100", "h100-pcie", "h200",
	"mi300x", "ascend-910b", NULL
};

/* Obvious spellings and the id they must find. */
static const char *const gpu_aliases[][2] = {
	{ "rtx-4090", "rtx4090" }, { "4090", "rtx4090" }, { "RTX4090", "rtx4090" },
	{ "a100", "a100-80g" }, { "a100-80g-sxm", "a100-80g" }, { "A100-80GB", "a100-80g" },
	{ "a100-pcie", "a100-80g-pcie" }, { "h100-sxm", "h100" }, { "H100-SXM5", "h100" },
	{ "v100-32g", "v100" }, { "tesla-t4", "t4" }, { "mi300", "mi300x" },
	{ "910b", "ascend-910b" }, { "l40s", "l40s" }, { "rtx-6000-ada", "rtx6000-ada" },
};

/* Model id and its KV-cache bytes per token in bf16, gpu_facts.md §3. */
static const struct { const char *id; int64_t kv_bytes; } model_kv[] = {
	{ "llama-2-7b", 512 * 1024 },    { "llama-2-13b", 800 * 1024 },
	{ "llama-2-70b", 320 * 1024 },   { "llama-3.1-8b", 128 * 1024 },
	{ "llama-3.1-70b", 320 * 1024 }, { "mistral-7b", 128 * 1024 },
	{ "mixtral-8x7b", 128 * 1024 },  { "qwen2.5-7b", 56 * 1024 },
	{ "qwen2.5-14b", 192 * 1024 },   { "qwen2.5-32b", 256 * 1024 },
	{ "qwen2.5-72b", 320 * 1024 },
};

static const char *const model_aliases[][2] = {
	{ "meta-llama/Llama-2-7b-hf", "llama-2-7b" },
	{ "Llama-3.1-8B-Instruct", "llama-3.1-8b" },
	{ "meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b" },
	{ "mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b" },
	{ "Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b" },
	{ "LLAMA-2-13B", "llama-2-13b" },
};

static void upper(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i] != '\0'; i++)
		dst[i] = (char)toupper((unsigned char)src[i]);
	dst[i] = '\0';
}

static void test_catalog_every_gpu_is_found_by_id_and_alias(void **state)
{
	const struct fs_gpu_spec *g;
	char up[64];
	size_t i;

	(void)state;
	for (i = 0; gpu_ids[i] != NULL; i++) {
		g = fs_catalog_find_gpu(gpu_ids[i]);
		if (g == NULL)
			fail_msg("GPU \"%s\" missing", gpu_ids[i]);
		assert_string_equal(g->id, gpu_ids[i]);
		upper(up, sizeof up, gpu_ids[i]);
		assert_ptr_equal(fs_catalog_find_gpu(up), g);
	}
	for (i = 0; i < sizeof gpu_aliases / sizeof gpu_aliases[0]; i++) {
		g = fs_catalog_find_gpu(gpu_aliases[i][0]);
		if (g == NULL)
			fail_msg("alias \"%s\" not found", gpu_aliases[i][0]);
		assert_string_equal(g->id, gpu_aliases[i][1]);
	}
	assert_null(fs_catalog_find_gpu("a100-80"));
	assert_null(fs_catalog_find_gpu(""));
	assert_null(fs_catalog_find_gpu(NULL));
}

/* Every alias of every entry finds that entry, and no alias or id is
 * shared between two entries. */
static void test_catalog_aliases_are_unique_and_resolve(void **state)
{
	size_t i, n = fs_catalog_n_gpus();
	char buf[512], *tok, *save;
	const struct fs_gpu_spec *g;
	const struct fs_model_spec *m;

	(void)state;
	for (i = 0; i < n; i++) {
		g = fs_catalog_gpu_at(i);
		assert_ptr_equal(fs_catalog_find_gpu(g->id), g);
		snprintf(buf, sizeof buf, "%s", g->aliases);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (fs_catalog_find_gpu(tok) != g)
				fail_msg("GPU alias \"%s\" of %s resolves elsewhere", tok, g->id);
	}
	for (i = 0; i < fs_catalog_n_models(); i++) {
		m = fs_catalog_model_at(i);
		assert_ptr_equal(fs_catalog_find_model(m->id), m);
		snprintf(buf, sizeof buf, "%s", m->aliases);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (fs_catalog_find_model(tok) != m)
				fail_msg("model alias \"%s\" of %s resolves elsewhere", tok, m->id);
	}
}

static void test_catalog_gpu_figures_are_sane(void **state)
{
	size_t i, n = fs_catalog_n_gpus();
	const struct fs_gpu_spec *g;

	(void)state;
	assert_true(n >= 16);
	for (i = 0; i < n; i++) {
		g = fs_catalog_gpu_at(i);
		/* torch total_memory: a T4 shows 15.8e9 bytes, a B200 191.5e9 */
		assert_true(g->mem_bytes >= 15e9 && g->mem_bytes <= 200e9);
		assert_true(g->mem_bw_bytes_per_s >= 300e9 && g->mem_bw_bytes_per_s <= 8e12);
		assert_true(g->fp16_flops_per_s >= 60e12 && g->fp16_flops_per_s <= 2.5e15);
		assert_true(g->fp8_flops_per_s == 0 ||
		            g->fp8_flops_per_s >= g->fp16_flops_per_s);
		assert_true(g->link_bytes_per_s > 0);
		assert_true(g->tdp_w >= 0);
		assert_true(g->mfu > 0 && g->mfu <= 1);
		assert_true(g->mbu > 0 && g->mbu <= 1);
		assert_true(g->iteration_overhead_ns >= 0 && g->per_seq_overhead_ns >= 0);
		assert_true(g->layer_overhead_ns >= 0 && g->allreduce_latency_ns >= 0);
		assert_true(g->price_on_demand_usd_per_h >= 0);
		assert_true(g->price_spot_usd_per_h >= 0);
		assert_true(g->price_monthly_usd >= 0);
		assert_true(g->price_spot_usd_per_h <= g->price_on_demand_usd_per_h);
		if (g->price_on_demand_usd_per_h > 0 || g->price_spot_usd_per_h > 0)
			if (g->price_date == NULL || g->price_date[0] == '\0')
				fail_msg("%s has a price but no price_date", g->id);
		assert_non_null(g->price_source);
		assert_true(g->spec_source != NULL && g->spec_source[0] == 'S');
		assert_non_null(g->notes);
		assert_non_null(g->display_name);
	}
}

/* Reference values pinned from gpu_facts.md §1 (S1, S13, S15, S2). */
static void test_catalog_gpu_reference_values(void **state)
{
	const struct fs_gpu_spec *a = fs_catalog_find_gpu("a100-80g");
	const struct fs_gpu_spec *h = fs_catalog_find_gpu("h100");
	const struct fs_gpu_spec *r = fs_catalog_find_gpu("rtx4090");

	(void)state;
	/* memory: torch total_memory, 79.25 GiB (docs/CATALOG.md, GPUs: memory) */
	assert_near(a->mem_bytes, 79.25 * 1073741824.0, 0, 1e-12);
	assert_near(a->mem_bw_bytes_per_s, 2039e9, 0, 1e-12);
	assert_near(a->fp16_flops_per_s, 312e12, 0, 1e-12);
	/* All-reduce bandwidth: the fitted NCCL bus bandwidth on NVLink
	 * (docs/VALIDATION.md), the per-direction figure on PCIe. */
	assert_near(a->link_bytes_per_s, 129e9, 0, 1e-12);
	assert_near(fs_catalog_find_gpu("l40s")->link_bytes_per_s, 32e9, 0, 1e-12);
	assert_near(fs_catalog_find_gpu("h100-pcie")->link_bytes_per_s, 64e9, 0, 1e-12);
	assert_near(h->mem_bw_bytes_per_s, 3350e9, 0, 1e-12);
	assert_near(h->fp16_flops_per_s, 989.4e12, 0, 1e-12);
	assert_near(h->link_bytes_per_s, 359e9, 0, 1e-12);
	assert_near(r->fp16_flops_per_s, 165.2e12, 0, 1e-12);   /* BF16, half rate */
	assert_non_null(strstr(fs_catalog_find_gpu("a10g")->notes, "UNCERTAIN"));
	assert_non_null(strstr(fs_catalog_find_gpu("ascend-910b")->notes, "LOW CONFIDENCE"));
	assert_non_null(strstr(fs_catalog_find_gpu("l4")->notes, "uncalibrated"));
}

static void test_catalog_models_match_reference_kv_bytes(void **state)
{
	const struct fs_model_spec *m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof model_kv / sizeof model_kv[0]; i++) {
		m = fs_catalog_find_model(model_kv[i].id);
		if (m == NULL)
			fail_msg("model \"%s\" missing", model_kv[i].id);
		assert_int_equal(m->head_dim, 128);
		assert_int_equal(m->hidden, m->heads * m->head_dim);
		assert_int_equal(fs_catalog_kv_bytes_per_token(m, 2), model_kv[i].kv_bytes);
		assert_int_equal((int64_t)2 * m->layers * m->kv_heads * m->head_dim * 2,
		                 model_kv[i].kv_bytes);
		assert_true(m->params > 1e9 && m->active_params > 1e9);
		assert_true(m->active_params <= m->params);
		assert_true(m->max_context_tokens >= 4096);
		assert_true(m->experts >= 1 && m->experts_per_token >= 1);
		assert_true(m->source != NULL && m->source[0] == 'S');
	}
	assert_int_equal(fs_catalog_kv_bytes_per_token(fs_catalog_find_model("llama-2-7b"), 2),
	                 524288);
	m = fs_catalog_find_model("mixtral-8x7b");
	assert_near(m->params, 46.7e9, 0, 1e-12);
	assert_near(m->active_params, 12.9e9, 0, 1e-12);
	assert_int_equal(m->experts, 8);
	assert_int_equal(m->experts_per_token, 2);
	assert_near(fs_catalog_find_model("llama-2-7b")->params, 6.74e9, 0, 1e-12);
}

static void test_catalog_model_aliases(void **state)
{
	const struct fs_model_spec *m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof model_aliases / sizeof model_aliases[0]; i++) {
		m = fs_catalog_find_model(model_aliases[i][0]);
		if (m == NULL)
			fail_msg("alias \"%s\" not found", model_aliases[i][0]);
		assert_string_equal(m->id, model_aliases[i][1]);
	}
	assert_null(fs_catalog_find_model("llama-2-7"));
	assert_null(fs_catalog_find_model(NULL));
}

static void test_catalog_suggests_nearest_id(void **state)
{
	const char *s;

	(void)state;
	s = fs_catalog_suggest_gpu("a100-80");
	assert_non_null(s);
	assert_string_equal(s, "a100-80g");
	s = fs_catalog_suggest_gpu("h100-sxm4");        /* alias typo -> its id */
	assert_non_null(s);
	assert_string_equal(s, "h100");
	s = fs_catalog_suggest_model("lama-2-7b");
	assert_non_null(s);
	assert_string_equal(s, "llama-2-7b");
	s = fs_catalog_suggest_model("qwen2.5-72");
	assert_non_null(s);
	assert_string_equal(s, "qwen2.5-72b");
	assert_null(fs_catalog_suggest_gpu("zzzzzzzzzzzz"));
	assert_null(fs_catalog_suggest_model(NULL));
}

static void test_catalog_command_prints_both_tables(void **state)
{
	const char *args[] = { "catalog", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);

	(void)state;
	assert_int_equal(r.exit_code, 0);
	assert_has(r.out, "h100", "llama-2-7b", "2026-03");
	fs_test_run_free(&r);
}

static void test_catalog_command_json_parses(void **state)
{
	const char *args[] = { "catalog", "gpus", "--json", NULL };
	const char *both[] = { "catalog", "--json", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	cJSON *root, *h, *item;

	(void)state;
	assert_int_equal(r.exit_code, 0);
	root = cJSON_Parse(r.out);
	assert_non_null(root);
	assert_true(cJSON_IsArray(root));
	assert_int_equal(cJSON_GetArraySize(root), (int)fs_catalog_n_gpus());
	h = NULL;
	cJSON_ArrayForEach(item, root)
		if (strcmp(cJSON_GetObjectItem(item, "id")->valuestring, "h100") == 0)
			h = item;
	assert_non_null(h);
	assert_near(cJSON_GetObjectItem(h, "mem_bw_bytes_per_s")->valuedouble, 3350e9, 0, 1e-9);
	assert_non_null(cJSON_GetObjectItem(h, "price_on_demand_usd_per_h"));
	assert_non_null(cJSON_GetObjectItem(h, "spec_source"));
	cJSON_Delete(root);
	fs_test_run_free(&r);

	r = fs_test_run_fleetsim(both);
	assert_int_equal(r.exit_code, 0);
	root = cJSON_Parse(r.out);
	assert_non_null(root);
	item = cJSON_GetObjectItem(root, "models");
	assert_true(cJSON_IsArray(item));
	assert_int_equal(cJSON_GetArraySize(item), (int)fs_catalog_n_models());
	assert_int_equal((int)cJSON_GetObjectItem(cJSON_GetArrayItem(item, 0),
	                                          "kv_bytes_per_token_bf16")->valuedouble,
	                 524288);
	cJSON_Delete(root);
	fs_test_run_free(&r);
}

static void test_catalog_command_with_a_catalog_file(void **state)
{
	const char *args[] = { "catalog", "gpus", "--catalog",
	                       "tests/data/catalog_custom.json", "--json", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	cJSON *root, *item, *mine = NULL, *h = NULL;

	(void)state;
	assert_int_equal(r.exit_code, 0);
	root = cJSON_Parse(r.out);
	assert_non_null(root);
	/* h100 is replaced in place, my-gpu appended */
	assert_int_equal(cJSON_GetArraySize(root), (int)fs_catalog_n_gpus() + 1);
	cJSON_ArrayForEach(item, root) {
		if (strcmp(cJSON_GetObjectItem(item, "id")->valuestring, "h100") == 0)
			h = item;
		if (strcmp(cJSON_GetObjectItem(item, "id")->valuestring, "my-gpu") == 0)
			mine = item;
	}
	assert_non_null(h);
	assert_non_null(mine);
	assert_near(cJSON_GetObjectItem(h, "price_on_demand_usd_per_h")->valuedouble,
	            1.99, 0, 1e-12);
	assert_near(cJSON_GetObjectItem(h, "mem_bw_bytes_per_s")->valuedouble, 3350e9, 0, 1e-9);
	assert_near(cJSON_GetObjectItem(mine, "mem_bytes")->valuedouble, 64e9, 0, 0);
	assert_near(cJSON_GetObjectItem(mine, "mfu")->valuedouble, FS_GPU_MFU_DEFAULT, 0, 0);
	cJSON_Delete(root);
	fs_test_run_free(&r);
}

static void expect_usage_error(const char *a1, const char *a2, const char *want)
{
	const char *args[] = { "catalog", a1, a2, NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);

	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "fleetsim catalog: "));
	if (strstr(r.err, want) == NULL)
		fail_msg("stderr lacks \"%s\": %s", want, r.err);
	assert_string_equal(r.out, "");
	fs_test_run_free(&r);
}

static void test_catalog_command_rejects_bad_arguments(void **state)
{
	(void)state;
	expect_usage_error("gpu", NULL, "did you mean \"gpus\"");
	expect_usage_error("--csv", NULL, "unknown option \"--csv\"");
	expect_usage_error("gpus", "models", "found a second");
	/* The same shapes as the getopt-based commands (fleetsim run). */
	expect_usage_error("--catalog", NULL, "option \"--catalog\" needs a value");
	expect_usage_error("--json=1", NULL, "unknown option \"--json=1\"");
	expect_usage_error("--cat=x", NULL, "unknown option \"--cat=x\"");
}

/* --catalog=FILE is --catalog FILE, as --output=DIR is for fleetsim run. */
static void test_catalog_command_takes_option_equals_value(void **state)
{
	const char *spaced[] = { "catalog", "gpus", "--catalog",
	                         "tests/data/catalog_custom.json", "--json", NULL };
	const char *joined[] = { "catalog", "gpus", "--catalog=tests/data/catalog_custom.json",
	                         "--json", NULL };
	struct fs_test_run a = fs_test_run_fleetsim(spaced), b = fs_test_run_fleetsim(joined);

	(void)state;
	assert_int_equal(a.exit_code, 0);
	if (b.exit_code != 0)
		fail_msg("catalog --catalog=FILE exited %d: %s", b.exit_code, b.err);
	assert_string_equal(a.out, b.out);
	assert_non_null(strstr(b.out, "my-gpu"));
	fs_test_run_free(&a);
	fs_test_run_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_every_gpu_is_found_by_id_and_alias),
		cmocka_unit_test(test_catalog_aliases_are_unique_and_resolve),
		cmocka_unit_test(test_catalog_gpu_figures_are_sane),
		cmocka_unit_test(test_catalog_gpu_reference_values),
		cmocka_unit_test(test_catalog_models_match_reference_kv_bytes),
		cmocka_unit_test(test_catalog_model_aliases),
		cmocka_unit_test(test_catalog_suggests_nearest_id),
		cmocka_unit_test(test_catalog_command_prints_both_tables),
		cmocka_unit_test(test_catalog_command_json_parses),
		cmocka_unit_test(test_catalog_command_rejects_bad_arguments),
		cmocka_unit_test(test_catalog_command_with_a_catalog_file),
		cmocka_unit_test(test_catalog_command_takes_option_equals_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
