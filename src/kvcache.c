/*
 * kvcache.c — block counting for the paged KV cache (see kvcache.h).  Every
 * operation is O(1).  The bound used <= total is checked after each change in
 * every build, because a violation would silently overstate capacity.
 */
#include "fleetsim/kvcache.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define KV_CHECK(cond, what) \
	do { if (!(cond)) kv_fail((what), __FILE__, __LINE__); } while (0)

static void kv_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "fleetsim: internal error at %s:%d: kv cache: %s\n",
	        file, line, what);
	abort();
}

int fs_kvcache_init(struct fs_kvcache *kv, int64_t total_blocks,
                    int64_t block_tokens, double watermark_frac,
                    struct fs_error *err)
{
	if (total_blocks < 1)
		return fs_error_set(err, NULL, "kv_blocks",
		                    "expected at least 1 KV block, got %lld",
		                    (long long)total_blocks);
	if (block_tokens < 1)
		return fs_error_set(err, NULL, "block_tokens",
		                    "expected at least 1 token per block, got %lld",
		                    (long long)block_tokens);
	if (!(watermark_frac >= 0.0 && watermark_frac < 1.0))
		return fs_error_set(err, NULL, "kv_watermark",
		                    "expected a fraction in [0, 1), got %g",
		                    watermark_frac);
	kv->total_blocks = total_blocks;
	kv->block_tokens = block_tokens;
	kv->used_blocks = 0;
	kv->watermark_blocks = (int64_t)floor(watermark_frac * (double)total_blocks);
	kv->peak_used_blocks = 0;
	return 0;
}

int64_t fs_kvcache_blocks_for_tokens(const struct fs_kvcache *kv, int64_t tokens)
{
	assert(tokens >= 0);
	return (tokens + kv->block_tokens - 1) / kv->block_tokens;
}

bool fs_kvcache_can_allocate(const struct fs_kvcache *kv, int64_t n_blocks)
{
	assert(n_blocks >= 0);
	return n_blocks <= kv->total_blocks - kv->used_blocks;
}

bool fs_kvcache_can_allocate_watermark(const struct fs_kvcache *kv,
                                       int64_t n_blocks)
{
	assert(n_blocks >= 0);
	return kv->total_blocks - kv->used_blocks - n_blocks >= kv->watermark_blocks;
}

bool fs_kvcache_allocate(struct fs_kvcache *kv, int64_t n_blocks)
{
	KV_CHECK(n_blocks >= 0, "negative allocation");
	if (!fs_kvcache_can_allocate(kv, n_blocks))
		return false;
	kv->used_blocks += n_blocks;
	KV_CHECK(kv->used_blocks <= kv->total_blocks, "used blocks exceed total");
	if (kv->used_blocks > kv->peak_used_blocks)
		kv->peak_used_blocks = kv->used_blocks;
	return true;
}

void fs_kvcache_release(struct fs_kvcache *kv, int64_t n_blocks)
{
	KV_CHECK(n_blocks >= 0, "negative release");
	KV_CHECK(n_blocks <= kv->used_blocks, "released more blocks than in use");
	kv->used_blocks -= n_blocks;
}

int64_t fs_kvcache_used(const struct fs_kvcache *kv)
{
	return kv->used_blocks;
}

int64_t fs_kvcache_free_blocks(const struct fs_kvcache *kv)
{
	return kv->total_blocks - kv->used_blocks;
}

int64_t fs_kvcache_total(const struct fs_kvcache *kv)
{
	return kv->total_blocks;
}
