/*
 * test_scenario_print.c — printing a scenario back (src/scenario_print.c,
 * scenario_emit.c and the sections' printers): print then load gives the
 * same configuration (deep comparison, pointers by their targets), the
 * printed vllm engine has every key and the catalogue, durations as strings.
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

/* a, and b loaded from a's printed text_a: equal, and b prints the same
 * bytes; frees all four. */
static void assert_round_trip(struct fs_scenario *a, struct fs_scenario *b, char *text_a)
{
	char *text_b;

	assert_scenarios_equal(a, b);
	text_b = print_to_string(b);
	assert_string_equal(text_a, text_b);
	free(text_a);
	free(text_b);
	fs_scenario_free(a);
	fs_scenario_free(b);
}

/* Print `path`, load the text back (relative paths from `dir`), compare. */
static void round_trip_in(const char *path, const char *dir)
{
	struct fs_scenario *a = load_file_ok(path), *b;
	char *text_a = print_to_string(a);
	struct fs_error err;
	char buf[2048];

	b = fs_scenario_load_text(text_a, strlen(text_a), "printed.json", dir, &err);
	if (b == NULL) {
		fs_error_format(&err, buf, sizeof buf);
		fail_msg("printed %s does not load: %s\n%s", path, buf, text_a);
	}
	assert_round_trip(a, b, text_a);
}

/* The same for a document in memory (relative paths from tests/data). */
static void round_trip_text(const char *text)
{
	struct fs_scenario *a = load_ok(text);
	char *text_a = print_to_string(a);

	assert_round_trip(a, load_ok(text_a), text_a);
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
	assert_has(text, "\"kv_blocks\":\t1000",
	           "\"step_table\":\t\"step_table_small.csv\"",
	           "\"activation_reserve_gb\":\t1.5", "\"base\":\t\"llama-3.1-8b\"");
	free(text);
	fs_scenario_free(sc);
}

static void test_scenario_print_writes_durations_as_strings(void **state)
{
	struct fs_scenario *sc = load_file_ok(FULL);
	char *text = print_to_string(sc);

	(void)state;
	assert_has(text, "\"horizon\":\t\"2d\"", "\"mean\":\t\"1500ms\"",
	           "\"seed\":\t9007199254740992", "\"column\":\t\"tokens\"");
	free(text);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_print_then_load_gives_the_same_config),
		cmocka_unit_test(test_scenario_print_writes_durations_as_strings),
		cmocka_unit_test(test_scenario_printed_vllm_has_every_key_and_the_catalogue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
