/*
 * autoscale.h — the autoscaler's decision, as a pure function of its
 * configuration, its own state (recent recommendations and scale events,
 * idle and work timers) and what the world measured: the Kubernetes HPA
 * algorithm (proportional rule, tolerance, stabilisation windows, scaling
 * policies), scale from and to zero, scheduled minimums; and how much idle
 * release (per instance, measured by the world) may take.
 * The world applies the decision and calls it every interval.  The state's
 * arrays are owned by it (fs_autoscale_state_fini frees them).
 */
#ifndef FLEETSIM_AUTOSCALE_H
#define FLEETSIM_AUTOSCALE_H

#include "fleetsim/common.h"
#include "fleetsim/fleet_cfg.h"

/* One timed count: a recommendation (count = instances) or a scale event
 * (count = instances added, negative when removed). */
struct fs_scale_rec {
	fs_ns t_ns;
	int count;
};

struct fs_autoscale_state {
	struct fs_scale_rec *recs;   /* recommendations, oldest first, within the
	                              * longer stabilisation window */
	size_t n_recs, cap_recs;
	struct fs_scale_rec *events; /* scale events within the longest policy period */
	size_t n_events, cap_events;
	fs_ns last_work_ns;          /* last look that saw work in the pool, -1 never */
};

void fs_autoscale_state_init(struct fs_autoscale_state *st);
void fs_autoscale_state_fini(struct fs_autoscale_state *st);

/* What the autoscaler sees at one evaluation. */
struct fs_autoscale_input {
	fs_ns now_ns;
	double clock_hour;           /* hour of day at now (0..24), for schedules */
	int current;                 /* instances serving or starting in the pool */
	int ready;                   /* of those, serving (ready == 0: no metric) */
	double metric;               /* the metric's mean over the ready instances */
	double busy;                 /* busy fraction of the pool over the last interval */
	double work;                 /* requests queued for or running in the pool */
	int forecast_min;            /* predictive floor for now (0: none) */
};

/*
 * The instance count the pool should have.  With ready instances, the HPA
 * proposal ceil(ready x metric / target) (unchanged within the tolerance;
 * instances still starting count as current and, on a scale-up, as
 * reporting 0), stabilised over the windows (up: the lowest proposal of
 * the scale-up window; down: the highest of the scale-down window), limited
 * by the scaling policies, then the bounds: at least
 * max(pool min, scheduled min, forecast) and at least 1 when work waits
 * (activation threshold from zero) or was seen within the zero grace
 * period; at most max.  Records the proposal and any change in st.
 * O(recommendations + events + schedule steps).
 */
int fs_autoscale_decide(const struct fs_autoscale_cfg *cfg, const struct fs_pool_cfg *pool,
                        struct fs_autoscale_state *st, const struct fs_autoscale_input *in);

/*
 * Idle release (MODEL: A5): how many of `desired` instances the world may
 * release because they were idle, so that the count stays at or above the
 * lower bound (min, schedule, forecast, work waiting) and at or above the
 * HPA's uncapped need ceil(ready x metric / target), without tolerance:
 * the HPA's next proposal then does not relaunch them.  0 when desired is
 * already at that floor.  O(schedule steps).
 */
int fs_autoscale_idle_releasable(const struct fs_autoscale_cfg *cfg,
                                 const struct fs_pool_cfg *pool,
                                 const struct fs_autoscale_state *st,
                                 const struct fs_autoscale_input *in, int desired);

/*
 * Record that `released` idle instances left a pool the decision had set to
 * `desired` (MODEL: A5): a scale event of -released (the scaling policies
 * count it), and every recommendation still in a stabilisation window
 * lowered to the new count, so that a scale-up window does not restore the
 * released instances from proposals made before the release.  O(history).
 */
void fs_autoscale_note_release(const struct fs_autoscale_cfg *cfg,
                               struct fs_autoscale_state *st, fs_ns now_ns, int desired,
                               int released);

/* The HPA proposal alone (tolerance and not-ready projection, no windows,
 * policies or bounds): the instance count the metric asks for. */
int fs_autoscale_proposal(const struct fs_autoscale_cfg *cfg,
                          const struct fs_autoscale_input *in);

/* The schedule's minimum at clock_hour (0 without a schedule). */
int fs_autoscale_scheduled_min(const struct fs_autoscale_cfg *cfg, double clock_hour);

#endif
