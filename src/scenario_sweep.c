/*
 * scenario_sweep.c — the root "sweep" section: axes over scenario paths, the
 * mode (grid, zip, search) and the printed form.  An axis path
 * is tried on a copy of the base document exactly as a variant's set path
 * (same messages), with the axis's first value; values themselves are only
 * checked when a point is loaded (the sweep runner names the point).  The
 * cfg owns its axes, their paths and the JSON text of every value.  The
 * numbering of points is scenario_grid.c's.
 */
#include "scenario_walk.h"

#include <assert.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"
#include "scenario_schema.h"

#define MAX_AXES FS_SWEEP_MAX_AXES
#define MAX_VALUES 1000
#define MAX_POINTS 1000000

static const char *const SWEEP_KEYS[] = { "mode", "axes", "baseline", NULL };
static const char *const AXIS_KEYS[] = { "path", "values", "range", "search", NULL };
static const char *const RANGE_KEYS[] = { "from", "to", "step", NULL };
/* The enum's names (scenario_sweep_cfg.h) in value order: an index is its value. */
static const char *const MODE_NAMES[] = { FS_SWEEP_MODE_MAP(FS_ENUM_NAME) NULL };

static char *json_text(const cJSON *v)
{
	char *t = cJSON_PrintUnformatted(v), *copy;

	if (t == NULL) {
		fprintf(stderr, "fleetsim: out of memory printing a sweep value\n");
		abort();
	}
	copy = fs_xstrdup(t);
	cJSON_free(t);
	return copy;
}

/* A search axis's values: numbers, strictly ascending (node: "values"). */
static int check_search_values(struct fs__sc *sc, const cJSON *values)
{
	const cJSON *v, *prev = NULL;
	char found[64], before[64];
	size_t j = 0, saved;

	cJSON_ArrayForEach(v, values) {
		saved = fs__sc_push_index(sc, j++);
		if (!cJSON_IsNumber(v))
			return fs__sc_fail_at(sc, v, "expected a number (the search axis), "
			                      "found %s", fs__sc_type_name(v));
		if (prev != NULL && !(v->valuedouble > prev->valuedouble)) {
			fs__sc_found(sc, v, found, sizeof found);
			fs__sc_found(sc, prev, before, sizeof before);
			return fs__sc_fail_at(sc, v, "expected the search axis's values in "
			                      "strictly ascending order, found %s after %s",
			                      found, before);
		}
		fs__sc_pop(sc, saved);
		prev = v;
	}
	return 0;
}

/* Each value of a grid or search axis once (node: "values"): a repeated
 * value would run the same points twice and count them twice in every
 * comparison.  Values compare as JSON (cJSON_Compare): numbers by value,
 * strings exactly, objects and arrays member by member.  Quadratic in the
 * axis's values, at most MAX_VALUES of them. */
static int check_distinct_values(struct fs__sc *sc, const cJSON *values)
{
	const cJSON *v, *w;
	char found[64];
	size_t j = 0, k, saved;

	cJSON_ArrayForEach(v, values) {
		saved = fs__sc_push_index(sc, j);
		for (w = values->child, k = 0; w != v; w = w->next, k++)
			if (cJSON_Compare(v, w, true)) {
				fs__sc_found(sc, v, found, sizeof found);
				return fs__sc_fail_at(sc, v, "expected each value of the axis "
				                      "once, found %s again (also values[%zu])",
				                      found, k);
			}
		fs__sc_pop(sc, saved);
		j++;
	}
	return 0;
}

/* "values": an array of 1..MAX_VALUES JSON values, distinct when
 * `distinct` (not in mode "zip", where a value may recur with others). */
static int load_values(struct fs__sc *sc, const cJSON *axis, bool search, bool distinct,
                       struct fs_sweep_axis *ax)
{
	const cJSON *values = fs__sc_get(axis, "values"), *v;
	size_t saved;
	int n;

	if (!cJSON_IsArray(values))
		return fs__sc_fail_member(sc, axis, "values", "expected an array of "
		                          "values, found %s", fs__sc_type_name(values));
	n = cJSON_GetArraySize(values);
	if (n < 1 || n > MAX_VALUES)
		return fs__sc_fail_member(sc, axis, "values", "expected 1 to %d values, "
		                          "found %d", MAX_VALUES, n);
	saved = fs__sc_push_key(sc, "values");
	if ((search && check_search_values(sc, values) != 0) ||
	    (distinct && check_distinct_values(sc, values) != 0))
		return -1;
	fs__sc_pop(sc, saved);
	ax->values = fs_xcalloc((size_t)n, sizeof *ax->values);
	cJSON_ArrayForEach(v, values)
		ax->values[ax->n_values++] = json_text(v);
	return 0;
}

/* "range": {"from", "to", "step"}, integers from..to inclusive. */
static int load_range(struct fs__sc *sc, const cJSON *axis, struct fs_sweep_axis *ax)
{
	const cJSON *range = fs__sc_get(axis, "range");
	int64_t from = 0, to = 0, step = 1, n, i;
	char found[64];
	size_t saved = fs__sc_push_key(sc, "range");

	if (fs__sc_check_object(sc, range, RANGE_KEYS) != 0 ||
	    fs__sc_require(sc, range, "from") != 0 ||
	    fs__sc_require(sc, range, "to") != 0 ||
	    fs__sc_int(sc, range, "from", -FS__MAX_INT_JSON, FS__MAX_INT_JSON, &from) < 0 ||
	    fs__sc_int(sc, range, "to", -FS__MAX_INT_JSON, FS__MAX_INT_JSON, &to) < 0 ||
	    fs__sc_int(sc, range, "step", 1, FS__MAX_INT_JSON, &step) < 0)
		return -1;
	if (to < from) {
		fs__sc_found(sc, fs__sc_get(range, "to"), found, sizeof found);
		return fs__sc_fail_member(sc, range, "to", "expected a value >= \"from\" "
		                          "(%" PRId64 "), found %s", from, found);
	}
	n = (to - from) / step + 1;
	if (n > MAX_VALUES)
		return fs__sc_fail_at(sc, range, "expected at most %d values, found %"
		                      PRId64, MAX_VALUES, n);
	fs__sc_pop(sc, saved);
	ax->values = fs_xcalloc((size_t)n, sizeof *ax->values);
	for (i = 0; i < n; i++) {
		char buf[32];

		snprintf(buf, sizeof buf, "%" PRId64, from + i * step);
		ax->values[ax->n_values++] = fs_xstrdup(buf);
	}
	return 0;
}

/* Try the axis path on doc (the base copy, earlier axes already set) with
 * the axis's first value, as a variant's set.  Error at "path". */
static int try_path(struct fs__sc *sc, const cJSON *axis, cJSON *doc,
                    const struct fs_sweep_axis *ax)
{
	const cJSON *values = fs__sc_get(axis, "values");
	cJSON *first = NULL;
	char msg[512];
	int rc;

	if (values == NULL)
		first = cJSON_Parse(ax->values[0]);
	rc = fs__sc_try_set(doc, sc->pos, ax->path,
	                    values != NULL ? values->child : first, msg, sizeof msg);
	cJSON_Delete(first);
	if (rc != 0)
		return fs__sc_fail_member(sc, axis, "path", "%s", msg);
	return 0;
}

static int load_axis(struct fs__sc *sc, const cJSON *axis, enum fs_sweep_mode mode,
                     cJSON *doc, struct fs_sweep_axis *ax)
{
	const char *path = NULL;

	if (fs__sc_check_object(sc, axis, AXIS_KEYS) != 0 ||
	    fs__sc_require(sc, axis, "path") != 0 ||
	    fs__sc_string(sc, axis, "path", false, &path) < 0)
		return -1;
	if (strchr(path, '=') != NULL)
		return fs__sc_fail_member(sc, axis, "path", "expected a path without "
		                          "\"=\", such as \"fleet.pools[0].count\"");
	ax->path = fs_xstrdup(path);
	if (fs__sc_bool(sc, axis, "search", &ax->search) < 0)
		return -1;
	if (ax->search && mode != FS_SWEEP_SEARCH)
		return fs__sc_fail_member(sc, axis, "search", "expected false with mode "
		                          "\"%s\" (only mode \"search\" bisects an axis)",
		                          MODE_NAMES[mode]);
	if (fs__sc_get(axis, "values") != NULL &&
	    fs__sc_forbid(sc, axis, "range", "with \"values\" (give one of them)") != 0)
		return -1;
	if (fs__sc_get(axis, "values") != NULL) {
		if (load_values(sc, axis, ax->search, mode != FS_SWEEP_ZIP, ax) != 0)
			return -1;
	} else if (fs__sc_get(axis, "range") != NULL) {
		if (load_range(sc, axis, ax) != 0)
			return -1;
	} else {
		return fs__sc_fail_at(sc, axis, "missing required key \"values\" (or "
		                      "\"range\")");
	}
	return try_path(sc, axis, doc, ax);
}

/* Mode "zip": each point once.  Point i takes the i-th value of every
 * axis, so it repeats point j only when every axis repeats its j-th value
 * there (never on a range axis, whose values differ); reported at
 * axes[0].values[i].  Quadratic in the points, at most MAX_VALUES. */
static int check_zip_points(struct fs__sc *sc, const cJSON *axes,
                            const struct fs_sweep_cfg *cfg)
{
	size_t n = cfg->axes[0].n_values, i, j, a, saved;
	const cJSON **at = fs_xcalloc(cfg->n_axes * n, sizeof *at), *axis, *v;
	int rc = 0;

	a = 0;
	cJSON_ArrayForEach(axis, axes) {
		const cJSON *values = fs__sc_get(axis, "values");

		if (values == NULL)
			goto out;
		i = 0;
		cJSON_ArrayForEach(v, values)
			at[a * n + i++] = v;
		a++;
	}
	for (i = 1; i < n && rc == 0; i++)
		for (j = 0; j < i && rc == 0; j++) {
			for (a = 0; a < cfg->n_axes; a++)
				if (!cJSON_Compare(at[a * n + i], at[a * n + j], true))
					break;
			if (a < cfg->n_axes)
				continue;
			saved = fs__sc_push_index(sc, 0);
			fs__sc_push_key(sc, "values");
			fs__sc_push_index(sc, i);
			rc = fs__sc_fail_at(sc, at[i], "expected each point once (mode \"zip\"), "
			                    "found point %zu the same as point %zu on every axis",
			                    i, j);
			fs__sc_pop(sc, saved);
		}
out:
	free(at);
	return rc;
}

/* The checks across axes: unique paths, one search axis, zip lengths and
 * points. */
static int check_axes(struct fs__sc *sc, const cJSON *axes, const struct fs_sweep_cfg *cfg)
{
	const cJSON *axis = axes->child;
	size_t i, j, search_at = cfg->n_axes, saved;
	const char *values_key;

	for (i = 0; i < cfg->n_axes; i++, axis = axis->next) {
		const struct fs_sweep_axis *ax = &cfg->axes[i];

		saved = fs__sc_push_index(sc, i);
		for (j = 0; j < i; j++)
			if (strcmp(cfg->axes[j].path, ax->path) == 0)
				return fs__sc_fail_member(sc, axis, "path", "duplicate axis "
				                          "path \"%s\" (also axes[%zu])",
				                          ax->path, j);
		if (ax->search && search_at < cfg->n_axes)
			return fs__sc_fail_member(sc, axis, "search", "mode \"search\" "
			                          "needs exactly one axis with \"search\": "
			                          "true (also axes[%zu])", search_at);
		if (ax->search)
			search_at = i;
		values_key = fs__sc_get(axis, "values") != NULL ? "values" : "range";
		if (cfg->mode == FS_SWEEP_ZIP && ax->n_values != cfg->axes[0].n_values)
			return fs__sc_fail_member(sc, axis, values_key, "expected %zu value%s "
			                          "like axes[0] (mode \"zip\"), found %zu",
			                          cfg->axes[0].n_values,
			                          cfg->axes[0].n_values == 1 ? "" : "s",
			                          ax->n_values);
		fs__sc_pop(sc, saved);
	}
	if (cfg->mode == FS_SWEEP_SEARCH && search_at == cfg->n_axes)
		return fs__sc_fail_at(sc, axes, "mode \"search\" needs exactly one axis "
		                      "with \"search\": true, found none");
	if (cfg->mode == FS_SWEEP_ZIP)
		return check_zip_points(sc, axes, cfg);
	return 0;
}

int fs__sc_load_sweep(struct fs__sc *sc, const cJSON *root, const cJSON *node,
                      struct fs_sweep_cfg *cfg)
{
	const cJSON *axes, *axis;
	int mode = FS_SWEEP_GRID, n;
	int64_t baseline = 0;
	size_t i = 0, saved, points = 1;
	cJSON *doc;
	int rc = 0;

	if (fs__sc_check_object(sc, node, SWEEP_KEYS) != 0 ||
	    fs__sc_enum(sc, node, "mode", "sweep mode", MODE_NAMES, &mode) < 0 ||
	    fs__sc_require(sc, node, "axes") != 0)
		return -1;
	cfg->present = true;
	cfg->mode = (enum fs_sweep_mode)mode;
	axes = fs__sc_get(node, "axes");
	if (!cJSON_IsArray(axes))
		return fs__sc_fail_member(sc, node, "axes", "expected an array of axes, "
		                          "found %s", fs__sc_type_name(axes));
	n = cJSON_GetArraySize(axes);
	if (n < 1 || n > MAX_AXES)
		return fs__sc_fail_member(sc, node, "axes", "expected 1 to %d axes, "
		                          "found %d", MAX_AXES, n);
	cfg->axes = fs_xcalloc((size_t)n, sizeof *cfg->axes);
	cfg->n_axes = (size_t)n;
	saved = fs__sc_push_key(sc, "axes");
	doc = fs__sc_base_copy(root);     /* axes set in turn, as a point would */
	cJSON_ArrayForEach(axis, axes) {
		size_t saved_i = fs__sc_push_index(sc, i);

		rc = load_axis(sc, axis, cfg->mode, doc, &cfg->axes[i]);
		if (rc != 0)
			break;
		fs__sc_pop(sc, saved_i);
		i++;
	}
	cJSON_Delete(doc);
	if (rc != 0 || check_axes(sc, axes, cfg) != 0)
		return -1;
	fs__sc_pop(sc, saved);
	for (i = 0; i < cfg->n_axes && cfg->mode != FS_SWEEP_ZIP; i++) {
		points *= cfg->axes[i].n_values;
		if (points > MAX_POINTS)
			return fs__sc_fail_member(sc, node, "axes", "expected at most %d "
			                          "points (the product of the axes' value "
			                          "counts), found more", MAX_POINTS);
	}
	if (fs__sc_int(sc, node, "baseline", 0,
	               (int64_t)fs_sweep_n_points(cfg) - 1, &baseline) < 0)
		return -1;
	cfg->baseline = (size_t)baseline;
	return 0;
}

void fs__sc_sweep_fini(struct fs_sweep_cfg *cfg)
{
	size_t i, j;

	for (i = 0; i < cfg->n_axes; i++) {
		for (j = 0; j < cfg->axes[i].n_values; j++)
			free(cfg->axes[i].values[j]);
		free(cfg->axes[i].values);
		free(cfg->axes[i].path);
	}
	free(cfg->axes);
	memset(cfg, 0, sizeof *cfg);
}

/* ---- printing ------------------------------------------------------------------- */

/* The integer a value text stands for, when it is one written plainly
 * within the range keys' bounds ("12", "-3"; not "1.5", "\"4\"", "1e3"). */
static bool plain_int(const char *text, int64_t *out)
{
	char *end, back[32];
	long long v;

	v = strtoll(text, &end, 10);
	if (end == text || *end != '\0' || v > FS__MAX_INT_JSON || v < -FS__MAX_INT_JSON)
		return false;
	snprintf(back, sizeof back, "%lld", v);
	if (strcmp(back, text) != 0)
		return false;
	*out = (int64_t)v;
	return true;
}

/* Print ax as "range" when its values are 2+ integers in even steps up. */
static bool add_as_range(cJSON *obj, const struct fs_sweep_axis *ax)
{
	int64_t first, prev, v, step = 0;
	cJSON *range;
	size_t j;

	if (ax->n_values < 2 || !plain_int(ax->values[0], &first))
		return false;
	prev = first;
	for (j = 1; j < ax->n_values; j++) {
		if (!plain_int(ax->values[j], &v) || v <= prev)
			return false;
		if (j == 1)
			step = v - prev;
		else if (v - prev != step)
			return false;
		prev = v;
	}
	range = cJSON_AddObjectToObject(obj, "range");
	fs__sc_print_number(range, "from", (double)first);
	fs__sc_print_number(range, "to", (double)prev);
	fs__sc_print_number(range, "step", (double)step);
	return true;
}

cJSON *fs__sc_print_sweep(const struct fs_sweep_cfg *cfg)
{
	cJSON *sweep = cJSON_CreateObject(), *axes, *obj, *values;
	size_t i, j;

	cJSON_AddStringToObject(sweep, "mode", MODE_NAMES[cfg->mode]);
	axes = cJSON_AddArrayToObject(sweep, "axes");
	for (i = 0; i < cfg->n_axes; i++) {
		obj = cJSON_CreateObject();
		cJSON_AddStringToObject(obj, "path", cfg->axes[i].path);
		if (!add_as_range(obj, &cfg->axes[i])) {
			values = cJSON_AddArrayToObject(obj, "values");
			for (j = 0; j < cfg->axes[i].n_values; j++)
				cJSON_AddItemToArray(values, cJSON_CreateRaw(cfg->axes[i].values[j]));
		}
		cJSON_AddBoolToObject(obj, "search", cfg->axes[i].search);
		cJSON_AddItemToArray(axes, obj);
	}
	fs__sc_print_number(sweep, "baseline", (double)cfg->baseline);
	return sweep;
}

int fs__sc_check_sweep_work(struct fs__sc *sc, const cJSON *root, const struct fs_scenario *s)
{
	const cJSON *sweep = fs__sc_get(root, "sweep");
	struct fs__sc_saved_path saved;
	double points, reps, runs;
	int rc = 0;

	if (!s->sweep.present || sweep == NULL)
		return 0;
	points = (double)fs_sweep_n_points(&s->sweep);
	reps = (double)s->sim.replications;
	if (s->objective.present && s->objective.max_replications > s->sim.replications)
		reps = (double)s->objective.max_replications;  /* the stopping rule's cap */
	runs = points * reps;
	if (runs > FS__MAX_RUNS) {
		fs__sc_path_save(sc, &saved);
		fs__sc_path_set(sc, "sweep");
		rc = fs__sc_fail_at(sc, sweep, "expected at most %.0e replication runs "
		                    "(points x replications, or x objective.max_replications), "
		                    "found %.0f x %.0f; use fewer axis values or replications",
		                    FS__MAX_RUNS, points, reps);
		fs__sc_path_restore(sc, &saved);
	}
	return rc;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_sweep_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(SWEEP_KEYS),
		FS__SC_TABLE(AXIS_KEYS),
		FS__SC_TABLE(RANGE_KEYS),
		FS__SC_TABLE(MODE_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
