/*
 * test_autoscale.c — the autoscaler's decision on hand-made inputs, after
 * the Kubernetes HPA: the proportional proposal and its tolerance, starting
 * instances projected as upstream does, the scale-up and scale-down
 * stabilisation windows, scaling policies (instances or percent per period,
 * selectPolicy max/min), scale from and to zero, the schedule, idle release,
 * the predictive floor and the clamps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "fleetsim/autoscale.h"
#include "util_test.h"

#define S(x) ((fs_ns)((x) * 1e9))

/* Target 4 per instance with the upstream HPA defaults (tolerance 0.1, up:
 * no window, max(4 instances, 100%) per 15 s; down: 300 s window, 100% per
 * 15 s), no schedule, no idle release, zero grace 300 s; pool 1..20. */
static void setup_cfg(struct fs_autoscale_cfg *cfg, struct fs_pool_cfg *pool)
{
	*cfg = (struct fs_autoscale_cfg){0};
	cfg->enabled = true;
	cfg->metric = FS_SCALE_CONCURRENCY;
	cfg->target = 4.0;
	cfg->tolerance = 0.1;
	cfg->interval_ns = S(15);
	cfg->up.n_policies = 2;
	cfg->up.policies[0] = (struct fs_scale_policy){ false, 4, S(15) };
	cfg->up.policies[1] = (struct fs_scale_policy){ true, 100, S(15) };
	cfg->down.window_ns = S(300);
	cfg->down.n_policies = 1;
	cfg->down.policies[0] = (struct fs_scale_policy){ true, 100, S(15) };
	cfg->activation = 1;
	cfg->zero_grace_ns = S(300);
	*pool = (struct fs_pool_cfg){0};
	pool->min_count = 1;
	pool->max_count = 20;
	pool->fallback_pool = -1;
}

/* All `current` instances ready, some work in the pool. */
static struct fs_autoscale_input input(double t_s, int current, double metric, double busy)
{
	struct fs_autoscale_input in = {0};

	in.now_ns = S(t_s);
	in.clock_hour = 12.0;
	in.current = current;
	in.ready = current;
	in.metric = metric;
	in.busy = busy;
	in.work = 1;
	return in;
}

static int decide(const struct fs_autoscale_cfg *cfg, const struct fs_pool_cfg *pool,
                  struct fs_autoscale_state *st, struct fs_autoscale_input in)
{
	return fs_autoscale_decide(cfg, pool, st, &in);
}

/* One decision of a sequence: at t_s, `current` instances all ready, the
 * metric (busy 1, work waiting), and the count the autoscaler must want. */
struct step {
	double t_s;
	int current;
	double metric;
	int want;
};

/* Decide `steps` in order from a fresh state, checking every count. */
static void decide_steps(const struct fs_autoscale_cfg *cfg, const struct fs_pool_cfg *pool,
                         const struct step *steps, size_t n)
{
	struct fs_autoscale_state st;

	fs_autoscale_state_init(&st);
	for (size_t i = 0; i < n; i++) {
		const struct step *k = &steps[i];
		int got = decide(cfg, pool, &st, input(k->t_s, k->current, k->metric, 1));

		if (got != k->want)
			print_error("step %zu (t = %g s): %d, want %d\n", i, k->t_s, got, k->want);
		assert_int_equal(got, k->want);
	}
	fs_autoscale_state_fini(&st);
}

#define N_STEPS(a) (sizeof (a) / sizeof (a)[0])

/* A metric and the proposal it must give. */
struct proposal {
	double metric;
	int want;
};

/* fs_autoscale_proposal of `in` with each metric of `p` in turn. */
static void check_proposals(const struct fs_autoscale_cfg *cfg, struct fs_autoscale_input in,
                            const struct proposal *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		in.metric = p[i].metric;
		if (fs_autoscale_proposal(cfg, &in) != p[i].want)
			print_error("metric %g\n", p[i].metric);
		assert_int_equal(fs_autoscale_proposal(cfg, &in), p[i].want);
	}
}

static void test_autoscale_proposal_and_tolerance(void **state)
{
	static const struct proposal p[] = {
		{ 10.0, 8 },                     /* ceil(3 x 10 / 4) = ceil(7.5) = 8 */
		{ 4.3, 3 },                      /* ratio 1.075: within the tolerance */
		{ 4.5, 4 },                      /* 1.125: ceil(3.375) = 4 */
		{ 3.7, 3 },                      /* 0.925: within */
		{ 2.0, 2 },                      /* 0.5: ceil(1.5) = 2 */
		{ 0.0, 0 },
		{ NAN, 3 },                      /* nothing ready: no metric, no change */
	};
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;

	(void)state;
	setup_cfg(&cfg, &pool);
	check_proposals(&cfg, input(0, 3, 10.0, 0.9), p, N_STEPS(p));
}

/* Upstream: on a scale-up, pods not yet ready count as using 0; no change
 * if that brings the ratio within the tolerance or below 1.  On a
 * scale-down they are left out. */
static void test_autoscale_starting_instances_projected(void **state)
{
	static const struct proposal p[] = {
		/* ratio 1.25, projected 2 x 1.25 / 4 = 0.625: wait for the two */
		{ 5.0, 4 },
		{ 10.0, 5 },                     /* 2.5, projected 1.25: ceil(2 x 2.5) = 5 */
		{ 8.6, 4 },                      /* 2.15, projected 1.075: within */
		{ 1.0, 1 },                      /* scale-down: ceil(2 x 0.25) = 1 */
	};
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_input in = input(0, 4, 5.0, 0.9);

	(void)state;
	setup_cfg(&cfg, &pool);
	in.ready = 2;
	check_proposals(&cfg, in, p, N_STEPS(p));
}

static void test_autoscale_scale_up_policy_and_window(void **state)
{
	static const struct step policies[] = {
		/* proposal 8 from 3: max(3 + 4, 3 x 2) = 7 this period */
		{ 0, 3, 10.0, 7 },
		/* 10 s later, same period: the period started at 3 -> limit 7 */
		{ 10, 7, 4.0 * 8 / 7 * 1.2, 7 },
		/* 15 s after the event, a new period from 7: up to 11 allowed */
		{ 15, 7, 4.0 * 8 / 7, 8 },
	};
	/* selectPolicy min: the tighter of 4 instances and 100% */
	static const struct step select_min[] = { { 0, 3, 10.0, 6 } };
	static const struct step disabled[] = { { 0, 3, 10.0, 3 } };
	/* a 60 s scale-up window: up to the lowest proposal in it */
	static const struct step window[] = {
		{ 0, 3, 4.0, 3 },                /* proposal 3 */
		{ 15, 3, 8.0, 3 },               /* 6 */
		{ 30, 3, 8.0, 3 },
		{ 45, 3, 8.0, 3 },
		/* at 60 s the proposal 3 of t = 0 has left the window */
		{ 60, 3, 8.0, 6 },
	};
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;

	(void)state;
	setup_cfg(&cfg, &pool);
	decide_steps(&cfg, &pool, policies, N_STEPS(policies));
	cfg.up.select = FS_SELECT_MIN;
	decide_steps(&cfg, &pool, select_min, N_STEPS(select_min));
	cfg.up.select = FS_SELECT_DISABLED;
	decide_steps(&cfg, &pool, disabled, N_STEPS(disabled));
	cfg.up.select = FS_SELECT_MAX;
	cfg.up.window_ns = S(60);
	decide_steps(&cfg, &pool, window, N_STEPS(window));
}

static void test_autoscale_scale_down_window_and_policy(void **state)
{
	static const struct step window[] = {
		{ 0, 8, 4.0, 8 },
		/* the load drops: proposal 2, held at 8 while 8 is in the 300 s window */
		{ 15, 8, 1.0, 8 },
		{ 299, 8, 1.0, 8 },
		{ 300, 8, 1.0, 2 },
	};
	/* 50% per 60 s: 8 -> 4, and 2 only one period later */
	static const struct step half[] = {
		{ 0, 8, 1.0, 4 }, { 30, 4, 2.0, 4 }, { 60, 4, 2.0, 2 },
	};
	/* one instance per 60 s */
	static const struct step one[] = {
		{ 0, 8, 1.0, 7 }, { 30, 7, 8.0 / 7, 7 }, { 60, 7, 8.0 / 7, 6 },
	};
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;

	(void)state;
	setup_cfg(&cfg, &pool);
	decide_steps(&cfg, &pool, window, N_STEPS(window));
	cfg.down.window_ns = 0;
	cfg.down.policies[0] = (struct fs_scale_policy){ true, 50, S(60) };
	decide_steps(&cfg, &pool, half, N_STEPS(half));
	cfg.down.policies[0] = (struct fs_scale_policy){ false, 1, S(60) };
	decide_steps(&cfg, &pool, one, N_STEPS(one));
}

/* min 0: activation when work waits, whatever the metric says (it has no
 * value with nothing serving), and zero only after the grace period. */
static void test_autoscale_from_and_to_zero(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_autoscale_input in;

	(void)state;
	setup_cfg(&cfg, &pool);
	pool.min_count = 0;
	cfg.down.window_ns = 0;
	cfg.activation = 2;
	fs_autoscale_state_init(&st);
	in = input(0, 0, NAN, 0);
	in.work = 0;
	assert_int_equal(decide(&cfg, &pool, &st, in), 0);
	in.now_ns = S(15);
	in.work = 1;                     /* below the activation threshold */
	assert_int_equal(decide(&cfg, &pool, &st, in), 0);
	in.now_ns = S(30);
	in.work = 2;
	assert_int_equal(decide(&cfg, &pool, &st, in), 1);
	/* starting, nothing ready: keep the one */
	in = input(45, 1, NAN, 0);
	in.ready = 0;
	in.work = 3;
	assert_int_equal(decide(&cfg, &pool, &st, in), 1);
	/* serving, the work done at 60 s: stays until 300 s without work */
	in = input(60, 1, 0.0, 0);
	in.work = 0;
	assert_int_equal(decide(&cfg, &pool, &st, in), 1);
	in.now_ns = S(344);
	assert_int_equal(decide(&cfg, &pool, &st, in), 1);
	in.now_ns = S(345);
	assert_int_equal(decide(&cfg, &pool, &st, in), 0);
	fs_autoscale_state_fini(&st);
}

static void test_autoscale_schedule_minimum_by_hour(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_scale_step day[] = {{7.0, 6}, {20.0, 2}};
	struct fs_autoscale_input in;

	(void)state;
	setup_cfg(&cfg, &pool);
	cfg.schedule = day;
	cfg.n_schedule = 2;
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 3.0), 2);    /* wraps */
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 7.0), 6);
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 19.99), 6);
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 20.0), 2);
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 31.0), 6);   /* 07:00 next day */
	fs_autoscale_state_init(&st);
	in = input(1000, 2, 4.0, 0.5);
	in.clock_hour = 8.0;
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 6);
	fs_autoscale_state_fini(&st);
	cfg.n_schedule = 0;
	assert_int_equal(fs_autoscale_scheduled_min(&cfg, 8.0), 0);
}

/* Idle release (per instance, measured by the world) may take instances
 * down to the larger of the lower bound and the HPA's uncapped need; after
 * a release the recommendations in the windows are lowered to the new
 * count, so a scale-up window does not restore them from older proposals. */
static void test_autoscale_idle_release_keeps_need_and_floor(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_autoscale_input in;

	(void)state;
	setup_cfg(&cfg, &pool);
	cfg.idle_busy_below = 0.1;
	cfg.idle_for_ns = S(600);
	cfg.up.window_ns = S(60);
	fs_autoscale_state_init(&st);
	/* 5 ready at 2 per instance: 10 in all need ceil(10 / 4) = 3 */
	in = input(0, 5, 2.0, 0.5);
	assert_int_equal(fs_autoscale_idle_releasable(&cfg, &pool, &st, &in, 5), 2);
	in.metric = 4.0;                                   /* on target: all 5 needed */
	assert_int_equal(fs_autoscale_idle_releasable(&cfg, &pool, &st, &in, 5), 0);
	in.metric = 0.0;
	pool.min_count = 4;                                /* the floor stays */
	assert_int_equal(fs_autoscale_idle_releasable(&cfg, &pool, &st, &in, 5), 1);
	pool.min_count = 1;
	assert_int_equal(fs_autoscale_idle_releasable(&cfg, &pool, &st, &in, 5), 4);

	/* decided 5 (within tolerance), then 2 idle ones leave: 3 */
	assert_int_equal(decide(&cfg, &pool, &st, input(0, 5, 4.2, 0.5)), 5);
	fs_autoscale_note_release(&cfg, &st, S(0), 5, 2);
	assert_int_equal(st.n_events, 1);
	assert_int_equal(st.events[0].count, -2);
	/* 4.8 on 3 proposes ceil(3.6) = 4, but the up window's lowest is the
	 * lowered 3 of t = 0: no relaunch; once t = 0 leaves the window, 4 */
	assert_int_equal(decide(&cfg, &pool, &st, input(15, 3, 4.8, 0.5)), 3);
	assert_int_equal(decide(&cfg, &pool, &st, input(75, 3, 4.8, 0.5)), 4);
	fs_autoscale_state_fini(&st);
}

static void test_autoscale_clamps_and_forecast(void **state)
{
	struct fs_autoscale_cfg cfg;
	struct fs_pool_cfg pool;
	struct fs_autoscale_state st;
	struct fs_scale_step day[] = {{0.0, 30}};
	struct fs_autoscale_input in;

	(void)state;
	setup_cfg(&cfg, &pool);
	fs_autoscale_state_init(&st);
	assert_int_equal(decide(&cfg, &pool, &st, input(0, 15, 100.0, 1)), 20);  /* max */
	fs_autoscale_state_fini(&st);
	fs_autoscale_state_init(&st);
	pool.min_count = 2;
	cfg.down.window_ns = 0;
	assert_int_equal(decide(&cfg, &pool, &st, input(0, 3, 0.0, 0)), 2);      /* min */
	in = input(15, 0, NAN, 0);
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 2);        /* up to min */
	in = input(30, 2, 4.0, 0);
	in.forecast_min = 9;             /* the forecast raises the floor */
	assert_int_equal(fs_autoscale_decide(&cfg, &pool, &st, &in), 9);
	fs_autoscale_state_fini(&st);
	/* a schedule above max: max wins */
	cfg.schedule = day;
	cfg.n_schedule = 1;
	fs_autoscale_state_init(&st);
	assert_int_equal(decide(&cfg, &pool, &st, input(0, 5, 4.0, 0.5)), 20);
	fs_autoscale_state_fini(&st);
	/* no target (0): only the bounds act */
	cfg.n_schedule = 0;
	cfg.target = 0.0;
	fs_autoscale_state_init(&st);
	assert_int_equal(decide(&cfg, &pool, &st, input(0, 5, 99.0, 1)), 5);
	fs_autoscale_state_fini(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_autoscale_proposal_and_tolerance),
		cmocka_unit_test(test_autoscale_starting_instances_projected),
		cmocka_unit_test(test_autoscale_scale_up_policy_and_window),
		cmocka_unit_test(test_autoscale_scale_down_window_and_policy),
		cmocka_unit_test(test_autoscale_from_and_to_zero),
		cmocka_unit_test(test_autoscale_schedule_minimum_by_hour),
		cmocka_unit_test(test_autoscale_idle_release_keeps_need_and_floor),
		cmocka_unit_test(test_autoscale_clamps_and_forecast),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
