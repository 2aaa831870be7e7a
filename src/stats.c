/*
 * stats.c — confidence intervals across replications (see stats.h; MODEL:
 * M4-M10): t intervals of means with a skewness check, sectioning intervals
 * of pooled quantiles (skewness-corrected test, ends interpolated inside
 * their bucket), Wilson intervals of shares.  Values are taken in the
 * caller's (replication) order and summed in that order by GSL, so results
 * do not depend on thread count.  The functions are pure; the only
 * allocations are scratch copies freed before returning.
 */
#include "fleetsim/stats.h"

#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fleetsim/common.h"
#include "fleetsim/result.h"

static struct fs_ci ci_none(double value, size_t n)
{
	struct fs_ci ci;

	ci.value = value;
	ci.ci_lo = NAN;
	ci.ci_hi = NAN;
	ci.half_width = NAN;
	ci.n = n;
	ci.method = FS_CI_T;
	ci.sections = 0;
	ci.skew = 0.0;
	ci.n_suggested = 0;
	return ci;
}

/*
 * MODEL: M11 — replications a t interval needs given the skewness g of its
 * values, or 0 when it is trustworthy at k.  Cochran's rule (Sampling Techniques, 3rd
 * ed., 1977, sec. 2.15): the normal approximation to a mean of n values is
 * adequate when n > 25 g^2.  A sample skewness is itself noisy (standard
 * error about sqrt(6 / k) for normal values), so only a skewness beyond two
 * standard errors counts; below about 8 values none can.
 */
static size_t skew_suggested(double g, size_t k)
{
	double need;

	if (k < 3 || !isfinite(g) || fabs(g) <= 2.0 * sqrt(6.0 / (double)k))
		return 0;
	need = ceil(25.0 * g * g);
	return need > (double)k ? (size_t)need : 0;
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
	ci = ci_none(mean, k);
	if (k >= 3 && sd > 0.0) {
		ci.skew = gsl_stats_skew_m_sd(kept, 1, k, mean, sd);
		ci.n_suggested = skew_suggested(ci.skew, k);
	}
	free(kept);
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
	ci.method = FS_CI_WILSON;
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

/*
 * The interval cut to the range [min_v, max_v] the quantity cannot leave
 * (MODEL: M6).  The true mean lies in that range, so an interval that held
 * it still holds it after the cut: coverage is unchanged, the interval only
 * stops claiming impossible values.  value and half_width are kept.
 */
struct fs_ci fs_stats_ci_clip(struct fs_ci ci, double min_v, double max_v)
{
	if (!isnan(ci.ci_lo) && ci.ci_lo < min_v)
		ci.ci_lo = min_v;
	if (!isnan(ci.ci_hi) && ci.ci_hi > max_v)
		ci.ci_hi = max_v;
	return ci;
}

/* The t interval sets its ends to value ∓ half_width exactly (same
 * operations), so any other end was cut. */
bool fs_stats_ci_clipped(const struct fs_ci *ci)
{
	if (!isfinite(ci->half_width) || !isfinite(ci->ci_lo) || !isfinite(ci->ci_hi))
		return false;
	return ci->ci_lo != ci->value - ci->half_width ||
	       ci->ci_hi != ci->value + ci->half_width;
}

struct fs_ci fs_stats_mean_ci_nonneg(const double *x, size_t n, double level)
{
	return fs_stats_ci_clip(fs_stats_mean_ci(x, n, level), 0.0, INFINITY);
}

bool fs_stats_ci_exact(const struct fs_ci *ci)
{
	return ci->n >= 2 && ci->half_width == 0.0 && isfinite(ci->value);
}

/* Wilson bounds for a real-valued share p over n trials (n > 0). */
static void wilson_bounds(double p, double n, double z, double *lo, double *hi)
{
	double z2 = z * z, denom = 1.0 + z2 / n;
	double centre = (p + z2 / (2.0 * n)) / denom;
	double half = z / denom * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));

	*lo = fmax(centre - half, 0.0);
	*hi = fmin(centre + half, 1.0);
}

/* MODEL: M7 — met when the Wilson lower end reaches the threshold, not met
 * when its upper end is below it. */
enum fs_share_verdict fs_stats_share_verdict(size_t successes, size_t trials,
                                             double threshold, double level)
{
	struct fs_ci ci;

	if (trials == 0 || successes > trials || !level_ok(level))
		return FS_SHARE_UNDECIDED;
	ci = fs_stats_wilson(successes, trials, level);
	if (ci.ci_lo >= threshold)
		return FS_SHARE_MET;
	if (ci.ci_hi < threshold)
		return FS_SHARE_NOT_MET;
	return FS_SHARE_UNDECIDED;
}

/* Whether n trials at share p would decide against the threshold. */
static bool decides(double p, double n, double z, double threshold)
{
	double lo, hi;

	wilson_bounds(p, n, z, &lo, &hi);
	return p > threshold ? lo >= threshold : hi < threshold;
}

/*
 * MODEL: M7 — the fewest trials that decide the verdict at the observed
 * share p.  For a fixed share the Wilson interval narrows as n grows (its
 * ends move monotonically towards p), so the first deciding n is found by
 * doubling and then bisection.  p = threshold never decides.
 */
size_t fs_stats_share_trials_needed(size_t successes, size_t trials, double threshold,
                                    double level)
{
	const double limit = 1e9;
	double p, z, lo, hi;

	if (trials == 0 || successes > trials || !level_ok(level))
		return 0;
	if (fs_stats_share_verdict(successes, trials, threshold, level) != FS_SHARE_UNDECIDED)
		return trials;
	p = (double)successes / (double)trials;
	if (p == threshold)
		return 0;
	z = gsl_cdf_ugaussian_Pinv(0.5 + level / 2.0);
	lo = (double)trials;                 /* does not decide */
	hi = 2.0 * lo;
	while (!decides(p, hi, z, threshold)) {
		if (hi >= limit)
			return 0;
		lo = hi;
		hi = fmin(2.0 * hi, limit);
	}
	while (hi - lo > 1.0) {              /* lo does not decide, hi does */
		double mid = floor((lo + hi) / 2.0);

		if (decides(p, mid, z, threshold))
			hi = mid;
		else
			lo = mid;
	}
	return (size_t)hi;
}

/* Merge h[from..to) (non-empty ones, in order) into the empty histogram acc. */
static void merge_range(struct fs_hist *acc, const struct fs_hist *const *h, size_t from,
                        size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		fs_hist_merge(acc, h[i]);
}

/* Upper edge of bucket i (m g^i) and its lower edge (m g^(i-1); 0 for
 * bucket 0), MODEL: M1. */
static double bucket_hi(size_t i)
{
	return FS_HIST_MIN_VALUE * pow((1.0 + FS_HIST_REL_ERR) / (1.0 - FS_HIST_REL_ERR),
	                               (double)i);
}

static double bucket_lo(size_t i)
{
	return i == 0 ? 0.0 : bucket_hi(i - 1);
}

/*
 * MODEL: M10 — Hall's skewness-corrected t test of "the sections' shares y
 * have mean p": with u = (ybar - p) / s and g their sample skewness,
 *     T = sqrt(k) (u + g / 6k + g u^2 / 3 + g^2 u^3 / 27)
 * (Hall, "On the removal of skewness by transformation", JRSS B 54(1),
 * 1992, eq. 2.4 with Johnson's 1978 correction as its first terms): T is
 * increasing in u and is the t statistic when g = 0.  True when T reaches
 * bound.  Shares that all agree (s = 0) pass exactly when ybar >= p.
 */
static bool hall_passes(const double *y, size_t k, double p, double bound)
{
	double ybar = gsl_stats_mean(y, 1, k), sd = gsl_stats_sd_m(y, 1, k, ybar);
	double u, g, t_stat;

	if (!(sd > 0.0))
		return ybar >= p;
	u = (ybar - p) / sd;
	g = gsl_stats_skew_m_sd(y, 1, k, ybar, sd);
	t_stat = sqrt((double)k) * (u + g / (6.0 * (double)k) + g * u * u / 3.0 +
	                            g * g * u * u * u / 27.0);
	return t_stat >= bound;
}

/* The shares at fraction w of the way through a bucket, its values taken
 * as spread evenly over it: y = lo + w (hi - lo). */
static bool passes_at(const double *lo, const double *hi, double *y, size_t k, double w,
                      double p, double bound)
{
	size_t j;

	for (j = 0; j < k; j++)
		y[j] = lo[j] + w * (hi[j] - lo[j]);
	return hall_passes(y, k, p, bound);
}

/* The first x in bucket b (lower edge failing, upper edge passing) where
 * the test passes, by bisection on the fraction of the bucket (to 2^-40). */
static double cross_in_bucket(const double *lo, const double *hi, double *y, size_t k,
                              size_t b, double p, double bound)
{
	double a = 0.0, c = 1.0;
	int it;

	for (it = 0; it < 40; it++) {
		double m = (a + c) / 2.0;

		if (passes_at(lo, hi, y, k, m, p, bound))
			c = m;
		else
			a = m;
	}
	return bucket_lo(b) + c * (bucket_hi(b) - bucket_lo(b));
}

/*
 * Walk the CDF points x (0, then each bucket's upper edge) in order, with
 * cum[j] the values of section j up to x and share[j] = F_j(x).  x is too
 * low to be the quantile while the test of "mean share p" rejects on the
 * low side (T < -t), high enough once it accepts on the high side
 * (T >= t).  *lo is the lowest x not rejected as too low, *hi the first
 * accepted as high enough; inside the bucket where either changes, the
 * shares are interpolated (values spread evenly over the bucket).
 */
static void invert_cdf(struct fs_hist *sec, size_t k, double p, double t, double *lo,
                       double *hi)
{
	size_t nb = fs_hist_n_buckets(), i, j;
	uint64_t *cum = fs_xcalloc(k, sizeof *cum);
	double *share = fs_xmalloc(k * sizeof *share);
	double *prev = fs_xcalloc(k, sizeof *prev);
	double *scratch = fs_xmalloc(k * sizeof *scratch);
	bool lo_found = false;

	*lo = *hi = NAN;
	for (i = 0; i <= nb; i++) {          /* i = 0: x = 0; i > 0: bucket i - 1 */
		for (j = 0; j < k; j++) {
			cum[j] += i == 0 ? sec[j].n_zero : sec[j].buckets[i - 1];
			share[j] = (double)cum[j] / (double)sec[j].n;
		}
		if (!lo_found && hall_passes(share, k, p, -t)) {
			*lo = i == 0 ? 0.0 : cross_in_bucket(prev, share, scratch, k, i - 1, p, -t);
			lo_found = true;
		}
		if (hall_passes(share, k, p, t)) {
			*hi = i == 0 ? 0.0 : cross_in_bucket(prev, share, scratch, k, i - 1, p, t);
			break;
		}
		for (j = 0; j < k; j++)
			prev[j] = share[j];
	}
	free(scratch);
	free(prev);
	free(share);
	free(cum);
}

/*
 * Sectioning with CDF inversion (Asmussen and Glynn, Stochastic Simulation,
 * 2007, III.4-5; Nakayama, ACM TOMACS 24(4), 2014; the quantile interval of
 * Law, Simulation Modeling and Analysis, 5th ed., 2015, sec. 9.4.3, read on
 * sections): the share of a section's values at or below the true
 * quantile has expectation p whatever the section's length, and the k
 * shares are independent, so a test of each candidate x keeps its level.
 * Near p = 0.99 the shares are skewed (exceedances come in congestion
 * episodes), so the test is Hall's skewness-corrected t (M10); the ends are
 * interpolated inside their bucket rather than moved to its edges (M1, M8).
 */
struct fs_ci fs_stats_quantile_ci(const struct fs_hist *const *h, size_t n, double p,
                                  double level)
{
	const struct fs_hist **kept;
	struct fs_hist pool, *sec;
	size_t i, j, m = 0, k;
	double q, t, lo, hi;
	struct fs_ci ci;

	kept = fs_xmalloc((n == 0 ? 1 : n) * sizeof *kept);
	for (i = 0; i < n; i++)
		if (h[i] != NULL && h[i]->n > 0)
			kept[m++] = h[i];
	if (m == 0) {
		free(kept);
		return ci_none(NAN, 0);
	}
	fs_hist_init(&pool);
	merge_range(&pool, kept, 0, m);
	q = fs_hist_quantile(&pool, p);
	ci = ci_none(q, m);
	ci.method = FS_CI_SECTIONING;
	k = m < FS_STATS_MAX_SECTIONS ? m : FS_STATS_MAX_SECTIONS;
	if (m < 2 || !level_ok(level) || isnan(q)) {
		fs_hist_fini(&pool);
		free(kept);
		return ci;
	}
	ci.sections = k;
	if (pool.min == pool.max) {          /* every value the same: exact */
		ci.ci_lo = ci.ci_hi = q;
		ci.half_width = 0.0;
		fs_hist_fini(&pool);
		free(kept);
		return ci;
	}
	sec = fs_xmalloc(k * sizeof *sec);
	for (j = 0; j < k; j++) {
		fs_hist_init(&sec[j]);
		/* Section j: replications [j m / k, (j + 1) m / k), sizes within one. */
		merge_range(&sec[j], kept, j * m / k, (j + 1) * m / k);
	}
	t = gsl_cdf_tdist_Pinv(0.5 + level / 2.0, (double)(k - 1));
	invert_cdf(sec, k, p, t, &lo, &hi);
	for (j = 0; j < k; j++)
		fs_hist_fini(&sec[j]);
	free(sec);
	/* MODEL: M1, M8 — the pooled estimate is kept inside, and the
	 * histogram's own error (a value and its bucket's representative differ
	 * by at most FS_HIST_REL_ERR) is added to each side in quadrature, as an
	 * independent error: negligible beside a sampling half-width of a few
	 * per cent, but never a zero width when the sections agree.  Below the
	 * smallest or above the largest value the shares are all 0 or all 1,
	 * so the ends are then brought to the observed extremes. */
	lo = fmin(lo, q);
	hi = fmax(hi, q);
	lo = q - hypot(q - lo, FS_HIST_REL_ERR * q);
	hi = q + hypot(hi - q, FS_HIST_REL_ERR * q);
	lo = fmin(fmax(lo, pool.min), q);
	hi = fmax(fmin(hi, pool.max), q);
	fs_hist_fini(&pool);
	free(kept);
	ci.ci_lo = lo;
	ci.ci_hi = hi;
	ci.half_width = (hi - lo) / 2.0;
	return ci;
}

/* ---- names of result.h's latency metrics and quantities ------------------------ */

FS_ENUM_FUNCS(enum fs_latency, FS_LATENCY_MAP, FS_ENUM_ID_AT, FS_ENUM_NAME_AT,
              fs_latency_name, fs_latency_from_name, "?")

FS_ENUM_FUNCS(enum fs_quantity, FS_QUANTITY_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_quantity_name, fs_quantity_from_name, "?")
