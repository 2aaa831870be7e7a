/*
 * test_ticker.c — the thread behind the progress lines: it calls its
 * function under its mutex until stopped, a stop ends it whether or not it
 * ever ticked, a ticker can be started again after a stop, and a stop of
 * one never started does nothing.  No test asserts how long anything takes:
 * the one that needs a tick waits for it (a second, the shortest interval).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include "../src/ticker.h"
#include "util_test.h"

struct counter {
	struct fs_ticker *t;
	int ticks;
	bool held;                   /* the mutex was held at every tick */
};

static void count(void *arg)
{
	struct counter *c = arg;

	/* a trylock from the tick's own thread fails while the mutex is held */
	if (pthread_mutex_trylock(&c->t->mu) == 0) {
		c->held = false;
		pthread_mutex_unlock(&c->t->mu);
	}
	c->ticks++;
}

static int ticks_now(struct fs_ticker *t, const struct counter *c)
{
	int n;

	fs_ticker_lock(t);
	n = c->ticks;
	fs_ticker_unlock(t);
	return n;
}

/* Wait (sleeping a tenth of a second at a time, at most a minute) until
 * the counter has ticked n times; false if it never did. */
static bool wait_ticks(struct fs_ticker *t, const struct counter *c, int n)
{
	const struct timespec tenth = { 0, 100000000 };
	int i;

	for (i = 0; i < 600; i++) {
		if (ticks_now(t, c) >= n)
			return true;
		nanosleep(&tenth, NULL);
	}
	return false;
}

static void test_ticker_ticks_under_its_mutex_until_stopped(void **state)
{
	struct fs_ticker t;
	struct counter c = { &t, 0, true };
	int after;

	(void)state;
	fs_ticker_init(&t);
	assert_true(fs_ticker_start(&t, 1, count, &c));
	assert_true(wait_ticks(&t, &c, 1));
	fs_ticker_stop(&t);
	after = c.ticks;
	assert_true(after >= 1);
	assert_true(c.held);
	assert_false(t.running);
	/* stopped: no thread is left to tick */
	fs_ticker_stop(&t);
	assert_int_equal(c.ticks, after);
	fs_ticker_fini(&t);
}

/* Start t with an interval far longer than the test and stop it: the stop
 * wakes the thread, which never ticked. */
static void start_and_stop_before_a_tick(struct fs_ticker *t, struct counter *c)
{
	assert_true(fs_ticker_start(t, 3600, count, c));
	fs_ticker_stop(t);
	assert_int_equal(c->ticks, 0);
	assert_false(t->running);
}

static void test_ticker_stops_before_its_first_tick(void **state)
{
	struct fs_ticker t;
	struct counter c = { &t, 0, true };

	(void)state;
	fs_ticker_init(&t);
	start_and_stop_before_a_tick(&t, &c);
	fs_ticker_fini(&t);
}

static void test_ticker_starts_again_after_a_stop(void **state)
{
	struct fs_ticker t;
	struct counter c = { &t, 0, true };

	(void)state;
	fs_ticker_init(&t);
	start_and_stop_before_a_tick(&t, &c);
	assert_true(fs_ticker_start(&t, 1, count, &c));
	assert_true(wait_ticks(&t, &c, 1));
	fs_ticker_stop(&t);
	assert_true(c.ticks >= 1);
	fs_ticker_fini(&t);
}

static void test_ticker_never_started_stops_quietly(void **state)
{
	struct fs_ticker t;

	(void)state;
	fs_ticker_init(&t);
	fs_ticker_stop(&t);
	assert_false(t.running);
	fs_ticker_fini(&t);
	assert_true(fs_ticker_now_s() > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ticker_ticks_under_its_mutex_until_stopped),
		cmocka_unit_test(test_ticker_stops_before_its_first_tick),
		cmocka_unit_test(test_ticker_starts_again_after_a_stop),
		cmocka_unit_test(test_ticker_never_started_stops_quietly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
