/*
 * timer_tree.h — one pending time per index (a world's instances: the end of
 * each one's engine iteration), the earliest found in O(1).  A tournament
 * tree over a power of two of leaves: each internal node holds the index of
 * the earliest leaf below it, ties to the smaller index, so the root names
 * the earliest timer and setting one replays its path to the root, one
 * comparison per level (O(log n), no data moved but indices).  An event heap
 * would hold the same times as events; with one timer per index and the
 * order fixed by (time, index), the tree does the same work in fewer steps.
 *
 * `fs_timer_tree_take` hands out the earliest timer and leaves its time in
 * the tree until the next query: a world's handler nearly always sets the
 * same index again next, and that set then replays the path once instead of
 * twice.  Not thread-safe: one tree per world.
 */
#ifndef FLEETSIM_TIMER_TREE_H
#define FLEETSIM_TIMER_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/common.h"

struct fs_timer_tree {
	fs_ns *t_ns;            /* t_ns[i]: timer i's time; FS_NS_MAX when unset */
	uint32_t *win;          /* win[k], k in [1, 2 * leaves): the earliest
	                         * leaf under node k; win[leaves + i] = i */
	uint32_t leaves;        /* a power of two (0 before the first set) */
	uint32_t taken;         /* the index fs_timer_tree_take handed out and
	                         * not yet cleared, or UINT32_MAX */
};

/* An empty tree (no allocation until the first set). */
void fs_timer_tree_init(struct fs_timer_tree *tt);
/* Free the tree's arrays; it is empty again afterwards. */
void fs_timer_tree_fini(struct fs_timer_tree *tt);

/* Timer i goes off at t_ns (< FS_NS_MAX), replacing any time it had.  The
 * tree grows to hold index i.  O(log n); aborts when out of memory. */
void fs_timer_tree_set(struct fs_timer_tree *tt, uint32_t i, fs_ns t_ns);
/* Timer i is unset (no effect when it was).  O(log n). */
void fs_timer_tree_clear(struct fs_timer_tree *tt, uint32_t i);
/* True when timer i is set and was not taken since. */
bool fs_timer_tree_pending(const struct fs_timer_tree *tt, uint32_t i);

/* The earliest timer (smallest time, then smallest index): false when none
 * is set, else its time and index.  O(1) (a taken timer is cleared first). */
bool fs_timer_tree_peek(struct fs_timer_tree *tt, fs_ns *t_ns, uint32_t *i);
/* Take the earliest timer, which fs_timer_tree_peek just returned: it is no
 * longer pending.  O(1). */
void fs_timer_tree_take(struct fs_timer_tree *tt, uint32_t i);

#endif
