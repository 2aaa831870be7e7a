/*
 * kvcache.c — block counting for the paged KV cache and its prefix cache
 * (see kvcache.h).  Every operation is O(1) (expected, for key lookups)
 * except allocations that evict, O(evicted).  The bound free + used + cached
 * == total is checked after each change in every build, because a violation
 * would silently overstate capacity.  With the prefix cache on, the free
 * queue (vLLM's, in the order blocks were freed) is the LRU list of cached
 * entries with, before each, a count of the empty blocks freed just before
 * it, and a count of those freed after the last one.
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

/* One keyed block.  Entries live in a pool of total_blocks slots; unused
 * slots are chained through `chain`. */
struct kv_entry {
	uint64_t key;                /* content key, 0 while the slot is unused */
	int32_t refs;                /* running requests referencing it */
	uint32_t chain;              /* next entry in the bucket (or free list) */
	uint32_t lru_prev, lru_next; /* LRU neighbours while refs == 0 */
	int64_t empty_before;        /* empty blocks just before it in the free
	                              * queue (while refs == 0) */
};

struct fs__kv_prefix {
	struct kv_entry *e;          /* total_blocks slots */
	uint32_t *bucket;            /* heads of hash chains, mask + 1 of them */
	uint32_t mask;
	uint32_t free_slot;          /* head of unused slots */
	uint32_t lru_head, lru_tail; /* least / most recently released */
	int64_t empty_tail;          /* empty blocks after lru_tail in the free
	                              * queue (all of them when it is empty) */
	int64_t referenced;          /* entries with refs > 0 */
	int64_t evictions;
};

static uint32_t bucket_of(const struct fs__kv_prefix *p, uint64_t key)
{
	return (uint32_t)((key ^ (key >> 29)) & p->mask);
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
	/* MODEL: V7 — vLLM takes the fraction of all its blocks, the null
	 * block (not counted in total_blocks, V6) included. */
	kv->watermark_blocks = (int64_t)floor(watermark_frac * (double)(total_blocks + 1));
	kv->peak_used_blocks = 0;
	kv->cached_blocks = 0;
	kv->prefix = NULL;
	kv->block_shift = -1;
	for (int sh = 0; sh < 62; sh++)
		if ((INT64_C(1) << sh) == block_tokens)
			kv->block_shift = sh;
	return 0;
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

static void evict_lru(struct fs_kvcache *kv);

/* Take n_blocks from the head of the free queue: the empty blocks before
 * the oldest cached entry, then that entry (evicted), and so on; the rest
 * from the empty blocks after the newest (MODEL: V22). */
static void take_from_free_queue(struct fs_kvcache *kv, int64_t n_blocks)
{
	struct fs__kv_prefix *p = kv->prefix;

	while (n_blocks > 0 && p->lru_head != FS_KV_NO_ENTRY) {
		struct kv_entry *h = &p->e[p->lru_head];
		int64_t take = h->empty_before < n_blocks ? h->empty_before : n_blocks;

		h->empty_before -= take;
		n_blocks -= take;
		if (n_blocks == 0)
			return;
		evict_lru(kv);
		n_blocks--;
	}
	KV_CHECK(n_blocks <= p->empty_tail, "free queue shorter than the free blocks");
	p->empty_tail -= n_blocks;
}

bool fs_kvcache_allocate(struct fs_kvcache *kv, int64_t n_blocks)
{
	KV_CHECK(n_blocks >= 0, "negative allocation");
	if (!fs_kvcache_can_allocate(kv, n_blocks))
		return false;
	if (kv->prefix != NULL)
		take_from_free_queue(kv, n_blocks);      /* MODEL: V22 */
	kv->used_blocks += n_blocks;
	KV_CHECK(kv->used_blocks + kv->cached_blocks <= kv->total_blocks,
	         "used blocks exceed total");
	if (kv->used_blocks > kv->peak_used_blocks)
		kv->peak_used_blocks = kv->used_blocks;
	return true;
}

void fs_kvcache_release(struct fs_kvcache *kv, int64_t n_blocks)
{
	KV_CHECK(n_blocks >= 0, "negative release");
	KV_CHECK(n_blocks <= kv->used_blocks - fs_kvcache_referenced_entries(kv),
	         "released more blocks than in use");
	kv->used_blocks -= n_blocks;
	if (kv->prefix != NULL)
		kv->prefix->empty_tail += n_blocks;      /* the queue's newest */
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

/* ---- prefix cache -------------------------------------------------------- */

void fs_kvcache_prefix_enable(struct fs_kvcache *kv)
{
	struct fs__kv_prefix *p;
	uint64_t n_buckets = 2;
	size_t i, n = (size_t)kv->total_blocks;

	if (kv->prefix != NULL)
		return;
	KV_CHECK(kv->total_blocks < (int64_t)UINT32_MAX / 2, "too many blocks to key");
	while (n_buckets < 2 * (uint64_t)n)
		n_buckets *= 2;
	p = fs_xcalloc(1, sizeof *p);
	p->e = fs_xmalloc(n * sizeof *p->e);
	p->bucket = fs_xmalloc((size_t)n_buckets * sizeof *p->bucket);
	p->mask = (uint32_t)(n_buckets - 1);
	for (i = 0; i < n_buckets; i++)
		p->bucket[i] = FS_KV_NO_ENTRY;
	for (i = 0; i < n; i++) {
		p->e[i].key = 0;
		p->e[i].refs = 0;
		p->e[i].chain = i + 1 < n ? (uint32_t)(i + 1) : FS_KV_NO_ENTRY;
	}
	p->free_slot = 0;
	p->lru_head = p->lru_tail = FS_KV_NO_ENTRY;
	p->empty_tail = kv->total_blocks - kv->used_blocks;
	kv->prefix = p;
}

void fs_kvcache_fini(struct fs_kvcache *kv)
{
	if (kv == NULL || kv->prefix == NULL)
		return;
	KV_CHECK(kv->prefix->referenced == 0 || kv->used_blocks > 0,
	         "referenced entries without used blocks");
	free(kv->prefix->e);
	free(kv->prefix->bucket);
	free(kv->prefix);
	kv->prefix = NULL;
	kv->cached_blocks = 0;
}

bool fs_kvcache_prefix_on(const struct fs_kvcache *kv)
{
	return kv->prefix != NULL;
}

uint32_t fs_kvcache_prefix_find(const struct fs_kvcache *kv, uint64_t key)
{
	const struct fs__kv_prefix *p = kv->prefix;
	uint32_t i;

	if (p == NULL || key == 0)
		return FS_KV_NO_ENTRY;
	for (i = p->bucket[bucket_of(p, key)]; i != FS_KV_NO_ENTRY; i = p->e[i].chain)
		if (p->e[i].key == key)
			return i;
	return FS_KV_NO_ENTRY;
}

int32_t fs_kvcache_prefix_refs(const struct fs_kvcache *kv, uint32_t entry)
{
	return kv->prefix->e[entry].refs;
}

/* Take entry i off the free queue; the empty blocks before it stay where
 * they were, now before its successor. */
static void lru_unlink(struct fs__kv_prefix *p, uint32_t i)
{
	struct kv_entry *x = &p->e[i];

	if (x->lru_next != FS_KV_NO_ENTRY)
		p->e[x->lru_next].empty_before += x->empty_before;
	else
		p->empty_tail += x->empty_before;
	x->empty_before = 0;
	if (x->lru_prev != FS_KV_NO_ENTRY)
		p->e[x->lru_prev].lru_next = x->lru_next;
	else
		p->lru_head = x->lru_next;
	if (x->lru_next != FS_KV_NO_ENTRY)
		p->e[x->lru_next].lru_prev = x->lru_prev;
	else
		p->lru_tail = x->lru_prev;
}

static void lru_append(struct fs__kv_prefix *p, uint32_t i)
{
	p->e[i].empty_before = p->empty_tail;
	p->empty_tail = 0;
	p->e[i].lru_prev = p->lru_tail;
	p->e[i].lru_next = FS_KV_NO_ENTRY;
	if (p->lru_tail != FS_KV_NO_ENTRY)
		p->e[p->lru_tail].lru_next = i;
	else
		p->lru_head = i;
	p->lru_tail = i;
}

/* Take entry i out of its hash chain and return its slot to the pool. */
static void entry_drop(struct fs__kv_prefix *p, uint32_t i)
{
	uint32_t *link = &p->bucket[bucket_of(p, p->e[i].key)];

	while (*link != i) {
		KV_CHECK(*link != FS_KV_NO_ENTRY, "entry missing from its chain");
		link = &p->e[*link].chain;
	}
	*link = p->e[i].chain;
	p->e[i].key = 0;
	p->e[i].chain = p->free_slot;
	p->free_slot = i;
}

/* Evict the least recently released cached block: it becomes free, at the
 * head of the free queue (its caller takes it at once or it is a flush). */
static void evict_lru(struct fs_kvcache *kv)
{
	struct fs__kv_prefix *p = kv->prefix;
	uint32_t i;

	KV_CHECK(p != NULL && p->lru_head != FS_KV_NO_ENTRY, "nothing to evict");
	i = p->lru_head;
	lru_unlink(p, i);
	entry_drop(p, i);
	kv->cached_blocks--;
	p->evictions++;
}

void fs_kvcache_prefix_acquire(struct fs_kvcache *kv, uint32_t entry)
{
	struct fs__kv_prefix *p = kv->prefix;
	struct kv_entry *x = &p->e[entry];

	KV_CHECK(x->key != 0 && x->refs >= 0, "acquire of an unused entry");
	if (x->refs++ > 0)
		return;
	lru_unlink(p, entry);
	p->referenced++;
	kv->cached_blocks--;
	kv->used_blocks++;
	KV_CHECK(kv->cached_blocks >= 0 && kv->used_blocks <= kv->total_blocks,
	         "cached block count out of range");
	if (kv->used_blocks > kv->peak_used_blocks)
		kv->peak_used_blocks = kv->used_blocks;
}

void fs_kvcache_prefix_release(struct fs_kvcache *kv, uint32_t entry)
{
	struct fs__kv_prefix *p = kv->prefix;
	struct kv_entry *x = &p->e[entry];

	KV_CHECK(x->key != 0 && x->refs > 0, "release of an unreferenced entry");
	if (--x->refs > 0)
		return;
	lru_append(p, entry);
	p->referenced--;
	KV_CHECK(kv->used_blocks >= 1, "released more blocks than in use");
	kv->used_blocks--;
	kv->cached_blocks++;
}

uint32_t fs_kvcache_prefix_insert(struct fs_kvcache *kv, uint64_t key)
{
	struct fs__kv_prefix *p = kv->prefix;
	uint32_t i, b;

	KV_CHECK(p != NULL && key != 0, "insert without a prefix cache or key");
	KV_CHECK(fs_kvcache_prefix_find(kv, key) == FS_KV_NO_ENTRY, "key cached twice");
	KV_CHECK(p->referenced < kv->used_blocks, "insert of a block nobody holds");
	i = p->free_slot;
	KV_CHECK(i != FS_KV_NO_ENTRY, "more entries than blocks");
	p->free_slot = p->e[i].chain;
	b = bucket_of(p, key);
	p->e[i].key = key;
	p->e[i].refs = 1;
	p->e[i].empty_before = 0;
	p->e[i].chain = p->bucket[b];
	p->bucket[b] = i;
	p->referenced++;
	return i;
}

void fs_kvcache_prefix_flush(struct fs_kvcache *kv)
{
	while (kv->prefix != NULL && kv->prefix->lru_head != FS_KV_NO_ENTRY) {
		evict_lru(kv);
		kv->prefix->evictions--;             /* a flush is not an eviction */
	}
	if (kv->prefix != NULL)          /* the evicted blocks are empty now */
		kv->prefix->empty_tail = kv->total_blocks - kv->used_blocks;
}

int64_t fs_kvcache_cached(const struct fs_kvcache *kv)
{
	return kv->cached_blocks;
}

int64_t fs_kvcache_evictions(const struct fs_kvcache *kv)
{
	return kv->prefix != NULL ? kv->prefix->evictions : 0;
}

int64_t fs_kvcache_referenced_entries(const struct fs_kvcache *kv)
{
	return kv->prefix != NULL ? kv->prefix->referenced : 0;
}

int64_t fs_kvcache_prefix_total_refs(const struct fs_kvcache *kv)
{
	int64_t sum = 0;

	for (int64_t i = 0; kv->prefix != NULL && i < kv->total_blocks; i++)
		if (kv->prefix->e[i].key != 0)
			sum += kv->prefix->e[i].refs;
	return sum;
}

int fs_kvcache_check(const struct fs_kvcache *kv)
{
	const struct fs__kv_prefix *p = kv->prefix;
	int64_t n_lru = 0, n_ref = 0, n_empty;
	uint32_t i, prev = FS_KV_NO_ENTRY;

	if (kv->used_blocks < 0 || kv->cached_blocks < 0 ||
	    kv->used_blocks + kv->cached_blocks > kv->total_blocks)
		return -1;
	if (p == NULL)
		return kv->cached_blocks == 0 ? 0 : -1;
	n_empty = p->empty_tail;
	for (i = p->lru_head; i != FS_KV_NO_ENTRY; prev = i, i = p->e[i].lru_next) {
		if (p->e[i].refs != 0 || p->e[i].lru_prev != prev ||
		    fs_kvcache_prefix_find(kv, p->e[i].key) != i)
			return -1;
		if (++n_lru > kv->total_blocks || p->e[i].empty_before < 0)
			return -1;
		n_empty += p->e[i].empty_before;
	}
	if (prev != p->lru_tail || n_lru != kv->cached_blocks || p->empty_tail < 0 ||
	    n_empty != kv->total_blocks - kv->used_blocks - kv->cached_blocks)
		return -1;
	for (i = 0; i < (uint32_t)kv->total_blocks; i++)
		if (p->e[i].key != 0 && p->e[i].refs > 0) {
			if (fs_kvcache_prefix_find(kv, p->e[i].key) != i)
				return -1;
			n_ref++;
		}
	return n_ref == p->referenced && n_ref <= kv->used_blocks ? 0 : -1;
}
