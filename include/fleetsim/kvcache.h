/*
 * kvcache.h — the paged KV-cache block pool of one replica: N blocks of B
 * tokens.  It counts blocks; the engine tracks how many each sequence holds.
 * With the optional prefix cache (MODEL: V22) full blocks are also kept by
 * content key: a block is free (no content), used (referenced by running
 * requests; a shared block counts once) or cached (unreferenced, keyed,
 * evictable in LRU order).  Invariant, checked always (not only in debug
 * builds): free + used + cached == total, each >= 0.  The struct is
 * caller-owned (embed it; _init, then _fini once the prefix cache was on).
 */
#ifndef FLEETSIM_KVCACHE_H
#define FLEETSIM_KVCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/common.h"

#define FS_KV_BLOCK_TOKENS_DEFAULT 16    /* vLLM on CUDA (vllm_semantics §2) */

struct fs__kv_prefix;

struct fs_kvcache {
	int64_t total_blocks;        /* usable blocks (null block already taken out) */
	int64_t block_tokens;        /* tokens per block, B */
	int64_t used_blocks;         /* held by sequences now */
	int64_t watermark_blocks;    /* admissions must leave this many free */
	int64_t peak_used_blocks;    /* high-water mark of used_blocks */
	int64_t cached_blocks;       /* unreferenced keyed blocks (evictable) */
	struct fs__kv_prefix *prefix;/* the prefix cache, NULL when off (owned) */
	int block_shift;             /* log2(B) when B is a power of two, else -1 */
};

#define FS_KV_NO_ENTRY UINT32_MAX

/*
 * Set up an empty pool of `total_blocks` usable blocks of `block_tokens`
 * tokens each.  `watermark_frac` in [0, 1) is the fraction of blocks that
 * new admissions must leave free (vLLM 2026 `watermark`, default 0), taken
 * of total_blocks + 1 (vLLM counts its null block) and rounded down.  Returns 0, or -1 with `err` filled (may be
 * NULL) when total_blocks < 1, block_tokens < 1 or the fraction is out of
 * range; `kv` is untouched on failure.
 */
int fs_kvcache_init(struct fs_kvcache *kv, int64_t total_blocks,
                    int64_t block_tokens, double watermark_frac,
                    struct fs_error *err);

/* Blocks needed to hold `tokens` (>= 0) tokens: ceil(tokens / B).  Inline,
 * a shift for the usual power-of-two B: it runs per request per step. */
static inline int64_t fs_kvcache_blocks_for_tokens(const struct fs_kvcache *kv,
                                                   int64_t tokens)
{
	if (kv->block_shift >= 0)
		return (tokens + kv->block_tokens - 1) >> kv->block_shift;
	return (tokens + kv->block_tokens - 1) / kv->block_tokens;
}

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

/* Blocks in use, free (including evictable cached ones), and in total. */
int64_t fs_kvcache_used(const struct fs_kvcache *kv);
int64_t fs_kvcache_free_blocks(const struct fs_kvcache *kv);
int64_t fs_kvcache_total(const struct fs_kvcache *kv);

/* ---- prefix cache (MODEL: V22) ------------------------------------------
 * Entries are blocks with a content key (never 0), one entry per key.  An
 * entry with references counts in used_blocks; without, in cached_blocks,
 * on an LRU list.  Free blocks, empty or cached, form one queue in the
 * order they were freed (vLLM's free block queue); fs_kvcache_allocate
 * takes its head, evicting the cached entries it reaches.  Lookups are
 * O(1) expected (chained hash table sized 2x the blocks); nothing is
 * allocated after enable. */

/* Turn the prefix cache on (allocates its table once).  Idempotent. */
void fs_kvcache_prefix_enable(struct fs_kvcache *kv);

/* Free what fs_kvcache_prefix_enable allocated; the pool stays usable
 * with the cache off.  NULL-safe on a zeroed struct. */
void fs_kvcache_fini(struct fs_kvcache *kv);

/* Whether the prefix cache is on. */
bool fs_kvcache_prefix_on(const struct fs_kvcache *kv);

/* The entry holding `key`, or FS_KV_NO_ENTRY. */
uint32_t fs_kvcache_prefix_find(const struct fs_kvcache *kv, uint64_t key);

/* References held on an entry (0: cached, evictable). */
int32_t fs_kvcache_prefix_refs(const struct fs_kvcache *kv, uint32_t entry);

/* Take a reference on an entry; one without references leaves the LRU
 * list and moves from cached to used. */
void fs_kvcache_prefix_acquire(struct fs_kvcache *kv, uint32_t entry);

/* Drop a reference; at zero the entry becomes the most recently used
 * cached block.  Releasing an unreferenced entry aborts (a bug). */
void fs_kvcache_prefix_release(struct fs_kvcache *kv, uint32_t entry);

/* Give one block the caller already holds (counted in used) the content
 * key `key` (absent from the cache): it becomes an entry with one
 * reference.  Returns the entry. */
uint32_t fs_kvcache_prefix_insert(struct fs_kvcache *kv, uint64_t key);

/* Drop every unreferenced entry (their blocks become free). */
void fs_kvcache_prefix_flush(struct fs_kvcache *kv);

/* Cached (unreferenced, keyed) blocks, blocks evicted so far, and entries
 * with at least one reference. */
int64_t fs_kvcache_cached(const struct fs_kvcache *kv);
int64_t fs_kvcache_evictions(const struct fs_kvcache *kv);
int64_t fs_kvcache_referenced_entries(const struct fs_kvcache *kv);

/* Sum of references over all entries, O(total); for checks. */
int64_t fs_kvcache_prefix_total_refs(const struct fs_kvcache *kv);

/* Full consistency check for tests, O(total): free + used + cached ==
 * total, the LRU list holds exactly the cached entries, each reachable by
 * its key, and referenced entries fit in used.  Returns 0 or -1. */
int fs_kvcache_check(const struct fs_kvcache *kv);

#endif
