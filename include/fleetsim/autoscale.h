/*
 * autoscale.h — the autoscaler's decision, as a pure function of its
 * configuration, its own small state (last scaling times, idle timer) and
 * what the world measured: target tracking with hysteresis and cooldowns,
 * scheduled minimums by hour of day, and idle release.  The world applies the
 * decision (launches or drains instances) and calls it every interval.
 */
#ifndef FLEETSIM_AUTOSCALE_H
#define FLEETSIM_AUTOSCALE_H

#include "fleetsim/common.h"
#include "fleetsim/fleet_cfg.h"

struct fs_autoscale_state {
	fs_ns last_out_ns;           /* last scale-out, or a large negative value */
	fs_ns last_in_ns;            /* last scale-in (or out), likewise */
	fs_ns idle_since_ns;         /* start of the current idle stretch, -1 none */
};

void fs_autoscale_state_init(struct fs_autoscale_state *st);

/* What the autoscaler sees at one evaluation. */
struct fs_autoscale_input {
	fs_ns now_ns;
	double clock_hour;           /* hour of day at now (0..24), for schedules */
	int current;                 /* instances serving or starting in the pool */
	double metric;               /* the configured metric's value now */
	double busy;                 /* busy fraction of the pool over the last interval */
};

/*
 * The instance count the pool should have: scale out to
 * ceil(current x metric / target) when metric > target (not within
 * cooldown_out of the last scale-out); scale in by one when metric <
 * target x scale_in_below (not within cooldown_in of the last scaling), or
 * when busy has stayed below idle_busy_below for idle_for_ns (idle release);
 * never below the pool's min or the schedule's minimum for the hour, never
 * above max.  Updates st when it scales.  O(schedule steps).
 */
int fs_autoscale_decide(const struct fs_autoscale_cfg *cfg, const struct fs_pool_cfg *pool,
                        struct fs_autoscale_state *st, const struct fs_autoscale_input *in);

/* The schedule's minimum at clock_hour (0 without a schedule). */
int fs_autoscale_scheduled_min(const struct fs_autoscale_cfg *cfg, double clock_hour);

#endif
