/*
 * stats.c — confidence intervals across replications (see stats.h; MODEL:
 * M4, M5).  Values are taken in the caller's (replication) order and summed
 * in that order by GSL, so results do not depend on thread count.  The
 * functions are pure; the only allocation is a scratch copy freed before
 * returning.
 */
#include "fleetsim/stats.h"

#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fleetsim/common.h"

static struct fs_ci ci_none(double value, size_t n)
{
	struct fs_ci ci;

	ci.value = value;
	ci.ci_lo = NAN;
	ci.ci_hi = NAN;
	ci.half_width = NAN;
	ci.n = n;
	return ci;
}

static bool level_ok(double level)
{
	return level > 0.0 && level < 1.0;
}

/*
 * Mean of the non-NAN entries of x[0..n) with a two-sided Student-t
 * interval: mean ± t_{(1+level)/2, k-1} s / sqrt(k) over the k values kept
 * (MODEL: M4).  k = 0: value NAN.  k = 1: interval NAN.  s = 0: the interval
 * collapses to the mean.  level outside (0, 1): interval NAN.  x may be NULL
 * when n is 0.
 */
struct fs_ci fs_stats_mean_ci(const double *x, size_t n, double level)
{
	double *kept;
	size_t i, k = 0;
	double mean, sd, t;
	struct fs_ci ci;

	kept = fs_xmalloc((n == 0 ? 1 : n) * sizeof *kept);
	for (i = 0; i < n; i++)
		if (!isnan(x[i]))
			kept[k++] = x[i];
	if (k == 0) {
		free(kept);
		return ci_none(NAN, 0);
	}
	mean = gsl_stats_mean(kept, 1, k);
	if (k < 2 || !level_ok(level)) {
		free(kept);
		return ci_none(mean, k);
	}
	sd = gsl_stats_sd_m(kept, 1, k, mean);
	free(kept);
	ci = ci_none(mean, k);
	if (sd == 0.0) {
		ci.ci_lo = ci.ci_hi = mean;
		ci.half_width = 0.0;
		return ci;
	}
	t = gsl_cdf_tdist_Pinv(0.5 + level / 2.0, (double)(k - 1));
	ci.half_width = t * sd / sqrt((double)k);
	ci.ci_lo = mean - ci.half_width;
	ci.ci_hi = mean + ci.half_width;
	return ci;
}

/*
 * Wilson score interval for successes / trials (MODEL: M5): with p = s / n
 * and z = Phi^-1((1 + level) / 2),
 *     centre = (p + z^2 / 2n) / (1 + z^2 / n),
 *     half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2).
 * value is p; n is trials.  Defined for trials >= 1 (unlike the t interval);
 * trials = 0 gives value and interval NAN.  successes > trials is a bug.
 */
struct fs_ci fs_stats_wilson(size_t successes, size_t trials, double level)
{
	double n = (double)trials, p, z, z2, denom, centre;
	struct fs_ci ci;

	assert(successes <= trials);
	if (trials == 0 || successes > trials)
		return ci_none(NAN, trials);
	p = (double)successes / n;
	ci = ci_none(p, trials);
	if (!level_ok(level))
		return ci;
	z = gsl_cdf_ugaussian_Pinv(0.5 + level / 2.0);
	z2 = z * z;
	denom = 1.0 + z2 / n;
	centre = (p + z2 / (2.0 * n)) / denom;
	ci.half_width = z / denom * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));
	/* Mathematically inside [0, 1]; clamp away rounding at p = 0 or 1. */
	ci.ci_lo = fmax(centre - ci.half_width, 0.0);
	ci.ci_hi = fmin(centre + ci.half_width, 1.0);
	return ci;
}
