/*
 * sweep_point.c — one sweep point: load the base scenario with the point's
 * sets, run its replications (with the stopping rule when one is set, and
 * more while its feasibility is undecided and the cap allows deciding it),
 * and describe the result as a JSON record holding what the outputs need:
 * per-replication objective, constraint outcomes and Pareto latency (so
 * intervals and paired differences are computed later from records alone),
 * the pooled intervals of quantile constraints and of the Pareto latency,
 * and the headline figures with their intervals.  Numbers are written so
 * they read back exactly.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"
#include "fleetsim/objective.h"
#include "fleetsim/replicate.h"
#include "fleetsim/rng.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "fleetsim/sweep.h"
#include "sweep_internal.h"

static cJSON *num(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static cJSON *ci_array(const struct fs_ci *ci)
{
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, num(ci->value));
	cJSON_AddItemToArray(a, num(ci->ci_lo));
	cJSON_AddItemToArray(a, num(ci->ci_hi));
	return a;
}

static double pareto_value(const struct fs_objective_cfg *obj, const struct fs_rep_result *r)
{
	return fs_rep_latency_ms(r, obj->pareto_class, (enum fs_latency)obj->pareto_latency,
	                         (enum fs_quantity)obj->pareto_quantity);
}

static void add_figures(cJSON *rec, const struct fs_summary *s)
{
	const struct fs_group_summary *all = &s->groups[s->n_classes];
	cJSON *f = cJSON_AddObjectToObject(rec, "figures");
	struct fs_ci none = { .value = NAN, .ci_lo = NAN, .ci_hi = NAN, .half_width = NAN };

	cJSON_AddItemToObject(f, "total_cost", ci_array(s->llm ? &s->cost.total_usd : &none));
	cJSON_AddItemToObject(f, "monthly_cost", ci_array(s->llm ? &s->cost.monthly_usd : &none));
	cJSON_AddItemToObject(f, "cost_per_1m_output_tokens",
	                      ci_array(s->llm ? &s->cost.usd_per_1m_output_tokens : &none));
	cJSON_AddItemToObject(f, "lost_to_reclaims",
	                      ci_array(s->llm ? &s->cost.lost_usd : &none));
	cJSON_AddItemToObject(f, "slo_attainment",
	                      ci_array(all->has_slo ? &all->slo_attainment : &none));
	cJSON_AddItemToObject(f, "ttft_p99_ms", ci_array(&all->lat_ms[FS_LAT_TTFT][FS_QTY_P99]));
	cJSON_AddItemToObject(f, "tpot_p99_ms",
	                      ci_array(s->llm ? &all->lat_ms[FS_LAT_TPOT][FS_QTY_P99] : &none));
	cJSON_AddItemToObject(f, "e2e_p99_ms", ci_array(&all->lat_ms[FS_LAT_E2E][FS_QTY_P99]));
	cJSON_AddItemToObject(f, "throughput_rps", ci_array(&all->throughput_rps));
	cJSON_AddBoolToObject(rec, "stable", s->unstable_replications == 0);
}

/* MODEL: U7 — a closed-loop point by concurrency (the block summary.json
 * calls "concurrency"), each figure [value, ci_lo, ci_hi]; none without
 * users. */
static void add_concurrency(cJSON *rec, const struct fs_summary *s,
                            const struct fs_scenario *sc)
{
	int64_t users;
	bool scheduled;
	int gi = fs_summary_closed_group(s, sc, &users, &scheduled);
	const struct fs_group_summary *g;
	cJSON *c;

	if (gi < 0)
		return;
	g = &s->groups[gi];
	c = cJSON_AddObjectToObject(rec, "concurrency");
	cJSON_AddNumberToObject(c, "users", (double)users);
	cJSON_AddItemToObject(c, "ttft_ms_mean", ci_array(&g->lat_ms[FS_LAT_TTFT][FS_QTY_MEAN]));
	cJSON_AddItemToObject(c, "ttft_ms_median", ci_array(&g->lat_ms[FS_LAT_TTFT][FS_QTY_P50]));
	cJSON_AddItemToObject(c, "ttft_ms_p99", ci_array(&g->lat_ms[FS_LAT_TTFT][FS_QTY_P99]));
	cJSON_AddItemToObject(c, "e2e_ms_mean", ci_array(&g->lat_ms[FS_LAT_E2E][FS_QTY_MEAN]));
	if (s->llm) {
		cJSON_AddItemToObject(c, "tpot_ms_mean",
		                      ci_array(&g->lat_ms[FS_LAT_TPOT][FS_QTY_MEAN]));
		cJSON_AddItemToObject(c, "tpot_ms_p99",
		                      ci_array(&g->lat_ms[FS_LAT_TPOT][FS_QTY_P99]));
	}
	cJSON_AddItemToObject(c, "output_tokens_per_s", ci_array(&g->output_tokens_per_s));
	cJSON_AddItemToObject(c, "requests_per_s", ci_array(&g->throughput_rps));
}

/* The Pareto latency's CDF pooled over every replication, at p = 0.01 ..
 * 0.99, 0.995, 0.999: [[latency_ms, p], ...]. */
static void add_cdf(cJSON *rec, const struct fs_objective_cfg *obj,
                    struct fs_rep_result *const *results, int n_reps)
{
	int lat = obj->present ? obj->pareto_latency : FS_LAT_TTFT;
	size_t idx = obj->present && obj->pareto_class >= 0 ? (size_t)obj->pareto_class
	                                                    : results[0]->n_classes;
	cJSON *cdf = cJSON_AddArrayToObject(rec, "pareto_cdf");
	struct fs_hist h;
	int r, k;

	fs_hist_init(&h);
	for (r = 0; r < n_reps; r++)
		fs_hist_merge(&h, &results[r]->cls[idx].lat_hist[lat]);
	for (k = 1; k <= 101 && h.n > 0; k++) {
		double p = k <= 99 ? k / 100.0 : k == 100 ? 0.995 : 0.999;
		cJSON *pair = cJSON_CreateArray();

		cJSON_AddItemToArray(pair, num(fs_hist_quantile(&h, p) / 1e6));
		cJSON_AddItemToArray(pair, cJSON_CreateNumber(p));
		cJSON_AddItemToArray(cdf, pair);
	}
	fs_hist_fini(&h);
}

static int count_met(const struct fs_objective_cfg *obj,
                     struct fs_rep_result *const *results, int n_reps)
{
	int r, met = 0;

	for (r = 0; r < n_reps; r++)
		met += !obj->present || fs_objective_met_per_run(obj, results[r]);
	return met;
}

/*
 * MODEL: S12, M7, M9 — the verdict on the constraints judged per run (the
 * Wilson interval of the share of replications meeting them all, against the
 * confidence) and on each quantile constraint (its pooled interval against
 * the bound), combined: feasible when every part is proven.
 */
static enum fs_share_verdict point_verdict(const struct fs_objective_cfg *obj,
                                           struct fs_rep_result *const *results, int n_reps,
                                           int met, size_t *needed)
{
	enum fs_share_verdict v = FS_SHARE_MET;
	size_t i, need = 0;

	if (fs_objective_n_pooled(obj) < obj->n_constraints) {
		v = fs_stats_share_verdict((size_t)met, (size_t)n_reps, obj->confidence, FS_CI_LEVEL);
		if (v == FS_SHARE_UNDECIDED)
			need = fs_stats_share_trials_needed((size_t)met, (size_t)n_reps,
			                                    obj->confidence, FS_CI_LEVEL);
	}
	for (i = 0; i < obj->n_constraints; i++) {
		const struct fs_constraint *c = &obj->constraints[i];
		struct fs_ci ci;
		enum fs_share_verdict vc;
		size_t need_c;

		if (!fs_constraint_pooled(c))
			continue;
		ci = fs_objective_latency_ci(results, n_reps, c->class_idx,
		                             (enum fs_latency)c->latency,
		                             (enum fs_quantity)c->quantity);
		vc = fs_objective_pooled_verdict(c, &ci, (size_t)n_reps, &need_c);
		v = fs_objective_verdict_and(v, need, vc, need_c, &need);
	}
	*needed = need;
	return v;
}

/*
 * The point's verdict (point_verdict).  While undecided, and while the
 * replications that would decide it fit under the cap, run up to that many
 * (indices continue, so earlier ones never change and every point still
 * sees the same traffic).  Deterministic: how many run depends only on
 * earlier results.  No constraint: feasible outright.  obj is the base
 * document's (a point's own scenario has none).
 */
static struct fs_rep_result **settle(struct fs__sweep_share *share,
                                     const struct fs_scenario *sc,
                                     const struct fs_objective_cfg *obj,
                                     const struct fs_run_opts *opts,
                                     struct fs_rep_result **results, int *n_reps, int cap,
                                     enum fs_share_verdict *verdict, size_t *needed)
{
	int met = count_met(obj, results, *n_reps);

	*needed = 0;
	if (!obj->present || obj->n_constraints == 0) {
		*verdict = FS_SHARE_MET;
		return results;
	}
	for (;;) {
		struct fs_run_opts more = *opts;
		struct fs_rep_result **extra;
		int i;

		*verdict = point_verdict(obj, results, *n_reps, met, needed);
		if (*verdict != FS_SHARE_UNDECIDED || *needed == 0 || *needed > (size_t)cap)
			return results;
		more.first_replication = opts->first_replication + *n_reps;
		more.replications = (int)*needed - *n_reps;
		if (more.threads > more.replications)
			more.threads = more.replications;
		more.record_first = false;
		extra = fs__sweep_share_replicate(share, sc, &more);
		results = fs_xrealloc(results, *needed * sizeof *results);
		for (i = 0; i < more.replications; i++)
			results[*n_reps + i] = extra[i];
		free(extra);
		met += count_met(obj, results + *n_reps, more.replications);
		*n_reps += more.replications;
	}
}

/* MODEL: M8, M9 — the pooled figures the decisions and the Pareto front
 * use: each quantile constraint's interval (in constraint order) and the
 * Pareto latency's. */
static void add_pooled(cJSON *rec, const struct fs_objective_cfg *obj,
                       struct fs_rep_result *const *results, int n_reps)
{
	cJSON *qc = cJSON_AddArrayToObject(rec, "quantile_constraints");
	struct fs_ci ci;
	size_t i;

	for (i = 0; obj->present && i < obj->n_constraints; i++) {
		const struct fs_constraint *c = &obj->constraints[i];

		if (!fs_constraint_pooled(c))
			continue;
		ci = fs_objective_latency_ci(results, n_reps, c->class_idx,
		                             (enum fs_latency)c->latency,
		                             (enum fs_quantity)c->quantity);
		cJSON_AddItemToArray(qc, ci_array(&ci));
	}
	if (obj->present)
		ci = fs_objective_latency_ci(results, n_reps, obj->pareto_class,
		                             (enum fs_latency)obj->pareto_latency,
		                             (enum fs_quantity)obj->pareto_quantity);
	else
		ci = fs_objective_latency_ci(results, n_reps, -1, FS_LAT_TTFT, FS_QTY_P99);
	cJSON_AddItemToObject(rec, "pareto_latency", ci_array(&ci));
}

char *fs__sweep_eval_point(const struct fs_sweep_opts *o, const struct fs_scenario *base,
                           size_t point, struct fs__sweep_share *share, bool *feasible)
{
	const struct fs_sweep_cfg *sw = &base->sweep;
	const struct fs_objective_cfg *obj = &base->objective;
	struct fs_error err;
	struct fs_scenario *sc;
	struct fs_run_opts opts = { 0 };
	struct fs_rep_result **results;
	struct fs_summary *s;
	cJSON *rec, *arr_obj, *arr_met, *arr_par, *arr_run;
	char label[1024], *text;
	int n_reps, r, cap;
	double ci_target;
	enum fs_share_verdict verdict;
	size_t needed;

	sc = fs_scenario_file_load(o->file, NULL, o->sets, o->n_sets, sw, point, &err);
	fs_sweep_point_label(sw, point, label, sizeof label);
	if (sc == NULL) {
		fprintf(stderr, "fleetsim sweep: point %zu (%s): ", point, label);
		fs_error_print(&err);
		return NULL;
	}
	opts.replications = o->replications > 0 ? (int)o->replications : sc->sim.replications;
	opts.first_replication = 0;
	opts.seed = o->seed >= 0 ? (uint64_t)o->seed : sc->sim.seed;
	opts.threads = o->threads > 0 ? o->threads : omp_get_num_procs();
	if (opts.threads > opts.replications)
		opts.threads = opts.replications;
	opts.record_first = false;
	ci_target = o->ci_target > 0 ? o->ci_target : obj->present ? obj->ci_target : 0;
	cap = obj->present && obj->max_replications > 0 ? obj->max_replications
	                                                 : 10 * opts.replications;
	fs__sweep_share_begin(share, point, sc, opts.seed);   /* MODEL: S21 */
	results = fs__sweep_share_objective_run(share, sc, &opts, fs_objective_default_figure,
	                                        ci_target, cap, &n_reps);
	results = settle(share, sc, obj, &opts, results, &n_reps, cap > n_reps ? cap : n_reps,
	                 &verdict, &needed);
	s = fs_summary_build(sc, results, n_reps, opts.seed);

	rec = cJSON_CreateObject();
	cJSON_AddNumberToObject(rec, "point", (double)point);
	cJSON_AddStringToObject(rec, "label", label);
	cJSON_AddStringToObject(rec, "scenario_sha256", base->sha256_hex);
	cJSON_AddNumberToObject(rec, "seed", (double)opts.seed);
	cJSON_AddNumberToObject(rec, "replications", n_reps);
	cJSON_AddItemToObject(rec, "inputs", fs__sweep_record_inputs(o, base, point));
	arr_obj = cJSON_AddArrayToObject(rec, "objective_per_rep");
	arr_met = cJSON_AddArrayToObject(rec, "met_per_rep");
	arr_par = cJSON_AddArrayToObject(rec, "pareto_per_rep");
	arr_run = cJSON_AddArrayToObject(rec, "met_per_run_constraints_per_rep");
	for (r = 0; r < n_reps; r++) {
		bool ok = !obj->present || fs_objective_met(obj, results[r]);

		cJSON_AddItemToArray(arr_run, cJSON_CreateNumber(
			!obj->present || fs_objective_met_per_run(obj, results[r]) ? 1 : 0));

		cJSON_AddItemToArray(arr_obj, num(obj->present ?
			fs_objective_value(obj->minimize, sc, results[r]) :
			fs_objective_default_figure(sc, results[r])));
		cJSON_AddItemToArray(arr_met, cJSON_CreateNumber(ok ? 1 : 0));
		cJSON_AddItemToArray(arr_par, num(obj->present ? pareto_value(obj, results[r]) :
			fs_rep_latency_ms(results[r], -1, FS_LAT_TTFT, FS_QTY_P99)));
	}
	/* MODEL: S12, M9 — feasible only when proven (point_verdict). */
	*feasible = verdict == FS_SHARE_MET;
	add_cdf(rec, obj, results, n_reps);
	add_pooled(rec, obj, results, n_reps);
	cJSON_AddBoolToObject(rec, "feasible", *feasible);
	cJSON_AddStringToObject(rec, "decision", fs__sweep_decision_name(verdict));
	if (verdict == FS_SHARE_UNDECIDED && needed > 0)
		cJSON_AddNumberToObject(rec, "replications_needed", (double)needed);
	else
		cJSON_AddNullToObject(rec, "replications_needed");
	add_figures(rec, s);
	add_concurrency(rec, s, sc);
	text = fs_json_text(rec, 0);
	cJSON_Delete(rec);
	fs_summary_free(s);
	fs__sweep_share_release(share, results, n_reps);
	fs__sweep_share_end(share);
	fs_scenario_free(sc);
	return text;
}

/* See sweep_internal.h.  The scenario's own seed, replications and
 * objective are covered by its sha256 together with the command-line sets
 * and the point's label; the options that override them are kept as given
 * (-1 / 0: the scenario's).  The generator and its variate methods
 * (fs_rng_name) are inputs too: the same seed draws other numbers under
 * another one. */
cJSON *fs__sweep_record_inputs(const struct fs_sweep_opts *o, const struct fs_scenario *base,
                               size_t point)
{
	const struct fs_objective_cfg *obj = &base->objective;
	cJSON *in = cJSON_CreateObject(), *sets;
	char label[1024];
	size_t i;

	fs_sweep_point_label(&base->sweep, point, label, sizeof label);
	cJSON_AddStringToObject(in, "fleetsim_version", FS_VERSION);
	cJSON_AddStringToObject(in, "rng", fs_rng_name());   /* every draw's source */
	cJSON_AddStringToObject(in, "scenario_sha256", base->sha256_hex);
	sets = cJSON_AddArrayToObject(in, "sets");
	for (i = 0; i < o->n_sets; i++)
		cJSON_AddItemToArray(sets, cJSON_CreateString(o->sets[i]));
	cJSON_AddNumberToObject(in, "point", (double)point);
	cJSON_AddStringToObject(in, "label", label);
	cJSON_AddNumberToObject(in, "seed_option", (double)o->seed);
	cJSON_AddNumberToObject(in, "replications_option", (double)o->replications);
	cJSON_AddNumberToObject(in, "ci_target_option", o->ci_target);
	cJSON_AddBoolToObject(in, "objective", obj->present);
	cJSON_AddNumberToObject(in, "objective_ci_target", obj->present ? obj->ci_target : 0);
	cJSON_AddNumberToObject(in, "max_replications",
	                        obj->present ? obj->max_replications : 0);
	cJSON_AddNumberToObject(in, "confidence", obj->present ? obj->confidence : 1.0);
	cJSON_AddNumberToObject(in, "constraints",
	                        obj->present ? (double)obj->n_constraints : 0);
	return in;
}

int fs__sweep_record_feasible(const char *text)
{
	cJSON *rec = cJSON_Parse(text);
	const cJSON *f;
	int rc = -1;

	if (rec == NULL)
		return -1;
	f = cJSON_GetObjectItemCaseSensitive(rec, "feasible");
	if (cJSON_IsBool(f))
		rc = cJSON_IsTrue(f) ? 1 : 0;
	cJSON_Delete(rec);
	return rc;
}
