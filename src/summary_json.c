/*
 * summary_json.c — summary.json (see summary.h for the contract).  Figures
 * are rounded to 9 significant digits so the file reads cleanly; NAN (no
 * data, or a CI from a single replication) is written as null; a zero-width
 * interval (the same value in every replication) carries "exact": true.  The
 * file is written atomically.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/out_format.h"
#include "fleetsim/outfile.h"
#include "fleetsim/rng.h"
#include "fleetsim/scenario.h"             /* fs_duration_format */
#include "fleetsim/summary.h"

cJSON *fs_summary_ci_json(const struct fs_ci *ci)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "value", fs_json_num(ci->value));
	cJSON_AddItemToObject(o, "ci_lo", fs_json_num(ci->ci_lo));
	cJSON_AddItemToObject(o, "ci_hi", fs_json_num(ci->ci_hi));
	if (fs_stats_ci_exact(ci))
		cJSON_AddTrueToObject(o, "exact");
	return o;
}

/* fs_summary_ci_json with the interval's method and, when it suggests more
 * replications, its skewness and suggestion. */
static cJSON *ci_json(const struct fs_ci *ci)
{
	cJSON *o = fs_summary_ci_json(ci);

	if (ci->method == FS_CI_SECTIONING)
		cJSON_AddStringToObject(o, "method", "pooled_sectioning");
	if (ci->n_suggested > ci->n) {
		cJSON_AddItemToObject(o, "skewness", fs_json_num(ci->skew));
		cJSON_AddNumberToObject(o, "replications_suggested", (double)ci->n_suggested);
	}
	return o;
}

/* MODEL: M7 — whether P(SLO met) reaches the target, on its interval. */
static cJSON *verdict_json(const struct fs_group_summary *g, double target)
{
	static const char *const names[] = { "met", "not_met", "undecided" };
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "target", fs_json_num(target));
	cJSON_AddStringToObject(o, "verdict", names[g->p_slo_met_verdict]);
	if (g->p_slo_met_verdict == FS_SHARE_UNDECIDED && g->p_slo_met_needed > 0)
		cJSON_AddNumberToObject(o, "replications_needed", (double)g->p_slo_met_needed);
	else
		cJSON_AddNullToObject(o, "replications_needed");
	return o;
}

static cJSON *quantities_json(const struct fs_ci *by_qty)
{
	cJSON *o = cJSON_CreateObject();
	int q;

	for (q = 0; q < FS_QTY__COUNT; q++)
		cJSON_AddItemToObject(o, fs_quantity_name((enum fs_quantity)q),
		                      ci_json(&by_qty[q]));
	return o;
}

/* `llm`: token metrics (tpot_ms, itl_ms for "all") exist. */
static cJSON *group_json(const struct fs_group_summary *g, bool llm, bool is_all,
                         double p_target)
{
	cJSON *o = cJSON_CreateObject();
	int k;

	for (k = 0; k < FS_LAT__COUNT; k++) {
		if (k == FS_LAT_TPOT && !llm)
			continue;
		cJSON_AddItemToObject(o, fs_latency_name((enum fs_latency)k),
		                      quantities_json(g->lat_ms[k]));
	}
	if (llm && is_all)
		cJSON_AddItemToObject(o, "itl_ms", quantities_json(g->itl_ms));
	cJSON_AddItemToObject(o, "completed", ci_json(&g->completed));
	cJSON_AddItemToObject(o, "arrived", ci_json(&g->arrived));
	cJSON_AddItemToObject(o, "in_flight", ci_json(&g->in_flight));
	cJSON_AddItemToObject(o, "failed", ci_json(&g->failed));
	cJSON_AddItemToObject(o, "throughput_rps", ci_json(&g->throughput_rps));
	cJSON_AddItemToObject(o, "output_tokens_per_s", ci_json(&g->output_tokens_per_s));
	if (g->has_slo) {
		cJSON_AddItemToObject(o, "slo_attainment", ci_json(&g->slo_attainment));
		cJSON_AddItemToObject(o, "p_slo_met", ci_json(&g->p_slo_met));
		cJSON_AddItemToObject(o, "slo_target", fs_json_num(g->slo_target));
		cJSON_AddItemToObject(o, "p_slo_met_verdict", verdict_json(g, p_target));
	}
	return o;
}

static cJSON *engine_json(const struct fs_summary *s, const struct fs_scenario *sc)
{
	const struct fs_llm_cfg *llm = sc->fleet.pools[0].llm;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "model", llm->perf.model->id);
	cJSON_AddNumberToObject(o, "kv_bytes_per_token", llm->mem.kv_bytes_per_token);
	cJSON_AddItemToObject(o, "kv_use", ci_json(&s->kv_use));
	cJSON_AddItemToObject(o, "batch_size", ci_json(&s->batch_size));
	cJSON_AddItemToObject(o, "preemptions", ci_json(&s->preemptions));
	cJSON_AddItemToObject(o, "tokens_per_s", ci_json(&s->tokens_per_s));
	cJSON_AddItemToObject(o, "prefill_tokens_per_s", ci_json(&s->prefill_tokens_per_s));
	cJSON_AddItemToObject(o, "mfu", ci_json(&s->mfu));
	cJSON_AddItemToObject(o, "mbu", ci_json(&s->mbu));
	if (s->prefix_cache) {                                   /* MODEL: V22 */
		cJSON *pc = cJSON_CreateObject();

		cJSON_AddItemToObject(pc, "hit_rate_blocks", ci_json(&s->prefix_hit_rate_blocks));
		cJSON_AddItemToObject(pc, "hit_rate_tokens", ci_json(&s->prefix_hit_rate_tokens));
		cJSON_AddItemToObject(pc, "saved_prefill_tokens",
		                      ci_json(&s->prefix_saved_tokens));
		cJSON_AddItemToObject(o, "prefix_cache", pc);
	}
	return o;
}

/* MODEL: B8 — {"plan", "fee_per_period", "hourly_price", "hours_per_month",
 * "share_of_month", "instance_hours_per_month": [the use of the 1st, 2nd, ...
 * instance], "instances_worth_committing"}, or {"available": false}. */
static cJSON *break_even_json(const struct fs_break_even *be)
{
	cJSON *o = cJSON_CreateObject(), *slots;
	size_t k;

	cJSON_AddBoolToObject(o, "available", be->available);
	cJSON_AddStringToObject(o, "plan", fs_pricing_name(be->plan));
	if (!be->available)
		return o;
	fs_json_add_num(o, "fee_per_period", be->fee);
	fs_json_add_num(o, "hourly_price", be->hourly_price);
	fs_json_add_num(o, "hours_per_month", be->hours_per_month);
	fs_json_add_num(o, "share_of_month", be->hours_per_month / FS_HOURS_PER_MONTH);
	slots = cJSON_AddArrayToObject(o, "instance_hours_per_month");
	for (k = 0; k < be->n_slots; k++)
		cJSON_AddItemToArray(slots, fs_json_num(be->slot_hours_per_month[k]));
	cJSON_AddNumberToObject(o, "instances_worth_committing", be->worth_committing);
	return o;
}

/* Idle episodes (MODEL: S19): count, hours and cost, each a CI. */
static cJSON *idle_episodes_json(const struct fs_ci *count, const struct fs_ci *hours,
                                 const struct fs_ci *cost)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "count", ci_json(count));
	cJSON_AddItemToObject(o, "hours", ci_json(hours));
	cJSON_AddItemToObject(o, "cost", ci_json(cost));
	return o;
}

static cJSON *cost_json(const struct fs_summary *s, const struct fs_scenario *sc)
{
	const struct fs_cost_summary *c = &s->cost;
	cJSON *o = cJSON_CreateObject(), *by_pricing, *pools;
	size_t p;
	int k;

	cJSON_AddStringToObject(o, "currency", sc->fleet.currency);
	cJSON_AddItemToObject(o, "total", ci_json(&c->total_usd));
	cJSON_AddItemToObject(o, "per_hour", ci_json(&c->usd_per_hour));
	cJSON_AddItemToObject(o, "monthly_projected", ci_json(&c->monthly_usd));
	cJSON_AddStringToObject(o, "monthly_projection", "the cost per hour of the simulated "
	                        "span x 730 h");
	cJSON_AddItemToObject(o, "per_1m_output_tokens",
	                      ci_json(&c->usd_per_1m_output_tokens));
	cJSON_AddItemToObject(o, "per_1k_requests", ci_json(&c->usd_per_1k_requests));
	cJSON_AddItemToObject(o, "idle", ci_json(&c->idle_usd));
	cJSON_AddItemToObject(o, "lost_to_reclaims", ci_json(&c->lost_usd));
	cJSON_AddItemToObject(o, "requeued_requests", ci_json(&c->requeued));
	cJSON_AddItemToObject(o, "unused_capacity", ci_json(&c->unused_capacity_usd));
	cJSON_AddItemToObject(o, "idle_episodes", idle_episodes_json(&c->idle_episodes,
	                      &c->idle_episode_hours, &c->idle_episode_usd));
	{
		cJSON *per_rep = cJSON_AddArrayToObject(o, "cost_per_rep");
		int r;

		for (r = 0; c->total_usd_per_rep != NULL && r < s->replications; r++)
			cJSON_AddItemToArray(per_rep, fs_json_num(c->total_usd_per_rep[r]));
	}
	by_pricing = cJSON_AddObjectToObject(o, "by_pricing");
	for (k = 0; k < FS_PRICING__COUNT; k++)
		cJSON_AddItemToObject(by_pricing, fs_pricing_name((enum fs_pricing)k),
		                      ci_json(&c->by_pricing_usd[k]));
	pools = cJSON_AddObjectToObject(o, "pools");
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_summary *ps = &s->pools[p];
		cJSON *po = cJSON_CreateObject();

		cJSON_AddStringToObject(po, "pricing",
		                        fs_pricing_name(sc->fleet.pools[p].pricing));
		cJSON_AddStringToObject(po, "plan", fs_pricing_label(sc->fleet.pools[p].pricing));
		cJSON_AddItemToObject(po, "total", ci_json(&ps->usd));
		if (fs_pricing_committed(sc->fleet.pools[p].pricing)) {
			cJSON_AddItemToObject(po, "commitment", ci_json(&ps->commit_usd));
			cJSON_AddItemToObject(po, "overflow", ci_json(&ps->overflow_usd));
			cJSON_AddItemToObject(po, "overflow_instance_hours",
			                      ci_json(&ps->overflow_hours));
		}
		cJSON_AddItemToObject(po, "break_even", break_even_json(&ps->break_even));
		cJSON_AddItemToObject(po, "idle", ci_json(&ps->idle_usd));
		cJSON_AddItemToObject(po, "lost_to_reclaims", ci_json(&ps->lost_usd));
		cJSON_AddItemToObject(po, "instance_hours", ci_json(&ps->instance_hours));
		cJSON_AddItemToObject(po, "alive_instance_hours", ci_json(&ps->alive_hours));
		cJSON_AddItemToObject(po, "launches", ci_json(&ps->launches));
		cJSON_AddItemToObject(po, "failed_launches", ci_json(&ps->failed_launches));
		cJSON_AddItemToObject(po, "reclaims", ci_json(&ps->reclaims));
		cJSON_AddItemToObject(po, "unused_capacity", ci_json(&ps->unused_capacity_usd));
		cJSON_AddItemToObject(po, "idle_episodes", idle_episodes_json(&ps->idle_episodes,
		                      &ps->idle_episode_hours, &ps->idle_episode_usd));
		cJSON_AddItemToObject(pools, ps->name, po);
	}
	return o;
}

static cJSON *utilization_json(const struct fs_summary *s, const struct fs_scenario *sc)
{
	cJSON *o = cJSON_CreateObject(), *pools;
	size_t p;

	cJSON_AddItemToObject(o, "busy_fraction", ci_json(&s->fleet_busy_fraction));
	cJSON_AddItemToObject(o, "mfu", ci_json(&s->mfu));
	cJSON_AddItemToObject(o, "mbu", ci_json(&s->mbu));
	cJSON_AddItemToObject(o, "kv_use", ci_json(&s->fleet_kv_use));
	cJSON_AddItemToObject(o, "capacity_utilization", ci_json(&s->capacity_util));
	pools = cJSON_AddObjectToObject(o, "pools");
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_summary *ps = &s->pools[p];
		cJSON *po = cJSON_CreateObject();

		cJSON_AddStringToObject(po, "gpu", sc->fleet.pools[p].llm->perf.gpu->id);
		cJSON_AddNumberToObject(po, "tp", sc->fleet.pools[p].llm->perf.tp);
		cJSON_AddItemToObject(po, "busy_fraction", ci_json(&ps->busy_fraction));
		cJSON_AddItemToObject(po, "kv_use", ci_json(&ps->kv_use));
		cJSON_AddItemToObject(po, "mfu", ci_json(&ps->mfu));
		cJSON_AddItemToObject(po, "mbu", ci_json(&ps->mbu));
		cJSON_AddItemToObject(po, "capacity_utilization", ci_json(&ps->capacity_util));
		cJSON_AddItemToObject(po, "saturation_rps", fs_json_num(ps->saturation_rps));
		cJSON_AddItemToObject(po, "saturation_output_tokens_per_s",
		                      fs_json_num(ps->saturation_output_tokens_per_s));
		cJSON_AddItemToObject(pools, ps->name, po);
	}
	return o;
}

static void avail_fields(cJSON *o, const struct fs_avail_summary *a)
{
	cJSON_AddItemToObject(o, "availability", ci_json(&a->availability));
	cJSON_AddItemToObject(o, "outage_minutes_per_month",
	                      ci_json(&a->outage_min_per_month));
	cJSON_AddItemToObject(o, "total_outage_minutes_per_month",
	                      ci_json(&a->down_min_per_month));
	cJSON_AddItemToObject(o, "min_serving", ci_json(&a->min_serving));
}

/* Availability of the fleet and of each pool (MODEL: F15-F18). */
static cJSON *availability_json(const struct fs_summary *s, const struct fs_scenario *sc)
{
	cJSON *o = cJSON_CreateObject(), *fleet, *pools;
	char text[512];
	size_t p;

	fleet = cJSON_AddObjectToObject(o, "fleet");
	avail_fields(fleet, &s->avail);
	pools = cJSON_AddObjectToObject(o, "pools");
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_summary *ps = &s->pools[p];
		cJSON *po = cJSON_CreateObject();

		avail_fields(po, &ps->avail);
		cJSON_AddItemToObject(po, "requests_requeued_by_reclaims",
		                      ci_json(&ps->reclaim_requeued));
		cJSON_AddItemToObject(po, "requests_failed_by_reclaims",
		                      ci_json(&ps->reclaim_failed));
		if (sc->fleet.pools[p].pricing == FS_PRICING_SPOT) {
			cJSON_AddItemToObject(po, "expected_reclaims_per_replication",
			                      fs_json_num(ps->expected_reclaims));
			cJSON_AddBoolToObject(po, "too_short_for_spot_risk",
			                      fs_summary_pool_warning(s, sc, p, text, sizeof text));
		}
		cJSON_AddItemToObject(pools, ps->name, po);
	}
	return o;
}

/* The skewness check of the headline means (docs/STATISTICS.md). */
static cJSON *skew_json(const struct fs_summary *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "skewed_figures", s->skewed_figures);
	if (s->skewed_figures == 0) {
		cJSON_AddNullToObject(o, "most_skewed");
		cJSON_AddNullToObject(o, "skewness");
		cJSON_AddNullToObject(o, "replications_suggested");
		return o;
	}
	cJSON_AddStringToObject(o, "most_skewed", s->skew_figure);
	cJSON_AddItemToObject(o, "skewness", fs_json_num(s->skew));
	cJSON_AddNumberToObject(o, "replications_suggested",
	                        (double)s->skew_replications_needed);
	return o;
}

/* Every warning of the summary (fs_summary_warning_next). */
static cJSON *warnings_json(const struct fs_summary *s, const struct fs_scenario *sc)
{
	cJSON *a = cJSON_CreateArray();
	struct fs_summary_warning_cursor cur = { 0, 0 };
	enum fs_summary_warning_kind kind;
	char text[512];

	while (fs_summary_warning_next(s, sc, &cur, &kind, text, sizeof text))
		cJSON_AddItemToArray(a, cJSON_CreateString(text));
	return a;
}

/* The figures behind the autoscaler's warnings, for its pool (MODEL: A11),
 * each per replication then a CI. */
static cJSON *autoscale_json(const struct fs_summary *s, const struct fs_scenario *sc)
{
	const struct fs_pool_summary *ps = &s->pools[sc->fleet.autoscale.pool];
	cJSON *o = cJSON_CreateObject(), *po;

	po = cJSON_AddObjectToObject(o, ps->name);
	cJSON_AddItemToObject(po, "share_at_max", ci_json(&ps->scale_at_max));
	cJSON_AddItemToObject(po, "share_at_lower_bound", ci_json(&ps->scale_at_min));
	cJSON_AddItemToObject(po, "launches_per_hour", ci_json(&ps->launches_per_h));
	cJSON_AddItemToObject(po, "relaunches_within_1h_of_scale_in_per_hour",
	                      ci_json(&ps->relaunches_per_h));
	cJSON_AddItemToObject(po, "stranded_requests_at_end", ci_json(&ps->stranded));
	cJSON_AddItemToObject(po, "idle_releases", ci_json(&ps->idle_releases));
	return o;
}

static cJSON *provenance_json(const struct fs_summary *s, const struct fs_scenario *sc)
{
	cJSON *o = cJSON_CreateObject();
	char buf[32];

	cJSON_AddStringToObject(o, "fleetsim_version", FS_VERSION);
	cJSON_AddStringToObject(o, "scenario", sc->name);
	cJSON_AddStringToObject(o, "scenario_sha256", sc->sha256_hex);
	/* Seeds are up to 2^53 (checked on input), exact as a double. */
	cJSON_AddNumberToObject(o, "seed", (double)s->seed);
	cJSON_AddNumberToObject(o, "replications", s->replications);
	cJSON_AddStringToObject(o, "rng", fs_rng_name());
	fs_duration_format(sc->sim.horizon_ns, buf, sizeof buf);
	cJSON_AddStringToObject(o, "horizon", buf);
	fs_duration_format(sc->sim.warmup_ns, buf, sizeof buf);
	cJSON_AddStringToObject(o, "warmup", buf);
	return o;
}

/* MODEL: U7 — a closed-loop run by concurrency, as `vllm bench serve
 * --max-concurrency` reports it: users, TTFT / TPOT / ITL / E2E (mean,
 * median, p99), output tokens/s and requests/s.  NULL when no class has
 * users. */
static cJSON *concurrency_json(const struct fs_summary *s, const struct fs_scenario *sc)
{
	static const enum fs_quantity qty[] = { FS_QTY_MEAN, FS_QTY_P50, FS_QTY_P99 };
	static const char *const qty_names[] = { "mean", "median", "p99" };
	int64_t users;
	bool scheduled;
	int gi = fs_summary_closed_group(s, sc, &users, &scheduled);
	const struct fs_group_summary *g;
	cJSON *o;

	if (gi < 0)
		return NULL;
	g = &s->groups[gi];
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "users", (double)users);
	cJSON_AddBoolToObject(o, "users_scheduled", scheduled);
	cJSON_AddStringToObject(o, "scope", (size_t)gi == s->n_classes ? "all" :
	                        s->class_names[gi]);
	for (int k = 0; k < 4; k++) {
		static const enum fs_latency lat[] = {
			FS_LAT_TTFT, FS_LAT_TPOT, FS_LAT__COUNT, FS_LAT_E2E
		};
		static const char *const names[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" };
		const struct fs_ci *by_qty;
		cJSON *m;

		if ((lat[k] == FS_LAT_TPOT || lat[k] == FS_LAT__COUNT) && !s->llm)
			continue;
		if (lat[k] == FS_LAT__COUNT && (size_t)gi != s->n_classes)
			continue;        /* ITL is kept for all traffic only */
		by_qty = lat[k] == FS_LAT__COUNT ? g->itl_ms : g->lat_ms[lat[k]];
		m = cJSON_AddObjectToObject(o, names[k]);
		for (int q = 0; q < 3; q++)
			cJSON_AddItemToObject(m, qty_names[q], ci_json(&by_qty[qty[q]]));
	}
	cJSON_AddItemToObject(o, "output_tokens_per_s", ci_json(&g->output_tokens_per_s));
	cJSON_AddItemToObject(o, "requests_per_s", ci_json(&g->throughput_rps));
	return o;
}

int fs_summary_write_json(const struct fs_summary *s, const struct fs_scenario *sc,
                          const char *path, struct fs_error *err)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *metrics = cJSON_CreateObject();
	cJSON *classes = cJSON_CreateObject();
	cJSON *verdict = cJSON_CreateObject();
	cJSON *system = cJSON_CreateObject();
	size_t c;
	int rc;

	cJSON_AddItemToObject(root, "provenance", provenance_json(s, sc));
	cJSON_AddBoolToObject(verdict, "stable", s->unstable_replications == 0);
	cJSON_AddNumberToObject(verdict, "unstable_replications", s->unstable_replications);
	{
		/* MODEL: S3 — which replications the guard stopped, and when. */
		cJSON *at = cJSON_CreateArray();
		int r;

		cJSON_AddNumberToObject(verdict, "stopped_early_replications", s->stopped_early);
		for (r = 0; s->stopped_at_s != NULL && r < s->replications; r++)
			if (!isnan(s->stopped_at_s[r]))
				cJSON_AddItemToArray(at, fs_json_num(s->stopped_at_s[r]));
		cJSON_AddItemToObject(verdict, "stopped_at_s", at);
	}
	cJSON_AddItemToObject(root, "verdict", verdict);
	cJSON_AddItemToObject(root, "skewness_check", skew_json(s));
	cJSON_AddItemToObject(metrics, "all",
	                      group_json(&s->groups[s->n_classes], s->llm, true,
	                                 s->p_slo_target));
	for (c = 0; c < s->n_classes; c++)
		cJSON_AddItemToObject(classes, s->class_names[c],
		                      group_json(&s->groups[c], s->llm, false, s->p_slo_target));
	cJSON_AddItemToObject(metrics, "classes", classes);
	cJSON_AddItemToObject(root, "metrics", metrics);
	cJSON_AddItemToObject(system, "busy_fraction", ci_json(&s->busy_fraction));
	cJSON_AddItemToObject(system, "queue_len", ci_json(&s->queue_len));
	cJSON_AddItemToObject(root, "system", system);
	{
		cJSON *conc = concurrency_json(s, sc);

		if (conc != NULL)
			cJSON_AddItemToObject(root, "concurrency", conc);
	}
	if (s->llm) {
		cJSON_AddItemToObject(root, "engine", engine_json(s, sc));
		cJSON_AddItemToObject(root, "cost", cost_json(s, sc));
		cJSON_AddItemToObject(root, "utilization", utilization_json(s, sc));
		cJSON_AddItemToObject(root, "availability", availability_json(s, sc));
		cJSON_AddItemToObject(root, "warnings", warnings_json(s, sc));
		if (sc->fleet.autoscale.enabled && sc->fleet.autoscale.pool >= 0 &&
		    (size_t)sc->fleet.autoscale.pool < s->n_pools)
			cJSON_AddItemToObject(root, "autoscale", autoscale_json(s, sc));
	}
	rc = fs_outfile_write_json(path, root, err);
	cJSON_Delete(root);
	return rc;
}
