/*
 * metrics.h — streaming, mergeable statistics of one replication.
 *  - fs_hist: log-bucket histogram of non-negative values; every bucket spans
 *    a ratio gamma = (1 + a) / (1 - a) with a = FS_HIST_REL_ERR, so a quantile
 *    is returned within relative error a of a value in its bucket.  Zero is
 *    counted exactly.  All histograms share one bucket layout, so merging is
 *    bucket-wise addition (exact and order-independent).
 *  - fs_moments: Welford mean/variance with min and max; merged by Chan's rule.
 *  - fs_tseries: time-weighted average of a piecewise-constant quantity on a
 *    fixed grid (queue length, busy servers).
 * Pure: no clock, no randomness.  Each object owns its arrays.
 */
#ifndef FLEETSIM_METRICS_H
#define FLEETSIM_METRICS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"

#define FS_HIST_REL_ERR 0.005        /* MODEL: quantiles within 0.5% */
#define FS_HIST_MIN_VALUE 1.0        /* smaller positive values share bucket 0 */
#define FS_HIST_MAX_VALUE 1e16       /* larger values land in the top bucket (ns: 115 days) */

struct fs_hist {
	uint64_t n;                  /* values added (including zeros) */
	uint64_t n_zero;             /* values <= 0 (counted as exactly 0) */
	uint64_t *buckets;           /* fs_hist_n_buckets() counters */
	double min, max;             /* exact extremes of added values */
};

void fs_hist_init(struct fs_hist *h);
void fs_hist_fini(struct fs_hist *h);
size_t fs_hist_n_buckets(void);
void fs_hist_add(struct fs_hist *h, double value);
/* Add `count` copies of value at once (O(1)). */
void fs_hist_add_n(struct fs_hist *h, double value, uint64_t count);
void fs_hist_merge(struct fs_hist *dst, const struct fs_hist *src);
/* Quantile p in [0, 1] by nearest rank (ceil(p n)); NAN when empty.  The
 * result is clamped to [min, max]. */
double fs_hist_quantile(const struct fs_hist *h, double p);
/* Fraction of values <= x (x in the same unit); 0 when empty. */
double fs_hist_cdf(const struct fs_hist *h, double x);
/* Representative value of bucket i, and the bucket a value falls in. */
double fs_hist_bucket_value(size_t i);
size_t fs_hist_bucket_of(double value);
/* Add `count` values with their bucket known (fs_hist_bucket_of(value), 0
 * for value <= 0): fs_hist_add_n without the logarithm. */
void fs_hist_add_n_at(struct fs_hist *h, size_t bucket, double value, uint64_t count);
/* The smallest double v with fs_hist_bucket_of(v) >= b (-inf for b = 0,
 * +inf past the top): a value v > 0 is in bucket b exactly when
 * floor(b) <= v < floor(b + 1).  Found by bisection with fs_hist_bucket_of
 * as the judge (about 40 logarithms); callers cache it. */
double fs_hist_bucket_floor(size_t b);

/* fs_hist_bucket_of without the logarithm (hist_finder.c): the bucket of the
 * first double of each 1/256 of a binade and each bucket's floor, found once
 * each when first needed.  Owns its tables (about 60 KB at most). */
struct fs_hist_finder {
	double *floor;               /* fs_hist_bucket_floor(b), NAN unknown */
	size_t n_floor;              /* buckets + 1 */
	uint16_t *start;             /* bucket of each slice's first double */
	uint64_t slice0;             /* the slice of FS_HIST_MIN_VALUE */
	size_t n_slices;
};
void fs_hist_finder_init(struct fs_hist_finder *f);
void fs_hist_finder_fini(struct fs_hist_finder *f);
/* fs_hist_bucket_floor(b), computed once (inline: the finder's and the ITL
 * hint's hot path). */
static inline double fs_hist_finder_floor(struct fs_hist_finder *f, size_t b)
{
	if (b >= f->n_floor)
		return HUGE_VAL;             /* past the top */
	if (isnan(f->floor[b]))
		f->floor[b] = fs_hist_bucket_floor(b);
	return f->floor[b];
}
/* fs_hist_bucket_of(v) for any v (not NaN): amortised O(1). */
size_t fs_hist_finder_bucket(struct fs_hist_finder *f, double v);

struct fs_moments {
	uint64_t n;
	double mean;
	double m2;                   /* sum of squared deviations */
	double min, max;
};

void fs_moments_init(struct fs_moments *m);
void fs_moments_add(struct fs_moments *m, double x);
/* Add `count` copies of x at once (O(1)). */
void fs_moments_add_n(struct fs_moments *m, double x, uint64_t count);
void fs_moments_merge(struct fs_moments *dst, const struct fs_moments *src);
double fs_moments_variance(const struct fs_moments *m);   /* sample, n-1 */

struct fs_tseries {
	fs_ns interval_ns;
	fs_ns horizon_ns;            /* end of the grid; the last bin ends here */
	size_t n_bins;
	double *area;                /* integral of value dt over bin, value*ns */
	fs_ns t_last_ns;             /* accounted up to here */
	double value;                /* current value since t_last_ns */
};

/* Grid [0, horizon_ns) in bins of interval_ns (last bin may be shorter). */
void fs_tseries_init(struct fs_tseries *ts, fs_ns interval_ns, fs_ns horizon_ns);
void fs_tseries_fini(struct fs_tseries *ts);
/* The quantity changes to `value` at t_ns (t_ns never decreases). */
void fs_tseries_set(struct fs_tseries *ts, fs_ns t_ns, double value);
/* Account up to t_end_ns (call once at the end). */
void fs_tseries_finish(struct fs_tseries *ts, fs_ns t_end_ns);
/* Time-average over bin i (uses the bin's true length: the last bin may be
 * shorter, and only time up to t_last_ns counts); NAN when none is covered. */
double fs_tseries_mean(const struct fs_tseries *ts, size_t bin);
/* Time-average over the whole span [from_ns, to_ns) covered by bins (clipped
 * to [0, min(horizon, t_last_ns))); a bin cut by the span counts pro rata.
 * NAN when the clipped span is empty. */
double fs_tseries_mean_over(const struct fs_tseries *ts, fs_ns from_ns, fs_ns to_ns);

#endif
