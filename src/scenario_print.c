/*
 * scenario_print.c — the resolved scenario as JSON in the input schema, every
 * default written out and durations as strings in their shortest exact unit,
 * so that the output loads back to the same configuration; the
 * self-contained form also writes out every GPU it uses.  Builds a cJSON
 * tree, prints it, frees it; nothing is retained.
 */
#include "fleetsim/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fleetsim/out_format.h"
#include "fleetsim/trace.h"
#include "scenario_walk.h"

static void add_trace(cJSON *arr, const struct fs_trace_cfg *tc)
{
	cJSON *t = cJSON_AddObjectToObject(arr, "trace");

	cJSON_AddStringToObject(t, "path", tc->trace != NULL ? tc->trace->path : "");
	cJSON_AddStringToObject(t, "format", tc->trace != NULL ?
	                        fs_trace_format_name(tc->trace->format) : "");
	fs__sc_print_number(t, "time_scale", tc->time_scale);
	fs__sc_print_number(t, "rate_scale", tc->rate_scale);
	cJSON_AddBoolToObject(t, "loop", tc->loop);
	fs__sc_print_duration(t, "start_offset", tc->start_offset_ns);
}

static void add_arrivals(cJSON *parent, const struct fs_arrival_cfg *a)
{
	cJSON *obj = cJSON_AddObjectToObject(parent, "arrivals"), *o, *list, *item;
	size_t i;

	cJSON_AddStringToObject(obj, "process", fs_arrival_kind_name(a->kind));
	if (a->kind == FS_ARRIVAL_TRACE) {
		add_trace(obj, &a->trace);
		return;
	}
	if (a->n_schedule == 0)
		fs__sc_print_number(obj, "rate_per_s", a->rate_per_s);
	if (a->kind == FS_ARRIVAL_GAMMA)
		fs__sc_print_number(obj, "cv", a->cv);
	if (a->kind == FS_ARRIVAL_WEIBULL)
		fs__sc_print_number(obj, "shape", a->weibull_shape);
	if (a->diurnal) {
		o = cJSON_AddObjectToObject(obj, "diurnal");
		fs__sc_print_number(o, "peak_to_trough", a->diurnal_peak_to_trough);
		fs__sc_print_number(o, "peak_hour", a->diurnal_peak_hour);
	}
	if (a->n_schedule > 0) {
		o = cJSON_AddObjectToObject(obj, "schedule");
		list = cJSON_AddArrayToObject(o, "steps");
		for (i = 0; i < a->n_schedule; i++) {
			item = cJSON_CreateObject();
			fs__sc_print_duration(item, "at", a->schedule[i].at_ns);
			fs__sc_print_number(item, "rate_per_s", a->schedule[i].rate_per_s);
			cJSON_AddItemToArray(list, item);
		}
		if (a->schedule_period_ns > 0)
			fs__sc_print_duration(o, "repeat", a->schedule_period_ns);
	}
	if (a->n_spikes > 0) {
		list = cJSON_AddArrayToObject(obj, "spikes");
		for (i = 0; i < a->n_spikes; i++) {
			item = cJSON_CreateObject();
			fs__sc_print_duration(item, "at", a->spikes[i].at_ns);
			fs__sc_print_duration(item, "duration", a->spikes[i].dur_ns);
			fs__sc_print_number(item, "multiplier", a->spikes[i].multiplier);
			cJSON_AddItemToArray(list, item);
		}
	}
}

static void add_length(cJSON *parent, const char *key, const struct fs_length_cfg *l)
{
	cJSON *obj = cJSON_AddObjectToObject(parent, key);

	cJSON_AddStringToObject(obj, "dist", fs_length_kind_name(l->kind));
	switch (l->kind) {
	case FS_LENGTH_FIXED:
		fs__sc_print_number(obj, "tokens", (double)l->fixed_tokens);
		break;
	case FS_LENGTH_LOGNORMAL:
		fs__sc_print_number(obj, "median", l->median_tokens);
		fs__sc_print_number(obj, "sigma", l->sigma);
		break;
	case FS_LENGTH_ZIPF:
		fs__sc_print_number(obj, "s", l->zipf_s);
		fs__sc_print_number(obj, "n", (double)l->zipf_n);
		break;
	case FS_LENGTH_EMPIRICAL:
		cJSON_AddStringToObject(obj, "path",
		                        l->empirical_path != NULL ? l->empirical_path : "");
		if (l->empirical_column != NULL)
			cJSON_AddStringToObject(obj, "column", l->empirical_column);
		break;
	case FS_LENGTH_UNIFORM:
	case FS_LENGTH_TRACE:
		break;
	}
	fs__sc_print_number(obj, "min", (double)l->min_tokens);
	fs__sc_print_number(obj, "max", (double)l->max_tokens);
}

void fs__sc_print_length(cJSON *parent, const char *key, const struct fs_length_cfg *l)
{
	add_length(parent, key, l);
}

static void add_class(cJSON *list, const struct fs_class_cfg *cl)
{
	cJSON *obj = cJSON_CreateObject(), *slo;

	cJSON_AddStringToObject(obj, "name", cl->name);
	if (cl->own_arrivals)
		add_arrivals(obj, &cl->arrivals);
	else if (cl->closed == NULL || !cl->closed->has_users)
		fs__sc_print_number(obj, "share", cl->share);
	fs__sc_print_closed(obj, cl);          /* users, think, session */
	add_length(obj, "prompt_tokens", &cl->prompt);
	add_length(obj, "output_tokens", &cl->output);
	slo = cJSON_AddObjectToObject(obj, "slo");
	if (cl->slo.ttft_ns > 0)
		fs__sc_print_duration(slo, "ttft", cl->slo.ttft_ns);
	if (cl->slo.tpot_ns > 0)
		fs__sc_print_duration(slo, "tpot", cl->slo.tpot_ns);
	if (cl->slo.e2e_ns > 0)
		fs__sc_print_duration(slo, "e2e", cl->slo.e2e_ns);
	fs__sc_print_number(slo, "attainment", cl->slo.attainment);
	fs__sc_print_number(obj, "priority", cl->priority);
	cJSON_AddItemToArray(list, obj);
}

/* The GPUs a scenario uses, each once, in order of first use. */
struct used_gpus {
	const struct fs_gpu_spec **gpus;
	size_t n, cap;
};

static void use_gpu(struct used_gpus *u, const struct fs_gpu_spec *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < u->n; i++)
		if (u->gpus[i] == g)
			return;
	if (u->n == u->cap) {
		u->cap = u->cap ? 2 * u->cap : 8;
		u->gpus = fs_xrealloc(u->gpus, u->cap * sizeof *u->gpus);
	}
	u->gpus[u->n++] = g;
}

/* The GPUs named in one sweep value: the value itself on an axis whose path
 * ends in "gpu", and any "gpu" member of an object value (a whole pool). */
static void use_sweep_value(struct used_gpus *u, const struct fs_scenario *sc,
                            const cJSON *v, bool gpu_axis)
{
	const cJSON *item;

	if (gpu_axis && cJSON_IsString(v))
		use_gpu(u, fs_scenario_find_gpu(sc, v->valuestring));
	if (cJSON_IsObject(v) || cJSON_IsArray(v))
		cJSON_ArrayForEach(item, v)
			use_sweep_value(u, sc, item, item->string != NULL &&
			                strcmp(item->string, "gpu") == 0);
}

/* Every GPU the scenario uses: the engine's, the pools', the sweep's. */
static void collect_gpus(const struct fs_scenario *sc, struct used_gpus *u)
{
	const struct fs_sweep_axis *ax;
	size_t i, j, len;
	cJSON *v;

	if (sc->engine.kind == FS_ENGINE_VLLM)
		use_gpu(u, sc->engine.llm.perf.gpu);
	for (i = 0; i < sc->fleet.n_pools; i++)
		if (sc->fleet.pools[i].llm != NULL)
			use_gpu(u, sc->fleet.pools[i].llm->perf.gpu);
	for (i = 0; sc->sweep.present && i < sc->sweep.n_axes; i++) {
		ax = &sc->sweep.axes[i];
		len = strlen(ax->path);
		for (j = 0; j < ax->n_values; j++) {
			v = cJSON_Parse(ax->values[j]);
			use_sweep_value(u, sc, v, len >= 3 && strcmp(ax->path + len - 3, "gpu") == 0);
			cJSON_Delete(v);
		}
	}
}

/* The built-in GPUs of u: those that are not entries of the scenario's
 * own catalogue (compacted in place). */
static void keep_builtin(struct used_gpus *u, const struct fs_catalog_file *cf)
{
	size_t i, j, k = 0;
	bool own;

	for (i = 0; i < u->n; i++) {
		own = false;
		for (j = 0; j < cf->n_gpus && !own; j++)
			own = u->gpus[i] == &cf->gpus[j];
		if (!own)
			u->gpus[k++] = u->gpus[i];
	}
	u->n = k;
}

/* The whole scenario as a cJSON tree (caller deletes); self_contained:
 * with every GPU it uses complete in "catalog". */
static cJSON *scenario_json(const struct fs_scenario *sc, bool self_contained)
{
	struct used_gpus used = { NULL, 0, 0 };
	static const struct fs_gpu_spec *const none[1] = { NULL };
	cJSON *root = cJSON_CreateObject(), *sim, *wl, *classes, *engine;
	size_t i;

	cJSON_AddStringToObject(root, "name", sc->name != NULL ? sc->name : "");
	cJSON_AddStringToObject(root, "description",
	                        sc->description != NULL ? sc->description : "");
	if (sc->engine.kind == FS_ENGINE_VLLM)
		cJSON_AddStringToObject(root, "currency", sc->fleet.currency);
	sim = cJSON_AddObjectToObject(root, "simulation");
	fs__sc_print_duration(sim, "horizon", sc->sim.horizon_ns);
	fs__sc_print_duration(sim, "warmup", sc->sim.warmup_ns);
	fs__sc_print_duration(sim, "sample_interval", sc->sim.sample_interval_ns);
	fs__sc_print_number(sim, "start_hour", sc->sim.start_hour);
	fs__sc_print_number(sim, "seed", (double)sc->sim.seed);
	fs__sc_print_number(sim, "replications", sc->sim.replications);
	fs__sc_print_number(sim, "max_in_system", (double)sc->sim.max_in_system);
	if (sc->sim.drain)                   /* absent = false: old output kept */
		cJSON_AddBoolToObject(sim, "drain", true);
	wl = cJSON_AddObjectToObject(root, "workload");
	if (sc->workload.has_shared_arrivals)
		add_arrivals(wl, &sc->workload.arrivals);
	classes = cJSON_AddArrayToObject(wl, "classes");
	for (i = 0; i < sc->workload.n_classes; i++)
		add_class(classes, &sc->workload.classes[i]);
	if (self_contained) {
		collect_gpus(sc, &used);
		keep_builtin(&used, &sc->catalog);
	}
	if (self_contained && (sc->catalog.n_gpus > 0 || sc->catalog.n_models > 0 ||
	                       used.n > 0))
		cJSON_AddItemToObject(root, "catalog", fs__sc_print_catalog_full(
		                      &sc->catalog, used.n > 0 ? used.gpus : none, used.n,
		                      strcmp(sc->fleet.currency, "USD") == 0));
	else if (sc->catalog.n_gpus > 0 || sc->catalog.n_models > 0)
		cJSON_AddItemToObject(root, "catalog", fs__sc_print_catalog(&sc->catalog));
	free(used.gpus);
	engine = cJSON_AddObjectToObject(root, "engine");
	fs__sc_print_engine(&sc->engine, engine);
	if (sc->fleet.explicit_fleet) {
		/* the pools carry the counts; "gpu" and "tp" are pool 0's */
		cJSON_DeleteItemFromObjectCaseSensitive(engine, "replicas");
		fs__sc_print_vllm_fleet(&sc->fleet, engine);
		cJSON_AddItemToObject(root, "fleet", fs__sc_print_fleet(sc));
	}
	if (sc->sweep.present)
		cJSON_AddItemToObject(root, "sweep", fs__sc_print_sweep(&sc->sweep));
	if (sc->objective.present)
		cJSON_AddItemToObject(root, "objective", fs__sc_print_objective(sc));
	return root;
}

static int print_tree(const struct fs_scenario *sc, bool self_contained, FILE *out)
{
	cJSON *root = scenario_json(sc, self_contained);
	char *text = fs_json_text(root, FS_JSON_PRETTY | FS_JSON_NEWLINE);
	int rc = 0;

	cJSON_Delete(root);
	if (fputs(text, out) == EOF)
		rc = -1;
	free(text);
	return rc;
}

int fs_scenario_print(const struct fs_scenario *sc, FILE *out)
{
	return print_tree(sc, false, out);
}

int fs_scenario_print_self_contained(const struct fs_scenario *sc, FILE *out)
{
	return print_tree(sc, true, out);
}

int fs_scenario_print_notes(const struct fs_scenario *sc, FILE *out)
{
	size_t i;

	switch (sc->engine.kind) {
	case FS_ENGINE_VLLM:
		if (!sc->fleet.explicit_fleet)
			return fs__sc_print_vllm_notes(&sc->engine.llm, out);
		for (i = 0; i < sc->fleet.n_pools; i++)
			if (fprintf(out, "// pool %s (%s, tp %d):\n", sc->fleet.pools[i].name,
			            sc->fleet.pools[i].llm->perf.gpu->id,
			            sc->fleet.pools[i].llm->perf.tp) < 0 ||
			    fs__sc_print_vllm_notes(sc->fleet.pools[i].llm, out) != 0 ||
			    fs__sc_print_unused_spot_note(sc, &sc->fleet.pools[i], out) != 0)
				return -1;
		return 0;
	case FS_ENGINE_QUEUE:
		break;
	}
	return 0;
}
