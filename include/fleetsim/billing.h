/*
 * billing.h — what an instance costs, and what the pricing plans imply.  Pure
 * functions of a pool's prices and billing rules and an instance's billed
 * span: per-second or per-hour rounding with a minimum charge, a price that
 * may change over time (spot), commitments (daily, weekly, monthly, yearly)
 * paid whether used or not, the overflow above a commitment, catalogue
 * default fees per plan, and the break-even use of a commitment.  No state.
 * Money is in the scenario's currency (the catalogue's defaults are USD).
 */
#ifndef FLEETSIM_BILLING_H
#define FLEETSIM_BILLING_H

#include <stdbool.h>

#include "fleetsim/catalog.h"
#include "fleetsim/common.h"
#include "fleetsim/fleet_cfg.h"

#define FS_HOURS_PER_MONTH 730.0     /* 365 x 24 / 12 */

/* "on_demand", "spot", "monthly", "daily", "weekly", "yearly". */
const char *fs_pricing_name(enum fs_pricing p);
/* The plan named `name` (exact) into *out: 0, or -1 when none (*out untouched). */
int fs_pricing_from_name(const char *name, enum fs_pricing *out);

/* A few words for outputs: "hourly (on demand)", "monthly commitment", ... */
const char *fs_pricing_label(enum fs_pricing p);

/* True for the plans that pay `count` instances for the whole horizon. */
bool fs_pricing_committed(enum fs_pricing p);

/* The period a committed plan's fee is for (24 h, 168 h, 730 h, 8760 h);
 * 1 h for the usage plans, whose price is per hour. */
fs_ns fs_pricing_period_ns(enum fs_pricing p);

/*
 * The catalogue's example fee of one GPU on plan p, per period of the plan
 * (per hour for on-demand and spot): the GPU's own figure for on-demand,
 * spot and monthly, and on-demand x period x the plan's factor for daily,
 * weekly and yearly (MODEL: B7).  0 when the catalogue has no anchor.
 */
double fs_billing_catalog_fee(const struct fs_gpu_spec *gpu, enum fs_pricing p);

/* The pool's per-instance price per hour in effect at t_ns (usage plans;
 * 0 for the committed instances of a committed plan). */
double fs_billing_price_at(const struct fs_pool_cfg *pool, fs_ns t_ns);

/* The span actually billed for an instance alive over [start_ns, end_ns):
 * rounded up to whole seconds or whole hours, and at least the minimum. */
fs_ns fs_billing_billed_ns(const struct fs_billing_cfg *billing, fs_ns start_ns,
                           fs_ns end_ns);

/*
 * Usage charge of an instance alive over [start_ns, end_ns): the price
 * integrated over [start_ns, start_ns + billed span), so a price change in
 * the middle of a billed hour is charged pro rata.  For a committed plan
 * this is an overflow instance, charged at pool->overflow_usd_per_h with the
 * pool's rounding and minimum (MODEL: B6).
 */
double fs_billing_usage_usd(const struct fs_pool_cfg *pool, fs_ns start_ns, fs_ns end_ns);

/* The commitment of a committed pool over span_ns, used or not:
 * count x fee x span / period (MODEL: B4).  0 for usage plans and for
 * negative spans. */
double fs_billing_commit_usd(const struct fs_pool_cfg *pool, fs_ns span_ns);

/*
 * Break-even of a commitment (MODEL: B8): the hours per 730-hour month an
 * instance must be used for a fee of `fee` per `period_ns` to cost less than
 * renting it by the hour at `hourly_price`: fee x (730 h / period) /
 * hourly_price.  INFINITY when hourly_price is 0; above 730 the commitment
 * never pays off.
 */
double fs_billing_break_even_h_per_month(double fee, fs_ns period_ns, double hourly_price);

#endif
