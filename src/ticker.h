/*
 * ticker.h — a thread of its own that calls a function every few seconds
 * of wall-clock time until stopped: what prints the progress lines of a
 * long run and of a sweep while the work goes on.  The function runs with
 * the ticker's mutex held; what it reads is written under the same mutex
 * (fs_ticker_lock), or is atomic.  Output only: nothing that uses a ticker
 * reaches a result through it.
 */
#ifndef FLEETSIM_TICKER_H
#define FLEETSIM_TICKER_H

#include <pthread.h>
#include <stdbool.h>

typedef void fs_ticker_fn(void *arg);

struct fs_ticker {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool running;                /* the thread was started and not joined */
	bool stop;
	int interval_s;
	fs_ticker_fn *tick;
	void *arg;
};

/* The mutex and the condition, no thread yet. */
void fs_ticker_init(struct fs_ticker *t);
/* Start the thread: tick(arg) every interval_s seconds (>= 1), under the
 * mutex.  False when no thread could be started (then nothing ticks). */
bool fs_ticker_start(struct fs_ticker *t, int interval_s, fs_ticker_fn *tick, void *arg);
void fs_ticker_lock(struct fs_ticker *t);
void fs_ticker_unlock(struct fs_ticker *t);
/* Stop the thread (a tick in progress ends first) and join it; no effect
 * when none runs.  Then fs_ticker_fini, or fs_ticker_start again. */
void fs_ticker_stop(struct fs_ticker *t);
/* Destroy the mutex and the condition (the thread stopped). */
void fs_ticker_fini(struct fs_ticker *t);

/* Seconds of the monotonic clock, for elapsed times. */
double fs_ticker_now_s(void);

#endif
