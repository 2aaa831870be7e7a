/*
 * sweep_internal.h — an evaluated sweep point parsed back from its record
 * and its helpers (sweep_pt.c), used by sweep_out.c, sweep_best.c and
 * sweep.c; best.json (sweep_best.c).  A point owns its parsed record and
 * arrays (sweep_out.c frees them).
 */
#ifndef FLEETSIM_SWEEP_INTERNAL_H
#define FLEETSIM_SWEEP_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/out_format.h"
#include "fleetsim/stats.h"

struct fs_scenario;
struct fs_objective_cfg;
struct fs_sweep_opts;

/* One evaluated point, parsed back from its record. */
struct fs__sweep_pt {
	size_t index;
	cJSON *rec;
	const char *label;
	int n_reps;
	double *obj;                 /* per replication */
	double *pareto;
	int met;                     /* replications meeting every constraint */
	int met_run;                 /* replications meeting every constraint judged
	                              * per run (all but quantile ones; MODEL: M9) */
	bool feasible, stable;       /* feasible: proven (verdict MET) */
	enum fs_share_verdict verdict;
	size_t needed;               /* replications that would decide an undecided
	                              * point at its observed share; 0: none would */
	struct fs_ci obj_ci, pareto_ci, p_met, diff_ci;
	struct fs_ci diff_best;      /* paired, against the recommended point */
};

/* The figures of a point record, in output order (NULL-terminated). */
extern const char *const fs__sweep_figures[];

/* Parse point `index`'s record text into p and decide it against obj (the
 * text must have passed fs__sweep_record_complete). */
void fs__sweep_pt_parse(struct fs__sweep_pt *p, size_t index, const char *text,
                        const struct fs_objective_cfg *obj);

/* "feasible", "infeasible", "undecided". */
const char *fs__sweep_decision_name(enum fs_share_verdict v);

/* MODEL: S14 — the t interval of obj_p[r] - obj_base[r] over the
 * replications both ran. */
struct fs_ci fs__sweep_paired_diff(const struct fs__sweep_pt *p,
                                   const struct fs__sweep_pt *base);

/* A point's object in sweep.json and best.json. */
cJSON *fs__sweep_point_json(const struct fs_scenario *base, const struct fs__sweep_pt *p);

/* The cheapest and next cheapest proven-feasible points by mean objective
 * (SIZE_MAX when none); returns how many are proven feasible. */
size_t fs__sweep_find_best(const struct fs__sweep_pt *pts, size_t n, size_t *best,
                           size_t *second);

/* best.json's object (caller frees). */
cJSON *fs__sweep_best_json(const struct fs_scenario *base, const struct fs__sweep_pt *pts,
                           size_t n, size_t n_points);

/* Everything besides the code that determines point `point`'s record
 * bytes: version, scenario sha256, command-line sets, point and label,
 * seed / replication / ci-target options, the objective's stopping rule and
 * confidence (caller owns the object; stored as the record's "inputs"). */
cJSON *fs__sweep_record_inputs(const struct fs_sweep_opts *o, const struct fs_scenario *base,
                               size_t point);

/* Whether rec is a complete point record for `point`: every member the
 * outputs read is present with its type (per-replication arrays as long as
 * "replications", figures as [value, lo, hi]).  1, or 0 with a reason in
 * why. */
int fs__sweep_record_complete(const cJSON *rec, size_t point, char *why, size_t why_len);

/* MODEL: S13 — the value index of the search axis where the search of the
 * unit at coords (the other axes' indices) starts: for a
 * fleet.pools[i].count axis the smallest count whose saturation throughput
 * covers the mean offered load (sweep_bound.c), else 0. */
size_t fs__sweep_search_start(const struct fs_sweep_opts *o, const struct fs_scenario *base,
                              const size_t *coords, size_t axis);

/* ---- progress on stderr (sweep_progress.c) --------------------------------- */

struct fs__sweep_progress;

/* Start reporting: tty, a line redrawn after every point; else a log line
 * every 5 s from a thread of its own.  _stop prints the last line and frees
 * (NULL is fine for every call). */
struct fs__sweep_progress *fs__sweep_progress_start(bool tty);
void fs__sweep_progress_plan(struct fs__sweep_progress *p, size_t planned);
/* Point `point` (label) is being evaluated; then done, with the
 * replications it ran and the sweep's borrowed replications so far. */
void fs__sweep_progress_begin(struct fs__sweep_progress *p, size_t point, const char *label);
void fs__sweep_progress_done(struct fs__sweep_progress *p, double reps, uint64_t borrowed);
void fs__sweep_progress_stop(struct fs__sweep_progress *p);

/* ---- shared simulations (sweep_share.c, MODEL: S21) ---------------------- */

struct fs_run_opts;
struct fs_rep_result;
struct fs_sweep_cfg;
struct fs__sweep_share;

/* Whether value `value` of axis `axis` is a pricing plan folded into the
 * share key (on_demand, daily, weekly, monthly, yearly of a
 * fleet.pools[i].pricing axis). */
bool fs__sweep_share_folds(const struct fs_sweep_cfg *sw, size_t axis, size_t value);

/* The share key of the value indices coords (n_axes of them): coords with
 * folded values replaced by SIZE_MAX.  Points of one key share. */
void fs__sweep_share_key(const struct fs_sweep_cfg *sw, const size_t *coords, size_t *key);

/* The cache of shared simulations (caller frees; _free accepts NULL).
 * _clear drops every cached replication (between groups of units). */
struct fs__sweep_share *fs__sweep_share_alloc(const struct fs_sweep_opts *o,
                                              const struct fs_scenario *base);
void fs__sweep_share_clear(struct fs__sweep_share *sh);
void fs__sweep_share_free(struct fs__sweep_share *sh);

/* Replications borrowed from another point's simulation, and simulated by
 * the cache, since the allocation. */
void fs__sweep_share_counts(const struct fs__sweep_share *sh, uint64_t *borrowed,
                            uint64_t *simulated);

/* Point `point` (its loaded scenario sc, run on `seed`) is about to be
 * evaluated: find or start its cache entry.  sh NULL: nothing shared. */
void fs__sweep_share_begin(struct fs__sweep_share *sh, size_t point,
                           const struct fs_scenario *sc, uint64_t seed);
void fs__sweep_share_end(struct fs__sweep_share *sh);

/* fs_replicate_run and fs_objective_run for the point begun: the same
 * results, borrowed where the cache holds them (billed as sc) and the rest
 * simulated.  The array belongs to the caller, the results to whoever
 * fs__sweep_share_release says: pass every array back to it (not to
 * fs_replicate_free) before fs__sweep_share_end. */
struct fs_rep_result **fs__sweep_share_replicate(struct fs__sweep_share *sh,
                                                 const struct fs_scenario *sc,
                                                 const struct fs_run_opts *opts);
struct fs_rep_result **fs__sweep_share_objective_run(
	struct fs__sweep_share *sh, const struct fs_scenario *sc, const struct fs_run_opts *opts,
	double (*figure)(const struct fs_scenario *, const struct fs_rep_result *),
	double ci_target, int max_reps, int *n_reps);
void fs__sweep_share_release(struct fs__sweep_share *sh, struct fs_rep_result **results,
                             int n);

#endif
