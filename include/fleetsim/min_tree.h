/*
 * min_tree.h — the least of a set of keyed slots, found in O(1): a
 * tournament tree over a power of two of leaves, each internal node holding
 * the slot of the least key below it, ties to the smaller slot.  Setting a
 * key replays its leaf's path to the root, one branch-free comparison per
 * level (O(log n), nothing moved but slot numbers).  A world keeps two: the
 * instances' iteration ends (key: the end's time, MODEL E2's order among
 * them) and the least_outstanding router's choice over the serving
 * instances (key: outstanding requests, MODEL R2).
 *
 * `fs_min_tree_take` hands out the least slot and leaves its key in the tree
 * until the next peek: a world's handler of an iteration's end nearly always
 * sets the same slot again next, and that set then replays the path once
 * instead of twice.  Not thread-safe: one tree per user.
 */
#ifndef FLEETSIM_MIN_TREE_H
#define FLEETSIM_MIN_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FS_MIN_TREE_NONE INT64_MAX   /* the key of an unset slot */

struct fs_min_tree {
	int64_t *key;           /* key[i]: slot i's key; FS_MIN_TREE_NONE when unset */
	uint32_t *win;          /* win[k], k in [1, 2 * leaves): the least slot
	                         * under node k; win[leaves + i] = i */
	uint32_t leaves;        /* a power of two (0 before the first set) */
	uint32_t taken;         /* the slot fs_min_tree_take handed out and not
	                         * yet cleared, or UINT32_MAX */
};

/* An empty tree (no allocation until the first set or build). */
void fs_min_tree_init(struct fs_min_tree *t);
/* Free the tree's arrays; it is empty again afterwards. */
void fs_min_tree_fini(struct fs_min_tree *t);

/* Slot i gets key (0 <= key < FS_MIN_TREE_NONE), replacing any it had.  The
 * tree grows to hold slot i.  O(log n); aborts when out of memory. */
void fs_min_tree_set(struct fs_min_tree *t, uint32_t i, int64_t key);
/* Slot i is unset (no effect when it was).  O(log n). */
void fs_min_tree_clear(struct fs_min_tree *t, uint32_t i);
/* Slots 0..n-1 get keys[0..n-1] (each as fs_min_tree_set takes it), every
 * other slot is unset.  O(leaves). */
void fs_min_tree_build(struct fs_min_tree *t, const int64_t *keys, size_t n);
/* True when slot i is set and was not taken since. */
bool fs_min_tree_pending(const struct fs_min_tree *t, uint32_t i);

/* The least set slot (smallest key, then smallest slot): false when none is
 * set, else its key and slot.  O(1) (a taken slot is cleared first). */
bool fs_min_tree_peek(struct fs_min_tree *t, int64_t *key, uint32_t *i);
/* Take the least slot, which fs_min_tree_peek just returned: it is no
 * longer pending.  O(1). */
void fs_min_tree_take(struct fs_min_tree *t, uint32_t i);

#endif
