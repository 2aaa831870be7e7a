/*
 * billing.h — what an instance costs.  Pure functions of a pool's prices and
 * billing rules and an instance's billed span: per-second or per-hour
 * rounding with a minimum charge, a price that may change over time (spot),
 * and monthly fees charged whether the instance is used or not.  No state.
 */
#ifndef FLEETSIM_BILLING_H
#define FLEETSIM_BILLING_H

#include "fleetsim/common.h"
#include "fleetsim/fleet_cfg.h"

#define FS_HOURS_PER_MONTH 730.0     /* 365 x 24 / 12 */

/* The pool's per-instance price (USD per hour) in effect at t_ns. */
double fs_billing_price_at(const struct fs_pool_cfg *pool, fs_ns t_ns);

/* The span actually billed for an instance alive over [start_ns, end_ns):
 * rounded up to whole seconds or whole hours, and at least the minimum. */
fs_ns fs_billing_billed_ns(const struct fs_billing_cfg *billing, fs_ns start_ns,
                           fs_ns end_ns);

/*
 * USD for an ON_DEMAND or SPOT instance alive over [start_ns, end_ns): the
 * price integrated over [start_ns, start_ns + billed span), so a price change
 * in the middle of a billed hour is charged pro rata.  0 for MONTHLY pools
 * (see fs_billing_monthly_usd).
 */
double fs_billing_usage_usd(const struct fs_pool_cfg *pool, fs_ns start_ns, fs_ns end_ns);

/* USD of one MONTHLY instance over a span of span_ns, used or not:
 * monthly_usd x span / (730 h). */
double fs_billing_monthly_usd(const struct fs_pool_cfg *pool, fs_ns span_ns);

#endif
