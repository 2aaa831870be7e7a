/*
 * budget_load.c — read and check a budget plan (docs/BUDGET.md, "Plan
 * file"): the root keys, prices, machine costs, the spot overhead and the
 * keys every task shares; the kind-specific task keys are in
 * budget_load_task.c.  Errors go through the scenario walk, so they read
 * FILE:LINE:COL: json.path: expected ..., found ...  On error nothing is
 * returned and everything read so far is freed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget_internal.h"
#include "civil_date.h"
#include "fleetsim/billing.h"

static const char *const ROOT_KEYS[] = {
	"name", "description", "currency", "start", "period", "buffer", "risk_factor",
	"spot", "machine", "prices", "tasks", NULL
};
static const char *const MACHINE_KEYS[] = {
	"disk_per_gb_month", "object_per_gb_month", "egress_per_gb", "addon_per_card_h",
	"bandwidth_gbit_per_s", NULL
};
static const char *const SPOT_KEYS[] = { "overhead", NULL };
/* In enum fs_pricing order (fleet_cfg.h); NULL-terminated. */
static const char *const PLAN_NAMES[FS_PRICING__COUNT + 1] = {
	FS_PRICING_MAP(FS_ENUM_NAME_BY_VALUE)
};

int fs__budget_parse_date(const char *text, int64_t *day)
{
	static const int MDAYS[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, m, d, n = 0;

	if (strlen(text) != 10 || sscanf(text, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 ||
	    n != 10 || text[4] != '-' || text[7] != '-' || y < 1970 || y > 9999 ||
	    m < 1 || m > 12 || d < 1 || d > MDAYS[m - 1])
		return -1;
	if (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return -1;
	*day = fs__civil_days(y, m, d);
	return 0;
}

int fs__budget_when(struct fs__sc *sc, const cJSON *obj, const char *key,
                    const struct fs_budget_plan *plan, fs_ns *out)
{
	const cJSON *node = fs__sc_get(obj, key);
	int64_t day;
	char found[64];

	if (node == NULL)
		return 0;
	if (cJSON_IsString(node) && strlen(node->valuestring) == 10 &&
	    node->valuestring[4] == '-' && node->valuestring[7] == '-') {
		if (fs__budget_parse_date(node->valuestring, &day) != 0) {
			fs__sc_found(sc, node, found, sizeof found);
			return fs__sc_fail_member(sc, obj, key, "expected a date YYYY-MM-DD "
			                          "from 1970, found %s", found);
		}
		if (plan->start_day < 0)
			return fs__sc_fail_member(sc, obj, key, "a date needs the plan's own "
			                          "\"start\" date; give one, or an offset such "
			                          "as \"14d\"");
		if (day < plan->start_day) {
			fs__sc_found(sc, node, found, sizeof found);
			return fs__sc_fail_member(sc, obj, key, "expected a date on or after "
			                          "the plan's start, found %s", found);
		}
		*out = (day - plan->start_day) * 86400 * FS_NS_PER_S;
		return 1;
	}
	return fs__sc_duration_upto(sc, obj, key, 0, FS__MAX_HORIZON_NS, out);
}

/* The catalogue entry of GPU `name`, or -1 after an "unknown GPU" message at
 * obj[key]'s key (at_key) or value, with the nearest name when there is one
 * and `see` after it. */
static int find_gpu(struct fs__sc *sc, const cJSON *obj, const char *key, const char *name,
                    bool at_key, const char *see, const struct fs_gpu_spec **out)
{
	const char *near;
	char msg[256];

	*out = fs_catalog_find_gpu(name);
	if (*out != NULL)
		return 1;
	near = fs_catalog_suggest_gpu(name);
	if (near != NULL)
		snprintf(msg, sizeof msg, "unknown GPU \"%.60s\" (did you mean \"%s\"?)%s",
		         name, near, see);
	else
		snprintf(msg, sizeof msg, "unknown GPU \"%.60s\"; see fleetsim catalog gpus",
		         name);
	return at_key ? fs__sc_fail_member_key(sc, obj, key, "%s", msg)
	              : fs__sc_fail_member(sc, obj, key, "%s", msg);
}

/* A GPU name (id or alias) to its catalogue entry: fail at obj[key]. */
int fs__budget_gpu(struct fs__sc *sc, const cJSON *obj, const char *key,
                   const struct fs_gpu_spec **out)
{
	const char *name;
	int rc = fs__sc_string(sc, obj, key, false, &name);

	if (rc != 1)
		return rc;
	return find_gpu(sc, obj, key, name, false, "; see fleetsim catalog gpus", out);
}

static int load_machine(struct fs__sc *sc, const cJSON *root, struct fs_budget_machine *m)
{
	const cJSON *node = fs__sc_get(root, "machine");
	double gbit = FS_BUDGET_BANDWIDTH_DEFAULT * 8 / 1e9;
	size_t saved;
	int rc = 0;

	m->bandwidth_bytes_per_s = FS_BUDGET_BANDWIDTH_DEFAULT;
	if (node == NULL)
		return 0;
	saved = fs__sc_push_key(sc, "machine");
	if (fs__sc_check_object(sc, node, MACHINE_KEYS) != 0 ||
	    fs__sc_number(sc, node, "disk_per_gb_month", 0, false, 1e6, false,
	                  &m->disk_per_gb_month) < 0 ||
	    fs__sc_number(sc, node, "object_per_gb_month", 0, false, 1e6, false,
	                  &m->object_per_gb_month) < 0 ||
	    fs__sc_number(sc, node, "egress_per_gb", 0, false, 1e6, false,
	                  &m->egress_per_gb) < 0 ||
	    fs__sc_number(sc, node, "addon_per_card_h", 0, false, 1e6, false,
	                  &m->addon_per_card_h) < 0 ||
	    fs__sc_number(sc, node, "bandwidth_gbit_per_s", 0, true, 1e6, false, &gbit) < 0)
		rc = -1;
	/* MODEL: G10 — a link of G Gbit/s moves G / 8 GB per second. */
	m->bandwidth_bytes_per_s = gbit * 1e9 / 8;
	fs__sc_pop(sc, saved);
	return rc;
}

/* plan->prices[k] for gpu (added on first use with the catalogue's fees
 * when the currency is USD, none otherwise). */
struct fs_budget_prices *fs__budget_prices_of(struct fs_budget_plan *plan,
                                              const struct fs_gpu_spec *gpu)
{
	struct fs_budget_prices *p;
	bool usd = strcmp(plan->currency, "USD") == 0;
	int k;

	for (size_t i = 0; i < plan->n_prices; i++)
		if (plan->prices[i].gpu == gpu)
			return &plan->prices[i];
	plan->prices = fs_xrealloc(plan->prices, (plan->n_prices + 1) * sizeof *plan->prices);
	p = &plan->prices[plan->n_prices++];
	memset(p, 0, sizeof *p);
	p->gpu = gpu;
	for (k = 0; k < FS_PRICING__COUNT && usd; k++)
		p->fee[k] = fs_billing_catalog_fee(gpu, (enum fs_pricing)k);   /* MODEL: B7 */
	return p;
}

/* "prices": {"GPU": {"on_demand": x, ...}}: fees per card in the plan's
 * currency; plans left out keep the catalogue's (USD) or are not offered. */
static int load_prices(struct fs__sc *sc, const cJSON *root, struct fs_budget_plan *plan)
{
	const cJSON *node = fs__sc_get(root, "prices"), *g;
	size_t saved, saved2;
	int rc = 0;

	if (node == NULL)
		return 0;
	saved = fs__sc_push_key(sc, "prices");
	if (!cJSON_IsObject(node)) {
		fs__sc_pop(sc, saved);
		return fs__sc_fail_at(sc, node, "expected an object of GPU names, found %s",
		                      fs__sc_type_name(node));
	}
	cJSON_ArrayForEach(g, node) {
		const struct fs_gpu_spec *gpu = NULL;
		struct fs_budget_prices *p;

		if (fs__budget_gpu_key(sc, node, g->string, &gpu) != 1) {
			rc = -1;
			break;
		}
		saved2 = fs__sc_push_key(sc, g->string);
		p = fs__budget_prices_of(plan, gpu);
		if (fs__sc_check_object(sc, g, PLAN_NAMES) != 0)
			rc = -1;
		for (int k = 0; rc == 0 && PLAN_NAMES[k] != NULL; k++)
			if (fs__sc_number(sc, g, PLAN_NAMES[k], 0, false, 1e9, false,
			                  &p->fee[k]) < 0)
				rc = -1;
		fs__sc_pop(sc, saved2);
		if (rc != 0)
			break;
	}
	fs__sc_pop(sc, saved);
	return rc;
}

/* A GPU named by a key of obj (the "prices" object), failing at the key. */
int fs__budget_gpu_key(struct fs__sc *sc, const cJSON *obj, const char *key,
                       const struct fs_gpu_spec **out)
{
	return find_gpu(sc, obj, key, key, true, "", out);
}

static int load_root(struct fs__sc *sc, const cJSON *root, struct fs_budget_plan *plan)
{
	const cJSON *start = fs__sc_get(root, "start"), *tasks, *spot;
	const char *s = NULL;
	char found[64];
	size_t saved;
	int rc;

	if (fs__sc_check_object(sc, root, ROOT_KEYS) != 0 ||
	    fs__sc_load_currency(sc, root, plan->currency, sizeof plan->currency) != 0)
		return -1;
	if (fs__sc_string(sc, root, "name", false, &s) < 0)
		return -1;
	plan->name = fs_xstrdup(s);
	s = "";
	if (fs__sc_string(sc, root, "description", true, &s) < 0)
		return -1;
	plan->description = fs_xstrdup(s);
	plan->start_day = -1;
	if (start != NULL) {
		if (fs__sc_string(sc, root, "start", false, &s) < 0)
			return -1;
		if (fs__budget_parse_date(s, &plan->start_day) != 0) {
			fs__sc_found(sc, start, found, sizeof found);
			return fs__sc_fail_member(sc, root, "start", "expected a date YYYY-MM-DD "
			                          "from 1970, found %s", found);
		}
	}
	plan->buffer = FS_BUDGET_BUFFER_DEFAULT;
	plan->risk_factor = FS_BUDGET_RISK_DEFAULT;
	plan->spot_overhead = FS_BUDGET_SPOT_OVERHEAD_DEFAULT;
	if (fs__sc_duration_upto(sc, root, "period", FS_NS_PER_S * 3600, FS__MAX_HORIZON_NS,
	                         &plan->period_ns) < 0 ||
	    fs__sc_number(sc, root, "buffer", 0, false, 1, false, &plan->buffer) < 0 ||
	    fs__sc_number(sc, root, "risk_factor", 1, false, 3, false, &plan->risk_factor) < 0 ||
	    load_machine(sc, root, &plan->machine) != 0)
		return -1;
	spot = fs__sc_get(root, "spot");
	if (spot != NULL) {
		saved = fs__sc_push_key(sc, "spot");
		rc = fs__sc_check_object(sc, spot, SPOT_KEYS) != 0 ||
		     fs__sc_number(sc, spot, "overhead", 0, false, 10, false,
		                   &plan->spot_overhead) < 0 ? -1 : 0;
		fs__sc_pop(sc, saved);
		if (rc != 0)
			return -1;
	}
	if (load_prices(sc, root, plan) != 0 || fs__sc_require(sc, root, "tasks") != 0)
		return -1;
	tasks = fs__sc_get(root, "tasks");
	if (!cJSON_IsArray(tasks) || cJSON_GetArraySize(tasks) < 1 ||
	    cJSON_GetArraySize(tasks) > FS_BUDGET_MAX_TASKS) {
		fs__sc_found(sc, tasks, found, sizeof found);
		return fs__sc_fail_member(sc, root, "tasks", "expected an array of 1 to %d "
		                          "tasks, found %s", FS_BUDGET_MAX_TASKS,
		                          cJSON_IsArray(tasks) ? "[]" : found);
	}
	plan->tasks = fs_xcalloc((size_t)cJSON_GetArraySize(tasks), sizeof *plan->tasks);
	saved = fs__sc_push_key(sc, "tasks");
	rc = 0;
	for (int i = 0; i < cJSON_GetArraySize(tasks) && rc == 0; i++) {
		size_t saved_i = fs__sc_push_index(sc, (size_t)i);
		const cJSON *t = cJSON_GetArrayItem(tasks, i);

		rc = fs__budget_load_task(sc, t, plan, &plan->tasks[plan->n_tasks]);
		plan->n_tasks++;
		fs__sc_pop(sc, saved_i);
	}
	fs__sc_pop(sc, saved);
	return rc;
}

/* fs__sc_load_file's walk of a plan file into ctx (the plan). */
static int load_plan_root(struct fs__sc *sc, const cJSON *root, void *ctx)
{
	return load_root(sc, root, ctx);
}

struct fs_budget_plan *fs_budget_plan_load(const char *path, struct fs_error *err)
{
	struct fs_budget_plan *plan = fs_xcalloc(1, sizeof *plan);

	plan->path = fs_xstrdup(path);
	if (fs__sc_load_file(path, "plan", load_plan_root, plan, err) != 0) {
		fs_budget_plan_free(plan);
		return NULL;
	}
	return plan;
}

void fs_budget_plan_free(struct fs_budget_plan *plan)
{
	if (plan == NULL)
		return;
	for (size_t i = 0; i < plan->n_tasks; i++) {
		struct fs_budget_task *t = &plan->tasks[i];

		free(t->name);
		free(t->at);
		free(t->model_label);
		free(t->serve.from_dir);
		fs__budget_spot_free(t->train.spot);
		fs_model_config_fini(&t->own_model);
	}
	free(plan->tasks);
	free(plan->prices);
	free(plan->path);
	free(plan->name);
	free(plan->description);
	free(plan);
}
