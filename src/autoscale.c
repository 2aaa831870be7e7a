/*
 * autoscale.c — the autoscaler's decision (see autoscale.h), after the
 * Kubernetes HPA: proportional proposal with a tolerance, not-yet-ready
 * instances projected as upstream does, stabilisation windows, scaling
 * policies; then scale from/to zero, schedule and bounds.
 * Idle release is per instance: the world measures each instance and asks
 * fs_autoscale_idle_releasable how many may go.
 * Pure apart from the caller-owned struct fs_autoscale_state.  The result
 * always lies in [lower bound, pool max], the max winning a conflict.
 */
#include "fleetsim/autoscale.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Initialise the state: no history, not idle, no work seen. */
void fs_autoscale_state_init(struct fs_autoscale_state *st)
{
	memset(st, 0, sizeof *st);
	st->last_work_ns = -1;
}

/* Free the state's history (st may be zeroed). */
void fs_autoscale_state_fini(struct fs_autoscale_state *st)
{
	free(st->recs);
	free(st->events);
	st->recs = st->events = NULL;
	st->n_recs = st->n_events = st->cap_recs = st->cap_events = 0;
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

static int clamp_int(double x)
{
	if (!(x < (double)INT32_MAX))
		return INT32_MAX;
	return x < 0 ? 0 : (int)x;
}

/*
 * The HPA proposal (MODEL: A1, A2).  ratio = metric / target; within the
 * tolerance, the current count.  Scaling up with instances not yet ready,
 * those count as reporting 0: ratio' = ready x metric / (current x
 * target), and no change when ratio' is within the tolerance or below 1;
 * else ceil(ready x metric / target).  Scaling down, the not-ready
 * instances are ignored: ceil(ready x metric / target).  With no ready
 * instance there is no metric: the current count.
 */
int fs_autoscale_proposal(const struct fs_autoscale_cfg *cfg,
                          const struct fs_autoscale_input *in)
{
	double ratio, want;

	if (!(cfg->target > 0) || in->ready <= 0 || isnan(in->metric))
		return in->current;                      /* MODEL: A1 */
	ratio = in->metric / cfg->target;
	if (fabs(ratio - 1.0) <= cfg->tolerance)     /* MODEL: A2 */
		return in->current;
	want = ceil((double)in->ready * ratio);
	if (ratio > 1.0 && in->current > in->ready) {               /* MODEL: A2 */
		double projected = (double)in->ready * ratio / (double)in->current;

		if (fabs(projected - 1.0) <= cfg->tolerance || projected < 1.0)
			return in->current;
	}
	if (ratio > 1.0 && want < (double)in->current)
		return in->current;
	return clamp_int(want);
}

/* Drop history older than keep_ns before now. */
static void prune(struct fs_scale_rec *r, size_t *n, fs_ns now_ns, fs_ns keep_ns)
{
	size_t k = 0;

	while (k < *n && r[k].t_ns <= now_ns - keep_ns)
		k++;
	if (k > 0) {
		memmove(r, r + k, (*n - k) * sizeof *r);
		*n -= k;
	}
}

static void push(struct fs_scale_rec **r, size_t *n, size_t *cap, fs_ns t_ns, int count)
{
	fs_xgrow((void **)r, cap, *n + 1, sizeof **r);
	(*r)[*n].t_ns = t_ns;
	(*r)[*n].count = count;
	(*n)++;
}

/*
 * Stabilisation (MODEL: A3): up to the lowest proposal of the scale-up
 * window, down to the highest of the scale-down window (both including
 * now's); between them the count stays.
 */
static int stabilise(const struct fs_autoscale_cfg *cfg, const struct fs_autoscale_state *st,
                     int current, int proposal, fs_ns now_ns)
{
	int lo = proposal, hi = proposal;

	for (size_t i = 0; i < st->n_recs; i++) {
		if (st->recs[i].t_ns > now_ns - cfg->up.window_ns && st->recs[i].count < lo)
			lo = st->recs[i].count;
		if (st->recs[i].t_ns > now_ns - cfg->down.window_ns && st->recs[i].count > hi)
			hi = st->recs[i].count;
	}
	if (current < lo)
		return lo;
	if (current > hi)
		return hi;
	return current;
}

/* Instances added (sign +1) or removed (-1) by events within period_ns. */
static int changed_within(const struct fs_autoscale_state *st, fs_ns now_ns, fs_ns period_ns,
                          int sign)
{
	int n = 0;

	for (size_t i = 0; i < st->n_events; i++)
		if (st->events[i].t_ns > now_ns - period_ns && st->events[i].count * sign > 0)
			n += st->events[i].count * sign;
	return n;
}

/*
 * The scaling policies' limit for one direction (MODEL: A7), as upstream:
 * from the count at each policy's period start (current minus what was
 * added plus what was removed within the period), at most `value`
 * instances or `value` percent more (up, percent rounded up) or fewer
 * (down, rounded down); selectPolicy max takes the loosest limit, min the
 * tightest, disabled allows no change.
 */
static int policy_limit(const struct fs_scale_rules *r, const struct fs_autoscale_state *st,
                        int current, fs_ns now_ns, bool up)
{
	double limit = 0;
	bool larger = up == (r->select == FS_SELECT_MAX), have = false;

	if (r->select == FS_SELECT_DISABLED || r->n_policies == 0)
		return r->select == FS_SELECT_DISABLED ? current : (up ? INT32_MAX : 0);
	for (size_t i = 0; i < r->n_policies; i++) {
		const struct fs_scale_policy *p = &r->policies[i];
		double start = (double)current -
		               (double)changed_within(st, now_ns, p->period_ns, +1) +
		               (double)changed_within(st, now_ns, p->period_ns, -1);
		double proposed;

		if (up)
			proposed = p->percent ? ceil(start * (1.0 + p->value / 100.0))
			                      : start + p->value;
		else
			proposed = p->percent ? floor(start * (1.0 - p->value / 100.0))
			                      : start - p->value;
		if (!have || (larger ? proposed > limit : proposed < limit))
			limit = proposed;
		have = true;
	}
	return clamp_int(limit);
}

/* The lower bound (MODEL: A6): pool min, scheduled min, forecast, and
 * one instance while work waits (from zero: at least `activation`) or was
 * seen within the zero grace period. */
static int lower_bound(const struct fs_autoscale_cfg *cfg, const struct fs_pool_cfg *pool,
                       const struct fs_autoscale_state *st,
                       const struct fs_autoscale_input *in)
{
	int lo = fs_autoscale_scheduled_min(cfg, in->clock_hour);   /* MODEL: A4 */

	if (lo < pool->min_count)
		lo = pool->min_count;
	if (lo < in->forecast_min)
		lo = in->forecast_min;                                   /* MODEL: A9 */
	if (lo < 1) {
		bool activate = in->current == 0 ? in->work >= cfg->activation && in->work > 0
		                                 : in->work > 0;
		bool grace = st->last_work_ns >= 0 &&
		             in->now_ns - st->last_work_ns < cfg->zero_grace_ns;

		if (activate || (in->current > 0 && grace))             /* MODEL: A8 */
			lo = 1;
	}
	return lo;
}

/*
 * The instance count the pool should have now (see autoscale.h).  Records
 * the proposal in the recommendation history and any change of count as a
 * scale event, so later windows and policies see it.
 */
int fs_autoscale_decide(const struct fs_autoscale_cfg *cfg, const struct fs_pool_cfg *pool,
                        struct fs_autoscale_state *st, const struct fs_autoscale_input *in)
{
	int proposal, want, lo, hi, current = in->current;
	fs_ns keep_ns = cfg->up.window_ns > cfg->down.window_ns ? cfg->up.window_ns
	                                                        : cfg->down.window_ns;
	fs_ns period_ns = 0;

	assert(in->current >= 0 && in->ready >= 0 && in->ready <= in->current);
	for (size_t i = 0; i < cfg->up.n_policies; i++)
		if (cfg->up.policies[i].period_ns > period_ns)
			period_ns = cfg->up.policies[i].period_ns;
	for (size_t i = 0; i < cfg->down.n_policies; i++)
		if (cfg->down.policies[i].period_ns > period_ns)
			period_ns = cfg->down.policies[i].period_ns;
	prune(st->recs, &st->n_recs, in->now_ns, keep_ns);
	prune(st->events, &st->n_events, in->now_ns, period_ns);
	if (in->work > 0)
		st->last_work_ns = in->now_ns;

	proposal = fs_autoscale_proposal(cfg, in);
	want = stabilise(cfg, st, current, proposal, in->now_ns);
	push(&st->recs, &st->n_recs, &st->cap_recs, in->now_ns, proposal);
	if (want > current) {
		int limit = policy_limit(&cfg->up, st, current, in->now_ns, true);

		if (want > limit)
			want = limit > current ? limit : current;            /* MODEL: A7 */
	} else if (want < current) {
		int limit = policy_limit(&cfg->down, st, current, in->now_ns, false);

		if (want < limit)
			want = limit < current ? limit : current;            /* MODEL: A7 */
	}
	lo = lower_bound(cfg, pool, st, in);                         /* MODEL: A6 */
	hi = pool->max_count;
	if (want < lo)
		want = lo;
	if (want > hi)
		want = hi;
	if (want < 0)
		want = 0;
	if (want != current)
		push(&st->events, &st->n_events, &st->cap_events, in->now_ns, want - current);
	return want;
}

/* How many idle instances may leave `desired` (see autoscale.h). */
int fs_autoscale_idle_releasable(const struct fs_autoscale_cfg *cfg,
                                 const struct fs_pool_cfg *pool,
                                 const struct fs_autoscale_state *st,
                                 const struct fs_autoscale_input *in, int desired)
{
	int floor_count = lower_bound(cfg, pool, st, in);

	if (cfg->target > 0 && in->ready > 0 && !isnan(in->metric)) {    /* MODEL: A5 */
		int need = clamp_int(ceil((double)in->ready * in->metric / cfg->target));

		if (need > floor_count)
			floor_count = need;
	}
	return desired > floor_count ? desired - floor_count : 0;
}

/* Record an idle release (see autoscale.h). */
void fs_autoscale_note_release(const struct fs_autoscale_cfg *cfg,
                               struct fs_autoscale_state *st, fs_ns now_ns, int desired,
                               int released)
{
	(void)cfg;
	if (released <= 0)
		return;
	push(&st->events, &st->n_events, &st->cap_events, now_ns, -released);
	for (size_t i = 0; i < st->n_recs; i++)                         /* MODEL: A5 */
		if (st->recs[i].count > desired - released)
			st->recs[i].count = desired - released;
}
