/*
 * tseries.c — time-weighted averages on a fixed grid (see metrics.h; MODEL:
 * M3).  The quantity is piecewise constant: between two set() calls it holds
 * `value`, and each set() adds value * dt to every bin the interval crosses.
 * Invariant: time never goes back (an always-on check).  The series owns its
 * area array.
 */
#include "fleetsim/metrics.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleetsim/common.h"

static fs_ns min_ns(fs_ns x, fs_ns y)
{
	return x < y ? x : y;
}

static fs_ns max_ns(fs_ns x, fs_ns y)
{
	return x > y ? x : y;
}

/* End of bin b's covered time: its grid end, cut at the horizon and at the
 * time accounted so far. */
static fs_ns bin_end_ns(const struct fs_tseries *ts, size_t b)
{
	fs_ns end = ts->interval_ns * (fs_ns)(b + 1);

	return min_ns(min_ns(end, ts->horizon_ns), ts->t_last_ns);
}

/* Add the current value over [t_last_ns, t_ns) ∩ [0, horizon) to the bins it
 * crosses, then move t_last_ns to t_ns. */
static void account(struct fs_tseries *ts, fs_ns t_ns)
{
	fs_ns from = ts->t_last_ns;
	fs_ns to = min_ns(t_ns, ts->horizon_ns);

	if (t_ns < ts->t_last_ns) {
		fprintf(stderr, "fleetsim: time series went back from %" PRId64
		        " ns to %" PRId64 " ns\n", ts->t_last_ns, t_ns);
		abort();
	}
	while (from < to) {
		size_t b = (size_t)(from / ts->interval_ns);
		fs_ns grid_end = min_ns(ts->interval_ns * (fs_ns)(b + 1), ts->horizon_ns);
		fs_ns seg_end = min_ns(to, grid_end);

		assert(b < ts->n_bins);
		ts->area[b] += ts->value * (double)(seg_end - from);
		from = seg_end;
	}
	ts->t_last_ns = t_ns;
}

/*
 * Initialise a series over [0, horizon_ns) in bins of interval_ns (both > 0;
 * the last bin is shorter when interval does not divide horizon).  The value
 * is 0 from time 0 until the first set().  Free with fs_tseries_fini.
 */
void fs_tseries_init(struct fs_tseries *ts, fs_ns interval_ns, fs_ns horizon_ns)
{
	assert(interval_ns > 0 && horizon_ns > 0);
	ts->interval_ns = interval_ns;
	ts->horizon_ns = horizon_ns;
	ts->n_bins = (size_t)((horizon_ns + interval_ns - 1) / interval_ns);
	ts->area = fs_xcalloc(ts->n_bins, sizeof *ts->area);
	ts->t_last_ns = 0;
	ts->value = 0.0;
}

/* Release the area array. */
void fs_tseries_fini(struct fs_tseries *ts)
{
	free(ts->area);
	ts->area = NULL;
	ts->n_bins = 0;
}

/*
 * The quantity becomes `value` at t_ns.  Time spent at the previous value is
 * added to every bin crossed since the previous change (O(bins crossed));
 * time past the horizon is ignored.  t_ns below the last change aborts.
 */
void fs_tseries_set(struct fs_tseries *ts, fs_ns t_ns, double value)
{
	account(ts, t_ns);
	ts->value = value;
}

/* Account the current value up to t_end_ns (call once, at the end). */
void fs_tseries_finish(struct fs_tseries *ts, fs_ns t_end_ns)
{
	account(ts, t_end_ns);
}

/*
 * Time-average of bin `bin` (< n_bins): its area over its covered length,
 * which is the interval except for the last bin (cut at the horizon) and for
 * bins not yet fully accounted.  NAN when no time of the bin is covered.
 */
double fs_tseries_mean(const struct fs_tseries *ts, size_t bin)
{
	fs_ns start = ts->interval_ns * (fs_ns)bin;
	fs_ns end;

	assert(bin < ts->n_bins);
	end = bin_end_ns(ts, bin);
	if (end <= start)
		return NAN;
	return ts->area[bin] / (double)(end - start);
}

/*
 * Time-average over [from_ns, to_ns), clipped to the covered time
 * [0, min(horizon, t_last_ns)).  Bins wholly inside count their full area; a
 * bin cut by the span counts in proportion to the overlap (the value is
 * assumed uniform inside it), so the result is exact when the span's ends
 * lie on bin edges.  NAN when the clipped span is empty.  O(bins spanned).
 */
double fs_tseries_mean_over(const struct fs_tseries *ts, fs_ns from_ns, fs_ns to_ns)
{
	double sum = 0.0;
	size_t b, b_last;

	from_ns = max_ns(from_ns, 0);
	to_ns = min_ns(min_ns(to_ns, ts->horizon_ns), ts->t_last_ns);
	if (to_ns <= from_ns)
		return NAN;
	b_last = (size_t)((to_ns - 1) / ts->interval_ns);
	for (b = (size_t)(from_ns / ts->interval_ns); b <= b_last; b++) {
		fs_ns start = ts->interval_ns * (fs_ns)b;
		fs_ns end = bin_end_ns(ts, b);
		fs_ns lo = max_ns(start, from_ns), hi = min_ns(end, to_ns);

		assert(b < ts->n_bins && end > start);
		if (lo == start && hi == end)
			sum += ts->area[b];
		else
			sum += ts->area[b] * (double)(hi - lo) / (double)(end - start);
	}
	return sum / (double)(to_ns - from_ns);
}
