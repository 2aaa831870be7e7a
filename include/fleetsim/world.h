/*
 * world.h — one replication: clock, event queue, workload, engine and
 * metrics.  The world is the only user of the event queue; it dispatches each
 * event kind to its owning module.  Single-threaded; replications run in
 * parallel as separate worlds.  The world borrows the scenario (which must
 * outlive it) and owns everything else.
 */
#ifndef FLEETSIM_WORLD_H
#define FLEETSIM_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/result.h"
#include "fleetsim/scenario_cfg.h"

/* Event kinds, in one closed enum dispatched by one switch in world.c. */
enum fs_event_kind {
	FS_EV_ARRIVAL = 1,           /* a = arrival source */
	FS_EV_SERVICE_DONE = 2,      /* a = server, b = request slot (queue engine) */
	FS_EV_HORIZON = 3,           /* end of the simulated span */
	FS_EV_STEP_DONE = 4,         /* a = instance: its engine iteration ends (LLM) */
	FS_EV_INSTANCE_UP = 5,       /* a = instance: provisioned (b 0) or loaded (b 1) */
	FS_EV_SPOT_NOTICE = 6,       /* a = instance: reclaim notice */
	FS_EV_SPOT_RECLAIM = 7,      /* a = instance: reclaimed */
	FS_EV_ZONE_RECLAIM = 8,      /* a = zone: every spot instance there */
	FS_EV_CAPACITY = 9,          /* a = zone: its traced spot capacity changes */
	FS_EV_LAUNCH_RETRY = 10,     /* a = pool: retry launches that found no capacity */
	FS_EV_AUTOSCALE = 11,        /* the autoscaler's periodic look */
	FS_EV_USER_SEND = 12         /* a = agent: a closed-loop user or session
	                              * sends its next request (MODEL: U1) */
};

struct fs_world;

/* New world for replication `replication` at time 0 with its first events
 * scheduled.  `seed` overrides sc->sim.seed.  With record_requests, every
 * request gets a row in the result (memory grows with the request count). */
struct fs_world *fs_world_alloc(const struct fs_scenario *sc, uint64_t seed,
                                uint64_t replication, bool record_requests);
void fs_world_free(struct fs_world *w);                 /* NULL is fine */

/* Process the next event.  Returns false once the world has ended. */
bool fs_world_step(struct fs_world *w);

/* Process events with time <= t_ns (or until the end). */
void fs_world_run_until(struct fs_world *w, fs_ns t_ns);

/* Run to the end. */
void fs_world_run(struct fs_world *w);

fs_ns fs_world_now(const struct fs_world *w);
bool fs_world_ended(const struct fs_world *w);

/* Requests in the system (waiting or in service) now. */
uint64_t fs_world_in_system(const struct fs_world *w);

/* Take the result (valid once ended; caller owns it).  Call once. */
struct fs_rep_result *fs_world_take_result(struct fs_world *w);

#endif
