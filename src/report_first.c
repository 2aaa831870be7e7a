/*
 * report_first.c — the report's first section, the answer in plain words:
 * the recommendation with its pricing plan, monthly and annual cost, the
 * budget to ask for (the budget module's margin rule, G9) and the cheaper
 * plan break-even allows; headroom (searched and cached by
 * report_first_rec.c); availability and spot exposure (read from
 * summary.json); the simulated hours against the daily peak; confidence in
 * words.  summary.json figures are read, never recomputed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/billing.h"
#include "fleetsim/budget.h"
#include "fleetsim/headroom.h"
#include "fleetsim/scenario.h"
#include "fleetsim/stats.h"
#include "fleetsim/workload.h"
#include "report_first.h"
#include "report_internal.h"

/* ---- the sentences ---- */

/* "2 x l40s on hourly (on demand)" for every pool of the recommendation;
 * from summary.json's pools when the scenario could not be loaded. */
static void plan_text(const struct fs__report *r, const struct fs__first *f, char *buf,
                      size_t len)
{
	size_t used = 0, i;
	const cJSON *p;

	buf[0] = '\0';
	if (f->rec && f->rec->engine.kind == FS_ENGINE_VLLM) {
		for (i = 0; i < f->rec->fleet.n_pools; i++) {
			const struct fs_pool_cfg *pl = &f->rec->fleet.pools[i];
			const struct fs_gpu_spec *g = pl->llm ? pl->llm->perf.gpu : NULL;
			char range[64] = "";
			int n;

			if (pl->min_count != pl->max_count)
				snprintf(range, sizeof range, " (autoscaled %d to %d)", pl->min_count,
				         pl->max_count);
			n = snprintf(buf + used, len - used, "%s%d x %s%s%s on the %s plan",
			             used ? "; " : "", pl->count, g ? g->id : "?",
			             pl->llm && pl->llm->perf.tp > 1 ? " (TP > 1)" : "", range,
			             fs_pricing_label(pl->pricing));
			if (n < 0 || used + (size_t)n >= len)
				return;
			used += (size_t)n;
		}
		return;
	}
	cJSON_ArrayForEach(p, fs__jget(r->summary, "cost.pools")) {
		int n = snprintf(buf + used, len - used, "%spool %s on the %s plan",
		                 used ? "; " : "", p->string ? p->string : "?",
		                 fs__jstr(p, "plan") ? fs__jstr(p, "plan") : "?");

		if (n < 0 || used + (size_t)n >= len)
			return;
		used += (size_t)n;
	}
}

/* MODEL: H7 — what the plan costs a month and a year, and the budget to
 * ask for by the budget module's margin rule (G9) with its defaults. */
static void cost_items(struct fs__report *r, struct fs__ci month)
{
	char a[96], b[32], c[32], d[32], e[32];
	double year, risk, buf, planned;

	if (isnan(month.value)) {
		fs__doc_item(r, "Cost: not known (no monthly projection in the directory).");
		return;
	}
	year = 12 * month.value;
	planned = fs_budget_planned(year, FS_BUDGET_RISK_DEFAULT, FS_BUDGET_BUFFER_DEFAULT,
	                            &risk, &buf);
	fs__doc_item(r, "Cost per month (the simulated hours projected to 730 h; intervals "
	             "95%%): %s %s; per year (12 months): %s %s.", r->currency,
	             fs__ci_text(a, sizeof a, month), r->currency,
	             fs__num_text(b, sizeof b, year));
	fs__doc_item(r, "Annual budget to ask for: %s %s = the annual estimate %s %s + a risk "
	             "allowance of %.0f%% (%s %s) + a buffer of %.0f%% on both (%s %s): the "
	             "planning margin of fleetsim budget (MODEL G9).", r->currency,
	             fs__num_text(c, sizeof c, planned), r->currency,
	             fs__num_text(b, sizeof b, year), 100 * (FS_BUDGET_RISK_DEFAULT - 1),
	             r->currency, fs__num_text(d, sizeof d, risk),
	             100 * FS_BUDGET_BUFFER_DEFAULT, r->currency,
	             fs__num_text(e, sizeof e, buf));
}

static int pricing_of(const char *name)
{
	int p;

	for (p = 0; name && p < FS_PRICING__COUNT; p++)
		if (strcmp(fs_pricing_name((enum fs_pricing)p), name) == 0)
			return p;
	return -1;
}

/* The instances pool (summary.json's cost.pools entry) already commits: 0
 * when it rents by the hour, its count when its plan is a commitment (MODEL
 * B4: the first count instances are the commitment, those above it overflow,
 * billed by the hour, B6), -1 when the recommended scenario is not known. */
static int committed_count(const struct fs__first *f, const cJSON *pool)
{
	int plan = pricing_of(fs__jstr(pool, "pricing"));
	size_t i;

	if (plan >= 0 && !fs_pricing_committed((enum fs_pricing)plan))
		return 0;
	if (plan < 0 || !f || !f->rec || !pool->string)
		return -1;
	for (i = 0; i < f->rec->fleet.n_pools; i++)
		if (strcmp(f->rec->fleet.pools[i].name, pool->string) == 0)
			return f->rec->fleet.pools[i].count;
	return -1;
}

/* The sentence for a committed pool: its committed instances, and whether
 * the ones above them, rented by the hour at the overflow price, would be
 * cheaper committed too. */
static void committed_item(struct fs__report *r, const char *name, int committed, int plan,
                           double fee, double hourly, double be_h, int worth, double saving)
{
	char a[32], b[32], c[32], d[32];

	if (committed < 0) {
		fs__doc_item(r, "Cheaper plan: none for pool %s: it already pays the %s plan.",
		             name, fs_pricing_label((enum fs_pricing)plan));
		return;
	}
	if (worth > 0) {
		fs__doc_item(r, "Cheaper plan: pool %s commits %d instance%s on the %s plan and "
		             "rents those above by the hour (overflow at %s %s/h), but %d of them "
		             "%s used more than the break-even of %s h a month (%.0f%%): committing "
		             "them too would cost %s %s less per month.", name, committed,
		             committed == 1 ? "" : "s", fs_pricing_label((enum fs_pricing)plan),
		             r->currency, fs__num_text(a, sizeof a, hourly), worth,
		             worth == 1 ? "is" : "are", fs__num_text(b, sizeof b, be_h),
		             100 * be_h / FS_HOURS_PER_MONTH, r->currency,
		             fs__num_text(c, sizeof c, saving));
		return;
	}
	fs__doc_item(r, "Cheaper plan: none for pool %s: it already commits %d instance%s on "
	             "the %s plan (fee %s %s per period), and no instance above %s (overflow "
	             "at %s %s/h) is used more than the break-even of %s h a month.", name,
	             committed, committed == 1 ? "" : "s", fs_pricing_label((enum fs_pricing)plan),
	             r->currency, fs__num_text(a, sizeof a, fee), committed == 1 ? "it" : "them",
	             r->currency,
	             fs__num_text(b, sizeof b, hourly), fs__num_text(d, sizeof d, be_h));
}

/* MODEL: B8 — a cheaper plan where utilisation allows one: summary.json's
 * break-even of each pool (the instance-hours per month of each instance it
 * rents by the hour against the fee / hourly price), with the monthly saving
 * of committing.  A committed pool rents by the hour only the instances above
 * its commitment. */
static void cheaper_plan(struct fs__report *r, const struct fs__first *f)
{
	const cJSON *p, *v;
	bool any = false;
	char a[32], b[32], c[32];

	cJSON_ArrayForEach(p, fs__jget(r->summary, "cost.pools")) {
		const cJSON *be = fs__jget(p, "break_even");
		const char *name = p->string ? p->string : "?";
		int plan = pricing_of(fs__jstr(be, "plan")), committed = committed_count(f, p);
		double fee = fs__jnum(be, "fee_per_period"), hourly = fs__jnum(be, "hourly_price");
		double be_h, saving = 0, period_h;
		int worth = 0, n = 0, k = 0;

		if (!cJSON_IsTrue(fs__jget(be, "available")) || plan < 0)
			continue;
		any = true;
		period_h = (double)fs_pricing_period_ns((enum fs_pricing)plan) / 3.6e12;
		be_h = fs_billing_break_even_h_per_month(fee, fs_pricing_period_ns(
		                                         (enum fs_pricing)plan), hourly);
		cJSON_ArrayForEach(v, fs__jget(be, "instance_hours_per_month")) {
			if (committed < 0 || k++ < committed)
				continue;            /* committed already, not rented */
			n++;
			if (cJSON_IsNumber(v) && v->valuedouble > be_h) {
				worth++;
				saving += hourly * v->valuedouble - fee * FS_HOURS_PER_MONTH / period_h;
			}
		}
		if (committed != 0)
			committed_item(r, name, committed, plan, fee, hourly, be_h, worth, saving);
		else if (worth > 0)
			fs__doc_item(r, "Cheaper plan: pool %s pays by the hour, but %d of its %d "
			             "instances are used more than the break-even of %s h a month "
			             "(%.0f%%): on the %s plan they would cost %s %s less per month.",
			             name, worth, n,
			             fs__num_text(a, sizeof a, be_h), 100 * be_h / FS_HOURS_PER_MONTH,
			             fs_pricing_label((enum fs_pricing)plan), r->currency,
			             fs__num_text(b, sizeof b, saving));
		else
			fs__doc_item(r, "Cheaper plan: none for pool %s: no instance is used more "
			             "than the break-even of %s h a month of the %s plan (fee %s %s "
			             "per period).", name,
			             fs__num_text(a, sizeof a, be_h),
			             fs_pricing_label((enum fs_pricing)plan), r->currency,
			             fs__num_text(c, sizeof c, fee));
	}
	if (!any && r->summary)
		fs__doc_item(r, "Cheaper plan: none to compare (no pool pays by the hour, or no "
		             "commitment price is known for its GPU).");
	else if (!r->summary)
		fs__doc_item(r, "Cheaper plan: run the recommended configuration (fleetsim run) "
		             "for its instance-hours and break-even.");
}

static const char *factor_text(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (isinf(v))
		snprintf(buf, len, "above the search's 16x");
	else
		snprintf(buf, len, "%.2fx", v);
	return buf;
}

/* What the headroom sentence is about, as the recommendation above it
 * decided: the recommended fleet only when it is recommended. */
static void subject_text(const struct fs__report *r, bool recommended, char *buf,
                         size_t len)
{
	if (recommended)
		snprintf(buf, len, "the recommended fleet");
	else if (r->kind == FS_REPORT_VARIANTS)
		snprintf(buf, len, "variant %s (not recommended)", r->variants[r->rec].name);
	else
		snprintf(buf, len, "the simulated fleet (not recommended)");
}

/* Where the headroom figures come from: searched by this report (and
 * kept for later ones, or why not), or read from what an earlier one
 * kept. */
static const char *kept_text(const struct fs__first *f, char *buf, size_t len)
{
	if (f->cached)
		snprintf(buf, len, "; not searched again: read from headroom.json, which an "
		         "earlier report searched with the same scenario, seed and "
		         "replications");
	else if (f->not_kept[0] == '\0')
		snprintf(buf, len, "; searched by this report and kept in headroom.json for "
		         "later reports of this directory");
	else
		snprintf(buf, len, "; searched by this report, not kept for later reports (%s)",
		         f->not_kept);
	return buf;
}

/* MODEL: H3, H5 — the headroom sentence and "what if traffic doubles". */
static void headroom_item(struct fs__report *r, const struct fs__first *f)
{
	const struct fs_headroom *h = &f->h;
	char a[48], b[48], c[48], d[32], e[32], kept[700];
	const char *doubles;

	if (!f->rec) {
		fs__doc_item(r, "Headroom: not searched: %s.", f->why);
		return;
	}
	if (!h->applicable) {
		fs__doc_item(r, "Headroom: not searched: %s.", h->why);
		return;
	}
	if (h->below_min) {
		fs__doc_item(r, "Headroom: none: even 1/16 of the simulated traffic misses the "
		             "SLO.");
		return;
	}
	doubles = h->factor_lo >= 2 ? "it still meets the SLO (proven on the interval)" :
	          h->factor_hi <= 2 ? "it misses the SLO: plan more capacity before then" :
	          h->factor >= 2 ? "it probably still meets the SLO (the estimate does; "
	                           "not proven with these replications)" :
	          "it probably misses the SLO (the estimate does; not proven with these "
	          "replications)";
	fs__doc_item(r, "Headroom: %s stays within its SLO up to %s%s the "
	             "simulated traffic, %s requests/s against %s simulated (95%% interval %s "
	             "to %s). If traffic doubles, %s. Search: every arrival rate scaled by one "
	             "factor, bracketed and bisected, %d probes of %d replications on the "
	             "run's seed (at most %d probes)%s.", f->subject,
	             factor_text(a, sizeof a, h->factor),
	             h->above_max ? " or more" : "",
	             fs__num_text(d, sizeof d, h->factor * h->base_rate_per_s),
	             fs__num_text(e, sizeof e, h->base_rate_per_s),
	             factor_text(b, sizeof b, h->factor_lo), factor_text(c, sizeof c, h->factor_hi),
	             doubles, h->n_probes, h->replications, HEADROOM_PROBES,
	             kept_text(f, kept, sizeof kept));
}

/* Total arrival rate of sc at t_ns, all processes. */
static double rate_at(const struct fs_scenario *sc, fs_ns t_ns)
{
	const struct fs_workload_cfg *w = &sc->workload;
	double v = w->has_shared_arrivals ? fs_arrival_rate_at(&w->arrivals, &sc->sim, t_ns) : 0;
	size_t c;

	for (c = 0; c < w->n_classes; c++)
		if (w->classes[c].own_arrivals)
			v += fs_arrival_rate_at(&w->classes[c].arrivals, &sc->sim, t_ns);
	return v;
}

static void clock_text(char *buf, size_t len, double hour)
{
	double h = fmod(hour, 24);
	int m = (int)lround(h * 60) % 1440;

	snprintf(buf, len, "%02d:%02d", m / 60, m % 60);
}

/* MODEL: H6 — the simulated hours against the daily peak: the first day
 * of simulated time on a one-minute grid; the window covers the peak when
 * its highest rate reaches 99% of the day's. */
static void peak_item(struct fs__report *r, const struct fs_scenario *sc,
                      const struct fs_headroom *h, bool have_h)
{
	const fs_ns min_ns = 60 * FS_NS_PER_S, day_ns = 1440 * min_ns;
	double per_day = 0, peak = 0, peak_h = 0, lo = INFINITY, win = 0;
	char a[32], b[32], c[32], d[16], e[16], g[16];
	fs_ns t;

	if (!sc)
		return;
	if (isnan(fs_headroom_offered_rate(sc))) {
		fs__doc_item(r, "Traffic: closed-loop users set the load; no daily arrival "
		             "rate to compare.");
		return;
	}
	for (t = 0; t < day_ns; t += min_ns) {
		double v = rate_at(sc, t + min_ns / 2);

		per_day += v * 60;
		lo = fmin(lo, v);
		if (v > peak) {
			peak = v;
			peak_h = sc->sim.start_hour + (double)(t + min_ns / 2) / 3.6e12;
		}
	}
	for (t = sc->sim.warmup_ns; t < sc->sim.horizon_ns; t += min_ns)
		win = fmax(win, rate_at(sc, t + min_ns / 2));
	if (sc->sim.horizon_ns <= sc->sim.warmup_ns)
		win = rate_at(sc, sc->sim.warmup_ns);
	clock_text(d, sizeof d, sc->sim.start_hour + (double)sc->sim.warmup_ns / 3.6e12);
	clock_text(e, sizeof e, sc->sim.start_hour + (double)sc->sim.horizon_ns / 3.6e12);
	clock_text(g, sizeof g, peak_h);
	if (peak - lo <= 1e-9 * peak) {
		fs__doc_item(r, "Traffic: %s requests a day at a constant %s requests/s: every "
		             "hour is alike, so the simulated hours (%s to %s) stand for the "
		             "peak.", fs__num_text(a, sizeof a, per_day),
		             fs__num_text(b, sizeof b, peak), d, e);
		return;
	}
	if (win >= 0.99 * peak) {
		fs__doc_item(r, "Traffic: %s requests a day, peaking at %s requests/s around %s; "
		             "the simulated hours (%s to %s, measured after the warm-up) include "
		             "the peak.", fs__num_text(a, sizeof a, per_day),
		             fs__num_text(b, sizeof b, peak), g, d, e);
		return;
	}
	fs__doc_item(r, "Warning: the simulated hours (%s to %s) miss the daily peak: %s "
	             "requests a day, peaking at %s requests/s around %s, %.2fx the busiest "
	             "simulated minute (%s requests/s).%s", d, e,
	             fs__num_text(a, sizeof a, per_day), fs__num_text(b, sizeof b, peak), g,
	             peak / win, fs__num_text(c, sizeof c, win),
	             !have_h || !h->applicable ? " Simulate the peak hour (simulation.start_hour) "
	             "before signing." :
	             h->factor_lo * h->base_rate_per_s >= peak ?
	             " The headroom covers it (proven)." :
	             h->factor * h->base_rate_per_s >= peak ?
	             " The headroom estimate covers it, not proven: simulate the peak hour "
	             "(simulation.start_hour)." :
	             " The headroom does NOT cover it: simulate the peak hour "
	             "(simulation.start_hour) and size the fleet for it.");
}

/* Availability and spot exposure as summary.json states them (F15-F18). */
static void availability_items(struct fs__report *r)
{
	const cJSON *s = r->summary, *p, *w;
	double requeued = 0, failed = 0, reclaims = 0;
	char a[96], b[96], c[96], d[32], e[32], g[32];

	if (!s) {
		fs__doc_item(r, "Availability: not kept per sweep point; run the recommended "
		             "configuration (fleetsim run) for outage minutes and spot "
		             "exposure.");
		return;
	}
	fs__availability_texts(s, a, b, c, sizeof a);
	if (isnan(fs__jnum(s, "availability.fleet.availability.value")))
		fs__doc_item(r, "Availability: not measured (no fleet: the queue engine).");
	else
		fs__doc_item(r, "Availability: the fleet had the serving instances it wanted %s of "
		             "the time; outage minutes per month: %s with fewer serving than "
		             "wanted, %s with none serving.", a, b, c);
	cJSON_ArrayForEach(p, fs__jget(s, "availability.pools")) {
		if (!isnan(fs__jnum(p, "requests_requeued_by_reclaims.value")))
			requeued += fs__jnum(p, "requests_requeued_by_reclaims.value");
		if (!isnan(fs__jnum(p, "requests_failed_by_reclaims.value")))
			failed += fs__jnum(p, "requests_failed_by_reclaims.value");
	}
	cJSON_ArrayForEach(p, fs__jget(s, "cost.pools"))
		if (!isnan(fs__jnum(p, "reclaims.value")))
			reclaims += fs__jnum(p, "reclaims.value");
	if (fs__jnum(s, "cost.by_pricing.spot.value") > 0 || reclaims > 0)
		fs__doc_item(r, "Spot exposure: %s reclaims per simulated run (%s), %s requests "
		             "delayed by them (moved to another instance) and %s failed; %s %s "
		             "lost to reclaims per run.", fs__num_text(d, sizeof d, reclaims),
		             fs__jstr(s, "provenance.horizon") ? fs__jstr(s, "provenance.horizon")
		                                               : "?",
		             fs__num_text(e, sizeof e, requeued), fs__num_text(g, sizeof g, failed),
		             r->currency, fs__ci_text(a, sizeof a, fs__jci(s, "cost.lost_to_reclaims")));
	else
		fs__doc_item(r, "Spot exposure: none (no spot capacity).");
	cJSON_ArrayForEach(w, fs__jget(s, "warnings"))
		if (cJSON_IsString(w))
			fs__doc_item(r, "Warning: %s.", w->valuestring);
}

/* MODEL: H8 — N+1: with one of N instances lost the rest carry the load
 * below their saturation throughput (summary.json's capacity utilisation
 * x N / (N - 1) < 1); without a summary, the headroom against N / (N - 1). */
static void redundancy_item(struct fs__report *r, const struct fs__first *f)
{
	double u = fs__jnum(r->summary, "utilization.capacity_utilization.value"), need;
	int n = 0;
	size_t i;

	if (!f->rec || f->rec->engine.kind != FS_ENGINE_VLLM)
		return;
	for (i = 0; i < f->rec->fleet.n_pools; i++)
		n += f->rec->fleet.pools[i].count;
	if (n < 2) {
		fs__doc_item(r, "Redundancy: none: a single instance; losing it stops "
		             "serving until a replacement starts.");
		return;
	}
	need = (double)n / (n - 1);
	if (!isnan(u))
		fs__doc_item(r, "Redundancy: %s: with one of its %d instances down, the others "
		             "would run at %.0f%% of their saturation throughput.",
		             u * need < 1 ? "N+1" : "not N+1", n, 100 * u * need);
	else if (f->have_h && f->h.applicable && !isnan(f->h.factor))
		fs__doc_item(r, "Redundancy: %s: one of its %d instances down leaves %.0f%% of "
		             "the capacity, and the headroom is %.2fx (needs %.2fx).",
		             f->h.factor >= need ? "N+1 (by the headroom estimate)" : "not N+1",
		             n, 100.0 / need, f->h.factor, need);
}

/* What a sweep's "met" counts (MODEL: H9): the SLO when the objective
 * bounds only SLO attainment, else every constraint of the objective,
 * listed as the scenario writes them ("ttft_ms p99 at most 2s"). */
static void met_words(const struct fs__report *r, char *buf, size_t len)
{
	const cJSON *c;
	size_t used = 0;
	int n = 0, slo = 0, k, k_item = 0;

	snprintf(buf, len, "the SLO");
	if (r->kind != FS_REPORT_SWEEP)
		return;
	cJSON_ArrayForEach(c, fs__jget(r->scenario, "objective.constraints")) {
		const char *m = fs__jstr(c, "metric");

		n++;
		slo += m != NULL && strcmp(m, "slo_attainment") == 0;
	}
	if (n == slo && n > 0)
		return;
	if (n == 0) {
		snprintf(buf, len, "the objective (it has no constraints)");
		return;
	}
	k = snprintf(buf, len, "every constraint of the objective (");
	used = k > 0 && (size_t)k < len ? (size_t)k : len - 1;
	cJSON_ArrayForEach(c, fs__jget(r->scenario, "objective.constraints")) {
		const cJSON *max = fs__jget(c, "max"), *min = fs__jget(c, "min");
		const char *q = fs__jstr(c, "quantile");
		char bound[48] = "";

		if (cJSON_IsString(max))
			snprintf(bound, sizeof bound, " at most %s", max->valuestring);
		else if (cJSON_IsNumber(max))
			snprintf(bound, sizeof bound, " at most %gs", max->valuedouble);
		else if (cJSON_IsNumber(min))
			snprintf(bound, sizeof bound, " at least %g", min->valuedouble);
		k = snprintf(buf + used, len - used, "%s%s%s%s%s", k_item++ ? ", " : "",
		             fs__jstr(c, "metric") ? fs__jstr(c, "metric") : "?", q ? " " : "",
		             q ? q : "", bound);
		if (k < 0 || used + (size_t)k >= len)
			return;
		used += (size_t)k;
	}
	snprintf(buf + used, len - used, ")");
}

/* The share of runs to claim (MODEL: H9): the objective's confidence, as
 * the recommendation judges P(SLO met) against it (S9, M7); 90% without an
 * objective. */
static double claim_target(const struct fs__report *r, const struct fs_scenario *sc)
{
	double t;

	if (sc != NULL)
		return sc->objective.present ? sc->objective.confidence : 0.9;
	t = r->kind == FS_REPORT_SWEEP ? NAN :
	    fs__jnum(r->summary, "metrics.all.p_slo_met_verdict.target");
	return t > 0 && t < 1 ? t : 0.9;
}

/* MODEL: H9 — confidence in words, from the share of runs that met the SLO
 * (a sweep: every constraint of its objective) (Wilson lower end, M5) and
 * the runs that would prove the share claimed (M7). */
static void confidence_item(struct fs__report *r, const struct fs_scenario *sc)
{
	struct fs__ci p = r->kind == FS_REPORT_SWEEP ? fs__jci(r->best, "best.p_slo_met")
	                                             : fs__jci(r->summary, "metrics.all.p_slo_met");
	int n = fs__first_rec_replications(r);
	size_t met, needed;
	struct fs_ci w;
	char span[96] = "", a[16], b[16], what[400], goal[24];
	double target = claim_target(r, sc);
	enum fs_share_verdict v;

	snprintf(goal, sizeof goal, "%.4g%%", 100 * target);
	met_words(r, what, sizeof what);
	if (isnan(p.value)) {
		fs__doc_item(r, "Confidence: not known (no share of runs meeting %s).", what);
		return;
	}
	met = (size_t)lround(p.value * n);
	w = fs_stats_wilson(met, (size_t)n, FS_CI_LEVEL);
	v = fs_stats_share_verdict(met, (size_t)n, target, FS_CI_LEVEL);
	needed = fs_stats_share_trials_needed(met, (size_t)n, target, FS_CI_LEVEL);
	if (sc) {
		fs_duration_format(sc->sim.horizon_ns, a, sizeof a);
		clock_text(b, sizeof b, sc->sim.start_hour);
		snprintf(span, sizeof span, " (%s each from %s)", a, b);
	}
	fs__doc_item(r, "Confidence: met %s in %zu of %d simulated runs%s; with %d runs "
	             "we can claim at least %.0f%% (the lower end of the 95%% Wilson "
	             "interval)%s%s%s", what, met, n, span, n, 100 * w.ci_lo,
	             v == FS_SHARE_MET ? ", which already proves " :
	             v == FS_SHARE_NOT_MET ? "; " : ".",
	             v == FS_SHARE_UNDECIDED ? "" : goal,
	             v == FS_SHARE_MET ? "." : v == FS_SHARE_NOT_MET ?
	             " is out of reach: the share itself is below it." : "");
	if (v == FS_SHARE_UNDECIDED && needed > 0)
		fs__doc_item(r, "To claim %s: run %zu replications (fleetsim run -r %zu), if "
		             "the observed share holds.", goal, needed, needed);
	else if (v == FS_SHARE_UNDECIDED)
		fs__doc_item(r, "To claim %s: no number of runs would at the observed share.",
		             goal);
}

/* A run's recommendation is the simulated configuration only when it is
 * stable and its P(SLO met) is proven to reach the target (MODEL: M7, S3):
 * an unstable run's figures are not a steady state, and a configuration
 * that misses its target, or is not yet proven to reach it, is said to.
 * True when it is recommended. */
static bool run_recommendation(struct fs__report *r, const char *plan)
{
	const cJSON *v = fs__jget(r->summary, "metrics.all.p_slo_met_verdict");
	const char *name = fs__jstr(v, "verdict");
	double unstable = fs__jnum(r->summary, "verdict.unstable_replications");
	double needed = fs__jnum(v, "replications_needed");
	char more[96];

	snprintf(more, sizeof more, "; %g replications would decide it (fleetsim run -r %g)",
	         needed, needed);
	if (unstable > 0) {
		fs__doc_item(r, "Recommendation: none. The simulated configuration (%s) was "
		             "unstable in %g of %d replications: requests arrived faster than "
		             "it served them, so the figures below are not a steady state "
		             "(section 4).", plan, unstable, fs__first_rec_replications(r));
		return false;
	}
	if (name != NULL && strcmp(name, "not_met") == 0) {
		fs__doc_item(r, "Recommendation: none. The simulated configuration (%s) does "
		             "not meet its SLO target: its P(SLO met) is proven below %.0f%% "
		             "(section 2).", plan, 100 * fs__jnum(v, "target"));
		return false;
	}
	if (name != NULL && strcmp(name, "undecided") == 0) {
		fs__doc_item(r, "Recommendation: not yet. The simulated configuration (%s) is "
		             "not proven to meet its SLO target of %.0f%%%s (section 2).", plan,
		             100 * fs__jnum(v, "target"), needed > 0 ? more : "");
		return false;
	}
	fs__doc_item(r, "Recommendation: %s.", plan);
	return true;
}

void fs__report_first(struct fs__report *r)
{
	struct fs__first *f = fs_xcalloc(1, sizeof *f);
	char plan[1024], lab[512];
	struct fs__ci month;
	const cJSON *best = fs__jget(r->best, "best");
	bool recommended = true;     /* a sweep's best point is */

	r->first = f;
	fs__doc_heading(r, 2, "The answer in brief");
	if (r->kind == FS_REPORT_SWEEP && !cJSON_IsObject(best)) {
		fs__doc_para(r, "No configuration is recommended: none is proven to meet the "
		             "objective (section 2 says why and what would decide it).");
		return;
	}
	if (r->kind == FS_REPORT_VARIANTS && !r->have_rec) {
		fs__doc_para(r, "No variant is recommended: none is proven to meet its SLO target "
		             "(section 2). The figures below are those of %s, for reference.",
		             r->variants[r->rec].name);
	}
	fs__first_load_rec(r, f);
	if (f->rec)
		fs__first_headroom(r, f);
	plan_text(r, f, plan, sizeof plan);
	if (r->kind == FS_REPORT_SWEEP) {
		fs__short_label(fs__jget(best, "set"), lab, sizeof lab);
		fs__doc_item(r, "Recommendation: %s (sweep point %g): %s.", lab,
		             fs__jnum(best, "point"), plan[0] ? plan : "pricing plan not known");
		month = fs__jci(best, "figures.monthly_cost");
	} else {
		if (r->kind == FS_REPORT_VARIANTS) {
			recommended = r->have_rec;
			fs__doc_item(r, recommended ? "Recommendation: variant %s: %s." :
			             "Recommendation: none; the figures below are variant %s's: %s.",
			             r->variants[r->rec].name, plan[0] ? plan : "pricing plan not known");
		} else
			recommended = run_recommendation(r, plan[0] ? plan : "pricing plan not known");
		month = fs__jci(r->summary, "cost.monthly_projected");
	}
	subject_text(r, recommended, f->subject, sizeof f->subject);
	cost_items(r, month);
	cheaper_plan(r, f);
	if (f->have_h)
		headroom_item(r, f);
	else
		fs__doc_item(r, "Headroom: not searched: %s.", f->why[0] ? f->why : "no scenario");
	peak_item(r, f->rec, &f->h, f->have_h);
	availability_items(r);
	redundancy_item(r, f);
	confidence_item(r, f->rec);
}
