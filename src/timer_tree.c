/*
 * timer_tree.c — one pending time per index, the earliest at the root (see
 * timer_tree.h).  Invariant: for every internal node k, win[k] is the
 * earlier of win[2k] and win[2k + 1] by (t_ns, index).  A taken timer's
 * leaf keeps its time (the tree stays consistent with it) until the next
 * peek clears it or a set of the same index replaces it.
 */
#include "fleetsim/timer_tree.h"

#include <assert.h>
#include <stdlib.h>

#define NONE UINT32_MAX

void fs_timer_tree_init(struct fs_timer_tree *tt)
{
	tt->t_ns = NULL;
	tt->win = NULL;
	tt->leaves = 0;
	tt->taken = NONE;
}

void fs_timer_tree_fini(struct fs_timer_tree *tt)
{
	free(tt->t_ns);
	free(tt->win);
	fs_timer_tree_init(tt);
}

/* Replay leaf i's path to the root.  The sibling's winner s is earlier than
 * the winner w carried up when its time is less, or equal with a smaller
 * index: when node k is a right child, its sibling's indices are all below
 * its own, so s goes first at ts <= tw, i.e. ts - 1 < tw (times are >= 0);
 * at a left child only at ts < tw.  No branch: the outcome is a coin toss. */
static void replay(struct fs_timer_tree *tt, uint32_t i)
{
	const fs_ns *t_ns = tt->t_ns;
	uint32_t *win = tt->win;
	uint32_t k = tt->leaves + i, w = i;
	fs_ns tw = t_ns[i];

	while (k > 1) {
		uint32_t s = win[k ^ 1];
		fs_ns ts = t_ns[s];
		/* all ones where s goes first: a select by masks, which the
		 * compiler would otherwise turn into a mispredicted branch */
		uint64_t m = -(uint64_t)(ts - (fs_ns)(k & 1) < tw);

		w ^= (w ^ s) & (uint32_t)m;
		tw ^= (fs_ns)(((uint64_t)tw ^ (uint64_t)ts) & m);
		k >>= 1;
		win[k] = w;
	}
}

/* Room for index i: the leaves double until they hold it, and every node is
 * rebuilt from the leaves up.  O(new leaves); rare, so kept out of
 * fs_timer_tree_set's way. */
__attribute__((noinline, cold))
static void grow(struct fs_timer_tree *tt, uint32_t i)
{
	uint32_t old = tt->leaves, n = old > 0 ? old : 4, j, k;

	while (n <= i) {
		if (n > UINT32_MAX / 4)
			abort();             /* 2^30 timers: never in a world */
		n *= 2;
	}
	tt->t_ns = fs_xrealloc(tt->t_ns, (size_t)n * sizeof *tt->t_ns);
	tt->win = fs_xrealloc(tt->win, 2 * (size_t)n * sizeof *tt->win);
	for (j = old; j < n; j++)
		tt->t_ns[j] = FS_NS_MAX;
	tt->leaves = n;
	for (j = 0; j < n; j++)
		tt->win[n + j] = j;
	for (k = n - 1; k >= 1; k--) {
		uint32_t a = tt->win[2 * k], b = tt->win[2 * k + 1];

		/* a's indices are all below b's: a wins ties */
		tt->win[k] = tt->t_ns[b] < tt->t_ns[a] ? b : a;
	}
}

void fs_timer_tree_set(struct fs_timer_tree *tt, uint32_t i, fs_ns t_ns)
{
	assert(t_ns >= 0 && t_ns < FS_NS_MAX);
	if (i >= tt->leaves)
		grow(tt, i);
	if (i == tt->taken)
		tt->taken = NONE;
	tt->t_ns[i] = t_ns;
	replay(tt, i);
}

void fs_timer_tree_clear(struct fs_timer_tree *tt, uint32_t i)
{
	if (i == tt->taken)
		tt->taken = NONE;
	if (i >= tt->leaves || tt->t_ns[i] == FS_NS_MAX)
		return;
	tt->t_ns[i] = FS_NS_MAX;
	replay(tt, i);
}

bool fs_timer_tree_pending(const struct fs_timer_tree *tt, uint32_t i)
{
	return i < tt->leaves && i != tt->taken && tt->t_ns[i] != FS_NS_MAX;
}

bool fs_timer_tree_peek(struct fs_timer_tree *tt, fs_ns *t_ns, uint32_t *i)
{
	uint32_t w;

	if (tt->taken != NONE)
		fs_timer_tree_clear(tt, tt->taken);
	if (tt->leaves == 0)
		return false;
	w = tt->win[1];
	if (tt->t_ns[w] == FS_NS_MAX)
		return false;
	*t_ns = tt->t_ns[w];
	*i = w;
	return true;
}

void fs_timer_tree_take(struct fs_timer_tree *tt, uint32_t i)
{
	assert(tt->taken == NONE && i < tt->leaves && tt->win[1] == i &&
	       tt->t_ns[i] != FS_NS_MAX);
	tt->taken = i;
}
