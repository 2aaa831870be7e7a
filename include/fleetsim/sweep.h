/*
 * sweep.h — `fleetsim sweep`: every point of a scenario's sweep (or, in
 * search mode, only the points a galloping search needs) run with R replications on
 * the same seed (common random numbers), each point's record stored as soon
 * as it finishes (DIR/points/<i>.json, so an interrupted sweep resumes), and
 * from the records alone: sweep.csv, sweep.json, pareto.csv and best.json.
 * Points are dealt over MPI ranks when built with MPI; output bytes do not
 * depend on thread or rank counts.
 */
#ifndef FLEETSIM_SWEEP_H
#define FLEETSIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fs_scenario_file;

struct fs_sweep_opts {
	const char *scenario_path;
	/* the scenario file's bytes, read once: the base, the checks and every
	 * point load from them, and DIR/scenario_input.json keeps them */
	const struct fs_scenario_file *file;
	const char *out_dir;
	int threads;                 /* per process */
	int64_t replications;        /* 0: the scenario's */
	int64_t seed;                /* -1: the scenario's */
	const char *const *sets;     /* command-line --set edits (before each point's) */
	size_t n_sets;
	bool resume;                 /* reuse matching point records in DIR/points */
	bool quiet;                  /* no progress line, no table */
	double ci_target;            /* stopping rule (0: the objective's) */
	bool no_share;               /* every point simulates itself, even one that
	                              * differs from another only in a pricing plan
	                              * leaving the simulation alone (MODEL: S21) */
};

/* Run the sweep; returns an exit status (enum fs_exit) and prints its own
 * errors. */
int fs_sweep_run(const struct fs_sweep_opts *opts);

/* Internal to sweep*.c --------------------------------------------------- */

struct fs_scenario;
struct cJSON;
struct fs__sweep_share;

/* Evaluate point `point` (its sets applied to the base): run, then return
 * its record as JSON text (heap) and whether it is feasible; NULL with the
 * error printed when the point's scenario is bad.  share: the cache of
 * shared simulations (sweep_share.c), NULL to simulate every replication. */
char *fs__sweep_eval_point(const struct fs_sweep_opts *o, const struct fs_scenario *base,
                           size_t point, struct fs__sweep_share *share, bool *feasible);

/* Whether a record (text) is feasible; -1 when it does not parse. */
int fs__sweep_record_feasible(const char *text);

/* Write the outputs from the records (texts indexed by point, NULL when
 * not evaluated), moved into DIR together: sweep.csv, sweep.json,
 * pareto.csv, sweep_cdf.csv, best.json, scenario.json (base resolved) and
 * scenario_input.json (o->file's bytes).  0, or an exit status. */
int fs__sweep_write_outputs(const struct fs_sweep_opts *o, const struct fs_scenario *base,
                            char *const *records, size_t n_points);

#endif
