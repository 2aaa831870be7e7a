/*
 * hist.c — the log-bucket histogram (see metrics.h; MODEL: M1).  Bucket i > 0
 * holds values in (m g^(i-1), m g^i] with m = FS_HIST_MIN_VALUE and
 * g = (1 + a) / (1 - a); bucket 0 holds (0, m]; the top bucket also takes
 * everything above FS_HIST_MAX_VALUE.  Values <= 0 are counted in n_zero only.
 * The layout is a compile-time constant, so every histogram can merge with
 * every other.  Each fs_hist owns its bucket array.
 */
#include "fleetsim/metrics.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"

#define GAMMA ((1.0 + FS_HIST_REL_ERR) / (1.0 - FS_HIST_REL_ERR))

/* log(GAMMA); a constant expression that the compiler folds. */
static double log_gamma(void)
{
	return log(GAMMA);
}

/* Nearest rank ceil(p n), forgiving the rounding of p n (0.07 * 100 is
 * 7.000000000000001 in doubles, which must still be rank 7). */
static uint64_t nearest_rank(double p, uint64_t n)
{
	double r = p * (double)n;
	double rank = ceil(r - 1e-9 * r);

	if (rank < 1.0)
		return 1;
	if (rank >= (double)n)
		return n;
	return (uint64_t)rank;
}

/*
 * Number of buckets of every histogram: FS_HIST_MAX_VALUE falls in the top
 * one, bucket ceil(log(max / m) / log g) (3,686 buckets for the defaults).
 */
size_t fs_hist_n_buckets(void)
{
	return (size_t)ceil(log(FS_HIST_MAX_VALUE / FS_HIST_MIN_VALUE) / log_gamma()) + 1;
}

/*
 * Bucket index of a positive value: ceil(log(v / m) / log g), clamped to
 * [0, n_buckets - 1].  Values <= m (and <= 0) give 0.  MODEL: M1.
 */
size_t fs_hist_bucket_of(double value)
{
	size_t top = fs_hist_n_buckets() - 1;
	double idx;

	if (!(value > FS_HIST_MIN_VALUE))
		return 0;
	idx = ceil(log(value / FS_HIST_MIN_VALUE) / log_gamma());
	if (idx >= (double)top)
		return top;
	return (size_t)idx;
}

/*
 * Representative value of bucket i: 2 g^i / (g + 1) * m, the point whose
 * relative distance to both bucket edges is a, so any value in the bucket is
 * within relative error a of it.  MODEL: M1.
 */
double fs_hist_bucket_value(size_t i)
{
	return 2.0 * pow(GAMMA, (double)i) / (GAMMA + 1.0) * FS_HIST_MIN_VALUE;
}

/* Initialise an empty histogram (caller-owned struct; allocates the buckets,
 * released by fs_hist_fini).  min and max are NAN until a value is added. */
void fs_hist_init(struct fs_hist *h)
{
	h->n = 0;
	h->n_zero = 0;
	h->buckets = fs_xcalloc(fs_hist_n_buckets(), sizeof *h->buckets);
	h->min = NAN;
	h->max = NAN;
}

/* Release the bucket array; the struct may be initialised again. */
void fs_hist_fini(struct fs_hist *h)
{
	free(h->buckets);
	h->buckets = NULL;
}

/*
 * Count one value.  Values <= 0 go to n_zero; positive values to their
 * bucket.  NAN is a caller bug: asserted, and ignored in release builds so it
 * cannot poison the counts.  O(1) (one log).
 */
void fs_hist_add(struct fs_hist *h, double value)
{
	fs_hist_add_n(h, value, 1);
}

/* `count` equal values in one step (an engine iteration's inter-token
 * latency is the same for every sequence in the batch).  O(1). */
void fs_hist_add_n(struct fs_hist *h, double value, uint64_t count)
{
	assert(!isnan(value));
	if (isnan(value) || count == 0)
		return;
	fs_hist_add_n_at(h, value > 0.0 ? fs_hist_bucket_of(value) : 0, value, count);
}

void fs_hist_add_n_at(struct fs_hist *h, size_t bucket, double value, uint64_t count)
{
	if (isnan(value) || count == 0)
		return;
	if (!(value >= h->min))          /* also true while min is NAN */
		h->min = value;
	if (!(value <= h->max))
		h->max = value;
	h->n += count;
	if (value <= 0.0)
		h->n_zero += count;
	else
		h->buckets[bucket] += count;
}

/* Positive doubles order like their bit patterns. */
static double of_bits(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof d);
	return d;
}

static uint64_t bits_of(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof u);
	return u;
}

double fs_hist_bucket_floor(size_t b)
{
	size_t top = fs_hist_n_buckets() - 1;
	double est, lo, hi;
	uint64_t ulo, uhi;

	if (b == 0)
		return -INFINITY;
	if (b > top)
		return INFINITY;
	est = FS_HIST_MIN_VALUE * pow(GAMMA, (double)b - 1.0);
	lo = est * (1.0 - 1e-9);
	hi = est * (1.0 + 1e-9);
	while (fs_hist_bucket_of(lo) >= b)
		lo = FS_HIST_MIN_VALUE + (lo - FS_HIST_MIN_VALUE) * 0.5;
	while (fs_hist_bucket_of(hi) < b)
		hi *= 1.0 + 1e-3;
	/* invariant: bucket_of(lo) < b <= bucket_of(hi) */
	ulo = bits_of(lo);
	uhi = bits_of(hi);
	while (uhi - ulo > 1) {
		uint64_t mid = ulo + (uhi - ulo) / 2;

		if (fs_hist_bucket_of(of_bits(mid)) >= b)
			uhi = mid;
		else
			ulo = mid;
	}
	return of_bits(uhi);
}

/* Add every count of src into dst (exact, order-independent).  O(buckets). */
void fs_hist_merge(struct fs_hist *dst, const struct fs_hist *src)
{
	size_t i, nb = fs_hist_n_buckets();

	if (src->n == 0)
		return;
	for (i = 0; i < nb; i++)
		dst->buckets[i] += src->buckets[i];
	dst->n += src->n;
	dst->n_zero += src->n_zero;
	if (!(src->min >= dst->min))
		dst->min = src->min;
	if (!(src->max <= dst->max))
		dst->max = src->max;
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The p-quantile by nearest rank: the value of rank ceil(p n) in sorted
 * order, reported as its bucket's representative (0 for the zeros) and
 * clamped to [min, max].  Ranks 1 and n (so p = 0 and p = 1) give the exact
 * min and max.  NAN when empty
 * or p is outside [0, 1].  O(buckets).  MODEL: M1.
 */
double fs_hist_quantile(const struct fs_hist *h, double p)
{
	uint64_t rank, seen;
	size_t i, nb = fs_hist_n_buckets();

	if (h->n == 0 || !(p >= 0.0 && p <= 1.0))
		return NAN;
	rank = nearest_rank(p, h->n);
	/* The extreme ranks are known exactly. */
	if (p == 0.0 || rank == 1)
		return h->min;
	if (rank == h->n)
		return h->max;
	seen = h->n_zero;
	if (rank <= seen)
		return clamp(0.0, h->min, h->max);
	for (i = 0; i < nb; i++) {
		seen += h->buckets[i];
		if (rank <= seen)
			return clamp(fs_hist_bucket_value(i), h->min, h->max);
	}
	assert(!"histogram counts do not add up to n");
	return h->max;
}

/*
 * Fraction of values <= x, counting a bucket's values as equal to its
 * representative (so cdf(quantile(p)) >= p).  0 when empty or x < min,
 * 1 when x >= max.  O(buckets).
 */
double fs_hist_cdf(const struct fs_hist *h, double x)
{
	uint64_t count = 0;
	size_t i, b;

	if (h->n == 0 || x < h->min)
		return 0.0;
	if (x >= h->max)
		return 1.0;
	if (x >= 0.0)
		count = h->n_zero;
	if (x > 0.0) {
		b = fs_hist_bucket_of(x);
		for (i = 0; i < b; i++)
			count += h->buckets[i];
		if (fs_hist_bucket_value(b) <= x)
			count += h->buckets[b];
	}
	return (double)count / (double)h->n;
}
