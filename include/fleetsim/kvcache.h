/*
 * kvcache.h — the paged KV-cache block pool of one replica: N blocks of B
 * tokens.  It counts used and free blocks only (no block ids, no prefix
 * cache); the engine tracks how many blocks each sequence holds.  Invariant,
 * checked always (not only in debug builds): 0 <= used_blocks <= total_blocks.
 * The struct is caller-owned (embed it; _init, no _fini needed); no heap use.
 */
#ifndef FLEETSIM_KVCACHE_H
#define FLEETSIM_KVCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/common.h"

#define FS_KV_BLOCK_TOKENS_DEFAULT 16    /* vLLM on CUDA (vllm_semantics §2) */

struct fs_kvcache {
	int64_t total_blocks;        /* usable blocks (null block already taken out) */
	int64_t block_tokens;        /* tokens per block, B */
	int64_t used_blocks;         /* held by sequences now */
	int64_t watermark_blocks;    /* admissions must leave this many free */
	int64_t peak_used_blocks;    /* high-water mark of used_blocks */
};

/*
 * Set up an empty pool of `total_blocks` usable blocks of `block_tokens`
 * tokens each.  `watermark_frac` in [0, 1) is the fraction of blocks that
 * new admissions must leave free (vLLM 2026 `watermark`, default 0); it is
 * rounded down to whole blocks.  Returns 0, or -1 with `err` filled (may be
 * NULL) when total_blocks < 1, block_tokens < 1 or the fraction is out of
 * range; `kv` is untouched on failure.
 */
int fs_kvcache_init(struct fs_kvcache *kv, int64_t total_blocks,
                    int64_t block_tokens, double watermark_frac,
                    struct fs_error *err);

/* Blocks needed to hold `tokens` (>= 0) tokens: ceil(tokens / B). */
int64_t fs_kvcache_blocks_for_tokens(const struct fs_kvcache *kv, int64_t tokens);

/* True when `n_blocks` (>= 0) more blocks are free now. */
bool fs_kvcache_can_allocate(const struct fs_kvcache *kv, int64_t n_blocks);

/* True when `n_blocks` more blocks can be taken and still leave the
 * watermark free (free - n >= watermark_blocks). */
bool fs_kvcache_can_allocate_watermark(const struct fs_kvcache *kv,
                                       int64_t n_blocks);

/* Take `n_blocks` (>= 0) blocks.  Returns false and changes nothing when
 * fewer are free. */
bool fs_kvcache_allocate(struct fs_kvcache *kv, int64_t n_blocks);

/* Give back `n_blocks` (>= 0) blocks.  Releasing more than are in use is a
 * bug: it aborts with a message (always on). */
void fs_kvcache_release(struct fs_kvcache *kv, int64_t n_blocks);

/* Blocks in use, free, and in total. */
int64_t fs_kvcache_used(const struct fs_kvcache *kv);
int64_t fs_kvcache_free_blocks(const struct fs_kvcache *kv);
int64_t fs_kvcache_total(const struct fs_kvcache *kv);

#endif
