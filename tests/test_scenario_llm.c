/*
 * test_scenario_llm.c — the "vllm" engine section (src/scenario_engine.c,
 * scenario_llm.c, scenario_efficiency.c) and the scenario catalogue
 * (scenario_catalog.c, scenario_model_cfg.c): vLLM defaults, the big-GPU
 * rule, efficiency overrides and step terms, errors, the memory plan notes.
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

#include "fleetsim/capacity.h"
#include "fleetsim/result.h"
#include "fleetsim/catalog.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "fleetsim/trace.h"
#include "util_test.h"
#include "util_scenario.h"

/* ---- the vllm engine --------------------------------------------------------------- */

/* A one-class scenario whose engine is `engine` (a JSON object's members
 * after "type": "vllm") and which may have a "catalog" (`catalog`, "" for
 * none). */
static struct fs_scenario *load_vllm(const char *engine, const char *catalog,
                                     struct fs_error *err)
{
	char text[4096];

	snprintf(text, sizeof text, "{\"simulation\": {\"horizon\": 10}, "
	         "\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, %s%s"
	         "\"engine\": {\"type\": \"vllm\", %s}}", catalog,
	         catalog[0] != '\0' ? ", " : "", engine);
	return load_str(text, err);
}

static struct fs_scenario *load_vllm_ok(const char *engine, const char *catalog)
{
	struct fs_error err;
	struct fs_scenario *sc = load_vllm(engine, catalog, &err);
	char buf[2048];

	if (sc == NULL) {
		fs_error_format(&err, buf, sizeof buf);
		fail_msg("load failed: %s", buf);
	}
	return sc;
}

static void test_scenario_vllm_defaults_follow_vllm_serve(void **state)
{
	struct fs_scenario *sc = load_file_ok(LLM_EXAMPLE);
	const struct fs_llm_cfg *llm = &sc->engine.llm;
	struct fs_llm_engine_cfg def;

	(void)state;
	fs_llm_engine_cfg_default(&def);
	assert_int_equal(sc->engine.kind, FS_ENGINE_VLLM);
	assert_int_equal(llm->replicas, 1);
	assert_ptr_equal(llm->perf.gpu, fs_catalog_find_gpu("l40s"));
	assert_ptr_equal(llm->perf.model, fs_catalog_find_model("llama-3.1-8b"));
	assert_int_equal(llm->perf.tp, 1);
	assert_int_equal(llm->perf.weight_dtype, FS_DTYPE_BF16);
	assert_int_equal(llm->perf.kv_dtype, FS_DTYPE_BF16);
	assert_true(llm->perf.gpu_mem_util == 0.9);
	assert_int_equal(llm->perf.block_tokens, 16);
	assert_int_equal(llm->perf.kv_blocks_pinned, 0);
	/* the perf sentinels: catalogue efficiencies, activation rule P6 */
	assert_true(llm->perf.mfu == 0 && llm->perf.mbu == 0);
	assert_int_equal(llm->perf.iteration_overhead_ns, -1);
	assert_int_equal(llm->perf.per_seq_overhead_ns, -1);
	assert_int_equal(llm->perf.layer_overhead_ns, -1);
	assert_int_equal(llm->perf.allreduce_latency_ns, -1);
	assert_true(llm->perf.activation_reserve_bytes < 0);
	assert_null(llm->perf.table);
	assert_null(llm->step_table);
	assert_null(llm->step_table_path);
	/* L40S (48 GB): the small-GPU defaults of vllm_semantics §2 */
	assert_int_equal(llm->sched.max_num_seqs, 256);
	assert_int_equal(llm->sched.max_num_batched_tokens, 2048);
	assert_int_equal(llm->perf.max_seqs, 256);
	assert_int_equal(llm->perf.max_batched_tokens, 2048);
	assert_true(llm->sched.enable_chunked_prefill);
	assert_int_equal(llm->sched.long_prefill_token_threshold, 0);
	assert_int_equal(llm->sched.policy, FS_LLM_POLICY_FCFS);
	assert_int_equal(llm->sched.batching, FS_LLM_BATCHING_CONTINUOUS);
	assert_int_equal(llm->sched.max_model_len, 131072);
	assert_int_equal(llm->sched.max_preemptions_per_request,
	                 def.max_preemptions_per_request);
	assert_int_equal(llm->sched.reserve_full_input, def.reserve_full_input);
	assert_true(llm->sched.kv_watermark == def.kv_watermark);
	assert_int_equal(llm->sched.block_tokens, 16);
	/* the plan: 8.03e9 bf16 weights; sched gets all blocks but vLLM's null one */
	assert_true(llm->mem.fits);
	assert_near(llm->mem.weights_bytes_per_gpu, 16.06e9, 0, 1e-12);
	/* usable = 0.9 x the L40S's total_memory, 44.42 GiB (docs/CATALOG.md) */
	assert_near(llm->mem.usable_bytes_per_gpu, 0.9 * 44.42 * 1073741824.0, 0, 1e-12);
	assert_true(llm->mem.kv_blocks > 10000);
	assert_int_equal(llm->sched.kv_blocks, llm->mem.kv_blocks - 1);
	fs_scenario_free(sc);
}

static void test_scenario_vllm_big_gpu_rule_sets_the_scheduler_defaults(void **state)
{
	static const struct { const char *gpu; int64_t seqs, tokens; } cases[] = {
		{ "h100", 1024, 8192 },        /* 80 GB >= 70 GiB */
		{ "h200", 1024, 8192 },
		{ "a100-80g", 256, 2048 },     /* big, but "a100" is excluded */
		{ "l40s", 256, 2048 },         /* 48 GB < 70 GiB */
	};
	char engine[256];
	struct fs_scenario *sc;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(engine, sizeof engine, "\"model\": \"llama-3.1-8b\", \"gpu\": \"%s\"",
		         cases[i].gpu);
		sc = load_vllm_ok(engine, "");
		assert_int_equal(sc->engine.llm.sched.max_num_seqs, cases[i].seqs);
		assert_int_equal(sc->engine.llm.sched.max_num_batched_tokens, cases[i].tokens);
		fs_scenario_free(sc);
	}
	/* the max_num_seqs default is capped at the token budget */
	sc = load_vllm_ok("\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", "
	                  "\"max_num_batched_tokens\": 512", "");
	assert_int_equal(sc->engine.llm.sched.max_num_seqs, 512);
	fs_scenario_free(sc);
	/* a given value stands, and with chunked prefill off the budget is
	 * max_model_len (V4), also for the activation reserve */
	sc = load_vllm_ok("\"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\", "
	                  "\"chunked_prefill\": false, \"max_model_len\": 16384, "
	                  "\"max_num_seqs\": 4096", "");
	assert_int_equal(sc->engine.llm.sched.max_num_seqs, 4096);
	assert_int_equal(sc->engine.llm.sched.max_num_batched_tokens, 2048);
	assert_int_equal(sc->engine.llm.perf.max_batched_tokens, 16384);
	fs_scenario_free(sc);
	/* a custom GPU: >= 70 GiB and an id containing "A100" in any case */
	sc = load_vllm_ok("\"model\": \"llama-3.1-8b\", \"gpu\": \"My-A100-96g\"",
	                  "\"catalog\": {\"gpus\": [{\"id\": \"My-A100-96g\", "
	                  "\"base\": \"a100-80g\", \"mem_gb\": 96}]}");
	assert_int_equal(sc->engine.llm.sched.max_num_seqs, 256);
	fs_scenario_free(sc);
}

static void test_scenario_vllm_every_key_and_the_catalogue_reach_the_config(void **state)
{
	struct fs_scenario *sc = load_file_ok(VLLM);
	const struct fs_llm_cfg *llm = &sc->engine.llm;
	const struct fs_gpu_spec *l40s = fs_catalog_find_gpu("l40s");

	(void)state;
	/* the catalogue: an override of l40s (found by its alias) and new entries */
	assert_int_equal(sc->catalog.n_gpus, 2);
	assert_int_equal(sc->catalog.n_models, 2);
	assert_ptr_equal(llm->perf.gpu, &sc->catalog.gpus[0]);
	assert_ptr_equal(fs_scenario_find_gpu(sc, "L40S"), &sc->catalog.gpus[0]);
	assert_ptr_equal(fs_scenario_find_gpu(sc, "l40s-48gb"), &sc->catalog.gpus[0]);
	assert_ptr_equal(fs_scenario_find_gpu(sc, "my-gpu"), &sc->catalog.gpus[1]);
	assert_ptr_equal(fs_scenario_find_gpu(sc, "h100"), fs_catalog_find_gpu("h100"));
	assert_null(fs_scenario_find_gpu(sc, "no-such-gpu"));
	assert_true(llm->perf.gpu->mem_bytes == 96e9);
	assert_true(llm->perf.gpu->price_on_demand_usd_per_h == 0.99);
	assert_true(llm->perf.gpu->mem_bw_bytes_per_s == l40s->mem_bw_bytes_per_s);
	assert_true(llm->perf.gpu->mfu == l40s->mfu);
	assert_string_equal(llm->perf.gpu->display_name, l40s->display_name);
	assert_string_equal(llm->perf.gpu->notes, "hypothetical 96 GB part");
	assert_string_equal(sc->catalog.gpu_bases[0], "l40s");
	assert_null(sc->catalog.gpu_bases[1]);
	/* a GPU without base takes the uncalibrated defaults */
	assert_true(sc->catalog.gpus[1].mem_bw_bytes_per_s == 2000e9);
	assert_true(sc->catalog.gpus[1].fp16_flops_per_s == 400e12);
	assert_true(sc->catalog.gpus[1].mfu == FS_GPU_MFU_DEFAULT);
	assert_int_equal(sc->catalog.gpus[1].iteration_overhead_ns, 500 * FS_NS_PER_US);
	assert_int_equal(sc->catalog.gpus[1].per_seq_overhead_ns,
	                 FS_GPU_PER_SEQ_OVERHEAD_NS_DEFAULT);
	/* a model without base: head_dim = hidden / heads, dense */
	assert_ptr_equal(llm->perf.model, &sc->catalog.models[0]);
	assert_int_equal(llm->perf.model->head_dim, 64);
	assert_int_equal(llm->perf.model->experts, 1);
	assert_true(llm->perf.model->active_params == 1.24e9);
	assert_int_equal(llm->perf.model->max_context_tokens, 32768);
	/* a model with base keeps the base's shape */
	assert_int_equal(sc->catalog.models[1].layers, 32);
	assert_int_equal(sc->catalog.models[1].max_context_tokens, 262144);
	assert_ptr_equal(fs_scenario_find_model(sc, "Llama-8B-Long"), &sc->catalog.models[1]);
	assert_ptr_equal(fs_scenario_find_model(sc, "llama-3.1-8b"),
	                 fs_catalog_find_model("llama-3.1-8b"));

	/* every engine key */
	assert_int_equal(llm->replicas, 3);
	assert_int_equal(llm->perf.tp, 2);
	assert_int_equal(llm->perf.weight_dtype, FS_DTYPE_FP8);
	assert_int_equal(llm->perf.kv_dtype, FS_DTYPE_FP8);
	assert_true(llm->perf.gpu_mem_util == 0.85);
	assert_int_equal(llm->perf.block_tokens, 32);
	assert_int_equal(llm->sched.block_tokens, 32);
	assert_int_equal(llm->perf.kv_blocks_pinned, 1000);
	assert_int_equal(llm->mem.kv_blocks, 1000);
	assert_int_equal(llm->sched.kv_blocks, 999);
	assert_int_equal(llm->sched.max_num_seqs, 64);
	assert_int_equal(llm->sched.max_num_batched_tokens, 4096);
	assert_false(llm->sched.enable_chunked_prefill);
	assert_int_equal(llm->sched.long_prefill_token_threshold, 512);
	assert_int_equal(llm->sched.policy, FS_LLM_POLICY_PRIORITY);
	assert_int_equal(llm->sched.batching, FS_LLM_BATCHING_STATIC);
	assert_int_equal(llm->sched.max_model_len, 8192);
	assert_int_equal(llm->sched.max_preemptions_per_request, 5);
	assert_int_equal(llm->perf.max_seqs, 64);
	assert_int_equal(llm->perf.max_batched_tokens, 8192);   /* V4: max_model_len */
	/* efficiency overrides */
	assert_true(llm->perf.mfu == 0.5);
	assert_true(llm->perf.mbu == 0.6);
	assert_int_equal(llm->perf.iteration_overhead_ns, 2 * FS_NS_PER_MS);
	assert_int_equal(llm->perf.per_seq_overhead_ns, 5 * FS_NS_PER_US);
	assert_int_equal(llm->perf.layer_overhead_ns, 0);
	assert_int_equal(llm->perf.allreduce_latency_ns, 40 * FS_NS_PER_US);
	assert_true(llm->perf.activation_reserve_bytes == 1.5e9);
	assert_true(llm->mem.activation_bytes_per_gpu == 1.5e9);
	/* the step table, relative to the scenario's directory */
	assert_non_null(llm->step_table);
	assert_ptr_equal(llm->perf.table, llm->step_table);
	assert_string_equal(llm->step_table_path, "step_table_small.csv");
	assert_true(fs_perf_prefill_ns(&llm->perf, 128) == 10 * FS_NS_PER_MS);
	fs_scenario_free(sc);
}

static void test_scenario_vllm_efficiency_overrides_change_step_times(void **state)
{
	struct fs_scenario *a = load_vllm_ok("\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\"", "");
	struct fs_scenario *b = load_vllm_ok(
		"\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", "
		"\"efficiency\": {\"mbu\": 0.41, \"iteration_overhead\": 0}", "");
	const struct fs_gpu_spec *h100 = fs_catalog_find_gpu("h100");

	(void)state;
	assert_true(b->engine.llm.perf.mbu == 0.41);
	assert_int_equal(b->engine.llm.perf.iteration_overhead_ns, 0);
	assert_true(a->engine.llm.perf.mbu == 0);   /* default: the GPU's */
	assert_true(h100->mbu > 0.41);
	/* a memory-bound decode step is slower at a lower MBU even without the
	 * fixed iteration overhead */
	assert_true(fs_perf_decode_ns(&b->engine.llm.perf, 1, 1024) >
	            fs_perf_decode_ns(&a->engine.llm.perf, 1, 1024) - h100->iteration_overhead_ns);
	fs_scenario_free(a);
	fs_scenario_free(b);
}

/* The step model's newer terms (P9-P14) are scenario keys: loaded onto the
 * perf cfg, they move the step time the way their physics says, and print
 * back; a value out of range is refused at its place. */
static void test_scenario_vllm_efficiency_step_terms(void **state)
{
	struct fs_scenario *a = load_vllm("\"model\": \"llama-3.1-70b\", \"gpu\": \"h100\", "
	                                  "\"tp\": 4", "", NULL);
	struct fs_scenario *b = load_vllm(
		"\"model\": \"llama-3.1-70b\", \"gpu\": \"h100\", \"tp\": 4, "
		"\"efficiency\": {\"mfu_8bit\": 0.5, \"attn_prefill_eff\": 0.7, "
		"\"attn_decode_eff\": 0.9, \"elementwise_eff\": 0.8, \"knee_exp\": 8, "
		"\"gemm_floor\": \"1us\", \"link_gbps\": 50}", "", NULL);
	const struct fs_perf_cfg *pa, *pb;
	struct fs_error err;
	char *text;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	pa = &a->engine.llm.perf;
	pb = &b->engine.llm.perf;
	assert_true(pb->mfu_8bit == 0.5 && pb->attn_prefill_eff == 0.7 &&
	            pb->attn_decode_eff == 0.9 && pb->elementwise_eff == 0.8 &&
	            pb->knee_exp == 8 && pb->link_bytes_per_s == 50e9);
	assert_int_equal(pb->gemm_floor_ns, FS_NS_PER_US);
	/* an all-reduce over a 50 GB/s link is slower than over NVLink's 403 */
	assert_true(fs_perf_allreduce_ns(pb, 64e6) > 4 * fs_perf_allreduce_ns(pa, 64e6));
	text = print_to_string(b);
	assert_has(text, "\"link_gbps\":\t50", "\"gemm_floor\":\t\"1us\"",
	           "\"knee_exp\":\t8");
	free(text);
	assert_null(load_vllm("\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", "
	                      "\"efficiency\": {\"knee_exp\": 0.5}", "", &err));
	assert_string_equal(err.path, "engine.efficiency.knee_exp");
	fs_scenario_free(a);
	fs_scenario_free(b);
}

static void test_scenario_vllm_errors_point_at_the_value(void **state)
{
	struct fs_error err;
	char buf[2048];

	(void)state;
	assert_null(load_vllm("\"model\": \"llama-3.1-8b\", \"gpu\": \"my-gpu\"", "", &err));
	assert_string_equal(err.path, "engine.gpu");
	assert_string_equal(err.msg, "unknown GPU \"my-gpu\"; see 'fleetsim catalog gpus' "
	                    "or define it under \"catalog\"");
	assert_null(load_vllm("\"model\": \"llama-3.1-8b\", \"gpu\": \"my-gpuu\"",
	                      "\"catalog\": {\"gpus\": [{\"id\": \"my-gpu\", \"base\": \"l4\"}]}",
	                      &err));
	assert_string_equal(err.msg, "unknown GPU \"my-gpuu\"; did you mean \"my-gpu\"?");
	/* a model that does not fit is reported at the engine with perf's numbers */
	assert_null(load_vllm("\"model\": \"llama-3.1-70b\", \"gpu\": \"l4\"", "", &err));
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(err.path, "engine");
	assert_non_null(strstr(buf, "engine: llama-3.1-70b on l4 (tp 1): does not fit: "));
	assert_null(load_vllm("\"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\", \"kv_blocks\": "
	                      "1000000", "", &err));
	assert_non_null(strstr(err.msg, "1000000 pinned KV blocks"));
}

static void test_scenario_vllm_notes_show_the_memory_plan(void **state)
{
	struct fs_scenario *sc = load_file_ok(LLM_EXAMPLE);
	char *buf = NULL, want[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(fs_scenario_print_notes(sc, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "// memory: weights 16.1 GB/GPU, activations "));
	snprintf(want, sizeof want, " blocks of 16 tokens (");
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof want, "// step model: roofline; mfu %.2f, mbu %.2f",
	         FS_GPU_MFU_DEFAULT, FS_GPU_MBU_DEFAULT);
	assert_non_null(strstr(buf, want));
	assert_null(strstr(buf, "warning"));
	free(buf);
	fs_scenario_free(sc);

	/* a queue engine has no notes */
	sc = load_file_ok(MINIMAL);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(fs_scenario_print_notes(sc, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "");
	free(buf);
	fs_scenario_free(sc);
}

static void test_scenario_catalog_model_rules(void **state)
{
	struct fs_scenario *sc;
	struct fs_error err;

	(void)state;
	/* a MoE base keeps its active parameters when params_b changes */
	sc = load_vllm_ok("\"model\": \"m\", \"gpu\": \"h200\", \"tp\": 8",
	                  "\"catalog\": {\"models\": [{\"id\": \"m\", \"base\": "
	                  "\"mixtral-8x7b\", \"params_b\": 50}]}");
	assert_true(sc->catalog.models[0].params == 50e9);
	assert_true(sc->catalog.models[0].active_params ==
	            fs_catalog_find_model("mixtral-8x7b")->active_params);
	fs_scenario_free(sc);
	/* head_dim cannot be derived */
	assert_null(load_vllm("\"model\": \"m\", \"gpu\": \"h100\"",
	                      "\"catalog\": {\"models\": [{\"id\": \"m\", \"layers\": 2, "
	                      "\"hidden\": 1000, \"heads\": 3, \"kv_heads\": 1, \"ffn\": 10, "
	                      "\"vocab\": 10, \"params_b\": 0.1, \"max_context\": 4096}]}",
	                      &err));
	assert_string_equal(err.path, "catalog.models[0]");
	assert_string_equal(err.msg, "hidden (1000) is not a multiple of heads (3): "
	                    "give \"head_dim\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_vllm_defaults_follow_vllm_serve),
		cmocka_unit_test(test_scenario_vllm_big_gpu_rule_sets_the_scheduler_defaults),
		cmocka_unit_test(test_scenario_vllm_every_key_and_the_catalogue_reach_the_config),
		cmocka_unit_test(test_scenario_vllm_efficiency_overrides_change_step_times),
		cmocka_unit_test(test_scenario_vllm_efficiency_step_terms),
		cmocka_unit_test(test_scenario_vllm_errors_point_at_the_value),
		cmocka_unit_test(test_scenario_vllm_notes_show_the_memory_plan),
		cmocka_unit_test(test_scenario_catalog_model_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
