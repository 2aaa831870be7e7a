/*
 * scenario_fleet.c — the "fleet" section: router, spot strategy, zones with
 * their capacity traces, the pools (one by one in scenario_pool.c), the
 * autoscaler and the class pins; and the implicit fleet of a vllm scenario
 * without "fleet" (one warm on-demand pool of engine.replicas).  Every
 * cross-reference (pool, zone, class names) is checked with "did you mean".
 * struct fs_scenario owns the fleet; fs__sc_fleet_fini frees it once.
 */
#include "scenario_walk.h"
#include "scenario_scale.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/capacity.h"
#include "fleetsim/scenario_cfg.h"
#include "suggest.h"
#include "scenario_schema.h"

#define MAX_POOLS 32
#define MAX_ZONES 64

static const char *const FLEET_KEYS[] = {
	"router", "strategy", "zones", "pools", "autoscale", "class_pools", NULL
};
static const char *const ZONE_KEYS[] = { "name", "capacity_trace", NULL };
static const char *const TRACE_KEYS[] = { "path", "format", "scale", "loop", NULL };

/* The enums' names (fleet_cfg.h) in value order: a name's index is its value. */
static const char *const ROUTER_NAMES[] = { FS_ROUTER_MAP(FS_ENUM_NAME) NULL };
static const char *const STRATEGY_NAMES[] = { FS_SPOT_STRATEGY_MAP(FS_ENUM_NAME) NULL };
static const char *const FORMAT_NAMES[] = { FS_CAPACITY_FORMAT_MAP(FS_ENUM_NAME) NULL };

/* ---- shared helpers ------------------------------------------------------------ */

/* ---- zones ------------------------------------------------------------------------ */

/* A zone's "capacity_trace" into zone (struct fs_zone_cfg). */
static int load_capacity_trace(struct fs__sc *sc, const cJSON *node, void *zone)
{
	struct fs_zone_cfg *z = zone;
	const char *rel = NULL;
	double scale = 1.0;
	bool loop = true;
	int format = 0;
	char *full;

	if (fs__sc_check_object(sc, node, TRACE_KEYS) != 0 ||
	    fs__sc_require(sc, node, "path") != 0 ||
	    fs__sc_string(sc, node, "path", false, &rel) < 0 ||
	    fs__sc_require(sc, node, "format") != 0 ||
	    fs__sc_enum(sc, node, "format", "capacity trace format", FORMAT_NAMES,
	                &format) < 0 ||
	    fs__sc_number(sc, node, "scale", 0, true, 1e6, false, &scale) < 0 ||
	    fs__sc_bool(sc, node, "loop", &loop) < 0)
		return -1;
	if (fs__sc_open_data(sc, node, "path", rel, "capacity trace", &full) != 0)
		return -1;
	/* Messages name the file as it opens from the working directory; the
	 * trace keeps the path as written, so a printed scenario loads back. */
	z->trace = fs_capacity_trace_load(full, full, (enum fs_capacity_format)format, scale, loop, sc->err);
	free(full);
	if (z->trace == NULL)
		return fs__sc_data_failed(sc, node, "path");
	free(z->trace->path);
	z->trace->path = fs_xstrdup(rel);
	z->trace->scale = scale;
	return 0;
}

static int load_zone(struct fs__sc *sc, const cJSON *node, struct fs_zone_cfg *z)
{
	const char *name = NULL;

	if (fs__sc_check_object(sc, node, ZONE_KEYS) != 0 ||
	    fs__sc_require(sc, node, "name") != 0 ||
	    fs__sc_string(sc, node, "name", false, &name) < 0)
		return -1;
	z->name = fs_xstrdup(name);
	return fs__sc_member(sc, node, "capacity_trace", load_capacity_trace, z);
}

static void default_zone(struct fs_fleet_cfg *fleet)
{
	fleet->zones = fs_xcalloc(1, sizeof *fleet->zones);
	fleet->zones[0].name = fs_xstrdup("default");
	fleet->n_zones = 1;
}

static int load_zones(struct fs__sc *sc, const cJSON *node, struct fs_fleet_cfg *fleet)
{
	const cJSON *z;
	size_t i = 0, j, saved, saved_i;

	if (node == NULL) {
		default_zone(fleet);
		return 0;
	}
	saved = fs__sc_push_key(sc, "zones");
	if (fs__sc_check_array(sc, node, 1, MAX_ZONES, "zones") != 0)
		return -1;
	fleet->zones = fs_xcalloc((size_t)cJSON_GetArraySize(node), sizeof *fleet->zones);
	cJSON_ArrayForEach(z, node) {
		saved_i = fs__sc_push_index(sc, i);
		fleet->n_zones = i + 1;
		if (load_zone(sc, z, &fleet->zones[i]) != 0)
			return -1;
		for (j = 0; j < i; j++)
			if (strcmp(fleet->zones[j].name, fleet->zones[i].name) == 0)
				return fs__sc_fail_member(sc, z, "name", "duplicate zone name "
				                          "\"%s\" (also fleet.zones[%zu])",
				                          fleet->zones[i].name, j);
		fs__sc_pop(sc, saved_i);
		i++;
	}
	fs__sc_pop(sc, saved);
	return 0;
}

/* ---- pools ---------------------------------------------------------------------- */

static int load_pools(struct fs__sc *sc, const cJSON *node, struct fs_scenario *s)
{
	struct fs_fleet_cfg *fleet = &s->fleet;
	const cJSON *p;
	size_t i = 0, j, saved, saved_i;

	saved = fs__sc_push_key(sc, "pools");
	if (fs__sc_check_array(sc, node, 1, MAX_POOLS, "pools") != 0)
		return -1;
	fleet->pools = fs_xcalloc((size_t)cJSON_GetArraySize(node), sizeof *fleet->pools);
	cJSON_ArrayForEach(p, node) {
		saved_i = fs__sc_push_index(sc, i);
		fleet->n_pools = i + 1;
		if (fs__sc_load_pool(sc, p, s, &fleet->pools[i]) != 0)
			return -1;
		for (j = 0; j < i; j++)
			if (strcmp(fleet->pools[j].name, fleet->pools[i].name) == 0)
				return fs__sc_fail_member(sc, p, "name", "duplicate pool name "
				                          "\"%s\" (also fleet.pools[%zu])",
				                          fleet->pools[i].name, j);
		fs__sc_pop(sc, saved_i);
		i++;
	}
	if (fs__sc_resolve_fallbacks(sc, node, fleet) != 0)
		return -1;
	fs__sc_pop(sc, saved);
	return 0;
}

static const char **pool_names(const struct fs_fleet_cfg *fleet)
{
	const char **names = fs_xcalloc(fleet->n_pools + 1, sizeof *names);
	size_t i;

	for (i = 0; i < fleet->n_pools; i++)
		names[i] = fleet->pools[i].name;
	return names;
}

/* ---- class pins ------------------------------------------------------------------ */

static int load_class_pools(struct fs__sc *sc, const cJSON *node, void *scenario)
{
	struct fs_scenario *s = scenario;
	struct fs_fleet_cfg *fleet = &s->fleet;
	const char **classes, **pools;
	const cJSON *pin;
	const char *near;
	size_t i, saved;
	int idx = -1, rc = 0;

	if (!cJSON_IsObject(node))
		return fs__sc_fail_at(sc, node, "expected an object, found %s",
		                      fs__sc_type_name(node));
	classes = fs_xcalloc(s->workload.n_classes + 1, sizeof *classes);
	for (i = 0; i < s->workload.n_classes; i++)
		classes[i] = s->workload.classes[i].name;
	pools = pool_names(fleet);
	for (pin = node->child; pin != NULL && rc == 0; pin = pin->next) {
		for (i = 0; i < s->workload.n_classes; i++)
			if (strcmp(classes[i], pin->string) == 0)
				break;
		if (i == s->workload.n_classes) {
			saved = fs__sc_push_key(sc, pin->string);
			near = fs__suggest_nearest(pin->string, classes);
			if (near != NULL)
				fs__sc_fail_at_key(sc, pin, "unknown class \"%.60s\"; did you "
				                   "mean \"%s\"?", pin->string, near);
			else
				fs__sc_fail_at_key(sc, pin, "unknown class \"%.60s\"",
				                   pin->string);
			fs__sc_pop(sc, saved);
			rc = -1;
			break;
		}
		if (fleet->class_pool[i] >= 0) {
			rc = fs__sc_fail_member_key(sc, node, pin->string, "duplicate key "
			                            "\"%s\"", pin->string);
			break;
		}
		rc = fs__sc_find_name(sc, node, pin->string, "pool", pools,
		                      fleet->n_pools, &idx);
		if (rc == 0)
			fleet->class_pool[i] = idx;
	}
	free(classes);
	free(pools);
	return rc;
}

/* ---- the section ------------------------------------------------------------------ */

static int autoscale_section(struct fs__sc *sc, const cJSON *node, void *fleet)
{
	return fs__sc_load_autoscale(sc, node, fleet);
}

/* With a fleet the engine's llm is pool 0's (same GPU and TP; the engine's
 * own "gpu" and "tp" are only the pools' defaults), so that every reader of
 * engine.llm sees a valid replica. */
static int engine_llm_from_pool0(struct fs__sc *sc, struct fs_scenario *s)
{
	const struct fs_pool_cfg *p0 = &s->fleet.pools[0];
	struct fs__sc_saved_path saved;
	int rc;

	fs__sc_path_save(sc, &saved);
	fs__sc_path_set(sc, "engine");
	rc = fs__sc_llm_build(sc, sc->engine_node, p0->llm->perf.gpu, p0->llm->perf.model,
	                      p0->llm->perf.tp, NULL, NULL, &s->engine.llm);
	fs__sc_path_restore(sc, &saved);
	return rc;
}

int fs__sc_load_fleet(struct fs__sc *sc, const cJSON *node, struct fs_scenario *s)
{
	struct fs_fleet_cfg *fleet = &s->fleet;
	int router = 1, strategy = 0;
	int64_t total = 0;
	size_t i;

	if (fs__sc_check_object(sc, node, FLEET_KEYS) != 0 ||
	    fs__sc_enum(sc, node, "router", "router", ROUTER_NAMES, &router) < 0 ||
	    fs__sc_enum(sc, node, "strategy", "spot strategy", STRATEGY_NAMES,
	                &strategy) < 0)
		return -1;
	fleet->explicit_fleet = true;
	fleet->router = (enum fs_router_kind)router;
	fleet->strategy = (enum fs_spot_strategy)strategy;
	fs__sc_autoscale_defaults(&fleet->autoscale);
	fleet->class_pool = fs_xcalloc(s->workload.n_classes + 1, sizeof *fleet->class_pool);
	for (i = 0; i < s->workload.n_classes; i++)
		fleet->class_pool[i] = -1;
	if (load_zones(sc, fs__sc_get(node, "zones"), fleet) != 0 ||
	    fs__sc_require(sc, node, "pools") != 0 ||
	    load_pools(sc, fs__sc_get(node, "pools"), s) != 0 ||
	    fs__sc_member(sc, node, "autoscale", autoscale_section, fleet) != 0 ||
	    fs__sc_member(sc, node, "class_pools", load_class_pools, s) != 0 ||
	    engine_llm_from_pool0(sc, s) != 0)
		return -1;
	for (i = 0; i < fleet->n_pools; i++)
		total += fleet->pools[i].count;
	s->engine.llm.replicas = total > 0 ? (int)total : 1;
	return 0;
}

/* ---- the implicit fleet ------------------------------------------------------------- */

void fs__sc_fleet_implicit(struct fs_scenario *s)
{
	struct fs_fleet_cfg *fleet = &s->fleet;
	const struct fs_llm_cfg *llm = &s->engine.llm;
	struct fs_pool_cfg *p;
	size_t i;

	memset(fleet, 0, sizeof *fleet);
	fs__sc_autoscale_defaults(&fleet->autoscale);
	fleet->router = FS_ROUTER_LEAST_OUTSTANDING;
	fleet->strategy = FS_STRATEGY_NONE;
	if (s->engine.kind != FS_ENGINE_VLLM)
		return;
	default_zone(fleet);
	fleet->class_pool = fs_xcalloc(s->workload.n_classes + 1, sizeof *fleet->class_pool);
	for (i = 0; i < s->workload.n_classes; i++)
		fleet->class_pool[i] = -1;
	fleet->pools = fs_xcalloc(1, sizeof *fleet->pools);
	fleet->n_pools = 1;
	p = &fleet->pools[0];
	fs__sc_pool_defaults(p);
	p->name = fs_xstrdup(llm->perf.gpu->id);
	/* A copy of the engine's config; the step table stays the engine's
	 * (perf.table borrows it, step_table and its path are NULL here). */
	p->llm = fs_xmalloc(sizeof *p->llm);
	*p->llm = *llm;
	p->llm->step_table = NULL;
	p->llm->step_table_path = NULL;
	p->pricing = FS_PRICING_ON_DEMAND;
	p->count = p->min_count = p->max_count = llm->replicas;
	p->zones = fs_xcalloc(1, sizeof *p->zones);
	p->n_zones = 1;
	p->warm_start = true;
	p->price_usd_per_h = llm->perf.gpu->price_on_demand_usd_per_h * llm->perf.tp;
}

void fs__sc_fleet_fini(struct fs_fleet_cfg *fleet)
{
	size_t i;

	for (i = 0; i < fleet->n_pools; i++)
		fs__sc_pool_fini(&fleet->pools[i]);
	free(fleet->pools);
	for (i = 0; i < fleet->n_zones; i++) {
		free(fleet->zones[i].name);
		fs_capacity_trace_free(fleet->zones[i].trace);
	}
	free(fleet->zones);
	free(fleet->autoscale.schedule);
	free(fleet->class_pool);
	memset(fleet, 0, sizeof *fleet);
}

/* ---- printing ------------------------------------------------------------------------ */

cJSON *fs__sc_print_fleet(const struct fs_scenario *s)
{
	const struct fs_fleet_cfg *fleet = &s->fleet;
	cJSON *fl = cJSON_CreateObject(), *list, *z, *t, *pins;
	size_t i;

	cJSON_AddStringToObject(fl, "router", fs_router_kind_name(fleet->router));
	cJSON_AddStringToObject(fl, "strategy", fs_spot_strategy_name(fleet->strategy));
	list = cJSON_AddArrayToObject(fl, "zones");
	for (i = 0; i < fleet->n_zones; i++) {
		const struct fs_capacity_trace *tr = fleet->zones[i].trace;

		z = cJSON_CreateObject();
		cJSON_AddStringToObject(z, "name", fleet->zones[i].name);
		if (tr != NULL) {
			t = cJSON_AddObjectToObject(z, "capacity_trace");
			cJSON_AddStringToObject(t, "path", tr->path);
			cJSON_AddStringToObject(t, "format", fs_capacity_format_name(tr->format));
			fs__sc_print_number(t, "scale", tr->scale);
			cJSON_AddBoolToObject(t, "loop", tr->loop);
		}
		cJSON_AddItemToArray(list, z);
	}
	list = cJSON_AddArrayToObject(fl, "pools");
	for (i = 0; i < fleet->n_pools; i++)
		cJSON_AddItemToArray(list, fs__sc_print_pool(s, &fleet->pools[i]));
	if (fleet->autoscale.enabled)
		fs__sc_print_autoscale(s, fl);
	pins = NULL;
	for (i = 0; i < s->workload.n_classes; i++) {
		if (fleet->class_pool[i] < 0)
			continue;
		if (pins == NULL)
			pins = cJSON_AddObjectToObject(fl, "class_pools");
		cJSON_AddStringToObject(pins, s->workload.classes[i].name,
		                        fleet->pools[fleet->class_pool[i]].name);
	}
	return fl;
}

/* ---- work bounds ------------------------------------------------------------------ */

/* Fail at obj[key] when present (path names obj), else at obj itself,
 * where a default (named `label`) set the value. */
static int fail_work(struct fs__sc *sc, const cJSON *obj, const char *key, const char *label,
                     const char *path, const char *what, double bound, double found,
                     const char *fix)
{
	fs__sc_path_set(sc, path);
	if (fs__sc_get(obj, key) != NULL)
		return fs__sc_fail_member(sc, obj, key, "expected at most %.0e %s, found %.3g; "
		                          "shorten the horizon or %s %s", bound, what, found,
		                          fix, key);
	return fs__sc_fail_at(sc, obj, "expected at most %.0e %s, found %.3g (with the "
	                      "default %s); shorten the horizon or %s %s", bound, what, found,
	                      label, fix, label);
}

int fs__sc_check_fleet_work(struct fs__sc *sc, const cJSON *root, const struct fs_scenario *s)
{
	const struct fs_fleet_cfg *f = &s->fleet;
	const cJSON *fleet = fs__sc_get(root, "fleet");
	const cJSON *pools = fs__sc_get(fleet, "pools");
	const double horizon_ns = (double)s->sim.horizon_ns;
	struct fs__sc_saved_path saved;
	char path[64];
	int rc = 0;

	if (!f->explicit_fleet || fleet == NULL)
		return 0;
	fs__sc_path_save(sc, &saved);
	for (size_t i = 0; i < f->n_pools && rc == 0; i++) {
		const struct fs_pool_cfg *p = &f->pools[i];
		const cJSON *pn = cJSON_GetArrayItem(pools, (int)i);
		const cJSON *spot = fs__sc_get(pn, "spot");
		const cJSON *at = spot != NULL ? spot : pn;
		double n = (double)p->count + p->overprovision + p->max_count;
		double retries, reclaims;

		if (p->pricing != FS_PRICING_SPOT || pn == NULL)
			continue;
		snprintf(path, sizeof path, "fleet.pools[%zu]%s", i, spot != NULL ? ".spot" : "");
		/* every instance slot may retry a launch once per relaunch_retry */
		retries = n * horizon_ns / (double)p->spot.relaunch_retry_ns;
		/* every zone of the pool may be reclaimed at its rate */
		reclaims = (double)p->n_zones * p->spot.zone_reclaim_rate_per_h *
		           horizon_ns / 3.6e12;
		if (retries > FS__MAX_FLEET_EVENTS)
			rc = fail_work(sc, at, "relaunch_retry", "spot.relaunch_retry", path,
			               "relaunch retries per "
			               "replication ((count + overprovision + max) x horizon / "
			               "relaunch_retry)", FS__MAX_FLEET_EVENTS, retries, "raise");
		else if (reclaims > FS__MAX_FLEET_EVENTS)
			rc = fail_work(sc, at, "zone_reclaims_per_day", "spot.zone_reclaims_per_day",
			               path, "zone reclaims per "
			               "replication (zones x zone_reclaims_per_day x horizon)",
			               FS__MAX_FLEET_EVENTS, reclaims, "lower");
	}
	for (size_t z = 0; z < f->n_zones && rc == 0; z++) {
		const struct fs_capacity_trace *t = f->zones[z].trace;
		const cJSON *zn = cJSON_GetArrayItem(fs__sc_get(fleet, "zones"), (int)z);
		double changes;

		if (t == NULL || zn == NULL)
			continue;
		/* every step of the trace is an event, once per pass when it loops */
		changes = (double)t->n_steps * (t->loop && t->span_ns > 0 ?
		          1.0 + horizon_ns / (double)t->span_ns : 1.0);
		if (changes > FS__MAX_FLEET_EVENTS) {
			snprintf(path, sizeof path, "fleet.zones[%zu]", z);
			fs__sc_path_set(sc, path);
			rc = fs__sc_fail_member(sc, zn, "capacity_trace", "expected at most %.0e "
			                        "capacity changes per replication (steps x passes "
			                        "over the horizon), found %.3g; shorten the horizon, "
			                        "or give the trace a longer gap or no loop",
			                        FS__MAX_FLEET_EVENTS, changes);
		}
	}
	if (rc == 0 && f->autoscale.enabled) {
		const cJSON *as = fs__sc_get(fleet, "autoscale");
		double evals = horizon_ns / (double)f->autoscale.interval_ns;

		if (as != NULL && evals > FS__MAX_SCALE_EVALS)
			rc = fail_work(sc, as, "interval", "interval", "fleet.autoscale", "autoscaler "
			               "evaluations per replication (horizon / interval)",
			               FS__MAX_SCALE_EVALS, evals, "raise");
	}
	fs__sc_path_restore(sc, &saved);
	return rc;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_fleet_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(FLEET_KEYS),
		FS__SC_TABLE(ZONE_KEYS),
		FS__SC_TABLE(TRACE_KEYS),
		FS__SC_TABLE(ROUTER_NAMES),
		FS__SC_TABLE(STRATEGY_NAMES),
		FS__SC_TABLE(FORMAT_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
