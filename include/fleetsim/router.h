/*
 * router.h — which serving instance takes an arriving request.  A pure
 * choice over candidates the world lists (only instances that take new work:
 * serving and not under a reclaim notice); ties always go to the earliest
 * candidate, so choices are reproducible.
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
};

/* State kept between calls (round-robin position). */
struct fs_router_state {
	uint64_t next;
};

/*
 * Index into cand[0..n) of the chosen candidate (n >= 1).  ROUND_ROBIN: in
 * turn; LEAST_OUTSTANDING; LEAST_KV; POWER_OF_TWO: two distinct candidates
 * drawn from rng (the routing stream), the one with fewer outstanding;
 * COST_AWARE: the cheapest candidate whose outstanding < max_num_seqs, else
 * the least outstanding.  rng is used by POWER_OF_TWO only.
 */
size_t fs_router_pick(enum fs_router_kind kind, const struct fs_route_candidate *cand,
                      size_t n, struct fs_router_state *st, struct fs_rng *rng);

#endif
