/*
 * report_alternatives.c — sections 3 and 4 of the report: the alternatives
 * (every sweep point or variant, each compared with the recommended one —
 * paired on the same traffic for a sweep — and whether it is proven to meet
 * its target, proven not to, or undecided with the replications that would
 * decide it) and the risk (P(SLO met), spot exposure, the spread of cost
 * over replications, the worst replication of a sweep's recommendation).
 * Reads the loaded directory; writes document blocks only.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fleetsim/stats.h"
#include "report_internal.h"

static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* ---- 3. alternatives ---- */

/* A point's decision in words: "yes", "no", "undecided: 35 replications
 * would decide it" (older directories: from "feasible" alone). */
static const char *decision_text(char *buf, size_t len, const cJSON *p)
{
	const char *d = fs__jstr(p, "decision");
	double needed = fs__jnum(p, "replications_needed");

	if (!d)
		return cJSON_IsTrue(fs__jget(p, "feasible")) ? "yes" : "no";
	return fs__verdict_text(buf, len, strcmp(d, "feasible") == 0 ? FS_SHARE_MET :
	                        strcmp(d, "infeasible") == 0 ? FS_SHARE_NOT_MET :
	                        FS_SHARE_UNDECIDED, isnan(needed) ? 0 : (size_t)needed);
}

/* "+1431 [1420, 1440]": a difference with its sign. */
static const char *signed_ci_text(char *buf, size_t len, struct fs__ci ci)
{
	char t[96];

	fs__ci_text(t, sizeof t, ci);
	snprintf(buf, len, "%s%s", ci.value > 0 ? "+" : "", t);
	return buf;
}

/* Why a sweep point lost to the recommended one, in words: it misses the
 * objective's constraints, is not proven to meet them, or meets them at a
 * higher objective (the paired difference). */
static const char *point_why(char *buf, size_t len, const struct fs__report *r,
                             const cJSON *p, bool have_best)
{
	const char *d = fs__jstr(p, "decision");
	struct fs__ci diff = fs__jci(p, "diff_vs_best");
	char a[96];

	if (fs__jget(p, "stable") && !cJSON_IsTrue(fs__jget(p, "stable")))
		snprintf(buf, len, "unstable: the queue grows without bound");
	else if (d ? strcmp(d, "infeasible") == 0 : !cJSON_IsTrue(fs__jget(p, "feasible")))
		snprintf(buf, len, "misses the constraints (P(SLO met) below %.0f%%)",
		         100 * fs__jnum(r->best, "confidence"));
	else if (d && strcmp(d, "undecided") == 0)
		snprintf(buf, len, "not proven to meet the constraints");
	else if (!have_best || isnan(diff.value))
		snprintf(buf, len, "n/a");
	else if (diff.value > 0)
		snprintf(buf, len, "meets them but costs more: %s in %s",
		         fs__ci_text(a, sizeof a, diff),
		         str_or(fs__jstr(r->best, "objective"), "the objective"));
	else
		snprintf(buf, len, "meets them at the same or lower objective, but the "
		         "recommendation rule (section 2) chose the other");
	return buf;
}

static void alternatives_sweep(struct fs__report *r)
{
	const cJSON *p, *ru = fs__jget(r->best, "runner_up");
	const cJSON *best = fs__jget(r->best, "best");
	int best_point = cJSON_IsObject(best) ? (int)fs__jnum(best, "point") : -1;
	const char *head[7] = { "configuration", "objective (95% CI)",
	                        "vs recommended (paired CI)", "P(SLO met)",
	                        "Pareto latency (ms)", "feasible", "why not chosen" };
	char a[128], b[128], c[128], d[128], e[128], g[256], lab[512];
	struct fs__block *t;

	if (ru && !cJSON_IsNull(ru)) {
		struct fs__ci diff = fs__jci(r->best, "runner_up_costs_more");

		fs__short_label(fs__jget(ru, "set"), lab, sizeof lab);
		fs__doc_para(r, "The next cheapest feasible configuration, %s, %s in %s than the "
		             "recommended one (paired difference on the same traffic; 95%% CI "
		             "%s).", lab, fs__diff_text(a, sizeof a, diff.value, ""),
		             str_or(fs__jstr(r->best, "objective"), "the objective"),
		             fs__ci_text(b, sizeof b, diff));
	}
	if (best_point >= 0)
		fs__doc_para(r, "Every evaluated point, with its difference from the recommended "
		             "one (paired: the same seeds, so the same traffic):");
	else
		fs__doc_para(r, "Every evaluated point (none is recommended, so there is nothing "
		             "to compare them with):");
	t = fs__doc_table(r, 7);
	fs__doc_row(t, head);
	cJSON_ArrayForEach(p, fs__jget(r->sweep, "points")) {
		const char *cells[7];

		fs__short_label(fs__jget(p, "set"), lab, sizeof lab);
		cells[0] = lab;
		cells[1] = fs__ci_text(a, sizeof a, fs__jci(p, "objective"));
		if ((int)fs__jnum(p, "point") == best_point)
			cells[2] = "recommended";
		else if (best_point >= 0 && fs__jget(p, "diff_vs_best"))
			cells[2] = signed_ci_text(b, sizeof b, fs__jci(p, "diff_vs_best"));
		else
			cells[2] = "n/a";
		cells[3] = fs__pct_ci_text(c, sizeof c, fs__jci(p, "p_slo_met"));
		cells[4] = fs__ci_text(d, sizeof d, fs__jci(p, "pareto_latency_ms"));
		cells[5] = decision_text(e, sizeof e, p);
		cells[6] = (int)fs__jnum(p, "point") == best_point ? "-" :
		           point_why(g, sizeof g, r, p, best_point >= 0);
		fs__doc_row(t, cells);
	}
	if (fs__jnum(r->best, "points_undecided") > 0)
		fs__doc_para(r, "Undecided: the 95%% interval of P(SLO met) straddles %.0f%%, so the "
		             "point is neither proven feasible nor proven infeasible; the count is "
		             "how many replications would decide it if its observed share held. "
		             "The sweep runs them itself when objective.max_replications allows.",
		             100 * fs__jnum(r->best, "confidence"));
}

/* Why a variant lost to the recommended one (rec; NULL when none is). */
static const char *variant_why(char *buf, size_t len, const struct fs__report *r,
                               const struct fs__variant *v, const struct fs__variant *rec)
{
	char a[96];

	if (!v->stable)
		snprintf(buf, len, "unstable: the queue grows without bound");
	else if (v->verdict == FS_SHARE_NOT_MET)
		snprintf(buf, len, "misses its SLO target");
	else if (v->verdict == FS_SHARE_UNDECIDED)
		snprintf(buf, len, "not proven to meet its SLO target");
	else if (!rec)
		snprintf(buf, len, "n/a");
	else if (v->monthly_usd.value > rec->monthly_usd.value)
		snprintf(buf, len, "meets its target but %s per month",
		         fs__diff_text(a, sizeof a, v->monthly_usd.value - rec->monthly_usd.value,
		                       r->currency));
	else
		snprintf(buf, len, "meets its target at no more cost; listed after it in the "
		         "file");
	return buf;
}

static void alternatives_variants(struct fs__report *r)
{
	/* per-month figures only (never beside per-horizon totals) */
	char h1[48], h2[64], h6[64];
	const char *head[10] = { "variant", h1, h2, "TTFT p99 (ms)", "SLO attainment",
	                         "P(SLO met)", h6, "outage (min/month)", "meets target",
	                         "why not chosen" };
	struct fs__block *t = fs__doc_table(r, 10);
	const struct fs__variant *rec = &r->variants[r->rec];
	bool have_ref = r->have_rec || r->rec_undecided;
	char a[128], b[128], c[128], d[128], e[128], f[128], g[128], h[128];
	size_t i;

	snprintf(h1, sizeof h1, "%s/month (95%% CI)", r->currency);
	snprintf(h2, sizeof h2, "vs recommended (%s/month)", r->currency);
	snprintf(h6, sizeof h6, "lost to reclaims (%s/month)", r->currency);
	fs__doc_row(t, head);
	for (i = 0; i < r->n_variants; i++) {
		const struct fs__variant *v = &r->variants[i];
		char name[300];
		const char *cells[10];
		char why[256];

		snprintf(name, sizeof name, "%s%s", v->name, !have_ref || i != r->rec ? "" :
		         r->have_rec ? " (recommended)" : " (cheapest undecided)");
		cells[0] = name;
		cells[1] = fs__ci_text(a, sizeof a, v->monthly_usd);
		cells[2] = !have_ref ? "n/a" : i == r->rec ? "-" :
		           fs__diff_text(b, sizeof b, v->monthly_usd.value - rec->monthly_usd.value,
		                         r->currency);
		cells[3] = fs__ci_text(c, sizeof c, v->ttft_p99_ms);
		cells[4] = fs__pct_ci_text(d, sizeof d, v->slo_attainment);
		cells[5] = fs__pct_ci_text(e, sizeof e, v->p_slo_met);
		cells[6] = fs__ci_text(f, sizeof f, fs__jci(v->row, "lost_to_reclaims_monthly"));
		cells[7] = fs__ci_text(h, sizeof h, fs__jci(v->row, "outage_minutes_per_month"));
		cells[8] = v->stable ? fs__verdict_text(g, sizeof g, v->verdict, v->needed)
		                     : "no (unstable)";
		cells[9] = have_ref && i == r->rec ? "-" :
		           variant_why(why, sizeof why, r, v, have_ref ? rec : NULL);
		fs__doc_row(t, cells);
	}
	if (have_ref && r->rec != r->base) {
		const struct fs__variant *base = &r->variants[r->base];
		double diff = base->monthly_usd.value - rec->monthly_usd.value;

		fs__doc_para(r, "The base configuration %s per month than the %s variant "
		             "(difference of the means; every variant saw the same arrivals and "
		             "spot draws)%s.", fs__diff_text(a, sizeof a, diff, r->currency),
		             r->have_rec ? "recommended" : "cheapest undecided",
		             diff < 0 && !base->meets ? ", but it is not proven to meet its SLO "
		             "target" : "");
	}
	fs__doc_para(r, "A variant meets its target when the lower end of the 95%% interval of "
	             "its P(SLO met) reaches %.0f%%; undecided when the interval straddles it "
	             "(more replications decide it: rerun with -r and the count shown). "
	             "Intervals never leave what a figure can be (costs, counts and latencies "
	             "stop at 0, shares at 100%%); one that touches such a bound is wide "
	             "because there are few replications.", 100 * r->p_target);
}

void fs__report_alternatives(struct fs__report *r)
{
	fs__doc_heading(r, 2, "3. The alternatives");
	if (r->kind == FS_REPORT_RUN) {
		fs__doc_para(r, "No alternatives were evaluated in this run. Add \"variants\" "
		             "or a \"sweep\" to the scenario to compare configurations.");
		return;
	}
	if (r->kind == FS_REPORT_SWEEP)
		alternatives_sweep(r);
	else
		alternatives_variants(r);
}

/* ---- 4. risk ---- */

static void spot_exposure(struct fs__report *r, const cJSON *s)
{
	char a[96], b[96];
	double total = fs__jnum(s, "cost.total.value");
	double spot = fs__jnum(s, "cost.by_pricing.spot.value");
	double reclaims = 0;
	const cJSON *p;

	if (isnan(total))
		return;
	cJSON_ArrayForEach(p, fs__jget(s, "cost.pools"))
		if (!isnan(fs__jnum(p, "reclaims.value")))
			reclaims += fs__jnum(p, "reclaims.value");
	fs__doc_item(r, "Spot exposure: %.1f%% of the cost is on spot capacity; %s spot "
	             "reclaims per run on average; %s %s lost to reclaims (95%% CI).",
	             total > 0 && !isnan(spot) ? 100 * spot / total : 0.0,
	             fs__num_text(a, sizeof a, reclaims), r->currency,
	             fs__ci_text(b, sizeof b, fs__jci(s, "cost.lost_to_reclaims")));
	if (!isnan(fs__jnum(s, "cost.idle.value")))
		fs__doc_item(r, "Idle spend: %s %s of the bill paid for instances with nothing "
		             "to do.", r->currency, fs__ci_text(a, sizeof a, fs__jci(s, "cost.idle")));
	/* MODEL: S17-S19 */
	if (!isnan(fs__jnum(s, "utilization.capacity_utilization.value")) &&
	    !isnan(fs__jnum(s, "cost.unused_capacity.value")))
		fs__doc_item(r, "Unused capacity: the fleet used %.1f%% of its saturation "
		             "throughput; %s %s of the bill paid for capacity not used; %g idle "
		             "episode(s) (under 10%% for 30 minutes or more) cost %s %s.",
		             100 * fs__jnum(s, "utilization.capacity_utilization.value"),
		             r->currency, fs__ci_text(a, sizeof a, fs__jci(s, "cost.unused_capacity")),
		             fs__jnum(s, "cost.idle_episodes.count.value"), r->currency,
		             fs__ci_text(b, sizeof b, fs__jci(s, "cost.idle_episodes.cost")));
	if (fs__jnum(s, "verdict.unstable_replications") > 0)
		fs__doc_item(r, "%g replication(s) were unstable (the queue grew without bound).",
		             fs__jnum(s, "verdict.unstable_replications"));
}

/* Availability of the fleet, and every "too short to see spot risk"
 * warning of summary.json (MODEL: F15-F18). */
static void spot_availability(struct fs__report *r, const cJSON *s)
{
	char a[96], b[96], c[96];
	const cJSON *w;

	fs__availability_texts(s, a, b, c, sizeof a);
	if (!isnan(fs__jnum(s, "availability.fleet.availability.value")))
		fs__doc_item(r, "Availability: the fleet had the serving instances it wanted "
		             "%s of the time (from start-up, after the warm-up); outage %s "
		             "minutes and total outage (none serving) %s minutes per 730-hour "
		             "month, projected.", a, b, c);
	cJSON_ArrayForEach(w, fs__jget(s, "warnings"))
		if (cJSON_IsString(w))
			fs__doc_item(r, "Warning: %s.", w->valuestring);
}

/* The cheapest and dearest replication of cost_per_rep. */
static void cost_spread(struct fs__report *r, const cJSON *s)
{
	const cJSON *v;
	double lo = INFINITY, hi = -INFINITY;
	int n = 0;
	char a[32], b[32];

	cJSON_ArrayForEach(v, fs__jget(s, "cost.cost_per_rep"))
		if (cJSON_IsNumber(v)) {
			lo = fmin(lo, v->valuedouble);
			hi = fmax(hi, v->valuedouble);
			n++;
		}
	if (n == 0)
		fs__doc_item(r, "The cost of each replication is not in summary.json; only the "
		             "mean with its interval is known.");
	else if (lo == hi)
		fs__doc_item(r, "Cost per replication: %s %s in every one of the %d replications "
		             "(a fixed fleet: no spread).", r->currency,
		             fs__num_text(a, sizeof a, lo), n);
	else
		fs__doc_item(r, "Cost per replication: from %s %s to %s over %d replications "
		             "(the cost_per_rep plot shows each).", r->currency,
		             fs__num_text(a, sizeof a, lo), fs__num_text(b, sizeof b, hi), n);
}

void fs__report_risk(struct fs__report *r)
{
	char a[96], lab[96];

	fs__doc_heading(r, 2, "4. The risk");
	if (r->kind == FS_REPORT_SWEEP) {
		const cJSON *bp = r->best_point, *v;
		const cJSON *best = fs__jget(r->best, "best");
		double worst_obj = -INFINITY, worst_lat = -INFINITY;
		int n = 0, missed = 0;

		if (!best || cJSON_IsNull(best)) {
			if (fs__jnum(r->best, "points_undecided") > 0)
				fs__doc_para(r, "No configuration is proven feasible: the risk of missing "
				             "the SLO is unknown for the %g undecided point%s and high "
				             "for the others.", fs__jnum(r->best, "points_undecided"),
				             fs__jnum(r->best, "points_undecided") == 1 ? "" : "s");
			else
				fs__doc_para(r, "No feasible configuration: the risk of missing the SLO "
				             "is high for every evaluated point.");
			return;
		}
		fs__doc_item(r, "P(SLO met): %s (share of replications meeting every constraint, "
		             "95%% Wilson interval).",
		             fs__pct_ci_text(a, sizeof a, fs__jci(best, "p_slo_met")));
		fs__doc_item(r, "Cost lost to spot reclaims: %s %s over the horizon.", r->currency,
		             fs__ci_text(a, sizeof a, fs__jci(best, "figures.lost_to_reclaims")));
		cJSON_ArrayForEach(v, fs__jget(bp, "objective_per_rep"))
			if (cJSON_IsNumber(v) && v->valuedouble > worst_obj)
				worst_obj = v->valuedouble;
		cJSON_ArrayForEach(v, fs__jget(bp, "met_per_rep")) {
			n++;
			missed += cJSON_IsNumber(v) && v->valuedouble == 0;
		}
		cJSON_ArrayForEach(v, fs__jget(bp, "pareto_per_rep"))
			if (cJSON_IsNumber(v) && v->valuedouble > worst_lat)
				worst_lat = v->valuedouble;
		if (bp && n)
			fs__doc_item(r, "Worst replication of the recommended point: objective %s, "
			             "Pareto latency %.0f ms; %d of %d replications missed a constraint.",
			             fs__num_text(a, sizeof a, worst_obj), worst_lat, missed, n);
		else
			fs__doc_item(r, "Per-replication figures (points/<point>.json) are not in the "
			             "directory; the worst replication is not known.");
		fs__doc_item(r, "Spot share of cost and reclaim counts are not kept per sweep point; "
		             "run the recommended configuration with fleetsim run to see them.");
		return;
	}
	if (!r->summary) {
		fs__doc_para(r, "No summary.json for the recommended configuration.");
		return;
	}
	fs__doc_item(r, "P(SLO met): %s of replications met every class's SLO target "
	             "(95%% Wilson interval).",
	             fs__pct_ci_text(a, sizeof a, fs__jci(r->summary, "metrics.all.p_slo_met")));
	if (fs__slo_verdict_text(r->summary, a, sizeof a, lab, sizeof lab))
		fs__doc_item(r, "%s %s.", lab, a);
	spot_exposure(r, r->summary);
	spot_availability(r, r->summary);
	cost_spread(r, r->summary);
}

