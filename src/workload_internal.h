/*
 * workload_internal.h — the arrival-time generator behind one workload source
 * (arrivals.c), used by workload.c.  A generator borrows its config, the sim
 * config and its RNG stream; it owns no memory, so it lives inside the
 * workload's source array.  Times only grow; FS_NS_MAX means "no more".
 */
#ifndef FLEETSIM_WORKLOAD_INTERNAL_H
#define FLEETSIM_WORKLOAD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/config.h"

struct fs_rng;
struct fs_request;

struct fs__arrivals {
	const struct fs_arrival_cfg *cfg;
	const struct fs_sim_cfg *sim;
	struct fs_rng *rng;          /* inter-arrival and thinning draws (borrowed) */
	bool done;                   /* no arrival left before the horizon */

	/* renewal kinds */
	bool modulated;              /* diurnal, schedule or spikes: thin */
	double rate_max_per_s;       /* envelope rate of the candidate process */
	double rate_min_per_s;       /* fs_arrival_rate_at is never below it (0: unknown) */
	/* A diurnal cycle alone: fs_arrival_rate_at over [band_from_ns,
	 * band_to_ns] lies in [band_lo_per_s, band_hi_per_s] (arrivals.c) */
	bool banded;
	fs_ns band_from_ns, band_to_ns;
	double band_lo_per_s, band_hi_per_s;
	double gap_shape;            /* GAMMA: 1/cv^2; WEIBULL: k */
	double gap_scale_s;          /* POISSON: mean gap; GAMMA/WEIBULL: scale */
	fs_ns cand_ns;               /* last candidate time of the envelope process */

	/* TRACE */
	size_t row;                  /* index of the next row to replay */
	int64_t loop;                /* loops completed since the first kept row */
	fs_ns first_t_ns;            /* trace time of the first kept row */
	fs_ns period_ns;             /* span + loop gap, trace time */
	double scale;                /* time_scale / rate_scale */
};

/* Set up the generator of `cfg` (rates > 0 or nothing is generated). */
void fs__arrivals_init(struct fs__arrivals *a, const struct fs_arrival_cfg *cfg,
                       const struct fs_sim_cfg *sim, struct fs_rng *rng);

/* Next arrival time (ns, non-decreasing), or FS_NS_MAX when none falls
 * strictly before sim->horizon_ns.  For traces *row is the replayed row,
 * otherwise NULL.  O(1) draws per candidate; modulated sources may reject
 * several candidates per arrival. */
fs_ns fs__arrivals_next(struct fs__arrivals *a, const struct fs_trace_row **row);

/* Closed-loop users and open sessions (workload_users.c, MODEL: U1-U9).
 * Borrows cfg, sim and the per-class length streams; owns its THINK and
 * TURNS streams and its agents.  Agents [0, fs__users_count) are the users
 * of the classes with `users`, in class order; open sessions follow. */
struct fs__users;
struct fs__users *fs__users_alloc(const struct fs_workload_cfg *cfg,
                                  const struct fs_sim_cfg *sim, uint64_t seed,
                                  uint64_t replication, struct fs_rng *const *rng_prompt,
                                  struct fs_rng *const *rng_output);
void fs__users_free(struct fs__users *u);                /* NULL is fine */
size_t fs__users_count(const struct fs__users *u);
/* A user's first request time (FS_NS_MAX: none before the horizon). */
fs_ns fs__users_first(struct fs__users *u, uint32_t agent);
/* Fill *req (all but id) with the agent's request at t_ns. */
void fs__users_take(struct fs__users *u, uint32_t agent, fs_ns t_ns, struct fs_request *req);
/* Start a session of class cls at t_ns, fill *req with its first turn (all
 * but id) and return its agent. */
uint32_t fs__users_open(struct fs__users *u, uint32_t cls, fs_ns t_ns,
                        struct fs_request *req);
/* The agent's request ended at t_ns: its next request time, or FS_NS_MAX
 * (an open session's agent is then freed). */
fs_ns fs__users_done(struct fs__users *u, uint32_t agent, fs_ns t_ns, bool completed,
                     int64_t output_tokens);

/* Requests per second class c of wl offers at t_ns (MODEL: U10): an open
 * class its arrival rate (its share of the shared process) times its mean
 * turns per session; a closed loop N(t) users over one user's cycle, each
 * response taking response_s (an estimate; < 0 or NAN: 0).  0 when the
 * cycle has no length (benchmark mode with response_s 0).  Pure, O(steps
 * of a user schedule) plus fs_length_mean of the turns. */
double fs__users_offered_per_s(const struct fs_workload_cfg *wl, const struct fs_sim_cfg *sim,
                               size_t c, fs_ns t_ns, double response_s);

/* Mean prompt tokens of class cl's requests: its message length, plus the
 * history of earlier turns for a session class (MODEL: U10).  NAN when the
 * lengths come from a trace. */
double fs__users_mean_prompt_tokens(const struct fs_class_cfg *cl);

/* Clamp a token count to cfg's [min, max] (min < 1 means 1, max <= 0 none). */
int64_t fs__length_clamp(const struct fs_length_cfg *cfg, int64_t tokens);

#endif
