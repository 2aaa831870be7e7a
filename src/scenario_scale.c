/*
 * scenario_scale.c — the "fleet.autoscale" section: metric and target, the
 * HPA behaviour (tolerance, scale_up / scale_down windows and policies),
 * scale from and to zero, predictive scaling, the daily schedule and idle
 * release.  Keys of the earlier autoscaler that have an HPA counterpart
 * are an error naming it.  Fills struct fs_autoscale_cfg of the fleet.
 */
#include "scenario_scale.h"
#include "scenario_schema.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SCHEDULE 48


/* Upstream's own bounds (the HorizontalPodAutoscaler API validation): a
 * stabilisation window of at most 3600 s and a policy period of at most
 * 1800 s.  They also bound the recommendations a window keeps. */
#define MAX_WINDOW_NS (3600 * FS_NS_PER_S)
#define MAX_PERIOD_NS (1800 * FS_NS_PER_S)

static const char *const AUTOSCALE_KEYS[] = {
	"pool", "metric", "target", "tolerance", "interval", "scale_up", "scale_down",
	"activation", "zero_grace", "predictive", "schedule", "idle_release",
	"flapping_launches_per_h", "ttft_window", NULL
};
static const char *const RULES_KEYS[] = { "window", "policies", "select", NULL };
static const char *const POLICY_KEYS[] = { "type", "value", "period", NULL };
static const char *const SCALE_STEP_KEYS[] = { "at_hour", "min", NULL };
static const char *const IDLE_KEYS[] = { "busy_below", "for", NULL };
/* Keys of the earlier autoscaler and what replaced them. */
static const char *const RENAMED[][2] = {
	{ "scale_in_below", "\"tolerance\" (HPA: no change while |metric/target - 1| <= "
	                    "tolerance)" },
	{ "cooldown_out", "\"scale_up\": {\"window\": ...} (HPA stabilisation window)" },
	{ "cooldown_in", "\"scale_down\": {\"window\": ...} (HPA stabilisation window)" },
};

/* The enums' names (fleet_cfg.h) in value order: a name's index is its value. */
static const char *const METRIC_NAMES[] = { FS_SCALE_METRIC_MAP(FS_ENUM_NAME) NULL };
static const char *const SELECT_NAMES[] = { FS_SELECT_MAP(FS_ENUM_NAME) NULL };
/* A policy's "type": false, true for struct fs_scale_policy's `percent`. */
static const char *const POLICY_TYPES[] = { "instances", "percent", NULL };

/* Upstream HPA defaults: up, no window, max(4 instances, 100%) per 15 s;
 * down, a 300 s window, 100% per 15 s.  KEDA-like zero: activation at one
 * waiting request, zero after 300 s without work. */
void fs__sc_autoscale_defaults(struct fs_autoscale_cfg *as)
{
	memset(as, 0, sizeof *as);
	as->enabled = false;
	as->pool = -1;
	as->metric = FS_SCALE_CONCURRENCY;
	as->tolerance = 0.1;
	as->interval_ns = 15 * FS_NS_PER_S;
	as->ttft_window_ns = 60 * FS_NS_PER_S;
	as->up.window_ns = 0;
	as->up.n_policies = 2;
	as->up.policies[0] = (struct fs_scale_policy){ false, 4, 15 * FS_NS_PER_S };
	as->up.policies[1] = (struct fs_scale_policy){ true, 100, 15 * FS_NS_PER_S };
	as->up.select = FS_SELECT_MAX;
	as->down.window_ns = 300 * FS_NS_PER_S;
	as->down.n_policies = 1;
	as->down.policies[0] = (struct fs_scale_policy){ true, 100, 15 * FS_NS_PER_S };
	as->down.select = FS_SELECT_MAX;
	as->activation = 1;
	as->zero_grace_ns = 300 * FS_NS_PER_S;
	/* The seed recommendation: release an instance busy below 10% for 30
	 * minutes (docs/SCENARIO.md, "autoscale"). */
	as->idle_busy_below = 0.1;
	as->idle_for_ns = 30 * 60 * FS_NS_PER_S;
	as->flap_launches_per_h = 4;
}

static int load_policy(struct fs__sc *sc, const cJSON *node, struct fs_scale_policy *p)
{
	int type = 0;

	if (fs__sc_check_object(sc, node, POLICY_KEYS) != 0 ||
	    fs__sc_require(sc, node, "type") != 0 ||
	    fs__sc_enum(sc, node, "type", "policy type", POLICY_TYPES, &type) < 0 ||
	    fs__sc_require(sc, node, "value") != 0 ||
	    fs__sc_number(sc, node, "value", 0, true, 1e6, false, &p->value) < 0 ||
	    fs__sc_require(sc, node, "period") != 0 ||
	    fs__sc_duration_upto(sc, node, "period", 1, MAX_PERIOD_NS, &p->period_ns) < 0)
		return -1;
	p->percent = type == 1;
	return 0;
}

/* One direction's rules ("scale_up" / "scale_down" into a struct
 * fs_scale_rules); given policies replace the defaults. */
static int load_rules(struct fs__sc *sc, const cJSON *node, void *rules)
{
	struct fs_scale_rules *r = rules;
	const cJSON *list = fs__sc_get(node, "policies"), *item;
	int select = 0, rc;
	size_t saved, saved_i, i = 0;

	if (fs__sc_check_object(sc, node, RULES_KEYS) != 0 ||
	    fs__sc_duration_upto(sc, node, "window", 0, MAX_WINDOW_NS, &r->window_ns) < 0)
		return -1;
	rc = fs__sc_enum(sc, node, "select", "policy selection", SELECT_NAMES, &select);
	if (rc < 0)
		return -1;
	if (rc > 0)
		r->select = (enum fs_select_policy)select;
	if (list == NULL)
		return 0;
	saved = fs__sc_push_key(sc, "policies");
	if (fs__sc_check_array(sc, list, 1, FS_SCALE_MAX_POLICIES, "policies") != 0)
		return -1;
	r->n_policies = 0;
	cJSON_ArrayForEach(item, list) {
		saved_i = fs__sc_push_index(sc, i);
		if (load_policy(sc, item, &r->policies[i]) != 0)
			return -1;
		fs__sc_pop(sc, saved_i);
		r->n_policies = ++i;
	}
	fs__sc_pop(sc, saved);
	return 0;
}

static int load_scale_schedule(struct fs__sc *sc, const cJSON *node,
                               struct fs_autoscale_cfg *as, const struct fs_pool_cfg *pool)
{
	const cJSON *step;
	size_t i = 0, saved_i;
	int64_t min = 0;
	char found[64], prev[40];

	if (fs__sc_check_array(sc, node, 1, MAX_SCHEDULE, "steps") != 0)
		return -1;
	as->schedule = fs_xcalloc((size_t)cJSON_GetArraySize(node), sizeof *as->schedule);
	cJSON_ArrayForEach(step, node) {
		struct fs_scale_step *st = &as->schedule[i];

		saved_i = fs__sc_push_index(sc, i);
		as->n_schedule = i + 1;
		if (fs__sc_check_object(sc, step, SCALE_STEP_KEYS) != 0 ||
		    fs__sc_require(sc, step, "at_hour") != 0 ||
		    fs__sc_number(sc, step, "at_hour", 0, false, 24, true, &st->at_h) < 0 ||
		    fs__sc_require(sc, step, "min") != 0 ||
		    fs__sc_int(sc, step, "min", 0, pool->max_count, &min) < 0)
			return -1;
		st->min_count = (int)min;
		if (i > 0 && !(st->at_h > as->schedule[i - 1].at_h)) {
			fs__sc_found(sc, fs__sc_get(step, "at_hour"), found, sizeof found);
			fs__sc_format_number(as->schedule[i - 1].at_h, prev, sizeof prev);
			return fs__sc_fail_member(sc, step, "at_hour", "expected steps in "
			                          "ascending order: an hour after the previous "
			                          "step's %s, found %s", prev, found);
		}
		fs__sc_pop(sc, saved_i);
		i++;
	}
	return 0;
}

/* Load fleet.autoscale (see scenario_scale.h). */
int fs__sc_load_autoscale(struct fs__sc *sc, const cJSON *node, struct fs_fleet_cfg *fleet)
{
	struct fs_autoscale_cfg *as = &fleet->autoscale;
	const char **names;
	const cJSON *sub;
	int metric = 0, rc;
	size_t saved, i;

	for (i = 0; cJSON_IsObject(node) && i < sizeof RENAMED / sizeof RENAMED[0]; i++)
		if (fs__sc_get(node, RENAMED[i][0]) != NULL)
			return fs__sc_fail_member_key(sc, node, RENAMED[i][0], "expected %s, found "
			                              "\"%s\" (the autoscaler follows the HPA "
			                              "algorithm now)", RENAMED[i][1],
			                              RENAMED[i][0]);
	if (fs__sc_check_object(sc, node, AUTOSCALE_KEYS) != 0 ||
	    fs__sc_require(sc, node, "pool") != 0)
		return -1;
	names = fs_xcalloc(fleet->n_pools + 1, sizeof *names);
	for (i = 0; i < fleet->n_pools; i++)
		names[i] = fleet->pools[i].name;
	rc = fs__sc_find_name(sc, node, "pool", "pool", names, fleet->n_pools, &as->pool);
	free(names);
	metric = -1;
	if (rc != 0 ||
	    fs__sc_enum(sc, node, "metric", "autoscaling metric", METRIC_NAMES, &metric) < 0 ||
	    fs__sc_require(sc, node, "target") != 0 ||
	    fs__sc_number(sc, node, "target", 0, true, 1e9, false, &as->target) < 0 ||
	    fs__sc_number(sc, node, "tolerance", 0, false, 1, true, &as->tolerance) < 0 ||
	    fs__sc_duration(sc, node, "interval", 1, &as->interval_ns) < 0 ||
	    fs__sc_duration_upto(sc, node, "ttft_window", 1, FS__MAX_DELAY_NS,
	                         &as->ttft_window_ns) < 0 ||
	    fs__sc_number(sc, node, "activation", 0, false, 1e9, false, &as->activation) < 0 ||
	    fs__sc_duration_upto(sc, node, "zero_grace", 0, FS__MAX_DELAY_NS,
	                         &as->zero_grace_ns) < 0 ||
	    fs__sc_bool(sc, node, "predictive", &as->predictive) < 0 ||
	    fs__sc_number(sc, node, "flapping_launches_per_h", 0, false, 1e9, false,
	                  &as->flap_launches_per_h) < 0 ||
	    fs__sc_member(sc, node, "scale_up", load_rules, &as->up) != 0 ||
	    fs__sc_member(sc, node, "scale_down", load_rules, &as->down) != 0)
		return -1;
	as->enabled = true;
	if (metric >= 0)
		as->metric = (enum fs_scale_metric)metric;
	/* MODEL: A9 — the forecast is turned into instances through the
	 * metric's target, which only these two metrics allow. */
	if (as->predictive && as->metric != FS_SCALE_CAPACITY_UTIL &&
	    as->metric != FS_SCALE_REQUEST_RATE)
		return fs__sc_fail_member(sc, node, "predictive", "expected \"metric\": "
		                          "\"capacity_util\" or \"request_rate\" with predictive "
		                          "scaling, found metric \"%s\"", fs_scale_metric_name(as->metric));
	sub = fs__sc_get(node, "schedule");
	if (sub != NULL) {
		saved = fs__sc_push_key(sc, "schedule");
		rc = load_scale_schedule(sc, sub, as, &fleet->pools[as->pool]);
		if (rc != 0)
			return -1;
		fs__sc_pop(sc, saved);
	}
	sub = fs__sc_get(node, "idle_release");
	if (sub != NULL) {
		saved = fs__sc_push_key(sc, "idle_release");
		rc = fs__sc_check_object(sc, sub, IDLE_KEYS) != 0 ||
		     fs__sc_number(sc, sub, "busy_below", 0, false, 1, false,
		                   &as->idle_busy_below) < 0 ||
		     fs__sc_duration_upto(sc, sub, "for", 0, FS__MAX_DELAY_NS,
		                          &as->idle_for_ns) < 0 ? -1 : 0;
		if (rc != 0)
			return -1;
		fs__sc_pop(sc, saved);
	}
	return 0;
}

static void print_rules(cJSON *o, const char *key, const struct fs_scale_rules *r)
{
	cJSON *ro = cJSON_AddObjectToObject(o, key), *list, *item;

	fs__sc_print_duration(ro, "window", r->window_ns);
	cJSON_AddStringToObject(ro, "select", fs_select_policy_name(r->select));
	list = cJSON_AddArrayToObject(ro, "policies");
	for (size_t i = 0; i < r->n_policies; i++) {
		item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "type", POLICY_TYPES[r->policies[i].percent]);
		fs__sc_print_number(item, "value", r->policies[i].value);
		fs__sc_print_duration(item, "period", r->policies[i].period_ns);
		cJSON_AddItemToArray(list, item);
	}
}

/* Add the resolved "autoscale" object to fl (see scenario_scale.h). */
void fs__sc_print_autoscale(const struct fs_scenario *s, cJSON *fl)
{
	const struct fs_autoscale_cfg *as = &s->fleet.autoscale;
	cJSON *o = cJSON_AddObjectToObject(fl, "autoscale"), *list, *item, *idle;
	size_t i;

	cJSON_AddStringToObject(o, "pool", s->fleet.pools[as->pool].name);
	cJSON_AddStringToObject(o, "metric", fs_scale_metric_name(as->metric));
	fs__sc_print_number(o, "target", as->target);
	fs__sc_print_number(o, "tolerance", as->tolerance);
	fs__sc_print_duration(o, "interval", as->interval_ns);
	if (as->metric == FS_SCALE_TTFT_P90)
		fs__sc_print_duration(o, "ttft_window", as->ttft_window_ns);
	print_rules(o, "scale_up", &as->up);
	print_rules(o, "scale_down", &as->down);
	fs__sc_print_number(o, "activation", as->activation);
	fs__sc_print_duration(o, "zero_grace", as->zero_grace_ns);
	cJSON_AddBoolToObject(o, "predictive", as->predictive);
	fs__sc_print_number(o, "flapping_launches_per_h", as->flap_launches_per_h);
	if (as->n_schedule > 0) {
		list = cJSON_AddArrayToObject(o, "schedule");
		for (i = 0; i < as->n_schedule; i++) {
			item = cJSON_CreateObject();
			fs__sc_print_number(item, "at_hour", as->schedule[i].at_h);
			fs__sc_print_number(item, "min", as->schedule[i].min_count);
			cJSON_AddItemToArray(list, item);
		}
	}
	idle = cJSON_AddObjectToObject(o, "idle_release");
	fs__sc_print_number(idle, "busy_below", as->idle_busy_below);
	fs__sc_print_duration(idle, "for", as->idle_for_ns);
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_scale_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(AUTOSCALE_KEYS),
		FS__SC_TABLE(RULES_KEYS),
		FS__SC_TABLE(POLICY_KEYS),
		FS__SC_TABLE(SCALE_STEP_KEYS),
		FS__SC_TABLE(IDLE_KEYS),
		FS__SC_TABLE(METRIC_NAMES),
		FS__SC_TABLE(POLICY_TYPES),
		FS__SC_TABLE(SELECT_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
