/*
 * scenario_pool.c — one "fleet.pools[i]": GPU and TP (each pool gets its own
 * llm config, built like the engine's, so the V17 scheduler defaults, the
 * memory plan and the does-not-fit check apply per pool), pricing, counts,
 * zones, the cold-start model, prices (catalogue x TP by default) and
 * billing; the spot interruption model and the spot-only keys of a pool
 * that is not spot here are in scenario_spot.c.  A pool owns its llm, zone
 * indices, price steps and unused spot keys (fs__sc_pool_fini).
 */
#include "scenario_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/billing.h"
#include "fleetsim/capacity.h"
#include "fleetsim/scenario.h"
#include "scenario_schema.h"

#define MAX_COUNT 10000
#define MAX_PRICE_STEPS 1000

static const char *const POOL_KEYS[] = {
	"name", "gpu", "tp", "pricing", "count", "overprovision", "min", "max", "zones",
	"spread_zones", "warm_start", "provisioning", "download_gbps", "load_gbps",
	"engine_start", "price_per_h", "price_per_day", "price_per_week", "price_per_month",
	"price_per_year", "overflow_price_per_h", "price_usd_per_h", "monthly_usd",
	"price_schedule", "billing", "spot", "fallback_pool", NULL
};
static const char *const DELAY_KEYS[] = { "dist", "mean", "min", "max", "cv", NULL };
static const char *const BILLING_KEYS[] = { "granularity", "minimum", NULL };
static const char *const PRICE_STEP_KEYS[] = { "at", "price_per_h", "usd_per_h", NULL };
/* The enum's names (fleet_cfg.h) in its table's order, and their values. */
static const char *const PRICING_NAMES[] = { FS_PRICING_MAP(FS_ENUM_NAME_AT) NULL };
static const enum fs_pricing PRICINGS[] = { FS_PRICING_MAP(FS_ENUM_ID_AT) };
/* The price key of each plan (index: enum fs_pricing), its unit, and the
 * older key that names USD, accepted when the currency is USD. */
static const char *const FEE_KEYS[FS_PRICING__COUNT] = {
	"price_per_h", "price_per_h", "price_per_month", "price_per_day", "price_per_week",
	"price_per_year"
};
static const char *const FEE_UNITS[FS_PRICING__COUNT] = {
	"hour", "hour", "month (730 h)", "day", "week", "year (8760 h)"
};
static const char *const PLAN_WORDS[FS_PRICING__COUNT] = {
	"on-demand", "spot", "monthly", "daily", "weekly", "yearly"
};
static const char *const FEE_USD_KEYS[FS_PRICING__COUNT] = {
	"price_usd_per_h", "price_usd_per_h", "monthly_usd", NULL, NULL, NULL
};
static const char *const DELAY_NAMES[] = { FS_DELAY_MAP(FS_ENUM_NAME) NULL };
static const char *const GRANULARITY_NAMES[] = {
	FS_BILLING_GRANULARITY_MAP(FS_ENUM_NAME) NULL
};

/* ---- defaults ---------------------------------------------------------------------- */

void fs__sc_pool_defaults(struct fs_pool_cfg *p)
{
	memset(p, 0, sizeof *p);
	p->spread_zones = true;
	p->warm_start = true;
	/* Assumption: an on-demand VM boots in about 1-2 minutes; lognormal,
	 * mean 90 s, cv 0.5 (docs/SCENARIO.md, "pools"). */
	p->provisioning.kind = FS_DELAY_LOGNORMAL;
	p->provisioning.mean_ns = 90 * FS_NS_PER_S;
	p->provisioning.cv = 0.5;
	p->download_bytes_per_s = 0.5e9;     /* assumption: 0.5 GB/s from a hub */
	p->load_bytes_per_s = 2.0e9;         /* assumption: 2 GB/s disk -> GPU */
	p->engine_start_ns = 30 * FS_NS_PER_S;   /* assumption: vLLM start, CUDA graphs */
	p->billing.granularity = FS_BILL_PER_SECOND;
	p->billing.minimum_ns = 60 * FS_NS_PER_S;
	p->spot.interrupt_rate_per_h = fs_spot_band_rate_per_h("5-10%");
	p->spot.zone_reclaim_rate_per_h = 0.0;
	p->spot.zone_outage_ns = 30 * 60 * FS_NS_PER_S;
	p->spot.notice_ns = 120 * FS_NS_PER_S;   /* AWS: two-minute notice */
	p->spot.in_flight = FS_INFLIGHT_REQUEUE;
	p->spot.relaunch_retry_ns = 60 * FS_NS_PER_S;
	p->fallback_pool = -1;
}

/* Is the scenario's currency USD (the currency of the catalogue)? */
static bool usd(const struct fs_scenario *s)
{
	return strcmp(s->fleet.currency, "USD") == 0;
}

/* ---- sub-objects --------------------------------------------------------------------- */

static int load_delay(struct fs__sc *sc, const cJSON *node, struct fs_delay_cfg *d)
{
	int kind = 0;

	if (fs__sc_check_object(sc, node, DELAY_KEYS) != 0 ||
	    fs__sc_require(sc, node, "dist") != 0 ||
	    fs__sc_enum(sc, node, "dist", "delay distribution", DELAY_NAMES, &kind) < 0)
		return -1;
	memset(d, 0, sizeof *d);
	d->kind = (enum fs_delay_kind)kind;
	if (d->kind == FS_DELAY_UNIFORM) {
		if (fs__sc_forbid(sc, node, "mean", "when dist is \"uniform\" (give "
		                  "\"min\" and \"max\")") != 0 ||
		    fs__sc_forbid(sc, node, "cv", "unless dist is \"lognormal\"") != 0 ||
		    fs__sc_require(sc, node, "min") != 0 || fs__sc_require(sc, node, "max") != 0 ||
		    fs__sc_duration_upto(sc, node, "min", 0, FS__MAX_DELAY_NS, &d->min_ns) < 0 ||
		    fs__sc_duration_upto(sc, node, "max", 0, FS__MAX_DELAY_NS, &d->max_ns) < 0)
			return -1;
		if (d->max_ns < d->min_ns)
			return fs__sc_fail_member(sc, node, "max", "expected a duration >= "
			                          "\"min\"");
		d->mean_ns = d->min_ns + (d->max_ns - d->min_ns) / 2;
		return 0;
	}
	if (fs__sc_forbid(sc, node, "min", "unless dist is \"uniform\"") != 0 ||
	    fs__sc_forbid(sc, node, "max", "unless dist is \"uniform\"") != 0 ||
	    (d->kind != FS_DELAY_LOGNORMAL &&
	     fs__sc_forbid(sc, node, "cv", "unless dist is \"lognormal\"") != 0) ||
	    fs__sc_require(sc, node, "mean") != 0 ||
	    fs__sc_duration_upto(sc, node, "mean", 0, FS__MAX_DELAY_NS, &d->mean_ns) < 0 ||
	    (d->kind == FS_DELAY_LOGNORMAL && fs__sc_require(sc, node, "cv") != 0) ||
	    fs__sc_number(sc, node, "cv", 0, true, 100, false, &d->cv) < 0)
		return -1;
	return 0;
}

static int load_billing(struct fs__sc *sc, const cJSON *node, struct fs_billing_cfg *b)
{
	int g = 0;

	if (fs__sc_check_object(sc, node, BILLING_KEYS) != 0 ||
	    fs__sc_enum(sc, node, "granularity", "billing granularity", GRANULARITY_NAMES,
	                &g) < 0 ||
	    fs__sc_duration_upto(sc, node, "minimum", 0, FS__MAX_DELAY_NS,
	                         &b->minimum_ns) < 0)
		return -1;
	b->granularity = (enum fs_billing_granularity)g;
	return 0;
}

/*
 * A price in [0, 1e9] under `key`, or under `usd_key` (an older name that
 * says USD; NULL: not accepted), not both.  Returns 1 found, 0 absent (an
 * error when `required`), -1 error.
 */
static int read_price(struct fs__sc *sc, const cJSON *node, const char *key,
                      const char *usd_key, bool required, double *out)
{
	char reason[96];

	if (usd_key != NULL && fs__sc_get(node, usd_key) != NULL) {
		snprintf(reason, sizeof reason, "together with \"%s\" (the same price)", key);
		if (fs__sc_forbid(sc, node, key, reason) != 0)
			return -1;
		key = usd_key;
	}
	if (required && fs__sc_require(sc, node, key) != 0)
		return -1;
	return fs__sc_number(sc, node, key, 0, false, 1e9, false, out);
}

static int load_price_schedule(struct fs__sc *sc, const cJSON *node, bool usd_currency,
                               struct fs_pool_cfg *p)
{
	const cJSON *step;
	size_t i = 0, saved_i;
	char prev[40], found[64];
	int n;

	if (fs__sc_check_array(sc, node, 1, MAX_PRICE_STEPS, "steps") != 0)
		return -1;
	n = cJSON_GetArraySize(node);
	p->price_steps = fs_xcalloc((size_t)n, sizeof *p->price_steps);
	cJSON_ArrayForEach(step, node) {
		struct fs_price_step *st = &p->price_steps[i];

		saved_i = fs__sc_push_index(sc, i);
		p->n_price_steps = i + 1;
		if (fs__sc_check_object(sc, step, PRICE_STEP_KEYS) != 0 ||
		    fs__sc_require(sc, step, "at") != 0 ||
		    fs__sc_duration_upto(sc, step, "at", 0, FS__MAX_DELAY_NS, &st->at_ns) < 0 ||
		    read_price(sc, step, "price_per_h", usd_currency ? "usd_per_h" : NULL,
		               true, &st->usd_per_h) < 0)
			return -1;
		if (i > 0 && st->at_ns <= p->price_steps[i - 1].at_ns) {
			fs_duration_format(p->price_steps[i - 1].at_ns, prev, sizeof prev);
			fs__sc_found(sc, fs__sc_get(step, "at"), found, sizeof found);
			return fs__sc_fail_member(sc, step, "at", "expected steps in ascending "
			                          "order: a time after the previous step's "
			                          "\"%s\", found %s", prev, found);
		}
		fs__sc_pop(sc, saved_i);
		i++;
	}
	return 0;
}

/* "zones": names of fleet zones, each once; default every zone. */
static int load_pool_zones(struct fs__sc *sc, const cJSON *node,
                           const struct fs_fleet_cfg *fleet, struct fs_pool_cfg *p)
{
	const char **names;
	const cJSON *z;
	size_t i = 0, j, saved_i;
	int n, rc = 0;

	if (node == NULL) {
		p->zones = fs_xcalloc(fleet->n_zones, sizeof *p->zones);
		for (i = 0; i < fleet->n_zones; i++)
			p->zones[i] = (int)i;
		p->n_zones = fleet->n_zones;
		return 0;
	}
	if (!cJSON_IsArray(node))
		return fs__sc_fail_at(sc, node, "expected an array of zone names, found %s",
		                      fs__sc_type_name(node));
	n = cJSON_GetArraySize(node);
	if (n < 1)
		return fs__sc_fail_at(sc, node, "expected at least one zone name, found "
		                      "an empty array");
	p->zones = fs_xcalloc((size_t)n, sizeof *p->zones);
	names = fs_xcalloc(fleet->n_zones + 1, sizeof *names);
	for (i = 0; i < fleet->n_zones; i++)
		names[i] = fleet->zones[i].name;
	i = 0;
	cJSON_ArrayForEach(z, node) {
		saved_i = fs__sc_push_index(sc, i);
		rc = fs__sc_find_name_at(sc, z, "zone", names, fleet->n_zones, &p->zones[i]);
		for (j = 0; rc == 0 && j < i; j++)
			if (p->zones[j] == p->zones[i])
				rc = fs__sc_fail_at(sc, z, "zone \"%s\" is listed twice",
				                    z->valuestring);
		if (rc != 0)
			break;
		fs__sc_pop(sc, saved_i);
		p->n_zones = ++i;
	}
	free(names);
	return rc;
}

static int load_zones_key(struct fs__sc *sc, const cJSON *node,
                          const struct fs_fleet_cfg *fleet, struct fs_pool_cfg *p)
{
	size_t saved = fs__sc_push_key(sc, "zones");
	int rc = load_pool_zones(sc, fs__sc_get(node, "zones"), fleet, p);

	if (rc == 0)
		fs__sc_pop(sc, saved);
	return rc;
}

/* Run `load` on node[key] (present) with the path extended by key. */
#define SUB(sc, node, key, call) do {                                        \
		const cJSON *sub_ = fs__sc_get((node), (key));                       \
		size_t saved_ = fs__sc_push_key((sc), (key));                        \
		int rc_ = (call);                                                    \
		fs__sc_pop((sc), saved_);                                            \
		if (rc_ != 0)                                                        \
			return -1;                                                   \
	} while (0)

/* ---- counts, prices ------------------------------------------------------------------ */

static int load_counts(struct fs__sc *sc, const cJSON *node, struct fs_pool_cfg *p)
{
	int64_t count = 0, over = 0, min, max;
	char found[64];

	if (fs__sc_require(sc, node, "count") != 0 ||
	    fs__sc_int(sc, node, "count", 0, MAX_COUNT, &count) < 0 ||
	    fs__sc_int(sc, node, "overprovision", 0, MAX_COUNT, &over) < 0)
		return -1;
	min = max = count;
	if (fs__sc_int(sc, node, "min", 0, MAX_COUNT, &min) < 0 ||
	    fs__sc_int(sc, node, "max", 0, MAX_COUNT, &max) < 0)
		return -1;
	if (min > count) {
		fs__sc_found(sc, fs__sc_get(node, "min"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "min", "expected a value <= count "
		                          "(%d), found %s", (int)count, found);
	}
	if (max < count) {
		fs__sc_found(sc, fs__sc_get(node, "max"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "max", "expected a value >= count "
		                          "(%d), found %s", (int)count, found);
	}
	p->count = (int)count;
	p->overprovision = (int)over;
	p->min_count = (int)min;
	p->max_count = (int)max;
	return 0;
}

/* The catalogue fee of plan `pricing` for the pool's instance (TP GPUs). */
static double catalogue_fee(const struct fs_pool_cfg *p, enum fs_pricing pricing)
{
	return fs_billing_catalog_fee(p->llm->perf.gpu, pricing) * p->llm->perf.tp;
}

/* Why a price key is missing: the catalogue has no figure, or the currency
 * is not the catalogue's. */
static int missing_price(struct fs__sc *sc, const cJSON *node, const struct fs_scenario *s,
                         const struct fs_pool_cfg *p, const char *key, const char *plan)
{
	if (!usd(s))
		return fs__sc_fail_at(sc, node, "missing required key \"%s\": the "
		                      "catalogue's example prices are USD and the scenario's "
		                      "currency is \"%s\"", key, s->fleet.currency);
	return fs__sc_fail_at(sc, node, "the catalogue has no %s price for GPU \"%s\"; "
	                      "give \"%s\"", plan, p->llm->perf.gpu->id, key);
}

static int load_prices(struct fs__sc *sc, const cJSON *node, const struct fs_scenario *s,
                       struct fs_pool_cfg *p)
{
	const char *key = FEE_KEYS[p->pricing];
	double fee = usd(s) ? catalogue_fee(p, p->pricing) : 0.0;
	int rc;

	rc = read_price(sc, node, key, usd(s) ? FEE_USD_KEYS[p->pricing] : NULL, false, &fee);
	if (rc < 0)
		return -1;
	if (rc == 0 && !(fee > 0))
		return missing_price(sc, node, s, p, key, PLAN_WORDS[p->pricing]);
	if (!fs_pricing_committed(p->pricing)) {
		p->price_usd_per_h = fee;
		return 0;
	}
	/* Committed instances are already paid: the router and autoscaler see no
	 * marginal price for them (MODEL: B4). */
	p->price_usd_per_h = 0.0;
	p->commit_fee = fee;
	p->overflow_usd_per_h = usd(s) ? catalogue_fee(p, FS_PRICING_ON_DEMAND) : 0.0;
	rc = fs__sc_number(sc, node, "overflow_price_per_h", 0, false, 1e9, false,
	                   &p->overflow_usd_per_h);
	if (rc < 0)
		return -1;
	/* MODEL: B6 — only an autoscaled pool (max > count) can overflow. */
	if (rc == 0 && p->max_count > p->count && !(p->overflow_usd_per_h > 0))
		return missing_price(sc, node, s, p, "overflow_price_per_h", "on-demand "
		                     "(overflow)");
	return 0;
}

/* Each plan takes its own price key: the others are refused, naming the one
 * to give; keys that name USD are refused in another currency. */
static int check_price_keys(struct fs__sc *sc, const cJSON *node, const struct fs_scenario *s,
                            const struct fs_pool_cfg *p)
{
	const char *plan = fs_pricing_name(p->pricing);
	char reason[160];
	size_t k;

	for (k = 0; k < FS_PRICING__COUNT; k++) {
		const char *usd_key = FEE_USD_KEYS[k];

		snprintf(reason, sizeof reason, "when pricing is \"%s\" (its price is "
		         "\"%s\", per %s)", plan, FEE_KEYS[p->pricing],
		         FEE_UNITS[p->pricing]);
		if (strcmp(FEE_KEYS[k], FEE_KEYS[p->pricing]) != 0 &&
		    fs__sc_forbid(sc, node, FEE_KEYS[k], reason) != 0)
			return -1;
		if (usd_key == NULL)
			continue;
		if (!usd(s)) {
			snprintf(reason, sizeof reason, "when the currency is \"%s\" (give "
			         "\"%s\")", s->fleet.currency, FEE_KEYS[k]);
			if (fs__sc_forbid(sc, node, usd_key, reason) != 0)
				return -1;
		} else if (strcmp(usd_key, FEE_USD_KEYS[p->pricing] != NULL ?
		                  FEE_USD_KEYS[p->pricing] : "") != 0 &&
		           fs__sc_forbid(sc, node, usd_key, reason) != 0) {
			return -1;
		}
	}
	if (!fs_pricing_committed(p->pricing) &&
	    fs__sc_forbid(sc, node, "overflow_price_per_h", "unless pricing is a "
	                  "commitment (\"daily\", \"weekly\", \"monthly\" or "
	                  "\"yearly\")") != 0)
		return -1;
	return 0;
}

/* Keys that only some pricing modes or strategies allow.  The spot-only
 * keys are also allowed on pool i when its pricing is open (a sweep axis, a
 * variant or a --set names it): they are checked and kept, not used. */
static int check_mode_keys(struct fs__sc *sc, const cJSON *node,
                           const struct fs_scenario *s, const struct fs_pool_cfg *p,
                           size_t i)
{
	const struct fs_fleet_cfg *fleet = &s->fleet;
	char reason[160];
	size_t k;

	snprintf(reason, sizeof reason, "unless pricing is \"spot\" (or a sweep axis, "
	         "a variant or --set sets fleet.pools[%zu].pricing)", i);
	for (k = 0; p->pricing != FS_PRICING_SPOT && !fs__sc_pricing_open(sc, i) &&
	     fs__sc_spot_only_keys[k] != NULL; k++)
		if (fs__sc_forbid(sc, node, fs__sc_spot_only_keys[k], reason) != 0)
			return -1;
	if (check_price_keys(sc, node, s, p) != 0)
		return -1;
	if (fleet->strategy != FS_STRATEGY_FALLBACK &&
	    fs__sc_forbid(sc, node, "fallback_pool", "unless fleet.strategy is "
	                  "\"fallback\"") != 0)
		return -1;
	if (fleet->strategy == FS_STRATEGY_FALLBACK && p->pricing == FS_PRICING_SPOT &&
	    fs__sc_get(node, "fallback_pool") == NULL)
		return fs__sc_fail_at(sc, node, "missing required key \"fallback_pool\" "
		                      "(a spot pool needs one when fleet.strategy is "
		                      "\"fallback\")");
	return 0;
}

/* A pool that is not spot here may carry spot-only keys only when its
 * pricing is open (check_mode_keys): check "price_schedule" and "spot" as a
 * spot pool would (fallback_pool in fs__sc_resolve_fallbacks), keep the
 * keys as written to print back, and use none of them. */
static int keep_unused_spot(struct fs__sc *sc, const cJSON *node, const struct fs_scenario *s,
                            struct fs_pool_cfg *p)
{
	struct fs_pool_cfg scratch;
	size_t saved;
	int rc = 0;

	memset(&scratch, 0, sizeof scratch);
	scratch.spot = p->spot;
	if (fs__sc_get(node, "price_schedule") != NULL) {
		saved = fs__sc_push_key(sc, "price_schedule");
		rc = load_price_schedule(sc, fs__sc_get(node, "price_schedule"), usd(s),
		                         &scratch);
		free(scratch.price_steps);
		if (rc != 0)
			return -1;
		fs__sc_pop(sc, saved);
	}
	if (fs__sc_get(node, "spot") != NULL)
		SUB(sc, node, "spot", fs__sc_load_spot(sc, sub_, &scratch.spot));
	p->overprovision = 0;
	p->unused_spot_json = fs__sc_spot_only_text(node);
	return 0;
}

/* ---- the pool -------------------------------------------------------------------------- */

static int load_llm(struct fs__sc *sc, const cJSON *node, struct fs_pool_cfg *p)
{
	const struct fs_gpu_spec *gpu = sc->engine_gpu;
	const struct fs_model_spec *model = fs__sc_vllm_model(sc, sc->engine_node);
	struct fs__sc_saved_path saved;
	int64_t tp = sc->engine_tp > 0 ? sc->engine_tp : 1;
	int rc;

	rc = fs__sc_vllm_gpu(sc, node, "gpu", &gpu);
	if (rc < 0)
		return -1;
	if (gpu == NULL)
		return fs__sc_fail_at(sc, node, "missing required key \"gpu\" (the engine "
		                      "names no default GPU)");
	if (fs__sc_int(sc, node, "tp", 1, 64, &tp) < 0)
		return -1;
	p->llm = fs_xcalloc(1, sizeof *p->llm);
	/* The engine's keys are read at the engine's path; the memory plan is
	 * this pool's, reported here. */
	fs__sc_path_save(sc, &saved);
	fs__sc_path_set(sc, "engine");
	rc = fs__sc_llm_build(sc, sc->engine_node, gpu, model, (int)tp, node, saved.path,
	                      p->llm);
	fs__sc_path_restore(sc, &saved);
	return rc;
}

int fs__sc_load_pool(struct fs__sc *sc, const cJSON *node, struct fs_scenario *s,
                     struct fs_pool_cfg *p)
{
	const struct fs_fleet_cfg *fleet = &s->fleet;
	size_t i = (size_t)(p - fleet->pools);      /* p is fleet->pools[i] */
	const char *name = NULL;
	double gbps;
	int pricing = 0;

	fs__sc_pool_defaults(p);
	if (fs__sc_check_object(sc, node, POOL_KEYS) != 0 ||
	    fs__sc_require(sc, node, "name") != 0 ||
	    fs__sc_string(sc, node, "name", false, &name) < 0)
		return -1;
	p->name = fs_xstrdup(name);
	if (fs__sc_enum(sc, node, "pricing", "pricing", PRICING_NAMES, &pricing) < 0)
		return -1;
	p->pricing = PRICINGS[pricing];
	if (check_mode_keys(sc, node, s, p, i) != 0 ||
	    load_counts(sc, node, p) != 0 ||
	    load_llm(sc, node, p) != 0 ||
	    load_zones_key(sc, node, fleet, p) != 0)
		return -1;
	p->llm->replicas = p->count > 0 ? p->count : 1;
	if (fs__sc_bool(sc, node, "spread_zones", &p->spread_zones) < 0 ||
	    fs__sc_bool(sc, node, "warm_start", &p->warm_start) < 0)
		return -1;
	if (fs__sc_get(node, "provisioning") != NULL)
		SUB(sc, node, "provisioning", load_delay(sc, sub_, &p->provisioning));
	gbps = p->download_bytes_per_s / 1e9;
	if (fs__sc_number(sc, node, "download_gbps", 0, true, 1e6, false, &gbps) < 0)
		return -1;
	p->download_bytes_per_s = gbps * 1e9;
	gbps = p->load_bytes_per_s / 1e9;
	if (fs__sc_number(sc, node, "load_gbps", 0, true, 1e6, false, &gbps) < 0)
		return -1;
	p->load_bytes_per_s = gbps * 1e9;
	if (fs__sc_duration_upto(sc, node, "engine_start", 0, FS__MAX_DELAY_NS,
	                         &p->engine_start_ns) < 0 ||
	    load_prices(sc, node, s, p) != 0)
		return -1;
	if (p->pricing == FS_PRICING_SPOT && fs__sc_get(node, "price_schedule") != NULL)
		SUB(sc, node, "price_schedule", load_price_schedule(sc, sub_, usd(s), p));
	if (fs__sc_get(node, "billing") != NULL)
		SUB(sc, node, "billing", load_billing(sc, sub_, &p->billing));
	if (p->pricing != FS_PRICING_SPOT)
		return keep_unused_spot(sc, node, s, p);
	if (fs__sc_get(node, "spot") != NULL)
		SUB(sc, node, "spot", fs__sc_load_spot(sc, sub_, &p->spot));
	return 0;
}

int fs__sc_resolve_fallbacks(struct fs__sc *sc, const cJSON *pools_node,
                             struct fs_fleet_cfg *fleet)
{
	const char **names = fs_xcalloc(fleet->n_pools + 1, sizeof *names);
	const cJSON *node;
	size_t i = 0, saved_i;
	int idx, rc = 0;

	for (i = 0; i < fleet->n_pools; i++)
		names[i] = fleet->pools[i].name;
	i = 0;
	cJSON_ArrayForEach(node, pools_node) {
		if (fs__sc_get(node, "fallback_pool") != NULL) {
			saved_i = fs__sc_push_index(sc, i);
			rc = fs__sc_find_name(sc, node, "fallback_pool", "pool", names,
			                      fleet->n_pools, &idx);
			if (rc == 0 && fleet->pools[idx].pricing != FS_PRICING_ON_DEMAND)
				rc = fs__sc_fail_member(sc, node, "fallback_pool", "pool \"%s\" "
				                        "is a %s pool; expected an on-demand pool",
				                        names[idx],
				                        fs_pricing_name(fleet->pools[idx].pricing));
			if (rc != 0)
				break;
			/* checked on any pool; used by a spot pool only */
			if (fleet->pools[i].pricing == FS_PRICING_SPOT)
				fleet->pools[i].fallback_pool = idx;
			fs__sc_pop(sc, saved_i);
		}
		i++;
	}
	free(names);
	return rc;
}

void fs__sc_pool_fini(struct fs_pool_cfg *p)
{
	fs__sc_llm_fini(p->llm);
	free(p->llm);
	free(p->name);
	free(p->zones);
	free(p->price_steps);
	free(p->unused_spot_json);
	p->unused_spot_json = NULL;
	p->llm = NULL;
	p->name = NULL;
	p->zones = NULL;
	p->price_steps = NULL;
}

/* ---- printing ---------------------------------------------------------------------------- */

static double times_1e9(double x, double unused)
{
	(void)unused;
	return x * 1e9;
}

cJSON *fs__sc_print_pool(const struct fs_scenario *s, const struct fs_pool_cfg *p)
{
	const struct fs_fleet_cfg *fleet = &s->fleet;
	cJSON *o = cJSON_CreateObject(), *list, *d, *b, *item;
	size_t i;

	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "gpu", p->llm->perf.gpu->id);
	fs__sc_print_number(o, "tp", p->llm->perf.tp);
	cJSON_AddStringToObject(o, "pricing", fs_pricing_name(p->pricing));
	fs__sc_print_number(o, "count", p->count);
	if (p->pricing == FS_PRICING_SPOT)
		fs__sc_print_number(o, "overprovision", p->overprovision);
	fs__sc_print_number(o, "min", p->min_count);
	fs__sc_print_number(o, "max", p->max_count);
	list = cJSON_AddArrayToObject(o, "zones");
	for (i = 0; i < p->n_zones; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(fleet->zones[p->zones[i]].name));
	cJSON_AddBoolToObject(o, "spread_zones", p->spread_zones);
	cJSON_AddBoolToObject(o, "warm_start", p->warm_start);
	d = cJSON_AddObjectToObject(o, "provisioning");
	cJSON_AddStringToObject(d, "dist", fs_delay_kind_name(p->provisioning.kind));
	if (p->provisioning.kind == FS_DELAY_UNIFORM) {
		fs__sc_print_duration(d, "min", p->provisioning.min_ns);
		fs__sc_print_duration(d, "max", p->provisioning.max_ns);
	} else {
		fs__sc_print_duration(d, "mean", p->provisioning.mean_ns);
	}
	if (p->provisioning.kind == FS_DELAY_LOGNORMAL)
		fs__sc_print_number(d, "cv", p->provisioning.cv);
	fs__sc_print_inverse(o, "download_gbps", p->download_bytes_per_s,
	                     p->download_bytes_per_s / 1e9, times_1e9, 0);
	fs__sc_print_inverse(o, "load_gbps", p->load_bytes_per_s,
	                     p->load_bytes_per_s / 1e9, times_1e9, 0);
	fs__sc_print_duration(o, "engine_start", p->engine_start_ns);
	if (fs_pricing_committed(p->pricing)) {
		fs__sc_print_number(o, FEE_KEYS[p->pricing], p->commit_fee);
		fs__sc_print_number(o, "overflow_price_per_h", p->overflow_usd_per_h);
	} else {
		fs__sc_print_number(o, "price_per_h", p->price_usd_per_h);
	}
	if (p->n_price_steps > 0) {
		list = cJSON_AddArrayToObject(o, "price_schedule");
		for (i = 0; i < p->n_price_steps; i++) {
			item = cJSON_CreateObject();
			fs__sc_print_duration(item, "at", p->price_steps[i].at_ns);
			fs__sc_print_number(item, "price_per_h", p->price_steps[i].usd_per_h);
			cJSON_AddItemToArray(list, item);
		}
	}
	b = cJSON_AddObjectToObject(o, "billing");
	cJSON_AddStringToObject(b, "granularity",
	                        fs_billing_granularity_name(p->billing.granularity));
	fs__sc_print_duration(b, "minimum", p->billing.minimum_ns);
	if (p->pricing == FS_PRICING_SPOT)
		fs__sc_print_spot(o, &p->spot);
	else
		fs__sc_print_unused_spot(s, p, o);
	if (p->fallback_pool >= 0)
		cJSON_AddStringToObject(o, "fallback_pool", fleet->pools[p->fallback_pool].name);
	return o;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_pool_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(POOL_KEYS),
		FS__SC_TABLE(DELAY_KEYS),
		FS__SC_TABLE(BILLING_KEYS),
		FS__SC_TABLE(PRICE_STEP_KEYS),
		FS__SC_TABLE(PRICING_NAMES),
		FS__SC_TABLE(DELAY_NAMES),
		FS__SC_TABLE(GRANULARITY_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
