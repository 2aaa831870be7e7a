/*
 * stats.h — statistics across replications: Student-t confidence intervals
 * of a mean (cut at the bounds of quantities that cannot leave them) and
 * Wilson intervals of a proportion, with the decision whether a share is
 * above a threshold, over values given in replication order (the caller
 * never reorders, so results are deterministic).  Pure functions over
 * caller-owned arrays; GSL does the quantiles.
 */
#ifndef FLEETSIM_STATS_H
#define FLEETSIM_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct fs_ci {
	double value;                /* point estimate (mean) */
	double ci_lo, ci_hi;         /* NAN when n < 2 */
	double half_width;           /* of the t interval, before any cut at a
	                              * bound (fs_stats_ci_clip); NAN when n < 2 */
	size_t n;                    /* values used (NANs are skipped) */
};

/* Mean of x[0..n) with a two-sided Student-t interval at `level` (0.95).
 * NAN entries are skipped (a replication with no completed request has no
 * latency); value is NAN when none remain. */
struct fs_ci fs_stats_mean_ci(const double *x, size_t n, double level);

/* fs_stats_mean_ci for a quantity that cannot be negative (a cost, a count,
 * a rate, a latency, a utilisation): the lower end is cut at 0 (MODEL: M6). */
struct fs_ci fs_stats_mean_ci_nonneg(const double *x, size_t n, double level);

/* The interval cut to [min_v, max_v], the range the quantity cannot leave
 * (0 and INFINITY for a cost, 0 and 1 for a share).  The value and
 * half_width are kept (MODEL: M6). */
struct fs_ci fs_stats_ci_clip(struct fs_ci ci, double min_v, double max_v);

/* True when an end of a t interval was cut by fs_stats_ci_clip, so it is no
 * longer value ± half_width and must be printed as [lo, hi]. */
bool fs_stats_ci_clipped(const struct fs_ci *ci);

/* True when the interval has zero width because every replication gave the
 * same value (n >= 2): "exact", not noise. */
bool fs_stats_ci_exact(const struct fs_ci *ci);

/* Wilson score interval for `successes` out of `trials` at `level`. */
struct fs_ci fs_stats_wilson(size_t successes, size_t trials, double level);

/* Is the true share of successes at least `threshold`?  Decided on the
 * Wilson interval at `level` (MODEL: M7): MET when its lower end reaches the
 * threshold, NOT_MET when its upper end is below it, else UNDECIDED (also
 * when trials is 0). */
enum fs_share_verdict {
	FS_SHARE_MET,
	FS_SHARE_NOT_MET,
	FS_SHARE_UNDECIDED
};
enum fs_share_verdict fs_stats_share_verdict(size_t successes, size_t trials,
                                             double threshold, double level);

/* The fewest trials that would decide the verdict if the observed share
 * successes / trials held (MODEL: M7): with every trial a success, the
 * smallest n whose Wilson lower end n / (n + z^2) reaches the threshold (35
 * for 0.9 at 95%).  `trials` itself when already decided; 0 when no number
 * of trials would (the share equals the threshold, as with every trial a
 * success against a threshold of 1), when more than 10^9 would be needed,
 * or when there are no trials yet. */
size_t fs_stats_share_trials_needed(size_t successes, size_t trials, double threshold,
                                    double level);

#endif
