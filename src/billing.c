/*
 * billing.c — what an instance costs (see billing.h).  Pure functions of a
 * pool's prices and billing rules: the alive span is rounded up to the billing
 * granularity and to the minimum charge, then the piecewise-constant price is
 * integrated over the billed span in nanoseconds.  MONTHLY pools cost a fee
 * per instance-month instead, whether used or not.  No state, no allocation.
 */
#include "fleetsim/billing.h"

#include <assert.h>

#define NS_PER_H (INT64_C(3600) * FS_NS_PER_S)

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
 * USD of an ON_DEMAND or SPOT instance alive over [start_ns, end_ns): the
 * price integrated over [start_ns, start_ns + billed span).  Each constant
 * piece is charged as price x piece_ns / 3600 s, so a change in the middle of
 * a billed hour is charged pro rata; changes after the billed span are never
 * reached.  0 for MONTHLY.  O(log steps + steps inside the span).
 */
double fs_billing_usage_usd(const struct fs_pool_cfg *pool, fs_ns start_ns, fs_ns end_ns)
{
	fs_ns stop_ns, cur_ns = start_ns;
	double usd = 0.0;
	long i;

	if (pool->pricing == FS_PRICING_MONTHLY)          /* MODEL: B5 */
		return 0.0;
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

/*
 * USD of one MONTHLY instance held over span_ns, used or not: monthly_usd x
 * span / 730 h (a month is 365 x 24 / 12 hours).  Negative spans cost 0.
 */
double fs_billing_monthly_usd(const struct fs_pool_cfg *pool, fs_ns span_ns)
{
	if (span_ns <= 0)
		return 0.0;
	/* MODEL: B4 */
	return pool->monthly_usd * ((double)span_ns / (double)NS_PER_H) / FS_HOURS_PER_MONTH;
}
