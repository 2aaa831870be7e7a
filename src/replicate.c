/*
 * replicate.c — the OpenMP loop over replications (see replicate.h).  Each
 * iteration builds its own world and writes only results[r]; nothing is
 * reduced inside the parallel region, so the aggregation that follows sees
 * the same numbers in the same order for any thread count.  MODEL: D2.
 */
#include "fleetsim/replicate.h"

#include <omp.h>
#include <stdlib.h>

#include "fleetsim/world_capacity_util.h"
#include "fleetsim/world.h"

/* Events between two reports of a replication's simulated time: a few
 * milliseconds of work, so reporting costs nothing measurable. */
#define PROGRESS_EVENTS 65536

/* fs_world_run, telling `progress` the simulated time it gets through, up
 * to the horizon (a drain past it adds nothing), then that it is done. */
static void run_telling(struct fs_world *w, fs_ns horizon_ns, struct fs_run_progress *progress)
{
	fs_ns told = 0;
	uint32_t k = 0;

	while (fs_world_step(w))
		if (++k % PROGRESS_EVENTS == 0) {
			fs_ns now = fs_world_now(w) < horizon_ns ? fs_world_now(w) : horizon_ns;

			fs_run_progress_advance(progress, now - told);
			told = now > told ? now : told;
		}
	fs_run_progress_advance(progress, horizon_ns - told);
	fs_run_progress_rep_done(progress);
}

struct fs_rep_result **fs_replicate_run(const struct fs_scenario *sc,
                                        const struct fs_run_opts *opts)
{
	int n_reps = opts->replications;
	struct fs_rep_result **results = fs_xcalloc((size_t)n_reps, sizeof *results);
	/* MODEL: S16 — each pool's saturation throughput, once per run. */
	struct fs_saturation *sat = fs_capacity_util_saturate_fleet(sc);
	int r;

	fs_run_progress_expect(opts->progress, opts->first_replication + n_reps);

#pragma omp parallel for schedule(dynamic, 1) num_threads(opts->threads)
	for (r = 0; r < n_reps; r++) {
		uint64_t rep = (uint64_t)opts->first_replication + (uint64_t)r;
		bool record = opts->record_first && rep == 0;
		struct fs_world *w = fs_world_alloc(sc, opts->seed, rep, record);

		if (opts->progress == NULL)
			fs_world_run(w);
		else
			run_telling(w, sc->sim.horizon_ns, opts->progress);
		results[r] = fs_world_take_result(w);
		fs_world_free(w);
	}
	fs_capacity_util_stamp(results, n_reps, sat, sc->fleet.n_pools);
	free(sat);
	return results;
}

void fs_replicate_free(struct fs_rep_result **results, int replications)
{
	int r;

	if (results == NULL)
		return;
	for (r = 0; r < replications; r++)
		fs_rep_result_free(results[r]);
	free(results);
}
