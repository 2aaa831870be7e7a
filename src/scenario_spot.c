/*
 * scenario_spot.c — a pool's spot interruption model (the "spot" object),
 * its printed form, and the rule for spot-only keys on a pool that is not
 * spot in this load but whose pricing a sweep axis, a variant or a --set
 * names ("open" pricing): those keys are checked like a spot pool's, kept
 * as written to print back with the sweep, and never used.  A failing load
 * leaves its output untouched; kept keys are heap JSON text (pool owns it).
 */
#include "scenario_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/billing.h"
#include "fleetsim/capacity.h"
#include "fleetsim/scenario_cfg.h"
#include "suggest.h"
#include "scenario_schema.h"

static const char *const SPOT_KEYS[] = {
	"interruption_rate_per_month", "interruption_band", "zone_reclaims_per_day",
	"zone_outage", "notice", "in_flight", "relaunch_retry", NULL
};
static const char *const BAND_NAMES[] = { "<5%", "5-10%", "10-15%", "15-20%", ">20%", NULL };
/* The enum's names (fleet_cfg.h) in value order: a name's index is its value. */
static const char *const INFLIGHT_NAMES[] = { FS_INFLIGHT_MAP(FS_ENUM_NAME) NULL };

/* The pool keys only a spot pool uses. */
const char *const fs__sc_spot_only_keys[] = {
	"spot", "overprovision", "price_schedule", "fallback_pool", NULL
};

#define RATE_EXPECTED "expected the share of instances interrupted per month, " \
                      "a number 0 <= p < 1 (0.2 for 20%%)"

static double rate_from_month(double p, double unused)
{
	(void)unused;
	return -log1p(-p) / FS_HOURS_PER_MONTH;      /* MODEL: C6 */
}

static double per_24_hours(double x, double unused)
{
	(void)unused;
	return x / 24.0;
}

/* ---- loading ---------------------------------------------------------------- */

/* "interruption_rate_per_month": a number in [0, 1).  1, 0, -1 as readers. */
static int load_rate(struct fs__sc *sc, const cJSON *node, double *p)
{
	const cJSON *v = fs__sc_get(node, "interruption_rate_per_month");
	char found[64];

	if (v == NULL)
		return 0;
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 1)) {
		fs__sc_found(sc, v, found, sizeof found);
		return fs__sc_fail_member(sc, node, "interruption_rate_per_month",
		                          RATE_EXPECTED ", found %s", found);
	}
	*p = v->valuedouble;
	return 1;
}

/* The band holding a written percentage ("20%" -> "15-20%"), or NULL when
 * `text` is not one ("foo", "150%"). */
static const char *band_of_percent(const char *text, double *pct)
{
	char *end;
	double v;

	if (text[0] < '0' || text[0] > '9')
		return NULL;
	v = strtod(text, &end);
	if (end == text || strcmp(end, "%") != 0 || !isfinite(v) || v > 100)
		return NULL;
	*pct = v;
	if (v < 5)
		return BAND_NAMES[0];
	if (v <= 10)
		return BAND_NAMES[1];
	if (v <= 15)
		return BAND_NAMES[2];
	if (v <= 20)
		return BAND_NAMES[3];
	return BAND_NAMES[4];
}

/* "interruption_band": one of BAND_NAMES.  A percentage is answered with its
 * band and the rate key for exactly that share; a number with the rate key. */
static int load_band(struct fs__sc *sc, const cJSON *node, int *band)
{
	const cJSON *v = fs__sc_get(node, "interruption_band");
	const char *near;
	char list[128], found[64];
	double pct = 0;
	int i;

	if (v == NULL)
		return 0;
	fs__suggest_join(BAND_NAMES, ", ", list, sizeof list);
	if (!cJSON_IsString(v)) {
		fs__sc_found(sc, v, found, sizeof found);
		return fs__sc_fail_member(sc, node, "interruption_band", "expected an "
		                          "interruption band, one of %s, found %s%s", list,
		                          found, cJSON_IsNumber(v) ? " (a monthly share "
		                          "goes in \"interruption_rate_per_month\")" : "");
	}
	for (i = 0; BAND_NAMES[i] != NULL; i++) {
		if (strcmp(BAND_NAMES[i], v->valuestring) == 0) {
			*band = i;
			return 1;
		}
	}
	near = band_of_percent(v->valuestring, &pct);
	if (near != NULL)
		return fs__sc_fail_member(sc, node, "interruption_band", "unknown "
		                          "interruption band \"%.60s\"; expected one of %s "
		                          "(did you mean \"%s\"? for exactly %.15g%% give "
		                          "\"interruption_rate_per_month\": %.15g instead)",
		                          v->valuestring, list, near, pct, pct / 100);
	near = fs__suggest_nearest(v->valuestring, BAND_NAMES);
	if (near != NULL)
		return fs__sc_fail_member(sc, node, "interruption_band", "unknown "
		                          "interruption band \"%.60s\"; expected one of %s "
		                          "(did you mean \"%s\"?)", v->valuestring, list, near);
	return fs__sc_fail_member(sc, node, "interruption_band", "unknown interruption "
	                          "band \"%.60s\"; expected one of %s", v->valuestring, list);
}

int fs__sc_load_spot(struct fs__sc *sc, const cJSON *node, struct fs_spot_cfg *out)
{
	struct fs_spot_cfg sp = *out;
	double p = 0, per_day = 0;
	int band = 0, act = 0, rc;

	if (fs__sc_check_object(sc, node, SPOT_KEYS) != 0)
		return -1;
	if (fs__sc_get(node, "interruption_rate_per_month") != NULL &&
	    fs__sc_forbid(sc, node, "interruption_band", "together with "
	                  "\"interruption_rate_per_month\"") != 0)
		return -1;
	rc = load_rate(sc, node, &p);
	if (rc < 0)
		return -1;
	if (rc > 0)
		sp.interrupt_rate_per_h = rate_from_month(p, 0);
	rc = load_band(sc, node, &band);
	if (rc < 0)
		return -1;
	if (rc > 0)
		sp.interrupt_rate_per_h = fs_spot_band_rate_per_h(BAND_NAMES[band]);
	rc = fs__sc_number(sc, node, "zone_reclaims_per_day", 0, false, 1e6, false, &per_day);
	if (rc < 0)
		return -1;
	if (rc > 0)
		sp.zone_reclaim_rate_per_h = per_day / 24.0;
	if (fs__sc_duration_upto(sc, node, "zone_outage", 0, FS__MAX_DELAY_NS,
	                         &sp.zone_outage_ns) < 0 ||
	    fs__sc_duration_upto(sc, node, "notice", 0, FS__MAX_DELAY_NS, &sp.notice_ns) < 0 ||
	    fs__sc_duration_upto(sc, node, "relaunch_retry", 1, FS__MAX_DELAY_NS,
	                         &sp.relaunch_retry_ns) < 0)
		return -1;
	rc = fs__sc_enum(sc, node, "in_flight", "in-flight action", INFLIGHT_NAMES, &act);
	if (rc < 0)
		return -1;
	if (rc > 0)
		sp.in_flight = (enum fs_inflight_action)act;
	*out = sp;
	return 0;
}

/* ---- open pricing ------------------------------------------------------------ */

static void mark(struct fs__sc *sc, const char *path, size_t len)
{
	long i = fs__sc_pool_key_index(path, len, "pricing");

	if (i >= 0 && i < 64)
		sc->open_pricing |= UINT64_C(1) << i;
}

void fs__sc_note_open_pricing(struct fs__sc *sc, const cJSON *root,
                              const char *const *sets, size_t n_sets)
{
	const cJSON *sweep = cJSON_IsObject(root) ? fs__sc_get(root, "sweep") : NULL, *x, *y;
	const cJSON *axes = cJSON_IsObject(sweep) ? fs__sc_get(sweep, "axes") : NULL;
	const cJSON *variants = cJSON_IsObject(root) ? fs__sc_get(root, "variants") : NULL;
	const char *eq;
	size_t i;

	sc->open_pricing = 0;
	if (cJSON_IsArray(axes))
		cJSON_ArrayForEach(x, axes) {
			y = cJSON_IsObject(x) ? fs__sc_get(x, "path") : NULL;
			if (cJSON_IsString(y))
				mark(sc, y->valuestring, strlen(y->valuestring));
		}
	if (cJSON_IsArray(variants))
		cJSON_ArrayForEach(x, variants) {
			y = cJSON_IsObject(x) ? fs__sc_get(x, "set") : NULL;
			for (y = cJSON_IsObject(y) ? y->child : NULL; y != NULL; y = y->next)
				mark(sc, y->string, strlen(y->string));
		}
	for (i = 0; i < n_sets; i++) {
		eq = strchr(sets[i], '=');
		if (eq != NULL)
			mark(sc, sets[i], (size_t)(eq - sets[i]));
	}
}

bool fs__sc_pricing_open(const struct fs__sc *sc, size_t pool)
{
	return pool < 64 && ((sc->open_pricing >> pool) & 1) != 0;
}

char *fs__sc_spot_only_text(const cJSON *node)
{
	cJSON *kept = cJSON_CreateObject(), *dup;
	const cJSON *v;
	char *text, *copy;
	size_t i;

	if (kept == NULL) {
		fprintf(stderr, "fleetsim: out of memory copying a pool's spot keys\n");
		abort();
	}
	for (i = 0; fs__sc_spot_only_keys[i] != NULL; i++) {
		v = fs__sc_get(node, fs__sc_spot_only_keys[i]);
		if (v == NULL)
			continue;
		dup = cJSON_Duplicate(v, 1);
		if (dup == NULL) {
			fprintf(stderr, "fleetsim: out of memory copying a pool's spot keys\n");
			abort();
		}
		cJSON_AddItemToObject(kept, fs__sc_spot_only_keys[i], dup);
	}
	if (kept->child == NULL) {
		cJSON_Delete(kept);
		return NULL;
	}
	text = cJSON_PrintUnformatted(kept);
	cJSON_Delete(kept);
	if (text == NULL) {
		fprintf(stderr, "fleetsim: out of memory printing a pool's spot keys\n");
		abort();
	}
	copy = fs_xstrdup(text);
	cJSON_free(text);
	return copy;
}

/* ---- printing ------------------------------------------------------------------ */

void fs__sc_print_spot(cJSON *pool, const struct fs_spot_cfg *sp)
{
	cJSON *o = cJSON_AddObjectToObject(pool, "spot");
	size_t i;

	for (i = 0; BAND_NAMES[i] != NULL; i++)
		if (fs_spot_band_rate_per_h(BAND_NAMES[i]) == sp->interrupt_rate_per_h)
			break;
	if (BAND_NAMES[i] != NULL)
		cJSON_AddStringToObject(o, "interruption_band", BAND_NAMES[i]);
	else
		fs__sc_print_inverse(o, "interruption_rate_per_month", sp->interrupt_rate_per_h,
		                     -expm1(-sp->interrupt_rate_per_h * FS_HOURS_PER_MONTH),
		                     rate_from_month, 0);
	fs__sc_print_inverse(o, "zone_reclaims_per_day", sp->zone_reclaim_rate_per_h,
	                     sp->zone_reclaim_rate_per_h * 24.0, per_24_hours, 0);
	fs__sc_print_duration(o, "zone_outage", sp->zone_outage_ns);
	fs__sc_print_duration(o, "notice", sp->notice_ns);
	cJSON_AddStringToObject(o, "in_flight", fs_inflight_action_name(sp->in_flight));
	fs__sc_print_duration(o, "relaunch_retry", sp->relaunch_retry_ns);
}

/* Whether the scenario's printed sweep sets pool i's pricing. */
static bool swept(const struct fs_scenario *s, size_t i)
{
	const struct fs_sweep_cfg *sw = &s->sweep;
	size_t a;

	for (a = 0; sw->present && a < sw->n_axes; a++)
		if (fs__sc_pool_key_index(sw->axes[a].path, strlen(sw->axes[a].path),
		                          "pricing") == (long)i)
			return true;
	return false;
}

void fs__sc_print_unused_spot(const struct fs_scenario *s, const struct fs_pool_cfg *p,
                              cJSON *pool)
{
	cJSON *kept, *item;

	if (p->unused_spot_json == NULL || !swept(s, (size_t)(p - s->fleet.pools)))
		return;
	kept = cJSON_Parse(p->unused_spot_json);
	if (kept == NULL) {
		fprintf(stderr, "fleetsim: out of memory reading a pool's spot keys\n");
		abort();
	}
	while ((item = kept->child) != NULL) {
		cJSON_DetachItemViaPointer(kept, item);
		cJSON_AddItemToObject(pool, item->string, item);
	}
	cJSON_Delete(kept);
}

int fs__sc_print_unused_spot_note(const struct fs_scenario *s, const struct fs_pool_cfg *p,
                                  FILE *out)
{
	cJSON *kept;
	const cJSON *item;
	char keys[128];
	size_t used = 0;

	if (p->unused_spot_json == NULL)
		return 0;
	kept = cJSON_Parse(p->unused_spot_json);
	if (kept == NULL) {
		fprintf(stderr, "fleetsim: out of memory reading a pool's spot keys\n");
		abort();
	}
	keys[0] = '\0';
	for (item = kept->child; item != NULL && used < sizeof keys; item = item->next)
		used += (size_t)snprintf(keys + used, sizeof keys - used, "%s%s",
		                         used == 0 ? "" : ", ", item->string);
	cJSON_Delete(kept);
	return fprintf(out, "// pool %s is not spot here: its spot-only keys (%s) are "
	               "checked but unused; they apply where a sweep point, a variant "
	               "or --set makes fleet.pools[%zu].pricing \"spot\"\n", p->name,
	               keys, (size_t)(p - s->fleet.pools)) < 0 ? -1 : 0;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_spot_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(SPOT_KEYS),
		FS__SC_TABLE(BAND_NAMES),
		FS__SC_TABLE(INFLIGHT_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
