/*
 * ckpt_load.c — the JSON input of `fleetsim checkpoint` (docs/BUDGET.md,
 * "Training on spot with checkpoints"): every key checked with the
 * scenario walk's strict readers, so a bad value is reported as
 * FILE:LINE:COL: json.path: expected ..., found ....  A trace path is
 * resolved against the file's directory and loaded once to check it.  The
 * input owns its strings (fs__ckpt_input_fini).
 */
#include "ckpt_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/capacity.h"
#include "scenario_walk.h"

#define H_NS (INT64_C(3600) * FS_NS_PER_S)
#define MAX_H_NS (INT64_C(999999) * H_NS)

static const char *const ROOT_KEYS[] = {
	"name", "description", "work", "cards", "interval", "checkpoint_cost",
	"restart_cost", "deadline", "spot_price_per_h", "on_demand_price_per_h",
	"currency", "interruptions", "replications", "seed", "scan_points", NULL
};
static const char *const INT_KEYS[] = {
	"rate_per_h", "unavailable_mean", "trace", "format", "instances", NULL
};
/* The enum's names (fleet_cfg.h) in value order: a name's index is its value. */
static const char *const FORMAT_NAMES[] = { FS_CAPACITY_FORMAT_MAP(FS_ENUM_NAME) NULL };

void fs__ckpt_input_fini(struct fs__ckpt_input *in)
{
	for (size_t k = 0; k < sizeof in->key_at / sizeof in->key_at[0]; k++)
		free(in->key_at[k]);
	free(in->name);
	free(in->currency);
	free(in->trace_path);
	free(in->trace_display);
	memset(in, 0, sizeof *in);
}

int fs__ckpt_hours(struct fs__sc *sc, const cJSON *obj, const char *key, fs_ns min_ns,
                   double *out_h)
{
	fs_ns v_ns = 0;
	int rc = fs__sc_duration_upto(sc, obj, key, min_ns, MAX_H_NS, &v_ns);

	if (rc == 1)
		*out_h = (double)v_ns / (double)H_NS;
	return rc;
}

int fs__ckpt_load_interruptions(struct fs__sc *sc, const cJSON *obj,
                                struct fs_ckpt_interrupts *sp, char **trace_path,
                                char **trace_display)
{
	const cJSON *node = fs__sc_get(obj, "interruptions");
	const char *rel = NULL;
	size_t saved;
	int64_t n = 1;
	int fmt = 0, rc;

	if (fs__sc_require(sc, obj, "interruptions") != 0)
		return -1;
	saved = fs__sc_push_key(sc, "interruptions");
	if (fs__sc_check_object(sc, node, INT_KEYS) != 0)
		return -1;
	rc = fs__sc_string(sc, node, "trace", false, &rel);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		struct fs_capacity_trace *t;

		if (fs__sc_forbid(sc, node, "rate_per_h", "with a trace (the trace sets "
		                  "the interruptions)") != 0 ||
		    fs__sc_forbid(sc, node, "unavailable_mean", "with a trace (the trace "
		                  "sets when capacity returns)") != 0 ||
		    fs__sc_enum(sc, node, "format", "trace format", FORMAT_NAMES, &fmt) < 0 ||
		    fs__sc_int(sc, node, "instances", 1, 1000000, &n) < 0)
			return -1;
		if (fs__sc_open_data(sc, node, "trace", rel, "trace", trace_path) != 0)
			return -1;
		*trace_display = fs_xstrdup(rel);
		t = fs_capacity_trace_load(*trace_path, rel, (enum fs_capacity_format)fmt, 1.0, true, sc->err);
		if (t == NULL)
			return fs__sc_data_failed(sc, node, "trace");
		fs_capacity_trace_free(t);
		sp->trace_path = *trace_path;
		sp->trace_display = *trace_display;
		sp->trace_format = (enum fs_capacity_format)fmt;
		sp->trace_instances = (int)n;
	} else {
		if (fs__sc_forbid(sc, node, "format", "without a trace") != 0 ||
		    fs__sc_forbid(sc, node, "instances", "without a trace") != 0 ||
		    fs__sc_require(sc, node, "rate_per_h") != 0 ||
		    fs__sc_number(sc, node, "rate_per_h", 0, false, 1e4, false,
		                  &sp->rate_per_h) < 0 ||
		    fs__ckpt_hours(sc, node, "unavailable_mean", 0, &sp->unavailable_mean_h) < 0)
			return -1;
	}
	fs__sc_pop(sc, saved);
	return 0;
}

/* The place of each root key's value, for errors the study finds later. */
static void note_places(struct fs__sc *sc, const cJSON *root, struct fs__ckpt_input *in)
{
	_Static_assert(sizeof ROOT_KEYS / sizeof ROOT_KEYS[0] - 1 <=
	               sizeof in->key_at / sizeof in->key_at[0], "a slot per root key");
	for (size_t k = 0; ROOT_KEYS[k] != NULL; k++)
		if (fs__sc_get(root, ROOT_KEYS[k]) != NULL)
			in->key_at[k] = fs__sc_place(sc, fs__sc_get(root, ROOT_KEYS[k]));
}

void fs__ckpt_where(const struct fs__ckpt_input *in, struct fs_error *err)
{
	size_t len = strcspn(err->path, ".[");

	if (err->where[0] != '\0')
		return;
	for (size_t k = 0; ROOT_KEYS[k] != NULL; k++)
		if (strlen(ROOT_KEYS[k]) == len && strncmp(ROOT_KEYS[k], err->path, len) == 0 &&
		    in->key_at[k] != NULL) {
			snprintf(err->where, sizeof err->where, "%s", in->key_at[k]);
			return;
		}
}

/* fs__sc_load_file's walk of the input file into ctx (the input). */
static int load_root(struct fs__sc *sc, const cJSON *root, void *ctx)
{
	struct fs__ckpt_input *in = ctx;
	struct fs_ckpt_cfg *c = &in->cfg;
	const cJSON *iv = fs__sc_get(root, "interval");
	const char *name = NULL, *cur = NULL;
	char currency[FS_CURRENCY_MAX];
	int64_t v;
	int rc;

	if (fs__sc_check_object(sc, root, ROOT_KEYS) != 0)
		return -1;
	note_places(sc, root, in);
	if (fs__sc_string(sc, root, "name", false, &name) < 0 ||
	    fs__sc_string(sc, root, "description", true, &cur) < 0)
		return -1;
	if (fs__sc_load_currency(sc, root, currency, sizeof currency) < 0)
		return -1;                   /* MODEL: B9, as a scenario's */
	in->name = name != NULL ? fs_xstrdup(name) : NULL;
	in->currency = fs_xstrdup(currency);
	if (fs__sc_require(sc, root, "work") != 0 ||
	    fs__ckpt_hours(sc, root, "work", 1, &c->work_h) < 0)
		return -1;
	if (fs__sc_int(sc, root, "cards", 1, 100000, &v) < 0)
		return -1;
	c->cards = fs__sc_get(root, "cards") != NULL ? (int)v : 1;
	if (!(cJSON_IsString(iv) && strcmp(iv->valuestring, "auto") == 0) &&
	    fs__ckpt_hours(sc, root, "interval", 1, &c->interval_h) < 0)
		return -1;
	if (fs__sc_require(sc, root, "checkpoint_cost") != 0 ||
	    fs__ckpt_hours(sc, root, "checkpoint_cost", 0, &c->ckpt_cost_h) < 0 ||
	    fs__ckpt_hours(sc, root, "restart_cost", 0, &c->restart_cost_h) < 0 ||
	    fs__ckpt_hours(sc, root, "deadline", 1, &c->deadline_h) < 0)
		return -1;
	if (c->ckpt_cost_h == 0 && c->interval_h == 0)
		return fs__sc_fail_member(sc, root, "checkpoint_cost", "expected a checkpoint "
		                          "cost > 0 when the interval is \"auto\" (Daly's "
		                          "interval is 0 for free checkpoints), found 0");
	if (fs__sc_require(sc, root, "spot_price_per_h") != 0 ||
	    fs__sc_number(sc, root, "spot_price_per_h", 0, false, 1e9, false,
	                  &c->spot_price_per_h) < 0 ||
	    fs__sc_require(sc, root, "on_demand_price_per_h") != 0 ||
	    fs__sc_number(sc, root, "on_demand_price_per_h", 0, false, 1e9, false,
	                  &c->on_demand_price_per_h) < 0)
		return -1;
	if (fs__ckpt_load_interruptions(sc, root, &in->cfg.spot, &in->trace_path,
	                                &in->trace_display) != 0)
		return -1;
	c->replications = 1000;
	if (fs__sc_int(sc, root, "replications", 1, 10000000, &v) < 0)
		return -1;
	if (fs__sc_get(root, "replications") != NULL)
		c->replications = (int)v;
	c->seed = 1;
	if (fs__sc_int(sc, root, "seed", 0, FS__MAX_INT_JSON, &v) < 0)
		return -1;
	if (fs__sc_get(root, "seed") != NULL)
		c->seed = (uint64_t)v;
	c->scan_points = 41;
	rc = fs__sc_int(sc, root, "scan_points", 0, FS_CKPT_MAX_SCAN, &v);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		if (v == 1 || v == 2)
			return fs__sc_fail_member(sc, root, "scan_points", "expected 0 (no scan) "
			                          "or an integer in [3, %d], found %lld",
			                          FS_CKPT_MAX_SCAN, (long long)v);
		c->scan_points = (int)v;
	}
	if ((double)c->replications * (c->scan_points + 3) > 1e9)
		return fs__sc_fail_member(sc, root, "replications", "expected replications x "
		                          "(scan_points + 3) <= 10^9 simulated jobs, found %d x %d",
		                          c->replications, c->scan_points + 3);
	c->policy = FS_CKPT_SPOT_ONLY;
	return 0;
}

int fs__ckpt_load(const char *path, struct fs__ckpt_input *in, struct fs_error *err)
{
	memset(in, 0, sizeof *in);
	if (fs__sc_load_file(path, "input", load_root, in, err) != 0) {
		fs__ckpt_input_fini(in);
		return -1;
	}
	return 0;
}
