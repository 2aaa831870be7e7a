/*
 * lengths.c — prompt and output length distributions (see workload.h): draws,
 * the Zipf CDF table, and the clamped mean.  A cfg is read-only once prepared
 * (replications share it); the table and empirical values it points to are
 * owned by the cfg and freed by fs_length_fini.  MODEL: W17-W21, W23.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "workload_internal.h"

#define ZIPF_N_MAX INT64_C(1000000)

/* The clamp range: min below 1 means 1, max <= 0 means no upper bound.
 * MODEL: W17 */
static void bounds(const struct fs_length_cfg *cfg, int64_t *lo, int64_t *hi)
{
	*lo = cfg->min_tokens >= 1 ? cfg->min_tokens : 1;
	*hi = cfg->max_tokens > 0 ? cfg->max_tokens : INT64_MAX;
	if (*hi < *lo)
		*hi = *lo;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int64_t fs__length_clamp(const struct fs_length_cfg *cfg, int64_t tokens)
{
	int64_t lo, hi;

	bounds(cfg, &lo, &hi);
	return clamp(tokens, lo, hi);
}

/* Round a positive double to the nearest integer, saturating. */
static int64_t round_tokens(double x)
{
	if (!(x < 9.0e18))
		return INT64_MAX;
	if (!(x > -9.0e18))
		return INT64_MIN;
	return fs_round_half_away(x);
}

/* Smallest k in 1..n with cdf[k-1] > u (u in [0,1)); O(log n). */
static int64_t zipf_pick(const double *cdf, int64_t n, double u)
{
	int64_t lo = 0, hi = n - 1;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo + 1;
}

/*
 * Draw one length.  UNIFORM uses [min, max] itself as its range (max <= 0:
 * only min).  LOGNORMAL rounds exp(N(ln median, sigma)) to the nearest
 * integer; ZIPF inverts the prepared CDF with one uniform draw; EMPIRICAL
 * picks a loaded value uniformly.  All results are clamped to [min, max].
 * TRACE lengths come from trace rows, never from here (assert; 1 in NDEBUG).
 */
int64_t fs_length_sample(const struct fs_length_cfg *cfg, struct fs_rng *r)
{
	int64_t lo, hi, v = 1;

	bounds(cfg, &lo, &hi);
	switch (cfg->kind) {
	case FS_LENGTH_FIXED:
		v = cfg->fixed_tokens;
		break;
	case FS_LENGTH_UNIFORM:               /* MODEL: W18 */
		if (hi == INT64_MAX)
			v = lo;
		else
			v = lo + (int64_t)fs_rng_below(r, (uint64_t)(hi - lo) + 1);
		break;
	case FS_LENGTH_LOGNORMAL:             /* MODEL: W19 */
		v = round_tokens(fs_rng_lognormal(r, cfg->log_median_of == cfg->median_tokens &&
		                                     cfg->median_tokens > 0 ?
		                                     cfg->log_median : log(cfg->median_tokens),
		                                     cfg->sigma));
		break;
	case FS_LENGTH_ZIPF:                  /* MODEL: W20 */
		assert(cfg->zipf_cdf != NULL);
		v = zipf_pick(cfg->zipf_cdf, cfg->zipf_n, fs_rng_uniform(r));
		break;
	case FS_LENGTH_EMPIRICAL:             /* MODEL: W21 */
		assert(cfg->n_empirical > 0);
		v = cfg->empirical[fs_rng_below(r, cfg->n_empirical)];
		break;
	case FS_LENGTH_TRACE:
		assert(!"FS_LENGTH_TRACE lengths come from the trace rows");
		break;
	}
	return clamp(v, lo, hi);
}

/*
 * Build the Zipf CDF: cdf[k-1] = sum_{j<=k} j^-s / H(n, s), last entry exactly
 * 1.  Errors (msg filled): s <= 0, n < 1 or n > 1,000,000.  Rebuilds the table
 * if one is already attached.  LOGNORMAL keeps log(median) for the draws (a
 * median changed later is seen: its log is then taken per draw).  Other
 * kinds need nothing.  O(n).
 */
int fs_length_prepare(struct fs_length_cfg *cfg, char *msg, size_t msg_len)
{
	double sum = 0.0;

	if (cfg->kind == FS_LENGTH_LOGNORMAL && cfg->median_tokens > 0) {
		cfg->log_median = log(cfg->median_tokens);
		cfg->log_median_of = cfg->median_tokens;
	}
	if (cfg->kind != FS_LENGTH_ZIPF)
		return 0;
	if (!(cfg->zipf_s > 0.0)) {
		snprintf(msg, msg_len, "expected a zipf exponent s > 0, found %g", cfg->zipf_s);
		return -1;
	}
	if (cfg->zipf_n < 1 || cfg->zipf_n > ZIPF_N_MAX) {
		snprintf(msg, msg_len, "expected a zipf support size n in 1..%lld, found %lld",
		         (long long)ZIPF_N_MAX, (long long)cfg->zipf_n);
		return -1;
	}
	free(cfg->zipf_cdf);
	cfg->zipf_cdf = fs_xmalloc((size_t)cfg->zipf_n * sizeof *cfg->zipf_cdf);
	for (int64_t k = 1; k <= cfg->zipf_n; k++) {
		sum += pow((double)k, -cfg->zipf_s);
		cfg->zipf_cdf[k - 1] = sum;
	}
	for (int64_t k = 0; k < cfg->zipf_n; k++)
		cfg->zipf_cdf[k] /= sum;
	cfg->zipf_cdf[cfg->zipf_n - 1] = 1.0;
	return 0;
}

/* Free the Zipf table, empirical values and path; the cfg can be reused. */
void fs_length_fini(struct fs_length_cfg *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->zipf_cdf);
	free(cfg->empirical);
	free(cfg->empirical_path);
	free(cfg->empirical_column);
	cfg->empirical_column = NULL;
	cfg->zipf_cdf = NULL;
	cfg->empirical = NULL;
	cfg->empirical_path = NULL;
	cfg->n_empirical = 0;
}

/* Standard normal CDF. */
static double phi(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

/* E[clamp(round(X), lo, hi)] for X lognormal, treating rounding as exact at
 * the clamp edges: lo below lo + 1/2, hi above hi - 1/2, X in between (the
 * error of ignoring rounding inside is far below a token). */
static double lognormal_clamped_mean(double mu, double sigma, int64_t lo, int64_t hi)
{
	double a = (double)lo + 0.5, b = hi == INT64_MAX ? INFINITY : (double)hi - 0.5;
	double la = log(a), lb = log(b);
	double p_lo, p_hi, mid;

	if (!(sigma > 0.0)) {
		double x = exp(mu);
		return x < a ? (double)lo : x > b ? (double)hi : x;
	}
	if (b <= a)
		return (double)lo;
	p_lo = phi((la - mu) / sigma);
	p_hi = isinf(b) ? 0.0 : 1.0 - phi((lb - mu) / sigma);
	/* integral of x f(x) over [a, b] = e^{mu + s^2/2} [Phi(.) - Phi(.)] */
	mid = exp(mu + 0.5 * sigma * sigma) *
	      ((isinf(b) ? 1.0 : phi((lb - mu - sigma * sigma) / sigma)) -
	       phi((la - mu - sigma * sigma) / sigma));
	return (double)lo * p_lo + mid + (isinf(b) ? 0.0 : (double)hi * p_hi);
}

/*
 * Mean tokens of the clamped distribution.  FIXED, UNIFORM, ZIPF and
 * EMPIRICAL exactly (ZIPF O(n), EMPIRICAL O(n_empirical)); LOGNORMAL in closed
 * form with the clamp (rounding ignored inside the range).  TRACE: NAN (the
 * mean is that of the trace rows, which the cfg does not hold).  MODEL: W23
 */
double fs_length_mean(const struct fs_length_cfg *cfg)
{
	int64_t lo, hi;
	double sum = 0.0, prev = 0.0, norm = 0.0;

	bounds(cfg, &lo, &hi);
	switch (cfg->kind) {
	case FS_LENGTH_FIXED:
		return (double)clamp(cfg->fixed_tokens, lo, hi);
	case FS_LENGTH_UNIFORM:
		return hi == INT64_MAX ? (double)lo : 0.5 * ((double)lo + (double)hi);
	case FS_LENGTH_LOGNORMAL:
		return lognormal_clamped_mean(log(cfg->median_tokens), cfg->sigma, lo, hi);
	case FS_LENGTH_ZIPF:
		for (int64_t k = 1; k <= cfg->zipf_n; k++) {
			double p;

			if (cfg->zipf_cdf != NULL) {
				p = cfg->zipf_cdf[k - 1] - prev;
				prev = cfg->zipf_cdf[k - 1];
			} else {
				p = pow((double)k, -cfg->zipf_s);
				norm += p;
			}
			sum += p * (double)clamp(k, lo, hi);
		}
		return cfg->zipf_cdf != NULL ? sum : norm > 0.0 ? sum / norm : (double)lo;
	case FS_LENGTH_EMPIRICAL:
		for (size_t i = 0; i < cfg->n_empirical; i++)
			sum += (double)clamp(cfg->empirical[i], lo, hi);
		return cfg->n_empirical > 0 ? sum / (double)cfg->n_empirical : (double)lo;
	case FS_LENGTH_TRACE:
		return NAN;
	}
	return NAN;
}

/* The smallest length a draw can give (after the clamp), or -1 for TRACE
 * (the trace rows hold the lengths).  O(n_empirical) for EMPIRICAL. */
int64_t fs_length_min(const struct fs_length_cfg *cfg)
{
	int64_t lo, hi, m = INT64_MAX;

	bounds(cfg, &lo, &hi);
	switch (cfg->kind) {
	case FS_LENGTH_FIXED:
		return clamp(cfg->fixed_tokens, lo, hi);
	case FS_LENGTH_UNIFORM:
	case FS_LENGTH_LOGNORMAL:
	case FS_LENGTH_ZIPF:
		return clamp(1, lo, hi);     /* every value down to the clamp can occur */
	case FS_LENGTH_EMPIRICAL:
		for (size_t i = 0; i < cfg->n_empirical; i++)
			if (cfg->empirical[i] < m)
				m = cfg->empirical[i];
		return cfg->n_empirical > 0 ? clamp(m, lo, hi) : lo;
	case FS_LENGTH_TRACE:
		return -1;
	}
	return -1;
}
