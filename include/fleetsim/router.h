/*
 * router.h — which serving instance takes an arriving request.  A pure
 * choice over candidates the world lists (only instances that take new work:
 * serving and not under a reclaim notice); ties always go to the earliest
 * candidate, so choices are reproducible.  The caller-owned state holds the
 * round-robin position and the session router's session -> instance map
 * (heap, freed by fs_router_state_fini).
 */
#ifndef FLEETSIM_ROUTER_H
#define FLEETSIM_ROUTER_H

#include <stddef.h>
#include <stdint.h>

#include "fleetsim/fleet_cfg.h"

struct fs_rng;

struct fs_route_candidate {
	uint32_t id;                 /* the world's instance id */
	uint64_t outstanding;        /* requests routed there and not finished */
	double kv_frac;              /* KV blocks in use / total */
	double price_usd_per_h;      /* the instance's current price */
	int64_t max_num_seqs;        /* its running-request cap ("room") */
	int64_t prefix_blocks;       /* PREFIX router: cached blocks of the
	                              * request's prefix held there (0 otherwise) */
};

/* What the router knows of the request (NULL: nothing). */
struct fs_route_request {
	uint64_t session;            /* session key, 0 = none (SESSION router) */
};

/* State kept between calls: the round-robin position and, for the SESSION
 * router, the instance that took each session's latest request (open
 * addressing on the session key; 12 bytes a session, kept for the run). */
struct fs_router_state {
	uint64_t next;
	uint64_t *sess_key;          /* 0 = empty slot */
	uint32_t *sess_inst;
	size_t sess_cap, sess_n;     /* cap: a power of two, or 0 */
};

/* Free the session map (the state may be reused; NULL is fine). */
void fs_router_state_fini(struct fs_router_state *st);

/*
 * Index into cand[0..n) of the chosen candidate (n >= 1).  ROUND_ROBIN: in
 * turn; LEAST_OUTSTANDING; LEAST_KV; POWER_OF_TWO: two distinct candidates
 * drawn from rng (the routing stream), the one with fewer outstanding;
 * COST_AWARE: the cheapest candidate whose outstanding < max_num_seqs, else
 * the least outstanding.  rng is used by POWER_OF_TWO only.
 */
size_t fs_router_pick(enum fs_router_kind kind, const struct fs_route_candidate *cand,
                      size_t n, struct fs_router_state *st, struct fs_rng *rng);

/*
 * fs_router_pick with what is known of the request (req may be NULL).
 * SESSION: the candidate that took the session's previous request while it
 * is still a candidate, else the least outstanding; the choice is recorded
 * for the session (MODEL: R5).  PREFIX: the candidate with the most
 * prefix_blocks, ties (and all zero) to the least outstanding, then the
 * earliest (MODEL: R6).  O(n) plus O(1) expected for the session map.
 */
size_t fs_router_pick_for(enum fs_router_kind kind,
                          const struct fs_route_candidate *cand, size_t n,
                          struct fs_router_state *st, struct fs_rng *rng,
                          const struct fs_route_request *req);

#endif
