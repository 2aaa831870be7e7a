/*
 * eventq.h — the pending-event set of one world: a 4-ary min-heap ordered by
 * (t_ns, rank, seq), where rank is the pusher's order among events of one
 * instant (0 for plain pushes) and seq the queue's own insertion counter, so
 * ties pop by rank, then in insertion order, and never depend on addresses.
 * Event records live in a pooled slot array and are named by (slot,
 * generation) handles, so a stale handle is detected instead of cancelling a
 * reused slot.  Push, pop, cancel and reschedule are O(log n); peek is O(1).
 * Not thread-safe: one queue per world.
 */
#ifndef FLEETSIM_EVENTQ_H
#define FLEETSIM_EVENTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"

/* A popped event.  kind is the world's enum; a and b are its payload. */
struct fs_event {
	fs_ns t_ns;
	uint64_t seq;
	uint32_t rank;
	uint32_t kind;
	uint32_t a;
	int64_t b;
};

/* Names a pending event.  gen 0 is never issued, so a zeroed handle is "none". */
struct fs_event_handle {
	uint32_t slot;
	uint32_t gen;
};

struct fs_eventq;

/* New empty queue with room for `initial_capacity` pending events (grows). */
struct fs_eventq *fs_eventq_alloc(size_t initial_capacity);
void fs_eventq_free(struct fs_eventq *q);                 /* NULL is fine */

/* Schedule an event; returns its handle.  O(log n). */
struct fs_event_handle fs_eventq_push(struct fs_eventq *q, fs_ns t_ns,
                                      uint32_t kind, uint32_t a, int64_t b);
/* The same, after every event of rank < `rank` at the same t_ns and before
 * every one of a larger rank, whenever either was pushed (push: rank 0). */
struct fs_event_handle fs_eventq_push_ranked(struct fs_eventq *q, fs_ns t_ns, uint32_t rank,
                                             uint32_t kind, uint32_t a, int64_t b);

/* Remove the earliest event into *out.  Returns false when empty. */
bool fs_eventq_pop(struct fs_eventq *q, struct fs_event *out);

/* Time of the earliest event, or false when empty. */
bool fs_eventq_peek_time(const struct fs_eventq *q, fs_ns *t_ns);

/* Cancel a pending event.  Returns true if it was pending (and is now gone),
 * false if the handle is stale (already popped or cancelled) or zero. */
bool fs_eventq_cancel(struct fs_eventq *q, struct fs_event_handle h);

/* Move a pending event to t_ns as if it were cancelled and pushed again
 * (it takes the next seq and counts as a push), keeping its handle, rank and
 * payload.  Returns false (no change) when the handle is stale or zero.
 * O(log n): one sift instead of a removal and an insertion. */
bool fs_eventq_reschedule(struct fs_eventq *q, struct fs_event_handle h, fs_ns t_ns);

/* True while the handle's event is pending. */
bool fs_eventq_pending(const struct fs_eventq *q, struct fs_event_handle h);

size_t fs_eventq_size(const struct fs_eventq *q);

/* Total events ever pushed (the next seq). */
uint64_t fs_eventq_pushed(const struct fs_eventq *q);

#endif
