/*
 * workload.h — request generation for one replication.  A workload holds one
 * arrival source per arrival process (the shared workload-level process, if
 * any, then each class with its own process), each drawing from its own RNG
 * streams.  The world asks a source for its first arrival time, and at that
 * time takes the request and learns the source's next arrival time.  Rates are
 * modulated (diurnal, schedule, spikes) by thinning.  Pure helpers
 * (fs_arrival_rate_at, fs_length_sample, fs_length_prepare) have no state.
 * The workload borrows the config (which must outlive it) and owns its RNGs.
 */
#ifndef FLEETSIM_WORKLOAD_H
#define FLEETSIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/block_hash.h"
#include "fleetsim/common.h"
#include "fleetsim/config.h"

struct fs_rng;

/* One generated request. */
struct fs_request {
	uint64_t id;                 /* 0, 1, 2, ... in generation order per world */
	uint32_t class_idx;
	fs_ns arrival_ns;
	int64_t prompt_tokens;
	int64_t output_tokens;
	uint64_t session_id;         /* 1, 2, ... per world; 0: not in a session */
	uint32_t turn;               /* 0-based turn index within its session */
	struct fs_block_hashes block_hashes; /* content hashes of its leading
	                              * blocks for prefix caching (MODEL: V23):
	                              * trace ids (owned by the trace) or derived
	                              * from a session; none: n_units == 0 */
};

struct fs_workload;

/* New workload for replication `replication` of base seed `seed`. */
struct fs_workload *fs_workload_alloc(const struct fs_workload_cfg *cfg,
                                      const struct fs_sim_cfg *sim,
                                      uint64_t seed, uint64_t replication);
void fs_workload_free(struct fs_workload *w);               /* NULL is fine */

size_t fs_workload_n_sources(const struct fs_workload *w);

/* Time of the first arrival of source `src` (FS_NS_MAX: none before the
 * horizon).  Call once per source, before any fs_workload_take on it. */
fs_ns fs_workload_first(struct fs_workload *w, size_t src);

/* Take the request of source `src` that arrives at t_ns (the time previously
 * returned for it): fills *req and returns the source's next arrival time, or
 * FS_NS_MAX when none falls before the horizon. */
fs_ns fs_workload_take(struct fs_workload *w, size_t src, fs_ns t_ns,
                       struct fs_request *req);

/* ---- closed-loop users and sessions (MODEL: U1-U9) ------------------------
 * An agent is a user of a class with `users` or an open multi-turn session.
 * The world asks each user for its first request time, takes an agent's
 * request at that time, and when the request ends (completed or failed)
 * learns the agent's next request time. */
#define FS_WORKLOAD_NO_AGENT UINT32_MAX

/* Users of every closed-loop class (agents 0 .. n-1; the most logged on at
 * once under a schedule). */
size_t fs_workload_n_users(const struct fs_workload *w);

/* User `agent`'s first request time (FS_NS_MAX: none before the horizon).
 * Call once per user, in user order. */
fs_ns fs_workload_user_first(struct fs_workload *w, uint32_t agent);

/* Fill *req with agent's request at t_ns (the time it asked for). */
void fs_workload_user_take(struct fs_workload *w, uint32_t agent, fs_ns t_ns,
                           struct fs_request *req);

/* The agent whose request the last fs_workload_take filled: an open session
 * it started, or FS_WORKLOAD_NO_AGENT for a plain open-loop request. */
uint32_t fs_workload_taken_agent(const struct fs_workload *w);

/* Agent's request ended at t_ns (completed with output_tokens, or failed):
 * returns its next request time, or FS_NS_MAX for none (an open session
 * that ended; the horizon). */
fs_ns fs_workload_user_done(struct fs_workload *w, uint32_t agent, fs_ns t_ns,
                            bool completed, int64_t output_tokens);

/* Instantaneous arrival rate (per second) of `cfg` at simulated time t_ns,
 * including diurnal, schedule and spikes (trace: its mean rate).  Pure. */
double fs_arrival_rate_at(const struct fs_arrival_cfg *cfg,
                          const struct fs_sim_cfg *sim, fs_ns t_ns);

/* Upper bound of fs_arrival_rate_at over all t (the thinning envelope). */
double fs_arrival_rate_max(const struct fs_arrival_cfg *cfg);

/* Build cfg's spike profile (spike_steps) from its spikes, replacing any
 * earlier one: O(n_spikes log n_spikes).  The scenario loader calls it; a
 * caller that fills `spikes` by hand calls it before asking for a rate or
 * making a workload.  The profile is owned by cfg: fs_arrival_fini. */
void fs_arrival_prepare(struct fs_arrival_cfg *cfg);

/* Free what fs_arrival_prepare attached to cfg (not the spikes). */
void fs_arrival_fini(struct fs_arrival_cfg *cfg);

/* Draw one length (tokens) from `cfg`, clamped to [min, max]. */
int64_t fs_length_sample(const struct fs_length_cfg *cfg, struct fs_rng *r);

/* Precompute tables a length distribution needs (ZIPF's CDF).  Called by the
 * scenario loader once; frees nothing.  Returns -1 with a message on error. */
int fs_length_prepare(struct fs_length_cfg *cfg, char *msg, size_t msg_len);

/* Free what fs_length_prepare and the loader attached to cfg. */
void fs_length_fini(struct fs_length_cfg *cfg);

/* Mean of the distribution (before clamping for LOGNORMAL/ZIPF it is the
 * clamped mean computed numerically); used by validate and docs. */
double fs_length_mean(const struct fs_length_cfg *cfg);

/* The smallest length a draw can give (clamp applied), or -1 for TRACE;
 * used by the scenario loader to refuse classes no pool can ever serve. */
int64_t fs_length_min(const struct fs_length_cfg *cfg);

#endif
