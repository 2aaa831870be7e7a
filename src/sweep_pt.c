/*
 * sweep_pt.c — one evaluated sweep point: its record checked and parsed
 * back (per-replication objective, Pareto latency, constraints met, pooled
 * intervals of quantile constraints), the decision on its constraints
 * (feasible, infeasible or undecided with the replications that would
 * decide it), paired differences between points,
 * the cheapest proven-feasible points, and the point's JSON object shared by
 * sweep.json and best.json.  Pure functions of records; a parsed point owns
 * its record and arrays (the caller frees them).
 */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/objective.h"
#include "fleetsim/out_format.h"
#include "fleetsim/scenario.h"
#include "fleetsim/stats.h"
#include "fleetsim/summary.h"
#include "fleetsim/sweep.h"
#include "sweep_internal.h"

/* The figures of a point record, in output order. */
const char *const fs__sweep_figures[] = {
	"total_cost", "monthly_cost", "cost_per_1m_output_tokens", "lost_to_reclaims",
	"slo_attainment", "ttft_p99_ms", "tpot_p99_ms", "e2e_p99_ms", "throughput_rps", NULL
};

static double *rep_array(const cJSON *rec, const char *key, int n)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(rec, key), *v;
	double *x = fs_xcalloc((size_t)n, sizeof *x);
	int i = 0;

	cJSON_ArrayForEach(v, a) {
		if (i < n)
			x[i++] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	}
	return x;
}

/* [value, ci_lo, ci_hi] (numbers or nulls) as an interval; NAN where
 * absent. */
static struct fs_ci ci_of(const cJSON *arr)
{
	struct fs_ci ci = { .value = NAN, .ci_lo = NAN, .ci_hi = NAN, .half_width = NAN };
	const cJSON *v0 = cJSON_GetArrayItem(arr, 0), *v1 = cJSON_GetArrayItem(arr, 1),
	            *v2 = cJSON_GetArrayItem(arr, 2);

	ci.value = cJSON_IsNumber(v0) ? v0->valuedouble : NAN;
	ci.ci_lo = cJSON_IsNumber(v1) ? v1->valuedouble : NAN;
	ci.ci_hi = cJSON_IsNumber(v2) ? v2->valuedouble : NAN;
	if (isfinite(ci.ci_lo) && isfinite(ci.ci_hi))
		ci.half_width = (ci.ci_hi - ci.ci_lo) / 2.0;
	return ci;
}

/* MODEL: S12, M7, M9 — the constraints judged per run are decided on the
 * Wilson interval of the share of replications meeting them all; each
 * quantile constraint on its pooled interval, read back from the record in
 * constraint order; the point is feasible when every part is proven (no
 * constraint: feasible outright). */
static void decide(struct fs__sweep_pt *p, const struct fs_objective_cfg *obj)
{
	const cJSON *qc = cJSON_GetObjectItemCaseSensitive(p->rec, "quantile_constraints");
	size_t i, k = 0;

	p->needed = 0;
	p->verdict = FS_SHARE_MET;
	if (!obj->present || obj->n_constraints == 0) {
		p->feasible = true;
		return;
	}
	if (fs_objective_n_pooled(obj) < obj->n_constraints) {
		p->verdict = fs_stats_share_verdict((size_t)p->met_run, (size_t)p->n_reps,
		                                    obj->confidence, FS_CI_LEVEL);
		if (p->verdict == FS_SHARE_UNDECIDED)
			p->needed = fs_stats_share_trials_needed((size_t)p->met_run,
			                                         (size_t)p->n_reps,
			                                         obj->confidence, FS_CI_LEVEL);
	}
	for (i = 0; i < obj->n_constraints; i++) {
		const struct fs_constraint *c = &obj->constraints[i];
		const cJSON *a;
		struct fs_ci ci;
		enum fs_share_verdict vc;
		size_t need_c;

		if (!fs_constraint_pooled(c))
			continue;
		a = cJSON_GetArrayItem(qc, (int)k++);
		ci = ci_of(a);
		vc = fs_objective_pooled_verdict(c, &ci, (size_t)p->n_reps, &need_c);
		p->verdict = fs_objective_verdict_and(p->verdict, p->needed, vc, need_c,
		                                      &p->needed);
	}
	p->feasible = p->verdict == FS_SHARE_MET;
}

static bool num_or_null(const cJSON *v)
{
	return cJSON_IsNumber(v) || cJSON_IsNull(v);
}

/* An array of exactly n numbers (or nulls where allow_null). */
static bool num_array(const cJSON *a, int n, bool allow_null)
{
	const cJSON *v;
	int k = 0;

	if (!cJSON_IsArray(a))
		return false;
	cJSON_ArrayForEach(v, a) {
		if (!(cJSON_IsNumber(v) || (allow_null && cJSON_IsNull(v))))
			return false;
		k++;
	}
	return k == n;
}

/* Every number of array a (nulls aside) finite, in [0, hi], and 0 or 1
 * when `flag`: what a replication's objective (a cost), latency or
 * met flag can be. */
static bool values_ok(const cJSON *a, double hi, bool flag)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsNumber(v))
			continue;
		if (flag ? v->valuedouble != 0 && v->valuedouble != 1 :
		           !(v->valuedouble >= 0 && v->valuedouble <= hi))
			return false;
	}
	return true;
}

/* See sweep_internal.h: the members fs__sweep_pt_parse, the CSV and JSON
 * writers and the CDF read, each checked before anything dereferences it. */
int fs__sweep_record_complete(const cJSON *rec, size_t point, char *why, size_t why_len)
{
	static const char *const PER_REP[] = { "objective_per_rep", "met_per_rep",
	                                       "pareto_per_rep",
	                                       "met_per_run_constraints_per_rep", NULL };
	const cJSON *v, *figs, *pair;
	double reps;
	size_t k;

#define MISSING(key, what) \
	do { snprintf(why, why_len, "\"%s\" is missing or not %s", key, what); \
	     return 0; } while (0)
	if (!cJSON_IsObject(rec)) {
		snprintf(why, why_len, "it is not a JSON object");
		return 0;
	}
	v = cJSON_GetObjectItemCaseSensitive(rec, "point");
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)point)
		MISSING("point", "this point's index");
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "label")))
		MISSING("label", "a string");
	v = cJSON_GetObjectItemCaseSensitive(rec, "replications");
	reps = cJSON_IsNumber(v) ? v->valuedouble : -1;
	if (!(reps >= 1 && reps <= 1e7 && reps == (double)(int)reps))
		MISSING("replications", "a positive integer");
	for (k = 0; PER_REP[k] != NULL; k++)
		if (!num_array(cJSON_GetObjectItemCaseSensitive(rec, PER_REP[k]), (int)reps,
		               k != 1 && k != 3))
			MISSING(PER_REP[k], "an array of one number per replication");
	/* a record edited by hand must not pass for a simulated one: costs and
	 * latencies are >= 0, the met flags 0 or 1 */
	for (k = 0; PER_REP[k] != NULL; k++)
		if (!values_ok(cJSON_GetObjectItemCaseSensitive(rec, PER_REP[k]), DBL_MAX,
		               k == 1 || k == 3))
			MISSING(PER_REP[k], k == 1 || k == 3 ? "0 or 1 per replication" :
			        "a number >= 0 (or null) per replication");
	if (!cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(rec, "feasible")))
		MISSING("feasible", "true or false");
	if (!cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(rec, "stable")))
		MISSING("stable", "true or false");
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "decision")))
		MISSING("decision", "a string");
	if (!num_or_null(cJSON_GetObjectItemCaseSensitive(rec, "replications_needed")))
		MISSING("replications_needed", "a number or null");
	v = cJSON_GetObjectItemCaseSensitive(rec, "pareto_cdf");
	if (!cJSON_IsArray(v))
		MISSING("pareto_cdf", "an array");
	cJSON_ArrayForEach(pair, v)
		if (!num_array(pair, 2, true))
			MISSING("pareto_cdf", "an array of [latency_ms, p] pairs");
	v = cJSON_GetObjectItemCaseSensitive(rec, "quantile_constraints");
	if (!cJSON_IsArray(v))
		MISSING("quantile_constraints", "an array");
	cJSON_ArrayForEach(pair, v)
		if (!num_array(pair, 3, true))
			MISSING("quantile_constraints", "an array of [value, ci_lo, ci_hi]");
	if (!num_array(cJSON_GetObjectItemCaseSensitive(rec, "pareto_latency"), 3, true))
		MISSING("pareto_latency", "[value, ci_lo, ci_hi]");
	figs = cJSON_GetObjectItemCaseSensitive(rec, "figures");
	if (!cJSON_IsObject(figs))
		MISSING("figures", "an object");
	for (k = 0; fs__sweep_figures[k] != NULL; k++)
		if (!num_array(cJSON_GetObjectItemCaseSensitive(figs, fs__sweep_figures[k]), 3, true)) {
			snprintf(why, why_len, "\"figures.%s\" is missing or not [value, "
			         "ci_lo, ci_hi]", fs__sweep_figures[k]);
			return 0;
		}
#undef MISSING
	return 1;
}

/* A record is checked before it gets here (sweep.c); one that is not
 * complete anyway (a bug) stops the run rather than being dereferenced. */
void fs__sweep_pt_parse(struct fs__sweep_pt *p, size_t index, const char *text,
                        const struct fs_objective_cfg *obj)
{
	const cJSON *met, *v;
	char why[256];

	memset(p, 0, sizeof *p);
	p->index = index;
	p->rec = cJSON_Parse(text);
	if (!fs__sweep_record_complete(p->rec, index, why, sizeof why)) {
		fprintf(stderr, "fleetsim sweep: point %zu: unusable record: %s\n", index, why);
		abort();
	}
	p->label = cJSON_GetObjectItemCaseSensitive(p->rec, "label")->valuestring;
	p->n_reps = (int)cJSON_GetObjectItemCaseSensitive(p->rec, "replications")->valuedouble;
	p->obj = rep_array(p->rec, "objective_per_rep", p->n_reps);
	p->pareto = rep_array(p->rec, "pareto_per_rep", p->n_reps);
	met = cJSON_GetObjectItemCaseSensitive(p->rec, "met_per_rep");
	cJSON_ArrayForEach(v, met)
		p->met += cJSON_IsNumber(v) && v->valuedouble > 0.5;
	met = cJSON_GetObjectItemCaseSensitive(p->rec, "met_per_run_constraints_per_rep");
	cJSON_ArrayForEach(v, met)
		p->met_run += cJSON_IsNumber(v) && v->valuedouble > 0.5;
	decide(p, obj);
	p->stable = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p->rec, "stable"));
	/* MODEL: M6 — costs cannot be negative. */
	p->obj_ci = fs_stats_mean_ci_nonneg(p->obj, (size_t)p->n_reps, FS_CI_LEVEL);
	/* MODEL: M8 — the Pareto latency is pooled over the replications. */
	p->pareto_ci = ci_of(cJSON_GetObjectItemCaseSensitive(p->rec, "pareto_latency"));
	p->p_met = fs_stats_wilson((size_t)p->met, (size_t)p->n_reps, FS_CI_LEVEL);
}

/* MODEL: S14 — paired difference: replication r of both points saw the same
 * traffic and spot draws, so obj_p[r] - obj_base[r] has a tight interval. */
struct fs_ci fs__sweep_paired_diff(const struct fs__sweep_pt *p,
                                   const struct fs__sweep_pt *base)
{
	int n = p->n_reps < base->n_reps ? p->n_reps : base->n_reps;
	double *d = fs_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *d);
	struct fs_ci ci;
	int r;

	for (r = 0; r < n; r++)
		d[r] = p->obj[r] - base->obj[r];
	ci = fs_stats_mean_ci(d, (size_t)n, FS_CI_LEVEL);
	free(d);
	return ci;
}

/* Every number under node rounded to the figures' 9 significant digits
 * (docs/OUTPUTS.md): a point record keeps full precision for resuming,
 * sweep.json prints figures as every output does. */
static void round_numbers(cJSON *node)
{
	cJSON *it;

	cJSON_ArrayForEach(it, node) {
		if (cJSON_IsNumber(it))
			cJSON_SetNumberValue(it, fs_out_round(it->valuedouble));
		else
			round_numbers(it);
	}
}

static cJSON *rounded_copy(const cJSON *src)
{
	cJSON *copy = cJSON_Duplicate(src, true);

	round_numbers(copy);
	return copy;
}

/* MODEL: M9 — each quantile constraint with its pooled interval, bound and
 * verdict: [{"value", "ci_lo", "ci_hi", "max_ms", "decision"}, ...] in
 * constraint order. */
static void add_quantile_constraints(cJSON *o, const struct fs_objective_cfg *obj,
                                     const struct fs__sweep_pt *p)
{
	const cJSON *qc = cJSON_GetObjectItemCaseSensitive(p->rec, "quantile_constraints");
	cJSON *arr = cJSON_AddArrayToObject(o, "quantile_constraints");
	size_t i, k = 0;

	for (i = 0; obj->present && i < obj->n_constraints; i++) {
		const struct fs_constraint *c = &obj->constraints[i];
		struct fs_ci ci;
		size_t need;
		cJSON *item;

		if (!fs_constraint_pooled(c))
			continue;
		ci = ci_of(cJSON_GetArrayItem(qc, (int)k++));
		item = fs_summary_ci_json(&ci);
		cJSON_AddItemToObject(item, "max_ms", fs_json_num(c->max_ms));
		cJSON_AddStringToObject(item, "decision", fs__sweep_decision_name(
			fs_objective_pooled_verdict(c, &ci, (size_t)p->n_reps, &need)));
		cJSON_AddItemToArray(arr, item);
	}
}

/* A point as sweep.json and best.json show it (caller owns the object). */
cJSON *fs__sweep_point_json(const struct fs_scenario *base, const struct fs__sweep_pt *p)
{
	const struct fs_sweep_cfg *sw = &base->sweep;
	cJSON *o = cJSON_CreateObject(), *set = cJSON_CreateObject(), *figs;
	char **sets = fs_xcalloc(sw->n_axes, sizeof *sets);
	size_t a, k;

	cJSON_AddNumberToObject(o, "point", (double)p->index);
	cJSON_AddStringToObject(o, "label", p->label);
	fs_sweep_point_sets(sw, p->index, sets);
	for (a = 0; a < sw->n_axes; a++) {
		const char *eq = strchr(sets[a], '=');
		cJSON *v = eq != NULL ? cJSON_Parse(eq + 1) : NULL;

		cJSON_AddItemToObject(set, sw->axes[a].path,
		                      v != NULL ? v : cJSON_CreateString(sets[a]));
		free(sets[a]);
	}
	free(sets);
	cJSON_AddItemToObject(o, "set", set);
	cJSON_AddNumberToObject(o, "replications", p->n_reps);
	cJSON_AddBoolToObject(o, "feasible", p->feasible);
	cJSON_AddStringToObject(o, "decision", fs__sweep_decision_name(p->verdict));
	cJSON_AddItemToObject(o, "replications_needed",
	                      fs_json_num(p->needed > 0 ? (double)p->needed : NAN));
	cJSON_AddBoolToObject(o, "stable", p->stable);
	cJSON_AddItemToObject(o, "p_slo_met", fs_summary_ci_json(&p->p_met));
	cJSON_AddItemToObject(o, "objective", fs_summary_ci_json(&p->obj_ci));
	cJSON_AddItemToObject(o, "diff_vs_baseline", fs_summary_ci_json(&p->diff_ci));
	cJSON_AddItemToObject(o, "diff_vs_best", fs_summary_ci_json(&p->diff_best));
	cJSON_AddItemToObject(o, "pareto_latency_ms", fs_summary_ci_json(&p->pareto_ci));
	add_quantile_constraints(o, &base->objective, p);
	figs = cJSON_AddObjectToObject(o, "figures");
	for (k = 0; fs__sweep_figures[k] != NULL; k++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(p->rec, "figures"), fs__sweep_figures[k]);
		struct fs_ci ci = { .value = NAN, .ci_lo = NAN, .ci_hi = NAN, .half_width = NAN };
		const cJSON *v0 = cJSON_GetArrayItem(arr, 0), *v1 = cJSON_GetArrayItem(arr, 1),
		            *v2 = cJSON_GetArrayItem(arr, 2);

		ci.value = cJSON_IsNumber(v0) ? v0->valuedouble : NAN;
		ci.ci_lo = cJSON_IsNumber(v1) ? v1->valuedouble : NAN;
		ci.ci_hi = cJSON_IsNumber(v2) ? v2->valuedouble : NAN;
		cJSON_AddItemToObject(figs, fs__sweep_figures[k], fs_summary_ci_json(&ci));
	}
	{
		/* MODEL: U7 — a closed-loop point's figures by concurrency, as
		 * the record holds them, with 9 significant digits. */
		const cJSON *conc = cJSON_GetObjectItemCaseSensitive(p->rec, "concurrency");

		if (cJSON_IsObject(conc))
			cJSON_AddItemToObject(o, "concurrency", rounded_copy(conc));
	}
	return o;
}

/* "feasible", "infeasible", "undecided". */
const char *fs__sweep_decision_name(enum fs_share_verdict v)
{
	switch (v) {
	case FS_SHARE_MET:       return "feasible";
	case FS_SHARE_NOT_MET:   return "infeasible";
	case FS_SHARE_UNDECIDED: break;
	}
	return "undecided";
}

/* The cheapest and next cheapest proven-feasible points by mean objective
 * (SIZE_MAX when none); returns how many are proven feasible. */
size_t fs__sweep_find_best(const struct fs__sweep_pt *pts, size_t n, size_t *best,
                           size_t *second)
{
	size_t i, n_feasible = 0;

	*best = *second = SIZE_MAX;
	for (i = 0; i < n; i++) {
		if (!pts[i].feasible || !isfinite(pts[i].obj_ci.value))
			continue;
		n_feasible++;
		if (*best == SIZE_MAX || pts[i].obj_ci.value < pts[*best].obj_ci.value) {
			*second = *best;
			*best = i;
		} else if (*second == SIZE_MAX ||
		           pts[i].obj_ci.value < pts[*second].obj_ci.value) {
			*second = i;
		}
	}
	return n_feasible;
}

