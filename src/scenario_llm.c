/*
 * scenario_llm.c — the "vllm" engine type: model and GPU (through the
 * scenario's catalogue), TP, replicas, dtypes, memory settings, scheduler
 * settings with vLLM's `vllm serve` defaults, efficiency overrides and an
 * optional measured step table.  The load resolves the replica's memory plan
 * (a model that does not fit is an input error) and fills cfg->llm; the
 * step table it loads is owned by cfg->llm and freed by fs__sc_engine_fini.
 */
#include "scenario_walk.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"
#include "scenario_schema.h"

#define GB 1e9
#define MAX_TOKENS_PER_STEP INT64_C(2147483647)

const char *const fs__sc_vllm_keys[] = {
	"type", "model", "gpu", "tp", "replicas", "weights_dtype", "kv_dtype",
	"gpu_mem_util", "block_tokens", "kv_blocks", "max_num_seqs",
	"max_num_batched_tokens", "chunked_prefill", "long_prefill_token_threshold",
	"policy", "batching", "max_model_len", "max_preemptions_per_request",
	"efficiency", "step_table", "scheduler", "prefix_caching", "fast_path", NULL
};
/* The enums' names (perf.h, llm_engine.h) in value order: a name's index
 * is its value. */
static const char *const DTYPE_NAMES[] = { FS_DTYPE_MAP(FS_ENUM_NAME) NULL };
static const char *const KV_DTYPE_NAMES[] = { FS_KV_DTYPE_MAP(FS_ENUM_NAME) NULL };
static const char *const POLICY_NAMES[] = { FS_LLM_POLICY_MAP(FS_ENUM_NAME) NULL };
static const char *const BATCHING_NAMES[] = { FS_LLM_BATCHING_MAP(FS_ENUM_NAME) NULL };
static const char *const SCHEDULER_NAMES[] = { FS_LLM_SCHEDULER_MAP(FS_ENUM_NAME) NULL };

/* ---- names through the catalogue ----------------------------------------------- */

/* `what` names the thing ("GPU"), `table` its `fleetsim catalog` table. */
static int unknown_name(struct fs__sc *sc, const cJSON *node, const char *key,
                        const char *what, const char *table, const char *name,
                        const char *near)
{
	if (near != NULL)
		return fs__sc_fail_member(sc, node, key, "unknown %s \"%.60s\"; did you "
		                          "mean \"%s\"?", what, name, near);
	return fs__sc_fail_member(sc, node, key, "unknown %s \"%.60s\"; see 'fleetsim "
	                          "catalog %s' or define it under \"catalog\"", what,
	                          name, table);
}

/* "model", and "gpu" (required unless gpu_required is false). */
static int load_names(struct fs__sc *sc, const cJSON *node, bool gpu_required,
                      const struct fs_gpu_spec **gpu, const struct fs_model_spec **model)
{
	const char *model_name = NULL;

	if (fs__sc_require(sc, node, "model") != 0 ||
	    fs__sc_string(sc, node, "model", false, &model_name) < 0)
		return -1;
	*model = fs_catalog_file_find_model(sc->catalog, model_name);
	if (*model == NULL)
		return unknown_name(sc, node, "model", "model", "models", model_name,
		                    fs_catalog_file_suggest_model(sc->catalog, model_name));
	if (gpu_required && fs__sc_require(sc, node, "gpu") != 0)
		return -1;
	return fs__sc_vllm_gpu(sc, node, "gpu", gpu) < 0 ? -1 : 0;
}

/* ---- defaults ------------------------------------------------------------------- */

/* ---- keys ------------------------------------------------------------------------- */

static int load_dtypes(struct fs__sc *sc, const cJSON *node, struct fs_perf_cfg *perf)
{
	int w = 1, kv = 1;           /* bf16 */

	if (fs__sc_enum(sc, node, "weights_dtype", "weights dtype", DTYPE_NAMES, &w) < 0 ||
	    fs__sc_enum(sc, node, "kv_dtype", "KV-cache dtype", KV_DTYPE_NAMES, &kv) < 0)
		return -1;
	perf->weight_dtype = (enum fs_dtype)w;
	perf->kv_dtype = (enum fs_dtype)kv;
	return 0;
}

static int load_block_tokens(struct fs__sc *sc, const cJSON *node, int64_t *out)
{
	char found[64];

	if (fs__sc_int(sc, node, "block_tokens", 1, 4096, out) < 0)
		return -1;
	if (*out != 8 && *out != 16 && *out != 32) {
		fs__sc_found(sc, fs__sc_get(node, "block_tokens"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "block_tokens", "expected 8, 16 or 32 "
		                          "(vLLM's CUDA block sizes), found %s", found);
	}
	return 0;
}

static int load_step_table(struct fs__sc *sc, const cJSON *node, struct fs_llm_cfg *llm)
{
	const char *rel = NULL;
	char *full;
	FILE *f;
	int rc = fs__sc_string(sc, node, "step_table", false, &rel);

	if (rc <= 0)
		return rc;
	full = fs__sc_resolve_path(sc, rel);
	f = fopen(full, "r");
	if (f == NULL) {
		int e = errno;

		free(full);
		return fs__sc_fail_member(sc, node, "step_table", "cannot open step table "
		                          "\"%s\": %s", rel, strerror(e));
	}
	fclose(f);
	/* Messages name the file as it opens from the working directory; the
	 * cfg keeps the path as written, so a printed scenario loads back. */
	llm->step_table = fs_step_table_load(full, full, sc->err);
	free(full);
	if (llm->step_table == NULL)
		return -1;
	llm->step_table_path = fs_xstrdup(rel);
	llm->perf.table = llm->step_table;
	return 0;
}

/* The scheduler keys; max_model_len is checked against the model. */
static int load_sched(struct fs__sc *sc, const cJSON *node, const struct fs_perf_cfg *perf,
                      struct fs_llm_engine_cfg *s)
{
	int64_t max_ctx = perf->model->max_context_tokens, budget;
	int policy = 0, batching = 0, scheduler = 0, chunked_given;
	char found[64];

	s->max_num_batched_tokens = fs_llm_default_max_num_batched_tokens(perf->gpu);
	s->max_model_len = max_ctx;
	if (fs__sc_int(sc, node, "max_num_batched_tokens", 1, MAX_TOKENS_PER_STEP,
	               &s->max_num_batched_tokens) < 0 ||
	    (chunked_given = fs__sc_bool(sc, node, "chunked_prefill",
	                                 &s->enable_chunked_prefill)) < 0 ||
	    fs__sc_enum(sc, node, "scheduler", "scheduler", SCHEDULER_NAMES,
	                &scheduler) < 0 ||
	    fs__sc_int(sc, node, "long_prefill_token_threshold", 0, MAX_TOKENS_PER_STEP,
	               &s->long_prefill_token_threshold) < 0 ||
	    fs__sc_enum(sc, node, "policy", "scheduling policy", POLICY_NAMES,
	                &policy) < 0 ||
	    fs__sc_enum(sc, node, "batching", "batching mode", BATCHING_NAMES,
	                &batching) < 0 ||
	    fs__sc_int(sc, node, "max_model_len", 16, FS__MAX_INT_JSON,
	               &s->max_model_len) < 0 ||
	    fs__sc_int(sc, node, "max_preemptions_per_request", 0, FS__MAX_INT_JSON,
	               &s->max_preemptions_per_request) < 0 ||
	    fs__sc_bool(sc, node, "prefix_caching", &s->prefix_caching) < 0 ||  /* V22 */
	    fs__sc_bool(sc, node, "fast_path", &s->fast_path) < 0)            /* V24 */
		return -1;
	s->policy = (enum fs_llm_policy)policy;
	s->batching = (enum fs_llm_batching)batching;
	s->scheduler = (enum fs_llm_scheduler)scheduler;
	if (s->scheduler == FS_LLM_SCHED_PREFILL_FIRST) {          /* MODEL: V20 */
		if (chunked_given == 1 && s->enable_chunked_prefill)
			return fs__sc_fail_member(sc, node, "chunked_prefill", "expected "
			                          "false or no key with \"scheduler\": "
			                          "\"prefill_first\" (it runs whole prompts), "
			                          "found true");
		if (s->batching == FS_LLM_BATCHING_STATIC)
			return fs__sc_fail_member(sc, node, "scheduler", "expected "
			                          "\"chunked\" with \"batching\": \"static\" "
			                          "(a static batch has its own schedule), "
			                          "found \"prefill_first\"");
		s->enable_chunked_prefill = false;
	}
	if (s->max_model_len > max_ctx) {
		fs__sc_found(sc, fs__sc_get(node, "max_model_len"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "max_model_len", "expected a value <= "
		                          "%" PRId64 " (the context of %s), found %s",
		                          max_ctx, perf->model->id, found);
	}
	/* MODEL: V17 — the default is capped at the token budget (vLLM caps it
	 * at max_num_batched_tokens); a given value must fit the budget the
	 * engine will use (V4 raises it when chunked prefill is off). */
	s->max_num_seqs = fs_llm_default_max_num_seqs(perf->gpu, s->max_num_batched_tokens);
	budget = s->max_num_batched_tokens;
	if (!s->enable_chunked_prefill && budget < s->max_model_len)
		budget = s->max_model_len;                          /* MODEL: V4 */
	if (fs__sc_int(sc, node, "max_num_seqs", 1, MAX_TOKENS_PER_STEP,
	               &s->max_num_seqs) < 0)
		return -1;
	if (s->max_num_seqs > budget) {
		fs__sc_found(sc, fs__sc_get(node, "max_num_seqs"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "max_num_seqs", "expected a value <= "
		                          "the token budget per step (%" PRId64 "), found %s",
		                          budget, found);
	}
	return 0;
}

/* Whether tp cannot split model's attention or KV heads (MODEL: P3), the
 * part of the perf check that a "tp" key is to blame for. */
static bool tp_splits_badly(const struct fs_model_spec *model, int tp)
{
	if (model == NULL || tp < 1 || model->heads < 1 || model->kv_heads < 1)
		return false;
	return model->heads % tp != 0 ||
	       (model->kv_heads >= tp ? model->kv_heads % tp != 0
	                              : tp % model->kv_heads != 0);
}

/* Report msg at the "tp" that was used: the pool's own (plan_at, at
 * plan_path) when it has one, else the engine's (node, at the current
 * path), else where the plan is reported. */
static int fail_at_tp(struct fs__sc *sc, const cJSON *node, const cJSON *plan_at,
                      const char *plan_path, const char *msg)
{
	struct fs__sc_saved_path saved;

	fs__sc_path_save(sc, &saved);
	if (plan_at != NULL && fs__sc_get(plan_at, "tp") != NULL) {
		if (plan_path != NULL)
			fs__sc_path_set(sc, plan_path);
		fs__sc_fail_member(sc, plan_at, "tp", "%s", msg);
	} else if (fs__sc_get(node, "tp") != NULL) {
		fs__sc_fail_member(sc, node, "tp", "%s", msg);
	} else {
		if (plan_path != NULL)
			fs__sc_path_set(sc, plan_path);
		fs__sc_fail_at(sc, plan_at != NULL ? plan_at : node, "%s", msg);
	}
	fs__sc_path_restore(sc, &saved);
	return -1;
}

int fs__sc_llm_build(struct fs__sc *sc, const cJSON *node,
                     const struct fs_gpu_spec *gpu, const struct fs_model_spec *model,
                     int tp, const cJSON *plan_at, const char *plan_path,
                     struct fs_llm_cfg *llm)
{
	struct fs_perf_cfg *perf = &llm->perf;
	const cJSON *eff;
	int64_t block_tokens = 16, pinned = 0;
	struct fs__sc_saved_path saved_path;
	struct fs_error perr;
	size_t saved;
	int rc;

	fs_perf_cfg_defaults(perf, gpu, model);
	fs_llm_engine_cfg_default(&llm->sched);
	llm->replicas = 1;
	perf->tp = tp;
	if (load_dtypes(sc, node, perf) < 0 ||
	    fs__sc_number(sc, node, "gpu_mem_util", 0, true, 1, false,
	                  &perf->gpu_mem_util) < 0 ||
	    load_block_tokens(sc, node, &block_tokens) < 0 ||
	    fs__sc_int(sc, node, "kv_blocks", 1, FS__MAX_KV_BLOCKS, &pinned) < 0 ||
	    load_sched(sc, node, perf, &llm->sched) < 0)
		return -1;
	perf->block_tokens = (int)block_tokens;
	perf->kv_blocks_pinned = pinned;
	/* The activation reserve is profiled at the budget the engine will use
	 * (V4: max(max_model_len, budget) with chunked prefill off). */
	perf->max_batched_tokens = llm->sched.max_num_batched_tokens;
	if (!llm->sched.enable_chunked_prefill &&
	    perf->max_batched_tokens < llm->sched.max_model_len)
		perf->max_batched_tokens = llm->sched.max_model_len;
	perf->max_seqs = llm->sched.max_num_seqs;
	eff = fs__sc_get(node, "efficiency");
	if (eff != NULL) {
		saved = fs__sc_push_key(sc, "efficiency");
		rc = fs__sc_load_efficiency(sc, eff, perf);
		fs__sc_pop(sc, saved);
		if (rc != 0)
			return -1;
	}
	if (load_step_table(sc, node, llm) != 0)
		return -1;
	if (fs_perf_cfg_check(perf, &perr) != 0 && tp_splits_badly(model, tp))
		return fail_at_tp(sc, node, plan_at, plan_path, perr.msg);
	if (fs_perf_cfg_check(perf, &perr) != 0 ||
	    fs_perf_plan_memory(perf, &llm->mem, &perr) != 0) {
		fs__sc_path_save(sc, &saved_path);
		if (plan_path != NULL)
			fs__sc_path_set(sc, plan_path);
		fs__sc_fail_at(sc, plan_at != NULL ? plan_at : node, "%s", perr.msg);
		fs__sc_path_restore(sc, &saved_path);
		return -1;
	}
	llm->sched.block_tokens = perf->block_tokens;
	/* vLLM reserves block 0 as its null block (§1.4, MODEL: V6). */
	llm->sched.kv_blocks = llm->mem.kv_blocks > 1 ? llm->mem.kv_blocks - 1 : 1;
	return 0;
}

void fs__sc_llm_fini(struct fs_llm_cfg *llm)
{
	if (llm == NULL)
		return;
	free(llm->step_table_path);
	fs_step_table_free(llm->step_table);
	llm->step_table_path = NULL;
	llm->step_table = NULL;
	llm->perf.table = NULL;
}

const struct fs_model_spec *fs__sc_vllm_model(const struct fs__sc *sc, const cJSON *node)
{
	const cJSON *m = fs__sc_get(node, "model");

	return cJSON_IsString(m) ? fs_catalog_file_find_model(sc->catalog, m->valuestring)
	                         : NULL;
}

int fs__sc_vllm_gpu(struct fs__sc *sc, const cJSON *node, const char *key,
                    const struct fs_gpu_spec **gpu)
{
	const char *gpu_name = NULL;
	int rc = fs__sc_string(sc, node, key, false, &gpu_name);

	if (rc <= 0)
		return rc;
	*gpu = fs_catalog_file_find_gpu(sc->catalog, gpu_name);
	if (*gpu == NULL)
		return unknown_name(sc, node, key, "GPU", "gpus", gpu_name,
		                    fs_catalog_file_suggest_gpu(sc->catalog, gpu_name));
	return 1;
}

int fs__sc_load_vllm(struct fs__sc *sc, const cJSON *node, struct fs_engine_cfg *cfg)
{
	const struct fs_gpu_spec *gpu = NULL;
	const struct fs_model_spec *model;
	int64_t tp = 1, replicas = 1;

	if (load_names(sc, node, sc->fleet_node == NULL, &gpu, &model) != 0 ||
	    fs__sc_int(sc, node, "tp", 1, 64, &tp) < 0)
		return -1;
	if (sc->fleet_node != NULL) {
		/* The pools carry the counts and each its own llm; "gpu" and
		 * "tp" are their defaults, and the fleet loader builds
		 * engine.llm from pool 0. */
		sc->engine_gpu = gpu;
		sc->engine_tp = (int)tp;
		return fs__sc_forbid(sc, node, "replicas", "when \"fleet\" gives the pools");
	}
	if (fs__sc_int(sc, node, "replicas", 1, 10000, &replicas) < 0 ||
	    fs__sc_llm_build(sc, node, gpu, model, (int)tp, NULL, NULL, &cfg->llm) != 0)
		return -1;
	cfg->llm.replicas = (int)replicas;
	return 0;
}

/* ---- printing ------------------------------------------------------------------------ */

void fs__sc_print_vllm(const struct fs_engine_cfg *cfg, cJSON *engine)
{
	const struct fs_llm_cfg *llm = &cfg->llm;
	const struct fs_perf_cfg *p = &llm->perf;
	const struct fs_llm_engine_cfg *s = &llm->sched;

	cJSON_AddStringToObject(engine, "model", p->model->id);
	cJSON_AddStringToObject(engine, "gpu", p->gpu->id);
	fs__sc_print_number(engine, "tp", p->tp);
	fs__sc_print_number(engine, "replicas", llm->replicas);
	cJSON_AddStringToObject(engine, "weights_dtype", fs_dtype_name(p->weight_dtype));
	cJSON_AddStringToObject(engine, "kv_dtype", fs_dtype_name(p->kv_dtype));
	fs__sc_print_number(engine, "gpu_mem_util", p->gpu_mem_util);
	fs__sc_print_number(engine, "block_tokens", p->block_tokens);
	if (p->kv_blocks_pinned > 0)
		fs__sc_print_number(engine, "kv_blocks", (double)p->kv_blocks_pinned);
	fs__sc_print_number(engine, "max_num_seqs", (double)s->max_num_seqs);
	fs__sc_print_number(engine, "max_num_batched_tokens",
	                    (double)s->max_num_batched_tokens);
	cJSON_AddBoolToObject(engine, "chunked_prefill", s->enable_chunked_prefill);
	fs__sc_print_number(engine, "long_prefill_token_threshold",
	                    (double)s->long_prefill_token_threshold);
	cJSON_AddStringToObject(engine, "policy",
	                        fs_llm_policy_name(s->policy));
	cJSON_AddStringToObject(engine, "batching",
	                        fs_llm_batching_name(s->batching));
	if (s->scheduler != FS_LLM_SCHED_CHUNKED)    /* absent = default: old output kept */
		cJSON_AddStringToObject(engine, "scheduler", fs_llm_scheduler_name(s->scheduler));
	if (!s->prefix_caching)                      /* absent = default (on) */
		cJSON_AddBoolToObject(engine, "prefix_caching", false);
	if (!s->fast_path)                           /* absent = default (on) */
		cJSON_AddBoolToObject(engine, "fast_path", false);
	fs__sc_print_number(engine, "max_model_len", (double)s->max_model_len);
	fs__sc_print_number(engine, "max_preemptions_per_request",
	                    (double)s->max_preemptions_per_request);
	/* Only what was overridden: the defaults are the GPU's, shown by
	 * fs_scenario_print_notes. */
	fs__sc_print_efficiency(p, engine);
	if (llm->step_table_path != NULL)
		cJSON_AddStringToObject(engine, "step_table", llm->step_table_path);
}

void fs__sc_print_vllm_fleet(const struct fs_fleet_cfg *fleet, cJSON *engine)
{
	bool tokens_default = true, seqs_default = true;
	int64_t seqs;
	size_t i;

	for (i = 0; i < fleet->n_pools; i++) {
		const struct fs_llm_engine_cfg *s = &fleet->pools[i].llm->sched;
		const struct fs_gpu_spec *gpu = fleet->pools[i].llm->perf.gpu;

		if (s->max_num_batched_tokens != fs_llm_default_max_num_batched_tokens(gpu))
			tokens_default = false;
		seqs = fs_llm_default_max_num_seqs(gpu, s->max_num_batched_tokens);    /* MODEL: V17 */
		if (s->max_num_seqs != seqs)
			seqs_default = false;
	}
	if (tokens_default)
		cJSON_DeleteItemFromObjectCaseSensitive(engine, "max_num_batched_tokens");
	if (seqs_default)
		cJSON_DeleteItemFromObjectCaseSensitive(engine, "max_num_seqs");
}

/* n with thousands separators ("37,520"). */
static void group(int64_t n, char *buf, size_t len)
{
	char digits[32];
	size_t nd, i, o = 0;

	snprintf(digits, sizeof digits, "%" PRId64, n < 0 ? -n : n);
	nd = strlen(digits);
	if (n < 0 && o + 1 < len)
		buf[o++] = '-';
	for (i = 0; i < nd && o + 2 < len; i++) {
		if (i > 0 && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

static void dur(fs_ns over_ns, fs_ns gpu_ns, char *buf, size_t len)
{
	fs_duration_format(over_ns >= 0 ? over_ns : gpu_ns, buf, len);
}

int fs__sc_print_vllm_notes(const struct fs_llm_cfg *llm, FILE *out)
{
	const struct fs_perf_cfg *p = &llm->perf;
	const struct fs_mem_plan *m = &llm->mem;
	const struct fs_gpu_spec *g = p->gpu;
	int64_t tokens = m->kv_blocks * p->block_tokens;
	int64_t need = (llm->sched.max_model_len + p->block_tokens - 1) / p->block_tokens;
	char blocks[32], toks[32], usable[32], it[40], seq[40], layer[40], ar[40];
	int rc = 0;

	group(m->kv_blocks, blocks, sizeof blocks);
	group(tokens, toks, sizeof toks);
	group(llm->sched.kv_blocks, usable, sizeof usable);
	dur(p->iteration_overhead_ns, g->iteration_overhead_ns, it, sizeof it);
	dur(p->per_seq_overhead_ns, g->per_seq_overhead_ns, seq, sizeof seq);
	dur(p->layer_overhead_ns, g->layer_overhead_ns, layer, sizeof layer);
	dur(p->allreduce_latency_ns, g->allreduce_latency_ns, ar, sizeof ar);
	if (fprintf(out, "// memory: weights %.1f GB/GPU, activations %.1f GB, KV %s "
	            "blocks of %d tokens (%s tokens; %s usable after the null block), "
	            "%.1f GB usable of %.1f GB\n", m->weights_bytes_per_gpu / GB,
	            m->activation_bytes_per_gpu / GB, blocks, p->block_tokens, toks,
	            usable, m->usable_bytes_per_gpu / GB, g->mem_bytes / GB) < 0 ||
	    fprintf(out, "// step model: %s; mfu %.2f, mbu %.2f, iteration overhead %s, "
	            "per-sequence %s, per-layer %s, all-reduce %s; token budget %" PRId64
	            " per step\n", p->table != NULL ? "measured step table" : "roofline",
	            fs_perf_mfu(p), p->mbu > 0 ? p->mbu : g->mbu, it, seq,
	            layer, ar, p->max_batched_tokens) < 0)
		rc = -1;
	/* vLLM refuses to start when one max_model_len sequence cannot fit. */
	if (rc == 0 && need > llm->sched.kv_blocks &&
	    fprintf(out, "// warning: one max_model_len (%" PRId64 "-token) sequence "
	            "needs %" PRId64 " blocks but %s are usable: vLLM would refuse to "
	            "start; set max_model_len <= %" PRId64 " (longer requests are "
	            "refused here)\n", llm->sched.max_model_len, need, usable,
	            llm->sched.kv_blocks * p->block_tokens) < 0)
		rc = -1;
	return rc;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_llm_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(fs__sc_vllm_keys),
		FS__SC_TABLE(DTYPE_NAMES),
		FS__SC_TABLE(KV_DTYPE_NAMES),
		FS__SC_TABLE(POLICY_NAMES),
		FS__SC_TABLE(BATCHING_NAMES),
		FS__SC_TABLE(SCHEDULER_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
