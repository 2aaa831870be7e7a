/*
 * summary_fleet.c — the fleet's figures across replications: cost (total,
 * per hour, per 1M output tokens, per 1k requests, idle, lost to spot
 * reclaims, by pricing plan, projected monthly, unused capacity, idle
 * episodes) and per-pool use (busy fraction, KV use, achieved MFU/MBU,
 * capacity utilisation, launches, reclaims), the break-even of commitments,
 * availability of each pool and of the fleet, and the reclaims a spot pool
 * should expect.  Each figure is computed per replication from its fleet
 * result, then given a Student-t CI cut at 0 (shares also at 1).  Per-hour
 * figures divide by the span each replication simulated, shorter than the
 * horizon when it was stopped early.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/billing.h"
#include "fleetsim/capacity.h"
#include "fleetsim/world_capacity_util.h"
#include "fleetsim/objective.h"
#include "fleetsim/perf.h"
#include "fleetsim/summary.h"

static double ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

#define PER_REP(dst, expr) \
	do { \
		for (r = 0; r < n_reps; r++) { \
			const struct fs_fleet_result *f = &results[r]->fleet; \
			(void)f; \
			buf[r] = (expr); \
		} \
		(dst) = fs_stats_mean_ci_nonneg(buf, (size_t)n_reps, FS_CI_LEVEL); \
	} while (0)

/* MODEL: B8 — a committed pool compares its fee with its overflow price; a
 * pool rented by the hour (on demand or spot) compares its price with the
 * catalogue's monthly fee, when the catalogue's currency is the scenario's. */
struct fs_break_even fs_summary_break_even(const struct fs_scenario *sc,
                                           const struct fs_pool_cfg *pc)
{
	struct fs_break_even be = { 0 };
	bool usd = strcmp(sc->fleet.currency, "USD") == 0;

	if (fs_pricing_committed(pc->pricing)) {
		be.plan = pc->pricing;
		be.fee = pc->commit_fee;
		be.hourly_price = pc->overflow_usd_per_h;
	} else {
		be.plan = FS_PRICING_MONTHLY;
		be.fee = usd ? fs_billing_catalog_fee(pc->llm->perf.gpu, FS_PRICING_MONTHLY) *
		               pc->llm->perf.tp : 0.0;
		be.hourly_price = pc->n_price_steps > 0 ? NAN : pc->price_usd_per_h;
	}
	be.available = be.fee > 0 && be.hourly_price > 0;
	be.hours_per_month = be.available ?
		fs_billing_break_even_h_per_month(be.fee, fs_pricing_period_ns(be.plan),
		                                  be.hourly_price) : NAN;
	return be;
}

/* MODEL: B8 — the use of each instance slot of pool p: the time at least
 * k + 1 instances were billed, over the simulated span, x 730 h, averaged
 * over replications; and how many slots the commitment would pay off for. */
static void slot_use(struct fs_break_even *be, struct fs_rep_result *const *results,
                     int n_reps, size_t p)
{
	size_t n = 0, k, j;
	int r;

	for (r = 0; r < n_reps; r++)
		if (results[r]->fleet.pools[p].n_levels > n)
			n = results[r]->fleet.pools[p].n_levels;
	be->n_slots = n > 0 ? n - 1 : 0;         /* level 0 is no slot */
	be->slot_hours_per_month = fs_xcalloc(be->n_slots + 1, sizeof *be->slot_hours_per_month);
	for (r = 0; r < n_reps; r++) {
		const struct fs_pool_result *pr = &results[r]->fleet.pools[p];
		double span_ns = (double)results[r]->end_ns, above_ns = 0;

		if (!(span_ns > 0))
			continue;
		/* from the top level down: time with at least k + 1 billed */
		for (j = pr->n_levels; j-- > 1;) {
			above_ns += pr->level_ns[j];
			be->slot_hours_per_month[j - 1] += above_ns / span_ns * FS_HOURS_PER_MONTH /
			                                   n_reps;
		}
	}
	be->worth_committing = 0;
	for (k = 0; be->available && k < be->n_slots; k++)
		be->worth_committing += be->slot_hours_per_month[k] > be->hours_per_month;
}

/* MODEL: S18 — the bill times the share of saturation throughput not used
 * (none when the pool ran at or above its measured saturation). */
static double unused_usd(const struct fs_rep_result *res, size_t p)
{
	double u = fs_capacity_util_pool(res, p), usd = res->fleet.pools[p].usd;

	if (!(res->fleet.pools[p].serving_ns > 0))
		return usd;                  /* paid for, never served */
	if (isnan(u))
		return NAN;
	return usd * fmax(0.0, 1.0 - u);
}

/* Idle episodes of pool p in replication r: what = 0 count, 1 hours, 2 USD. */
static double idle_part(const struct fs_rep_result *res, size_t p, int what)
{
	struct fs_idle_episodes ep;

	fs_capacity_util_idle(res, p, &ep);
	return what == 0 ? ep.count : what == 1 ? ep.hours : ep.usd;
}

/* Capacity utilisation, unused capacity and idle episodes of pool p. */
static void build_pool_capacity(struct fs_pool_summary *ps, struct fs_rep_result *const *results,
                                int n_reps, size_t p, double *buf)
{
	int r;

	ps->saturation_rps = n_reps > 0 ? results[0]->fleet.pools[p].sat_requests_per_s : NAN;
	ps->saturation_output_tokens_per_s =
		n_reps > 0 ? results[0]->fleet.pools[p].sat_output_tokens_per_s : NAN;
	PER_REP(ps->capacity_util, fs_capacity_util_pool(results[r], p));
	PER_REP(ps->unused_capacity_usd, unused_usd(results[r], p));
	PER_REP(ps->idle_episodes, idle_part(results[r], p, 0));
	PER_REP(ps->idle_episode_hours, idle_part(results[r], p, 1));
	PER_REP(ps->idle_episode_usd, idle_part(results[r], p, 2));
}

/* Σ over pools of an idle-episode part (what as in idle_part) or, for
 * what = 3, of the unused-capacity cost. */
static double capacity_sum(const struct fs_rep_result *res, int what)
{
	double sum = 0;
	size_t p;

	for (p = 0; p < res->fleet.n_pools; p++)
		sum += what == 3 ? unused_usd(res, p) : idle_part(res, p, what);
	return sum;
}

/* MODEL: F15, F16 — shares of the availability window, and those shares
 * projected to minutes of a 730-hour month. */
static double avail_share(const struct fs_availability *a, int what)
{
	double short_share;

	if (!(a->window_ns > 0))
		return NAN;
	short_share = (what == 2 ? a->down_ns : a->short_ns) / a->window_ns;
	if (what == 0)
		return 1.0 - short_share;
	return short_share * FS_HOURS_PER_MONTH * 60.0;
}

static double min_serving(const struct fs_availability *a)
{
	return a->min_serving >= 0 ? (double)a->min_serving : NAN;
}

/* pool p's availability (p == n_pools: the fleet's) */
static const struct fs_availability *avail_of(const struct fs_fleet_result *f, size_t p)
{
	return p < f->n_pools ? &f->pools[p].avail : &f->avail;
}

static void build_avail(struct fs_avail_summary *as, struct fs_rep_result *const *results,
                        int n_reps, double *buf, size_t p)
{
	int r;

	PER_REP(as->availability, avail_share(avail_of(f, p), 0));
	PER_REP(as->outage_min_per_month, avail_share(avail_of(f, p), 1));
	PER_REP(as->down_min_per_month, avail_share(avail_of(f, p), 2));
	PER_REP(as->min_serving, min_serving(avail_of(f, p)));
	/* shares of the window: at most all of it (STATISTICS, bounds) */
	as->availability = fs_stats_ci_clip(as->availability, 0.0, 1.0);
	as->outage_min_per_month = fs_stats_ci_clip(as->outage_min_per_month, 0.0,
	                                            FS_HOURS_PER_MONTH * 60);
	as->down_min_per_month = fs_stats_ci_clip(as->down_min_per_month, 0.0,
	                                          FS_HOURS_PER_MONTH * 60);
}

static void build_pools(struct fs_summary *s, const struct fs_scenario *sc,
                        struct fs_rep_result *const *results, int n_reps, double *buf)
{
	size_t p;
	int r;

	s->n_pools = sc->fleet.n_pools;
	s->pools = fs_xcalloc(s->n_pools, sizeof *s->pools);
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_cfg *pc = &sc->fleet.pools[p];
		struct fs_pool_summary *ps = &s->pools[p];
		struct fs_perf_peaks peak = fs_perf_instance_peaks(&pc->llm->perf);

		ps->name = pc->name;
		PER_REP(ps->usd, f->pools[p].usd);
		PER_REP(ps->commit_usd, f->pools[p].commit_usd);
		PER_REP(ps->overflow_usd, f->pools[p].overflow_usd);
		PER_REP(ps->overflow_hours, f->pools[p].overflow_ns / FS_NS_PER_HOUR);
		ps->break_even = fs_summary_break_even(sc, pc);
		slot_use(&ps->break_even, results, n_reps, p);
		PER_REP(ps->idle_usd, f->pools[p].idle_usd);
		PER_REP(ps->lost_usd, f->pools[p].lost_usd);
		PER_REP(ps->instance_hours, f->pools[p].billed_ns / FS_NS_PER_HOUR);
		PER_REP(ps->alive_hours, f->pools[p].alive_ns / FS_NS_PER_HOUR);
		PER_REP(ps->busy_fraction, ratio(f->pools[p].busy_ns, f->pools[p].serving_ns));
		ps->busy_fraction = fs_stats_ci_clip(ps->busy_fraction, 0.0, 1.0);
		PER_REP(ps->kv_use, ratio(f->pools[p].kv_block_ns, f->pools[p].serving_ns *
		                          (double)f->pools[p].kv_blocks_per_instance));
		ps->kv_use = fs_stats_ci_clip(ps->kv_use, 0.0, 1.0);
		/* MODEL: S8 — achieved MFU/MBU: modelled work over iteration time. */
		PER_REP(ps->mfu, ratio(f->pools[p].flops,
		                       f->pools[p].busy_ns * 1e-9 * peak.flops_per_s));
		PER_REP(ps->mbu, ratio(f->pools[p].bytes,
		                       f->pools[p].busy_ns * 1e-9 * peak.bytes_per_s));
		PER_REP(ps->launches, (double)f->pools[p].launches);
		PER_REP(ps->failed_launches, (double)f->pools[p].failed_launches);
		PER_REP(ps->reclaims, (double)f->pools[p].reclaims);
		build_pool_capacity(ps, results, n_reps, p, buf);
		build_avail(&ps->avail, results, n_reps, buf, p);
		PER_REP(ps->reclaim_requeued, (double)f->pools[p].reclaim_requeued);
		PER_REP(ps->reclaim_failed, (double)f->pools[p].reclaim_failed);
		ps->expected_reclaims = fs_summary_expected_reclaims(sc, p);
		PER_REP(ps->scale_at_max, f->pools[p].scale_looked_ns > 0 ?
		        f->pools[p].scale_at_max_ns / f->pools[p].scale_looked_ns : 0.0);
		PER_REP(ps->scale_at_min, f->pools[p].scale_looked_ns > 0 ?
		        f->pools[p].scale_at_min_ns / f->pools[p].scale_looked_ns : 0.0);
		PER_REP(ps->relaunches_per_h, results[r]->end_ns > 0 ?
		        (double)f->pools[p].scale_relaunches /
		        ((double)results[r]->end_ns / FS_NS_PER_HOUR) : 0.0);
		PER_REP(ps->stranded, (double)f->pools[p].stranded_requests);
		PER_REP(ps->launches_per_h, results[r]->end_ns > 0 ?
		        (double)f->pools[p].launches / ((double)results[r]->end_ns / FS_NS_PER_HOUR) : 0.0);
		PER_REP(ps->idle_releases, (double)f->pools[p].idle_releases);
	}
}

/* Zone z's reclaim rate, as the world draws it: the largest of the spot
 * pools using the zone (MODEL: F9). */
static double zone_rate_per_h(const struct fs_scenario *sc, int z)
{
	double rate_per_h = 0;
	size_t p, k;

	for (p = 0; p < sc->fleet.n_pools; p++) {
		const struct fs_pool_cfg *pc = &sc->fleet.pools[p];

		for (k = 0; pc->pricing == FS_PRICING_SPOT && k < pc->n_zones; k++)
			if (pc->zones[k] == z)
				rate_per_h = fmax(rate_per_h, pc->spot.zone_reclaim_rate_per_h);
	}
	return rate_per_h;
}

/* Times within [0, horizon) at which trace t falls below the instances a
 * pool holding up to `held_max` there would have (a replay: no draw).
 * Counting stops after 10 million changes, which no shipped trace nears. */
static double trace_drops(const struct fs_capacity_trace *t, int held_max, fs_ns horizon_ns)
{
	int32_t cap = fs_capacity_at(t, 0);
	int held = cap < held_max ? cap : held_max;
	fs_ns t_ns = fs_capacity_next_change(t, 0);
	long steps = 0;
	double drops = 0;

	while (t_ns != FS_NS_MAX && t_ns < horizon_ns && steps++ < 10000000L) {
		cap = fs_capacity_at(t, t_ns);
		if (cap < held)
			drops += 1;
		held = cap < held_max ? cap : held_max;
		t_ns = fs_capacity_next_change(t, t_ns);
	}
	return drops;
}

double fs_summary_expected_reclaims(const struct fs_scenario *sc, size_t pool)
{
	const struct fs_pool_cfg *pc = &sc->fleet.pools[pool];
	double hours = (double)sc->sim.horizon_ns / FS_NS_PER_HOUR, events;
	int n = pc->count + pc->overprovision, occupied, per_zone, k;

	if (pc->pricing != FS_PRICING_SPOT)
		return NAN;
	if (n <= 0)
		return 0;
	/* MODEL: F18 */
	events = pc->spot.interrupt_rate_per_h * n * hours;
	occupied = pc->spread_zones && (size_t)n < pc->n_zones ? n :
	           pc->spread_zones ? (int)pc->n_zones : 1;
	per_zone = (n + occupied - 1) / occupied;
	for (k = 0; k < occupied; k++) {
		int z = pc->zones[k];
		const struct fs_capacity_trace *t = sc->fleet.zones[z].trace;

		events += zone_rate_per_h(sc, z) * hours;
		if (t != NULL)
			events += trace_drops(t, per_zone, sc->sim.horizon_ns);
	}
	return events;
}

bool fs_summary_pool_warning(const struct fs_summary *s, const struct fs_scenario *sc,
                             size_t pool, char *buf, size_t len)
{
	double y = pool < s->n_pools ? s->pools[pool].expected_reclaims : NAN;
	double hours = (double)sc->sim.horizon_ns / FS_NS_PER_HOUR;

	buf[0] = '\0';
	if (!(y < FS_SPOT_MIN_EXPECTED_RECLAIMS))
		return false;                        /* not spot (NAN), or enough */
	if (y > 0)
		snprintf(buf, len, "pool %s: too short to see spot risk: horizon %.4g h, "
		         "expected %.3g reclaims per replication (fewer than %.0f); lengthen "
		         "the horizon to at least %.4g h, or replay a capacity trace with "
		         "outages", s->pools[pool].name, hours, y,
		         FS_SPOT_MIN_EXPECTED_RECLAIMS, hours * FS_SPOT_MIN_EXPECTED_RECLAIMS / y);
	else
		snprintf(buf, len, "pool %s: too short to see spot risk: horizon %.4g h, "
		         "expected 0 reclaims per replication (no interruption rate, zone "
		         "reclaim rate or trace drop); its availability says nothing about "
		         "spot risk", s->pools[pool].name, hours);
	return true;
}

/* Σ over pools of f(pool result, pool config). */
static double fleet_sum(const struct fs_scenario *sc, const struct fs_fleet_result *f,
                        int what)
{
	double sum = 0;
	size_t p;

	for (p = 0; p < f->n_pools; p++) {
		const struct fs_pool_result *pr = &f->pools[p];
		struct fs_perf_peaks peak =
			fs_perf_instance_peaks(&sc->fleet.pools[p].llm->perf);

		switch (what) {
		case 0: sum += pr->busy_ns; break;
		case 1: sum += pr->serving_ns; break;
		case 2: sum += pr->flops; break;
		case 3: sum += pr->busy_ns * 1e-9 * peak.flops_per_s; break;
		case 4: sum += pr->bytes; break;
		case 5: sum += pr->busy_ns * 1e-9 * peak.bytes_per_s; break;
		case 6: sum += pr->idle_usd; break;
		case 7: sum += pr->kv_block_ns; break;
		case 8: sum += pr->serving_ns * (double)pr->kv_blocks_per_instance; break;
		case 10: sum += pr->serving_measured_ns; break;
		default: sum += pr->lost_usd; break;
		}
	}
	return sum;
}

static double usd_by_pricing(const struct fs_scenario *sc, const struct fs_fleet_result *f,
                             enum fs_pricing pricing)
{
	double usd = 0;
	size_t p;

	for (p = 0; p < f->n_pools; p++)
		if (sc->fleet.pools[p].pricing == pricing)
			usd += f->pools[p].usd;
	return usd;
}

void fs__summary_build_fleet(struct fs_summary *s, const struct fs_scenario *sc,
                             struct fs_rep_result *const *results, int n_reps, double *buf)
{
	struct fs_cost_summary *c = &s->cost;
	struct fs_rep_cost *rc;
	int r, k;

	build_pools(s, sc, results, n_reps, buf);
	build_avail(&s->avail, results, n_reps, buf, s->n_pools);
	/* MODEL: S1, S7 — the run's busy fraction: iterations that began after
	 * the warm-up over the serving time after it (to the end of a drain, E5,
	 * like the step totals); the
	 * utilization block's is the pools' over their whole serving time
	 * (S17). */
	PER_REP(s->busy_fraction, ratio(results[r]->engine.busy_ns, fleet_sum(sc, f, 10)));
	s->busy_fraction = fs_stats_ci_clip(s->busy_fraction, 0.0, 1.0);
	PER_REP(s->fleet_busy_fraction, ratio(fleet_sum(sc, f, 0), fleet_sum(sc, f, 1)));
	s->fleet_busy_fraction = fs_stats_ci_clip(s->fleet_busy_fraction, 0.0, 1.0);
	PER_REP(s->mfu, ratio(fleet_sum(sc, f, 2), fleet_sum(sc, f, 3)));
	PER_REP(s->mbu, ratio(fleet_sum(sc, f, 4), fleet_sum(sc, f, 5)));
	/* MODEL: S17 — the pools' KV use pooled over their serving time, the
	 * span of the pools' figures (the engine's kv_use is after the warm-up,
	 * S7): with one pool it is that pool's figure. */
	PER_REP(s->fleet_kv_use, ratio(fleet_sum(sc, f, 7), fleet_sum(sc, f, 8)));
	s->fleet_kv_use = fs_stats_ci_clip(s->fleet_kv_use, 0.0, 1.0);
	/* MODEL: F14 — the cost figures of each replication, computed once
	 * (fs_rep_cost_figures) for the summary and the objective alike. */
	rc = fs_xmalloc((size_t)(n_reps > 0 ? n_reps : 1) * sizeof *rc);
	for (r = 0; r < n_reps; r++)
		rc[r] = fs_rep_cost_figures(sc, results[r]);
	PER_REP(c->total_usd, rc[r].total_usd);
	c->total_usd_per_rep = fs_xmalloc((size_t)n_reps * sizeof *c->total_usd_per_rep);
	for (r = 0; r < n_reps; r++)
		c->total_usd_per_rep[r] = rc[r].total_usd;
	PER_REP(c->usd_per_hour, rc[r].usd_per_hour);
	PER_REP(c->monthly_usd, rc[r].monthly_usd);
	PER_REP(c->usd_per_1m_output_tokens, rc[r].usd_per_1m_output_tokens);
	PER_REP(c->usd_per_1k_requests, rc[r].usd_per_1k_requests);
	PER_REP(c->idle_usd, fleet_sum(sc, f, 6));
	PER_REP(c->lost_usd, fleet_sum(sc, f, 9));
	PER_REP(c->lost_usd_monthly, ratio(fleet_sum(sc, f, 9), rc[r].span_h) *
	                             FS_HOURS_PER_MONTH);
	for (k = 0; k < FS_PRICING__COUNT; k++)
		PER_REP(c->by_pricing_usd[k], usd_by_pricing(sc, f, (enum fs_pricing)k));
	PER_REP(c->requeued, (double)f->requeued);
	PER_REP(s->capacity_util, fs_capacity_util_fleet(results[r]));
	PER_REP(c->unused_capacity_usd, capacity_sum(results[r], 3));
	PER_REP(c->idle_episodes, capacity_sum(results[r], 0));
	PER_REP(c->idle_episode_hours, capacity_sum(results[r], 1));
	PER_REP(c->idle_episode_usd, capacity_sum(results[r], 2));
	free(rc);
}
