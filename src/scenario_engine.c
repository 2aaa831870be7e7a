/*
 * scenario_engine.c — the "engine" section, read and printed through a table
 * of engine types: each type names its keys, its loader and its printer, so a
 * new engine is one table row and two functions ("vllm": scenario_llm.c).
 * The loaders fill a struct fs_engine_cfg; only a vllm step table is on the
 * heap, freed by fs__sc_engine_fini.
 */
#include "scenario_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario_cfg.h"
#include "scenario_schema.h"

struct engine_type {
	const char *name;                    /* value of "type" */
	enum fs_engine_kind kind;
	const char *const *keys;             /* every key the object may hold */
	int (*load)(struct fs__sc *sc, const cJSON *node, struct fs_engine_cfg *cfg);
	void (*print)(const struct fs_engine_cfg *cfg, cJSON *engine);
};

/* ---- "queue": c servers, a service-time distribution ----------------------- */

static const char *const QUEUE_KEYS[] = {
	"type", "servers", "service", "discipline", NULL
};
static const char *const SERVICE_KEYS[] = { "dist", "mean", "cv", NULL };
/* The enums' names (config.h) in value order: a name's index is its value. */
static const char *const SERVICE_NAMES[] = { FS_SERVICE_MAP(FS_ENUM_NAME) NULL };
static const char *const DISCIPLINE_NAMES[] = { FS_DISCIPLINE_MAP(FS_ENUM_NAME) NULL };

static int load_service(struct fs__sc *sc, const cJSON *node, struct fs_service_cfg *svc)
{
	int idx = 0;

	if (fs__sc_check_object(sc, node, SERVICE_KEYS) != 0 ||
	    fs__sc_require(sc, node, "dist") != 0 ||
	    fs__sc_enum(sc, node, "dist", "service distribution", SERVICE_NAMES, &idx) < 0)
		return -1;
	svc->kind = (enum fs_service_kind)idx;
	if (svc->kind != FS_SERVICE_LOGNORMAL &&
	    fs__sc_forbid(sc, node, "cv", "unless dist is \"lognormal\"") != 0)
		return -1;
	if (fs__sc_require(sc, node, "mean") != 0 ||
	    (svc->kind == FS_SERVICE_LOGNORMAL && fs__sc_require(sc, node, "cv") != 0) ||
	    fs__sc_duration(sc, node, "mean", 1, &svc->mean_ns) < 0 ||
	    fs__sc_number(sc, node, "cv", 0.0, true, FS__MAX_CV, false, &svc->cv) < 0)
		return -1;
	if (svc->mean_ns > FS__MAX_SERVICE_NS) {
		char found[64];

		fs__sc_found(sc, fs__sc_get(node, "mean"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "mean", "expected a duration <= 1d, "
		                          "found %s", found);
	}
	return 0;
}

static int load_queue(struct fs__sc *sc, const cJSON *node, struct fs_engine_cfg *cfg)
{
	int64_t servers = 1;
	int idx = 0;
	size_t saved;
	int rc;

	if (fs__sc_require(sc, node, "service") != 0 ||
	    fs__sc_int(sc, node, "servers", 1, 100000, &servers) < 0 ||
	    fs__sc_enum(sc, node, "discipline", "queue discipline", DISCIPLINE_NAMES,
	                &idx) < 0)
		return -1;
	cfg->servers = (int)servers;
	cfg->discipline = (enum fs_queue_discipline)idx;
	saved = fs__sc_push_key(sc, "service");
	rc = load_service(sc, fs__sc_get(node, "service"), &cfg->service);
	fs__sc_pop(sc, saved);
	return rc;
}

static void print_queue(const struct fs_engine_cfg *cfg, cJSON *engine)
{
	cJSON *svc;

	fs__sc_print_number(engine, "servers", cfg->servers);
	svc = cJSON_AddObjectToObject(engine, "service");
	cJSON_AddStringToObject(svc, "dist", fs_service_kind_name(cfg->service.kind));
	fs__sc_print_duration(svc, "mean", cfg->service.mean_ns);
	if (cfg->service.kind == FS_SERVICE_LOGNORMAL)
		fs__sc_print_number(svc, "cv", cfg->service.cv);
	cJSON_AddStringToObject(engine, "discipline", fs_queue_discipline_name(cfg->discipline));
}

/* ---- the table ----------------------------------------------------------------- */

static const struct engine_type ENGINE_TYPES[] = {
	{ "queue", FS_ENGINE_QUEUE, QUEUE_KEYS, load_queue, print_queue },
	{ "vllm", FS_ENGINE_VLLM, fs__sc_vllm_keys, fs__sc_load_vllm, fs__sc_print_vllm },
};
#define N_ENGINE_TYPES (sizeof ENGINE_TYPES / sizeof ENGINE_TYPES[0])

/* Without a "type", check the keys against those of every type, so that a
 * misspelt "type" gets its suggestion rather than "missing". */
static int check_any_type_keys(struct fs__sc *sc, const cJSON *node)
{
	const char *all[64];
	const char *const *k;
	size_t i, j, n = 0;

	for (i = 0; i < N_ENGINE_TYPES; i++) {
		for (k = ENGINE_TYPES[i].keys; *k != NULL && n < 63; k++) {
			for (j = 0; j < n && strcmp(all[j], *k) != 0; j++)
				;
			if (j == n)
				all[n++] = *k;
		}
	}
	all[n] = NULL;
	return fs__sc_check_object(sc, node, all);
}

int fs__sc_load_engine(struct fs__sc *sc, const cJSON *node, struct fs_engine_cfg *cfg)
{
	const char *names[N_ENGINE_TYPES + 1];
	const struct engine_type *type;
	int idx = 0;
	size_t i;

	for (i = 0; i < N_ENGINE_TYPES; i++)
		names[i] = ENGINE_TYPES[i].name;
	names[N_ENGINE_TYPES] = NULL;
	if (!cJSON_IsObject(node))
		return fs__sc_fail_at(sc, node, "expected an object, found %s",
		                      fs__sc_type_name(node));
	if ((fs__sc_get(node, "type") == NULL && check_any_type_keys(sc, node) != 0) ||
	    fs__sc_require(sc, node, "type") != 0 ||
	    fs__sc_enum(sc, node, "type", "engine type", names, &idx) < 0)
		return -1;
	type = &ENGINE_TYPES[idx];
	if (fs__sc_check_object(sc, node, type->keys) != 0)
		return -1;
	cfg->kind = type->kind;
	return type->load(sc, node, cfg);
}

void fs__sc_print_engine(const struct fs_engine_cfg *cfg, cJSON *engine)
{
	size_t i;

	for (i = 0; i < N_ENGINE_TYPES; i++) {
		if (ENGINE_TYPES[i].kind == cfg->kind) {
			cJSON_AddStringToObject(engine, "type", ENGINE_TYPES[i].name);
			ENGINE_TYPES[i].print(cfg, engine);
			return;
		}
	}
}

void fs__sc_engine_fini(struct fs_engine_cfg *cfg)
{
	fs__sc_llm_fini(&cfg->llm);
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_engine_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(QUEUE_KEYS),
		FS__SC_TABLE(SERVICE_KEYS),
		FS__SC_TABLE(SERVICE_NAMES),
		FS__SC_TABLE(DISCIPLINE_NAMES),
		{ NULL, NULL }
	};

	return tables;
}

const char *fs__sc_engine_type(size_t i, const char *const **keys)
{
	if (i >= N_ENGINE_TYPES)
		return NULL;
	*keys = ENGINE_TYPES[i].keys;
	return ENGINE_TYPES[i].name;
}
