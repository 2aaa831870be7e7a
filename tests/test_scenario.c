/*
 * test_scenario.c — loading good scenarios: every default, every section and
 * distribution, relative data paths, share normalisation, error positions,
 * the "vllm" engine (vLLM defaults, the big-GPU rule, efficiency overrides,
 * step tables, the memory plan) and the scenario catalogue, the print / load
 * round trip (deep comparison of the two configs), and the SHA-256 of the
 * file against the FIPS 180-2 example vectors.  Bad scenarios have their own
 * suite (test_bad_scenarios.c).
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
#include "../src/sha256.h"

#define FULL "tests/data/scenario_full.json"
#define MINIMAL "tests/data/scenario_minimal.json"
#define VLLM "tests/data/scenario_vllm.json"
#define LLM_EXAMPLE "scenarios/llm-single-replica.json"
#define FLEET "tests/data/scenario_fleet.json"
#define SWEEP_EXAMPLE "scenarios/sweep-fleet-size.json"

/* Load text as "t.json" with relative paths resolved in tests/data. */
static struct fs_scenario *load_str(const char *text, struct fs_error *err)
{
	return fs_scenario_load_text(text, strlen(text), "t.json", "tests/data", err);
}

static struct fs_scenario *load_ok(const char *text)
{
	struct fs_error err;
	struct fs_scenario *sc = load_str(text, &err);
	char buf[2048];

	if (sc == NULL) {
		fs_error_format(&err, buf, sizeof buf);
		fail_msg("load failed: %s", buf);
	}
	return sc;
}

static struct fs_scenario *load_file_ok(const char *path)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load(path, &err);
	char buf[2048];

	if (sc == NULL) {
		fs_error_format(&err, buf, sizeof buf);
		fail_msg("load of %s failed: %s", path, buf);
	}
	return sc;
}

static char *print_to_string(const struct fs_scenario *sc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fs_scenario_print(sc, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

#define SIMPLE_CLASS \
	"{\"name\": \"c\", \"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1}," \
	" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}," \
	" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}"
#define ENGINE \
	"\"engine\": {\"type\": \"queue\", \"service\": {\"dist\": \"fixed\", \"mean\": 1}}"

/* ---- defaults and fields ------------------------------------------------------ */

static void test_scenario_minimal_file_gets_every_default(void **state)
{
	struct fs_scenario *sc = load_file_ok(MINIMAL);
	const struct fs_class_cfg *c;

	(void)state;
	assert_string_equal(sc->path, MINIMAL);
	assert_string_equal(sc->name, "scenario_minimal");
	assert_string_equal(sc->description, "");
	assert_int_equal(strlen(sc->sha256_hex), 64);
	assert_int_equal(sc->sim.horizon_ns, 3600 * FS_NS_PER_S);
	assert_int_equal(sc->sim.warmup_ns, 0);
	assert_int_equal(sc->sim.sample_interval_ns, 36 * FS_NS_PER_S);
	assert_near(sc->sim.start_hour, 0.0, 0.0, 0.0);
	assert_int_equal(sc->sim.seed, 1);
	assert_int_equal(sc->sim.replications, 8);
	assert_int_equal(sc->sim.max_in_system, 1000000);
	assert_false(sc->workload.has_shared_arrivals);
	assert_int_equal(sc->workload.n_classes, 1);
	c = &sc->workload.classes[0];
	assert_string_equal(c->name, "chat");
	assert_true(c->own_arrivals);
	assert_int_equal(c->arrivals.kind, FS_ARRIVAL_POISSON);
	assert_near(c->arrivals.rate_per_s, 2.0, 0.0, 0.0);
	assert_false(c->arrivals.diurnal);
	assert_int_equal(c->arrivals.n_schedule, 0);
	assert_int_equal(c->arrivals.n_spikes, 0);
	assert_int_equal(c->prompt.kind, FS_LENGTH_FIXED);
	assert_int_equal(c->prompt.fixed_tokens, 100);
	assert_int_equal(c->prompt.min_tokens, 1);
	assert_int_equal(c->prompt.max_tokens, 1048576);
	assert_int_equal(c->output.fixed_tokens, 20);
	assert_int_equal(c->slo.ttft_ns, 0);
	assert_int_equal(c->slo.tpot_ns, 0);
	assert_int_equal(c->slo.e2e_ns, 0);
	assert_near(c->slo.attainment, 0.99, 0.0, 0.0);
	assert_int_equal(c->priority, 0);
	assert_int_equal(sc->engine.kind, FS_ENGINE_QUEUE);
	assert_int_equal(sc->engine.servers, 1);
	assert_int_equal(sc->engine.service.kind, FS_SERVICE_EXPONENTIAL);
	assert_int_equal(sc->engine.service.mean_ns, 200 * FS_NS_PER_MS);
	assert_int_equal(sc->engine.discipline, FS_DISCIPLINE_FCFS);
	fs_scenario_free(sc);
}

static void test_scenario_full_file_fills_every_field(void **state)
{
	struct fs_scenario *sc = load_file_ok(FULL);
	const struct fs_workload_cfg *w = &sc->workload;
	const struct fs_class_cfg *chat, *batch, *burst, *replay;

	(void)state;
	assert_string_equal(sc->name, "full");
	assert_string_equal(sc->description, "a // not a comment /* nor this */ \"quoted\"");
	assert_int_equal(sc->sim.horizon_ns, 2 * 86400 * FS_NS_PER_S);
	assert_int_equal(sc->sim.warmup_ns, 1800 * FS_NS_PER_S);
	assert_int_equal(sc->sim.sample_interval_ns, 60 * FS_NS_PER_S);
	assert_near(sc->sim.start_hour, 6.5, 0.0, 0.0);
	assert_true(sc->sim.seed == UINT64_C(9007199254740992));
	assert_int_equal(sc->sim.replications, 3);
	assert_int_equal(sc->sim.max_in_system, 5000);

	assert_true(w->has_shared_arrivals);
	assert_int_equal(w->arrivals.kind, FS_ARRIVAL_GAMMA);
	assert_near(w->arrivals.rate_per_s, 12.5, 0.0, 0.0);
	assert_near(w->arrivals.cv, 2.0, 0.0, 0.0);
	assert_true(w->arrivals.diurnal);
	assert_near(w->arrivals.diurnal_peak_to_trough, 4.0, 0.0, 0.0);
	assert_near(w->arrivals.diurnal_peak_hour, 14.0, 0.0, 0.0);
	assert_int_equal(w->arrivals.n_spikes, 1);
	assert_int_equal(w->arrivals.spikes[0].at_ns, 3600 * FS_NS_PER_S);
	assert_int_equal(w->arrivals.spikes[0].dur_ns, 600 * FS_NS_PER_S);
	assert_near(w->arrivals.spikes[0].multiplier, 3.0, 0.0, 0.0);
	assert_int_equal(w->n_classes, 5);

	chat = &w->classes[0];
	assert_false(chat->own_arrivals);
	assert_near(chat->share, 0.75, 0.0, 0.0);           /* 3 / (3 + 1) */
	assert_int_equal(chat->prompt.kind, FS_LENGTH_LOGNORMAL);
	assert_near(chat->prompt.median_tokens, 512.0, 0.0, 0.0);
	assert_near(chat->prompt.sigma, 0.9, 0.0, 0.0);
	assert_int_equal(chat->prompt.max_tokens, 8192);
	assert_int_equal(chat->output.kind, FS_LENGTH_ZIPF);
	assert_int_equal(chat->output.zipf_n, 1000);
	assert_near(chat->output.zipf_s, 1.2, 0.0, 0.0);
	assert_non_null(chat->output.zipf_cdf);
	assert_near(chat->output.zipf_cdf[999], 1.0, 0.0, 0.0);
	assert_int_equal(chat->slo.ttft_ns, 2 * FS_NS_PER_S);
	assert_int_equal(chat->slo.tpot_ns, 100 * FS_NS_PER_MS);
	assert_int_equal(chat->slo.e2e_ns, 30 * FS_NS_PER_S);
	assert_near(chat->slo.attainment, 0.95, 0.0, 0.0);
	assert_int_equal(chat->priority, -5);

	batch = &w->classes[1];
	assert_near(batch->share, 0.25, 0.0, 0.0);
	assert_int_equal(batch->prompt.kind, FS_LENGTH_UNIFORM);
	assert_int_equal(batch->prompt.min_tokens, 10);
	assert_int_equal(batch->prompt.max_tokens, 100);
	assert_int_equal(batch->output.kind, FS_LENGTH_EMPIRICAL);
	assert_string_equal(batch->output.empirical_path, "scenario_lengths.txt");
	assert_int_equal(batch->output.n_empirical, 4);
	assert_int_equal(batch->output.empirical[3], 2048);
	assert_null(batch->output.empirical_column);

	burst = &w->classes[2];
	assert_true(burst->own_arrivals);
	assert_near(burst->share, 0.0, 0.0, 0.0);
	assert_int_equal(burst->arrivals.kind, FS_ARRIVAL_WEIBULL);
	assert_near(burst->arrivals.weibull_shape, 0.7, 0.0, 0.0);
	assert_int_equal(burst->arrivals.n_schedule, 3);
	assert_int_equal(burst->arrivals.schedule[1].at_ns, 8 * 3600 * FS_NS_PER_S);
	assert_near(burst->arrivals.schedule[1].rate_per_s, 5.5, 0.0, 0.0);
	assert_int_equal(burst->arrivals.schedule_period_ns, 86400 * FS_NS_PER_S);
	assert_int_equal(burst->prompt.kind, FS_LENGTH_EMPIRICAL);
	assert_string_equal(burst->prompt.empirical_column, "tokens");
	assert_int_equal(burst->prompt.n_empirical, 3);
	assert_int_equal(burst->prompt.empirical[1], 400);
	assert_int_equal(burst->output.min_tokens, 8);
	assert_int_equal(burst->output.max_tokens, 64);

	replay = &w->classes[3];
	assert_int_equal(replay->arrivals.kind, FS_ARRIVAL_TRACE);
	assert_non_null(replay->arrivals.trace.trace);
	assert_string_equal(replay->arrivals.trace.trace->path, "scenario_azure.csv");
	assert_int_equal(replay->arrivals.trace.trace->n_rows, 4);
	assert_near(replay->arrivals.trace.time_scale, 0.5, 0.0, 0.0);
	assert_near(replay->arrivals.trace.rate_scale, 2.0, 0.0, 0.0);
	assert_false(replay->arrivals.trace.loop);
	assert_int_equal(replay->arrivals.trace.start_offset_ns, FS_NS_PER_S);
	assert_int_equal(replay->prompt.kind, FS_LENGTH_TRACE);   /* from the trace */
	assert_int_equal(replay->output.kind, FS_LENGTH_FIXED);   /* overridden */

	assert_int_equal(sc->engine.servers, 16);
	assert_int_equal(sc->engine.discipline, FS_DISCIPLINE_PRIORITY);
	assert_int_equal(sc->engine.service.kind, FS_SERVICE_LOGNORMAL);
	assert_int_equal(sc->engine.service.mean_ns, 1500 * FS_NS_PER_MS);
	assert_near(sc->engine.service.cv, 0.5, 0.0, 0.0);
	fs_scenario_free(sc);
}

static void test_scenario_sample_interval_default_is_a_hundredth_of_horizon(void **state)
{
	static const struct { const char *horizon; fs_ns want_ns; } cases[] = {
		{ "\"1h\"", 36 * FS_NS_PER_S },       /* 36 s exactly */
		{ "\"2d\"", 1728 * FS_NS_PER_S },
		{ "\"150s\"", 2 * FS_NS_PER_S },      /* 1.5 s rounds to 2 s */
		{ "\"10s\"", FS_NS_PER_S },           /* 0.1 s: at least 1 s */
		{ "0.5", 500 * FS_NS_PER_MS },        /* at most the horizon */
	};
	char text[1024];
	struct fs_scenario *sc;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(text, sizeof text, "{\"simulation\": {\"horizon\": %s}, "
		         "\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, " ENGINE "}",
		         cases[i].horizon);
		sc = load_ok(text);
		assert_int_equal(sc->sim.sample_interval_ns, cases[i].want_ns);
		fs_scenario_free(sc);
	}
}

static void test_scenario_shares_that_sum_to_one_are_kept_exactly(void **state)
{
	struct fs_scenario *sc = load_ok(
		"{\"simulation\": {\"horizon\": 10}, \"workload\": {"
		"\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1},"
		"\"classes\": [{\"name\": \"a\", \"share\": 0.1,"
		" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
		" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1}},"
		"{\"name\": \"b\", \"share\": 0.2,"
		" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
		" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1}},"
		"{\"name\": \"c\", \"share\": 0.7,"
		" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
		" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1}}]}, " ENGINE "}");

	(void)state;
	assert_true(sc->workload.classes[0].share == 0.1);
	assert_true(sc->workload.classes[1].share == 0.2);
	assert_true(sc->workload.classes[2].share == 0.7);
	fs_scenario_free(sc);
}

static void test_scenario_durations_accept_numbers_of_seconds(void **state)
{
	struct fs_scenario *sc = load_ok(
		"{\"simulation\": {\"horizon\": 90.5, \"warmup\": 0.1}, "
		"\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, " ENGINE "}");

	(void)state;
	assert_int_equal(sc->sim.horizon_ns, 90500 * FS_NS_PER_MS);
	assert_int_equal(sc->sim.warmup_ns, 100 * FS_NS_PER_MS);
	assert_int_equal(sc->engine.service.mean_ns, FS_NS_PER_S);
	fs_scenario_free(sc);
}

static void test_scenario_name_defaults_to_the_file_stem(void **state)
{
	const char *text = "{\"simulation\": {\"horizon\": 10}, "
	                   "\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, " ENGINE "}";
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_text(text, strlen(text),
	                                               "some/dir/my.run.json", ".", &err);

	(void)state;
	assert_non_null(sc);
	assert_string_equal(sc->name, "my.run");
	fs_scenario_free(sc);
}

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
	assert_near(llm->mem.usable_bytes_per_gpu, 43.2e9, 0, 1e-12);
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
	assert_non_null(strstr(text, "\"link_gbps\":\t50"));
	assert_non_null(strstr(text, "\"gemm_floor\":\t\"1us\""));
	assert_non_null(strstr(text, "\"knee_exp\":\t8"));
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

/* ---- errors ------------------------------------------------------------------------- */

static void test_scenario_error_position_counts_lines_and_byte_columns(void **state)
{
	const char *text =
		"// header comment\n"
		"{ /* a block\n"
		"     comment */ \"simulation\": {\n"
		"\t\"horizon\": \"1h\", \"seeed\": 3\n"
		"}}\n";
	struct fs_error err;

	(void)state;
	assert_null(load_str(text, &err));
	assert_string_equal(err.where, "t.json:4:19");    /* the tab is one byte */
	assert_string_equal(err.path, "simulation.seeed");
	assert_string_equal(err.msg, "unknown key \"seeed\"; did you mean \"seed\"?");
}

static void test_scenario_failed_load_returns_null_and_fills_the_error(void **state)
{
	struct fs_error err;
	char buf[2048];

	(void)state;
	assert_null(fs_scenario_load("tests/data/no_such_scenario.json", &err));
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, "tests/data/no_such_scenario.json: cannot open "
	                    "scenario: No such file or directory");
	/* A NULL error record is allowed. */
	assert_null(fs_scenario_load("tests/data/no_such_scenario.json", NULL));
	assert_null(load_str("{", NULL));
	assert_null(load_str("{\"simulation\": 1}", NULL));
}

static void test_scenario_rejects_nul_bytes(void **state)
{
	const char text[] = "{\"name\": \"a\0b\"}";
	struct fs_error err;

	(void)state;
	assert_null(fs_scenario_load_text(text, sizeof text - 1, "t.json", ".", &err));
	assert_string_equal(err.where, "t.json:1:12");
	assert_string_equal(err.msg, "invalid JSON: unexpected NUL byte");
}

/* ---- fleets and variants ------------------------------------------------------------ */

#define FLEET_DOC(engine_extra, fleet) \
	"{\"simulation\": {\"horizon\": \"1h\"}, \"workload\": {\"classes\": [" \
	SIMPLE_CLASS "]}, \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\"" \
	engine_extra "}, \"fleet\": " fleet "}"

static void test_scenario_fleet_implicit_pool_is_built_from_the_engine(void **state)
{
	struct fs_scenario *sc = load_file_ok(VLLM), *q;
	const struct fs_fleet_cfg *f = &sc->fleet;
	const struct fs_pool_cfg *p;

	(void)state;
	assert_false(f->explicit_fleet);
	assert_int_equal(f->n_zones, 1);
	assert_string_equal(f->zones[0].name, "default");
	assert_null(f->zones[0].trace);
	assert_int_equal(f->n_pools, 1);
	p = &f->pools[0];
	assert_string_equal(p->name, "l40s");
	assert_int_equal(p->pricing, FS_PRICING_ON_DEMAND);
	assert_int_equal(p->count, 3);
	assert_int_equal(p->min_count, 3);
	assert_int_equal(p->max_count, 3);
	assert_true(p->warm_start);
	assert_int_equal(p->n_zones, 1);
	assert_int_equal(p->zones[0], 0);
	/* the scenario catalogue's l40s at $0.99 per GPU-hour, TP 2 */
	assert_near(p->price_usd_per_h, 1.98, 1e-12, 0);
	assert_int_equal(p->billing.granularity, FS_BILL_PER_SECOND);
	assert_int_equal(p->billing.minimum_ns, 60 * FS_NS_PER_S);
	assert_int_equal(p->llm->sched.kv_blocks, sc->engine.llm.sched.kv_blocks);
	assert_ptr_equal(p->llm->perf.table, sc->engine.llm.perf.table);
	assert_null(p->llm->step_table);
	assert_int_equal(p->fallback_pool, -1);
	assert_int_equal(f->router, FS_ROUTER_LEAST_OUTSTANDING);
	assert_int_equal(f->strategy, FS_STRATEGY_NONE);
	assert_false(f->autoscale.enabled);
	assert_int_equal(f->autoscale.pool, -1);
	assert_int_equal(f->class_pool[0], -1);
	assert_null(sc->variant);
	/* a printed implicit fleet stays implicit */
	{
		char *text = print_to_string(sc);

		assert_null(strstr(text, "\"fleet\""));
		free(text);
	}
	q = load_file_ok(MINIMAL);
	assert_int_equal(q->fleet.n_pools, 0);
	fs_scenario_free(q);
	fs_scenario_free(sc);
}

static void test_scenario_fleet_pools_get_their_gpus_defaults_and_memory(void **state)
{
	struct fs_scenario *sc = load_file_ok(FLEET);
	const struct fs_fleet_cfg *f = &sc->fleet;
	const struct fs_llm_cfg *h100, *l40s, *a100;

	(void)state;
	assert_true(f->explicit_fleet);
	assert_int_equal(f->n_pools, 3);
	h100 = f->pools[0].llm;
	l40s = f->pools[1].llm;
	a100 = f->pools[2].llm;
	assert_string_equal(h100->perf.gpu->id, "h100");
	assert_string_equal(l40s->perf.gpu->id, "l40s");
	assert_int_equal(a100->perf.tp, 2);
	/* V17: H100 is big, L40S and A100 are not */
	assert_int_equal(h100->sched.max_num_seqs, 1024);
	assert_int_equal(h100->sched.max_num_batched_tokens, 8192);
	assert_int_equal(l40s->sched.max_num_seqs, 256);
	assert_int_equal(l40s->sched.max_num_batched_tokens, 2048);
	assert_int_equal(a100->sched.max_num_batched_tokens, 2048);
	/* the engine's max_model_len reaches every pool */
	assert_int_equal(l40s->sched.max_model_len, 8192);
	assert_int_equal(a100->sched.max_model_len, 8192);
	assert_true(h100->mem.kv_blocks > l40s->mem.kv_blocks);
	assert_true(a100->mem.kv_blocks > h100->mem.kv_blocks);
	assert_int_equal(l40s->sched.kv_blocks, l40s->mem.kv_blocks - 1);
	/* the engine's llm is pool 0's; replicas count every pool */
	assert_string_equal(sc->engine.llm.perf.gpu->id, "h100");
	assert_int_equal(sc->engine.llm.sched.kv_blocks, h100->sched.kv_blocks);
	assert_int_equal(sc->engine.llm.replicas, 4);
	fs_scenario_free(sc);
}

static void test_scenario_fleet_pool_keys_reach_the_config(void **state)
{
	struct fs_scenario *sc = load_file_ok(FLEET);
	const struct fs_fleet_cfg *f = &sc->fleet;
	const struct fs_pool_cfg *od = &f->pools[0], *spot = &f->pools[1], *res = &f->pools[2];
	const struct fs_gpu_spec *l40s = fs_catalog_find_gpu("l40s");

	(void)state;
	assert_int_equal(f->router, FS_ROUTER_COST_AWARE);
	assert_int_equal(f->strategy, FS_STRATEGY_FALLBACK);
	assert_int_equal(f->n_zones, 2);
	assert_non_null(f->zones[0].trace);
	assert_false(f->zones[0].trace->loop);
	assert_true(f->zones[0].trace->scale == 3);
	assert_int_equal(f->zones[0].trace->capacity[f->zones[0].trace->n_steps - 1] >= 0, 1);
	assert_int_equal(od->n_zones, 1);
	assert_int_equal(od->zones[0], 1);
	assert_false(od->warm_start);
	assert_int_equal(od->provisioning.kind, FS_DELAY_UNIFORM);
	assert_int_equal(od->provisioning.min_ns, 60 * FS_NS_PER_S);
	assert_int_equal(od->provisioning.max_ns, 120 * FS_NS_PER_S);
	assert_true(od->download_bytes_per_s == 1.25e9);
	assert_true(od->load_bytes_per_s == 3e9);
	assert_int_equal(od->engine_start_ns, 45 * FS_NS_PER_S);
	assert_int_equal(od->billing.granularity, FS_BILL_PER_HOUR);
	assert_int_equal(od->billing.minimum_ns, 3600 * FS_NS_PER_S);
	assert_true(od->price_usd_per_h == fs_catalog_find_gpu("h100")->price_on_demand_usd_per_h);
	assert_int_equal(spot->pricing, FS_PRICING_SPOT);
	assert_int_equal(spot->overprovision, 1);
	assert_false(spot->spread_zones);
	assert_int_equal(spot->n_zones, 2);
	assert_true(spot->price_usd_per_h == l40s->price_spot_usd_per_h);
	assert_int_equal(spot->n_price_steps, 2);
	assert_int_equal(spot->price_steps[1].at_ns, 3600 * FS_NS_PER_S);
	assert_true(spot->price_steps[1].usd_per_h == 1.1);
	/* band ">20%" -> the capacity module's rate; 2 reclaims a day */
	assert_true(spot->spot.interrupt_rate_per_h == fs_spot_band_rate_per_h(">20%"));
	assert_true(spot->spot.zone_reclaim_rate_per_h == 2.0 / 24.0);
	assert_int_equal(spot->spot.zone_outage_ns, 20 * 60 * FS_NS_PER_S);
	assert_int_equal(spot->spot.notice_ns, 30 * FS_NS_PER_S);
	assert_int_equal(spot->spot.in_flight, FS_INFLIGHT_DRAIN);
	assert_int_equal(spot->spot.relaunch_retry_ns, 120 * FS_NS_PER_S);
	assert_int_equal(spot->fallback_pool, 0);
	assert_int_equal(res->pricing, FS_PRICING_MONTHLY);
	assert_true(res->commit_fee == 2500);
	assert_true(res->price_usd_per_h == 0);
	assert_int_equal(res->provisioning.kind, FS_DELAY_EXPONENTIAL);
	fs_scenario_free(sc);
}

static void test_scenario_fleet_spot_pool_defaults(void **state)
{
	struct fs_scenario *sc = load_ok(FLEET_DOC(", \"gpu\": \"l40s\", \"tp\": 2",
		"{\"pools\": [{\"name\": \"s\", \"pricing\": \"spot\", \"count\": 2}]}"));
	const struct fs_pool_cfg *p = &sc->fleet.pools[0];
	const struct fs_gpu_spec *g = fs_catalog_find_gpu("l40s");

	(void)state;
	assert_int_equal(p->llm->perf.tp, 2);
	assert_true(p->price_usd_per_h == g->price_spot_usd_per_h * 2);
	assert_true(p->spot.interrupt_rate_per_h == fs_spot_band_rate_per_h("5-10%"));
	assert_true(p->spot.zone_reclaim_rate_per_h == 0);
	assert_int_equal(p->spot.zone_outage_ns, 30 * 60 * FS_NS_PER_S);
	assert_int_equal(p->spot.notice_ns, 120 * FS_NS_PER_S);
	assert_int_equal(p->spot.in_flight, FS_INFLIGHT_REQUEUE);
	assert_int_equal(p->spot.relaunch_retry_ns, 60 * FS_NS_PER_S);
	assert_int_equal(p->overprovision, 0);
	assert_int_equal(p->min_count, 2);
	assert_int_equal(p->max_count, 2);
	assert_true(p->spread_zones);
	assert_true(p->warm_start);
	assert_int_equal(p->provisioning.kind, FS_DELAY_LOGNORMAL);
	assert_int_equal(p->provisioning.mean_ns, 90 * FS_NS_PER_S);
	assert_true(p->provisioning.cv == 0.5);
	assert_true(p->download_bytes_per_s == 0.5e9);
	assert_true(p->load_bytes_per_s == 2e9);
	assert_int_equal(p->engine_start_ns, 30 * FS_NS_PER_S);
	assert_int_equal(sc->fleet.n_zones, 1);
	assert_string_equal(sc->fleet.zones[0].name, "default");
	assert_int_equal(sc->fleet.router, FS_ROUTER_LEAST_OUTSTANDING);
	fs_scenario_free(sc);

	/* a monthly share of 10% -> -ln(0.9) / 730 per hour, and it prints back */
	sc = load_ok(FLEET_DOC(", \"gpu\": \"l40s\"",
		"{\"pools\": [{\"name\": \"s\", \"pricing\": \"spot\", \"count\": 1, "
		"\"spot\": {\"interruption_rate_per_month\": 0.1, "
		"\"zone_reclaims_per_day\": 0.7}}]}"));
	assert_near(sc->fleet.pools[0].spot.interrupt_rate_per_h, -log(0.9) / 730.0, 0, 1e-12);
	{
		char *text = print_to_string(sc);
		struct fs_scenario *back = load_ok(text);

		assert_true(back->fleet.pools[0].spot.interrupt_rate_per_h ==
		            sc->fleet.pools[0].spot.interrupt_rate_per_h);
		assert_true(back->fleet.pools[0].spot.zone_reclaim_rate_per_h ==
		            sc->fleet.pools[0].spot.zone_reclaim_rate_per_h);
		fs_scenario_free(back);
		free(text);
	}
	fs_scenario_free(sc);
}

static void test_scenario_fleet_autoscale_and_class_pins(void **state)
{
	struct fs_scenario *sc = load_file_ok(FLEET), *d;
	const struct fs_autoscale_cfg *as = &sc->fleet.autoscale;

	(void)state;
	assert_true(as->enabled);
	assert_int_equal(as->pool, 0);
	assert_int_equal(as->metric, FS_SCALE_KV_USE);
	assert_true(as->target == 0.7);
	assert_true(as->tolerance == 0.2);
	assert_int_equal(as->interval_ns, 15 * FS_NS_PER_S);
	assert_int_equal(as->up.window_ns, 120 * FS_NS_PER_S);
	assert_int_equal(as->up.n_policies, 2);          /* the upstream defaults */
	assert_int_equal(as->down.window_ns, 600 * FS_NS_PER_S);
	assert_int_equal(as->down.select, FS_SELECT_MIN);
	assert_int_equal(as->down.n_policies, 2);
	assert_false(as->down.policies[0].percent);
	assert_true(as->down.policies[0].value == 1);
	assert_int_equal(as->down.policies[0].period_ns, 60 * FS_NS_PER_S);
	assert_true(as->down.policies[1].percent);
	assert_true(as->down.policies[1].value == 50);
	assert_int_equal(as->n_schedule, 2);
	assert_true(as->schedule[1].at_h == 9.5);
	assert_int_equal(as->schedule[1].min_count, 2);
	assert_true(as->idle_busy_below == 0.05);
	assert_int_equal(as->idle_for_ns, 20 * 60 * FS_NS_PER_S);
	assert_int_equal(sc->fleet.class_pool[0], -1);
	assert_int_equal(sc->fleet.class_pool[1], 2);
	fs_scenario_free(sc);

	d = load_ok(FLEET_DOC(", \"gpu\": \"l40s\"",
		"{\"pools\": [{\"name\": \"p\", \"count\": 1, \"max\": 3}], "
		"\"autoscale\": {\"pool\": \"p\", \"target\": 4}}"));
	as = &d->fleet.autoscale;
	/* HPA defaults: tolerance 0.1, sync period 15 s, scale up with no
	 * window by max(4 instances, 100%) per 15 s, scale down after a 300 s
	 * window by 100% per 15 s; KEDA-like zero after 300 s without work. */
	assert_int_equal(as->metric, FS_SCALE_CONCURRENCY);
	assert_true(as->tolerance == 0.1);
	assert_int_equal(as->interval_ns, 15 * FS_NS_PER_S);
	assert_int_equal(as->up.window_ns, 0);
	assert_int_equal(as->up.n_policies, 2);
	assert_true(as->up.policies[0].value == 4 && !as->up.policies[0].percent);
	assert_true(as->up.policies[1].value == 100 && as->up.policies[1].percent);
	assert_int_equal(as->up.select, FS_SELECT_MAX);
	assert_int_equal(as->down.window_ns, 300 * FS_NS_PER_S);
	assert_int_equal(as->down.n_policies, 1);
	assert_true(as->down.policies[0].value == 100 && as->down.policies[0].percent);
	assert_true(as->activation == 1);
	assert_int_equal(as->zero_grace_ns, 300 * FS_NS_PER_S);
	assert_true(as->idle_busy_below == 0.1);
	assert_int_equal(as->idle_for_ns, 30 * 60 * FS_NS_PER_S);
	fs_scenario_free(d);
}

static void expect_variant_error(const char *variant, const char *const *sets, size_t n,
                                 const char *want)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_variant(FLEET, variant, sets, n, &err);
	char got[2048];

	if (sc != NULL) {
		fs_scenario_free(sc);
		fail_msg("variant %s loaded without error", variant);
	}
	fs_error_format(&err, got, sizeof got);
	assert_string_equal(got, want);
}

static void test_scenario_variants_list_load_and_command_line_sets(void **state)
{
	struct fs_scenario *base = load_file_ok(FLEET), *v;
	const char *sets[] = { "fleet.pools[0].count=3", "fleet.router=\"least_kv\"",
	                       "workload.arrivals.rate_per_s=7.5" };
	const char *bad_json[] = { "fleet.pools[0].count=abc" };
	const char *bad_path[] = { "fleet.pols[0].count=4" };
	const char *bad_value[] = { "fleet.pools[0].count=-2" };
	struct fs_error err;
	char **names = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(fs_scenario_list_variants(FLEET, &names, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "relaunch");
	assert_string_equal(names[1], "more-spot");
	assert_string_equal(names[2], "bad-count");
	fs_scenario_variants_free(names, n);
	assert_int_equal(fs_scenario_list_variants(MINIMAL, &names, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(names);

	v = fs_scenario_load_variant(FLEET, "more-spot", NULL, 0, &err);
	assert_non_null(v);
	assert_string_equal(v->variant, "more-spot");
	assert_string_equal(v->name, base->name);
	assert_string_equal(v->sha256_hex, base->sha256_hex);
	assert_int_equal(v->fleet.pools[1].count, 4);
	assert_int_equal(v->fleet.pools[1].spot.notice_ns, 120 * FS_NS_PER_S);
	assert_int_equal(v->fleet.pools[0].llm->sched.max_num_seqs, 128);
	assert_int_equal(v->fleet.pools[2].llm->sched.max_num_seqs, 128);
	fs_scenario_free(v);

	/* null removes a key: the relaunch variant drops the fallback pool */
	v = fs_scenario_load_variant(FLEET, "relaunch", sets, 3, &err);
	assert_non_null(v);
	assert_int_equal(v->fleet.strategy, FS_STRATEGY_RELAUNCH);
	assert_int_equal(v->fleet.pools[1].fallback_pool, -1);
	assert_int_equal(v->fleet.pools[0].count, 3);
	assert_int_equal(v->fleet.router, FS_ROUTER_LEAST_KV);
	assert_true(v->workload.arrivals.rate_per_s == 7.5);
	fs_scenario_free(v);

	expect_variant_error("bad-count", NULL, 0, FLEET ":60:59: fleet.pools[0].count: "
	                     "expected a value >= 0, found -1");
	expect_variant_error("more-spots", NULL, 0, FLEET ":54:14: variants: unknown "
	                     "variant \"more-spots\"; did you mean \"more-spot\"?");
	expect_variant_error(NULL, bad_json, 1, "--set fleet.pools[0].count=abc: "
	                     "value byte 1: invalid JSON: expected a value (object, array, "
	                     "string, number, true, false or null), found 'abc'");
	expect_variant_error(NULL, bad_path, 1, "--set fleet.pols[0].count=4: no key "
	                     "\"pols\" at fleet; did you mean \"pools\"?");
	expect_variant_error(NULL, bad_value, 1, "--set fleet.pools[0].count=-2: "
	                     "fleet.pools[0].count: expected a value >= 0, found -2");
	fs_scenario_free(base);
}

/* ---- sweeps and objectives --------------------------------------------------------- */

#define STUDY_DOC(study) \
	"{\"simulation\": {\"horizon\": \"1h\", \"replications\": 4}, \"workload\": " \
	"{\"classes\": [" SIMPLE_CLASS ", {\"name\": \"batch\", \"arrivals\": " \
	"{\"process\": \"poisson\", \"rate_per_s\": 1}, \"prompt_tokens\": " \
	"{\"dist\": \"fixed\", \"tokens\": 10}, \"output_tokens\": {\"dist\": " \
	"\"fixed\", \"tokens\": 10}}]}, \"engine\": {\"type\": \"vllm\", \"model\": " \
	"\"llama-3.1-8b\", \"gpu\": \"l40s\"}, \"fleet\": {\"pools\": [{\"name\": " \
	"\"a\", \"count\": 1}]}, " study "}"

/* Every point's label, its sets joined by ',' (they must agree), and the
 * coordinates -> index round trip. */
static void assert_points(const struct fs_sweep_cfg *sw, const char *const *want)
{
	size_t n = fs_sweep_n_points(sw), p, a, idx[8];
	char label[512], joined[512], *sets[8];

	for (p = 0; p < n; p++) {
		fs_sweep_point_label(sw, p, label, sizeof label);
		assert_string_equal(label, want[p]);
		fs_sweep_point_sets(sw, p, sets);
		joined[0] = '\0';
		for (a = 0; a < sw->n_axes; a++) {
			if (a > 0)
				strcat(joined, ",");
			strcat(joined, sets[a]);
		}
		fs_sweep_point_sets_free(sets, sw->n_axes);
		assert_string_equal(joined, want[p]);
		fs_sweep_point_coords(sw, p, idx);
		assert_int_equal(fs_sweep_point_index(sw, idx), p);
	}
	assert_null(want[n]);
}

static void test_scenario_sweep_grid_turns_the_last_axis_fastest(void **state)
{
	struct fs_scenario *sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"axes\": [{\"path\": \"fleet.pools[0].gpu\", \"values\": "
		"[\"l40s\", \"h100\"]}, {\"path\": \"fleet.pools[0].count\", \"range\": "
		"{\"from\": 1, \"to\": 3}}], \"baseline\": 4}"));
	const struct fs_sweep_cfg *sw = &sc->sweep;
	const char *const want[] = {
		"fleet.pools[0].gpu=\"l40s\",fleet.pools[0].count=1",
		"fleet.pools[0].gpu=\"l40s\",fleet.pools[0].count=2",
		"fleet.pools[0].gpu=\"l40s\",fleet.pools[0].count=3",
		"fleet.pools[0].gpu=\"h100\",fleet.pools[0].count=1",
		"fleet.pools[0].gpu=\"h100\",fleet.pools[0].count=2",
		"fleet.pools[0].gpu=\"h100\",fleet.pools[0].count=3",
		NULL
	};
	size_t idx[2] = { 1, 0 };
	char small[12];

	(void)state;
	assert_true(sw->present);
	assert_int_equal(sw->mode, FS_SWEEP_GRID);
	assert_int_equal(sw->n_axes, 2);
	assert_false(sw->axes[0].search);
	assert_int_equal(sw->baseline, 4);
	assert_int_equal(fs_sweep_n_points(sw), 6);
	assert_points(sw, want);
	assert_int_equal(fs_sweep_point_index(sw, idx), 3);
	fs_sweep_point_label(sw, 5, small, sizeof small);     /* truncated, ended */
	assert_string_equal(small, "fleet.pools");
	assert_false(sc->objective.present);
	fs_scenario_free(sc);

	/* no "sweep": one point, the base, with no sets */
	sc = load_ok(STUDY_DOC("\"name\": \"plain\""));
	assert_false(sc->sweep.present);
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 1);
	fs_sweep_point_label(&sc->sweep, 0, small, sizeof small);
	assert_string_equal(small, "");
	fs_scenario_free(sc);
}

static void test_scenario_sweep_zip_and_search_points(void **state)
{
	struct fs_scenario *sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"mode\": \"zip\", \"axes\": [{\"path\": "
		"\"fleet.pools[0].count\", \"values\": [1, 2, 4]}, {\"path\": "
		"\"fleet.pools[0].pricing\", \"values\": [\"on_demand\", \"spot\", "
		"\"spot\"]}]}"));
	const char *const zip[] = {
		"fleet.pools[0].count=1,fleet.pools[0].pricing=\"on_demand\"",
		"fleet.pools[0].count=2,fleet.pools[0].pricing=\"spot\"",
		"fleet.pools[0].count=4,fleet.pools[0].pricing=\"spot\"",
		NULL
	};
	const char *const search[] = {
		"fleet.pools[0].count=2,fleet.pools[0].gpu=\"l40s\"",
		"fleet.pools[0].count=2,fleet.pools[0].gpu=\"h100\"",
		"fleet.pools[0].count=4,fleet.pools[0].gpu=\"l40s\"",
		"fleet.pools[0].count=4,fleet.pools[0].gpu=\"h100\"",
		"fleet.pools[0].count=8,fleet.pools[0].gpu=\"l40s\"",
		"fleet.pools[0].count=8,fleet.pools[0].gpu=\"h100\"",
		NULL
	};
	size_t idx[2];

	(void)state;
	assert_int_equal(sc->sweep.mode, FS_SWEEP_ZIP);
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 3);
	assert_points(&sc->sweep, zip);
	fs_sweep_point_coords(&sc->sweep, 2, idx);
	assert_int_equal(idx[0], 2);
	assert_int_equal(idx[1], 2);
	fs_scenario_free(sc);

	/* the search axis may come first: the grid it may visit is the same */
	sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"mode\": \"search\", \"axes\": [{\"path\": "
		"\"fleet.pools[0].count\", \"range\": {\"from\": 2, \"to\": 8, \"step\": 2}, "
		"\"search\": true}, {\"path\": \"fleet.pools[0].gpu\", \"values\": "
		"[\"l40s\", \"h100\"]}]}"));
	assert_int_equal(sc->sweep.mode, FS_SWEEP_SEARCH);
	assert_true(sc->sweep.axes[0].search);
	assert_false(sc->sweep.axes[1].search);
	assert_int_equal(sc->sweep.axes[0].n_values, 4);
	assert_string_equal(sc->sweep.axes[0].values[2], "6");
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 8);
	fs_scenario_free(sc);
	sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"mode\": \"search\", \"axes\": [{\"path\": "
		"\"fleet.pools[0].count\", \"values\": [2, 4, 8], \"search\": true}, "
		"{\"path\": \"fleet.pools[0].gpu\", \"values\": [\"l40s\", \"h100\"]}]}"));
	assert_points(&sc->sweep, search);
	fs_scenario_free(sc);
}

static void test_scenario_sweep_values_keep_their_json_and_ranges_expand(void **state)
{
	struct fs_scenario *sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"axes\": [{\"path\": \"workload.arrivals\", \"values\": "
		"[{\"process\": \"poisson\", \"rate_per_s\": 2.5}, null]}, {\"path\": "
		"\"engine.max_num_seqs\", \"range\": {\"from\": -2, \"to\": 8, "
		"\"step\": 3}}, {\"path\": \"fleet.pools[0].name\", \"values\": "
		"[\"a \\\"b\\\"\"]}]}"));
	const struct fs_sweep_axis *ax = sc->sweep.axes;

	(void)state;
	assert_int_equal(sc->sweep.n_axes, 3);
	assert_int_equal(ax[0].n_values, 2);
	assert_string_equal(ax[0].values[0], "{\"process\":\"poisson\",\"rate_per_s\":2.5}");
	assert_string_equal(ax[0].values[1], "null");
	/* -2, 1, 4, 7: "to" need not be reached exactly */
	assert_int_equal(ax[1].n_values, 4);
	assert_string_equal(ax[1].values[0], "-2");
	assert_string_equal(ax[1].values[3], "7");
	assert_string_equal(ax[2].values[0], "\"a \\\"b\\\"\"");
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 8);
	fs_scenario_free(sc);
}

static void test_scenario_objective_defaults_and_constraints(void **state)
{
	struct fs_scenario *sc = load_ok(STUDY_DOC("\"objective\": {}"));
	const struct fs_objective_cfg *o = &sc->objective;
	const struct fs_constraint *c;

	(void)state;
	assert_true(o->present);
	assert_int_equal(o->minimize, FS_OBJ_MONTHLY_USD);
	assert_int_equal(o->n_constraints, 0);
	assert_null(o->constraints);
	assert_true(o->confidence == 0.9);
	assert_int_equal(o->pareto_latency, FS_LAT_TTFT);
	assert_int_equal(o->pareto_quantity, FS_QTY_P99);
	assert_int_equal(o->pareto_class, -1);
	assert_true(o->ci_target == 0.0);
	assert_int_equal(o->max_replications, 40);   /* 10 x 4 replications */
	assert_false(sc->sweep.present);
	fs_scenario_free(sc);

	sc = load_ok(STUDY_DOC(
		"\"objective\": {\"minimize\": \"usd_per_1m_output_tokens\", \"constraints\": "
		"[{\"metric\": \"ttft_ms\", \"max\": \"1500ms\"}, {\"metric\": \"tpot_ms\", "
		"\"quantile\": \"p95\", \"max\": 0.1, \"class\": \"batch\"}, {\"metric\": "
		"\"slo_attainment\", \"min\": 0.95, \"class\": \"c\"}, {\"metric\": "
		"\"slo_attainment\", \"min\": 0.9}], \"confidence\": 1, \"pareto\": "
		"{\"metric\": \"e2e_ms\", \"quantile\": \"mean\", \"class\": \"batch\"}, "
		"\"ci_target\": 0.02, \"max_replications\": 12}"));
	o = &sc->objective;
	assert_int_equal(o->minimize, FS_OBJ_USD_PER_1M_TOKENS);
	assert_int_equal(o->n_constraints, 4);
	c = &o->constraints[0];
	assert_int_equal(c->kind, FS_CONSTRAINT_LATENCY);
	assert_int_equal(c->latency, FS_LAT_TTFT);
	assert_int_equal(c->quantity, FS_QTY_P99);
	assert_true(c->max_ms == 1500.0);
	assert_int_equal(c->class_idx, -1);
	c = &o->constraints[1];
	assert_int_equal(c->latency, FS_LAT_TPOT);
	assert_int_equal(c->quantity, FS_QTY_P95);
	assert_true(c->max_ms == 100.0);
	assert_int_equal(c->class_idx, 1);
	c = &o->constraints[2];
	assert_int_equal(c->kind, FS_CONSTRAINT_ATTAINMENT);
	assert_true(c->min == 0.95);
	assert_int_equal(c->class_idx, 0);
	assert_int_equal(o->constraints[3].class_idx, -1);
	assert_true(o->confidence == 1.0);
	assert_int_equal(o->pareto_latency, FS_LAT_E2E);
	assert_int_equal(o->pareto_quantity, FS_QTY_MEAN);
	assert_int_equal(o->pareto_class, 1);
	assert_true(o->ci_target == 0.02);
	assert_int_equal(o->max_replications, 12);
	fs_scenario_free(sc);

	/* the default cap is at most 100000 */
	sc = load_ok("{\"simulation\": {\"horizon\": \"1h\", \"replications\": 20000}, "
	             "\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, \"engine\": "
	             "{\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\"}, "
	             "\"objective\": {}}");
	assert_int_equal(sc->objective.max_replications, 100000);
	fs_scenario_free(sc);
}

static void test_scenario_sweep_and_objective_belong_to_the_base_only(void **state)
{
	const char *sets[] = { "fleet.pools[0].count=2" };
	const char *bad[] = { "objective.confidence=0.5" };
	struct fs_scenario *base = load_file_ok(SWEEP_EXAMPLE), *v;
	struct fs_error err;
	char got[1024];

	(void)state;
	assert_true(base->sweep.present);
	assert_true(base->objective.present);
	assert_int_equal(fs_sweep_n_points(&base->sweep), 64);
	/* Command-line sets keep the base's study (sweep --set works) ... */
	v = fs_scenario_load_variant(SWEEP_EXAMPLE, NULL, sets, 1, &err);
	assert_non_null(v);
	assert_true(v->sweep.present);
	assert_true(v->objective.present);
	assert_int_equal(v->fleet.pools[0].count, 2);
	fs_scenario_free(v);
	/* ... a sweep point has none. */
	v = fs_scenario_load_point(SWEEP_EXAMPLE, sets, 1, &base->sweep, 0, &err);
	assert_non_null(v);
	assert_false(v->sweep.present);
	assert_false(v->objective.present);
	assert_int_equal(v->sweep.n_axes, 0);
	fs_scenario_free(v);
	assert_null(fs_scenario_load_variant(SWEEP_EXAMPLE, NULL, bad, 1, &err));
	fs_error_format(&err, got, sizeof got);
	assert_string_equal(got, "--set objective.confidence=0.5: cannot set "
	                    "\"objective\": it is read from the base document only");
	fs_scenario_free(base);
}

/* ---- round trip ------------------------------------------------------------------------ */

static void assert_length_equal(const struct fs_length_cfg *a, const struct fs_length_cfg *b)
{
	size_t i;

	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->fixed_tokens, b->fixed_tokens);
	assert_true(a->median_tokens == b->median_tokens);
	assert_true(a->sigma == b->sigma);
	assert_true(a->zipf_s == b->zipf_s);
	assert_int_equal(a->zipf_n, b->zipf_n);
	for (i = 0; i < (size_t)a->zipf_n; i++)
		assert_true(a->zipf_cdf[i] == b->zipf_cdf[i]);
	assert_int_equal(a->n_empirical, b->n_empirical);
	for (i = 0; i < a->n_empirical; i++)
		assert_int_equal(a->empirical[i], b->empirical[i]);
	if (a->empirical_path != NULL || b->empirical_path != NULL)
		assert_string_equal(a->empirical_path, b->empirical_path);
	assert_int_equal(a->min_tokens, b->min_tokens);
	assert_int_equal(a->max_tokens, b->max_tokens);
}

static void assert_arrivals_equal(const struct fs_arrival_cfg *a, const struct fs_arrival_cfg *b)
{
	size_t i;

	assert_int_equal(a->kind, b->kind);
	assert_true(a->rate_per_s == b->rate_per_s);
	assert_true(a->cv == b->cv);
	assert_true(a->weibull_shape == b->weibull_shape);
	assert_int_equal(a->diurnal, b->diurnal);
	assert_true(a->diurnal_peak_to_trough == b->diurnal_peak_to_trough);
	assert_true(a->diurnal_peak_hour == b->diurnal_peak_hour);
	assert_int_equal(a->n_schedule, b->n_schedule);
	for (i = 0; i < a->n_schedule; i++) {
		assert_int_equal(a->schedule[i].at_ns, b->schedule[i].at_ns);
		assert_true(a->schedule[i].rate_per_s == b->schedule[i].rate_per_s);
	}
	assert_int_equal(a->schedule_period_ns, b->schedule_period_ns);
	assert_int_equal(a->n_spikes, b->n_spikes);
	for (i = 0; i < a->n_spikes; i++) {
		assert_int_equal(a->spikes[i].at_ns, b->spikes[i].at_ns);
		assert_int_equal(a->spikes[i].dur_ns, b->spikes[i].dur_ns);
		assert_true(a->spikes[i].multiplier == b->spikes[i].multiplier);
	}
	assert_int_equal(a->trace.trace == NULL, b->trace.trace == NULL);
	if (a->trace.trace != NULL) {
		assert_string_equal(a->trace.trace->path, b->trace.trace->path);
		assert_int_equal(a->trace.trace->format, b->trace.trace->format);
		assert_int_equal(a->trace.trace->n_rows, b->trace.trace->n_rows);
		for (i = 0; i < a->trace.trace->n_rows; i++)
			assert_memory_equal(&a->trace.trace->rows[i], &b->trace.trace->rows[i],
			                    sizeof a->trace.trace->rows[i]);
	}
	assert_true(a->trace.time_scale == b->trace.time_scale);
	assert_true(a->trace.rate_scale == b->trace.rate_scale);
	assert_int_equal(a->trace.loop, b->trace.loop);
	assert_int_equal(a->trace.start_offset_ns, b->trace.start_offset_ns);
}

static void assert_gpus_equal(const struct fs_gpu_spec *a, const struct fs_gpu_spec *b)
{
	assert_string_equal(a->id, b->id);
	assert_string_equal(a->display_name, b->display_name);
	assert_true(a->mem_bytes == b->mem_bytes);
	assert_true(a->mem_bw_bytes_per_s == b->mem_bw_bytes_per_s);
	assert_true(a->fp16_flops_per_s == b->fp16_flops_per_s);
	assert_true(a->fp8_flops_per_s == b->fp8_flops_per_s);
	assert_true(a->int8_ops_per_s == b->int8_ops_per_s);
	assert_true(a->link_bytes_per_s == b->link_bytes_per_s);
	assert_true(a->tdp_w == b->tdp_w);
	assert_true(a->mfu == b->mfu);
	assert_true(a->mbu == b->mbu);
	assert_int_equal(a->iteration_overhead_ns, b->iteration_overhead_ns);
	assert_int_equal(a->per_seq_overhead_ns, b->per_seq_overhead_ns);
	assert_int_equal(a->layer_overhead_ns, b->layer_overhead_ns);
	assert_int_equal(a->allreduce_latency_ns, b->allreduce_latency_ns);
	assert_true(a->price_on_demand_usd_per_h == b->price_on_demand_usd_per_h);
	assert_true(a->price_spot_usd_per_h == b->price_spot_usd_per_h);
	assert_true(a->price_monthly_usd == b->price_monthly_usd);
	assert_string_equal(a->price_date, b->price_date);
	assert_string_equal(a->notes, b->notes);
}

static void assert_models_equal(const struct fs_model_spec *a, const struct fs_model_spec *b)
{
	assert_string_equal(a->id, b->id);
	assert_string_equal(a->display_name, b->display_name);
	assert_int_equal(a->layers, b->layers);
	assert_int_equal(a->hidden, b->hidden);
	assert_int_equal(a->heads, b->heads);
	assert_int_equal(a->kv_heads, b->kv_heads);
	assert_int_equal(a->head_dim, b->head_dim);
	assert_int_equal(a->ffn, b->ffn);
	assert_int_equal(a->vocab, b->vocab);
	assert_int_equal(a->experts, b->experts);
	assert_int_equal(a->experts_per_token, b->experts_per_token);
	assert_true(a->params == b->params);
	assert_true(a->active_params == b->active_params);
	assert_int_equal(a->max_context_tokens, b->max_context_tokens);
	assert_string_equal(a->notes, b->notes);
}

static void assert_catalogs_equal(const struct fs_catalog_file *a,
                                  const struct fs_catalog_file *b)
{
	size_t i;

	assert_int_equal(a->n_gpus, b->n_gpus);
	for (i = 0; i < a->n_gpus; i++) {
		assert_gpus_equal(&a->gpus[i], &b->gpus[i]);
		assert_int_equal(a->gpu_bases[i] == NULL, b->gpu_bases[i] == NULL);
		if (a->gpu_bases[i] != NULL)
			assert_string_equal(a->gpu_bases[i], b->gpu_bases[i]);
	}
	assert_int_equal(a->n_models, b->n_models);
	for (i = 0; i < a->n_models; i++) {
		assert_models_equal(&a->models[i], &b->models[i]);
		assert_int_equal(a->model_bases[i] == NULL, b->model_bases[i] == NULL);
		if (a->model_bases[i] != NULL)
			assert_string_equal(a->model_bases[i], b->model_bases[i]);
	}
}

/* Byte-equal apart from the pointers, whose targets must be equal. */
static void assert_engines_equal(const struct fs_engine_cfg *a, const struct fs_engine_cfg *b)
{
	struct fs_engine_cfg x = *a, y = *b;

	if (a->kind == FS_ENGINE_VLLM) {
		assert_gpus_equal(a->llm.perf.gpu, b->llm.perf.gpu);
		assert_models_equal(a->llm.perf.model, b->llm.perf.model);
		assert_int_equal(a->llm.step_table == NULL, b->llm.step_table == NULL);
		assert_int_equal(a->llm.perf.table == NULL, b->llm.perf.table == NULL);
		if (a->llm.step_table_path != NULL || b->llm.step_table_path != NULL)
			assert_string_equal(a->llm.step_table_path, b->llm.step_table_path);
	}
	x.llm.perf.gpu = y.llm.perf.gpu = NULL;
	x.llm.perf.model = y.llm.perf.model = NULL;
	x.llm.perf.table = y.llm.perf.table = NULL;
	x.llm.step_table = y.llm.step_table = NULL;
	x.llm.step_table_path = y.llm.step_table_path = NULL;
	assert_memory_equal(&x, &y, sizeof x);
}

/* Byte-equal pools apart from pointers, whose targets must be equal. */
static void assert_pools_equal(const struct fs_pool_cfg *a, const struct fs_pool_cfg *b)
{
	struct fs_pool_cfg x = *a, y = *b;
	struct fs_engine_cfg ea, eb;
	size_t i;

	assert_string_equal(a->name, b->name);
	memset(&ea, 0, sizeof ea);
	memset(&eb, 0, sizeof eb);
	ea.kind = eb.kind = FS_ENGINE_VLLM;
	ea.llm = *a->llm;
	eb.llm = *b->llm;
	assert_engines_equal(&ea, &eb);
	assert_int_equal(a->n_zones, b->n_zones);
	for (i = 0; i < a->n_zones; i++)
		assert_int_equal(a->zones[i], b->zones[i]);
	assert_int_equal(a->n_price_steps, b->n_price_steps);
	for (i = 0; i < a->n_price_steps; i++)
		assert_memory_equal(&a->price_steps[i], &b->price_steps[i],
		                    sizeof a->price_steps[i]);
	assert_int_equal(a->unused_spot_json == NULL, b->unused_spot_json == NULL);
	if (a->unused_spot_json != NULL)
		assert_string_equal(a->unused_spot_json, b->unused_spot_json);
	x.name = y.name = NULL;
	x.llm = y.llm = NULL;
	x.zones = y.zones = NULL;
	x.price_steps = y.price_steps = NULL;
	x.unused_spot_json = y.unused_spot_json = NULL;
	assert_memory_equal(&x, &y, sizeof x);
}

static void assert_fleets_equal(const struct fs_scenario *sa, const struct fs_scenario *sb)
{
	const struct fs_fleet_cfg *a = &sa->fleet, *b = &sb->fleet;
	struct fs_autoscale_cfg x = a->autoscale, y = b->autoscale;
	size_t i;

	assert_int_equal(a->explicit_fleet, b->explicit_fleet);
	assert_int_equal(a->router, b->router);
	assert_int_equal(a->strategy, b->strategy);
	assert_int_equal(a->n_zones, b->n_zones);
	for (i = 0; i < a->n_zones; i++) {
		const struct fs_capacity_trace *ta = a->zones[i].trace, *tb = b->zones[i].trace;

		assert_string_equal(a->zones[i].name, b->zones[i].name);
		assert_int_equal(ta == NULL, tb == NULL);
		if (ta == NULL)
			continue;
		assert_string_equal(ta->path, tb->path);
		assert_int_equal(ta->format, tb->format);
		assert_int_equal(ta->n_steps, tb->n_steps);
		assert_memory_equal(ta->t_ns, tb->t_ns, ta->n_steps * sizeof *ta->t_ns);
		assert_memory_equal(ta->capacity, tb->capacity,
		                    ta->n_steps * sizeof *ta->capacity);
		assert_int_equal(ta->span_ns, tb->span_ns);
		assert_int_equal(ta->loop, tb->loop);
		assert_true(ta->scale == tb->scale);
	}
	assert_int_equal(a->n_pools, b->n_pools);
	for (i = 0; i < a->n_pools; i++)
		assert_pools_equal(&a->pools[i], &b->pools[i]);
	assert_int_equal(x.n_schedule, y.n_schedule);
	for (i = 0; i < x.n_schedule; i++)
		assert_memory_equal(&x.schedule[i], &y.schedule[i], sizeof x.schedule[i]);
	x.schedule = y.schedule = NULL;
	assert_memory_equal(&x, &y, sizeof x);
	for (i = 0; i < sa->workload.n_classes && a->n_pools > 0; i++)
		assert_int_equal(a->class_pool[i], b->class_pool[i]);
}

static void assert_studies_equal(const struct fs_scenario *sa, const struct fs_scenario *sb)
{
	const struct fs_sweep_cfg *a = &sa->sweep, *b = &sb->sweep;
	const struct fs_objective_cfg *x = &sa->objective, *y = &sb->objective;
	size_t i, j;

	assert_int_equal(a->present, b->present);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->baseline, b->baseline);
	assert_int_equal(a->n_axes, b->n_axes);
	for (i = 0; i < a->n_axes; i++) {
		assert_string_equal(a->axes[i].path, b->axes[i].path);
		assert_int_equal(a->axes[i].search, b->axes[i].search);
		assert_int_equal(a->axes[i].n_values, b->axes[i].n_values);
		for (j = 0; j < a->axes[i].n_values; j++)
			assert_string_equal(a->axes[i].values[j], b->axes[i].values[j]);
	}
	assert_int_equal(x->present, y->present);
	assert_int_equal(x->minimize, y->minimize);
	assert_int_equal(x->n_constraints, y->n_constraints);
	for (i = 0; i < x->n_constraints; i++)
		assert_memory_equal(&x->constraints[i], &y->constraints[i],
		                    sizeof x->constraints[i]);
	assert_true(x->confidence == y->confidence);
	assert_int_equal(x->pareto_latency, y->pareto_latency);
	assert_int_equal(x->pareto_quantity, y->pareto_quantity);
	assert_int_equal(x->pareto_class, y->pareto_class);
	assert_true(x->ci_target == y->ci_target);
	assert_int_equal(x->max_replications, y->max_replications);
}

static void assert_scenarios_equal(const struct fs_scenario *a, const struct fs_scenario *b)
{
	size_t i;

	assert_string_equal(a->name, b->name);
	assert_string_equal(a->description, b->description);
	assert_memory_equal(&a->sim, &b->sim, sizeof a->sim);
	assert_int_equal(a->workload.has_shared_arrivals, b->workload.has_shared_arrivals);
	assert_arrivals_equal(&a->workload.arrivals, &b->workload.arrivals);
	assert_int_equal(a->workload.n_classes, b->workload.n_classes);
	for (i = 0; i < a->workload.n_classes; i++) {
		const struct fs_class_cfg *x = &a->workload.classes[i], *y = &b->workload.classes[i];

		assert_string_equal(x->name, y->name);
		assert_true(x->share == y->share);
		assert_int_equal(x->own_arrivals, y->own_arrivals);
		assert_arrivals_equal(&x->arrivals, &y->arrivals);
		assert_length_equal(&x->prompt, &y->prompt);
		assert_length_equal(&x->output, &y->output);
		assert_memory_equal(&x->slo, &y->slo, sizeof x->slo);
		assert_int_equal(x->priority, y->priority);
	}
	assert_catalogs_equal(&a->catalog, &b->catalog);
	assert_engines_equal(&a->engine, &b->engine);
	assert_fleets_equal(a, b);
	assert_studies_equal(a, b);
}

/* Print `path`, load the text back (relative paths from `dir`), compare. */
static void round_trip_in(const char *path, const char *dir)
{
	struct fs_scenario *a = load_file_ok(path), *b;
	char *text_a = print_to_string(a), *text_b;
	struct fs_error err;
	char buf[2048];

	b = fs_scenario_load_text(text_a, strlen(text_a), "printed.json", dir, &err);
	if (b == NULL) {
		fs_error_format(&err, buf, sizeof buf);
		fail_msg("printed %s does not load: %s\n%s", path, buf, text_a);
	}
	assert_scenarios_equal(a, b);
	text_b = print_to_string(b);
	assert_string_equal(text_a, text_b);
	free(text_a);
	free(text_b);
	fs_scenario_free(a);
	fs_scenario_free(b);
}

/* The same for a document in memory (relative paths from tests/data). */
static void round_trip_text(const char *text)
{
	struct fs_scenario *a = load_ok(text), *b;
	char *text_a = print_to_string(a), *text_b;

	b = load_ok(text_a);
	assert_scenarios_equal(a, b);
	text_b = print_to_string(b);
	assert_string_equal(text_a, text_b);
	free(text_a);
	free(text_b);
	fs_scenario_free(a);
	fs_scenario_free(b);
}

static void round_trip(const char *path)
{
	round_trip_in(path, "tests/data");
}

static void test_scenario_print_then_load_gives_the_same_config(void **state)
{
	(void)state;
	round_trip(FULL);
	round_trip(MINIMAL);
	round_trip(VLLM);
	round_trip_in(LLM_EXAMPLE, "scenarios");
	round_trip(FLEET);
	round_trip_in(SWEEP_EXAMPLE, "scenarios");
	round_trip_text(STUDY_DOC(
		"\"sweep\": {\"mode\": \"zip\", \"axes\": [{\"path\": "
		"\"workload.arrivals\", \"values\": [{\"process\": \"poisson\", "
		"\"rate_per_s\": 2.5}, null, {\"process\": \"gamma\", \"rate_per_s\": 1, "
		"\"cv\": 2}]}, {\"path\": \"engine.max_num_seqs\", \"values\": [64, 32, "
		"128]}, {\"path\": \"fleet.pools[0].count\", \"values\": [1, 3, 5]}], "
		"\"baseline\": 2}, \"objective\": {\"minimize\": \"total_usd\", "
		"\"constraints\": [{\"metric\": \"queue_ms\", \"quantile\": \"p50\", "
		"\"max\": \"0.1234567s\", \"class\": \"batch\"}, {\"metric\": "
		"\"slo_attainment\", \"min\": 0.33, \"class\": \"c\"}], \"confidence\": "
		"0.7, \"pareto\": {\"metric\": \"tpot_ms\", \"class\": \"c\"}, "
		"\"ci_target\": 0.05}"));
}

static void test_scenario_printed_vllm_has_every_key_and_the_catalogue(void **state)
{
	struct fs_scenario *sc = load_file_ok(LLM_EXAMPLE);
	char *text = print_to_string(sc);
	static const char *const want[] = {
		"\"type\":\t\"vllm\"", "\"model\":\t\"llama-3.1-8b\"", "\"gpu\":\t\"l40s\"",
		"\"tp\":\t1", "\"replicas\":\t1", "\"weights_dtype\":\t\"bf16\"",
		"\"kv_dtype\":\t\"bf16\"", "\"gpu_mem_util\":\t0.9", "\"block_tokens\":\t16",
		"\"max_num_seqs\":\t256", "\"max_num_batched_tokens\":\t2048",
		"\"chunked_prefill\":\ttrue", "\"long_prefill_token_threshold\":\t0",
		"\"policy\":\t\"fcfs\"", "\"batching\":\t\"continuous\"",
		"\"max_model_len\":\t131072", "\"max_preemptions_per_request\":\t100",
	};

	(void)state;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (strstr(text, want[i]) == NULL)
			fail_msg("printed scenario lacks %s:\n%s", want[i], text);
	assert_null(strstr(text, "\"kv_blocks\""));      /* printed only when pinned */
	assert_null(strstr(text, "\"efficiency\""));     /* only overrides */
	assert_null(strstr(text, "\"catalog\""));
	free(text);
	fs_scenario_free(sc);

	sc = load_file_ok(VLLM);
	text = print_to_string(sc);
	assert_non_null(strstr(text, "\"kv_blocks\":\t1000"));
	assert_non_null(strstr(text, "\"step_table\":\t\"step_table_small.csv\""));
	assert_non_null(strstr(text, "\"activation_reserve_gb\":\t1.5"));
	assert_non_null(strstr(text, "\"base\":\t\"llama-3.1-8b\""));
	free(text);
	fs_scenario_free(sc);
}

static void test_scenario_print_writes_durations_as_strings(void **state)
{
	struct fs_scenario *sc = load_file_ok(FULL);
	char *text = print_to_string(sc);

	(void)state;
	assert_non_null(strstr(text, "\"horizon\":\t\"2d\""));
	assert_non_null(strstr(text, "\"mean\":\t\"1500ms\""));
	assert_non_null(strstr(text, "\"seed\":\t9007199254740992"));
	assert_non_null(strstr(text, "\"column\":\t\"tokens\""));
	free(text);
	fs_scenario_free(sc);
}

/* ---- SHA-256 ------------------------------------------------------------------------------ */

static void test_scenario_sha256_matches_fips_180_2_vectors(void **state)
{
	char hex[65];
	const char *msg448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	(void)state;
	/* FIPS 180-2, appendix B.1 */
	fs__sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* FIPS 180-2, appendix B.2: the 448-bit message (two padded blocks) */
	fs__sha256_hex(msg448, strlen(msg448), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* The empty message (NIST example values) */
	fs__sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_scenario_sha256_of_a_million_a(void **state)
{
	char *buf = malloc(1000000), hex[65];

	(void)state;
	assert_non_null(buf);
	memset(buf, 'a', 1000000);
	/* FIPS 180-2, appendix B.3 */
	fs__sha256_hex(buf, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(buf);
}

static void test_scenario_hash_is_of_the_file_bytes(void **state)
{
	struct fs_scenario *sc = load_file_ok(FULL);
	size_t len = 0;
	char *text = fs_test_read_file(FULL, &len), hex[65];

	(void)state;
	assert_non_null(text);
	fs__sha256_hex(text, len, hex);
	assert_string_equal(sc->sha256_hex, hex);
	free(text);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_minimal_file_gets_every_default),
		cmocka_unit_test(test_scenario_full_file_fills_every_field),
		cmocka_unit_test(test_scenario_sample_interval_default_is_a_hundredth_of_horizon),
		cmocka_unit_test(test_scenario_shares_that_sum_to_one_are_kept_exactly),
		cmocka_unit_test(test_scenario_durations_accept_numbers_of_seconds),
		cmocka_unit_test(test_scenario_name_defaults_to_the_file_stem),
		cmocka_unit_test(test_scenario_vllm_defaults_follow_vllm_serve),
		cmocka_unit_test(test_scenario_vllm_big_gpu_rule_sets_the_scheduler_defaults),
		cmocka_unit_test(test_scenario_vllm_every_key_and_the_catalogue_reach_the_config),
		cmocka_unit_test(test_scenario_vllm_efficiency_overrides_change_step_times),
		cmocka_unit_test(test_scenario_vllm_efficiency_step_terms),
		cmocka_unit_test(test_scenario_vllm_errors_point_at_the_value),
		cmocka_unit_test(test_scenario_vllm_notes_show_the_memory_plan),
		cmocka_unit_test(test_scenario_catalog_model_rules),
		cmocka_unit_test(test_scenario_error_position_counts_lines_and_byte_columns),
		cmocka_unit_test(test_scenario_failed_load_returns_null_and_fills_the_error),
		cmocka_unit_test(test_scenario_rejects_nul_bytes),
		cmocka_unit_test(test_scenario_fleet_implicit_pool_is_built_from_the_engine),
		cmocka_unit_test(test_scenario_fleet_pools_get_their_gpus_defaults_and_memory),
		cmocka_unit_test(test_scenario_fleet_pool_keys_reach_the_config),
		cmocka_unit_test(test_scenario_fleet_spot_pool_defaults),
		cmocka_unit_test(test_scenario_fleet_autoscale_and_class_pins),
		cmocka_unit_test(test_scenario_variants_list_load_and_command_line_sets),
		cmocka_unit_test(test_scenario_sweep_grid_turns_the_last_axis_fastest),
		cmocka_unit_test(test_scenario_sweep_zip_and_search_points),
		cmocka_unit_test(test_scenario_sweep_values_keep_their_json_and_ranges_expand),
		cmocka_unit_test(test_scenario_objective_defaults_and_constraints),
		cmocka_unit_test(test_scenario_sweep_and_objective_belong_to_the_base_only),
		cmocka_unit_test(test_scenario_print_then_load_gives_the_same_config),
		cmocka_unit_test(test_scenario_print_writes_durations_as_strings),
		cmocka_unit_test(test_scenario_printed_vllm_has_every_key_and_the_catalogue),
		cmocka_unit_test(test_scenario_sha256_matches_fips_180_2_vectors),
		cmocka_unit_test(test_scenario_sha256_of_a_million_a),
		cmocka_unit_test(test_scenario_hash_is_of_the_file_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
