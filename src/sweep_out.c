/*
 * sweep_out.c — the sweep's four outputs, computed from the point records
 * alone (so a resumed sweep writes the same bytes): sweep.csv and sweep.json
 * (every evaluated point with its figures, P(SLO met) with a Wilson
 * interval and the decision taken on it — feasible, infeasible or undecided
 * with the replications that would decide it — the objective with a
 * Student-t interval and its paired differences against the baseline point
 * and against the recommended one), pareto.csv (the points no other point
 * beats on both the objective and the chosen latency), and best.json (built
 * in sweep_best.c), from points parsed by sweep_pt.c.  The five files are
 * staged and appear together.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "fleetsim/objective.h"
#include "fleetsim/out_format.h"
#include "fleetsim/outfile.h"
#include "fleetsim/scenario.h"
#include "fleetsim/stats.h"
#include "fleetsim/sweep.h"
#include "sweep_internal.h"

static void csv_ci(FILE *f, const struct fs_ci *ci)
{
	fs_csv_put_num(f, ci->value);
	fs_csv_put_num(f, ci->ci_lo);
	fs_csv_put_num(f, ci->ci_hi);
}

static void csv_fig(FILE *f, const cJSON *rec, const char *key)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(rec, "figures"), key);
	int i;

	for (i = 0; i < 3; i++) {
		const cJSON *v = cJSON_GetArrayItem(a, i);

		fs_csv_put_num(f, cJSON_IsNumber(v) ? v->valuedouble : NAN);
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
		fs_csv_put(o.f, sw->axes[a].path, FS_CSV_QUOTE);
	}
	fprintf(o.f, ",replications,feasible,stable,p_slo_met,p_slo_met_lo,p_slo_met_hi,"
	        "objective,objective_lo,objective_hi,diff_vs_baseline,diff_lo,diff_hi,"
	        "pareto_latency_ms,pareto_lo,pareto_hi");
	for (k = 0; fs__sweep_figures[k] != NULL; k++)
		fprintf(o.f, ",%s,%s_lo,%s_hi", fs__sweep_figures[k], fs__sweep_figures[k], fs__sweep_figures[k]);
	fprintf(o.f, ",decision,replications_needed,diff_vs_best,diff_vs_best_lo,"
	        "diff_vs_best_hi");
	fputc('\n', o.f);
	for (i = 0; i < n; i++) {
		const struct fs__sweep_pt *p = &pts[i];

		fprintf(o.f, "%zu,", p->index);
		fs_csv_put(o.f, p->label, FS_CSV_QUOTE);
		fs_sweep_point_sets(sw, p->index, sets);
		for (a = 0; a < sw->n_axes; a++) {
			const char *eq = strchr(sets[a], '=');
			cJSON *v = eq != NULL ? cJSON_Parse(eq + 1) : NULL;

			/* A JSON string is written as its text, anything else as JSON. */
			fputc(',', o.f);
			if (cJSON_IsString(v))
				fs_csv_put(o.f, v->valuestring, FS_CSV_QUOTE);
			else
				fs_csv_put(o.f, eq != NULL ? eq + 1 : sets[a],
				           FS_CSV_QUOTE | FS_CSV_VALUE);
			cJSON_Delete(v);
			free(sets[a]);
		}
		fprintf(o.f, ",%d,%d,%d", p->n_reps, p->feasible ? 1 : 0, p->stable ? 1 : 0);
		csv_ci(o.f, &p->p_met);
		csv_ci(o.f, &p->obj_ci);
		csv_ci(o.f, &p->diff_ci);
		csv_ci(o.f, &p->pareto_ci);
		for (k = 0; fs__sweep_figures[k] != NULL; k++)
			csv_fig(o.f, p->rec, fs__sweep_figures[k]);
		fprintf(o.f, ",%s", fs__sweep_decision_name(p->verdict));
		fs_csv_put_num(o.f, p->needed > 0 ? (double)p->needed : NAN);
		csv_ci(o.f, &p->diff_best);
		fputc('\n', o.f);
	}
	free(sets);
	return fs_outfile_commit(&o, err);
}

/* Write root to path and free it. */
static int write_json(cJSON *root, const char *path, struct fs_error *err)
{
	int rc = fs_outfile_write_json(path, root, err);

	cJSON_Delete(root);
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
		fs_csv_put(o.f, p->label, FS_CSV_QUOTE);
		fprintf(o.f, ",%d", p->feasible ? 1 : 0);
		csv_ci(o.f, &p->obj_ci);
		csv_ci(o.f, &p->pareto_ci);
		fs_csv_put_num(o.f, p->p_met.value);
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
			fs_csv_put(o.f, pts[i].label, FS_CSV_QUOTE);
			fs_csv_put_num(o.f, x->valuedouble);
			fs_csv_put_num(o.f, p->valuedouble);
			fputc('\n', o.f);
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

/* The end of a sweep: the recommended point with its objective and
 * P(SLO met), or that none is proven feasible, and where the report is. */
static void print_recommendation(const struct fs_sweep_opts *o,
                                 const struct fs_scenario *base,
                                 const struct fs__sweep_pt *pts, size_t n)
{
	size_t best, second;
	char label[256];

	fs__sweep_find_best(pts, n, &best, &second);
	if (best == SIZE_MAX) {
		printf("recommended: none: no evaluated point is proven feasible (why and the "
		       "undecided points: %s/best.json)\n", o->out_dir);
	} else {
		const struct fs__sweep_pt *p = &pts[best];

		char obj[96];

		short_label(base, p->index, label, sizeof label);
		/* STATISTICS.md: no interval (one replication) is no bracket */
		if (!isfinite(p->obj_ci.value))
			snprintf(obj, sizeof obj, "-");
		else if (!isfinite(p->obj_ci.ci_lo) || !isfinite(p->obj_ci.ci_hi))
			snprintf(obj, sizeof obj, "%.6g", p->obj_ci.value);
		else
			snprintf(obj, sizeof obj, "%.6g [%.6g, %.6g]", p->obj_ci.value,
			         p->obj_ci.ci_lo, p->obj_ci.ci_hi);
		printf("recommended: point %zu, %s: %s %s %s, P(SLO met) %.3g [%.3g, %.3g]\n",
		       p->index, label, fs_objective_name(base->objective.minimize), obj,
		       base->fleet.currency, p->p_met.value, p->p_met.ci_lo, p->p_met.ci_hi);
	}
	printf("report: %s/best.json (the recommendation and why); every point in "
	       "%s/sweep.json; `fleetsim report %s` renders them\n", o->out_dir, o->out_dir,
	       o->out_dir);
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
		if (!isfinite(p->obj_ci.value)) {
			snprintf(obj, sizeof obj, "-");
		} else if (!isfinite(p->obj_ci.half_width)) {
			snprintf(obj, sizeof obj, "%.1f", p->obj_ci.value);
		} else if (fs_stats_ci_exact(&p->obj_ci)) {
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
			fs__sweep_pt_parse(&pts[n++], i, records[i], &base->objective);
	for (i = 0; i < n; i++)
		if (pts[i].index == base->sweep.baseline)
			baseline = &pts[i];
	fs__sweep_find_best(pts, n, &best, &second);
	for (i = 0; i < n; i++) {
		struct fs_ci none = { .value = NAN, .ci_lo = NAN, .ci_hi = NAN, .half_width = NAN };

		pts[i].diff_ci = baseline != NULL ? fs__sweep_paired_diff(&pts[i], baseline) : none;
		pts[i].diff_best = best != SIZE_MAX ? fs__sweep_paired_diff(&pts[i], &pts[best]) : none;
	}
	/* The seven files are staged and appear together (or not at all):
	 * scenario.json (resolved) and scenario_input.json (the bytes every
	 * point was loaded from, whose sha256 sweep.json names) with them. */
	if (fs_outset_begin(&set, o->out_dir, &err) != 0)
		rc = FS_EXIT_RUNTIME;
	staged = rc == 0;
	if (rc == 0 && fs_scenario_write(base, fs_outset_path(&set, "scenario.json"), &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && fs_outfile_write(fs_outset_path(&set, "scenario_input.json"),
	                                o->file->text, o->file->len, &err) != 0)
		rc = FS_EXIT_RUNTIME;
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
		print_recommendation(o, base, pts, n);
	}
	for (i = 0; i < n; i++) {
		cJSON_Delete(pts[i].rec);
		free(pts[i].obj);
		free(pts[i].pareto);
	}
	free(pts);
	return rc;
}
