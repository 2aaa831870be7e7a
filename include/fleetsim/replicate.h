/*
 * replicate.h — run R independent replications of one scenario, in parallel
 * with OpenMP.  Replication r always uses streams seeded by (seed, r), and
 * writes results[r] only, so the output does not depend on the thread count
 * or on scheduling.  The caller owns the returned array and each result.
 */
#ifndef FLEETSIM_REPLICATE_H
#define FLEETSIM_REPLICATE_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/result.h"
#include "fleetsim/scenario_cfg.h"

struct fs_run_opts {
	int replications;            /* R >= 1 */
	int first_replication;       /* index of the first (0; more when a stopping
	                              * rule adds replications to earlier ones) */
	int threads;                 /* OpenMP threads, >= 1 */
	uint64_t seed;               /* base seed */
	bool record_first;           /* keep per-request rows of replication 0 */
};

/* Run replications first..first+R-1.  Returns an array of R results (free each with
 * fs_rep_result_free, then the array with free()). */
struct fs_rep_result **fs_replicate_run(const struct fs_scenario *sc,
                                        const struct fs_run_opts *opts);

/* Free an array returned by fs_replicate_run (NULL is fine). */
void fs_replicate_free(struct fs_rep_result **results, int replications);

#endif
