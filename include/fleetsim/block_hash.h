/*
 * block_hash.h — the content hashes of a request's KV blocks, for prefix
 * caching (MODEL: V23).  A request carries a compact descriptor, not an array
 * of its own: trace replays point into the trace's id array (owned by the
 * trace, which outlives every request), sessions derive block i of session s
 * as a pure function of (s, i), so nothing is allocated per request and
 * nothing must be freed when a request finishes.
 */
#ifndef FLEETSIM_BLOCK_HASH_H
#define FLEETSIM_BLOCK_HASH_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Hashes of the first n_units * unit_tokens tokens of a request, one per
 * `unit_tokens` tokens.  Units are prefix-chained: equal unit hashes u mean
 * equal token content from token 0 up to the end of unit u.  Either
 * `ids` (n_units entries, borrowed) or, when ids is NULL and session != 0,
 * unit u is fs_block_hash_session_unit(s, u) of the session id s whose key
 * `session` holds.  n_units == 0: the request carries no hashes and is
 * never cached or looked up.  `session` also tells the session router which
 * session the request belongs to.
 */
struct fs_block_hashes {
	const uint64_t *ids;         /* per-unit ids (borrowed), or NULL */
	uint64_t salt;               /* namespace of ids (per trace file) */
	uint64_t session;            /* key of the session id (set by
	                              * fs_block_hashes_session; 0: none) */
	uint32_t n_units;            /* units described */
	uint32_t unit_tokens;        /* tokens per unit (>= 1 when n_units > 0) */
};

/* Hash of unit u of session `session` (chained: it stands for the session's
 * whole history up to the end of unit u).  Pure; never returns 0. */
uint64_t fs_block_hash_session_unit(uint64_t session, uint32_t u);

/*
 * Fill *h for a request of session id `session` (any value) whose first
 * `shared_tokens` tokens repeat the session's history (earlier turns'
 * prompts and answers), in units of `unit_tokens` (use the engine's block
 * size, 16 by default; any size works).  Only whole units are described:
 * n_units = shared_tokens / unit_tokens.  A turn's own new tokens are
 * described by passing the history length it will leave behind
 * (prompt + output tokens) — the engine only uses units inside the tokens a
 * request actually has.
 */
void fs_block_hashes_session(struct fs_block_hashes *h, uint64_t session,
                             int64_t shared_tokens, uint32_t unit_tokens);

/*
 * The cache key of engine block b (tokens [b*B, (b+1)*B)) of a request with
 * `num_tokens` tokens, or 0 when the block is not full or not covered by
 * the units.  The key mixes the hash of the unit holding the block's last
 * token with b, so equal keys mean equal prefixes through the block
 * (MODEL: V23).  O(1).
 */
uint64_t fs_block_hash_key(const struct fs_block_hashes *h, int64_t b,
                           int64_t block_tokens, int64_t num_tokens);

/* Number of full engine blocks of B tokens with a key (the longest b + 1
 * for which fs_block_hash_key is non-zero), for a request of num_tokens. */
int64_t fs_block_hash_n_blocks(const struct fs_block_hashes *h,
                               int64_t block_tokens, int64_t num_tokens);

/* 64-bit FNV-1a of a string, the salt of a trace file's ids. */
uint64_t fs_block_hash_salt(const char *s);

#endif
