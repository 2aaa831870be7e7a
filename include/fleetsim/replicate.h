/*
 * replicate.h — run R independent replications of one scenario, in parallel
 * with OpenMP.  Replication r always uses streams seeded by (seed, r), and
 * writes results[r] only, so the output does not depend on the thread count
 * or on scheduling.  The caller owns the returned array and each result.
 */
#ifndef FLEETSIM_REPLICATE_H
#define FLEETSIM_REPLICATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/result.h"
#include "fleetsim/scenario_cfg.h"

struct fs_run_progress;          /* replicate_progress.c */

struct fs_run_opts {
	int replications;            /* R >= 1 */
	int first_replication;       /* index of the first (0; more when a stopping
	                              * rule adds replications to earlier ones) */
	int threads;                 /* OpenMP threads, >= 1 */
	uint64_t seed;               /* base seed */
	bool record_first;           /* keep per-request rows of replication 0 */
	struct fs_run_progress *progress;    /* told what the replications get
	                                      * through (output only); NULL: none */
};

/* Run replications first..first+R-1.  Returns an array of R results (free each with
 * fs_rep_result_free, then the array with free()). */
struct fs_rep_result **fs_replicate_run(const struct fs_scenario *sc,
                                        const struct fs_run_opts *opts);

/* Free an array returned by fs_replicate_run (NULL is fine). */
void fs_replicate_free(struct fs_rep_result **results, int replications);

/*
 * A long run's progress on stderr (replicate_progress.c).  `label` begins
 * each line ("fleetsim run: base"); `planned` replications are expected,
 * each simulating `horizon_ns`.  Off a terminal (tty false) a line every
 * 5 s, on one a line redrawn every second and erased by
 * fs_run_progress_stop; a run over before the first interval prints
 * nothing.  fs_replicate_run reports to it through fs_run_opts.progress:
 * the replications it expects (fs_run_progress_expect raises `planned`,
 * as a stopping rule's further batch does), the simulated time each gets
 * through (clipped at the horizon) and each one done.
 */
struct fs_run_progress *fs_run_progress_start(const char *label, int planned,
                                              fs_ns horizon_ns, bool tty);
void fs_run_progress_expect(struct fs_run_progress *p, int replications);
void fs_run_progress_advance(struct fs_run_progress *p, fs_ns sim_ns);
void fs_run_progress_rep_done(struct fs_run_progress *p);
void fs_run_progress_stop(struct fs_run_progress *p);     /* NULL: nothing */
/* What the lines show: replications done and planned, and the share of
 * their simulated time got through (0 to 1). */
void fs_run_progress_read(struct fs_run_progress *p, int *done, int *planned,
                          double *simulated);

/* One progress line into buf (len bytes): `done` of `planned`
 * replications, `simulated` the share of their simulated time (0 to 1),
 * the seconds elapsed and, once the share is past 1%, the seconds left at
 * the pace so far.  Returns snprintf's count. */
int fs_run_progress_line(char *buf, size_t len, const char *label, int done, int planned,
                         double simulated, double elapsed_s);

#endif
