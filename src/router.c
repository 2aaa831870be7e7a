/*
 * router.c — which serving instance takes an arriving request (see router.h).
 * A pure choice over the candidates the world lists; the only state is the
 * round-robin position and the session map, owned by the caller.  Every
 * scan keeps the first candidate among equals, so ties go to the earliest
 * and choices are reproducible.  Only POWER_OF_TWO draws, from the routing
 * stream it is given.
 */
#include "fleetsim/router.h"

#include <assert.h>
#include <stdlib.h>

#include "fleetsim/rng.h"

/* Earliest candidate with the fewest outstanding requests.  O(n). */
static size_t least_outstanding(const struct fs_route_candidate *cand, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (cand[i].outstanding < cand[best].outstanding)
			best = i;
	return best;
}

/* Earliest candidate with the lowest KV-block use.  O(n). */
static size_t least_kv(const struct fs_route_candidate *cand, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (cand[i].kv_frac < cand[best].kv_frac)
			best = i;
	return best;
}

/* Two distinct candidates uniformly at random, the one with fewer outstanding
 * (the earlier index on a tie).  n = 1 returns 0 without drawing, so adding a
 * single-instance phase does not shift the routing stream.  MODEL: R3 */
static size_t power_of_two(const struct fs_route_candidate *cand, size_t n,
                           struct fs_rng *rng)
{
	size_t a, b;

	if (n == 1)
		return 0;
	assert(rng != NULL);
	a = (size_t)fs_rng_below(rng, n);
	b = (size_t)fs_rng_below(rng, n - 1);
	if (b >= a)
		b++;                          /* distinct from a, still uniform */
	if (cand[b].outstanding < cand[a].outstanding ||
	    (cand[b].outstanding == cand[a].outstanding && b < a))
		return b;
	return a;
}

/* True when the candidate can start another request now. */
static int has_room(const struct fs_route_candidate *c)
{
	return c->max_num_seqs > 0 && c->outstanding < (uint64_t)c->max_num_seqs;
}

/* The cheapest candidate with room; among equal prices the less loaded, then
 * the earliest.  None with room: the least outstanding.  O(n).  MODEL: R4 */
static size_t cost_aware(const struct fs_route_candidate *cand, size_t n)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		if (!has_room(&cand[i]))
			continue;
		if (best == n || cand[i].price_usd_per_h < cand[best].price_usd_per_h ||
		    (cand[i].price_usd_per_h == cand[best].price_usd_per_h &&
		     cand[i].outstanding < cand[best].outstanding))
			best = i;
	}
	return best < n ? best : least_outstanding(cand, n);
}

/* The most cached prefix blocks; ties to the fewest outstanding, then the
 * earliest.  O(n).  MODEL: R6 */
static size_t longest_prefix(const struct fs_route_candidate *cand, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (cand[i].prefix_blocks > cand[best].prefix_blocks ||
		    (cand[i].prefix_blocks == cand[best].prefix_blocks &&
		     cand[i].outstanding < cand[best].outstanding))
			best = i;
	return best;
}

/* Slot of `key` in the session map: where it is, or the empty slot where
 * it would go.  The map is never full (load <= 1/2). */
static size_t sess_slot(const struct fs_router_state *st, uint64_t key)
{
	size_t mask = st->sess_cap - 1;
	size_t i = (size_t)((key ^ (key >> 31)) * UINT64_C(0x9e3779b97f4a7c15) >> 17) & mask;

	while (st->sess_key[i] != 0 && st->sess_key[i] != key)
		i = (i + 1) & mask;
	return i;
}

static void sess_put(struct fs_router_state *st, uint64_t key, uint32_t inst)
{
	size_t i;

	if (2 * (st->sess_n + 1) > st->sess_cap) {
		uint64_t *old_key = st->sess_key;
		uint32_t *old_inst = st->sess_inst;
		size_t old_cap = st->sess_cap;

		st->sess_cap = old_cap > 0 ? 2 * old_cap : 64;
		st->sess_key = fs_xcalloc(st->sess_cap, sizeof *st->sess_key);
		st->sess_inst = fs_xcalloc(st->sess_cap, sizeof *st->sess_inst);
		for (size_t k = 0; k < old_cap; k++)
			if (old_key[k] != 0) {
				i = sess_slot(st, old_key[k]);
				st->sess_key[i] = old_key[k];
				st->sess_inst[i] = old_inst[k];
			}
		free(old_key);
		free(old_inst);
	}
	i = sess_slot(st, key);
	if (st->sess_key[i] == 0)
		st->sess_n++;
	st->sess_key[i] = key;
	st->sess_inst[i] = inst;
}

/* The candidate that took the session's latest request, if still listed;
 * else the least outstanding.  Records the choice.  O(n).  MODEL: R5 */
static size_t session_affine(const struct fs_route_candidate *cand, size_t n,
                             struct fs_router_state *st, uint64_t session)
{
	size_t pick = n;

	if (session == 0)
		return least_outstanding(cand, n);
	if (st->sess_cap > 0) {
		size_t i = sess_slot(st, session);

		if (st->sess_key[i] == session)
			for (size_t k = 0; k < n && pick == n; k++)
				if (cand[k].id == st->sess_inst[i])
					pick = k;
	}
	if (pick == n)
		pick = least_outstanding(cand, n);
	sess_put(st, session, cand[pick].id);
	return pick;
}

void fs_router_state_fini(struct fs_router_state *st)
{
	if (st == NULL)
		return;
	free(st->sess_key);
	free(st->sess_inst);
	st->sess_key = NULL;
	st->sess_inst = NULL;
	st->sess_cap = st->sess_n = 0;
}

size_t fs_router_pick(enum fs_router_kind kind, const struct fs_route_candidate *cand,
                      size_t n, struct fs_router_state *st, struct fs_rng *rng)
{
	return fs_router_pick_for(kind, cand, n, st, rng, NULL);
}

/*
 * Index into cand[0..n) of the instance that takes the request (n >= 1).
 * ROUND_ROBIN advances st->next (the position modulo the current n, so
 * instances joining or leaving never stall it); the others leave st alone.
 * rng: the routing stream, drawn from by POWER_OF_TWO only (two draws per
 * call when n >= 2).  O(n).
 */
size_t fs_router_pick_for(enum fs_router_kind kind,
                          const struct fs_route_candidate *cand, size_t n,
                          struct fs_router_state *st, struct fs_rng *rng,
                          const struct fs_route_request *req)
{
	size_t pick = 0;

	assert(n >= 1 && cand != NULL);
	switch (kind) {
	case FS_ROUTER_ROUND_ROBIN:                      /* MODEL: R1 */
		assert(st != NULL);
		pick = (size_t)(st->next % n);
		st->next++;
		break;
	case FS_ROUTER_LEAST_OUTSTANDING:                /* MODEL: R2 */
		pick = least_outstanding(cand, n);
		break;
	case FS_ROUTER_LEAST_KV:                         /* MODEL: R2 */
		pick = least_kv(cand, n);
		break;
	case FS_ROUTER_POWER_OF_TWO:
		pick = power_of_two(cand, n, rng);
		break;
	case FS_ROUTER_COST_AWARE:
		pick = cost_aware(cand, n);
		break;
	case FS_ROUTER_SESSION:
		assert(st != NULL);
		pick = session_affine(cand, n, st, req != NULL ? req->session : 0);
		break;
	case FS_ROUTER_PREFIX:
		pick = longest_prefix(cand, n);
		break;
	}
	return pick;
}
