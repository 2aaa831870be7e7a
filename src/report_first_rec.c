/*
 * report_first_rec.c — the recommended configuration behind the report's
 * first section: the directory's resolved scenario.json loaded back (a
 * sweep's best point applied to it) and the headroom search on it, cached in
 * DIR/headroom.json under a key of everything it depends on.  See
 * report_first.h; the sentences are report_first.c's.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/headroom.h"
#include "fleetsim/outfile.h"
#include "fleetsim/rng.h"
#include "fleetsim/scenario.h"
#include "report_first.h"
#include "report_internal.h"

void fs__report_first_fini(struct fs__report *r)
{
	struct fs__first *f = r->first;

	if (!f)
		return;
	if (f->rec != f->base)
		fs_scenario_free(f->rec);
	fs_scenario_free(f->base);
	free(f);
	r->first = NULL;
}

/* ---- the recommended scenario ---- */

/* The recommended sweep point: the resolved scenario with best.json's
 * "set" applied.  The resolved file pins a fixed pool's min and max to its
 * count, so a swept count moves them with it (as the unresolved file's
 * implied bounds would). */
static struct fs_scenario *load_point(const struct fs__report *r, const char *path,
                                      struct fs_error *err)
{
	const cJSON *kv, *pools = fs__jget(r->scenario, "fleet.pools");
	char *sets[3 * FS_SWEEP_MAX_AXES];
	size_t n = 0, i;
	struct fs_scenario *sc;

	cJSON_ArrayForEach(kv, fs__jget(r->best, "best.set")) {
		char *v = cJSON_PrintUnformatted(kv);
		size_t len = strlen(kv->string) + strlen(v) + 8;
		const cJSON *pool;
		int idx, end = 0;

		if (n + 3 > sizeof sets / sizeof sets[0]) {
			free(v);
			break;
		}
		sets[n] = fs_xmalloc(len);
		snprintf(sets[n++], len, "%s=%s", kv->string, v);
		if (sscanf(kv->string, "fleet.pools[%d].count%n", &idx, &end) == 1 &&
		    kv->string[end] == '\0' && (pool = cJSON_GetArrayItem(pools, idx)) &&
		    fs__jnum(pool, "min") == fs__jnum(pool, "count") &&
		    fs__jnum(pool, "max") == fs__jnum(pool, "count")) {
			sets[n] = fs_xmalloc(len + 8);
			snprintf(sets[n++], len + 8, "fleet.pools[%d].min=%s", idx, v);
			sets[n] = fs_xmalloc(len + 8);
			snprintf(sets[n++], len + 8, "fleet.pools[%d].max=%s", idx, v);
		}
		free(v);
	}
	sc = fs_scenario_load_variant(path, NULL, (const char *const *)sets, n, err);
	for (i = 0; i < n; i++)
		free(sets[i]);
	return sc;
}

void fs__first_load_rec(struct fs__report *r, struct fs__first *f)
{
	char path[4200];
	struct fs_error err;
	int point;

	memset(&err, 0, sizeof err);
	if (r->kind == FS_REPORT_VARIANTS) {
		if (!r->have_rec && !r->rec_undecided) {
			snprintf(f->why, sizeof f->why, "no variant is recommended");
			return;
		}
		snprintf(path, sizeof path, "%s/scenario.json", r->variants[r->rec].dir);
	} else
		snprintf(path, sizeof path, "%s/scenario.json", r->dir);
	f->base = fs_scenario_load(path, &err);
	if (!f->base) {
		snprintf(f->why, sizeof f->why, "%.200s: %.300s", err.where, err.msg);
		return;
	}
	f->rec = f->base;
	if (r->kind != FS_REPORT_SWEEP)
		return;
	point = cJSON_IsObject(fs__jget(r->best, "best"))
	        ? (int)fs__jnum(r->best, "best.point") : -1;
	if (point < 0 || !f->base->sweep.present) {
		f->rec = NULL;
		snprintf(f->why, sizeof f->why, "no configuration is recommended");
		return;
	}
	f->rec = load_point(r, path, &err);
	if (!f->rec)
		snprintf(f->why, sizeof f->why, "%.200s: %.300s", err.where, err.msg);
}

int fs__first_rec_replications(const struct fs__report *r)
{
	double n = r->kind == FS_REPORT_SWEEP ? fs__jnum(r->best, "best.replications")
	                                      : fs__jnum(r->summary, "provenance.replications");

	return isnan(n) || n < 1 ? 1 : (int)n;
}

/* ---- headroom, cached ---- */

static cJSON *cache_key(const struct fs__report *r, const struct fs__first *f, int reps)
{
	cJSON *k = cJSON_CreateObject();

	cJSON_AddStringToObject(k, "fleetsim_version", FS_VERSION);
	cJSON_AddStringToObject(k, "rng", fs_rng_name());   /* the probes' draws */
	cJSON_AddStringToObject(k, "scenario_sha256", f->base->sha256_hex);
	cJSON_AddNumberToObject(k, "seed", (double)f->rec->sim.seed);
	cJSON_AddNumberToObject(k, "replications", reps);
	cJSON_AddNumberToObject(k, "max_probes", HEADROOM_PROBES);
	if (r->kind == FS_REPORT_SWEEP)
		cJSON_AddNumberToObject(k, "point", fs__jnum(r->best, "best.point"));
	if (r->kind == FS_REPORT_VARIANTS)
		cJSON_AddStringToObject(k, "variant", r->variants[r->rec].name);
	return k;
}

/* Full precision, not fs_json_num: headroom.json is a cache, and a report
 * made from it must say what the computation said. */
static void add_factor(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static double factor_of(const cJSON *o, const char *key, double absent)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : absent;
}

/* DIR/headroom.json: the key, then the result and every probe.  A cache:
 * a failure is no error of the report, it is said in f->not_kept. */
static void cache_write(const struct fs__report *r, struct fs__first *f, cJSON *key)
{
	const struct fs_headroom *h = &f->h;
	cJSON *o = cJSON_CreateObject(), *probes = cJSON_CreateArray();
	char path[4200];
	struct fs_error err;
	int i;

	cJSON_AddItemToObject(o, "key", key);
	cJSON_AddBoolToObject(o, "applicable", h->applicable);
	cJSON_AddStringToObject(o, "why", h->why);
	add_factor(o, "base_rate_per_s", h->base_rate_per_s);
	add_factor(o, "factor", h->factor);
	add_factor(o, "factor_lo", h->factor_lo);
	add_factor(o, "factor_hi", h->factor_hi);
	cJSON_AddBoolToObject(o, "above_max", h->above_max);
	cJSON_AddBoolToObject(o, "below_min", h->below_min);
	for (i = 0; i < h->n_probes; i++) {
		static const char *const v[] = { "met", "not_met", "undecided" };
		cJSON *p = cJSON_CreateObject();

		cJSON_AddNumberToObject(p, "factor", h->probes[i].factor);
		cJSON_AddBoolToObject(p, "estimate_meets", h->probes[i].point_met);
		cJSON_AddStringToObject(p, "verdict", v[h->probes[i].verdict]);
		add_factor(p, "worst_attainment", h->probes[i].worst_attainment);
		cJSON_AddItemToArray(probes, p);
	}
	cJSON_AddItemToObject(o, "probes", probes);
	snprintf(path, sizeof path, "%s/headroom.json", r->dir);
	memset(&err, 0, sizeof err);
	if (fs_outfile_write_json(path, o, &err) != 0)
		snprintf(f->not_kept, sizeof f->not_kept, "%.200s: %.200s", err.where, err.msg);
	cJSON_Delete(o);
}

/* Read DIR/headroom.json when its key matches; 1 when it did. */
static int cache_read(const struct fs__report *r, struct fs__first *f, const cJSON *key)
{
	struct fs_error err;
	cJSON *o = fs__json_load(r->dir, "headroom.json", &err);
	int ok = 0;
	struct fs_headroom *h = &f->h;

	if (o && cJSON_Compare(cJSON_GetObjectItemCaseSensitive(o, "key"), key, 1)) {
		const char *why = fs__jstr(o, "why");

		memset(h, 0, sizeof *h);
		h->applicable = cJSON_IsTrue(fs__jget(o, "applicable"));
		snprintf(h->why, sizeof h->why, "%s", why ? why : "");
		h->base_rate_per_s = factor_of(o, "base_rate_per_s", NAN);
		h->factor = factor_of(o, "factor", NAN);
		h->factor_lo = factor_of(o, "factor_lo", NAN);
		h->factor_hi = factor_of(o, "factor_hi", INFINITY);
		h->above_max = cJSON_IsTrue(fs__jget(o, "above_max"));
		h->below_min = cJSON_IsTrue(fs__jget(o, "below_min"));
		h->n_probes = cJSON_GetArraySize(fs__jget(o, "probes"));
		h->replications = (int)fs__jnum(key, "replications");
		ok = 1;
	}
	cJSON_Delete(o);
	return ok;
}

void fs__first_headroom(struct fs__report *r, struct fs__first *f)
{
	struct fs_headroom_opts o;
	int reps = fs__first_rec_replications(r), threads = omp_get_num_procs();
	cJSON *key;

	if (reps < 2)
		reps = 2;                        /* an interval needs two */
	if (reps > HEADROOM_MAX_REPS)
		reps = HEADROOM_MAX_REPS;
	key = cache_key(r, f, reps);
	if (cache_read(r, f, key)) {
		cJSON_Delete(key);
		f->have_h = f->cached = true;
		return;
	}
	fs_headroom_opts_init(&o, reps, f->rec->sim.seed);   /* MODEL: H4 */
	o.threads = threads < reps ? threads : reps;
	o.max_probes = HEADROOM_PROBES;
	o.tol_rel = 0.03;
	o.tol_ci_rel = 0.08;
	o.objective = f->base->objective.present ? &f->base->objective : NULL;
	fs_headroom_search(f->rec, &o, &f->h);
	f->have_h = true;
	cache_write(r, f, key);
}
