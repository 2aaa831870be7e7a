/*
 * stats.h — statistics across replications: Student-t confidence intervals
 * of a mean and Wilson intervals of a proportion, over values given in
 * replication order (the caller never reorders, so results are deterministic).
 * Pure functions over caller-owned arrays; GSL does the quantiles.
 */
#ifndef FLEETSIM_STATS_H
#define FLEETSIM_STATS_H

#include <stddef.h>

struct fs_ci {
	double value;                /* point estimate (mean) */
	double ci_lo, ci_hi;         /* NAN when n < 2 */
	double half_width;           /* NAN when n < 2 */
	size_t n;                    /* values used (NANs are skipped) */
};

/* Mean of x[0..n) with a two-sided Student-t interval at `level` (0.95).
 * NAN entries are skipped (a replication with no completed request has no
 * latency); value is NAN when none remain. */
struct fs_ci fs_stats_mean_ci(const double *x, size_t n, double level);

/* Wilson score interval for `successes` out of `trials` at `level`. */
struct fs_ci fs_stats_wilson(size_t successes, size_t trials, double level);

#endif
