/*
 * test_autoscale.c — the autoscaler's decision on hand-made inputs: scale-out
 * in proportion to the metric, the scale-out cooldown, no scale-in inside the
 * hysteresis band, scale-in after its cooldown, scheduled minimums by hour
 * (wrapping at 24), idle release one instance at a time, and the clamps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fleetsim/autoscale.h"
#include "util_test.h"

#define S(x) ((fs_ns)((x) * 1e9))

/* Target 4 waiting per instance, scale in below 4 x 0.5 = 2, cooldowns
 * 60 s out and 300 s in, no schedule, no idle release; pool 1..20. */
static void setup_cfg(struct fs_autoscale_cfg *cfg, struct fs_pool_cfg *pool)
{
	*cfg = (struct fs_autoscale_cfg){0};
	cfg->enabled = true;
	cfg->metric = FS_SCALE_QUEUE_LEN;
	cfg->target = 4.0;
	cfg->scale_in_below = 0.5;
	cfg->interval_ns = S(30);
	cfg->cooldown_out_ns = S(60);
	cfg->cooldown_in_ns = S(300);
	*pool = (struct fs_pool_cfg){0};
	pool->min_count = 1;
	pool->max_count = 20;
	pool->fallback_pool = -1;
}

static struct fs_autoscale_input input(double t_s, int current, double metric, double busy)
{
	struct fs_autoscale_input in = {0};

	in.now_ns = S(t_s);
	in.clock_hour = 12.0;
	in.current = current;
	in.metric = metric;
	in.busy = busy;
	return in;
}

static void test_autoscale_scale_out_proportional(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_autoscale_input in = input(1000, 3, 10.0, 0.9);

	(void)state;
	setup_cfg(&cfg, &pool);
	fs_autoscale_state_init(&st);
	/* ceil(3 x 10 / 4) = ceil(7.5) = 8 */
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 8);
	assert_int_equal(st.last_out_ns, S(1000));
	assert_int_equal(st.last_in_ns, S(1000));
	/* slightly above target still adds at least one */
	fs_autoscale_state_init(&st);
	in = input(1000, 3, 4.1, 0.9);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	/* an empty pool with waiting work gets one */
	fs_autoscale_state_init(&st);
	pool.min_count = 0;
	in = input(1000, 0, 5.0, 0.0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 1);
}

static void test_autoscale_no_second_scale_out_within_cooldown(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_autoscale_input in = input(1000, 2, 8.0, 1.0);

	(void)state;
	setup_cfg(&cfg, &pool);
	fs_autoscale_state_init(&st);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	in = input(1059, 4, 8.0, 1.0);          /* 59 s later: inside cooldown_out */
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	assert_int_equal(st.last_out_ns, S(1000));
	in = input(1060, 4, 8.0, 1.0);          /* 60 s later: allowed */
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 8);
	assert_int_equal(st.last_out_ns, S(1060));
}

static void test_autoscale_no_scale_in_inside_hysteresis_band(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	const double band[] = {2.0, 2.5, 3.9, 4.0};   /* [target x 0.5, target] */

	(void)state;
	setup_cfg(&cfg, &pool);
	fs_autoscale_state_init(&st);
	for (size_t i = 0; i < sizeof band / sizeof band[0]; i++) {
		struct fs_autoscale_input in = input(5000.0 + 30.0 * (double)i, 6, band[i], 0.5);

		assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 6);
	}
	assert_true(st.last_in_ns < 0);
}

static void test_autoscale_scale_in_after_cooldown(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_autoscale_input in = input(1000, 2, 8.0, 1.0);

	(void)state;
	setup_cfg(&cfg, &pool);
	fs_autoscale_state_init(&st);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	/* the load vanishes: no scale-in within 300 s of the scale-out */
	in = input(1299, 4, 0.5, 0.1);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	in = input(1300, 4, 0.5, 0.1);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 3);   /* by one */
	assert_int_equal(st.last_in_ns, S(1300));
	assert_int_equal(st.last_out_ns, S(1000));
	in = input(1330, 3, 0.5, 0.1);          /* and again only after 300 s */
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 3);
	in = input(1600, 3, 0.5, 0.1);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 2);
}

static void test_autoscale_schedule_minimum_by_hour(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_scale_step day[] = {{7.0, 6}, {20.0, 2}};
	struct fs_autoscale_input in = input(1000, 3, 3.0, 0.5);   /* in the band */

	(void)state;
	setup_cfg(&cfg, &pool);
	cfg.schedule = day;
	cfg.n_schedule = 2;
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 8.0), 6);
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 3.0), 2);    /* wraps: 20 h step */
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 7.0), 6);
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 21.0), 2);
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 32.0), 6);   /* 8 h next day */
	fs_autoscale_state_init(&st);
	in.clock_hour = 8.0;
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 6);
	in.clock_hour = 3.0;
	in.current = 6;
	in.metric = 1.0;                        /* below the band, but cooldown_in */
	in.now_ns = S(1030);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 6);
	in.now_ns = S(1400);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 5);
	cfg.n_schedule = 0;
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 8.0), 0);
}

static void test_autoscale_idle_release_after_idle_for(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_autoscale_input in;

	(void)state;
	setup_cfg(&cfg, &pool);
	cfg.idle_busy_below = 0.1;
	cfg.idle_for_ns = S(600);
	fs_autoscale_state_init(&st);
	/* metric inside the band, so only idle release can scale in */
	in = input(0, 5, 3.0, 0.05);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 5);
	assert_int_equal(st.idle_since_ns, 0);
	in = input(599, 5, 3.0, 0.05);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 5);
	in = input(600, 5, 3.0, 0.05);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	assert_int_equal(st.idle_since_ns, S(600));   /* the timer restarts */
	in = input(900, 4, 3.0, 0.05);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	/* a busy interval stops the timer; idle again starts it afresh */
	in = input(1000, 4, 3.0, 0.5);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	assert_int_equal(st.idle_since_ns, -1);
	in = input(1100, 4, 3.0, 0.0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	in = input(1699, 4, 3.0, 0.0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 4);
	in = input(1700, 4, 3.0, 0.0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 3);
	/* never below the pool minimum */
	pool.min_count = 3;
	in = input(2300, 3, 3.0, 0.0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 3);
}

static void test_autoscale_clamps(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_scale_step day[] = {{0.0, 30}};
	struct fs_autoscale_input in = input(1000, 10, 100.0, 1.0);

	(void)state;
	setup_cfg(&cfg, &pool);
	fs_autoscale_state_init(&st);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 20);   /* max */
	fs_autoscale_state_init(&st);
	pool.min_count = 2;
	in = input(1000, 2, 0.0, 0.0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 2);    /* min */
	in = input(1000, 0, 3.0, 0.0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 2);    /* up to min */
	/* a schedule above max: max wins */
	cfg.schedule = day;
	cfg.n_schedule = 1;
	fs_autoscale_state_init(&st);
	in = input(1000, 5, 3.0, 0.5);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 20);
	/* no target (0): only the bounds act */
	cfg.n_schedule = 0;
	cfg.target = 0.0;
	fs_autoscale_state_init(&st);
	in = input(1000, 5, 99.0, 1.0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_autoscale_scale_out_proportional),
		cmocka_unit_test(test_autoscale_no_second_scale_out_within_cooldown),
		cmocka_unit_test(test_autoscale_no_scale_in_inside_hysteresis_band),
		cmocka_unit_test(test_autoscale_scale_in_after_cooldown),
		cmocka_unit_test(test_autoscale_schedule_minimum_by_hour),
		cmocka_unit_test(test_autoscale_idle_release_after_idle_for),
		cmocka_unit_test(test_autoscale_clamps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
