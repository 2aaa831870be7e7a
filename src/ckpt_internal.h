/*
 * ckpt_internal.h — internal: the checkpointed-job simulation shared by
 * src/ckpt.c (one replication, a policy over replications), src/ckpt_scan.c
 * (fs_ckpt_run, the interval scan, closed forms) and src/ckpt_load.c (the
 * JSON input of `fleetsim checkpoint`).  The job struct borrows the trace.
 */
#ifndef FLEETSIM_CKPT_INTERNAL_H
#define FLEETSIM_CKPT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/ckpt.h"
#include "fleetsim/common.h"

/* What every replication reads (read-only while they run). */
struct fs__ckpt_job {
	fs_ns delta_ns, restart_ns;
	fs_ns deadline_ns;          /* FS_NS_MAX: none */
	double rate_per_h, unavail_h;
	const struct fs_capacity_trace *trace; /* NULL: Poisson (borrowed) */
	int32_t needs;              /* instances the job needs from the trace */
	int cards;
	double spot_price_per_h, od_price_per_h;
	int replications, threads;
	uint64_t seed;
	double level;
};

/* The job's segments for one interval: n_seg - 1 of tau_ns, the last of
 * last_ns (0 < last_ns <= tau_ns), each followed by a checkpoint. */
struct fs__ckpt_plan {
	int64_t n_seg;
	fs_ns tau_ns, last_ns;
};

/* One replication's outcome. */
struct fs__ckpt_rep {
	double completion_h, spot_h, on_demand_h, lost_h, interruptions, cost;
	bool met;
	int failed;
};

fs_ns fs__ckpt_ns(double h);
double fs__ckpt_h(fs_ns t_ns);

/* The segments of work_h at interval_h (K1).  -1 when more than 10^7. */
int fs__ckpt_plan(double work_h, double interval_h, struct fs__ckpt_plan *p);

/* One replication `rep` of the job under `policy`. */
void fs__ckpt_replicate(const struct fs__ckpt_job *j, const struct fs__ckpt_plan *p,
                        enum fs_ckpt_policy policy, uint64_t rep, struct fs__ckpt_rep *o);

/* Every replication of `policy` (in parallel) and the statistics of res
 * that describe a policy (completion, cost, deadline share, quantiles,
 * interruptions, on-demand and lost hours).  0, or -1 with err when a
 * replication did not finish. */
int fs__ckpt_policy_run(const struct fs__ckpt_job *j, const struct fs__ckpt_plan *p,
                        enum fs_ckpt_policy policy, struct fs_ckpt_result *res,
                        struct fs_error *err);

/* JSON forms (ckpt_json.c; caller deletes): a policy's statistics, and
 * the interval comparison with the scan. */
struct cJSON;
struct cJSON *fs__ckpt_policy_json(const struct fs_ckpt_result *r,
                                   enum fs_ckpt_policy policy);
struct cJSON *fs__ckpt_interval_json(const struct fs_ckpt_result *r);

/* The input file of `fleetsim checkpoint` (ckpt_load.c): the config with
 * the strings it points to, owned here. */
struct fs__ckpt_input {
	struct fs_ckpt_cfg cfg;     /* policy SPOT_ONLY; threads 0 */
	char *name;                 /* "name", or NULL */
	char *currency;             /* "currency" (default "USD") */
	char *trace_path;           /* resolved against the file's directory */
	char *trace_display;        /* as written */
	char *key_at[16];           /* "FILE:LINE:COL" of each root key's value
	                             * present, by its index in the loader's list
	                             * (heap; for errors found when the study
	                             * runs: fs__ckpt_where) */
};

/* Read and check the JSON file at path.  0, or -1 with err at
 * FILE:LINE:COL and the JSON path (in is then zeroed). */
int fs__ckpt_load(const char *path, struct fs__ckpt_input *in, struct fs_error *err);
/* Where the study's error `err` (found when it ran, with a JSON path but
 * no place) comes from: err->where set to the place of the path's root
 * key's value in the input file.  No effect when err has a place already
 * or its key is unknown. */
void fs__ckpt_where(const struct fs__ckpt_input *in, struct fs_error *err);

/* obj["interruptions"] (required): {rate_per_h, unavailable_mean} or
 * {trace, format, instances}, into *sp; a trace's resolved path and its
 * name as written go to *trace_path and *trace_display (heap, the caller
 * frees; *sp points at them).  0, or -1 with sc's error set.  Shared with
 * a budget task's "spot" block. */
struct fs__sc;
int fs__ckpt_load_interruptions(struct fs__sc *sc, const struct cJSON *obj,
                                struct fs_ckpt_interrupts *sp, char **trace_path,
                                char **trace_display);

/* obj[key] as a duration (scenario duration strings) of min_ns to
 * 999,999 h, in hours into *out_h: 1 present, 0 absent, -1 with sc's error
 * set.  Shared with a budget task's "spot" block. */
int fs__ckpt_hours(struct fs__sc *sc, const struct cJSON *obj, const char *key,
                   fs_ns min_ns, double *out_h);

/* Free what in owns and zero it; a zeroed input is fine. */
void fs__ckpt_input_fini(struct fs__ckpt_input *in);

#endif
