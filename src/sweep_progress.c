/*
 * sweep_progress.c — a sweep's progress on stderr: on a terminal one line
 * redrawn after every point; elsewhere (a log file, a CI job) a line every
 * PROGRESS_LOG_S seconds from a ticker (ticker.h), so a long point still
 * shows it is alive.  The sweep's thread reports under the ticker's mutex;
 * the ticker only reads.  Output only: nothing here reaches a result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"
#include "sweep_internal.h"
#include "ticker.h"

#define PROGRESS_LOG_S 5

struct fs__sweep_progress {
	struct fs_ticker ticker;
	bool tty;
	double t0_s;
	size_t done, planned;        /* points */
	double reps;                 /* replications run here */
	uint64_t borrowed;           /* of those, borrowed (sweep_share.c) */
	bool busy;                   /* a point is being evaluated */
	size_t point;                /* which */
	char label[256];
};

/* One log line (the caller holds the mutex). */
static void log_line(const struct fs__sweep_progress *p)
{
	double el = fs_ticker_now_s() - p->t0_s;

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

/* A tick (under the mutex). */
static void tick(void *arg)
{
	log_line(arg);
}

struct fs__sweep_progress *fs__sweep_progress_start(bool tty)
{
	struct fs__sweep_progress *p = fs_xcalloc(1, sizeof *p);

	fs_ticker_init(&p->ticker);
	p->tty = tty;
	p->t0_s = fs_ticker_now_s();
	/* without a thread, the final line still comes */
	if (!tty)
		fs_ticker_start(&p->ticker, PROGRESS_LOG_S, tick, p);
	return p;
}

void fs__sweep_progress_plan(struct fs__sweep_progress *p, size_t planned)
{
	if (p == NULL)
		return;
	fs_ticker_lock(&p->ticker);
	p->planned = planned;
	fs_ticker_unlock(&p->ticker);
}

void fs__sweep_progress_begin(struct fs__sweep_progress *p, size_t point, const char *label)
{
	if (p == NULL)
		return;
	fs_ticker_lock(&p->ticker);
	p->busy = true;
	p->point = point;
	snprintf(p->label, sizeof p->label, "%s", label);
	fs_ticker_unlock(&p->ticker);
}

void fs__sweep_progress_done(struct fs__sweep_progress *p, double reps, uint64_t borrowed)
{
	double el, eta;

	if (p == NULL)
		return;
	fs_ticker_lock(&p->ticker);
	p->busy = false;
	p->done++;
	p->reps += reps;
	p->borrowed = borrowed;
	if (p->tty) {
		el = fs_ticker_now_s() - p->t0_s;
		eta = el / (double)p->done * ((double)p->planned - (double)p->done);
		fprintf(stderr, "\rfleetsim sweep: %zu/%zu points, %.1f replications/s, "
		        "ETA %.0fs   ", p->done, p->planned, el > 0 ? p->reps / el : 0.0,
		        eta > 0 ? eta : 0.0);
		fflush(stderr);
	}
	fs_ticker_unlock(&p->ticker);
}

void fs__sweep_progress_stop(struct fs__sweep_progress *p)
{
	if (p == NULL)
		return;
	fs_ticker_stop(&p->ticker);
	p->busy = false;
	if (p->tty)
		fputc('\n', stderr);
	else
		log_line(p);
	fs_ticker_fini(&p->ticker);
	free(p);
}
