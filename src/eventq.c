/*
 * eventq.c — the pending-event set (see eventq.h).  A 4-ary min-heap of
 * {t_ns, seq, slot, rank} entries, so comparisons never leave the heap array; the
 * payload lives in a pooled slot array threaded by a free list.  Invariants:
 * for every pending slot s, heap[slots[s].heap_pos].slot == s; a slot's gen is
 * never 0 and changes whenever the slot is freed.  The queue owns both arrays.
 * A pop leaves the root vacant (`hole`) instead of refilling it at once: a
 * world's handler nearly always pushes its follow-up event next, and that
 * push then drops into the vacant root and sifts down once, where refilling
 * would have sifted the last entry down and the new one up.  Any other
 * operation refills the root first.  Keys (t_ns, rank, seq) are unique, so
 * the pop order is the same either way.
 */
#include "fleetsim/eventq.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleetsim/common.h"

#define ARITY 4
#define NO_SLOT UINT32_MAX           /* end of the free list; "not in heap" */

/* One heap position.  The ordering key is copied here (not read through the
 * slot) so a sift touches one contiguous array. */
struct heap_entry {
	fs_ns t_ns;
	uint64_t seq;                /* insertion counter: breaks time and rank ties */
	uint32_t slot;               /* index into q->slots */
	uint32_t rank;               /* order among events of one instant */
};

/* One pooled event record. */
struct slot {
	int64_t b;                   /* payload */
	uint32_t kind;               /* the world's event kind */
	uint32_t a;                  /* payload */
	uint32_t gen;                /* current generation, never 0 */
	uint32_t link;               /* heap position if pending, else next free slot */
	bool pending;
};

struct fs_eventq {
	struct heap_entry *heap;     /* heap[0..n) is a 4-ary min-heap */
	size_t n;                    /* pending events */
	size_t heap_cap;             /* entries allocated in heap */
	struct slot *slots;          /* slots[0..n_slots) ever handed out */
	size_t n_slots;
	size_t slot_cap;
	uint32_t free_head;          /* first free slot, NO_SLOT when none */
	uint64_t next_seq;           /* seq of the next push */
	bool hole;                   /* heap[0] vacant: n counts it, it holds nothing */
};

static bool entry_less(const struct heap_entry *x, const struct heap_entry *y)
{
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns;
	return x->rank < y->rank || (x->rank == y->rank && x->seq < y->seq);
}

static void place(struct fs_eventq *q, size_t pos, struct heap_entry e)
{
	q->heap[pos] = e;
	q->slots[e.slot].link = (uint32_t)pos;
}

/* Move e up from the hole at pos until its parent is not larger. */
static void sift_up(struct fs_eventq *q, size_t pos, struct heap_entry e)
{
	while (pos > 0) {
		size_t parent = (pos - 1) / ARITY;

		if (!entry_less(&e, &q->heap[parent]))
			break;
		place(q, pos, q->heap[parent]);
		pos = parent;
	}
	place(q, pos, e);
}

/* Move e down from the hole at pos until no child is smaller. */
static void sift_down(struct fs_eventq *q, size_t pos, struct heap_entry e)
{
	size_t n = q->n;

	for (;;) {
		size_t first = pos * ARITY + 1;
		size_t last, best, c;

		if (first >= n)
			break;
		last = first + ARITY < n ? first + ARITY : n;
		best = first;
		for (c = first + 1; c < last; c++)
			if (entry_less(&q->heap[c], &q->heap[best]))
				best = c;
		if (!entry_less(&q->heap[best], &e))
			break;
		place(q, pos, q->heap[best]);
		pos = best;
	}
	place(q, pos, e);
}

/* Take the heap entry at pos out, filling the hole with the last entry. */
static void remove_at(struct fs_eventq *q, size_t pos)
{
	struct heap_entry last;

	assert(pos < q->n);
	q->n--;
	if (pos == q->n)
		return;
	last = q->heap[q->n];
	if (pos > 0 && entry_less(&last, &q->heap[(pos - 1) / ARITY]))
		sift_up(q, pos, last);
	else
		sift_down(q, pos, last);
}

/* Fill a vacant root from the last entry (what a pop defers). */
static void settle(struct fs_eventq *q)
{
	if (q->hole) {
		q->hole = false;
		remove_at(q, 0);
	}
}

/* Return slot s to the free list; bumping gen makes old handles stale. */
static void free_slot(struct fs_eventq *q, uint32_t s)
{
	struct slot *sl = &q->slots[s];

	assert(sl->pending);
	sl->pending = false;
	sl->gen++;
	if (sl->gen == 0)
		sl->gen = 1;
	sl->link = q->free_head;
	q->free_head = s;
}

static uint32_t take_slot(struct fs_eventq *q)
{
	uint32_t s;

	if (q->free_head != NO_SLOT) {
		s = q->free_head;
		q->free_head = q->slots[s].link;
		return s;
	}
	if (q->n_slots >= NO_SLOT) {
		fprintf(stderr, "fleetsim: event queue: more than %u pending events\n",
		        (unsigned)NO_SLOT - 1);
		abort();
	}
	if (q->n_slots == q->slot_cap)
		fs_xgrow((void **)&q->slots, &q->slot_cap, q->n_slots + 1,
		         sizeof *q->slots);
	s = (uint32_t)q->n_slots++;
	q->slots[s].gen = 1;
	q->slots[s].pending = false;
	return s;
}

/*
 * Allocate an empty queue with room for initial_capacity pending events
 * before the first reallocation (0 is allowed).  Aborts when out of memory.
 * The caller owns the queue and frees it with fs_eventq_free.
 */
struct fs_eventq *fs_eventq_alloc(size_t initial_capacity)
{
	struct fs_eventq *q = fs_xcalloc(1, sizeof *q);

	if (initial_capacity < 16)
		initial_capacity = 16;
	q->heap = fs_xmalloc(initial_capacity * sizeof *q->heap);
	q->heap_cap = initial_capacity;
	q->slots = fs_xmalloc(initial_capacity * sizeof *q->slots);
	q->slot_cap = initial_capacity;
	q->free_head = NO_SLOT;
	return q;
}

/* Free the queue and every pending event in it.  NULL is accepted. */
void fs_eventq_free(struct fs_eventq *q)
{
	if (q == NULL)
		return;
	free(q->heap);
	free(q->slots);
	free(q);
}

/*
 * Schedule an event of `kind` with payload (a, b) at t_ns, rank 0.  Its seq
 * is the number of pushes before it, so equal-time events of one rank pop in
 * push order.
 * Returns a handle valid until the event is popped or cancelled.
 * O(log n) amortised (the arrays double when full); aborts when out of memory.
 */
struct fs_event_handle fs_eventq_push(struct fs_eventq *q, fs_ns t_ns,
                                      uint32_t kind, uint32_t a, int64_t b)
{
	return fs_eventq_push_ranked(q, t_ns, 0, kind, a, b);
}

/* fs_eventq_push with the entry's rank: among events at the same t_ns a
 * smaller rank pops first, equal ranks in push order. */
struct fs_event_handle fs_eventq_push_ranked(struct fs_eventq *q, fs_ns t_ns, uint32_t rank,
                                             uint32_t kind, uint32_t a, int64_t b)
{
	struct fs_event_handle h;
	struct heap_entry e;
	uint32_t s = take_slot(q);
	struct slot *sl = &q->slots[s];

	assert(!sl->pending && sl->gen != 0);
	sl->kind = kind;
	sl->a = a;
	sl->b = b;
	sl->pending = true;
	e.t_ns = t_ns;
	e.seq = q->next_seq++;
	e.slot = s;
	e.rank = rank;
	if (q->hole) {               /* the popped root's place: one sift down */
		q->hole = false;
		sift_down(q, 0, e);
		h.slot = s;
		h.gen = sl->gen;
		return h;
	}
	if (q->n == q->heap_cap)
		fs_xgrow((void **)&q->heap, &q->heap_cap, q->n + 1, sizeof *q->heap);
	q->n++;
	sift_up(q, q->n - 1, e);
	h.slot = s;
	h.gen = sl->gen;
	return h;
}

/*
 * Remove the earliest pending event (smallest t_ns, then rank, then seq) and
 * copy it to *out.  Returns false, leaving *out untouched, when empty.
 * Its handle becomes stale.  O(log n).
 */
bool fs_eventq_pop(struct fs_eventq *q, struct fs_event *out)
{
	struct heap_entry top;
	const struct slot *sl;

	settle(q);
	if (q->n == 0)
		return false;
	top = q->heap[0];
	sl = &q->slots[top.slot];
	assert(sl->pending && sl->link == 0);
	out->t_ns = top.t_ns;
	out->seq = top.seq;
	out->rank = top.rank;
	out->kind = sl->kind;
	out->a = sl->a;
	out->b = sl->b;
	q->hole = true;              /* refilled by the next push or settle */
	free_slot(q, top.slot);
	return true;
}

/* Store the earliest pending time in *t_ns; false (untouched) when empty.  O(1). */
bool fs_eventq_peek_time(const struct fs_eventq *q, fs_ns *t_ns)
{
	size_t c, best;

	if (!q->hole) {
		if (q->n == 0)
			return false;
		*t_ns = q->heap[0].t_ns;
		return true;
	}
	if (q->n <= 1)               /* the vacant root alone */
		return false;
	/* the least of the root's children is the least pending entry */
	best = 1;
	for (c = 2; c <= ARITY && c < q->n; c++)
		if (entry_less(&q->heap[c], &q->heap[best]))
			best = c;
	*t_ns = q->heap[best].t_ns;
	return true;
}

/* True when h names an event that is still pending in q. */
bool fs_eventq_pending(const struct fs_eventq *q, struct fs_event_handle h)
{
	const struct slot *sl;

	if (h.gen == 0 || h.slot >= q->n_slots)
		return false;
	sl = &q->slots[h.slot];
	return sl->pending && sl->gen == h.gen;
}

/* The heap position of h's event, a vacant root refilled first; false when
 * h is zero or stale. */
static bool pending_pos(struct fs_eventq *q, struct fs_event_handle h, uint32_t *pos)
{
	if (!fs_eventq_pending(q, h))
		return false;
	settle(q);
	*pos = q->slots[h.slot].link;
	assert(*pos < q->n && q->heap[*pos].slot == h.slot);
	return true;
}

/*
 * Cancel the event named by h.  Returns true if it was pending and is now
 * removed; false (and no change) when h is zero or stale — already popped,
 * already cancelled, or its slot reused.  O(log n) through the slot's stored
 * heap position.
 */
bool fs_eventq_cancel(struct fs_eventq *q, struct fs_event_handle h)
{
	uint32_t pos;

	if (!pending_pos(q, h, &pos))
		return false;
	remove_at(q, pos);
	free_slot(q, h.slot);
	return true;
}

/*
 * Give the event named by h the key (t_ns, next seq) in place: the same pop
 * order as fs_eventq_cancel then fs_eventq_push of its kind and payload
 * (keys are unique, so the order follows from them alone), with one sift —
 * up where the key fell, down where it rose.  False (no change) when h is
 * zero or stale.  O(log n).
 */
bool fs_eventq_reschedule(struct fs_eventq *q, struct fs_event_handle h, fs_ns t_ns)
{
	struct heap_entry e;
	uint32_t pos;

	if (!pending_pos(q, h, &pos))
		return false;
	e.t_ns = t_ns;
	e.seq = q->next_seq++;
	e.slot = h.slot;
	e.rank = q->heap[pos].rank;
	if (entry_less(&e, &q->heap[pos]))
		sift_up(q, pos, e);
	else
		sift_down(q, pos, e);
	return true;
}

/* Number of pending events.  O(1). */
size_t fs_eventq_size(const struct fs_eventq *q)
{
	return q->n - (q->hole ? 1 : 0);
}

/* Events ever pushed, which is also the seq the next push will get.  O(1). */
uint64_t fs_eventq_pushed(const struct fs_eventq *q)
{
	return q->next_seq;
}
