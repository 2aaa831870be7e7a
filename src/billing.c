/*
 * billing.c — what an instance costs (see billing.h).  Pure functions of a
 * pool's prices and billing rules: the alive span is rounded up to the billing
 * granularity and to the minimum charge, then the piecewise-constant price is
 * integrated over the billed span in nanoseconds.  Committed plans (daily,
 * weekly, monthly, yearly) cost a fee per instance-period for `count`
 * instances instead, whether used or not, and their overflow instances are
 * billed as usage at the overflow price.  No state, no allocation.
 */
#include "fleetsim/billing.h"

#include <assert.h>
#include <math.h>

#define NS_PER_H (INT64_C(3600) * FS_NS_PER_S)

/*
 * MODEL: B7 — catalogue fees of the plans the catalogue has no quote for, as
 * a share of on-demand x the period's hours.  Yearly: 47% off, the AWS 1-year
 * partial-upfront p5 example (S42; 35-40% off for 1-year H100 elsewhere, S43).
 * Weekly: 25% off, inside the 20-30% always-on discount of RunPod's "active"
 * workers over pay-per-use (S39).  Daily: 15% off, an assumption between no
 * discount and the weekly one (no published daily-rental anchor was found,
 * ../shared/reference/gpu_facts.md §2.1).  Monthly uses the GPU's own catalogue
 * figure (on-demand x 0.60 x 730 h, S42/S43).  Examples, always overridable.
 */
#define DAILY_SHARE 0.85
#define WEEKLY_SHARE 0.75
#define YEARLY_SHARE 0.53

FS_ENUM_FUNCS(enum fs_pricing, FS_PRICING_MAP, FS_ENUM_ID_AT, FS_ENUM_NAME_AT,
              fs_pricing_name, fs_pricing_from_name, "?")

const char *fs_pricing_label(enum fs_pricing p)
{
	switch (p) {
	case FS_PRICING_ON_DEMAND: return "hourly (on demand)";
	case FS_PRICING_SPOT:      return "hourly spot";
	case FS_PRICING_MONTHLY:   return "monthly commitment";
	case FS_PRICING_DAILY:     return "daily rental";
	case FS_PRICING_WEEKLY:    return "weekly rental";
	case FS_PRICING_YEARLY:    return "yearly commitment";
	case FS_PRICING__COUNT:    break;
	}
	return "?";
}

bool fs_pricing_committed(enum fs_pricing p)
{
	return p == FS_PRICING_MONTHLY || p == FS_PRICING_DAILY || p == FS_PRICING_WEEKLY ||
	       p == FS_PRICING_YEARLY;
}

fs_ns fs_pricing_period_ns(enum fs_pricing p)
{
	switch (p) {
	case FS_PRICING_ON_DEMAND:
	case FS_PRICING_SPOT:
	case FS_PRICING__COUNT:
		break;
	case FS_PRICING_DAILY:   return 24 * NS_PER_H;
	case FS_PRICING_WEEKLY:  return 168 * NS_PER_H;
	case FS_PRICING_MONTHLY: return (fs_ns)FS_HOURS_PER_MONTH * NS_PER_H;
	case FS_PRICING_YEARLY:  return 8760 * NS_PER_H;
	}
	return NS_PER_H;
}

double fs_billing_catalog_fee(const struct fs_gpu_spec *gpu, enum fs_pricing p)
{
	double od = gpu->price_on_demand_usd_per_h;
	double hours = (double)fs_pricing_period_ns(p) / (double)NS_PER_H;

	switch (p) {
	case FS_PRICING_ON_DEMAND: return od;
	case FS_PRICING_SPOT:      return gpu->price_spot_usd_per_h;
	case FS_PRICING_MONTHLY:   return gpu->price_monthly_usd;
	case FS_PRICING_DAILY:     return od * hours * DAILY_SHARE;     /* MODEL: B7 */
	case FS_PRICING_WEEKLY:    return od * hours * WEEKLY_SHARE;    /* MODEL: B7 */
	case FS_PRICING_YEARLY:    return od * hours * YEARLY_SHARE;    /* MODEL: B7 */
	case FS_PRICING__COUNT:    break;
	}
	return 0.0;
}

/* a + b without overflow past FS_NS_MAX (b >= 0). */
static fs_ns add_sat(fs_ns a, fs_ns b)
{
	return a > FS_NS_MAX - b ? FS_NS_MAX : a + b;
}

/* ceil(x / unit) * unit for x >= 0, saturating. */
static fs_ns round_up(fs_ns x, fs_ns unit)
{
	fs_ns whole = x / unit;

	if (x % unit != 0)
		whole++;
	return whole > FS_NS_MAX / unit ? FS_NS_MAX : whole * unit;
}

/* Index of the last price step with at_ns <= t_ns, or -1 when t_ns is before
 * the first step (or there are none).  Binary search: O(log steps). */
static long step_at(const struct fs_pool_cfg *pool, fs_ns t_ns)
{
	size_t lo = 0, hi = pool->n_price_steps;   /* answer in [lo, hi) + 1 */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pool->price_steps[mid].at_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/*
 * The price in effect at t_ns: the last step at or before t_ns; before the
 * first step, and without steps, the pool's base price.  MODEL: B3
 */
double fs_billing_price_at(const struct fs_pool_cfg *pool, fs_ns t_ns)
{
	long i = step_at(pool, t_ns);

	return i < 0 ? pool->price_usd_per_h : pool->price_steps[i].usd_per_h;
}

/*
 * The billed span of an instance alive over [start_ns, end_ns): whole
 * seconds or whole hours, rounded up, and at least billing->minimum_ns.  A
 * span with end before start counts as 0 alive (only the minimum is billed).
 */
fs_ns fs_billing_billed_ns(const struct fs_billing_cfg *billing, fs_ns start_ns,
                           fs_ns end_ns)
{
	fs_ns alive_ns = end_ns > start_ns ? end_ns - start_ns : 0;
	fs_ns billed_ns = 0;

	switch (billing->granularity) {
	case FS_BILL_PER_SECOND:
		billed_ns = round_up(alive_ns, FS_NS_PER_S);   /* MODEL: B1 */
		break;
	case FS_BILL_PER_HOUR:
		billed_ns = round_up(alive_ns, NS_PER_H);       /* MODEL: B1 */
		break;
	}
	if (billed_ns < billing->minimum_ns)                /* MODEL: B2 */
		billed_ns = billing->minimum_ns;
	return billed_ns;
}

/*
 * Usage charge of an instance alive over [start_ns, end_ns): the price
 * integrated over [start_ns, start_ns + billed span).  Each constant piece is
 * charged as price x piece_ns / 3600 s, so a change in the middle of a billed
 * hour is charged pro rata; changes after the billed span are never reached.
 * A committed pool's instance here is overflow: its price is the overflow
 * price.  O(log steps + steps inside the span).
 */
double fs_billing_usage_usd(const struct fs_pool_cfg *pool, fs_ns start_ns, fs_ns end_ns)
{
	fs_ns stop_ns, cur_ns = start_ns;
	double usd = 0.0;
	long i;

	if (fs_pricing_committed(pool->pricing))           /* MODEL: B6 */
		return pool->overflow_usd_per_h *
		       (double)fs_billing_billed_ns(&pool->billing, start_ns, end_ns) /
		       (double)NS_PER_H;
	/* MODEL: B5 */
	stop_ns = add_sat(start_ns, fs_billing_billed_ns(&pool->billing, start_ns, end_ns));
	i = step_at(pool, start_ns);
	while (cur_ns < stop_ns) {                         /* MODEL: B3 */
		double price;
		fs_ns next_ns = stop_ns;

		/* steps sharing one at_ns: the last of them is in effect */
		while ((size_t)(i + 1) < pool->n_price_steps &&
		       pool->price_steps[i + 1].at_ns <= cur_ns)
			i++;
		price = i < 0 ? pool->price_usd_per_h : pool->price_steps[i].usd_per_h;
		if ((size_t)(i + 1) < pool->n_price_steps &&
		    pool->price_steps[i + 1].at_ns < stop_ns)
			next_ns = pool->price_steps[i + 1].at_ns;
		assert(next_ns > cur_ns);
		usd += price * (double)(next_ns - cur_ns) / (double)NS_PER_H;
		cur_ns = next_ns;
	}
	return usd;
}

/* count x fee x span / period, used or not; no rounding, no minimum. */
double fs_billing_commit_usd(const struct fs_pool_cfg *pool, fs_ns span_ns)
{
	if (span_ns <= 0 || !fs_pricing_committed(pool->pricing))
		return 0.0;
	/* MODEL: B4 */
	return pool->commit_fee * pool->count *
	       ((double)span_ns / (double)fs_pricing_period_ns(pool->pricing));
}

double fs_billing_break_even_h_per_month(double fee, fs_ns period_ns, double hourly_price)
{
	if (!(hourly_price > 0) || period_ns <= 0)
		return INFINITY;
	/* MODEL: B8 */
	return fee * (FS_HOURS_PER_MONTH * (double)NS_PER_H / (double)period_ns) / hourly_price;
}
