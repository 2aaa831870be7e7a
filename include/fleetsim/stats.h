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

#include "fleetsim/metrics.h"

/* How an interval was made (docs/STATISTICS.md). */
/* The confidence level of every interval and verdict fleetsim reports
 * (95%; MODEL: S4), and the default of a study's own `level`. */
#define FS_CI_LEVEL 0.95

enum fs_ci_method {
	FS_CI_T,                     /* Student t over replication values (M4) */
	FS_CI_SECTIONING,            /* pooled quantile, sectioning t interval
	                              * widened by the histogram's error */
	FS_CI_WILSON                 /* a share (M5) */
};

struct fs_ci {
	double value;                /* point estimate (mean) */
	double ci_lo, ci_hi;         /* NAN when n < 2 */
	double half_width;           /* of the t interval, before any cut at a
	                              * bound (fs_stats_ci_clip); NAN when n < 2;
	                              * sectioning: (ci_hi - ci_lo) / 2 */
	size_t n;                    /* values used (NANs are skipped) */
	/* Fields added with the sectioning interval and the skewness check;
	 * zero in an interval built field by field elsewhere. */
	int method;                  /* enum fs_ci_method */
	size_t sections;             /* sectioning: sections of replications */
	double skew;                 /* t: sample skewness of the values (n >= 3) */
	size_t n_suggested;          /* t: > n when the skewness makes the
	                              * interval untrustworthy: the
	                              * replications that would make it trustworthy */
};

/* Largest number of sections a sectioning interval uses. */
#define FS_STATS_MAX_SECTIONS 20

/* Mean of x[0..n) with a two-sided Student-t interval at `level` (0.95).
 * NAN entries are skipped (a replication with no completed request has no
 * latency); value is NAN when none remain.  With three or more values it
 * also checks their skewness (docs/STATISTICS.md, "Skewed replication
 * values"): skew and, when the interval cannot be trusted at this n,
 * n_suggested > n. */
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

/*
 * The p-quantile (p in [0, 1]) of a quantity recorded in one histogram per
 * replication, h[0..n) in replication order (MODEL: M1, S4;
 * docs/STATISTICS.md, "Quantiles").  The point estimate is the quantile of
 * the pooled histogram (the exact merge of all of them).  The interval is
 * by sectioning with CDF inversion: the replications are split, in order,
 * into k = min(R, FS_STATS_MAX_SECTIONS) sections of consecutive
 * replications (R non-empty histograms); at each candidate x the k
 * sections' shares of values <= x are tested against p with Hall's
 * skewness-corrected t statistic T (MODEL: M10); the lower end is the first
 * x where T >= -t(k-1), the upper end the first where T >= t(k-1), found on
 * the bucket edges and then inside the bucket by interpolation; the
 * estimate is kept inside, the histogram's relative error FS_HIST_REL_ERR
 * is added to each side in quadrature, and the ends are brought within the
 * observed [min, max] (MODEL: M8).  When
 * every value is the same the interval is exactly that value (half_width
 * 0, "exact"); otherwise it has zero width only for a quantile on the atom
 * at 0 that every section agrees on.  Empty histograms (a replication with
 * no value) are skipped; value NAN when all are; interval NAN with fewer
 * than two non-empty.  Scratch histograms are freed before returning;
 * O(k x buckets).
 */
struct fs_ci fs_stats_quantile_ci(const struct fs_hist *const *h, size_t n, double p,
                                  double level);

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
