/*
 * hist_finder.c — finding values' histogram buckets without a logarithm
 * (see metrics.h; MODEL: M1).  A double's top 20 bits (sign, exponent and
 * 8 mantissa bits) name a slice of 1/256 of a binade, narrower than a
 * bucket (a ratio under 1.004 against 1.01), so every value of a slice lies
 * in the bucket of the slice's first double or a later one; the bucket
 * edges (fs_hist_bucket_floor) decide which.  Both tables are filled when
 * first needed, from fs_hist_bucket_of itself, so a value gets exactly the
 * bucket fs_hist_bucket_of gives it.
 */
#include "fleetsim/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"

#define SLICE_SHIFT 44               /* 64 - 1 sign - 11 exponent - 8 mantissa bits */
#define UNKNOWN UINT16_MAX

static uint64_t slice_of(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof u);
	return u >> SLICE_SHIFT;
}

static double slice_start(uint64_t s)
{
	uint64_t u = s << SLICE_SHIFT;
	double v;

	memcpy(&v, &u, sizeof v);
	return v;
}

void fs_hist_finder_init(struct fs_hist_finder *f)
{
	size_t i;

	f->n_floor = fs_hist_n_buckets() + 1;
	f->floor = fs_xmalloc(f->n_floor * sizeof *f->floor);
	for (i = 0; i < f->n_floor; i++)
		f->floor[i] = NAN;
	f->slice0 = slice_of(FS_HIST_MIN_VALUE);
	/* the slices up to the top bucket's floor's; buckets that do not fit
	 * 16 bits leave the table empty (every value by the logarithm) */
	f->n_slices = f->n_floor <= UNKNOWN ?
	              (size_t)(slice_of(fs_hist_bucket_floor(f->n_floor - 2)) - f->slice0 + 1) : 0;
	f->start = fs_xmalloc((f->n_slices + 1) * sizeof *f->start);
	for (i = 0; i < f->n_slices; i++)
		f->start[i] = UNKNOWN;
}

void fs_hist_finder_fini(struct fs_hist_finder *f)
{
	free(f->floor);
	free(f->start);
	f->floor = NULL;
	f->start = NULL;
}

size_t fs_hist_finder_bucket(struct fs_hist_finder *f, double v)
{
	uint64_t s;
	size_t b;

	if (!(v > FS_HIST_MIN_VALUE))
		return 0;
	s = slice_of(v) - f->slice0;
	if (s >= f->n_slices)
		return fs_hist_bucket_of(v);
	if (f->start[s] == UNKNOWN)
		f->start[s] = (uint16_t)fs_hist_bucket_of(slice_start(s + f->slice0));
	b = f->start[s];
	while (v >= fs_hist_finder_floor(f, b + 1))
		b++;
	return b;
}
