/*
 * ticker.c — a thread that calls a function every few seconds until
 * stopped (see ticker.h).  The thread sleeps on a condition with a deadline
 * so that a stop wakes it at once instead of after the interval.
 */
#include "ticker.h"

#include <time.h>

void fs_ticker_init(struct fs_ticker *t)
{
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	t->running = false;
	t->stop = false;
	t->interval_s = 1;
	t->tick = NULL;
	t->arg = NULL;
}

static void *ticker_main(void *arg)
{
	struct fs_ticker *t = arg;
	struct timespec until;

	pthread_mutex_lock(&t->mu);
	clock_gettime(CLOCK_REALTIME, &until);
	while (!t->stop) {
		until.tv_sec += t->interval_s;
		/* woken early (a stop, or spuriously): wait on to the deadline */
		while (!t->stop && pthread_cond_timedwait(&t->cv, &t->mu, &until) == 0)
			;
		if (!t->stop)
			t->tick(t->arg);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

bool fs_ticker_start(struct fs_ticker *t, int interval_s, fs_ticker_fn *tick, void *arg)
{
	t->interval_s = interval_s >= 1 ? interval_s : 1;
	t->tick = tick;
	t->arg = arg;
	t->stop = false;
	t->running = pthread_create(&t->thread, NULL, ticker_main, t) == 0;
	return t->running;
}

void fs_ticker_lock(struct fs_ticker *t)
{
	pthread_mutex_lock(&t->mu);
}

void fs_ticker_unlock(struct fs_ticker *t)
{
	pthread_mutex_unlock(&t->mu);
}

void fs_ticker_stop(struct fs_ticker *t)
{
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	if (t->running)
		pthread_join(t->thread, NULL);
	t->running = false;
}

void fs_ticker_fini(struct fs_ticker *t)
{
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
}

double fs_ticker_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
