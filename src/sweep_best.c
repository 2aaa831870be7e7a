/*
 * sweep_best.c — best.json: the cheapest proven-feasible point (the lower
 * end of the Wilson interval of its share of replications meeting every
 * constraint reaches the confidence), why, the runner-up with its paired
 * difference in words ("costs X more", never a negative saving), and the
 * undecided points with the replications that would decide them.  Built
 * from parsed point records (sweep_pt.c); the caller owns the JSON.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fleetsim/objective.h"
#include "fleetsim/scenario_cfg.h"
#include "fleetsim/stats.h"
#include "fleetsim/summary.h"
#include "sweep_internal.h"

/* A signed paired difference in words: "costs 12.3 more [4.5, 20.1]",
 * "costs 3.2 less [...]", with a note when the interval holds 0. */
static void diff_words(char *buf, size_t len, const struct fs_ci *d)
{
	const char *way = d->value > 0 ? "more" : d->value < 0 ? "less" : "the same";
	double mag = fabs(d->value);

	if (!isfinite(d->value)) {
		snprintf(buf, len, "costs an unknown amount more or less");
		return;
	}
	if (d->value == 0)
		snprintf(buf, len, "costs the same");
	else
		snprintf(buf, len, "costs %.4g %s", mag, way);
	if (isfinite(d->ci_lo) && isfinite(d->ci_hi)) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, " (paired 95%% CI of the difference [%.4g, "
		         "%.4g]%s)", d->ci_lo, d->ci_hi, d->ci_lo <= 0 && d->ci_hi >= 0 ?
		         ": not distinguishable at these replications" : "");
	}
}

/* "2044 [2000, 2100]", "2044 (same in every replication)", "2044 (no
 * interval)" (one replication), or "unknown" (no value). */
static const char *ci_words(char *buf, size_t len, const struct fs_ci *ci)
{
	if (!isfinite(ci->value))
		snprintf(buf, len, "unknown");
	else if (!isfinite(ci->ci_lo) || !isfinite(ci->ci_hi))
		snprintf(buf, len, "%.4g (no interval)", ci->value);
	else if (fs_stats_ci_exact(ci))
		snprintf(buf, len, "%.4g (same in every replication)", ci->value);
	else
		snprintf(buf, len, "%.4g [%.4g, %.4g]", ci->value, ci->ci_lo, ci->ci_hi);
	return buf;
}

/* An undecided point's object in best.json's "undecided" list. */
static cJSON *undecided_json(const struct fs__sweep_pt *p)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "point", (double)p->index);
	cJSON_AddStringToObject(o, "label", p->label);
	cJSON_AddNumberToObject(o, "replications", p->n_reps);
	cJSON_AddItemToObject(o, "replications_needed",
	                      fs_json_num(p->needed > 0 ? (double)p->needed : NAN));
	cJSON_AddItemToObject(o, "p_slo_met", fs_summary_ci_json(&p->p_met));
	cJSON_AddItemToObject(o, "objective", fs_summary_ci_json(&p->obj_ci));
	return o;
}

/* "; 2 cheaper points are undecided: LABEL (P(SLO met) ..., 35 replications
 * would decide it; 8 run), ..." appended to why (at most 3 named). */
static void undecided_words(char *why, size_t len, const struct fs__sweep_pt *pts, size_t n,
                            double below)
{
	size_t i, k = 0, used;

	for (i = 0; i < n; i++)
		k += pts[i].verdict == FS_SHARE_UNDECIDED && pts[i].obj_ci.value < below;
	if (k == 0)
		return;
	used = strlen(why);
	snprintf(why + used, len - used, "; %zu %s point%s %s undecided (P(SLO met)'s "
	         "interval straddles the confidence) and might be feasible:", k,
	         isfinite(below) ? "cheaper" : "evaluated", k == 1 ? "" : "s",
	         k == 1 ? "is" : "are");
	for (i = 0, k = 0; i < n && k < 3; i++) {
		const struct fs__sweep_pt *p = &pts[i];

		if (p->verdict != FS_SHARE_UNDECIDED || !(p->obj_ci.value < below))
			continue;
		used = strlen(why);
		if (p->needed > 0)
			snprintf(why + used, len - used, "%s %s (P(SLO met) %.3g [%.3g, %.3g] "
			         "over %d replications; %zu would decide it if the share held)",
			         k ? "," : "", p->label, p->p_met.value, p->p_met.ci_lo,
			         p->p_met.ci_hi, p->n_reps, p->needed);
		else
			snprintf(why + used, len - used, "%s %s (P(SLO met) %.3g [%.3g, %.3g] "
			         "over %d replications: no number decides it at this share)",
			         k ? "," : "", p->label, p->p_met.value, p->p_met.ci_lo,
			         p->p_met.ci_hi, p->n_reps);
		k++;
	}
}

/* MODEL: S12 — only a proven-feasible point is recommended; undecided ones
 * are listed with the replications that would decide them. */
cJSON *fs__sweep_best_json(const struct fs_scenario *base, const struct fs__sweep_pt *pts,
                           size_t n, size_t n_points)
{
	const struct fs_objective_cfg *obj = &base->objective;
	cJSON *o = cJSON_CreateObject(), *und;
	size_t i, best, second, n_feasible, n_undecided = 0;
	char why[4096], a[512], c[128];

	n_feasible = fs__sweep_find_best(pts, n, &best, &second);
	cJSON_AddStringToObject(o, "objective", fs_objective_name(obj->minimize));
	cJSON_AddStringToObject(o, "currency", base->fleet.currency);
	cJSON_AddNumberToObject(o, "confidence", obj->present ? obj->confidence : 1.0);
	cJSON_AddNumberToObject(o, "points_evaluated", (double)n);
	cJSON_AddNumberToObject(o, "points_in_grid", (double)n_points);
	cJSON_AddNumberToObject(o, "points_feasible", (double)n_feasible);
	und = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		if (pts[i].verdict == FS_SHARE_UNDECIDED) {
			cJSON_AddItemToArray(und, undecided_json(&pts[i]));
			n_undecided++;
		}
	cJSON_AddNumberToObject(o, "points_undecided", (double)n_undecided);
	if (best == SIZE_MAX) {
		cJSON_AddNullToObject(o, "best");
		snprintf(why, sizeof why, "no evaluated point is proven feasible: none has the "
		         "lower end of the 95%% Wilson interval of its share of replications "
		         "meeting every constraint at or above %.3g",
		         obj->present ? obj->confidence : 1.0);
		undecided_words(why, sizeof why, pts, n, INFINITY);
		cJSON_AddStringToObject(o, "why", why);
		cJSON_AddItemToObject(o, "undecided", und);
		return o;
	}
	cJSON_AddItemToObject(o, "best", fs__sweep_point_json(base, &pts[best]));
	if (second != SIZE_MAX) {
		struct fs_ci d = fs__sweep_paired_diff(&pts[second], &pts[best]);

		diff_words(a, sizeof a, &d);
		snprintf(why, sizeof why, "cheapest of %zu proven-feasible points (%zu evaluated "
		         "of %zu): %s %s with P(SLO met) %.3g [%.3g, %.3g], whose "
		         "lower end reaches %.3g; the next cheapest feasible point (%s) %s",
		         n_feasible, n, n_points, fs_objective_name(obj->minimize),
		         ci_words(c, sizeof c, &pts[best].obj_ci), pts[best].p_met.value,
		         pts[best].p_met.ci_lo, pts[best].p_met.ci_hi,
		         obj->present ? obj->confidence : 1.0, pts[second].label, a);
		cJSON_AddItemToObject(o, "runner_up", fs__sweep_point_json(base, &pts[second]));
		cJSON_AddItemToObject(o, "runner_up_costs_more", fs_summary_ci_json(&d));
	} else {
		snprintf(why, sizeof why, "the only proven-feasible point of %zu evaluated (of "
		         "%zu): %s %s with P(SLO met) %.3g [%.3g, %.3g], whose "
		         "lower end reaches %.3g", n, n_points, fs_objective_name(obj->minimize),
		         ci_words(c, sizeof c, &pts[best].obj_ci), pts[best].p_met.value,
		         pts[best].p_met.ci_lo, pts[best].p_met.ci_hi,
		         obj->present ? obj->confidence : 1.0);
	}
	undecided_words(why, sizeof why, pts, n, pts[best].obj_ci.value);
	cJSON_AddStringToObject(o, "why", why);
	cJSON_AddItemToObject(o, "undecided", und);
	return o;
}

