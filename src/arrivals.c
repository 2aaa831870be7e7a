/*
 * arrivals.c — arrival processes: Poisson, Gamma and Weibull renewal
 * processes modulated by thinning (diurnal cycle, rate schedule, spikes), and
 * trace replay with scaling and looping.  Pure rate functions plus the
 * per-source generator of workload_internal.h.  Times are int64 ns; gaps are
 * drawn in seconds and rounded to the nanosecond.  MODEL: W1-W13.
 */
#include <assert.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "workload_internal.h"

#define TWO_PI 6.283185307179586476925286766559

/* ---- rates ----------------------------------------------------------------- */

/* Diurnal factor m(t) = 1 + a cos(2 pi (h(t) - peak) / 24), a = (R-1)/(R+1):
 * its daily mean is 1 and max/min = R.  MODEL: W4 */
/* The diurnal cycle's amplitude: peak / trough = (1 + a) / (1 - a). */
static double diurnal_amplitude(const struct fs_arrival_cfg *cfg)
{
	double r = cfg->diurnal_peak_to_trough;

	return r >= 1.0 ? (r - 1.0) / (r + 1.0) : 0.0;
}

static double diurnal_factor(const struct fs_arrival_cfg *cfg, double start_hour,
                             fs_ns t_ns)
{
	double a = diurnal_amplitude(cfg);
	double h = start_hour + (double)t_ns / 3.6e12;

	/* fmod's value, without its call where it is h itself */
	if (!(h >= 0.0 && h < 24.0))
		h = fmod(h, 24.0);

	return 1.0 + a * cos(TWO_PI * (h - cfg->diurnal_peak_hour) / 24.0);
}

/* A floor of fs_arrival_rate_at over all t, for thinning to accept a
 * candidate without evaluating the rate: a diurnal cycle without a schedule
 * or spikes, with the trough's factor computed by diurnal_factor's
 * operations at cos = -1 (each is rounded monotonically, so the computed
 * rate is never below it); 0 (no floor) otherwise. */
static double diurnal_rate_floor(const struct fs_arrival_cfg *cfg)
{
	if (cfg->kind == FS_ARRIVAL_TRACE || !cfg->diurnal || cfg->n_schedule > 0 ||
	    cfg->n_spikes > 0 || !(cfg->rate_per_s >= 0.0))
		return 0.0;
	return cfg->rate_per_s * (1.0 + diurnal_amplitude(cfg) * -1.0) * 1.0;
}

/* The window of a rate band (band_at): a minute of candidates. */
#define BAND_NS ((fs_ns)60 * FS_NS_PER_S)

/* The band of fs_arrival_rate_at over the minute from t_ns, for a diurnal
 * cycle alone: R(t) = base (1 + a cos(2 pi h(t) / 24 + c)) is within
 * w^2/8 x max |R''| (base a (2 pi / 86,400 s)^2) of the chord through its
 * values at the window's ends, so between them widened by that; the
 * computed rates differ from R by a few roundings of h and of the rate
 * (under 1e-12 of the largest rate for any horizon under a million hours),
 * so 1e-9 of the largest rate more covers them.  Two rates a minute instead
 * of one a candidate; the thinning's decisions are the same (a candidate
 * in neither part of the band is decided by the rate itself). */
static void band_at(struct fs__arrivals *a, fs_ns t_ns)
{
	double r0 = fs_arrival_rate_at(a->cfg, a->sim, t_ns);
	double r1 = fs_arrival_rate_at(a->cfg, a->sim, t_ns + BAND_NS);
	double w_s = (double)BAND_NS / FS_NS_PER_SECOND, k = TWO_PI / 86400.0;
	double bend = w_s * w_s / 8.0 * a->cfg->rate_per_s * diurnal_amplitude(a->cfg) * k * k;
	double slack = bend + 1e-9 * a->rate_max_per_s;

	a->band_from_ns = t_ns;
	a->band_to_ns = t_ns + BAND_NS;
	a->band_lo_per_s = (r0 < r1 ? r0 : r1) - slack;
	a->band_hi_per_s = (r0 > r1 ? r0 : r1) + slack;
}

/* The index of the last of n steps (each `size` bytes, beginning with its
 * fs_ns at_ns, ascending) at or before t_ns; the first must be.  The
 * schedule's and the spike profile's steps.  O(log n). */
static size_t step_at(const void *steps, size_t n, size_t size, fs_ns t_ns)
{
	const char *base = steps;
	size_t lo = 0, hi = n;

	_Static_assert(offsetof(struct fs_rate_step, at_ns) == 0 &&
	               offsetof(struct fs_spike_step, at_ns) == 0, "steps begin with at_ns");

	while (hi - lo > 1) {           /* step lo's at_ns <= t < step hi's */
		size_t mid = lo + (hi - lo) / 2;
		fs_ns at_ns;

		memcpy(&at_ns, base + mid * size, sizeof at_ns);
		if (at_ns <= t_ns)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Rate of the schedule at t: the last step at or before t (within the period
 * when it repeats; before the first step of a period the last step's rate
 * carries over).  Before the first step of a one-shot schedule: 0.
 * O(log n_schedule).  MODEL: W5 */
static double schedule_rate(const struct fs_arrival_cfg *cfg, fs_ns t_ns)
{

	if (cfg->schedule_period_ns > 0)
		t_ns %= cfg->schedule_period_ns;
	if (cfg->n_schedule == 0)
		return 0.0;
	if (t_ns < cfg->schedule[0].at_ns)
		return cfg->schedule_period_ns > 0 ?
		       cfg->schedule[cfg->n_schedule - 1].rate_per_s : 0.0;
	return cfg->schedule[step_at(cfg->schedule, cfg->n_schedule, sizeof *cfg->schedule,
	                             t_ns)].rate_per_s;
}

/* Product of the multipliers of the spikes active at t ([at, at + dur)): the
 * last step of the profile at or before t, 1 before the first.
 * O(log n_spike_steps).  MODEL: W6 */
static double spike_factor(const struct fs_arrival_cfg *cfg, fs_ns t_ns)
{
	size_t n = cfg->n_spike_steps;

	assert(cfg->n_spikes == 0 || cfg->spike_steps != NULL);  /* prepared */
	if (n == 0 || t_ns < cfg->spike_steps[0].at_ns)
		return 1.0;
	return cfg->spike_steps[step_at(cfg->spike_steps, n, sizeof *cfg->spike_steps,
	                                t_ns)].factor;
}

/* Mean rate of a trace replay: n rows per (span + gap) x scale.  MODEL: W10 */
static double trace_rate(const struct fs_arrival_cfg *cfg)
{
	const struct fs_trace *t = cfg->trace.trace;
	double period_s, scale;

	if (t == NULL || t->n_rows == 0)
		return 0.0;
	scale = cfg->trace.time_scale / cfg->trace.rate_scale;
	period_s = (double)(t->span_ns + t->loop_gap_ns) / FS_NS_PER_SECOND * scale;
	return period_s > 0.0 ? (double)t->n_rows / period_s : 0.0;
}

/*
 * Instantaneous rate (per second) at t_ns: base x diurnal x spikes, or
 * schedule x spikes when a schedule is given (it replaces base and diurnal).
 * TRACE: the trace's mean rate after scaling, unmodulated.  `sim` supplies
 * start_hour for the diurnal clock (NULL: hour 0).  Pure; O(log n_schedule +
 * log n_spikes).
 */
double fs_arrival_rate_at(const struct fs_arrival_cfg *cfg,
                          const struct fs_sim_cfg *sim, fs_ns t_ns)
{
	double rate;

	if (cfg->kind == FS_ARRIVAL_TRACE)
		return trace_rate(cfg);
	if (cfg->n_schedule > 0)
		rate = schedule_rate(cfg, t_ns);
	else if (cfg->diurnal)
		rate = cfg->rate_per_s * diurnal_factor(cfg, sim != NULL ? sim->start_hour : 0.0,
		                                        t_ns);
	else
		rate = cfg->rate_per_s;
	return rate * spike_factor(cfg, t_ns);
}

/* Largest product of spike multipliers over time, and 1 (the factor outside
 * every spike).  O(1): kept by fs_arrival_prepare. */
static double spike_factor_max(const struct fs_arrival_cfg *cfg)
{
	assert(cfg->n_spikes == 0 || cfg->spike_steps != NULL);  /* prepared */
	return cfg->n_spikes > 0 ? cfg->spike_factor_max : 1.0;
}

/* A spike's start or end: from at_ns on, spike `spike`'s multiplier is in
 * the product (start) or out of it (end). */
struct spike_edge {
	fs_ns at_ns;
	size_t spike;
	bool start;
};

/* Order of edges: time, then spike, then end before start (a total order, so
 * qsort's instability cannot show). */
static int edge_cmp(const void *pa, const void *pb)
{
	const struct spike_edge *a = pa, *b = pb;

	if (a->at_ns != b->at_ns)
		return a->at_ns < b->at_ns ? -1 : 1;
	if (a->spike != b->spike)
		return a->spike < b->spike ? -1 : 1;
	return (int)a->start - (int)b->start;
}

/* Set leaf i of the product tree (leaves at [half, 2 half), 1 where no spike
 * is active) and recompute its ancestors: O(log n). */
static void tree_set(double *tree, size_t half, size_t i, double v)
{
	size_t k = half + i;

	tree[k] = v;
	for (k /= 2; k >= 1; k /= 2)
		tree[k] = tree[2 * k] * tree[2 * k + 1];
}

/* MODEL: W6 — overlapping spikes multiply.  A sweep over the spikes' edges
 * in time order keeps the product of the active multipliers in a tree (root
 * tree[1]) and records it at every edge time where it changes: the profile
 * holds every factor the rate can take, so its largest bounds the rate at
 * every t (after a spike below 1 ends, too). */
void fs_arrival_prepare(struct fs_arrival_cfg *cfg)
{
	size_t n = cfg->n_spikes, n_edges = 0, half = 1, i, j;
	struct spike_edge *edges;
	double *tree, prev = 1.0;

	fs_arrival_fini(cfg);
	if (n == 0)
		return;
	edges = fs_xmalloc(2 * n * sizeof *edges);
	for (i = 0; i < n; i++) {
		const struct fs_spike *sp = &cfg->spikes[i];

		edges[n_edges++] = (struct spike_edge){sp->at_ns, i, true};
		if (sp->dur_ns <= FS_NS_MAX - sp->at_ns)      /* else it never ends */
			edges[n_edges++] = (struct spike_edge){sp->at_ns + sp->dur_ns, i, false};
	}
	qsort(edges, n_edges, sizeof *edges, edge_cmp);
	while (half < n)
		half *= 2;
	tree = fs_xmalloc(2 * half * sizeof *tree);
	for (i = 0; i < 2 * half; i++)
		tree[i] = 1.0;
	cfg->spike_steps = fs_xmalloc(n_edges * sizeof *cfg->spike_steps);
	cfg->spike_factor_max = 1.0;
	for (i = 0; i < n_edges; i = j) {
		for (j = i; j < n_edges && edges[j].at_ns == edges[i].at_ns; j++)
			tree_set(tree, half, edges[j].spike,
			         edges[j].start ? cfg->spikes[edges[j].spike].multiplier : 1.0);
		if (tree[1] == prev)
			continue;
		cfg->spike_steps[cfg->n_spike_steps++] =
			(struct fs_spike_step){edges[i].at_ns, tree[1]};
		prev = tree[1];
		if (tree[1] > cfg->spike_factor_max)
			cfg->spike_factor_max = tree[1];
	}
	free(tree);
	free(edges);
}

void fs_arrival_fini(struct fs_arrival_cfg *cfg)
{
	free(cfg->spike_steps);
	cfg->spike_steps = NULL;
	cfg->n_spike_steps = 0;
	cfg->spike_factor_max = 0.0;
}

/*
 * An upper bound of fs_arrival_rate_at over all t, tight unless spikes with
 * multipliers < 1 are the only ones active somewhere: max schedule step (or
 * base x (1 + a) when diurnal, or base) x the largest spike product.
 * TRACE: its mean rate.  O(n_schedule).
 */
double fs_arrival_rate_max(const struct fs_arrival_cfg *cfg)
{
	double base = 0.0;

	if (cfg->kind == FS_ARRIVAL_TRACE)
		return trace_rate(cfg);
	if (cfg->n_schedule > 0) {
		for (size_t i = 0; i < cfg->n_schedule; i++)
			if (cfg->schedule[i].rate_per_s > base)
				base = cfg->schedule[i].rate_per_s;
	} else if (cfg->diurnal) {
		base = cfg->rate_per_s * (1.0 + diurnal_amplitude(cfg));
	} else {
		base = cfg->rate_per_s;
	}
	return base > 0.0 ? base * spike_factor_max(cfg) : 0.0;
}

/* ---- renewal processes with thinning -------------------------------------- */

/* One gap (seconds) of the candidate renewal process at the envelope rate.
 * MODEL: W1-W3 */
static double draw_gap_s(struct fs__arrivals *a)
{
	switch (a->cfg->kind) {
	case FS_ARRIVAL_POISSON:
		return fs_rng_exponential(a->rng, a->gap_scale_s);
	case FS_ARRIVAL_GAMMA:
		return fs_rng_gamma(a->rng, a->gap_shape, a->gap_scale_s);
	case FS_ARRIVAL_WEIBULL:
		return fs_rng_weibull(a->rng, a->gap_scale_s, a->gap_shape);
	case FS_ARRIVAL_TRACE:
		break;
	}
	assert(!"draw_gap_s on a trace source");
	return INFINITY;
}

/* True when the rate is zero at t and stays zero (a one-shot schedule whose
 * last step is 0 and has begun): stop instead of thinning to the horizon. */
static bool zero_from_now_on(const struct fs_arrival_cfg *cfg, fs_ns t_ns)
{
	const struct fs_rate_step *last;

	if (cfg->n_schedule == 0 || cfg->schedule_period_ns > 0)
		return false;
	last = &cfg->schedule[cfg->n_schedule - 1];
	return last->rate_per_s <= 0.0 && t_ns >= last->at_ns;
}

static fs_ns next_renewal(struct fs__arrivals *a)
{
	fs_ns horizon_ns = a->sim->horizon_ns;

	for (;;) {
		double gap_ns = draw_gap_s(a) * FS_NS_PER_SECOND, u_rate;

		/* MODEL: W8 — only arrivals strictly before the horizon */
		if (!((double)a->cand_ns + gap_ns < (double)horizon_ns)) {
			a->done = true;
			return FS_NS_MAX;
		}
		a->cand_ns += fs_round_half_away(gap_ns);   /* 0 <= gap < horizon */
		if (a->cand_ns >= horizon_ns) {
			a->done = true;
			return FS_NS_MAX;
		}
		if (!a->modulated)
			return a->cand_ns;     /* MODEL: W7 — no thinning, no draw */
		if (zero_from_now_on(a->cfg, a->cand_ns)) {
			a->done = true;
			return FS_NS_MAX;
		}
		/* MODEL: W7 — Lewis-Shedler thinning (below the rate's floor
		 * the candidate is kept without evaluating the rate) */
		u_rate = fs_rng_uniform(a->rng) * a->rate_max_per_s;
		if (u_rate < a->rate_min_per_s)
			return a->cand_ns;
		if (a->banded) {
			if (a->cand_ns < a->band_from_ns || a->cand_ns > a->band_to_ns)
				band_at(a, a->cand_ns);
			if (u_rate < a->band_lo_per_s)
				return a->cand_ns;
			if (u_rate >= a->band_hi_per_s)
				continue;      /* u_rate >= the rate: rejected */
		}
		if (u_rate < fs_arrival_rate_at(a->cfg, a->sim, a->cand_ns))
			return a->cand_ns;
	}
}

/* ---- trace replay --------------------------------------------------------- */

/* Find the first row at or after the start offset (trace time), looping
 * whole periods first when the replay loops.  MODEL: W11 */
static void trace_start(struct fs__arrivals *a)
{
	const struct fs_trace *t = a->cfg->trace.trace;
	fs_ns off_ns = a->cfg->trace.start_offset_ns > 0 ? a->cfg->trace.start_offset_ns : 0;
	size_t lo = 0, hi;
	int64_t loops = 0;

	a->period_ns = t->span_ns + (t->loop_gap_ns > 0 ? t->loop_gap_ns : FS_NS_PER_S);
	if (a->cfg->trace.loop) {
		loops = off_ns / a->period_ns;
		off_ns -= loops * a->period_ns;
	}
	hi = t->n_rows;
	while (lo < hi) {               /* first row with t_ns >= off_ns */
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].t_ns < off_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->n_rows) {
		if (!a->cfg->trace.loop) {
			a->done = true;
			return;
		}
		lo = 0;                 /* offset fell in the gap after the last row */
	}
	a->row = lo;
	a->first_t_ns = t->rows[lo].t_ns;
	a->loop = 0;
}

static fs_ns next_trace(struct fs__arrivals *a, const struct fs_trace_row **row)
{
	const struct fs_trace *t = a->cfg->trace.trace;
	const struct fs_trace_row *r;
	double at_ns;

	if (a->row == t->n_rows) {
		if (!a->cfg->trace.loop) {
			a->done = true;
			return FS_NS_MAX;
		}
		a->row = 0;             /* MODEL: W12 */
		a->loop++;
	}
	r = &t->rows[a->row++];
	/* MODEL: W10 — (trace time since the first kept row) x time_scale / rate_scale */
	at_ns = ((double)a->loop * (double)a->period_ns +
	         (double)(r->t_ns - a->first_t_ns)) * a->scale;
	if (!(at_ns < (double)a->sim->horizon_ns)) {
		a->done = true;
		return FS_NS_MAX;
	}
	*row = r;
	return llround(at_ns);
}

/* ---- the generator ---------------------------------------------------------- */

void fs__arrivals_init(struct fs__arrivals *a, const struct fs_arrival_cfg *cfg,
                       const struct fs_sim_cfg *sim, struct fs_rng *rng)
{
	*a = (struct fs__arrivals){.cfg = cfg, .sim = sim, .rng = rng};
	if (sim->horizon_ns <= 0) {
		a->done = true;
		return;
	}
	if (cfg->kind == FS_ARRIVAL_TRACE) {
		const struct fs_trace *t = cfg->trace.trace;

		if (t == NULL || t->n_rows == 0 || !(cfg->trace.time_scale > 0.0) ||
		    !(cfg->trace.rate_scale > 0.0)) {
			a->done = true;
			return;
		}
		a->scale = cfg->trace.time_scale / cfg->trace.rate_scale;
		trace_start(a);
		return;
	}
	a->modulated = cfg->diurnal || cfg->n_schedule > 0 || cfg->n_spikes > 0;
	a->rate_max_per_s = fs_arrival_rate_max(cfg);
	a->rate_min_per_s = diurnal_rate_floor(cfg);
	/* the same conditions: a diurnal cycle alone (MODEL: W7) */
	a->banded = a->rate_min_per_s > 0.0 && (double)sim->horizon_ns < 3.6e18;
	a->band_from_ns = 0;
	a->band_to_ns = -1;              /* empty: the first candidate sets it */
	if (!(a->rate_max_per_s > 0.0) || !isfinite(a->rate_max_per_s)) {
		a->done = true;         /* MODEL: W9 — zero envelope: no arrivals */
		return;
	}
	switch (cfg->kind) {
	case FS_ARRIVAL_POISSON:
		a->gap_scale_s = 1.0 / a->rate_max_per_s;
		break;
	case FS_ARRIVAL_GAMMA:          /* MODEL: W2 — shape 1/cv^2, mean 1/rate */
		a->gap_shape = 1.0 / (cfg->cv * cfg->cv);
		a->gap_scale_s = 1.0 / (a->rate_max_per_s * a->gap_shape);
		break;
	case FS_ARRIVAL_WEIBULL:        /* MODEL: W3 — mean scale x Gamma(1 + 1/k) */
		a->gap_shape = cfg->weibull_shape;
		a->gap_scale_s = 1.0 / (a->rate_max_per_s *
		                        gsl_sf_gamma(1.0 + 1.0 / cfg->weibull_shape));
		break;
	case FS_ARRIVAL_TRACE:
		break;
	}
}

fs_ns fs__arrivals_next(struct fs__arrivals *a, const struct fs_trace_row **row)
{
	*row = NULL;
	if (a->done)
		return FS_NS_MAX;
	if (a->cfg->kind == FS_ARRIVAL_TRACE)
		return next_trace(a, row);
	return next_renewal(a);
}
