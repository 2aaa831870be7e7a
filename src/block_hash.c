/*
 * block_hash.c — block keys for prefix caching (see block_hash.h).  Pure
 * functions of their arguments: a SplitMix64 finaliser mixes (salt or
 * session, unit, block) into 64-bit keys.  0 is reserved for "no key".
 */
#include "fleetsim/block_hash.h"

#include <assert.h>
#include <stddef.h>

/* SplitMix64's finaliser: a bijection on 64 bits with good avalanche. */
static uint64_t mix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static uint64_t nonzero(uint64_t x)
{
	return x != 0 ? x : 1;
}

/* The key of session id `session` (never 0, so 0 can mean "none"). */
static uint64_t session_key(uint64_t session)
{
	return nonzero(mix64(session ^ UINT64_C(0x5e55105e55105e55)));
}

/* Unit u of the session whose key is `key`. */
static uint64_t session_unit(uint64_t key, uint32_t u)
{
	return nonzero(mix64(key + u));
}

uint64_t fs_block_hash_session_unit(uint64_t session, uint32_t u)
{
	return session_unit(session_key(session), u);
}

void fs_block_hashes_session(struct fs_block_hashes *h, uint64_t session,
                             int64_t shared_tokens, uint32_t unit_tokens)
{
	int64_t n;

	assert(unit_tokens >= 1 && shared_tokens >= 0);
	n = shared_tokens / unit_tokens;
	h->ids = NULL;
	h->salt = 0;
	h->session = session_key(session);
	h->n_units = n > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	h->unit_tokens = unit_tokens;
}

/* Hash of unit u (u < n_units). */
static uint64_t unit_hash(const struct fs_block_hashes *h, uint32_t u)
{
	if (h->ids != NULL)
		return mix64(h->salt ^ mix64(h->ids[u]));
	return session_unit(h->session, u);
}

int64_t fs_block_hash_n_blocks(const struct fs_block_hashes *h,
                               int64_t block_tokens, int64_t num_tokens)
{
	int64_t covered;

	if (h == NULL || h->n_units == 0 || (h->ids == NULL && h->session == 0))
		return 0;
	covered = (int64_t)h->n_units * h->unit_tokens;
	if (covered > num_tokens)
		covered = num_tokens;
	return covered / block_tokens;
}

uint64_t fs_block_hash_key(const struct fs_block_hashes *h, int64_t b,
                           int64_t block_tokens, int64_t num_tokens)
{
	int64_t last_token;

	if (b < 0 || b >= fs_block_hash_n_blocks(h, block_tokens, num_tokens))
		return 0;
	last_token = (b + 1) * block_tokens - 1;
	/* MODEL: V23 — the unit holding the block's last token pins the prefix. */
	return nonzero(mix64(unit_hash(h, (uint32_t)(last_token / h->unit_tokens)) +
	                     (uint64_t)b));
}

uint64_t fs_block_hash_salt(const char *s)
{
	uint64_t x = UINT64_C(0xcbf29ce484222325);

	for (; s != NULL && *s != '\0'; s++) {
		x ^= (unsigned char)*s;
		x *= UINT64_C(0x100000001b3);
	}
	return x;
}
