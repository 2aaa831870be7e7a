/*
 * summary_fleet.c — the fleet's figures across replications: cost (total,
 * per hour, per 1M output tokens, per 1k requests, idle, lost to spot
 * reclaims, by pricing mode, projected monthly) and per-pool use (busy
 * fraction, KV use, achieved MFU/MBU, launches, reclaims), availability of
 * each pool and of the fleet, and the reclaims a spot pool should expect.
 * Each figure is computed per replication from its fleet result, then given
 * a Student-t CI.
 */
#include <math.h>
#include <stdio.h>

#include "fleetsim/billing.h"
#include "fleetsim/capacity.h"
#include "fleetsim/perf.h"
#include "fleetsim/summary.h"

const char *fs_pricing_name(enum fs_pricing p)
{
	switch (p) {
	case FS_PRICING_ON_DEMAND: return "on_demand";
	case FS_PRICING_SPOT:      return "spot";
	case FS_PRICING_MONTHLY:   return "monthly";
	}
	return "?";
}

static double ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

static double total_usd(const struct fs_fleet_result *f)
{
	double usd = 0;
	size_t p;

	for (p = 0; p < f->n_pools; p++)
		usd += f->pools[p].usd;
	return usd;
}

/* Peak FLOP/s and bandwidth of one instance of pool p (TP GPUs). */
static void pool_peaks(const struct fs_pool_cfg *pc, double *flops_per_s, double *bytes_per_s)
{
	*flops_per_s = fs_perf_peak_flops_per_s(&pc->llm->perf) * pc->llm->perf.tp;
	*bytes_per_s = pc->llm->perf.gpu->mem_bw_bytes_per_s * pc->llm->perf.tp;
}

#define PER_REP(dst, expr) \
	do { \
		for (r = 0; r < n_reps; r++) { \
			const struct fs_fleet_result *f = &results[r]->fleet; \
			(void)f; \
			buf[r] = (expr); \
		} \
		(dst) = fs_stats_mean_ci(buf, (size_t)n_reps, 0.95); \
	} while (0)

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
		double peak_flops, peak_bytes;

		pool_peaks(pc, &peak_flops, &peak_bytes);
		ps->name = pc->name;
		PER_REP(ps->usd, f->pools[p].usd);
		PER_REP(ps->idle_usd, f->pools[p].idle_usd);
		PER_REP(ps->lost_usd, f->pools[p].lost_usd);
		PER_REP(ps->instance_hours, f->pools[p].alive_ns / 3600e9);
		PER_REP(ps->busy_fraction, ratio(f->pools[p].busy_ns, f->pools[p].serving_ns));
		PER_REP(ps->kv_use, ratio(f->pools[p].kv_block_ns, f->pools[p].serving_ns *
		                          (double)f->pools[p].kv_blocks_per_instance));
		/* MODEL: S8 — achieved MFU/MBU: modelled work over iteration time. */
		PER_REP(ps->mfu, ratio(f->pools[p].flops, f->pools[p].busy_ns * 1e-9 * peak_flops));
		PER_REP(ps->mbu, ratio(f->pools[p].bytes, f->pools[p].busy_ns * 1e-9 * peak_bytes));
		PER_REP(ps->launches, (double)f->pools[p].launches);
		PER_REP(ps->failed_launches, (double)f->pools[p].failed_launches);
		PER_REP(ps->reclaims, (double)f->pools[p].reclaims);
		build_avail(&ps->avail, results, n_reps, buf, p);
		PER_REP(ps->reclaim_requeued, (double)f->pools[p].reclaim_requeued);
		PER_REP(ps->reclaim_failed, (double)f->pools[p].reclaim_failed);
		ps->expected_reclaims = fs_summary_expected_reclaims(sc, p);
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
	double hours = (double)sc->sim.horizon_ns / 3600e9, events;
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
	double hours = (double)sc->sim.horizon_ns / 3600e9;

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
	double sum = 0, peak_flops, peak_bytes;
	size_t p;

	for (p = 0; p < f->n_pools; p++) {
		const struct fs_pool_result *pr = &f->pools[p];

		pool_peaks(&sc->fleet.pools[p], &peak_flops, &peak_bytes);
		switch (what) {
		case 0: sum += pr->busy_ns; break;
		case 1: sum += pr->serving_ns; break;
		case 2: sum += pr->flops; break;
		case 3: sum += pr->busy_ns * 1e-9 * peak_flops; break;
		case 4: sum += pr->bytes; break;
		case 5: sum += pr->busy_ns * 1e-9 * peak_bytes; break;
		case 6: sum += pr->idle_usd; break;
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
	double hours = (double)sc->sim.horizon_ns / 3600e9;
	int r, k;

	build_pools(s, sc, results, n_reps, buf);
	build_avail(&s->avail, results, n_reps, buf, s->n_pools);
	PER_REP(s->busy_fraction, ratio(fleet_sum(sc, f, 0), fleet_sum(sc, f, 1)));
	PER_REP(s->mfu, ratio(fleet_sum(sc, f, 2), fleet_sum(sc, f, 3)));
	PER_REP(s->mbu, ratio(fleet_sum(sc, f, 4), fleet_sum(sc, f, 5)));
	/* MODEL: F14 — cost figures cover the whole horizon, warm-up included,
	 * and so do their denominators (all completions and their tokens). */
	PER_REP(c->total_usd, total_usd(f));
	PER_REP(c->usd_per_hour, total_usd(f) / hours);
	PER_REP(c->monthly_usd, total_usd(f) / hours * FS_HOURS_PER_MONTH);
	PER_REP(c->usd_per_1m_output_tokens,
	        ratio(total_usd(f), (double)f->all_output_tokens / 1e6));
	PER_REP(c->usd_per_1k_requests, ratio(total_usd(f), (double)f->all_completed / 1e3));
	PER_REP(c->idle_usd, fleet_sum(sc, f, 6));
	PER_REP(c->lost_usd, fleet_sum(sc, f, 7));
	PER_REP(c->lost_usd_monthly, fleet_sum(sc, f, 7) / hours * FS_HOURS_PER_MONTH);
	for (k = 0; k < 3; k++)
		PER_REP(c->by_pricing_usd[k], usd_by_pricing(sc, f, (enum fs_pricing)k));
	PER_REP(c->requeued, (double)f->requeued);
}
