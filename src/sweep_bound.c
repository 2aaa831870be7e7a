/*
 * sweep_bound.c — where a search over a pool's count starts (MODEL: S13):
 * the smallest count whose saturation throughput (S16) covers the mean
 * offered load.  Only a starting guess: the search checks the counts below
 * it too, so a wrong guess costs points, never the answer.  Pure function of
 * the scenario file, the command-line sets and the unit's coordinates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/world_capacity_util.h"
#include "fleetsim/scenario.h"
#include "fleetsim/sweep.h"
#include "fleetsim/workload.h"
#include "sweep_internal.h"

/* N when path is "fleet.pools[N].count", else -1. */
static long count_pool(const char *path)
{
	const char *p = path;
	char *end;
	long n;

	if (strncmp(p, "fleet.pools[", 12) != 0 || p[12] < '0' || p[12] > '9')
		return -1;
	n = strtol(p + 12, &end, 10);
	return strcmp(end, "].count") == 0 ? n : -1;
}

/* Mean arrival rate of every open-loop source over [0, horizon], per
 * second, by the midpoint rule on at most 10,000 slices; -1 when some of
 * the load comes from closed-loop users (it has no rate of its own). */
static double offered_per_s(const struct fs_scenario *sc)
{
	const struct fs_workload_cfg *wl = &sc->workload;
	fs_ns horizon_ns = sc->sim.horizon_ns;
	size_t n_slices = 10000, k, c;
	double sum = 0;

	for (c = 0; c < wl->n_classes; c++)
		if (wl->classes[c].closed != NULL)
			return -1;
	if (horizon_ns <= 0)
		return -1;
	if ((fs_ns)n_slices > horizon_ns / FS_NS_PER_S)
		n_slices = (size_t)(horizon_ns / FS_NS_PER_S) + 1;
	for (k = 0; k < n_slices; k++) {
		fs_ns t_ns = (fs_ns)(((double)k + 0.5) / (double)n_slices * (double)horizon_ns);

		if (wl->has_shared_arrivals)
			sum += fs_arrival_rate_at(&wl->arrivals, &sc->sim, t_ns);
		for (c = 0; c < wl->n_classes; c++)
			if (wl->classes[c].own_arrivals)
				sum += fs_arrival_rate_at(&wl->classes[c].arrivals, &sc->sim, t_ns);
	}
	return sum / (double)n_slices;
}

/* The lower bound on the count of pool `pool` of sc: ceil((offered load -
 * the other pools' saturation throughput at their counts) / one instance's
 * saturation throughput); 0 when none can be computed. */
static double count_bound(const struct fs_scenario *sc, size_t pool)
{
	struct fs_saturation sat;
	double load, need, per = 0;
	size_t p;

	if (sc->engine.kind != FS_ENGINE_VLLM || pool >= sc->fleet.n_pools)
		return 0;
	if (sc->fleet.autoscale.enabled)     /* the count is only where it starts */
		return 0;
	load = offered_per_s(sc);
	if (!(load > 0))
		return 0;
	need = load;
	for (p = 0; p < sc->fleet.n_pools; p++) {
		if (fs_capacity_util_saturation(sc, p, &sat) != 0 || !(sat.requests_per_s > 0))
			return 0;
		if (p == pool)
			per = sat.requests_per_s;
		else
			need -= sat.requests_per_s * sc->fleet.pools[p].count;
	}
	if (!(need > 0))
		return 0;
	return ceil(need / per - 1e-9);
}

size_t fs__sweep_search_start(const struct fs_sweep_opts *o, const struct fs_scenario *base,
                              const size_t *coords_base, size_t axis)
{
	const struct fs_sweep_cfg *sw = &base->sweep;
	const struct fs_sweep_axis *ax = &sw->axes[axis];
	size_t coords[FS_SWEEP_MAX_AXES], i;
	struct fs_error err;
	struct fs_scenario *sc;
	long pool = count_pool(ax->path);
	double bound;

	if (pool < 0)
		return 0;
	memcpy(coords, coords_base, sw->n_axes * sizeof *coords);
	coords[axis] = 0;
	sc = fs_scenario_file_load(o->file, NULL, o->sets, o->n_sets, sw,
	                           fs_sweep_point_index(sw, coords), &err);
	if (sc == NULL)
		return 0;                    /* the search itself reports it */
	bound = count_bound(sc, (size_t)pool);
	fs_scenario_free(sc);
	for (i = 0; i + 1 < ax->n_values; i++)
		if (strtod(ax->values[i], NULL) >= bound)
			break;
	return i;
}
