/*
 * headroom.h — the highest traffic a configuration sustains within its SLO:
 * every arrival rate of the scenario scaled by one factor, the factor
 * bracketed by doubling or halving and then bisected, each probe a set of
 * replications on the same seed (common random numbers), with the interval
 * of the factor from where the probes' verdicts are proven (MODEL: H1-H5).
 * The caller owns every struct; nothing here allocates beyond a probe.
 */
#ifndef FLEETSIM_HEADROOM_H
#define FLEETSIM_HEADROOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/scenario_cfg.h"
#include "fleetsim/stats.h"

#define FS_HEADROOM_MAX_PROBES 24    /* simulations budget: probes, each R runs */

struct fs_headroom_opts {
	int replications;            /* per probe, >= 1 (2 or more for an interval) */
	int threads;                 /* OpenMP threads, >= 1 */
	uint64_t seed;               /* base seed (the run's) */
	int max_probes;              /* <= FS_HEADROOM_MAX_PROBES */
	double factor_min;           /* search bounds of the factor (1/16, 16) */
	double factor_max;
	double tol_rel;              /* bisection stops at hi / lo - 1 <= this (0.02) */
	double tol_ci_rel;           /* the same for the interval's ends (0.05) */
	const struct fs_objective_cfg *objective;  /* pooled latency constraints
	                                            * also judged; NULL: none */
};

/* One probe: the scenario at `factor` times its arrival rates. */
struct fs_headroom_probe {
	double factor;
	bool point_met;              /* every criterion's estimate meets it */
	int verdict;                 /* enum fs_share_verdict: proven met / not */
	double worst_attainment;     /* lowest class attainment mean (NAN: none) */
};

struct fs_headroom {
	bool applicable;             /* false: why says why no search was made */
	char why[256];
	double factor;               /* highest factor whose estimates meet (H3) */
	double factor_lo;            /* highest factor proven to meet (NAN: none) */
	double factor_hi;            /* lowest factor proven not to (INFINITY: none
	                              * up to factor_max) */
	bool above_max;              /* factor_max itself met: factor is a floor */
	bool below_min;              /* factor_min itself failed: factor is 0 */
	double base_rate_per_s;      /* mean offered rate of the scenario (factor 1) */
	int replications;            /* per probe */
	int n_probes;
	struct fs_headroom_probe probes[FS_HEADROOM_MAX_PROBES];  /* in run order */
};

/* Defaults: the given replications and seed, one thread, 20 probes,
 * factors 1/16 to 16, tolerances 2% and 5%, no objective. */
void fs_headroom_opts_init(struct fs_headroom_opts *o, int replications, uint64_t seed);

/*
 * Mean offered arrival rate (requests/s) of sc over its measured span
 * (warm-up to horizon), all arrival processes together; NAN when a class is
 * closed-loop (users, not a rate, set its load).
 */
double fs_headroom_offered_rate(const struct fs_scenario *sc);

/*
 * Search the factor (MODEL: H1-H5).  Runs at most o->max_probes probes of
 * o->replications replications each; deterministic for a seed (any thread
 * count).  Returns 0 with *out filled, or 0 with out->applicable false and
 * out->why when the scenario has no arrival rate to scale (closed-loop
 * users).  Never fails otherwise.
 */
int fs_headroom_search(const struct fs_scenario *sc, const struct fs_headroom_opts *o,
                       struct fs_headroom *out);

#endif
