/*
 * test_eventq.c — the event queue: (t_ns, seq) order, ties in insertion order,
 * cancellation and rescheduling anywhere in the heap, stale handles, growth,
 * and a long randomized run checked against a linear-scan reference.  The PRNG is an
 * inline xorshift with a fixed seed, so the run is the same every time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "fleetsim/eventq.h"
#include "util_test.h"

static void test_eventq_pops_in_time_then_seq_order(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(4);
	static const fs_ns times[] = { 50, 10, 40, 10, 30, 20, 10, 50 };
	static const uint32_t want_a[] = { 1, 3, 6, 5, 4, 2, 0, 7 };
	struct fs_event ev;
	fs_ns t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof times / sizeof times[0]; i++)
		fs_eventq_push(q, times[i], 7, (uint32_t)i, -(int64_t)i);
	assert_int_equal(fs_eventq_size(q), 8);
	assert_true(fs_eventq_peek_time(q, &t));
	assert_int_equal(t, 10);
	for (i = 0; i < 8; i++) {
		assert_true(fs_eventq_pop(q, &ev));
		assert_int_equal(ev.a, want_a[i]);
		assert_int_equal(ev.seq, want_a[i]);
		assert_int_equal(ev.t_ns, times[want_a[i]]);
		assert_int_equal(ev.kind, 7);
		assert_int_equal(ev.b, -(int64_t)want_a[i]);
	}
	assert_false(fs_eventq_pop(q, &ev));
	assert_false(fs_eventq_peek_time(q, &t));
	assert_int_equal(fs_eventq_size(q), 0);
	assert_int_equal(fs_eventq_pushed(q), 8);
	fs_eventq_free(q);
}

static void test_eventq_equal_times_pop_in_insertion_order(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(0);
	struct fs_event ev;
	uint32_t i;

	(void)state;
	for (i = 0; i < 1000; i++)
		fs_eventq_push(q, 42, 0, i, 0);
	for (i = 0; i < 1000; i++) {
		assert_true(fs_eventq_pop(q, &ev));
		assert_int_equal(ev.a, i);
	}
	fs_eventq_free(q);
}

/* Push 0..9 at times 0..9, cancel the given one, check the rest pop in order. */
static void cancel_one_and_check(fs_ns cancel_t)
{
	struct fs_eventq *q = fs_eventq_alloc(16);
	struct fs_event_handle h[10];
	struct fs_event ev;
	fs_ns t;

	for (t = 9; t >= 0; t--)
		h[t] = fs_eventq_push(q, t, 0, (uint32_t)t, 0);
	assert_true(fs_eventq_pending(q, h[cancel_t]));
	assert_true(fs_eventq_cancel(q, h[cancel_t]));
	assert_false(fs_eventq_pending(q, h[cancel_t]));
	assert_false(fs_eventq_cancel(q, h[cancel_t]));
	assert_int_equal(fs_eventq_size(q), 9);
	for (t = 0; t < 10; t++) {
		if (t == cancel_t)
			continue;
		assert_true(fs_eventq_pending(q, h[t]));
		assert_true(fs_eventq_pop(q, &ev));
		assert_int_equal(ev.t_ns, t);
		assert_false(fs_eventq_pending(q, h[t]));
	}
	assert_false(fs_eventq_pop(q, &ev));
	fs_eventq_free(q);
}

/* At one time a smaller rank pops first whenever it was pushed, equal
 * ranks in push order; a rescheduled event keeps its rank. */
static void test_eventq_rank_orders_an_instant_before_push_order(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(4);
	struct fs_event_handle h;
	struct fs_event ev;
	const uint32_t want_a[6] = {5, 3, 1, 4, 0, 2};
	int i;

	(void)state;
	fs_eventq_push_ranked(q, 10, 2, 1, 0, 0);
	fs_eventq_push_ranked(q, 10, 1, 1, 1, 0);
	h = fs_eventq_push_ranked(q, 20, 2, 1, 2, 0);
	fs_eventq_push(q, 10, 1, 3, 0);                   /* rank 0 */
	fs_eventq_push_ranked(q, 10, 1, 1, 4, 0);
	fs_eventq_push_ranked(q, 5, 9, 1, 5, 0);          /* earlier time first */
	assert_true(fs_eventq_reschedule(q, h, 10));       /* rank 2, after a = 0 */
	for (i = 0; i < 6; i++) {
		assert_true(fs_eventq_pop(q, &ev));
		assert_int_equal(ev.a, want_a[i]);
		assert_int_equal(ev.rank, want_a[i] == 3 ? 0 : want_a[i] == 5 ? 9 :
		                          want_a[i] == 1 || want_a[i] == 4 ? 1 : 2);
	}
	assert_false(fs_eventq_pop(q, &ev));
	fs_eventq_free(q);
}

static void test_eventq_cancel_first_middle_last(void **state)
{
	(void)state;
	cancel_one_and_check(0);     /* the root */
	cancel_one_and_check(5);     /* the middle */
	cancel_one_and_check(9);     /* the latest */
}

static void test_eventq_cancel_only_event_empties_queue(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(1);
	struct fs_event_handle h = fs_eventq_push(q, 3, 0, 0, 0);
	struct fs_event ev;

	(void)state;
	assert_true(fs_eventq_cancel(q, h));
	assert_int_equal(fs_eventq_size(q), 0);
	assert_false(fs_eventq_pop(q, &ev));
	fs_eventq_free(q);
}

static void test_eventq_stale_handle_after_pop_is_rejected(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(4);
	struct fs_event_handle h = fs_eventq_push(q, 1, 0, 0, 0);
	struct fs_event_handle h2;
	struct fs_event ev;

	(void)state;
	assert_true(fs_eventq_pop(q, &ev));
	assert_false(fs_eventq_pending(q, h));
	assert_false(fs_eventq_cancel(q, h));
	/* The freed slot is reused: the old handle must not reach the new event. */
	h2 = fs_eventq_push(q, 2, 0, 1, 0);
	assert_int_equal(h2.slot, h.slot);
	assert_int_not_equal(h2.gen, h.gen);
	assert_false(fs_eventq_pending(q, h));
	assert_false(fs_eventq_cancel(q, h));
	assert_true(fs_eventq_pending(q, h2));
	assert_int_equal(fs_eventq_size(q), 1);
	fs_eventq_free(q);
}

static void test_eventq_stale_handle_after_cancel_and_reuse_is_rejected(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(4);
	struct fs_event_handle h, h2;
	struct fs_event ev;

	(void)state;
	h = fs_eventq_push(q, 5, 0, 0, 0);
	assert_true(fs_eventq_cancel(q, h));
	h2 = fs_eventq_push(q, 6, 0, 1, 0);
	assert_int_equal(h2.slot, h.slot);
	assert_false(fs_eventq_cancel(q, h));
	assert_true(fs_eventq_pending(q, h2));
	assert_true(fs_eventq_pop(q, &ev));
	assert_int_equal(ev.a, 1);
	assert_int_equal(ev.t_ns, 6);
	fs_eventq_free(q);
}

static void test_eventq_zero_and_out_of_range_handles_are_not_pending(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(4);
	struct fs_event_handle none = { 0, 0 };
	struct fs_event_handle far = { 1000, 1 };
	struct fs_event_handle h = fs_eventq_push(q, 1, 0, 0, 0);

	(void)state;
	assert_int_not_equal(h.gen, 0);
	assert_false(fs_eventq_pending(q, none));
	assert_false(fs_eventq_cancel(q, none));
	assert_false(fs_eventq_pending(q, far));
	assert_false(fs_eventq_cancel(q, far));
	assert_int_equal(fs_eventq_size(q), 1);
	fs_eventq_free(q);
}

static void test_eventq_grows_beyond_initial_capacity(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(2);
	struct fs_event ev;
	uint32_t i;
	fs_ns prev = -1;

	(void)state;
	for (i = 0; i < 5000; i++)
		fs_eventq_push(q, (fs_ns)((i * 7919u) % 5000u), 0, i, 0);
	assert_int_equal(fs_eventq_size(q), 5000);
	for (i = 0; i < 5000; i++) {
		assert_true(fs_eventq_pop(q, &ev));
		assert_true(ev.t_ns > prev);  /* 7919 is coprime to 5000: times 0..4999 once */
		prev = ev.t_ns;
	}
	assert_int_equal(prev, 4999);
	fs_eventq_free(q);
}

/* Reference record: what the queue should hold. */
struct ref_event {
	fs_ns t_ns;
	uint64_t seq;
	uint32_t a;
	int64_t b;
	struct fs_event_handle h;
};

static size_t ref_min(const struct ref_event *ref, size_t n)
{
	size_t i, best = 0;

	for (i = 1; i < n; i++)
		if (ref[i].t_ns < ref[best].t_ns ||
		    (ref[i].t_ns == ref[best].t_ns && ref[i].seq < ref[best].seq))
			best = i;
	return best;
}

static void test_eventq_matches_sorted_reference_under_random_ops(void **state)
{
	enum { OPS = 20000, CAP = OPS };
	struct fs_eventq *q = fs_eventq_alloc(8);
	struct ref_event *ref = malloc(CAP * sizeof *ref);
	struct fs_event_handle *dead = malloc(OPS * sizeof *dead);
	size_t n = 0, n_dead = 0, op;
	uint64_t rng = UINT64_C(0x9E3779B97F4A7C15);
	fs_ns now = 0;
	struct fs_event ev;

	(void)state;
	assert_non_null(ref);
	assert_non_null(dead);
	for (op = 0; op < OPS; op++) {
		uint64_t r = fs_test_xorshift64(&rng) % 100;

		if (r < 50 || n == 0) {
			/* Push at now + small offset: many ties on purpose. */
			fs_ns t = now + (fs_ns)(fs_test_xorshift64(&rng) % 20);
			uint32_t a = (uint32_t)op;

			ref[n].seq = fs_eventq_pushed(q);
			ref[n].h = fs_eventq_push(q, t, 1, a, (int64_t)t * 3);
			ref[n].t_ns = t;
			ref[n].a = a;
			ref[n].b = (int64_t)t * 3;
			n++;
		} else if (r < 80) {
			size_t m = ref_min(ref, n);

			assert_true(fs_eventq_pop(q, &ev));
			assert_int_equal(ev.t_ns, ref[m].t_ns);
			assert_int_equal(ev.seq, ref[m].seq);
			assert_int_equal(ev.a, ref[m].a);
			assert_int_equal(ev.b, ref[m].b);
			now = ev.t_ns;
			dead[n_dead++] = ref[m].h;
			ref[m] = ref[--n];
		} else if (r < 88) {
			size_t k = (size_t)(fs_test_xorshift64(&rng) % n);

			assert_true(fs_eventq_cancel(q, ref[k].h));
			dead[n_dead++] = ref[k].h;
			ref[k] = ref[--n];
		} else if (r < 95) {
			/* Earlier or later, ties included: it pops as if cancelled
			 * and pushed again, under the same handle and payload. */
			size_t k = (size_t)(fs_test_xorshift64(&rng) % n);
			fs_ns t = now + (fs_ns)(fs_test_xorshift64(&rng) % 20);

			ref[k].seq = fs_eventq_pushed(q);
			assert_true(fs_eventq_reschedule(q, ref[k].h, t));
			assert_int_equal(fs_eventq_pushed(q), ref[k].seq + 1);
			ref[k].t_ns = t;
			assert_true(fs_eventq_pending(q, ref[k].h));
		} else if (n_dead > 0) {
			/* A handle once popped or cancelled stays dead even after
			 * its slot is reused. */
			struct fs_event_handle h = dead[fs_test_xorshift64(&rng) % n_dead];

			assert_false(fs_eventq_pending(q, h));
			assert_false(fs_eventq_cancel(q, h));
			assert_false(fs_eventq_reschedule(q, h, now));
		}
		assert_int_equal(fs_eventq_size(q), n);
		/* the earliest time, also while a pop has left the root vacant */
		if (n > 0) {
			fs_ns t;

			assert_true(fs_eventq_peek_time(q, &t));
			assert_int_equal(t, ref[ref_min(ref, n)].t_ns);
		} else {
			fs_ns t = -7;

			assert_false(fs_eventq_peek_time(q, &t));
			assert_int_equal(t, -7);
		}
		if (op % 997 == 0) {
			size_t i;

			for (i = 0; i < n; i++)
				assert_true(fs_eventq_pending(q, ref[i].h));
		}
	}
	while (n > 0) {
		size_t m = ref_min(ref, n);

		assert_true(fs_eventq_pop(q, &ev));
		assert_int_equal(ev.seq, ref[m].seq);
		ref[m] = ref[--n];
	}
	assert_false(fs_eventq_pop(q, &ev));
	free(dead);
	free(ref);
	fs_eventq_free(q);
}

/* A pop leaves the root vacant until the next operation: every operation
 * after a pop sees the queue as if the root had been refilled at once. */
static void test_eventq_ops_after_pop_see_refilled_queue(void **state)
{
	struct fs_eventq *q = fs_eventq_alloc(4);
	struct fs_event_handle h[8];
	struct fs_event ev;
	fs_ns t;
	int i;

	(void)state;
	for (i = 0; i < 8; i++)               /* times 80, 70, ..., 10 */
		h[i] = fs_eventq_push(q, 80 - 10 * i, 1, (uint32_t)i, 0);
	assert_true(fs_eventq_pop(q, &ev));   /* 10 */
	assert_int_equal(ev.t_ns, 10);
	assert_int_equal(fs_eventq_size(q), 7);
	assert_false(fs_eventq_pending(q, h[7]));
	assert_true(fs_eventq_peek_time(q, &t));
	assert_int_equal(t, 20);
	/* a push earlier than everything left drops into the vacant root */
	fs_eventq_push(q, 15, 1, 99, 0);
	assert_true(fs_eventq_pop(q, &ev));
	assert_int_equal(ev.a, 99);
	/* cancel right after a pop: the entry it names is still found */
	assert_true(fs_eventq_cancel(q, h[6]));          /* 20 */
	assert_true(fs_eventq_pop(q, &ev));
	assert_int_equal(ev.t_ns, 30);
	/* a push later than everything after a pop sifts all the way down */
	fs_eventq_push(q, 1000, 1, 100, 0);
	for (i = 0; i < 5; i++) {
		assert_true(fs_eventq_pop(q, &ev));
		assert_int_equal(ev.t_ns, 40 + 10 * i);
	}
	assert_true(fs_eventq_pop(q, &ev));
	assert_int_equal(ev.a, 100);
	/* popped empty: the vacant root alone is no event */
	assert_int_equal(fs_eventq_size(q), 0);
	assert_false(fs_eventq_peek_time(q, &t));
	assert_false(fs_eventq_pop(q, &ev));
	fs_eventq_push(q, 5, 1, 1, 0);
	assert_true(fs_eventq_peek_time(q, &t));
	assert_int_equal(t, 5);
	assert_int_equal(fs_eventq_size(q), 1);
	fs_eventq_free(q);
}

static void test_eventq_free_accepts_null(void **state)
{
	(void)state;
	fs_eventq_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eventq_pops_in_time_then_seq_order),
		cmocka_unit_test(test_eventq_equal_times_pop_in_insertion_order),
		cmocka_unit_test(test_eventq_rank_orders_an_instant_before_push_order),
		cmocka_unit_test(test_eventq_cancel_first_middle_last),
		cmocka_unit_test(test_eventq_cancel_only_event_empties_queue),
		cmocka_unit_test(test_eventq_stale_handle_after_pop_is_rejected),
		cmocka_unit_test(test_eventq_stale_handle_after_cancel_and_reuse_is_rejected),
		cmocka_unit_test(test_eventq_zero_and_out_of_range_handles_are_not_pending),
		cmocka_unit_test(test_eventq_grows_beyond_initial_capacity),
		cmocka_unit_test(test_eventq_matches_sorted_reference_under_random_ops),
		cmocka_unit_test(test_eventq_ops_after_pop_see_refilled_queue),
		cmocka_unit_test(test_eventq_free_accepts_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
