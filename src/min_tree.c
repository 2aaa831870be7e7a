/*
 * min_tree.c — the least of a set of keyed slots at a tournament tree's root
 * (see min_tree.h).  Invariant: for every internal node k, win[k] is the
 * lesser of win[2k] and win[2k + 1] by (key, slot).  A taken slot's leaf
 * keeps its key (the tree stays consistent with it) until the next peek
 * clears it or a set of the same slot replaces it.
 */
#include "fleetsim/min_tree.h"

#include <assert.h>
#include <stdlib.h>

#include "fleetsim/common.h"

#define NO_SLOT UINT32_MAX

void fs_min_tree_init(struct fs_min_tree *t)
{
	t->key = NULL;
	t->win = NULL;
	t->leaves = 0;
	t->taken = NO_SLOT;
}

void fs_min_tree_fini(struct fs_min_tree *t)
{
	free(t->key);
	free(t->win);
	fs_min_tree_init(t);
}

/* Replay leaf i's path to the root.  The sibling's winner s goes before the
 * winner w carried up when its key is less, or equal with a smaller slot:
 * when node k is a right child, its sibling's slots are all below its own,
 * so s goes first at ks <= kw, i.e. ks - 1 < kw (keys are >= 0); at a left
 * child only at ks < kw.  Selected by masks: the outcome is a coin toss,
 * which the compiler would otherwise turn into a mispredicted branch. */
static void replay(struct fs_min_tree *t, uint32_t i)
{
	const int64_t *key = t->key;
	uint32_t *win = t->win;
	uint32_t k = t->leaves + i, w = i;
	int64_t kw = key[i];

	while (k > 1) {
		uint32_t s = win[k ^ 1];
		int64_t ks = key[s];
		uint64_t m = -(uint64_t)(ks - (int64_t)(k & 1) < kw);

		w ^= (w ^ s) & (uint32_t)m;
		kw ^= (int64_t)(((uint64_t)kw ^ (uint64_t)ks) & m);
		k >>= 1;
		win[k] = w;
	}
}

/* Every internal node from its children, the leaves up.  O(leaves). */
static void rebuild(struct fs_min_tree *t)
{
	uint32_t n = t->leaves, k;

	for (k = n - 1; k >= 1; k--) {
		uint32_t a = t->win[2 * k], b = t->win[2 * k + 1];

		/* a's slots are all below b's: a wins ties */
		t->win[k] = t->key[b] < t->key[a] ? b : a;
	}
}

/* Room for `need` slots: the leaves double until they hold them.  Rare, so
 * kept out of fs_min_tree_set's way. */
__attribute__((noinline, cold))
static void grow(struct fs_min_tree *t, size_t need)
{
	uint32_t old = t->leaves, n = old > 0 ? old : 4, j;

	while (n < need) {
		if (n > UINT32_MAX / 4)
			abort();             /* 2^30 slots: never in a world */
		n *= 2;
	}
	t->key = fs_xrealloc(t->key, (size_t)n * sizeof *t->key);
	t->win = fs_xrealloc(t->win, 2 * (size_t)n * sizeof *t->win);
	for (j = old; j < n; j++)
		t->key[j] = FS_MIN_TREE_NONE;
	t->leaves = n;
	for (j = 0; j < n; j++)
		t->win[n + j] = j;
	rebuild(t);
}

void fs_min_tree_set(struct fs_min_tree *t, uint32_t i, int64_t key)
{
	assert(key >= 0 && key < FS_MIN_TREE_NONE);
	if (i >= t->leaves)
		grow(t, (size_t)i + 1);
	if (i == t->taken)
		t->taken = NO_SLOT;
	t->key[i] = key;
	replay(t, i);
}

void fs_min_tree_clear(struct fs_min_tree *t, uint32_t i)
{
	if (i == t->taken)
		t->taken = NO_SLOT;
	if (i >= t->leaves || t->key[i] == FS_MIN_TREE_NONE)
		return;
	t->key[i] = FS_MIN_TREE_NONE;
	replay(t, i);
}

void fs_min_tree_build(struct fs_min_tree *t, const int64_t *keys, size_t n)
{
	size_t j;

	if (n > t->leaves)
		grow(t, n);
	for (j = 0; j < t->leaves; j++) {
		assert(j >= n || (keys[j] >= 0 && keys[j] < FS_MIN_TREE_NONE));
		t->key[j] = j < n ? keys[j] : FS_MIN_TREE_NONE;
	}
	t->taken = NO_SLOT;
	rebuild(t);
}

bool fs_min_tree_pending(const struct fs_min_tree *t, uint32_t i)
{
	return i < t->leaves && i != t->taken && t->key[i] != FS_MIN_TREE_NONE;
}

bool fs_min_tree_peek(struct fs_min_tree *t, int64_t *key, uint32_t *i)
{
	uint32_t w;

	if (t->taken != NO_SLOT)
		fs_min_tree_clear(t, t->taken);
	if (t->leaves == 0)
		return false;
	w = t->win[1];
	if (t->key[w] == FS_MIN_TREE_NONE)
		return false;
	*key = t->key[w];
	*i = w;
	return true;
}

void fs_min_tree_take(struct fs_min_tree *t, uint32_t i)
{
	assert(t->taken == NO_SLOT && i < t->leaves && t->win[1] == i &&
	       t->key[i] != FS_MIN_TREE_NONE);
	t->taken = i;
}
