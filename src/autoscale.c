/*
 * autoscale.c — the autoscaler's decision (see autoscale.h): target tracking
 * with a hysteresis band and cooldowns, a daily schedule of minimums, and
 * idle release.  Pure apart from the caller-owned struct fs_autoscale_state,
 * which changes only when the decided count differs from the current one or
 * the idle timer starts or stops.  The result always lies in
 * [max(pool min, scheduled min), pool max], the max winning a conflict.
 */
#include "fleetsim/autoscale.h"

#include <assert.h>
#include <math.h>

/* "Long ago": far enough back that no cooldown applies, and safe to
 * subtract from any simulated time without overflow. */
#define LONG_AGO_NS (INT64_MIN / 4)

/* Initialise the state: no scaling yet, not idle. */
void fs_autoscale_state_init(struct fs_autoscale_state *st)
{
	st->last_out_ns = LONG_AGO_NS;
	st->last_in_ns = LONG_AGO_NS;
	st->idle_since_ns = -1;
}

/*
 * The schedule's minimum at clock_hour (taken modulo 24): the last step with
 * at_h <= hour; before the first step, the last step of the previous day
 * (the profile wraps at 24 h).  0 without a schedule.  O(steps).  MODEL: A4
 */
int fs_autoscale_scheduled_min(const struct fs_autoscale_cfg *cfg, double clock_hour)
{
	double hour = fmod(clock_hour, 24.0);
	int min_count;

	if (cfg->n_schedule == 0 || cfg->schedule == NULL)
		return 0;
	if (hour < 0)
		hour += 24.0;
	min_count = cfg->schedule[cfg->n_schedule - 1].min_count;   /* wrapped */
	for (size_t i = 0; i < cfg->n_schedule && cfg->schedule[i].at_h <= hour; i++)
		min_count = cfg->schedule[i].min_count;
	return min_count;
}

/* Start, keep or stop the idle timer from this interval's busy fraction.
 * Idle release off (idle_for_ns <= 0): never idle. */
static void track_idle(const struct fs_autoscale_cfg *cfg, struct fs_autoscale_state *st,
                       const struct fs_autoscale_input *in)
{
	if (cfg->idle_for_ns > 0 && in->busy < cfg->idle_busy_below) {
		if (st->idle_since_ns < 0)
			st->idle_since_ns = in->now_ns;
	} else {
		st->idle_since_ns = -1;
	}
}

/* The count target tracking asks for, before the bounds: out to
 * ceil(current x metric / target) (at least one more), or in by one below
 * the hysteresis band, each outside its cooldown; else current. */
static int track_target(const struct fs_autoscale_cfg *cfg, const struct fs_autoscale_state *st,
                        const struct fs_autoscale_input *in)
{
	int current = in->current;

	if (!(cfg->target > 0))
		return current;                          /* MODEL: A1 */
	if (in->metric > cfg->target) {
		double want;

		if (in->now_ns - st->last_out_ns < cfg->cooldown_out_ns)
			return current;                      /* MODEL: A3 */
		want = ceil((double)current * in->metric / cfg->target);   /* MODEL: A1 */
		if (!(want < (double)INT32_MAX))
			return INT32_MAX;
		return (int)want > current ? (int)want : current + 1;
	}
	if (in->metric < cfg->target * cfg->scale_in_below &&        /* MODEL: A2 */
	    in->now_ns - st->last_in_ns >= cfg->cooldown_in_ns)      /* MODEL: A3 */
		return current - 1;
	return current;
}

/*
 * The instance count the pool should have now (see autoscale.h).  Target
 * tracking first; when it leaves the count alone, idle release takes one
 * instance away once busy has stayed below idle_busy_below for idle_for_ns,
 * Then the bounds.  Any increase sets last_out_ns and last_in_ns and stops
 * the idle timer; any decrease sets last_in_ns and restarts a running idle
 * timer, so the next idle release needs another idle_for_ns.  O(schedule
 * steps).
 */
int fs_autoscale_decide(const struct fs_autoscale_cfg *cfg, const struct fs_pool_cfg *pool,
                        struct fs_autoscale_state *st, const struct fs_autoscale_input *in)
{
	int lo, hi, want;

	assert(in->current >= 0);
	track_idle(cfg, st, in);
	want = track_target(cfg, st, in);
	if (want == in->current && st->idle_since_ns >= 0 &&        /* MODEL: A5 */
	    in->now_ns - st->idle_since_ns >= cfg->idle_for_ns)
		want = in->current - 1;
	lo = fs_autoscale_scheduled_min(cfg, in->clock_hour);        /* MODEL: A6 */
	if (lo < pool->min_count)
		lo = pool->min_count;
	hi = pool->max_count;
	if (want < lo)
		want = lo;
	if (want > hi)
		want = hi;
	if (want < 0)
		want = 0;
	if (want > in->current) {
		st->last_out_ns = in->now_ns;
		st->last_in_ns = in->now_ns;
		st->idle_since_ns = -1;
	} else if (want < in->current) {
		st->last_in_ns = in->now_ns;
		if (st->idle_since_ns >= 0)
			st->idle_since_ns = in->now_ns;                     /* MODEL: A5 */
	}
	return want;
}
