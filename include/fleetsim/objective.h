/*
 * objective.h — per-replication figures a decision rests on: the objective
 * (a cost), the latency and attainment figures constraints test, whether a
 * replication met every constraint, and the stopping rule that adds
 * replications until the objective's confidence interval is tight enough.
 * Pure functions over replication results, except fs_objective_run which runs
 * replications.
 */
#ifndef FLEETSIM_OBJECTIVE_H
#define FLEETSIM_OBJECTIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "fleetsim/replicate.h"
#include "fleetsim/result.h"
#include "fleetsim/scenario_cfg.h"
#include "fleetsim/stats.h"
#include "fleetsim/summary.h"

/*
 * The cost figures of one replication (MODEL: F14, E5), in the scenario's
 * currency: the one computation the summary's cost figures and the
 * objective both read, so a sweep minimises exactly what summary.json
 * reports.  Every ratio is NAN when its denominator is 0.
 */
struct fs_rep_cost {
	double total_usd;                    /* Σ pools' bills */
	double span_h;                       /* hours billed: the horizon, or up to
	                                        a stop at max_in_system (S3), or with
	                                        drain up to the drain's end (E5) */
	double usd_per_hour;                 /* total_usd / span_h */
	double monthly_usd;                  /* usd_per_hour x 730 h */
	double usd_per_1m_output_tokens;     /* over all output tokens of the span */
	double usd_per_1k_requests;          /* over all completions of the span */
};

/* The cost figures of replication r of scenario sc; pure. */
struct fs_rep_cost fs_rep_cost_figures(const struct fs_scenario *sc,
                                       const struct fs_rep_result *r);

/* The objective's value in one replication (USD; NAN without a fleet): the
 * figure of fs_rep_cost_figures that metric m names. */
double fs_objective_value(enum fs_objective_metric m, const struct fs_scenario *sc,
                          const struct fs_rep_result *r);
/* "total_cost", "monthly_cost", "cost_per_1m_output_tokens"; "?" outside. */
const char *fs_objective_name(enum fs_objective_metric m);
/* The metric named `name` (exact; not the older "*_usd" names the loader
 * also takes) into *out: 0, or -1 when none (*out untouched). */
int fs_objective_from_name(const char *name, enum fs_objective_metric *out);

/* A latency figure of one replication, ms (class_idx -1: all traffic); NAN
 * when nothing completed. */
double fs_rep_latency_ms(const struct fs_rep_result *r, int class_idx,
                         enum fs_latency k, enum fs_quantity q);

/* SLO attainment of one replication (met / (completed + in flight + failed)). */
double fs_rep_attainment(const struct fs_rep_result *r, int class_idx);

/* Availability of one replication (MODEL: F15): the share of the
 * availability window in which pool pool_idx (-1: the fleet) had the serving
 * instances it wanted; NAN with an empty window or no such pool. */
double fs_rep_availability(const struct fs_rep_result *r, int pool_idx);

/* Fewest serving instances of pool pool_idx (-1: the fleet) over the
 * availability window of one replication; NAN with no data. */
double fs_rep_min_serving(const struct fs_rep_result *r, int pool_idx);

/* True when replication r meets every constraint of the objective. */
bool fs_objective_met(const struct fs_objective_cfg *obj, const struct fs_rep_result *r);

/* True for a constraint judged on a pooled interval over all replications
 * rather than in each replication: a latency quantile (p50..p99) bound
 * (MODEL: M9). */
bool fs_constraint_pooled(const struct fs_constraint *c);

/* True when replication r meets every constraint that is judged per run
 * (all but the pooled ones; true when there are none). */
bool fs_objective_met_per_run(const struct fs_objective_cfg *obj,
                              const struct fs_rep_result *r);

/* Number of pooled constraints of obj. */
size_t fs_objective_n_pooled(const struct fs_objective_cfg *obj);

/*
 * A latency figure over res[0..n) in ms (class_idx -1: all traffic): a
 * quantile from the pooled histograms with its sectioning interval
 * (fs_stats_quantile_ci), the mean as the mean of replication means with a
 * t interval cut at 0.  95% level.  Value NAN when nothing completed.
 */
struct fs_ci fs_objective_latency_ci(struct fs_rep_result *const *res, int n, int class_idx,
                                     enum fs_latency k, enum fs_quantity q);

/*
 * The verdict on pooled constraint c ("quantile <= c->max_ms") from the
 * quantile's interval ci over n_reps replications: MET when ci_hi <= max_ms,
 * NOT_MET when ci_lo > max_ms, else UNDECIDED with *needed the replications
 * that would decide it if the estimate held (0: none would; 2 when there
 * was a single replication and so no interval).  *needed is 0 when decided.
 */
enum fs_share_verdict fs_objective_pooled_verdict(const struct fs_constraint *c,
                                                  const struct fs_ci *ci, size_t n_reps,
                                                  size_t *needed);

/* Both verdicts: NOT_MET if either is, MET if both are, else UNDECIDED with
 * *needed the larger of the parts' needs (0 when an undecided part has no
 * projection). */
enum fs_share_verdict fs_objective_verdict_and(enum fs_share_verdict a, size_t needed_a,
                                               enum fs_share_verdict b, size_t needed_b,
                                               size_t *needed);

/*
 * Run opts->replications replications, then, while the relative half-width
 * of the 95% CI of `figure` (per replication) exceeds ci_target, or its
 * values are too skewed to trust that interval, and fewer
 * than max_reps have run, as many more (replication indices continue, so
 * the first ones never change; MODEL: S10).  ci_target <= 0: no extra.
 * Returns the results (fs_replicate_free) and their count in *n_reps.
 */
struct fs_rep_result **fs_objective_run(const struct fs_scenario *sc,
                                        const struct fs_run_opts *opts,
                                        double (*figure)(const struct fs_scenario *,
                                                         const struct fs_rep_result *),
                                        double ci_target, int max_reps, int *n_reps);

/* The figure the stopping rule of `fleetsim run` watches: the objective when
 * the scenario has one, else total USD with a fleet, else mean E2E latency. */
double fs_objective_default_figure(const struct fs_scenario *sc,
                                   const struct fs_rep_result *r);

/* The stopping rule's test (MODEL: S10): the relative half-width of the
 * 95% CI of `figure` over res[0..n), INFINITY when the interval is not
 * finite, the mean is 0 or the values are too skewed to trust it.  The
 * sweep's shared replications (sweep_share.c) stop by it too. */
double fs_objective_rel_half_width(const struct fs_scenario *sc,
                                   struct fs_rep_result *const *res, int n,
                                   double (*figure)(const struct fs_scenario *,
                                                    const struct fs_rep_result *));

#endif
