/*
 * report_gpus.c — the facts of the GPUs a run used (prices, their date and
 * sources, the specs' sources, notes), as the report states them.  They come
 * from the run's resolved scenario.json, whose "catalog.gpus" lists every GPU
 * the run used as a complete entry; a directory written before runs recorded
 * them falls back to this binary's built-in catalogue.  Strings are borrowed
 * from the loaded JSON (struct fs__report owns it) or the built-in tables.
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "fleetsim/catalog.h"
#include "report_internal.h"

/* Append name to names[0..*n) unless there or NULL (at most max). */
static void add_name(const char **names, size_t *n, size_t max, const char *name)
{
	size_t i;

	if (name == NULL)
		return;
	for (i = 0; i < *n; i++)
		if (strcmp(names[i], name) == 0)
			return;
	if (*n < max)
		names[(*n)++] = name;
}

/* The GPU names the report's configurations use: the engine's, the
 * pools', and, when the directory is a sweep's, the string values of sweep
 * axes whose path ends in "gpu" (a run of a scenario with a sweep block
 * simulates its own configuration only). */
static size_t gpu_names(const cJSON *sc, bool swept, const char **names, size_t max)
{
	const cJSON *p, *v, *axes = swept ? fs__jget(sc, "sweep.axes") : NULL;
	const char *path;
	size_t n = 0;

	add_name(names, &n, max, fs__jstr(sc, "engine.gpu"));
	cJSON_ArrayForEach(p, fs__jget(sc, "fleet.pools"))
		add_name(names, &n, max, fs__jstr(p, "gpu"));
	cJSON_ArrayForEach(p, axes) {
		path = fs__jstr(p, "path");
		if (path != NULL && strlen(path) >= 3 &&
		    strcmp(path + strlen(path) - 3, "gpu") == 0)
			cJSON_ArrayForEach(v, fs__jget(p, "values"))
				add_name(names, &n, max, cJSON_IsString(v) ? v->valuestring : NULL);
	}
	return n;
}

/* The entry of the scenario's catalog.gpus that `name` resolves to, as the
 * loader resolves it: by id first, then by the entry's aliases; NULL when
 * none.  Only a complete entry (no "base", with "spec_source") counts: an
 * older run wrote only what differed from a built-in. */
static const cJSON *run_entry(const cJSON *sc, const char *name)
{
	const cJSON *g, *hit = NULL;

	cJSON_ArrayForEach(g, fs__jget(sc, "catalog.gpus"))
		if (fs__jstr(g, "id") != NULL && strcasecmp(fs__jstr(g, "id"), name) == 0) {
			hit = g;
			break;
		}
	if (hit == NULL)
		cJSON_ArrayForEach(g, fs__jget(sc, "catalog.gpus"))
			if (fs__jstr(g, "aliases") != NULL &&
			    fs_catalog_name_matches(name, "", fs__jstr(g, "aliases"))) {
				hit = g;
				break;
			}
	if (hit == NULL || fs__jget(hit, "base") != NULL || fs__jstr(hit, "spec_source") == NULL)
		return NULL;
	return hit;
}

static const char *str_or_empty(const cJSON *o, const char *key)
{
	const char *s = fs__jstr(o, key);

	return s != NULL ? s : "";
}

static void from_run(struct fs__gpu_facts *f, const cJSON *g)
{
	f->from = FS__GPU_FROM_RUN;
	f->id = str_or_empty(g, "id");
	f->display_name = fs__jstr(g, "display_name") ? fs__jstr(g, "display_name") : f->id;
	f->on_demand_usd_per_h = fs__jnum(g, "price_on_demand_usd_per_h");
	f->spot_usd_per_h = fs__jnum(g, "price_spot_usd_per_h");
	f->monthly_usd = fs__jnum(g, "price_monthly_usd");
	f->price_date = str_or_empty(g, "price_date");
	f->price_source = str_or_empty(g, "price_source");
	f->spec_source = str_or_empty(g, "spec_source");
	f->notes = str_or_empty(g, "notes");
}

static void from_binary(struct fs__gpu_facts *f, const struct fs_gpu_spec *g)
{
	f->from = FS__GPU_FROM_BINARY;
	f->id = g->id;
	f->display_name = g->display_name;
	f->on_demand_usd_per_h = g->price_on_demand_usd_per_h;
	f->spot_usd_per_h = g->price_spot_usd_per_h;
	f->monthly_usd = g->price_monthly_usd;
	f->price_date = g->price_date;
	f->price_source = g->price_source;
	f->spec_source = g->spec_source;
	f->notes = g->notes;
}

size_t fs__report_gpu_facts(const struct fs__report *r, struct fs__gpu_facts *out, size_t max)
{
	const char *names[FS__REPORT_MAX_GPUS];
	const struct fs_gpu_spec *g;
	const cJSON *e;
	size_t n, i;

	n = gpu_names(r->scenario, r->kind == FS_REPORT_SWEEP, names,
	              max < FS__REPORT_MAX_GPUS ? max : FS__REPORT_MAX_GPUS);
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].name = names[i];
		out[i].on_demand_usd_per_h = out[i].spot_usd_per_h = out[i].monthly_usd = NAN;
		e = run_entry(r->scenario, names[i]);
		g = e == NULL ? fs_catalog_find_gpu(names[i]) : NULL;
		if (e != NULL)
			from_run(&out[i], e);
		else if (g != NULL)
			from_binary(&out[i], g);
		else
			out[i].from = FS__GPU_UNKNOWN;
	}
	return n;
}
