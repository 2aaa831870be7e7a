/*
 * world_capacity_util.h — capacity utilisation: the share of an instance's
 * saturation throughput in use (MODEL: S16-S19).  The saturation throughput
 * of each pool is measured once per run by a small deterministic closed-loop
 * run of the pool's engine on the scenario's length mix; a replication's
 * figures (whole horizon, per time bin, idle episodes) divide the output
 * tokens its pools sampled by it.  Pure functions of their inputs; what they
 * return is caller-owned where it is heap memory (free()).
 */
#ifndef FLEETSIM_WORLD_CAPACITY_UTIL_H
#define FLEETSIM_WORLD_CAPACITY_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "fleetsim/result.h"
#include "fleetsim/scenario_cfg.h"

/* The idle rule of thumb (MODEL: S19): capacity utilisation below this ... */
#define FS_IDLE_UTIL_BELOW 0.10
/* ... for at least this long is an idle episode. */
#define FS_IDLE_MIN_NS (30 * 60 * FS_NS_PER_S)

/* Saturation throughput of one instance of a pool (MODEL: S16). */
struct fs_saturation {
	double output_tokens_per_s;  /* output tokens sampled per second; NAN when
	                              * the mix could not be served at all */
	double requests_per_s;       /* requests completed per second */
	double mean_batch_seqs;      /* mean sequences per iteration at saturation */
	uint64_t completed;          /* requests completed in the measuring window */
	uint64_t steps;              /* iterations simulated in all */
};

/*
 * Measure the saturation throughput of one instance of pool `pool` of `sc`
 * (an LLM scenario): its engine (scheduler limits, KV blocks, step-time
 * model; FCFS) always has max_num_seqs requests waiting, drawn from the
 * classes the pool serves in proportion to their expected requests (a
 * closed loop's offered load, U10), with lengths from the classes'
 * distributions (or their trace rows; a session class's prompts include a
 * drawn history, U10) on a fixed seed.  After a warm-up of max(200, 2 x
 * peak running) completions it counts output tokens over the next
 * max(2000, 2 x peak running).
 * Deterministic: the same scenario gives the same numbers whatever the run's
 * seed.  Returns 0, or -1 when no request of the mix fits the engine (then
 * the throughputs are NAN).  Cost: O(output tokens of those requests).
 */
int fs_capacity_util_saturation(const struct fs_scenario *sc, size_t pool,
                                struct fs_saturation *out);

/*
 * Unloaded response time (seconds) of a request of class c on one instance
 * of pool `pool` (MODEL: U10): with the vLLM engine, the step-time model's
 * prefill of the class's mean prompt (a session's history included) at
 * batch 1 plus (mean output - 1) decode steps at batch 1 and the mean
 * context; with the queue engine, the mean service time.  No queueing, no
 * batching, no prefix-cache hits: a lower bound of the response time.  NAN
 * when the lengths come from a trace.  Pure; O(1) plus fs_length_mean.
 */
double fs_capacity_util_response_s(const struct fs_scenario *sc, size_t pool, size_t c);

/* fs_capacity_util_saturation for every pool: a heap array of
 * sc->fleet.n_pools entries (free()), NULL when the scenario has none. */
struct fs_saturation *fs_capacity_util_saturate_fleet(const struct fs_scenario *sc);

/* Copy each pool's saturation throughput into results[0..n)->fleet.pools,
 * where the per-replication figures below read it.  sat may be NULL. */
void fs_capacity_util_stamp(struct fs_rep_result *const *results, int n,
                            const struct fs_saturation *sat, size_t n_pools);

/* Capacity utilisation of pool p over the whole horizon of one replication:
 * output tokens / (saturation tokens/s x serving instance-seconds); NAN when
 * the pool never served or has no saturation figure. */
double fs_capacity_util_pool(const struct fs_rep_result *r, size_t p);

/* The same for the whole fleet: Σ (tokens / saturation) / Σ serving seconds
 * over pools, i.e. the serving-time-weighted mean of the pools' figures. */
double fs_capacity_util_fleet(const struct fs_rep_result *r);

/* Capacity utilisation in time-series bin `bin`, of pool p, or of the fleet
 * when p == SIZE_MAX: tokens sampled by iterations starting in the bin over
 * saturation x serving instance-seconds of the bin.  NAN when nothing served. */
double fs_capacity_util_bin(const struct fs_rep_result *r, size_t p, size_t bin);

/* Idle episodes of one pool in one replication (MODEL: S19). */
struct fs_idle_episodes {
	double count;                /* maximal runs of idle bins lasting >= 30 min */
	double hours;                /* their total length, wall-clock hours */
	double instance_hours;       /* serving instance-hours inside them */
	double usd;                  /* instance_hours x the pool's billed USD per
	                              * billed instance-hour */
};

/* Find pool p's idle episodes in replication r.  All zero when there are
 * none; NAN when the pool has no saturation figure. */
void fs_capacity_util_idle(const struct fs_rep_result *r, size_t p,
                           struct fs_idle_episodes *out);

#endif
