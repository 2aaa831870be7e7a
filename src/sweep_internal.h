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

/* A number rounded to 9 significant digits (null when not finite), and
 * {value, ci_lo, ci_hi[, exact]}. */
cJSON *fs__sweep_jnum(double x);
cJSON *fs__sweep_jci(const struct fs_ci *ci);

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

#endif
