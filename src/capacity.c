/*
 * capacity.c — queries on a loaded spot-capacity trace (see capacity.h), the
 * format names and the Spot Advisor band rates.  The trace is immutable:
 * steps strictly ascending in t_ns with t_ns[0] = 0 and no two neighbours
 * equal in capacity.  In a loop only the steps with t_ns < span_ns play (a
 * SpotServe trace's last event sits at span_ns); past span_ns without a loop
 * the last value holds.  The readers are in capacity_load.c.
 */
#include "fleetsim/capacity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/billing.h"      /* FS_HOURS_PER_MONTH */


FS_ENUM_FUNCS(enum fs_capacity_format, FS_CAPACITY_FORMAT_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_capacity_format_name, fs_capacity_format_from_name, "?")

int fs_capacity_format_parse(const char *name, enum fs_capacity_format *out)
{
	return fs_capacity_format_from_name(name, out);
}

void fs_capacity_trace_free(struct fs_capacity_trace *t)
{
	if (t == NULL)
		return;
	free(t->path);
	free(t->t_ns);
	free(t->capacity);
	free(t);
}

/* True when the trace repeats: a loop over a span longer than zero. */
static int loops(const struct fs_capacity_trace *t)
{
	return t->loop && t->span_ns > 0;
}

/* Steps that play in one pass of a loop: all but a last step at span_ns. */
static size_t pass_steps(const struct fs_capacity_trace *t)
{
	if (t->n_steps > 1 && t->t_ns[t->n_steps - 1] >= t->span_ns)
		return t->n_steps - 1;
	return t->n_steps;
}

/* Index of the last step of steps[0..n) with t_ns <= local_ns (0 when
 * local_ns is before every step).  Binary search: O(log n). */
static size_t step_index(const struct fs_capacity_trace *t, size_t n, fs_ns local_ns)
{
	size_t lo = 1, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->t_ns[mid] <= local_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/*
 * Capacity at t_ns.  Before 0: the first value.  Past span_ns: the looped
 * value (t_ns modulo span_ns) or the last value.  O(log steps).  MODEL: C4
 */
int32_t fs_capacity_at(const struct fs_capacity_trace *t, fs_ns t_ns)
{
	if (loops(t) && t_ns >= t->span_ns)
		return t->capacity[step_index(t, pass_steps(t), t_ns % t->span_ns)];
	return t->capacity[step_index(t, t->n_steps, t_ns)];
}

/*
 * The first time > t_ns at which the capacity changes; FS_NS_MAX if never.
 * In a loop, after the last step of a pass the next change is the start of
 * the next pass when its first value differs, else that pass's first change.
 * O(log steps); saturates at FS_NS_MAX.
 */
fs_ns fs_capacity_next_change(const struct fs_capacity_trace *t, fs_ns t_ns)
{
	fs_ns base_ns = 0, local_ns = t_ns;
	size_t n = t->n_steps, i;

	if (loops(t) && t_ns >= 0) {
		n = pass_steps(t);
		base_ns = t_ns - t_ns % t->span_ns;
		local_ns = t_ns % t->span_ns;
	}
	i = step_index(t, n, local_ns);
	if (i + 1 < n)
		return base_ns + t->t_ns[i + 1];
	if (!loops(t))
		return FS_NS_MAX;
	if (base_ns > FS_NS_MAX - t->span_ns)
		return FS_NS_MAX;
	base_ns += t->span_ns;                               /* MODEL: C4 */
	if (t->capacity[0] != t->capacity[i])
		return base_ns;
	if (n < 2 || base_ns > FS_NS_MAX - t->t_ns[1])
		return FS_NS_MAX;
	return base_ns + t->t_ns[1];
}

/*
 * Fraction of one pass [0, span_ns) with capacity >= 1 (a SpotServe trace's
 * state after its last event does not count).  A zero span: 1 or 0 by the
 * only value.  O(steps).
 */
double fs_capacity_available_fraction(const struct fs_capacity_trace *t)
{
	fs_ns up_ns = 0;

	if (t->span_ns <= 0)
		return t->capacity[t->n_steps - 1] >= 1 ? 1.0 : 0.0;
	for (size_t i = 0; i < t->n_steps && t->t_ns[i] < t->span_ns; i++) {
		fs_ns end_ns = i + 1 < t->n_steps && t->t_ns[i + 1] < t->span_ns
		               ? t->t_ns[i + 1] : t->span_ns;

		if (t->capacity[i] >= 1)                     /* MODEL: C5 */
			up_ns += end_ns - t->t_ns[i];
	}
	return (double)up_ns / (double)t->span_ns;
}

/*
 * Spot Advisor's monthly interruption band to a per-instance Poisson rate per
 * hour at the band's midpoint: <5% -> 2.5%, 5-10% -> 7.5%, 10-15% -> 12.5%,
 * 15-20% -> 17.5%, >20% -> 25% (assumed), so that the chance of at least one
 * interruption in a 730 h month is p: rate = -ln(1 - p) / 730.  -1 when the
 * band is not one of these five strings.  MODEL: C6
 */
double fs_spot_band_rate_per_h(const char *band)
{
	static const struct { const char *band; double p; } bands[] = {
		{"<5%", 0.025}, {"5-10%", 0.075}, {"10-15%", 0.125},
		{"15-20%", 0.175}, {">20%", 0.25},
	};

	for (size_t i = 0; band != NULL && i < sizeof bands / sizeof bands[0]; i++)
		if (strcmp(band, bands[i].band) == 0)
			return -log1p(-bands[i].p) / FS_HOURS_PER_MONTH;
	return -1.0;
}
