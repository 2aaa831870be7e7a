/*
 * sweep_out.c — the sweep's four outputs, computed from the point records
 * alone (so a resumed sweep writes the same bytes): sweep.csv and sweep.json
 * (every evaluated point with its figures, P(SLO met) with a Wilson
 * interval and the decision taken on it — feasible, infeasible or undecided
 * with the replications that would decide it — the objective with a
 * Student-t interval and its paired differences against the baseline point
 * and against the recommended one), pareto.csv (the points no other point
 * beats on both the objective and the chosen latency), and best.json (built
 * in sweep_best.c).  All written atomically.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "fleetsim/objective.h"
#include "fleetsim/outfile.h"
#include "fleetsim/scenario.h"
#include "fleetsim/stats.h"
#include "fleetsim/sweep.h"
#include "sweep_internal.h"

static const char *const FIGURES[] = {
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

/* MODEL: S12, M7 — decided on the Wilson interval of the share of
 * replications meeting every constraint, from the record's per-replication
 * outcomes (no constraint: feasible outright). */
static void decide(struct fs__sweep_pt *p, const struct fs_objective_cfg *obj)
{
	p->needed = 0;
	if (!obj->present || obj->n_constraints == 0) {
		p->verdict = FS_SHARE_MET;
	} else {
		p->verdict = fs_stats_share_verdict((size_t)p->met, (size_t)p->n_reps,
		                                    obj->confidence, 0.95);
		if (p->verdict == FS_SHARE_UNDECIDED)
			p->needed = fs_stats_share_trials_needed((size_t)p->met, (size_t)p->n_reps,
			                                         obj->confidence, 0.95);
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

/* See sweep_internal.h: the members parse_point, the CSV and JSON writers
 * and the CDF read, each checked before anything dereferences it. */
int fs__sweep_record_complete(const cJSON *rec, size_t point, char *why, size_t why_len)
{
	static const char *const PER_REP[] = { "objective_per_rep", "met_per_rep",
	                                       "pareto_per_rep", NULL };
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
		               k != 1))
			MISSING(PER_REP[k], "an array of one number per replication");
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
	figs = cJSON_GetObjectItemCaseSensitive(rec, "figures");
	if (!cJSON_IsObject(figs))
		MISSING("figures", "an object");
	for (k = 0; FIGURES[k] != NULL; k++)
		if (!num_array(cJSON_GetObjectItemCaseSensitive(figs, FIGURES[k]), 3, true)) {
			snprintf(why, why_len, "\"figures.%s\" is missing or not [value, "
			         "ci_lo, ci_hi]", FIGURES[k]);
			return 0;
		}
#undef MISSING
	return 1;
}

/* A record is checked before it gets here (sweep.c); one that is not
 * complete anyway (a bug) stops the run rather than being dereferenced. */
static void parse_point(struct fs__sweep_pt *p, size_t index, const char *text,
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
	decide(p, obj);
	p->stable = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p->rec, "stable"));
	/* MODEL: M6 — costs and latencies cannot be negative. */
	p->obj_ci = fs_stats_mean_ci_nonneg(p->obj, (size_t)p->n_reps, 0.95);
	p->pareto_ci = fs_stats_mean_ci_nonneg(p->pareto, (size_t)p->n_reps, 0.95);
	p->p_met = fs_stats_wilson((size_t)p->met, (size_t)p->n_reps, 0.95);
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
	ci = fs_stats_mean_ci(d, (size_t)n, 0.95);
	free(d);
	return ci;
}

/* A quoted cell for a value that is not a name (a JSON number, array or
 * object of a sweep axis): no formula guard, so "-1" stays a number. */
static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, ",%.9g", x);
	else
		fputc(',', f);
}

static void csv_ci(FILE *f, const struct fs_ci *ci)
{
	csv_num(f, ci->value);
	csv_num(f, ci->ci_lo);
	csv_num(f, ci->ci_hi);
}

static void csv_fig(FILE *f, const cJSON *rec, const char *key)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(rec, "figures"), key);
	int i;

	for (i = 0; i < 3; i++) {
		const cJSON *v = cJSON_GetArrayItem(a, i);

		csv_num(f, cJSON_IsNumber(v) ? v->valuedouble : NAN);
	}
}

static int write_csv(const struct fs_scenario *base, const struct fs__sweep_pt *pts,
                     size_t n, const char *path, struct fs_error *err)
{
	const struct fs_sweep_cfg *sw = &base->sweep;
	struct fs_outfile o;
	size_t i, a, k;
	char **sets = fs_xcalloc(sw->n_axes, sizeof *sets);

	if (fs_outfile_open(&o, path, err) != 0) {
		free(sets);
		return -1;
	}
	fprintf(o.f, "point,label");
	for (a = 0; a < sw->n_axes; a++) {
		fputc(',', o.f);
		fs_csv_put(o.f, sw->axes[a].path, 1);
	}
	fprintf(o.f, ",replications,feasible,stable,p_slo_met,p_slo_met_lo,p_slo_met_hi,"
	        "objective,objective_lo,objective_hi,diff_vs_baseline,diff_lo,diff_hi,"
	        "pareto_latency_ms,pareto_lo,pareto_hi");
	for (k = 0; FIGURES[k] != NULL; k++)
		fprintf(o.f, ",%s,%s_lo,%s_hi", FIGURES[k], FIGURES[k], FIGURES[k]);
	fprintf(o.f, ",decision,replications_needed,diff_vs_best,diff_vs_best_lo,"
	        "diff_vs_best_hi");
	fputc('\n', o.f);
	for (i = 0; i < n; i++) {
		const struct fs__sweep_pt *p = &pts[i];

		fprintf(o.f, "%zu,", p->index);
		fs_csv_put(o.f, p->label, 1);
		fs_sweep_point_sets(sw, p->index, sets);
		for (a = 0; a < sw->n_axes; a++) {
			const char *eq = strchr(sets[a], '=');
			cJSON *v = eq != NULL ? cJSON_Parse(eq + 1) : NULL;

			/* A JSON string is written as its text, anything else as JSON. */
			fputc(',', o.f);
			if (cJSON_IsString(v))
				fs_csv_put(o.f, v->valuestring, 1);
			else
				csv_field(o.f, eq != NULL ? eq + 1 : sets[a]);
			cJSON_Delete(v);
			free(sets[a]);
		}
		fprintf(o.f, ",%d,%d,%d", p->n_reps, p->feasible ? 1 : 0, p->stable ? 1 : 0);
		csv_ci(o.f, &p->p_met);
		csv_ci(o.f, &p->obj_ci);
		csv_ci(o.f, &p->diff_ci);
		csv_ci(o.f, &p->pareto_ci);
		for (k = 0; FIGURES[k] != NULL; k++)
			csv_fig(o.f, p->rec, FIGURES[k]);
		fprintf(o.f, ",%s", fs__sweep_decision_name(p->verdict));
		csv_num(o.f, p->needed > 0 ? (double)p->needed : NAN);
		csv_ci(o.f, &p->diff_best);
		fputc('\n', o.f);
	}
	free(sets);
	return fs_outfile_commit(&o, err);
}

/* See sweep_internal.h: 9 significant digits, so the files read cleanly. */
cJSON *fs__sweep_jnum(double x)
{
	char buf[40];

	if (!isfinite(x))
		return cJSON_CreateNull();
	snprintf(buf, sizeof buf, "%.9g", x);
	return cJSON_CreateNumber(strtod(buf, NULL));
}

/* {value, ci_lo, ci_hi}, plus "exact": true for a zero-width interval. */
cJSON *fs__sweep_jci(const struct fs_ci *ci)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "value", fs__sweep_jnum(ci->value));
	cJSON_AddItemToObject(o, "ci_lo", fs__sweep_jnum(ci->ci_lo));
	cJSON_AddItemToObject(o, "ci_hi", fs__sweep_jnum(ci->ci_hi));
	if (fs_stats_ci_exact(ci))
		cJSON_AddTrueToObject(o, "exact");
	return o;
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
	                      fs__sweep_jnum(p->needed > 0 ? (double)p->needed : NAN));
	cJSON_AddBoolToObject(o, "stable", p->stable);
	cJSON_AddItemToObject(o, "p_slo_met", fs__sweep_jci(&p->p_met));
	cJSON_AddItemToObject(o, "objective", fs__sweep_jci(&p->obj_ci));
	cJSON_AddItemToObject(o, "diff_vs_baseline", fs__sweep_jci(&p->diff_ci));
	cJSON_AddItemToObject(o, "diff_vs_best", fs__sweep_jci(&p->diff_best));
	cJSON_AddItemToObject(o, "pareto_latency_ms", fs__sweep_jci(&p->pareto_ci));
	figs = cJSON_AddObjectToObject(o, "figures");
	for (k = 0; FIGURES[k] != NULL; k++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(p->rec, "figures"), FIGURES[k]);
		struct fs_ci ci = { NAN, NAN, NAN, NAN, 0 };
		const cJSON *v0 = cJSON_GetArrayItem(arr, 0), *v1 = cJSON_GetArrayItem(arr, 1),
		            *v2 = cJSON_GetArrayItem(arr, 2);

		ci.value = cJSON_IsNumber(v0) ? v0->valuedouble : NAN;
		ci.ci_lo = cJSON_IsNumber(v1) ? v1->valuedouble : NAN;
		ci.ci_hi = cJSON_IsNumber(v2) ? v2->valuedouble : NAN;
		cJSON_AddItemToObject(figs, FIGURES[k], fs__sweep_jci(&ci));
	}
	return o;
}

static int write_json(cJSON *root, const char *path, struct fs_error *err)
{
	char *text = cJSON_Print(root);
	int rc;
	size_t n;

	cJSON_Delete(root);
	if (text == NULL) {
		fprintf(stderr, "fleetsim: out of memory printing JSON\n");
		abort();
	}
	n = strlen(text);
	text = fs_xrealloc(text, n + 2);
	text[n] = '\n';
	rc = fs_outfile_write(path, text, n + 1, err);
	free(text);
	return rc;
}

/* MODEL: S15 — the Pareto front: evaluated points that no other point beats
 * on both mean objective and mean Pareto latency (lower is better on both). */
static bool dominated(const struct fs__sweep_pt *pts, size_t n, size_t i)
{
	size_t j;

	for (j = 0; j < n; j++) {
		if (j == i || !isfinite(pts[j].obj_ci.value) || !isfinite(pts[j].pareto_ci.value))
			continue;
		if (pts[j].obj_ci.value <= pts[i].obj_ci.value &&
		    pts[j].pareto_ci.value <= pts[i].pareto_ci.value &&
		    (pts[j].obj_ci.value < pts[i].obj_ci.value ||
		     pts[j].pareto_ci.value < pts[i].pareto_ci.value))
			return true;
	}
	return false;
}

static int write_pareto(const struct fs__sweep_pt *pts, size_t n, const char *path,
                        struct fs_error *err)
{
	struct fs_outfile o;
	size_t *order = fs_xcalloc(n + 1, sizeof *order), m = 0, i, j;

	for (i = 0; i < n; i++)
		if (isfinite(pts[i].obj_ci.value) && isfinite(pts[i].pareto_ci.value) &&
		    !dominated(pts, n, i))
			order[m++] = i;
	for (i = 1; i < m; i++)          /* insertion sort by objective, then index */
		for (j = i; j > 0 && (pts[order[j]].obj_ci.value < pts[order[j - 1]].obj_ci.value ||
		     (pts[order[j]].obj_ci.value == pts[order[j - 1]].obj_ci.value &&
		      pts[order[j]].index < pts[order[j - 1]].index)); j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (fs_outfile_open(&o, path, err) != 0) {
		free(order);
		return -1;
	}
	fprintf(o.f, "point,label,feasible,objective,objective_lo,objective_hi,"
	        "latency_ms,latency_lo,latency_hi,p_slo_met\n");
	for (i = 0; i < m; i++) {
		const struct fs__sweep_pt *p = &pts[order[i]];

		fprintf(o.f, "%zu,", p->index);
		fs_csv_put(o.f, p->label, 1);
		fprintf(o.f, ",%d", p->feasible ? 1 : 0);
		csv_ci(o.f, &p->obj_ci);
		csv_ci(o.f, &p->pareto_ci);
		csv_num(o.f, p->p_met.value);
		fputc('\n', o.f);
	}
	free(order);
	return fs_outfile_commit(&o, err);
}

/* sweep_cdf.csv: each evaluated point's pooled CDF of the Pareto latency. */
static int write_cdf(const struct fs__sweep_pt *pts, size_t n, const char *path,
                     struct fs_error *err)
{
	struct fs_outfile o;
	size_t i;

	if (fs_outfile_open(&o, path, err) != 0)
		return -1;
	fprintf(o.f, "point,label,latency_ms,cdf\n");
	for (i = 0; i < n; i++) {
		const cJSON *pair;

		cJSON_ArrayForEach(pair, cJSON_GetObjectItemCaseSensitive(pts[i].rec,
		                                                           "pareto_cdf")) {
			const cJSON *x = cJSON_GetArrayItem(pair, 0), *p = cJSON_GetArrayItem(pair, 1);

			if (!cJSON_IsNumber(x) || !cJSON_IsNumber(p))
				continue;
			fprintf(o.f, "%zu,", pts[i].index);
			fs_csv_put(o.f, pts[i].label, 1);
			fprintf(o.f, ",%.9g,%.9g\n", x->valuedouble, p->valuedouble);
		}
	}
	return fs_outfile_commit(&o, err);
}

/* "count=2 pricing=spot": each axis's last key and its value, unquoted. */
static void short_label(const struct fs_scenario *base, size_t index, char *buf, size_t len)
{
	const struct fs_sweep_cfg *sw = &base->sweep;
	char **sets = fs_xcalloc(sw->n_axes, sizeof *sets);
	size_t a, used = 0;

	buf[0] = '\0';
	fs_sweep_point_sets(sw, index, sets);
	for (a = 0; a < sw->n_axes && used < len; a++) {
		const char *path = sw->axes[a].path, *key = strrchr(path, '.');
		const char *eq = strchr(sets[a], '=');
		cJSON *v = eq != NULL ? cJSON_Parse(eq + 1) : NULL;
		size_t key_len;

		key = key != NULL ? key + 1 : path;
		key_len = strcspn(key, "[");
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s=%s", a > 0 ? " " : "",
		                         (int)key_len, key, cJSON_IsString(v) ? v->valuestring :
		                         eq != NULL ? eq + 1 : "?");
		cJSON_Delete(v);
		free(sets[a]);
	}
	for (; a < sw->n_axes; a++)
		free(sets[a]);
	free(sets);
}

static void print_table(const struct fs_scenario *base, const struct fs__sweep_pt *pts,
                        size_t n)
{
	size_t i, n_undecided = 0;

	printf("%-6s %-40s %5s %24s %20s  %s\n", "point", "configuration", "reps",
	       fs_objective_name(base->objective.minimize), "P(SLO met)", "feasible");
	for (i = 0; i < n; i++) {
		const struct fs__sweep_pt *p = &pts[i];
		char obj[96], pm[64], label[256], dec[64];
		int pm_extra = 0;            /* "±" is two bytes, one column */

		short_label(base, p->index, label, sizeof label);
		if (fs_stats_ci_exact(&p->obj_ci)) {
			snprintf(obj, sizeof obj, "%.1f (exact)", p->obj_ci.value);
		} else if (fs_stats_ci_clipped(&p->obj_ci)) {
			snprintf(obj, sizeof obj, "%.1f [%.1f, %.1f]", p->obj_ci.value,
			         p->obj_ci.ci_lo, p->obj_ci.ci_hi);
		} else {
			snprintf(obj, sizeof obj, "%.1f ± %.1f", p->obj_ci.value,
			         p->obj_ci.half_width);
			pm_extra = 1;
		}
		snprintf(pm, sizeof pm, "%.2f [%.2f, %.2f]", p->p_met.value, p->p_met.ci_lo,
		         p->p_met.ci_hi);
		if (p->verdict != FS_SHARE_UNDECIDED)
			snprintf(dec, sizeof dec, "%s", p->feasible ? "yes" : "no");
		else if (p->needed > 0)
			snprintf(dec, sizeof dec, "undecided: %zu reps would decide", p->needed);
		else
			snprintf(dec, sizeof dec, "undecided");
		n_undecided += p->verdict == FS_SHARE_UNDECIDED;
		printf("%-6zu %-40.40s %5d %*s %20s  %s\n", p->index, label, p->n_reps,
		       24 + pm_extra, obj, pm, dec);
	}
	if (n_undecided > 0)
		printf("\nundecided: the 95%% interval of P(SLO met) straddles the confidence "
		       "%.3g, so the point is neither proven feasible nor proven infeasible; "
		       "\"reps\" is how many replications would decide it if the observed "
		       "share held (a sweep runs them itself when objective.max_replications "
		       "allows)\n", base->objective.confidence);
}

int fs__sweep_write_outputs(const struct fs_sweep_opts *o, const struct fs_scenario *base,
                            char *const *records, size_t n_points)
{
	struct fs__sweep_pt *pts = fs_xcalloc(n_points + 1, sizeof *pts);
	const struct fs__sweep_pt *baseline = NULL;
	struct fs_error err;
	struct fs_outset set;
	size_t n = 0, i;
	cJSON *root, *list;
	int rc = 0;
	bool staged = false;
	size_t best, second;

	for (i = 0; i < n_points; i++)
		if (records[i] != NULL)
			parse_point(&pts[n++], i, records[i], &base->objective);
	for (i = 0; i < n; i++)
		if (pts[i].index == base->sweep.baseline)
			baseline = &pts[i];
	fs__sweep_find_best(pts, n, &best, &second);
	for (i = 0; i < n; i++) {
		struct fs_ci none = { NAN, NAN, NAN, NAN, 0 };

		pts[i].diff_ci = baseline != NULL ? fs__sweep_paired_diff(&pts[i], baseline) : none;
		pts[i].diff_best = best != SIZE_MAX ? fs__sweep_paired_diff(&pts[i], &pts[best]) : none;
	}
	/* The five files are staged and appear together (or not at all). */
	if (fs_outset_begin(&set, o->out_dir, &err) != 0)
		rc = FS_EXIT_RUNTIME;
	staged = rc == 0;
	if (rc == 0 && write_csv(base, pts, n, fs_outset_path(&set, "sweep.csv"), &err) != 0)
		rc = FS_EXIT_RUNTIME;
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "scenario", base->name);
	cJSON_AddStringToObject(root, "scenario_sha256", base->sha256_hex);
	cJSON_AddStringToObject(root, "objective", fs_objective_name(base->objective.minimize));
	cJSON_AddStringToObject(root, "currency", base->fleet.currency);
	cJSON_AddNumberToObject(root, "points_in_grid", (double)n_points);
	cJSON_AddNumberToObject(root, "points_evaluated", (double)n);
	cJSON_AddNumberToObject(root, "baseline", (double)base->sweep.baseline);
	list = cJSON_AddArrayToObject(root, "points");
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(list, fs__sweep_point_json(base, &pts[i]));
	if (rc != 0)
		cJSON_Delete(root);
	else if (write_json(root, fs_outset_path(&set, "sweep.json"), &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && write_pareto(pts, n, fs_outset_path(&set, "pareto.csv"), &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && write_cdf(pts, n, fs_outset_path(&set, "sweep_cdf.csv"), &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && write_json(fs__sweep_best_json(base, pts, n, n_points),
	                          fs_outset_path(&set, "best.json"), &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (staged && rc == 0 && fs_outset_commit(&set, 1, &err) != 0)
		rc = FS_EXIT_RUNTIME;
	else if (staged && rc != 0)
		fs_outset_abort(&set);
	if (rc != 0)
		fs_error_print(&err);
	else if (!o->quiet) {
		print_table(base, pts, n);
		printf("\nwrote %s/sweep.csv, sweep.json, pareto.csv, best.json "
		       "(%zu of %zu points evaluated)\n", o->out_dir, n, n_points);
	}
	for (i = 0; i < n; i++) {
		cJSON_Delete(pts[i].rec);
		free(pts[i].obj);
		free(pts[i].pareto);
	}
	free(pts);
	return rc;
}
