/*
 * scenario_catalog.c — GPUs and models defined by the user: a scenario's
 * "catalog" section or a `--catalog FILE`, both {"gpus": [...], "models":
 * [...]}.  An entry starts from a built-in ("base") or from nothing, takes
 * the keys given (unit-bearing names converted to the catalogue's SI units)
 * and is checked for consistency; printed back for scenario.json.  struct
 * fs_catalog_file owns every entry and every string in it.  Lookups, where an
 * entry shadows the built-in of the same id, are scenario_catalog_find.c's.
 */
#include "scenario_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fleetsim/scenario.h"
#include "scenario_model_cfg.h"
#include "suggest.h"
#include "scenario_schema.h"

#define GB 1e9
#define TERA 1e12
#define MAX_ENTRIES 1000
#define SOURCE FS_SC_CATALOG_SOURCE

static const char *const CATALOG_KEYS[] = { "gpus", "models", NULL };
static const char *const GPU_KEYS[] = {
	"id", "base", "display_name", "mem_gb", "mem_bw_gbps", "fp16_tflops",
	"fp8_tflops", "int8_tops", "link_gbps", "tdp_w", "mfu", "mbu", "mfu_8bit",
	"attn_eff", "iteration_overhead", "per_seq_overhead", "layer_overhead",
	"allreduce_latency", "price_on_demand_usd_per_h", "price_spot_usd_per_h",
	"price_monthly_usd", "price_date", "notes", "aliases", "interconnect",
	"price_source", "spec_source", NULL
};
static const char *const MODEL_KEYS[] = {
	"id", "base", "display_name", "layers", "hidden", "heads", "kv_heads",
	"head_dim", "ffn", "vocab", "experts", "experts_per_token", "params_b",
	"active_params_b", "max_context", "notes", "config", NULL
};

/* A double field of struct fs_gpu_spec: JSON key, offset, key unit → SI
 * factor, range, and whether an entry without "base" must give it. */
struct gpu_num {
	const char *key;
	size_t off;
	double scale;
	double lo;
	bool lo_open;
	double hi;
	bool required;
};

#define GPU_FIELD(f) offsetof(struct fs_gpu_spec, f)
static const struct gpu_num GPU_NUMS[] = {
	{ "mem_gb", GPU_FIELD(mem_bytes), GB, 0, true, 1e5, true },
	{ "mem_bw_gbps", GPU_FIELD(mem_bw_bytes_per_s), GB, 0, true, 1e6, true },
	{ "fp16_tflops", GPU_FIELD(fp16_flops_per_s), TERA, 0, true, 1e6, true },
	{ "fp8_tflops", GPU_FIELD(fp8_flops_per_s), TERA, 0, false, 1e6, false },
	{ "int8_tops", GPU_FIELD(int8_ops_per_s), TERA, 0, false, 1e6, false },
	{ "link_gbps", GPU_FIELD(link_bytes_per_s), GB, 0, false, 1e6, false },
	{ "tdp_w", GPU_FIELD(tdp_w), 1, 0, false, 1e6, false },
	{ "mfu", GPU_FIELD(mfu), 1, 0, true, 1, false },
	{ "mbu", GPU_FIELD(mbu), 1, 0, true, 1, false },
	{ "mfu_8bit", GPU_FIELD(mfu_8bit), 1, 0, false, 1, false },   /* 0 = default */
	{ "attn_eff", GPU_FIELD(attn_eff), 1, 0, false, 1, false },   /* 0 = default */
	{ "price_on_demand_usd_per_h", GPU_FIELD(price_on_demand_usd_per_h), 1, 0,
	  false, 1e9, false },
	{ "price_spot_usd_per_h", GPU_FIELD(price_spot_usd_per_h), 1, 0, false,
	  1e9, false },
	{ "price_monthly_usd", GPU_FIELD(price_monthly_usd), 1, 0, false, 1e9,
	  false },
};
#define N_GPU_NUMS (sizeof GPU_NUMS / sizeof GPU_NUMS[0])

struct gpu_dur {
	const char *key;
	size_t off;                  /* of an fs_ns field */
};
static const struct gpu_dur GPU_DURS[] = {
	{ "iteration_overhead", GPU_FIELD(iteration_overhead_ns) },
	{ "per_seq_overhead", GPU_FIELD(per_seq_overhead_ns) },
	{ "layer_overhead", GPU_FIELD(layer_overhead_ns) },
	{ "allreduce_latency", GPU_FIELD(allreduce_latency_ns) },
};
#define N_GPU_DURS (sizeof GPU_DURS / sizeof GPU_DURS[0])

/* A string field of struct fs_gpu_spec other than id and display_name
 * (load_texts reads those two and notes): JSON key and offset. */
struct gpu_str {
	const char *key;
	size_t off;                  /* of a const char * field */
};
static const struct gpu_str GPU_STRS[] = {
	{ "aliases", GPU_FIELD(aliases) },
	{ "interconnect", GPU_FIELD(interconnect) },
	{ "price_date", GPU_FIELD(price_date) },
	{ "price_source", GPU_FIELD(price_source) },
	{ "spec_source", GPU_FIELD(spec_source) },
};
#define N_GPU_STRS (sizeof GPU_STRS / sizeof GPU_STRS[0])

/* An int field of struct fs_model_spec, its range and whether an entry
 * without "base" must give it. */
struct model_int {
	const char *key;
	size_t off;
	int64_t hi;
	bool required;
};

#define MODEL_FIELD(f) offsetof(struct fs_model_spec, f)
static const struct model_int MODEL_INTS[] = {
	{ "layers", MODEL_FIELD(layers), 100000, true },
	{ "hidden", MODEL_FIELD(hidden), 10000000, true },
	{ "heads", MODEL_FIELD(heads), 100000, true },
	{ "kv_heads", MODEL_FIELD(kv_heads), 100000, true },
	{ "head_dim", MODEL_FIELD(head_dim), 100000, false },
	{ "ffn", MODEL_FIELD(ffn), 100000000, true },
	{ "vocab", MODEL_FIELD(vocab), 100000000, true },
	{ "experts", MODEL_FIELD(experts), 100000, false },
	{ "experts_per_token", MODEL_FIELD(experts_per_token), 100000, false },
};
#define N_MODEL_INTS (sizeof MODEL_INTS / sizeof MODEL_INTS[0])
#define MAX_CONTEXT_TOKENS (INT64_C(1) << 40)

static double *gpu_num(struct fs_gpu_spec *g, size_t off)
{
	return (double *)(void *)((char *)g + off);
}

static double gpu_num_of(const struct fs_gpu_spec *g, size_t off)
{
	return *(const double *)(const void *)((const char *)g + off);
}

static fs_ns *gpu_dur(struct fs_gpu_spec *g, size_t off)
{
	return (fs_ns *)(void *)((char *)g + off);
}

static fs_ns gpu_dur_of(const struct fs_gpu_spec *g, size_t off)
{
	return *(const fs_ns *)(const void *)((const char *)g + off);
}

static const char **gpu_str(struct fs_gpu_spec *g, size_t off)
{
	return (const char **)(void *)((char *)g + off);
}

static const char *gpu_str_of(const struct fs_gpu_spec *g, size_t off)
{
	return *(const char *const *)(const void *)((const char *)g + off);
}

static int *model_int(struct fs_model_spec *m, size_t off)
{
	return (int *)(void *)((char *)m + off);
}

static int model_int_of(const struct fs_model_spec *m, size_t off)
{
	return *(const int *)(const void *)((const char *)m + off);
}

/* Replace the owned string *field with a copy of s. */
static void set_str(const char **field, const char *s)
{
	free((char *)(uintptr_t)*field);
	*field = fs_xstrdup(s);
}

static void gpu_strings_fini(struct fs_gpu_spec *g)
{
	const char **s[] = { &g->id, &g->aliases, &g->display_name, &g->interconnect,
	                     &g->price_date, &g->price_source, &g->spec_source,
	                     &g->notes };

	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		free((char *)(uintptr_t)*s[i]);
}

static void model_strings_fini(struct fs_model_spec *m)
{
	const char **s[] = { &m->id, &m->aliases, &m->display_name, &m->source,
	                     &m->notes };

	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		free((char *)(uintptr_t)*s[i]);
}

void fs__sc_catalog_fini(struct fs_catalog_file *cf)
{
	size_t i;

	for (i = 0; i < cf->n_gpus; i++) {
		gpu_strings_fini(&cf->gpus[i]);
		free(cf->gpu_bases[i]);
	}
	for (i = 0; i < cf->n_models; i++) {
		model_strings_fini(&cf->models[i]);
		free(cf->model_bases[i]);
	}
	free(cf->gpus);
	free(cf->gpu_bases);
	free(cf->models);
	free(cf->model_bases);
	memset(cf, 0, sizeof *cf);
}

/* ---- loading ------------------------------------------------------------------- */

/* "id" (required) and "base" (optional; *base_name stays NULL when absent). */
static int load_id_base(struct fs__sc *sc, const cJSON *node, const char **id,
                        const char **base_name)
{
	if (fs__sc_require(sc, node, "id") != 0 ||
	    fs__sc_string(sc, node, "id", false, id) < 0 ||
	    fs__sc_string(sc, node, "base", false, base_name) < 0)
		return -1;
	return 0;
}

static int duplicate_id(struct fs__sc *sc, const cJSON *node, const char *what,
                        const char *id)
{
	return fs__sc_fail_member(sc, node, "id", "duplicate %s id \"%.60s\" in this "
	                          "catalogue", what, id);
}

/* "display_name" (non-empty) and "notes" into *name and *notes when given. */
static int load_texts(struct fs__sc *sc, const cJSON *node, const char **name,
                      const char **notes)
{
	const char *text = NULL;

	if (fs__sc_string(sc, node, "display_name", false, &text) < 0)
		return -1;
	if (text != NULL)
		set_str(name, text);
	text = NULL;
	if (fs__sc_string(sc, node, "notes", true, &text) < 0)
		return -1;
	if (text != NULL)
		set_str(notes, text);
	return 0;
}

static int unknown_base(struct fs__sc *sc, const cJSON *node, const char *what,
                        const char *name, const char *near)
{
	if (near != NULL)
		return fs__sc_fail_member(sc, node, "base", "unknown built-in %s "
		                          "\"%.60s\"; did you mean \"%s\"?", what, name, near);
	return fs__sc_fail_member(sc, node, "base", "unknown built-in %s \"%.60s\"; "
	                          "see 'fleetsim catalog'", what, name);
}

static int load_gpu(struct fs__sc *sc, const cJSON *node, struct fs_catalog_file *cf)
{
	struct fs_gpu_spec *g = &cf->gpus[cf->n_gpus];
	const struct fs_gpu_spec *base = NULL;
	const char *id = NULL, *base_name = NULL, *text = NULL;
	double v;
	fs_ns d = 0;
	size_t i;

	if (fs__sc_check_object(sc, node, GPU_KEYS) != 0 ||
	    load_id_base(sc, node, &id, &base_name) != 0)
		return -1;
	if (fs__sc_catalog_own_gpu(cf, id, cf->n_gpus) != NULL)
		return duplicate_id(sc, node, "GPU", id);
	if (base_name != NULL) {
		base = fs_catalog_find_gpu(base_name);
		if (base == NULL)
			return unknown_base(sc, node, "GPU", base_name,
			                    fs_catalog_suggest_gpu(base_name));
	}
	if (base != NULL) {
		*g = *base;
	} else {
		memset(g, 0, sizeof *g);
		g->mfu = FS_GPU_MFU_DEFAULT;
		g->mbu = FS_GPU_MBU_DEFAULT;
		g->iteration_overhead_ns = FS_GPU_ITERATION_OVERHEAD_NS_DEFAULT;
		g->per_seq_overhead_ns = FS_GPU_PER_SEQ_OVERHEAD_NS_DEFAULT;
		g->layer_overhead_ns = FS_GPU_LAYER_OVERHEAD_NS_DEFAULT;
		g->allreduce_latency_ns = FS_GPU_ALLREDUCE_LATENCY_NS_DEFAULT;
	}
	/* Own every string from here on, so fini can free them all. */
	g->id = fs_xstrdup(id);
	g->aliases = fs_xstrdup("");
	g->display_name = fs_xstrdup(base != NULL ? base->display_name : id);
	g->interconnect = fs_xstrdup(base != NULL ? base->interconnect : "");
	g->price_date = fs_xstrdup(base != NULL ? base->price_date : "");
	g->price_source = fs_xstrdup(base != NULL ? base->price_source : SOURCE);
	g->spec_source = fs_xstrdup(base != NULL ? base->spec_source : SOURCE);
	g->notes = fs_xstrdup(base != NULL ? base->notes : "");
	cf->gpu_bases[cf->n_gpus] = fs_xstrdup(base != NULL ? base->id : NULL);
	cf->n_gpus++;

	for (i = 0; i < N_GPU_NUMS; i++) {
		const struct gpu_num *f = &GPU_NUMS[i];

		if (base == NULL && f->required &&
		    fs__sc_get(node, f->key) == NULL)
			return fs__sc_fail_at(sc, node, "missing required key \"%s\" "
			                      "(needed without \"base\")", f->key);
		if (fs__sc_number(sc, node, f->key, f->lo, f->lo_open, f->hi, false,
		                  &v) < 0)
			return -1;
		if (fs__sc_get(node, f->key) != NULL)
			*gpu_num(g, f->off) = v * f->scale;
	}
	for (i = 0; i < N_GPU_DURS; i++) {
		if (fs__sc_duration_upto(sc, node, GPU_DURS[i].key, 0, FS__MAX_OVERHEAD_NS, &d) < 0)
			return -1;
		if (fs__sc_get(node, GPU_DURS[i].key) != NULL)
			*gpu_dur(g, GPU_DURS[i].off) = d;
	}
	for (i = 0; i < N_GPU_STRS; i++) {
		text = NULL;
		if (fs__sc_string(sc, node, GPU_STRS[i].key, true, &text) < 0)
			return -1;
		if (text != NULL)
			set_str(gpu_str(g, GPU_STRS[i].off), text);
	}
	return load_texts(sc, node, &g->display_name, &g->notes);
}

/* Consistency of a model's shape after base and keys are merged. */
static int check_model(struct fs__sc *sc, const cJSON *node, const struct fs_model_spec *m)
{
	char active[40], total[40];

	if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0) {
		if (fs__sc_get(node, "kv_heads") != NULL)
			return fs__sc_fail_member(sc, node, "kv_heads", "expected a divisor "
			                          "of heads (%d), found %d", m->heads,
			                          m->kv_heads);
		return fs__sc_fail_at(sc, node, "kv_heads (%d) must divide heads (%d)",
		                      m->kv_heads, m->heads);
	}
	if (m->experts_per_token > m->experts)
		return fs__sc_fail_at(sc, node, "experts_per_token (%d) must not exceed "
		                      "experts (%d)", m->experts_per_token, m->experts);
	if (m->active_params > m->params) {
		fs__sc_format_number(m->active_params / GB, active, sizeof active);
		fs__sc_format_number(m->params / GB, total, sizeof total);
		return fs__sc_fail_at(sc, node, "active_params_b (%s) must not exceed "
		                      "params_b (%s)", active, total);
	}
	return 0;
}

static int load_model(struct fs__sc *sc, const cJSON *node, struct fs_catalog_file *cf)
{
	struct fs_model_spec *m = &cf->models[cf->n_models];
	const struct fs_model_spec *base = NULL;
	const char *id = NULL, *base_name = NULL;
	int64_t iv;
	double params_b = 0, active_b = 0;
	bool base_dense, shaped;
	size_t i;
	int from_cfg;

	if (fs__sc_check_object(sc, node, MODEL_KEYS) != 0 ||
	    load_id_base(sc, node, &id, &base_name) != 0)
		return -1;
	if (fs__sc_catalog_own_model(cf, id, cf->n_models) != NULL)
		return duplicate_id(sc, node, "model", id);
	if (base_name != NULL) {
		base = fs_catalog_find_model(base_name);
		if (base == NULL)
			return unknown_base(sc, node, "model", base_name,
			                    fs_catalog_suggest_model(base_name));
	}
	/* "config": the shape from a config.json (its strings owned already);
	 * the entry's own keys below override it, as they do a base's. */
	from_cfg = fs__sc_model_cfg_load(sc, node, id, base != NULL, m);
	if (from_cfg < 0)
		return -1;
	shaped = base != NULL || from_cfg == 1;
	if (base != NULL) {
		*m = *base;
	} else if (from_cfg == 0) {
		memset(m, 0, sizeof *m);
		m->experts = 1;
		m->experts_per_token = 1;
	}
	if (from_cfg == 0) {
		m->id = fs_xstrdup(id);
		m->aliases = fs_xstrdup("");
		m->display_name = fs_xstrdup(base != NULL ? base->display_name : id);
		m->source = fs_xstrdup(base != NULL ? base->source : SOURCE);
		m->notes = fs_xstrdup(base != NULL ? base->notes : "");
	}
	cf->model_bases[cf->n_models] = fs_xstrdup(base != NULL ? base->id : NULL);
	cf->n_models++;

	for (i = 0; i < N_MODEL_INTS; i++) {
		const struct model_int *f = &MODEL_INTS[i];

		if (!shaped && f->required && fs__sc_get(node, f->key) == NULL)
			return fs__sc_fail_at(sc, node, "missing required key \"%s\" "
			                      "(needed without \"base\" or \"config\")",
			                      f->key);
		if (fs__sc_int(sc, node, f->key, 1, f->hi, &iv) < 0)
			return -1;
		if (fs__sc_get(node, f->key) != NULL)
			*model_int(m, f->off) = (int)iv;
	}
	/* head_dim follows hidden / heads unless given, or kept from the base
	 * (or the config) when neither changes. */
	if (fs__sc_get(node, "head_dim") == NULL &&
	    (!shaped || fs__sc_get(node, "hidden") != NULL ||
	     fs__sc_get(node, "heads") != NULL)) {
		if (m->hidden % m->heads != 0)
			return fs__sc_fail_at(sc, node, "hidden (%d) is not a multiple of "
			                      "heads (%d): give \"head_dim\"", m->hidden,
			                      m->heads);
		m->head_dim = m->hidden / m->heads;
	}
	if (!shaped && fs__sc_require(sc, node, "params_b") != 0)
		return -1;
	if (!shaped && fs__sc_require(sc, node, "max_context") != 0)
		return -1;
	if (fs__sc_number(sc, node, "params_b", 0, true, 1e6, false, &params_b) < 0 ||
	    fs__sc_number(sc, node, "active_params_b", 0, true, 1e6, false,
	                  &active_b) < 0 ||
	    fs__sc_int(sc, node, "max_context", 16, MAX_CONTEXT_TOKENS, &iv) < 0)
		return -1;
	if (fs__sc_get(node, "max_context") != NULL)
		m->max_context_tokens = iv;
	/* active_params_b defaults to params_b for a dense model (no base, or a
	 * dense base or config), else keeps the base's or the config's. */
	base_dense = !shaped || m->active_params == m->params;
	if (fs__sc_get(node, "params_b") != NULL) {
		m->params = params_b * GB;
		if (base_dense)
			m->active_params = m->params;
	}
	if (fs__sc_get(node, "active_params_b") != NULL)
		m->active_params = active_b * GB;
	if (load_texts(sc, node, &m->display_name, &m->notes) != 0)
		return -1;
	return check_model(sc, node, m);
}

/* Walk the array obj[key], calling load on each element with the path set. */
static int load_list(struct fs__sc *sc, const cJSON *obj, const char *key,
                     struct fs_catalog_file *cf,
                     int (*load)(struct fs__sc *, const cJSON *, struct fs_catalog_file *))
{
	const cJSON *list = fs__sc_get(obj, key), *item;
	size_t saved, saved_i, i = 0;
	int rc = 0;

	if (list == NULL)
		return 0;
	if (!cJSON_IsArray(list))
		return fs__sc_fail_member(sc, obj, key, "expected an array, found %s",
		                          fs__sc_type_name(list));
	if (cJSON_GetArraySize(list) > MAX_ENTRIES)
		return fs__sc_fail_member(sc, obj, key, "expected at most %d entries, "
		                          "found %d", MAX_ENTRIES,
		                          cJSON_GetArraySize(list));
	saved = fs__sc_push_key(sc, key);
	cJSON_ArrayForEach(item, list) {
		saved_i = fs__sc_push_index(sc, i++);
		rc = load(sc, item, cf);
		fs__sc_pop(sc, saved_i);
		if (rc != 0)
			break;
	}
	fs__sc_pop(sc, saved);
	return rc;
}

int fs__sc_load_catalog(struct fs__sc *sc, const cJSON *node, struct fs_catalog_file *cf)
{
	size_t n_gpus, n_models;

	if (fs__sc_check_object(sc, node, CATALOG_KEYS) != 0)
		return -1;
	n_gpus = (size_t)cJSON_GetArraySize(fs__sc_get(node, "gpus"));
	n_models = (size_t)cJSON_GetArraySize(fs__sc_get(node, "models"));
	cf->gpus = fs_xcalloc(n_gpus + 1, sizeof *cf->gpus);
	cf->gpu_bases = fs_xcalloc(n_gpus + 1, sizeof *cf->gpu_bases);
	cf->models = fs_xcalloc(n_models + 1, sizeof *cf->models);
	cf->model_bases = fs_xcalloc(n_models + 1, sizeof *cf->model_bases);
	if (load_list(sc, node, "gpus", cf, load_gpu) != 0 ||
	    load_list(sc, node, "models", cf, load_model) != 0)
		return -1;
	return 0;
}

/* fs__sc_load_file's walk of a catalogue file into ctx (the file's
 * struct fs_catalog_file, which its own entries may name as bases). */
static int load_catalog_root(struct fs__sc *sc, const cJSON *root, void *ctx)
{
	sc->catalog = ctx;
	return fs__sc_load_catalog(sc, root, ctx);
}

struct fs_catalog_file *fs_catalog_file_load(const char *path, struct fs_error *err)
{
	struct fs_catalog_file *cf = fs_xcalloc(1, sizeof *cf);

	if (fs__sc_load_file(path, "catalog", load_catalog_root, cf, err) != 0) {
		fs_catalog_file_free(cf);
		return NULL;
	}
	return cf;
}

void fs_catalog_file_free(struct fs_catalog_file *cf)
{
	if (cf == NULL)
		return;
	fs__sc_catalog_fini(cf);
	free(cf);
}

/* ---- printing ------------------------------------------------------------------ */

static double times(double x, double scale)
{
	return x * scale;
}

/* The value load_gpu starts a string field from: the base's, except
 * aliases (never inherited); without a base, SOURCE for the sources. */
static const char *start_str(const struct fs_gpu_spec *b, size_t off)
{
	if (off == GPU_FIELD(aliases))
		return "";
	if (b != NULL)
		return gpu_str_of(b, off);
	return off == GPU_FIELD(price_source) || off == GPU_FIELD(spec_source) ? SOURCE : "";
}

/* The USD example prices and what dates and sources them. */
static bool is_price(size_t off)
{
	return off == GPU_FIELD(price_on_demand_usd_per_h) ||
	       off == GPU_FIELD(price_spot_usd_per_h) || off == GPU_FIELD(price_monthly_usd) ||
	       off == GPU_FIELD(price_date) || off == GPU_FIELD(price_source);
}

/* With a base, only what differs from it; without, every field but the
 * strings left at their no-base defaults.  full: every field and no "base",
 * so that the entry loads the same under any built-in catalogue, except
 * the USD example prices when !usd (a scenario in another currency prices
 * every pool itself, so they are not used, and its record names no USD).
 * Numbers are printed so that the loader's key unit x scale gives back the
 * stored double exactly. */
static cJSON *gpu_json(const struct fs_gpu_spec *g, const char *base_id, bool full, bool usd)
{
	const struct fs_gpu_spec *b = base_id != NULL && !full ?
	                              fs_catalog_find_gpu(base_id) : NULL;
	cJSON *o = cJSON_CreateObject();
	const struct gpu_num *f;
	const char *v;
	size_t i;
	fs_ns d;

	cJSON_AddStringToObject(o, "id", g->id);
	if (b != NULL)
		cJSON_AddStringToObject(o, "base", b->id);
	if (b == NULL || strcmp(b->display_name, g->display_name) != 0)
		cJSON_AddStringToObject(o, "display_name", g->display_name);
	for (i = 0; i < N_GPU_NUMS; i++) {
		f = &GPU_NUMS[i];
		if (full && !usd && is_price(f->off))
			continue;
		if (b == NULL || gpu_num_of(b, f->off) != gpu_num_of(g, f->off))
			fs__sc_print_inverse(o, f->key, gpu_num_of(g, f->off),
			                     gpu_num_of(g, f->off) / f->scale, times, f->scale);
	}
	for (i = 0; i < N_GPU_DURS; i++) {
		d = gpu_dur_of(g, GPU_DURS[i].off);
		if (b == NULL || gpu_dur_of(b, GPU_DURS[i].off) != d)
			fs__sc_print_duration(o, GPU_DURS[i].key, d);
	}
	for (i = 0; i < N_GPU_STRS; i++) {
		v = gpu_str_of(g, GPU_STRS[i].off);
		if (full && !usd && is_price(GPU_STRS[i].off))
			continue;
		if (full || strcmp(start_str(b, GPU_STRS[i].off), v) != 0 ||
		    (b == NULL && GPU_STRS[i].off == GPU_FIELD(price_date)))
			cJSON_AddStringToObject(o, GPU_STRS[i].key, v);
	}
	if (b == NULL || strcmp(b->notes, g->notes) != 0)
		cJSON_AddStringToObject(o, "notes", g->notes);
	return o;
}

static cJSON *model_json(const struct fs_model_spec *m, const char *base_id)
{
	const struct fs_model_spec *b = base_id != NULL ? fs_catalog_find_model(base_id) : NULL;
	cJSON *o = cJSON_CreateObject();
	size_t i;
	int v;

	cJSON_AddStringToObject(o, "id", m->id);
	if (b != NULL)
		cJSON_AddStringToObject(o, "base", b->id);
	if (b == NULL || strcmp(b->display_name, m->display_name) != 0)
		cJSON_AddStringToObject(o, "display_name", m->display_name);
	for (i = 0; i < N_MODEL_INTS; i++) {
		v = model_int_of(m, MODEL_INTS[i].off);
		if (b == NULL || model_int_of(b, MODEL_INTS[i].off) != v)
			fs__sc_print_number(o, MODEL_INTS[i].key, v);
	}
	if (b == NULL || b->params != m->params)
		fs__sc_print_number(o, "params_b", m->params / GB);
	if (b == NULL || b->active_params != m->active_params)
		fs__sc_print_number(o, "active_params_b", m->active_params / GB);
	if (b == NULL || b->max_context_tokens != m->max_context_tokens)
		fs__sc_print_number(o, "max_context", (double)m->max_context_tokens);
	if (b == NULL || strcmp(b->notes, m->notes) != 0)
		cJSON_AddStringToObject(o, "notes", m->notes);
	return o;
}

cJSON *fs__sc_print_catalog(const struct fs_catalog_file *cf)
{
	return fs__sc_print_catalog_full(cf, NULL, 0, true);
}

cJSON *fs__sc_print_catalog_full(const struct fs_catalog_file *cf,
                                 const struct fs_gpu_spec *const *extra, size_t n_extra,
                                 bool usd)
{
	cJSON *o = cJSON_CreateObject(), *list;
	bool full = extra != NULL;
	size_t i;

	if (cf->n_gpus > 0 || n_extra > 0) {
		list = cJSON_AddArrayToObject(o, "gpus");
		for (i = 0; i < cf->n_gpus; i++)
			cJSON_AddItemToArray(list, gpu_json(&cf->gpus[i], cf->gpu_bases[i], full,
			                                             usd));
		for (i = 0; i < n_extra; i++)
			cJSON_AddItemToArray(list, gpu_json(extra[i], NULL, true, usd));
	}
	if (cf->n_models > 0) {
		list = cJSON_AddArrayToObject(o, "models");
		for (i = 0; i < cf->n_models; i++)
			cJSON_AddItemToArray(list, model_json(&cf->models[i],
			                                      cf->model_bases[i]));
	}
	return o;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_catalog_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(CATALOG_KEYS),
		FS__SC_TABLE(GPU_KEYS),
		FS__SC_TABLE(MODEL_KEYS),
		{ NULL, NULL }
	};

	return tables;
}
