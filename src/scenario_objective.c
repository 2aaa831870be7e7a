/*
 * scenario_objective.c — the root "objective" section: what a sweep
 * minimises, the SLO, availability and redundancy constraints a point must
 * meet in a share `confidence` of its replications, the Pareto axis, and the
 * stopping rule.  Class and pool names resolve to indices (-1: all traffic,
 * the fleet); latency bounds are kept in ms.  The cfg owns its constraints.
 */
#include "scenario_walk.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/result.h"
#include "fleetsim/scenario_cfg.h"
#include "scenario_schema.h"

#define MAX_CONSTRAINTS 16
#define MAX_REPLICATIONS 100000

static const char *const OBJECTIVE_KEYS[] = {
	"minimize", "constraints", "confidence", "pareto", "ci_target",
	"max_replications", NULL
};
static const char *const CONSTRAINT_KEYS[] = {
	"metric", "quantile", "max", "min", "class", "pool", NULL
};
static const char *const PARETO_KEYS[] = { "metric", "quantile", "class", NULL };

/* enum fs_objective_metric order (scenario_sweep_cfg.h), then the same under their
 * older names (index modulo N_MINIMIZE). */
static const char *const MINIMIZE_NAMES[] = {
	FS_OBJECTIVE_MAP(FS_ENUM_NAME)
	"total_usd", "monthly_usd", "usd_per_1m_output_tokens", NULL
};
#define N_MINIMIZE 3
/* The latency metrics in their table's order (result.h), then (constraints
 * only) the attainment, availability and redundancy ones; LATENCY maps a
 * name's index to its enum fs_latency. */
static const char *const METRIC_NAMES[] = {
	FS_LATENCY_MAP(FS_ENUM_NAME_AT)
	"slo_attainment", "availability", "min_serving", NULL
};
static const char *const LATENCY_NAMES[] = { FS_LATENCY_MAP(FS_ENUM_NAME_AT) NULL };
static const enum fs_latency LATENCY[] = { FS_LATENCY_MAP(FS_ENUM_ID_AT) };
#define METRIC_ATTAINMENT 4
#define METRIC_AVAILABILITY 5
#define METRIC_MIN_SERVING 6
#define MAX_SERVING_FLOOR 10000          /* a pool's largest count */
/* enum fs_quantity order (result.h): a name's index is its value. */
static const char *const QUANTITY_NAMES[] = { FS_QUANTITY_MAP(FS_ENUM_NAME) NULL };

/* obj[key] as an index into the n names that name(s, i) gives (absent: -1
 * stays): a class or a pool. */
static int load_index(struct fs__sc *sc, const cJSON *obj, const char *key,
                      const struct fs_scenario *s, size_t n,
                      const char *(*name)(const struct fs_scenario *, size_t), int *idx)
{
	const char **names;
	size_t i;
	int rc;

	if (fs__sc_get(obj, key) == NULL)
		return 0;
	names = fs_xcalloc(n + 1, sizeof *names);
	for (i = 0; i < n; i++)
		names[i] = name(s, i);
	rc = fs__sc_find_name(sc, obj, key, key, names, n, idx);
	free(names);
	return rc;
}

static const char *class_name(const struct fs_scenario *s, size_t i)
{
	return s->workload.classes[i].name;
}

static const char *pool_name(const struct fs_scenario *s, size_t i)
{
	return s->fleet.pools[i].name;
}

/* obj["class"] as a class index (absent: -1 stays). */
static int load_class(struct fs__sc *sc, const cJSON *obj, const struct fs_scenario *s,
                      int *class_idx)
{
	return load_index(sc, obj, "class", s, s->workload.n_classes, class_name, class_idx);
}

/* obj["pool"] as a pool index (absent: -1 stays). */
static int load_pool(struct fs__sc *sc, const cJSON *obj, const struct fs_scenario *s,
                     int *pool_idx)
{
	return load_index(sc, obj, "pool", s, s->fleet.n_pools, pool_name, pool_idx);
}

/* "metric" (latency names only) and "quantile" of obj. */
static int load_latency(struct fs__sc *sc, const cJSON *obj, const char *const *metrics,
                        int *latency, int *quantity)
{
	int m = 0, q = FS_QTY_P99;

	if (fs__sc_enum(sc, obj, "metric", "metric", metrics, &m) < 0 ||
	    fs__sc_enum(sc, obj, "quantile", "quantile", QUANTITY_NAMES, &q) < 0)
		return -1;
	*latency = m < METRIC_ATTAINMENT ? (int)LATENCY[m] : -1;
	*quantity = q;
	return 0;
}

/* MODEL: S20 — availability and redundancy floors, of one pool ("pool") or
 * of the fleet. */
static int load_fleet_constraint(struct fs__sc *sc, const cJSON *node,
                                 const struct fs_scenario *s, int m,
                                 struct fs_constraint *c)
{
	char reason[128];
	int64_t floor = 0;

	snprintf(reason, sizeof reason, "with metric \"%s\" (it takes \"min\" and "
	         "optionally \"pool\")", METRIC_NAMES[m]);
	if (fs__sc_forbid(sc, node, "max", reason) != 0 ||
	    fs__sc_forbid(sc, node, "quantile", reason) != 0 ||
	    fs__sc_forbid(sc, node, "class", reason) != 0 ||
	    fs__sc_require(sc, node, "min") != 0 ||
	    load_pool(sc, node, s, &c->pool_idx) != 0)
		return -1;
	if (m == METRIC_AVAILABILITY) {
		c->kind = FS_CONSTRAINT_AVAILABILITY;
		return fs__sc_number(sc, node, "min", 0.0, false, 1.0, false, &c->min) < 0
		       ? -1 : 0;
	}
	c->kind = FS_CONSTRAINT_MIN_SERVING;
	if (fs__sc_int(sc, node, "min", 0, MAX_SERVING_FLOOR, &floor) < 0)
		return -1;
	c->min = (double)floor;
	return 0;
}

static int load_constraint(struct fs__sc *sc, const cJSON *node,
                           const struct fs_scenario *s, struct fs_constraint *c)
{
	char reason[96];
	fs_ns max_ns = 0;
	int m = 0;

	c->class_idx = -1;
	c->pool_idx = -1;
	c->latency = -1;
	c->quantity = FS_QTY_P99;
	if (fs__sc_check_object(sc, node, CONSTRAINT_KEYS) != 0 ||
	    fs__sc_require(sc, node, "metric") != 0 ||
	    fs__sc_enum(sc, node, "metric", "constraint metric", METRIC_NAMES, &m) < 0)
		return -1;
	if (m == METRIC_AVAILABILITY || m == METRIC_MIN_SERVING)
		return load_fleet_constraint(sc, node, s, m, c);
	if (load_class(sc, node, s, &c->class_idx) != 0)
		return -1;
	snprintf(reason, sizeof reason, "with metric \"%s\" (%s)", METRIC_NAMES[m],
	         m == METRIC_ATTAINMENT ? "it takes \"min\"" : "a latency takes \"max\"");
	if (fs__sc_forbid(sc, node, "pool", reason) != 0)
		return -1;
	if (m == METRIC_ATTAINMENT) {
		c->kind = FS_CONSTRAINT_ATTAINMENT;
		return fs__sc_forbid(sc, node, "max", reason) != 0 ||
		       fs__sc_forbid(sc, node, "quantile", reason) != 0 ||
		       fs__sc_require(sc, node, "min") != 0 ||
		       fs__sc_number(sc, node, "min", 0.0, false, 1.0, false, &c->min) < 0
		       ? -1 : 0;
	}
	c->kind = FS_CONSTRAINT_LATENCY;
	if (fs__sc_forbid(sc, node, "min", reason) != 0 ||
	    fs__sc_require(sc, node, "max") != 0 ||
	    fs__sc_duration_upto(sc, node, "max", 1, FS__MAX_DELAY_NS, &max_ns) < 0 ||
	    load_latency(sc, node, METRIC_NAMES, &c->latency, &c->quantity) != 0)
		return -1;
	c->max_ms = (double)max_ns / 1e6;
	return 0;
}

static int load_constraints(struct fs__sc *sc, const cJSON *obj,
                            const struct fs_scenario *s, struct fs_objective_cfg *cfg)
{
	const cJSON *list = fs__sc_get(obj, "constraints"), *c;
	size_t saved, saved_i;
	int n;

	if (list == NULL)
		return 0;
	if (!cJSON_IsArray(list))
		return fs__sc_fail_member(sc, obj, "constraints", "expected an array of "
		                          "constraints, found %s", fs__sc_type_name(list));
	n = cJSON_GetArraySize(list);
	if (n > MAX_CONSTRAINTS)
		return fs__sc_fail_member(sc, obj, "constraints", "expected at most %d "
		                          "constraints, found %d", MAX_CONSTRAINTS, n);
	if (n == 0)
		return 0;
	cfg->constraints = fs_xcalloc((size_t)n, sizeof *cfg->constraints);
	saved = fs__sc_push_key(sc, "constraints");
	cJSON_ArrayForEach(c, list) {
		saved_i = fs__sc_push_index(sc, cfg->n_constraints);
		if (load_constraint(sc, c, s, &cfg->constraints[cfg->n_constraints]) != 0)
			return -1;
		cfg->n_constraints++;
		fs__sc_pop(sc, saved_i);
	}
	fs__sc_pop(sc, saved);
	return 0;
}

static int load_pareto(struct fs__sc *sc, const cJSON *obj, const struct fs_scenario *s,
                       struct fs_objective_cfg *cfg)
{
	const cJSON *node = fs__sc_get(obj, "pareto");
	size_t saved;

	if (node == NULL)
		return 0;
	saved = fs__sc_push_key(sc, "pareto");
	if (fs__sc_check_object(sc, node, PARETO_KEYS) != 0 ||
	    load_latency(sc, node, LATENCY_NAMES, &cfg->pareto_latency,
	                 &cfg->pareto_quantity) != 0 ||
	    load_class(sc, node, s, &cfg->pareto_class) != 0)
		return -1;
	fs__sc_pop(sc, saved);
	return 0;
}

int fs__sc_load_objective(struct fs__sc *sc, const cJSON *node,
                          const struct fs_scenario *s, struct fs_objective_cfg *cfg)
{
	int minimize = FS_OBJ_MONTHLY_USD;
	int64_t max_reps = (int64_t)s->sim.replications * 10;

	if (max_reps > MAX_REPLICATIONS)
		max_reps = MAX_REPLICATIONS;
	cfg->present = true;
	cfg->minimize = FS_OBJ_MONTHLY_USD;
	cfg->confidence = 0.9;
	cfg->pareto_latency = FS_LAT_TTFT;
	cfg->pareto_quantity = FS_QTY_P99;
	cfg->pareto_class = -1;
	cfg->ci_target = 0.0;
	if (fs__sc_check_object(sc, node, OBJECTIVE_KEYS) != 0 ||
	    fs__sc_enum(sc, node, "minimize", "objective", MINIMIZE_NAMES, &minimize) < 0 ||
	    load_constraints(sc, node, s, cfg) != 0 ||
	    fs__sc_number(sc, node, "confidence", 0.0, true, 1.0, false,
	                  &cfg->confidence) < 0 ||
	    load_pareto(sc, node, s, cfg) != 0 ||
	    fs__sc_number(sc, node, "ci_target", 0.0, false, 1.0, false,
	                  &cfg->ci_target) < 0 ||
	    fs__sc_int(sc, node, "max_replications", 1, MAX_REPLICATIONS, &max_reps) < 0)
		return -1;
	cfg->minimize = (enum fs_objective_metric)(minimize % N_MINIMIZE);
	cfg->max_replications = (int)max_reps;
	return 0;
}

void fs__sc_objective_fini(struct fs_objective_cfg *cfg)
{
	free(cfg->constraints);
	memset(cfg, 0, sizeof *cfg);
}

/* ---- printing ------------------------------------------------------------------- */

static void add_class(cJSON *obj, const struct fs_scenario *s, int class_idx)
{
	if (class_idx >= 0 && (size_t)class_idx < s->workload.n_classes)
		cJSON_AddStringToObject(obj, "class", s->workload.classes[class_idx].name);
}

cJSON *fs__sc_print_objective(const struct fs_scenario *s)
{
	const struct fs_objective_cfg *cfg = &s->objective;
	cJSON *obj = cJSON_CreateObject(), *list, *c, *pareto;
	size_t i;

	cJSON_AddStringToObject(obj, "minimize", MINIMIZE_NAMES[cfg->minimize]);
	list = cJSON_AddArrayToObject(obj, "constraints");
	for (i = 0; i < cfg->n_constraints; i++) {
		const struct fs_constraint *k = &cfg->constraints[i];

		c = cJSON_CreateObject();
		switch (k->kind) {
		case FS_CONSTRAINT_LATENCY:
			cJSON_AddStringToObject(c, "metric",
			                        fs_latency_name((enum fs_latency)k->latency));
			cJSON_AddStringToObject(c, "quantile",
			                        fs_quantity_name((enum fs_quantity)k->quantity));
			/* max_ms came from whole ns: this is the exact inverse */
			fs__sc_print_duration(c, "max", (fs_ns)llround(k->max_ms * 1e6));
			break;
		case FS_CONSTRAINT_ATTAINMENT:
			cJSON_AddStringToObject(c, "metric", METRIC_NAMES[METRIC_ATTAINMENT]);
			fs__sc_print_number(c, "min", k->min);
			break;
		case FS_CONSTRAINT_AVAILABILITY:
		case FS_CONSTRAINT_MIN_SERVING:
			cJSON_AddStringToObject(c, "metric", METRIC_NAMES[
				k->kind == FS_CONSTRAINT_AVAILABILITY ? METRIC_AVAILABILITY
				                                      : METRIC_MIN_SERVING]);
			fs__sc_print_number(c, "min", k->min);
			if (k->pool_idx >= 0 && (size_t)k->pool_idx < s->fleet.n_pools)
				cJSON_AddStringToObject(c, "pool", s->fleet.pools[k->pool_idx].name);
			break;
		}
		add_class(c, s, k->class_idx);
		cJSON_AddItemToArray(list, c);
	}
	fs__sc_print_number(obj, "confidence", cfg->confidence);
	pareto = cJSON_AddObjectToObject(obj, "pareto");
	cJSON_AddStringToObject(pareto, "metric",
	                        fs_latency_name((enum fs_latency)cfg->pareto_latency));
	cJSON_AddStringToObject(pareto, "quantile",
	                        fs_quantity_name((enum fs_quantity)cfg->pareto_quantity));
	add_class(pareto, s, cfg->pareto_class);
	fs__sc_print_number(obj, "ci_target", cfg->ci_target);
	fs__sc_print_number(obj, "max_replications", cfg->max_replications);
	return obj;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_objective_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(OBJECTIVE_KEYS),
		FS__SC_TABLE(CONSTRAINT_KEYS),
		FS__SC_TABLE(PARETO_KEYS),
		FS__SC_TABLE(MINIMIZE_NAMES),
		FS__SC_TABLE(METRIC_NAMES),
		FS__SC_TABLE(LATENCY_NAMES),
		FS__SC_TABLE(QUANTITY_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
