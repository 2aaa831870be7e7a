/*
 * test_billing.c — billing rules on hand-made pools: hour and second
 * rounding, the minimum charge, monthly fees charged for idle time, spot
 * prices that change inside a billed hour or after it, and start times that
 * are not zero.  Expected values are worked out by hand in the comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "fleetsim/billing.h"
#include "util_test.h"

#define S(x)   ((fs_ns)((x) * 1e9))
#define H(x)   ((fs_ns)((x) * 3600e9))

static struct fs_pool_cfg pool_of(enum fs_pricing pricing,
                                  enum fs_billing_granularity g,
                                  double usd_per_h, fs_ns minimum_ns)
{
	struct fs_pool_cfg p = {0};

	static char name[] = "p";

	p.name = name;
	p.pricing = pricing;
	p.price_usd_per_h = usd_per_h;
	p.billing.granularity = g;
	p.billing.minimum_ns = minimum_ns;
	p.fallback_pool = -1;
	return p;
}

static void test_billing_hour_rounds_up(void **state)
{
	struct fs_pool_cfg p = pool_of(FS_PRICING_ON_DEMAND, FS_BILL_PER_HOUR, 3.0, 0);

	(void)state;
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, S(1)), H(1));
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, S(3600)), H(1));
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, S(3601)), H(2));
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, H(1) + 1), H(2));
	assert_near(fs_billing_usage_usd(&p, 0, S(1)), 3.0, 1e-12, 0);
	assert_near(fs_billing_usage_usd(&p, 0, S(3601)), 6.0, 1e-12, 0);
}

static void test_billing_second_rounds_up(void **state)
{
	struct fs_pool_cfg p = pool_of(FS_PRICING_ON_DEMAND, FS_BILL_PER_SECOND, 3.6, 0);

	(void)state;
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, S(1.2)), S(2));
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, S(2)), S(2));
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, 1), S(1));
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, 0), 0);
	/* 2 s at 3.6 USD/h = 0.002 USD */
	assert_near(fs_billing_usage_usd(&p, 0, S(1.2)), 0.002, 1e-15, 0);
}

static void test_billing_minimum_charge(void **state)
{
	struct fs_pool_cfg p = pool_of(FS_PRICING_ON_DEMAND, FS_BILL_PER_SECOND, 3.6, S(60));

	(void)state;
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, S(10)), S(60));
	assert_int_equal(fs_billing_billed_ns(&p.billing, 0, S(61.5)), S(62));
	/* an instance that never lived still pays the minimum */
	assert_int_equal(fs_billing_billed_ns(&p.billing, S(5), S(5)), S(60));
	/* 60 s at 3.6 USD/h = 0.06 USD */
	assert_near(fs_billing_usage_usd(&p, 0, S(10)), 0.06, 1e-15, 0);
}

static void test_billing_monthly_fee_charges_idle_time(void **state)
{
	struct fs_pool_cfg p = pool_of(FS_PRICING_MONTHLY, FS_BILL_PER_HOUR, 0.0, 0);

	(void)state;
	p.commit_fee = 7300.0;
	p.count = 1;
	/* 24 h of a 730 h month: 7300 x 24 / 730 = 240 USD, used or not */
	assert_near(fs_billing_commit_usd(&p, H(24)), 240.0, 1e-9, 0);
	assert_near(fs_billing_commit_usd(&p, H(730)), 7300.0, 1e-9, 0);
	assert_near(fs_billing_commit_usd(&p, 0), 0.0, 0, 0);
	/* the commitment is per instance: 3 instances pay three times */
	p.count = 3;
	assert_near(fs_billing_commit_usd(&p, H(24)), 720.0, 1e-9, 0);
	/* an overflow instance is usage at the overflow price, rounded up to
	 * whole hours here: 1.5 h -> 2 h x 2.5 */
	p.overflow_usd_per_h = 2.5;
	assert_near(fs_billing_usage_usd(&p, 0, S(5400)), 5.0, 1e-12, 0);
}

static void test_billing_plan_periods_and_catalogue_fees(void **state)
{
	const struct fs_gpu_spec *l40s = fs_catalog_find_gpu("l40s");

	(void)state;
	assert_non_null(l40s);
	assert_int_equal(fs_pricing_period_ns(FS_PRICING_DAILY), H(24));
	assert_int_equal(fs_pricing_period_ns(FS_PRICING_WEEKLY), H(168));
	assert_int_equal(fs_pricing_period_ns(FS_PRICING_MONTHLY), H(730));
	assert_int_equal(fs_pricing_period_ns(FS_PRICING_YEARLY), H(8760));
	assert_true(fs_pricing_committed(FS_PRICING_DAILY));
	assert_false(fs_pricing_committed(FS_PRICING_SPOT));
	/* MODEL: B7 — shares of on-demand x the period */
	assert_near(fs_billing_catalog_fee(l40s, FS_PRICING_DAILY), 1.40 * 24 * 0.85, 1e-9, 0);
	assert_near(fs_billing_catalog_fee(l40s, FS_PRICING_WEEKLY), 1.40 * 168 * 0.75, 1e-9, 0);
	assert_near(fs_billing_catalog_fee(l40s, FS_PRICING_MONTHLY), 1.40 * 730 * 0.60, 1e-9, 0);
	assert_near(fs_billing_catalog_fee(l40s, FS_PRICING_YEARLY), 1.40 * 8760 * 0.53, 1e-9, 0);
	/* MODEL: B8 — 613.20 per month against 1.40/h: 438 h; never below 0 */
	assert_near(fs_billing_break_even_h_per_month(613.2, H(730), 1.40), 438.0, 1e-9, 0);
	assert_near(fs_billing_break_even_h_per_month(24, H(24), 2.0), 365.0, 1e-9, 0);
	assert_true(isinf(fs_billing_break_even_h_per_month(24, H(24), 0.0)));
}

static void test_billing_spot_price_change_mid_hour(void **state)
{
	struct fs_pool_cfg p = pool_of(FS_PRICING_SPOT, FS_BILL_PER_HOUR, 1.0, 0);
	struct fs_price_step steps[] = {{0, 1.0}, {S(1800), 3.0}};

	(void)state;
	p.price_steps = steps;
	p.n_price_steps = 2;
	assert_near(fs_billing_price_at(&p, S(1799)), 1.0, 0, 0);
	assert_near(fs_billing_price_at(&p, S(1800)), 3.0, 0, 0);
	/* 10 min alive -> 1 h billed: 0.5 h x 1.0 + 0.5 h x 3.0 = 2.0 USD */
	assert_near(fs_billing_usage_usd(&p, 0, S(600)), 2.0, 1e-12, 0);
}

static void test_billing_price_change_after_span_ignored(void **state)
{
	struct fs_pool_cfg p = pool_of(FS_PRICING_SPOT, FS_BILL_PER_SECOND, 2.0, 0);
	struct fs_price_step steps[] = {{H(1), 100.0}};

	(void)state;
	p.price_steps = steps;
	p.n_price_steps = 1;
	/* before the first step: the base price */
	assert_near(fs_billing_price_at(&p, 0), 2.0, 0, 0);
	/* 30 min ends before the change: 0.5 h x 2.0 */
	assert_near(fs_billing_usage_usd(&p, 0, S(1800)), 1.0, 1e-12, 0);
	/* billed span [0, 1 h) ends exactly at the change: still 2.0 */
	assert_near(fs_billing_usage_usd(&p, 0, H(1)), 2.0, 1e-12, 0);
}

static void test_billing_nonzero_start(void **state)
{
	struct fs_pool_cfg p = pool_of(FS_PRICING_SPOT, FS_BILL_PER_HOUR, 1.0, 0);
	struct fs_price_step steps[] = {{H(10), 2.0}, {H(10.5), 4.0}, {H(12), 8.0}};

	(void)state;
	p.price_steps = steps;
	p.n_price_steps = 3;
	/* alive [10.25 h, 10.75 h + 1 s) -> 1 h billed from 10.25 h:
	 * 0.25 h x 2 + 0.75 h x 4 = 3.5 USD */
	assert_int_equal(fs_billing_billed_ns(&p.billing, H(10.25), H(10.75) + S(1)), H(1));
	assert_near(fs_billing_usage_usd(&p, H(10.25), H(10.75) + S(1)), 3.5, 1e-12, 0);
	/* alive [9.5 h, 11 h) -> 2 h billed to 11.5 h:
	 * 0.5 x 1 + 0.5 x 2 + 1.0 x 4 = 5.5 USD (the 12 h step is past the span) */
	assert_near(fs_billing_usage_usd(&p, H(9.5), H(11)), 5.5, 1e-12, 0);
	/* alive [11.5 h, 12.5 h) -> 1 h: 0.5 x 4 + 0.5 x 8 = 6 USD */
	assert_near(fs_billing_usage_usd(&p, H(11.5), H(12.5)), 6.0, 1e-12, 0);
	/* monthly fees do not depend on the start either */
	p.pricing = FS_PRICING_MONTHLY;
	p.commit_fee = 730.0;
	p.count = 1;
	assert_near(fs_billing_commit_usd(&p, H(13.5) - H(12.5)), 1.0, 1e-12, 0);
}

static void test_billing_duplicate_step_times_take_last(void **state)
{
	struct fs_pool_cfg p = pool_of(FS_PRICING_SPOT, FS_BILL_PER_HOUR, 1.0, 0);
	struct fs_price_step steps[] = {{S(1800), 5.0}, {S(1800), 3.0}};

	(void)state;
	p.price_steps = steps;
	p.n_price_steps = 2;
	assert_near(fs_billing_price_at(&p, S(1800)), 3.0, 0, 0);
	assert_near(fs_billing_usage_usd(&p, 0, S(1)), 2.0, 1e-12, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_billing_hour_rounds_up),
		cmocka_unit_test(test_billing_second_rounds_up),
		cmocka_unit_test(test_billing_minimum_charge),
		cmocka_unit_test(test_billing_monthly_fee_charges_idle_time),
		cmocka_unit_test(test_billing_plan_periods_and_catalogue_fees),
		cmocka_unit_test(test_billing_spot_price_change_mid_hour),
		cmocka_unit_test(test_billing_price_change_after_span_ignored),
		cmocka_unit_test(test_billing_nonzero_start),
		cmocka_unit_test(test_billing_duplicate_step_times_take_last),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
