/*
 * moments.c — streaming mean and variance (see metrics.h; MODEL: M2).
 * Welford's update keeps (n, mean, m2) numerically stable without a second
 * pass; Chan et al.'s pairwise rule merges two summaries exactly as if their
 * values had been added to one.  min and max are NAN while n == 0.
 */
#include "fleetsim/metrics.h"

#include <assert.h>
#include <math.h>

/* Initialise an empty summary (caller-owned; nothing to free). */
void fs_moments_init(struct fs_moments *m)
{
	m->n = 0;
	m->mean = 0.0;
	m->m2 = 0.0;
	m->min = NAN;
	m->max = NAN;
}

/*
 * Add x by Welford's update: delta = x - mean; mean += delta / n;
 * m2 += delta * (x - new mean).  NAN is a caller bug (asserted; ignored in
 * release builds).  O(1).
 */
void fs_moments_add(struct fs_moments *m, double x)
{
	double delta;

	assert(!isnan(x));
	if (isnan(x))
		return;
	m->n++;
	delta = x - m->mean;
	m->mean += delta / (double)m->n;
	m->m2 += delta * (x - m->mean);
	if (!(x >= m->min))              /* also true while min is NAN */
		m->min = x;
	if (!(x <= m->max))
		m->max = x;
}

/* `count` copies of x: a group with mean x and no spread, merged by Chan's
 * rule below.  O(1). */
void fs_moments_add_n(struct fs_moments *m, double x, uint64_t count)
{
	struct fs_moments group;

	assert(!isnan(x));
	if (isnan(x) || count == 0)
		return;
	group.n = count;
	group.mean = x;
	group.m2 = 0.0;
	group.min = group.max = x;
	fs_moments_merge(m, &group);
}

/*
 * Merge src into dst by Chan's rule: with d = mean_b - mean_a and n = n_a + n_b,
 * mean = mean_a + d n_b / n and m2 = m2_a + m2_b + d^2 n_a n_b / n.  O(1).
 */
void fs_moments_merge(struct fs_moments *dst, const struct fs_moments *src)
{
	double na, nb, n, d;

	if (src->n == 0)
		return;
	if (dst->n == 0) {
		*dst = *src;
		return;
	}
	na = (double)dst->n;
	nb = (double)src->n;
	n = na + nb;
	d = src->mean - dst->mean;
	dst->mean += d * nb / n;
	dst->m2 += src->m2 + d * d * na * nb / n;
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* Sample variance m2 / (n - 1); NAN when n < 2. */
double fs_moments_variance(const struct fs_moments *m)
{
	if (m->n < 2)
		return NAN;
	return m->m2 / (double)(m->n - 1);
}
