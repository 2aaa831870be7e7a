/*
 * llm_prefix.c — automatic prefix caching for the LLM replica (MODEL: V22,
 * vllm_semantics §1.6): lookup of the longest cached prefix at admission,
 * caching of full blocks when a step schedules them, tail-first release,
 * and the conservation check tests call.  A request's cached blocks are always its
 * leading blocks; their entries are found again by key, so requests store no
 * block ids.  Lookups are O(matched blocks) hash probes.
 */
#include "fleetsim/llm_engine.h"

#include <string.h>

#include "llm_engine_internal.h"

/* Longest cached prefix, in blocks, of a request with `num` tokens. */
static int64_t match(const struct fs_kvcache *kv, const struct fs_block_hashes *h,
                     int64_t num, int64_t *revive)
{
	int64_t b, max_hit = (num - 1) / kv->block_tokens;   /* one token computed */

	for (b = 0; b < max_hit; b++) {
		uint32_t ent = fs_kvcache_prefix_find(kv, fs_block_hash_key(h, b,
		                                      kv->block_tokens, num));

		if (ent == FS_KV_NO_ENTRY)
			break;
		if (revive != NULL && fs_kvcache_prefix_refs(kv, ent) == 0)
			(*revive)++;
	}
	return b;
}

int64_t fs__llm_prefix_lookup(const struct fs_llm_engine *e, const struct llm_seq *s,
                              int64_t *revive)
{
	*revive = 0;
	if (!fs_kvcache_prefix_on(&e->kv) || s->hashes.n_units == 0)
		return 0;
	return match(&e->kv, &s->hashes, fs__llm_num_tokens(s), revive);
}

void fs__llm_prefix_take(struct fs_llm_engine *e, struct llm_seq *s, int64_t hit)
{
	int64_t b, num = fs__llm_num_tokens(s), bt = e->kv.block_tokens;

	for (b = 0; b < hit; b++)
		fs_kvcache_prefix_acquire(&e->kv, fs_kvcache_prefix_find(&e->kv,
		                          fs_block_hash_key(&s->hashes, b, bt, num)));
	s->cached_blocks = hit;
	if (!s->admitted_once && s->hashes.n_units > 0) {    /* MODEL: V22 */
		e->step_prefix.query_tokens += num;
		e->step_prefix.query_blocks += num / bt;
		e->step_prefix.hit_tokens += hit * bt;
		e->step_prefix.hit_blocks += hit;
	}
	e->step_prefix.saved_tokens += hit * bt;
}

void fs__llm_prefix_commit(struct fs_llm_engine *e, struct llm_seq *s, int64_t tokens)
{
	int64_t bt = e->kv.block_tokens;

	if (s->cache_stop || s->hashes.n_units == 0 || !fs_kvcache_prefix_on(&e->kv))
		return;
	while (s->cached_blocks < s->kv_blocks) {
		uint64_t key = fs_block_hash_key(&s->hashes, s->cached_blocks, bt, tokens);

		if (key == 0)
			return;                /* not full yet, or no hash for it */
		if (fs_kvcache_prefix_find(&e->kv, key) != FS_KV_NO_ENTRY) {
			s->cache_stop = true;  /* computed twice at once: keep one */
			return;
		}
		fs_kvcache_prefix_insert(&e->kv, key);
		s->cached_blocks++;
	}
}

void fs__llm_seq_free_blocks(struct fs_llm_engine *e, struct llm_seq *s)
{
	int64_t b, bt = e->kv.block_tokens;

	LLM_CHECK(s->cached_blocks <= s->kv_blocks, "more cached than held blocks");
	fs_kvcache_release(&e->kv, s->kv_blocks - s->cached_blocks);
	/* vLLM frees a request's blocks in reverse, so the prefix is evicted
	 * last (vllm_semantics §1.6). */
	for (b = s->cached_blocks; b-- > 0;)
		fs_kvcache_prefix_release(&e->kv, fs_kvcache_prefix_find(&e->kv,
		                          fs_block_hash_key(&s->hashes, b, bt, INT64_MAX)));
	s->kv_blocks = 0;
	s->cached_blocks = 0;
	s->cache_stop = false;
}

int64_t fs_llm_engine_prefix_match(const struct fs_llm_engine *e,
                                   const struct fs_block_hashes *hashes,
                                   int64_t num_tokens)
{
	if (hashes == NULL || hashes->n_units == 0 || num_tokens < 1 ||
	    !fs_kvcache_prefix_on(&e->kv))
		return 0;
	return match(&e->kv, hashes, num_tokens, NULL);
}

int64_t fs_llm_engine_kv_cached(const struct fs_llm_engine *e)
{
	return fs_kvcache_cached(&e->kv);
}

int fs_llm_engine_kv_check(const struct fs_llm_engine *e)
{
	int64_t priv = 0, refs = 0;
	size_t i;

	if (e->run.open)
		return fs_kvcache_check(&e->kv);    /* per-request blocks are not written back yet */
	if (fs_kvcache_check(&e->kv) != 0)
		return -1;
	for (i = 0; i < e->n_running; i++) {
		const struct llm_seq *s = &e->seqs[e->running[i]];

		if (s->cached_blocks < 0 || s->cached_blocks > s->kv_blocks)
			return -1;
		priv += s->kv_blocks - s->cached_blocks;
		refs += s->cached_blocks;
	}
	for (i = 0; i < e->n_waiting; i++)
		if (e->seqs[e->waiting[i]].kv_blocks != 0 ||
		    e->seqs[e->waiting[i]].cached_blocks != 0)
			return -1;
	if (fs_kvcache_used(&e->kv) != priv + fs_kvcache_referenced_entries(&e->kv))
		return -1;
	return fs_kvcache_prefix_total_refs(&e->kv) == refs ? 0 : -1;
}
