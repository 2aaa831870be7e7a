/*
 * ckpt.c — one replication of a checkpointed training job on spot, and the
 * policy runs over replications (docs/MODEL.md, K1-K6).  The job's clock is
 * integer nanoseconds, like the rest of the simulator, so a replayed trace
 * is read at exact instants.  Each replication draws from its own streams
 * (interruptions, unavailable periods, trace offset) and writes only its own
 * slot; aggregation is in replication order, so results do not depend on
 * the thread count.  The scan and the closed forms are in ckpt_scan.c.
 */
#include "ckpt_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/capacity.h"
#include "fleetsim/rng.h"

#define NS_PER_H FS_NS_PER_HOUR
#define MAX_INTERRUPTIONS 1000000
#define MAX_CLOCK_NS (INT64_C(100) * 8766 * 3600 * FS_NS_PER_S) /* 100 years */

/* Stream indexes of FS_STREAM_SPOT this module uses (its own numbers, far
 * from the world's pool indexes). */
enum { STREAM_INTERRUPT = 0x434b00, STREAM_UNAVAIL, STREAM_OFFSET };

fs_ns fs__ckpt_ns(double h)
{
	return (fs_ns)llround(h * NS_PER_H);
}

double fs__ckpt_h(fs_ns t_ns)
{
	return (double)t_ns / NS_PER_H;
}

FS_ENUM_FUNCS(enum fs_ckpt_policy, FS_CKPT_POLICY_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_ckpt_policy_name, fs_ckpt_policy_from_name, "?")

int fs__ckpt_plan(double work_h, double interval_h, struct fs__ckpt_plan *p)
{
	double n = ceil(work_h / interval_h * (1 - 1e-12));      /* MODEL: K1 */

	if (!(n >= 1))
		n = 1;
	if (n > 1e7)
		return -1;
	p->n_seg = (int64_t)n;
	p->tau_ns = fs__ckpt_ns(interval_h);
	p->last_ns = fs__ckpt_ns(work_h) - (p->n_seg - 1) * p->tau_ns;
	if (p->last_ns <= 0) {                        /* rounding at a whole count */
		p->n_seg--;
		p->last_ns += p->tau_ns;
	}
	return 0;
}

/* Time to run segments k.. to the end without interruption (K1). */
static fs_ns rest_ns(const struct fs__ckpt_job *j, const struct fs__ckpt_plan *p, int64_t k)
{
	if (k >= p->n_seg)
		return 0;
	return (p->n_seg - k - 1) * p->tau_ns + p->last_ns + (p->n_seg - k) * j->delta_ns;
}

/* ---- the trace, at a replication's offset ---------------------------------- */

static bool up_at(const struct fs__ckpt_job *j, fs_ns off_ns, fs_ns t_ns)
{
	return fs_capacity_at(j->trace, off_ns + t_ns) >= j->needs;
}

/* The first instant > t_ns (job clock) at which the trace's availability
 * becomes `want`; FS_NS_MAX if it never does (one pass and a bit looked at). */
static fs_ns next_flip(const struct fs__ckpt_job *j, fs_ns off_ns, fs_ns t_ns, bool want)
{
	fs_ns c_ns = off_ns + t_ns;

	for (size_t i = 0; i < j->trace->n_steps + 2; i++) {
		c_ns = fs_capacity_next_change(j->trace, c_ns);
		if (c_ns == FS_NS_MAX)
			return FS_NS_MAX;
		if ((fs_capacity_at(j->trace, c_ns) >= j->needs) == want)
			return c_ns - off_ns;
	}
	return FS_NS_MAX;
}

/* ---- one replication ------------------------------------------------------- */

struct spot_state {
	fs_ns t_ns;                 /* job clock */
	fs_ns expo_ns;              /* Poisson: running time left to the next
	                             * interruption */
	fs_ns avail_ns;             /* Poisson: spot capacity back at */
	fs_ns off_ns;               /* trace: where the replication starts */
	struct fs_rng *r_int, *r_unav;
};

static fs_ns draw_ns(struct fs_rng *r, double mean_h)
{
	double h = mean_h > 0 ? fs_rng_exponential(r, mean_h) : 0;

	return h * NS_PER_H >= (double)MAX_CLOCK_NS ? MAX_CLOCK_NS : fs__ckpt_ns(h);
}

static fs_ns draw_gap(const struct fs__ckpt_job *j, struct spot_state *s)
{
	return j->rate_per_h > 0 ? draw_ns(s->r_int, 1.0 / j->rate_per_h) : FS_NS_MAX;
}

/* When the job can hold spot again at or after s->t_ns (FS_NS_MAX: never). */
static fs_ns ready_at(const struct fs__ckpt_job *j, const struct spot_state *s)
{
	if (j->trace == NULL)
		return s->avail_ns > s->t_ns ? s->avail_ns : s->t_ns;
	if (up_at(j, s->off_ns, s->t_ns))
		return s->t_ns;
	return next_flip(j, s->off_ns, s->t_ns, true);
}

/* The next interruption while holding spot from s->t_ns, as an instant
 * (K2 Poisson: after expo_ns of running time; K3 trace: the next drop). */
static fs_ns next_drop(const struct fs__ckpt_job *j, const struct spot_state *s)
{
	if (j->trace != NULL)
		return next_flip(j, s->off_ns, s->t_ns, false);
	if (s->expo_ns >= MAX_CLOCK_NS - s->t_ns)
		return FS_NS_MAX;
	return s->t_ns + s->expo_ns;
}

/* One replication under `policy` with segments `p`.  Fills o; o->failed
 * when the job does not finish within the interruption or clock caps. */
void fs__ckpt_replicate(const struct fs__ckpt_job *j, const struct fs__ckpt_plan *p,
                        enum fs_ckpt_policy policy, uint64_t rep, struct fs__ckpt_rep *o)
{
	struct spot_state s = { 0 };
	fs_ns spot_ns = 0, od_ns = 0, lost_ns = 0, deadline_ns = j->deadline_ns;
	int64_t k = 0, intr = 0;
	bool restart = false, ran = false, on_demand = policy == FS_CKPT_ON_DEMAND_ONLY;

	memset(o, 0, sizeof *o);
	if (!on_demand) {
		s.r_int = fs_rng_alloc(j->seed, rep, FS_STREAM_SPOT, STREAM_INTERRUPT);
		s.r_unav = fs_rng_alloc(j->seed, rep, FS_STREAM_SPOT, STREAM_UNAVAIL);
		if (j->trace != NULL && j->trace->span_ns > 0) {
			struct fs_rng *r_off = fs_rng_alloc(j->seed, rep, FS_STREAM_SPOT,
			                                    STREAM_OFFSET);

			/* MODEL: K3 — a uniform start within one pass */
			s.off_ns = (fs_ns)(fs_rng_uniform(r_off) * (double)j->trace->span_ns);
			fs_rng_free(r_off);
		}
		s.expo_ns = draw_gap(j, &s);
	}
	/* MODEL: K6 — with less slack than one restart, start on on-demand */
	if (policy == FS_CKPT_SPOT_FALLBACK && deadline_ns - rest_ns(j, p, 0) <= j->restart_ns)
		on_demand = true;
	while (!on_demand && k < p->n_seg) {
		fs_ns sw_ns = FS_NS_MAX, ready_ns, end_ns, drop_ns, seg_ns;

		if (intr > MAX_INTERRUPTIONS || s.t_ns > MAX_CLOCK_NS) {
			o->failed = 1;
			break;
		}
		if (policy == FS_CKPT_SPOT_FALLBACK)      /* MODEL: K6 */
			sw_ns = deadline_ns - (ran ? j->restart_ns : 0) - rest_ns(j, p, k);
		if (s.t_ns >= sw_ns) {
			on_demand = true;
			break;
		}
		ready_ns = ready_at(j, &s);              /* MODEL: K2, K3 */
		if (ready_ns == FS_NS_MAX && sw_ns == FS_NS_MAX) {
			o->failed = 1;
			break;
		}
		if (ready_ns >= sw_ns) {
			s.t_ns = sw_ns;
			on_demand = true;
			break;
		}
		s.t_ns = ready_ns;
		drop_ns = next_drop(j, &s);
		if (restart) {                           /* MODEL: K2 — R is not exposed
			                                  * to Poisson interruptions */
			end_ns = s.t_ns + j->restart_ns;
			if (j->trace != NULL && drop_ns < end_ns && drop_ns < sw_ns) {
				spot_ns += drop_ns - s.t_ns;
				s.t_ns = drop_ns;
				intr++;
				continue;
			}
			if (sw_ns < end_ns) {
				spot_ns += sw_ns - s.t_ns;
				s.t_ns = sw_ns;
				on_demand = true;
				break;
			}
			spot_ns += j->restart_ns;
			s.t_ns = end_ns;
			restart = false;
			drop_ns = next_drop(j, &s);
		}
		if (!ran) {
			/* from here a move to on-demand costs a restart */
			if (policy == FS_CKPT_SPOT_FALLBACK) {
				sw_ns = deadline_ns - j->restart_ns - rest_ns(j, p, k);
				if (sw_ns <= s.t_ns) {
					on_demand = true;
					break;
				}
			}
			ran = true;
		}
		seg_ns = (k + 1 < p->n_seg ? p->tau_ns : p->last_ns) + j->delta_ns;
		end_ns = s.t_ns + seg_ns;
		if (sw_ns < end_ns && sw_ns <= drop_ns) {
			spot_ns += sw_ns - s.t_ns;
			lost_ns += sw_ns - s.t_ns;
			if (j->trace == NULL)
				s.expo_ns -= sw_ns - s.t_ns;
			s.t_ns = sw_ns;
			on_demand = true;
			break;
		}
		if (drop_ns < end_ns) {                  /* MODEL: K1 — the segment is lost */
			spot_ns += drop_ns - s.t_ns;
			lost_ns += drop_ns - s.t_ns;
			s.t_ns = drop_ns;
			intr++;
			restart = true;
			if (j->trace == NULL) {
				s.expo_ns = draw_gap(j, &s);
				s.avail_ns = s.t_ns + draw_ns(s.r_unav, j->unavail_h);
			}
			continue;
		}
		spot_ns += seg_ns;
		if (j->trace == NULL)
			s.expo_ns -= seg_ns;
		s.t_ns = end_ns;
		k++;
	}
	if (on_demand && !o->failed) {
		/* a move after running on spot restarts from the last checkpoint */
		od_ns = (ran ? j->restart_ns : 0) + rest_ns(j, p, k);
		s.t_ns += od_ns;
	}
	fs_rng_free(s.r_int);
	fs_rng_free(s.r_unav);
	o->completion_h = fs__ckpt_h(s.t_ns);
	o->spot_h = fs__ckpt_h(spot_ns);
	o->on_demand_h = fs__ckpt_h(od_ns);
	o->lost_h = fs__ckpt_h(lost_ns);
	o->interruptions = (double)intr;
	o->cost = j->cards * (o->spot_h * j->spot_price_per_h +           /* MODEL: K1 */
	                      o->on_demand_h * j->od_price_per_h);
	o->met = deadline_ns < FS_NS_MAX && s.t_ns <= deadline_ns;
}

/* ---- a policy over replications ------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The empirical p-quantile of sorted x[0..n) (type 7, linear). */
static double quantile(const double *x, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t i = (size_t)floor(h);

	if (i + 1 >= n)
		return x[n - 1];
	return x[i] + (h - (double)i) * (x[i + 1] - x[i]);
}

int fs__ckpt_policy_run(const struct fs__ckpt_job *j, const struct fs__ckpt_plan *p,
                        enum fs_ckpt_policy policy, struct fs_ckpt_result *res,
                        struct fs_error *err)
{
	size_t n = (size_t)j->replications, met = 0;
	struct fs__ckpt_rep *reps = fs_xcalloc(n, sizeof *reps);
	double *v = fs_xcalloc(5 * n, sizeof *v), *done = v, *cost = v + n, *intr = v + 2 * n,
	       *od = v + 3 * n, *lost = v + 4 * n;
	int failed = 0;

#pragma omp parallel for schedule(dynamic, 16) num_threads(j->threads)
	for (long r = 0; r < (long)n; r++)
		fs__ckpt_replicate(j, p, policy, (uint64_t)r, &reps[r]);
	for (size_t r = 0; r < n; r++) {
		failed |= reps[r].failed;
		done[r] = reps[r].completion_h;
		cost[r] = reps[r].cost;
		intr[r] = reps[r].interruptions;
		od[r] = reps[r].on_demand_h;
		lost[r] = reps[r].lost_h;
		met += reps[r].met;
	}
	free(reps);
	if (failed) {
		free(v);
		return fs_error_set(err, NULL, "interruptions", "expected a job that finishes, "
		                    "found one that needs more than %d interruptions or 100 "
		                    "years under policy %s (checkpoint more often, or fewer "
		                    "interruptions)", MAX_INTERRUPTIONS, fs_ckpt_policy_name(policy));
	}
	res->completion_h = fs_stats_mean_ci_nonneg(done, n, j->level);
	res->cost = fs_stats_mean_ci_nonneg(cost, n, j->level);
	res->interruptions = fs_stats_mean_ci_nonneg(intr, n, j->level);
	res->on_demand_h = fs_stats_mean_ci_nonneg(od, n, j->level);
	res->lost_h = fs_stats_mean_ci_nonneg(lost, n, j->level);
	if (j->deadline_ns < FS_NS_MAX) {
		res->p_deadline_met = fs_stats_wilson(met, n, j->level);
	} else {
		memset(&res->p_deadline_met, 0, sizeof res->p_deadline_met);
		res->p_deadline_met.value = res->p_deadline_met.ci_lo = NAN;
		res->p_deadline_met.ci_hi = res->p_deadline_met.half_width = NAN;
	}
	qsort(done, n, sizeof *done, cmp_double);
	qsort(cost, n, sizeof *cost, cmp_double);
	res->completion_p50_h = quantile(done, n, 0.5);
	res->completion_p95_h = quantile(done, n, 0.95);
	res->cost_p95 = quantile(cost, n, 0.95);
	free(v);
	return 0;
}
