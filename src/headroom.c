/*
 * headroom.c — the highest traffic factor a configuration sustains within
 * its SLO (headroom.h).  A probe runs a shallow copy of the scenario whose
 * arrival configs (and their schedules) are scaled copies; the copy borrows
 * everything else and is never freed as a scenario.  Probes are kept in run
 * order, and every bisection first narrows its bracket from them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/headroom.h"
#include "fleetsim/objective.h"
#include "fleetsim/replicate.h"
#include "fleetsim/workload.h"

void fs_headroom_opts_init(struct fs_headroom_opts *o, int replications, uint64_t seed)
{
	memset(o, 0, sizeof *o);
	o->replications = replications > 0 ? replications : 1;
	o->threads = 1;
	o->seed = seed;
	o->max_probes = 20;
	o->factor_min = 1.0 / 16;
	o->factor_max = 16;
	o->tol_rel = 0.02;
	o->tol_ci_rel = 0.05;
	o->objective = NULL;
}

static bool closed_loop(const struct fs_scenario *sc)
{
	size_t c;

	for (c = 0; c < sc->workload.n_classes; c++)
		if (sc->workload.classes[c].closed && sc->workload.classes[c].closed->has_users)
			return true;
	return false;
}

/* Mean of fs_arrival_rate_at over [from, to) on a one-minute grid (the
 * rate is piecewise smooth; a minute is far below its scale). */
static double mean_rate(const struct fs_arrival_cfg *a, const struct fs_sim_cfg *sim,
                        fs_ns from_ns, fs_ns to_ns)
{
	const fs_ns step_ns = 60 * FS_NS_PER_S;
	double sum = 0;
	long n = 0;
	fs_ns t;

	if (to_ns <= from_ns)
		return fs_arrival_rate_at(a, sim, from_ns);
	for (t = from_ns; t < to_ns; t += step_ns, n++)
		sum += fs_arrival_rate_at(a, sim, t + (to_ns - t < step_ns ? (to_ns - t) / 2
		                                                          : step_ns / 2));
	return sum / (double)n;
}

double fs_headroom_offered_rate(const struct fs_scenario *sc)
{
	const struct fs_workload_cfg *w = &sc->workload;
	double rate = 0;
	size_t c;

	if (closed_loop(sc))
		return NAN;
	if (w->has_shared_arrivals)
		rate += mean_rate(&w->arrivals, &sc->sim, sc->sim.warmup_ns, sc->sim.horizon_ns);
	for (c = 0; c < w->n_classes; c++)
		if (w->classes[c].own_arrivals)
			rate += mean_rate(&w->classes[c].arrivals, &sc->sim, sc->sim.warmup_ns,
			                  sc->sim.horizon_ns);
	return rate;
}

/* MODEL: H1 — traffic x f: every rate, schedule step and trace replay speed
 * multiplied by f; shares, lengths, spikes' multipliers and the diurnal
 * shape kept.  The schedule copy (heap) goes into *owned. */
static void scale_arrivals(struct fs_arrival_cfg *a, double f, struct fs_rate_step **owned)
{
	size_t i;

	a->rate_per_s *= f;
	a->trace.rate_scale *= f;
	*owned = NULL;
	if (a->n_schedule) {
		*owned = fs_xmalloc(a->n_schedule * sizeof **owned);
		memcpy(*owned, a->schedule, a->n_schedule * sizeof **owned);
		for (i = 0; i < a->n_schedule; i++)
			(*owned)[i].rate_per_s *= f;
		a->schedule = *owned;
	}
}

/* MODEL: H2 — a criterion's verdict from its replication values: the mean
 * must reach target; proven when the t interval's lower end does, refuted
 * when its upper end is below. */
static void judge_attainment(const double *x, int n, double target, bool *point,
                             int *verdict, double *worst)
{
	struct fs_ci ci = fs_stats_mean_ci(x, (size_t)n, FS_CI_LEVEL);

	if (isnan(ci.value))
		return;
	if (isnan(*worst) || ci.value < *worst)
		*worst = ci.value;
	if (ci.value < target)
		*point = false;
	if (!isnan(ci.ci_hi) && ci.ci_hi < target)
		*verdict = FS_SHARE_NOT_MET;
	else if ((isnan(ci.ci_lo) || ci.ci_lo < target) && *verdict == FS_SHARE_MET)
		*verdict = FS_SHARE_UNDECIDED;
}

static bool has_slo(const struct fs_slo_cfg *s)
{
	return s->ttft_ns > 0 || s->tpot_ns > 0 || s->e2e_ns > 0;
}

/* Judge one probe's results (MODEL: H2). */
static void judge(const struct fs_scenario *sc, const struct fs_headroom_opts *o,
                  struct fs_rep_result **res, int n, struct fs_headroom_probe *p)
{
	double *x = fs_xmalloc((size_t)n * sizeof *x);
	size_t c, k;
	int r;

	p->point_met = true;
	p->verdict = FS_SHARE_MET;
	p->worst_attainment = NAN;
	for (r = 0; r < n; r++)
		if (res[r]->stopped_early) {
			p->point_met = false;     /* unstable: the queue outgrew the system */
			p->verdict = FS_SHARE_NOT_MET;
		}
	for (c = 0; c < sc->workload.n_classes && p->verdict != FS_SHARE_NOT_MET; c++) {
		if (!has_slo(&sc->workload.classes[c].slo))
			continue;
		for (r = 0; r < n; r++)
			x[r] = fs_rep_attainment(res[r], (int)c);
		judge_attainment(x, n, sc->workload.classes[c].slo.attainment, &p->point_met,
		                 &p->verdict, &p->worst_attainment);
	}
	for (k = 0; o->objective && k < o->objective->n_constraints &&
	     p->verdict != FS_SHARE_NOT_MET; k++) {
		const struct fs_constraint *con = &o->objective->constraints[k];
		struct fs_ci ci;
		size_t needed;
		enum fs_share_verdict v;

		if (!fs_constraint_pooled(con))
			continue;
		ci = fs_objective_latency_ci(res, n, con->class_idx, (enum fs_latency)con->latency,
		                             (enum fs_quantity)con->quantity);
		if (isnan(ci.value) || ci.value > con->max_ms)
			p->point_met = false;
		v = fs_objective_pooled_verdict(con, &ci, (size_t)n, &needed);
		if (v == FS_SHARE_NOT_MET)
			p->verdict = FS_SHARE_NOT_MET;
		else if (v == FS_SHARE_UNDECIDED)
			p->verdict = FS_SHARE_UNDECIDED;
	}
	if (!p->point_met && p->verdict == FS_SHARE_MET)
		p->verdict = FS_SHARE_UNDECIDED;    /* cannot happen; kept consistent */
	free(x);
}

/* Run one probe at factor f (MODEL: H4: same seed, replications 0..R-1). */
static void run_probe(const struct fs_scenario *sc, const struct fs_headroom_opts *o,
                      double f, struct fs_headroom_probe *p)
{
	struct fs_scenario copy = *sc;
	struct fs_class_cfg *classes;
	struct fs_rate_step **owned;
	struct fs_run_opts ro = { 0 };
	struct fs_rep_result **res;
	size_t c, n_own = sc->workload.n_classes + 1;

	classes = fs_xmalloc((sc->workload.n_classes ? sc->workload.n_classes : 1) *
	                     sizeof *classes);
	owned = fs_xmalloc(n_own * sizeof *owned);
	memset(owned, 0, n_own * sizeof *owned);
	if (sc->workload.n_classes)
		memcpy(classes, sc->workload.classes, sc->workload.n_classes * sizeof *classes);
	copy.workload.classes = classes;
	if (copy.workload.has_shared_arrivals)
		scale_arrivals(&copy.workload.arrivals, f, &owned[0]);
	for (c = 0; c < sc->workload.n_classes; c++)
		if (classes[c].own_arrivals)
			scale_arrivals(&classes[c].arrivals, f, &owned[c + 1]);
	memset(&ro, 0, sizeof ro);
	ro.replications = o->replications;
	ro.first_replication = 0;
	ro.threads = o->threads > 0 ? o->threads : 1;
	ro.seed = o->seed;
	ro.record_first = false;
	res = fs_replicate_run(&copy, &ro);
	p->factor = f;
	judge(&copy, o, res, o->replications, p);
	fs_replicate_free(res, o->replications);
	for (c = 0; c < n_own; c++)
		free(owned[c]);
	free(owned);
	free(classes);
}

/* The probe at f, run unless already run; NULL when the budget is spent. */
static const struct fs_headroom_probe *probe(const struct fs_scenario *sc,
                                             const struct fs_headroom_opts *o,
                                             struct fs_headroom *h, double f)
{
	int i;

	for (i = 0; i < h->n_probes; i++)
		if (h->probes[i].factor == f)
			return &h->probes[i];
	if (h->n_probes >= o->max_probes || h->n_probes >= FS_HEADROOM_MAX_PROBES)
		return NULL;
	run_probe(sc, o, f, &h->probes[h->n_probes]);
	return &h->probes[h->n_probes++];
}

/* The three predicates the search bisects (MODEL: H3): proven met, met by
 * the estimates, not proven failing.  Each holds on an interval [0, x). */
enum pred { PROVEN, POINT, NOT_REFUTED };

static bool holds(const struct fs_headroom_probe *p, enum pred k)
{
	switch (k) {
	case PROVEN:
		return p->verdict == FS_SHARE_MET;
	case POINT:
		return p->point_met;
	case NOT_REFUTED:
		return p->verdict != FS_SHARE_NOT_MET;
	}
	return false;
}

/* The tightest bracket of predicate k from the probes: *lo the highest
 * factor where it holds (0: none), *hi the lowest above *lo where it does
 * not (INFINITY: none). */
static void bracket(const struct fs_headroom *h, enum pred k, double *lo, double *hi)
{
	int i;

	*lo = 0;
	*hi = INFINITY;
	for (i = 0; i < h->n_probes; i++)
		if (holds(&h->probes[i], k) && h->probes[i].factor > *lo)
			*lo = h->probes[i].factor;
	for (i = 0; i < h->n_probes; i++)
		if (!holds(&h->probes[i], k) && h->probes[i].factor > *lo &&
		    h->probes[i].factor < *hi)
			*hi = h->probes[i].factor;
}

/* Bisect predicate k inside its bracket to hi / lo - 1 <= tol (or the
 * budget's end); returns the bracket's lower end. */
static double bisect(const struct fs_scenario *sc, const struct fs_headroom_opts *o,
                     struct fs_headroom *h, enum pred k, double tol, double *hi_out)
{
	double lo, hi;

	for (;;) {
		bracket(h, k, &lo, &hi);
		if (lo <= 0 || isinf(hi) || hi / lo - 1 <= tol)
			break;
		if (!probe(sc, o, h, (lo + hi) / 2))
			break;
	}
	*hi_out = hi;
	return lo;
}

int fs_headroom_search(const struct fs_scenario *sc, const struct fs_headroom_opts *o,
                       struct fs_headroom *out)
{
	const struct fs_headroom_probe *p;
	double f, hi;

	memset(out, 0, sizeof *out);
	out->replications = o->replications;
	out->factor = out->factor_lo = NAN;
	out->factor_hi = INFINITY;
	out->base_rate_per_s = fs_headroom_offered_rate(sc);
	if (isnan(out->base_rate_per_s)) {
		snprintf(out->why, sizeof out->why, "closed-loop users set the load, not an "
		         "arrival rate");
		return 0;
	}
	if (!(out->base_rate_per_s > 0)) {
		snprintf(out->why, sizeof out->why, "the scenario offers no traffic to scale");
		return 0;
	}
	out->applicable = true;
	/* MODEL: H3 — bracket: double until refuted, halve until proven. */
	for (f = 1; (p = probe(sc, o, out, f)) && holds(p, NOT_REFUTED) && f < o->factor_max;)
		f = fmin(2 * f, o->factor_max);
	for (f = 1; (p = probe(sc, o, out, f)) && !holds(p, PROVEN) && f > o->factor_min;)
		f = fmax(f / 2, o->factor_min);
	out->factor = bisect(sc, o, out, POINT, o->tol_rel, &hi);
	out->above_max = isinf(hi);
	out->below_min = out->factor <= 0;
	out->factor_lo = bisect(sc, o, out, PROVEN, o->tol_ci_rel, &hi);
	if (out->factor_lo <= 0)
		out->factor_lo = NAN;
	bisect(sc, o, out, NOT_REFUTED, o->tol_ci_rel, &out->factor_hi);
	return 0;
}
