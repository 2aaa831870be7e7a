/*
 * cli_schema.c — `fleetsim schema`: print a JSON Schema (draft 2020-12) of
 * the scenario format, built from the loader's own key and name tables
 * (scenario_schema.h): which keys each object takes (any other is an
 * error, as in the loader) and which names each enum key takes.  The
 * nesting (which key holds which table's object) is stated here; types,
 * ranges and required keys stay with `fleetsim validate`.  All JSON nodes
 * are owned here and freed before returning.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/common.h"
#include "scenario_schema.h"

static const char schema_help[] =
	"usage: fleetsim schema\n"
	"\n"
	"Print a JSON Schema (draft 2020-12) of the scenario format on stdout,\n"
	"generated from the loader's own tables: the keys every object takes (no\n"
	"others) and the names every enum key takes.  Types, ranges and required\n"
	"keys are checked by 'fleetsim validate'.  Scenario files may hold //\n"
	"and /* */ comments, which a JSON Schema validator needs removed first.\n"
	"docs/scenario.schema.json is this output.\n";

/* The table `name` of a file's tables; a missing one is a bug (the loader
 * renamed a table), reported and aborted on. */
static const char *const *table(const struct fs__sc_table *tables, const char *name)
{
	for (; tables->name != NULL; tables++)
		if (strcmp(tables->name, name) == 0)
			return tables->list;
	fprintf(stderr, "fleetsim schema: no loader table \"%s\"\n", name);
	abort();
}

static cJSON *names_enum(const char *const *names)
{
	cJSON *o = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(o, "enum");

	for (; *names != NULL; names++)
		cJSON_AddItemToArray(list, cJSON_CreateString(*names));
	return o;
}

/* {"properties": {KEY: true...}, "additionalProperties": false}: the keys
 * of a loader table, each any value until set() gives it a schema. */
static cJSON *keys_object(const char *const *keys)
{
	cJSON *o = cJSON_CreateObject(), *props = cJSON_AddObjectToObject(o, "properties");

	for (; *keys != NULL; keys++)
		cJSON_AddTrueToObject(props, *keys);
	cJSON_AddFalseToObject(o, "additionalProperties");
	return o;
}

/* Give key `key` of keys_object `o` the schema `sub` (taken over); a key
 * the table lacks is a bug. */
static void set(cJSON *o, const char *key, cJSON *sub)
{
	cJSON *props = cJSON_GetObjectItemCaseSensitive(o, "properties");

	if (cJSON_GetObjectItemCaseSensitive(props, key) == NULL) {
		fprintf(stderr, "fleetsim schema: no key \"%s\" in its loader table\n", key);
		abort();
	}
	cJSON_ReplaceItemInObjectCaseSensitive(props, key, sub);
}

static cJSON *items(cJSON *sub)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "items", sub);
	return o;
}

static cJSON *ref(const char *def)
{
	char path[64];
	cJSON *o = cJSON_CreateObject();

	snprintf(path, sizeof path, "#/$defs/%s", def);
	cJSON_AddStringToObject(o, "$ref", path);
	return o;
}

/* The keys_object of table `keys` of t. */
static cJSON *keys_of(const struct fs__sc_table *t, const char *keys)
{
	return keys_object(table(t, keys));
}

/* Give key `key` of `o` the names of table `names` of t. */
static void set_enum(cJSON *o, const char *key, const struct fs__sc_table *t,
                     const char *names)
{
	set(o, key, names_enum(table(t, names)));
}

/* The keys_object of table `keys` of t whose key `key` takes the names of
 * table `names` of t. */
static cJSON *keys_with_enum(const struct fs__sc_table *t, const char *keys,
                             const char *key, const char *names)
{
	cJSON *o = keys_of(t, keys);

	set_enum(o, key, t, names);
	return o;
}

/* {"if": {KEY: NAME given}, "then": only the keys `keys` and `extra`}. */
static cJSON *when(const char *key, const char *name, const char *const *keys,
                   const char *const *extra)
{
	cJSON *o = cJSON_CreateObject(), *cond = cJSON_AddObjectToObject(o, "if");
	cJSON *props = cJSON_AddObjectToObject(cond, "properties"), *then;
	cJSON *req = cJSON_AddArrayToObject(cond, "required");

	cJSON_AddStringToObject(cJSON_AddObjectToObject(props, key), "const", name);
	cJSON_AddItemToArray(req, cJSON_CreateString(key));
	then = keys_object(keys);
	for (; extra != NULL && *extra != NULL; extra++)
		cJSON_AddTrueToObject(cJSON_GetObjectItemCaseSensitive(then, "properties"),
		                      *extra);
	cJSON_AddItemToObject(o, "then", then);
	return o;
}

/* ---- the sections -------------------------------------------------------- */

static cJSON *arrivals_def(void)
{
	const struct fs__sc_table *t = fs__sc_arrivals_tables();
	cJSON *a = keys_with_enum(t, "ARRIVAL_KEYS", "process", "PROCESS_NAMES");
	cJSON *sched = keys_of(t, "SCHEDULE_KEYS");

	set(a, "diurnal", keys_of(t, "DIURNAL_KEYS"));
	set(sched, "steps", items(keys_of(t, "STEP_KEYS")));
	set(a, "schedule", sched);
	set(a, "spikes", items(keys_of(t, "SPIKE_KEYS")));
	set(a, "trace", keys_with_enum(t, "TRACE_KEYS", "format", "FORMAT_NAMES"));
	return a;
}

/* A length distribution: besides its own keys, every dist takes "dist",
 * "min" and "max" (scenario_workload.c, dist_takes). */
static cJSON *length_def(void)
{
	static const char *const common_keys[] = { "dist", "min", "max", NULL };
	const struct fs__sc_table *t = fs__sc_workload_tables();
	const char *const *names = table(t, "DIST_NAMES");
	cJSON *len = keys_of(t, "LENGTH_KEYS");
	cJSON *all = cJSON_AddArrayToObject(len, "allOf");
	size_t i;

	set(len, "dist", names_enum(names));
	for (i = 0; names[i] != NULL; i++)
		cJSON_AddItemToArray(all, when("dist", names[i], common_keys,
		                               fs__sc_length_dist_keys(i)));
	return len;
}

static cJSON *think_def(void)
{
	const struct fs__sc_table *t = fs__sc_users_tables();
	return keys_with_enum(t, "THINK_KEYS", "dist", "THINK_NAMES");
}

static cJSON *workload_schema(void)
{
	const struct fs__sc_table *t = fs__sc_workload_tables();
	const struct fs__sc_table *u = fs__sc_users_tables();
	cJSON *w = keys_of(t, "WORKLOAD_KEYS");
	cJSON *c = keys_of(t, "CLASS_KEYS");
	cJSON *users = keys_of(u, "USERS_KEYS");
	cJSON *session = keys_of(u, "SESSION_KEYS");

	set(c, "arrivals", ref("arrivals"));
	set(c, "prompt_tokens", ref("length"));
	set(c, "output_tokens", ref("length"));
	set(c, "slo", keys_of(t, "SLO_KEYS"));
	set(users, "steps", items(keys_of(u, "STEP_KEYS")));
	set(c, "users", users);
	set(c, "think", ref("think"));
	set(session, "think", ref("think"));
	set(c, "session", session);
	set(w, "arrivals", ref("arrivals"));
	set(w, "classes", items(c));
	return w;
}

static cJSON *catalog_schema(void)
{
	const struct fs__sc_table *t = fs__sc_catalog_tables();
	cJSON *c = keys_of(t, "CATALOG_KEYS");

	set(c, "gpus", items(keys_of(t, "GPU_KEYS")));
	set(c, "models", items(keys_of(t, "MODEL_KEYS")));
	return c;
}

/* Every engine type's keys together, and per "type" only its own. */
static cJSON *engine_schema(void)
{
	const struct fs__sc_table *e = fs__sc_engine_tables(), *l = fs__sc_llm_tables();
	cJSON *o = cJSON_CreateObject(), *props = cJSON_AddObjectToObject(o, "properties");
	cJSON *types = cJSON_CreateObject(), *names, *all;
	const char *const *keys;
	const char *name;
	size_t i;

	names = cJSON_AddArrayToObject(types, "enum");
	for (i = 0; (name = fs__sc_engine_type(i, &keys)) != NULL; i++) {
		cJSON_AddItemToArray(names, cJSON_CreateString(name));
		for (; *keys != NULL; keys++)
			if (cJSON_GetObjectItemCaseSensitive(props, *keys) == NULL)
				cJSON_AddTrueToObject(props, *keys);
	}
	cJSON_AddFalseToObject(o, "additionalProperties");
	all = cJSON_AddArrayToObject(o, "allOf");
	for (i = 0; (name = fs__sc_engine_type(i, &keys)) != NULL; i++)
		cJSON_AddItemToArray(all, when("type", name, keys, NULL));
	set(o, "type", types);
	set(o, "service", keys_with_enum(e, "SERVICE_KEYS", "dist", "SERVICE_NAMES"));
	set_enum(o, "discipline", e, "DISCIPLINE_NAMES");
	set_enum(o, "weights_dtype", l, "DTYPE_NAMES");
	set_enum(o, "kv_dtype", l, "KV_DTYPE_NAMES");
	set_enum(o, "policy", l, "POLICY_NAMES");
	set_enum(o, "batching", l, "BATCHING_NAMES");
	set_enum(o, "scheduler", l, "SCHEDULER_NAMES");
	set(o, "efficiency", keys_of(fs__sc_efficiency_tables(), "EFFICIENCY_KEYS"));
	return o;
}

static cJSON *pool_schema(void)
{
	const struct fs__sc_table *t = fs__sc_pool_tables(), *s = fs__sc_spot_tables();
	cJSON *p = keys_with_enum(t, "POOL_KEYS", "pricing", "PRICING_NAMES");
	cJSON *spot = keys_of(s, "SPOT_KEYS");

	set(p, "provisioning", keys_with_enum(t, "DELAY_KEYS", "dist", "DELAY_NAMES"));
	set(p, "billing", keys_with_enum(t, "BILLING_KEYS", "granularity",
	                                 "GRANULARITY_NAMES"));
	set(p, "price_schedule", items(keys_of(t, "PRICE_STEP_KEYS")));
	set_enum(spot, "interruption_band", s, "BAND_NAMES");
	set_enum(spot, "in_flight", s, "INFLIGHT_NAMES");
	set(p, "spot", spot);
	return p;
}

static cJSON *autoscale_schema(void)
{
	const struct fs__sc_table *t = fs__sc_scale_tables();
	cJSON *a = keys_with_enum(t, "AUTOSCALE_KEYS", "metric", "METRIC_NAMES"), *rules[2];
	int i;

	for (i = 0; i < 2; i++) {
		rules[i] = keys_with_enum(t, "RULES_KEYS", "select", "SELECT_NAMES");
		set(rules[i], "policies", items(keys_with_enum(t, "POLICY_KEYS", "type",
		                                               "POLICY_TYPES")));
	}
	set(a, "scale_up", rules[0]);
	set(a, "scale_down", rules[1]);
	set(a, "schedule", items(keys_of(t, "SCALE_STEP_KEYS")));
	set(a, "idle_release", keys_of(t, "IDLE_KEYS"));
	return a;
}

static cJSON *fleet_schema(void)
{
	const struct fs__sc_table *t = fs__sc_fleet_tables();
	cJSON *f = keys_with_enum(t, "FLEET_KEYS", "router", "ROUTER_NAMES");
	cJSON *zone = keys_of(t, "ZONE_KEYS");

	set_enum(f, "strategy", t, "STRATEGY_NAMES");
	set(zone, "capacity_trace", keys_with_enum(t, "TRACE_KEYS", "format", "FORMAT_NAMES"));
	set(f, "zones", items(zone));
	set(f, "pools", items(pool_schema()));
	set(f, "autoscale", autoscale_schema());
	return f;
}

static cJSON *sweep_schema(void)
{
	const struct fs__sc_table *t = fs__sc_sweep_tables();
	cJSON *s = keys_with_enum(t, "SWEEP_KEYS", "mode", "MODE_NAMES");
	cJSON *axis = keys_of(t, "AXIS_KEYS");

	set(axis, "range", keys_of(t, "RANGE_KEYS"));
	set(s, "axes", items(axis));
	return s;
}

static cJSON *objective_schema(void)
{
	const struct fs__sc_table *t = fs__sc_objective_tables();
	cJSON *o = keys_with_enum(t, "OBJECTIVE_KEYS", "minimize", "MINIMIZE_NAMES");
	cJSON *c = keys_with_enum(t, "CONSTRAINT_KEYS", "metric", "METRIC_NAMES");
	cJSON *p = keys_with_enum(t, "PARETO_KEYS", "metric", "LATENCY_NAMES");

	set_enum(c, "quantile", t, "QUANTITY_NAMES");
	set(o, "constraints", items(c));
	set_enum(p, "quantile", t, "QUANTITY_NAMES");
	set(o, "pareto", p);
	return o;
}

/* The whole schema (heap; the caller deletes it). */
static cJSON *scenario_schema(void)
{
	const struct fs__sc_table *t = fs__sc_root_tables();
	cJSON *root = cJSON_CreateObject(), *defs, *body, *item;

	cJSON_AddStringToObject(root, "$schema", "https://json-schema.org/draft/2020-12/schema");
	cJSON_AddStringToObject(root, "$id", "urn:fleetsim:scenario");
	cJSON_AddStringToObject(root, "title", "fleetsim scenario");
	cJSON_AddStringToObject(root, "description", "Generated by 'fleetsim schema' from "
	                        "the scenario loader's key and name tables: the keys "
	                        "each object takes and the names each enum key takes. "
	                        "Types, ranges and required keys are checked by "
	                        "'fleetsim validate'; keys are described in "
	                        "docs/SCENARIO.md.  Remove // and /* */ comments "
	                        "before validating a scenario file.");
	cJSON_AddStringToObject(root, "type", "object");
	body = keys_of(t, "ROOT_KEYS");
	set(body, "simulation", keys_of(t, "SIM_KEYS"));
	set(body, "workload", workload_schema());
	set(body, "catalog", catalog_schema());
	set(body, "engine", engine_schema());
	set(body, "fleet", fleet_schema());
	set(body, "variants", items(keys_of(fs__sc_variant_tables(), "VARIANT_KEYS")));
	set(body, "sweep", sweep_schema());
	set(body, "objective", objective_schema());
	/* Move body's members into root, after the header. */
	while ((item = body->child) != NULL)
		cJSON_AddItemToObject(root, item->string,
		                      cJSON_DetachItemViaPointer(body, item));
	cJSON_Delete(body);
	defs = cJSON_AddObjectToObject(root, "$defs");
	cJSON_AddItemToObject(defs, "arrivals", arrivals_def());
	cJSON_AddItemToObject(defs, "length", length_def());
	cJSON_AddItemToObject(defs, "think", think_def());
	return root;
}

/* Print `v` indented by two spaces a level, an array of scalars on one
 * line (the enums), keys in their table order.  Returns -1 when out of
 * memory. */
static int print_json(const cJSON *v, int depth)
{
	const cJSON *c;
	int scalars = 1;
	char *text;

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		for (c = v->child; c != NULL; c = c->next)
			scalars &= !cJSON_IsObject(c) && !cJSON_IsArray(c);
		if (v->child == NULL || (cJSON_IsArray(v) && scalars)) {
			text = cJSON_PrintUnformatted(v);
			if (text == NULL)
				return -1;
			fputs(text, stdout);
			cJSON_free(text);
			return 0;
		}
		fputs(cJSON_IsObject(v) ? "{\n" : "[\n", stdout);
		for (c = v->child; c != NULL; c = c->next) {
			printf("%*s", 2 * (depth + 1), "");
			if (cJSON_IsObject(v)) {
				cJSON *key = cJSON_CreateString(c->string);

				text = cJSON_PrintUnformatted(key);
				cJSON_Delete(key);
				if (text == NULL)
					return -1;
				printf("%s: ", text);
				cJSON_free(text);
			}
			if (print_json(c, depth + 1) != 0)
				return -1;
			fputs(c->next != NULL ? ",\n" : "\n", stdout);
		}
		printf("%*s%c", 2 * depth, "", cJSON_IsObject(v) ? '}' : ']');
		return 0;
	}
	text = cJSON_PrintUnformatted(v);
	if (text == NULL)
		return -1;
	fputs(text, stdout);
	cJSON_free(text);
	return 0;
}

int fs__cli_schema(int argc, char **argv)
{
	cJSON *schema;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(schema_help, stdout);
			return FS_EXIT_OK;
		}
		return fs__cli_usage_error("schema", "unexpected argument \"%s\"", argv[i]);
	}
	schema = scenario_schema();
	rc = print_json(schema, 0);
	cJSON_Delete(schema);
	if (rc != 0) {
		fputs("fleetsim schema: out of memory\n", stderr);
		return FS_EXIT_RUNTIME;
	}
	fputc('\n', stdout);
	return fflush(stdout) == 0 ? FS_EXIT_OK : FS_EXIT_RUNTIME;
}
