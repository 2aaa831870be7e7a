/*
 * sweep_progress.c — a sweep's progress on stderr: on a terminal one line
 * redrawn after every point; elsewhere (a log file, a CI job) a line every
 * PROGRESS_LOG_S seconds from a thread of its own, so a long point still
 * shows it is alive.  The sweep's thread reports under the mutex; the
 * logger only reads.  Output only: nothing here reaches a result.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleetsim/common.h"
#include "sweep_internal.h"

#define PROGRESS_LOG_S 5

struct fs__sweep_progress {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t logger;
	bool tty, stop;
	double t0_s;
	size_t done, planned;        /* points */
	double reps;                 /* replications run here */
	uint64_t borrowed;           /* of those, borrowed (sweep_share.c) */
	bool busy;                   /* a point is being evaluated */
	size_t point;                /* which */
	char label[256];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One log line (the caller holds the mutex). */
static void log_line(const struct fs__sweep_progress *p)
{
	double el = now_s() - p->t0_s;

	fprintf(stderr, "fleetsim sweep: %zu points done (about %zu planned), %.0f "
	        "replications (%llu borrowed from a point differing only in pricing), "
	        "%.0fs elapsed, %.1f replications/s", p->done,
	        p->planned > p->done ? p->planned : p->done, p->reps,
	        (unsigned long long)p->borrowed, el, el > 0 ? p->reps / el : 0.0);
	if (p->busy)
		fprintf(stderr, "; evaluating point %zu (%s)", p->point, p->label);
	fputc('\n', stderr);
	fflush(stderr);
}

static void *logger_main(void *arg)
{
	struct fs__sweep_progress *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->mu);
	clock_gettime(CLOCK_REALTIME, &until);
	while (!p->stop) {
		until.tv_sec += PROGRESS_LOG_S;
		while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &until) == 0)
			;
		if (!p->stop)
			log_line(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct fs__sweep_progress *fs__sweep_progress_start(bool tty)
{
	struct fs__sweep_progress *p = fs_xcalloc(1, sizeof *p);

	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->tty = tty;
	p->t0_s = now_s();
	if (!tty && pthread_create(&p->logger, NULL, logger_main, p) != 0)
		p->stop = true;          /* no logger: the final line still comes */
	return p;
}

void fs__sweep_progress_plan(struct fs__sweep_progress *p, size_t planned)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->planned = planned;
	pthread_mutex_unlock(&p->mu);
}

void fs__sweep_progress_begin(struct fs__sweep_progress *p, size_t point, const char *label)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->busy = true;
	p->point = point;
	snprintf(p->label, sizeof p->label, "%s", label);
	pthread_mutex_unlock(&p->mu);
}

void fs__sweep_progress_done(struct fs__sweep_progress *p, double reps, uint64_t borrowed)
{
	double el, eta;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->busy = false;
	p->done++;
	p->reps += reps;
	p->borrowed = borrowed;
	if (p->tty) {
		el = now_s() - p->t0_s;
		eta = el / (double)p->done * ((double)p->planned - (double)p->done);
		fprintf(stderr, "\rfleetsim sweep: %zu/%zu points, %.1f replications/s, "
		        "ETA %.0fs   ", p->done, p->planned, el > 0 ? p->reps / el : 0.0,
		        eta > 0 ? eta : 0.0);
		fflush(stderr);
	}
	pthread_mutex_unlock(&p->mu);
}

void fs__sweep_progress_stop(struct fs__sweep_progress *p)
{
	bool joined;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	joined = !p->tty && !p->stop;
	p->stop = true;
	p->busy = false;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (joined)
		pthread_join(p->logger, NULL);
	if (p->tty)
		fputc('\n', stderr);
	else
		log_line(p);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
