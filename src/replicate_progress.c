/*
 * replicate_progress.c — a long run's progress on stderr (see replicate.h):
 * the replications add the simulated time they get through and count
 * themselves done (atomics, from any OpenMP thread); a ticker (ticker.h)
 * prints from them — off a terminal a line every LOG_S seconds, on one
 * a line redrawn every TTY_S seconds and erased at the end.  A run shorter
 * than the first interval prints nothing.  Output only: nothing here
 * reaches a result.
 */
#include "fleetsim/replicate.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleetsim/common.h"
#include "ticker.h"

#define LOG_S 5
#define TTY_S 1

struct fs_run_progress {
	struct fs_ticker ticker;
	bool tty, drawn;
	char label[160];
	fs_ns horizon_ns;
	double t0_s;
	atomic_int planned;                  /* replications expected */
	atomic_int done;
	atomic_uint_fast64_t sim_ns;         /* simulated, all replications */
};

/* A span of wall-clock time for a person: seconds below 2 minutes,
 * minutes below 2 hours, then hours. */
static void span_text(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min", s / 60);
	else
		snprintf(buf, len, "%.1f h", s / 3600);
}

int fs_run_progress_line(char *buf, size_t len, const char *label, int done, int planned,
                         double simulated, double elapsed_s)
{
	char el[32], left[32];
	int n;

	span_text(elapsed_s, el, sizeof el);
	n = snprintf(buf, len, "%s: %d of %d replication%s done, %.0f%% of the simulated "
	             "time, %s elapsed", label, done, planned, planned == 1 ? "" : "s",
	             100 * simulated, el);
	/* the time left at the pace so far, once there is a pace */
	if (n >= 0 && (size_t)n < len && simulated > 0.01 && simulated < 1) {
		double left_s = elapsed_s * (1 - simulated) / simulated;

		span_text(left_s, left, sizeof left);
		n += snprintf(buf + n, len - (size_t)n, left_s < 1 ? ", under a second left" :
		              ", about %s left", left);
	}
	return n;
}

void fs_run_progress_read(struct fs_run_progress *p, int *done, int *planned,
                          double *simulated)
{
	double span, sim;

	*planned = atomic_load(&p->planned);
	*done = atomic_load(&p->done);
	span = (double)*planned * (double)p->horizon_ns;
	sim = span > 0 ? (double)atomic_load(&p->sim_ns) / span : 0;
	*simulated = sim > 1 ? 1 : sim;
}

/* The line now (a tick: under the ticker's mutex). */
static void print_line(void *arg)
{
	struct fs_run_progress *p = arg;
	char line[512];
	int planned, done;
	double sim;

	fs_run_progress_read(p, &done, &planned, &sim);
	fs_run_progress_line(line, sizeof line, p->label, done, planned, sim,
	                     fs_ticker_now_s() - p->t0_s);
	if (p->tty)
		fprintf(stderr, "\r%s\033[K", line);
	else
		fprintf(stderr, "%s\n", line);
	fflush(stderr);
	p->drawn = true;
}

struct fs_run_progress *fs_run_progress_start(const char *label, int planned,
                                              fs_ns horizon_ns, bool tty)
{
	struct fs_run_progress *p = fs_xcalloc(1, sizeof *p);

	fs_ticker_init(&p->ticker);
	snprintf(p->label, sizeof p->label, "%s", label);
	p->horizon_ns = horizon_ns;
	p->tty = tty;
	p->t0_s = fs_ticker_now_s();
	atomic_init(&p->planned, planned);
	atomic_init(&p->done, 0);
	atomic_init(&p->sim_ns, 0);
	fs_ticker_start(&p->ticker, tty ? TTY_S : LOG_S, print_line, p);
	return p;
}

void fs_run_progress_expect(struct fs_run_progress *p, int replications)
{
	int cur;

	if (p == NULL)
		return;
	cur = atomic_load(&p->planned);
	while (cur < replications && !atomic_compare_exchange_weak(&p->planned, &cur,
	                                                             replications))
		;
}

void fs_run_progress_advance(struct fs_run_progress *p, fs_ns sim_ns)
{
	if (p != NULL && sim_ns > 0)
		atomic_fetch_add(&p->sim_ns, (uint_fast64_t)sim_ns);
}

void fs_run_progress_rep_done(struct fs_run_progress *p)
{
	if (p != NULL)
		atomic_fetch_add(&p->done, 1);
}

void fs_run_progress_stop(struct fs_run_progress *p)
{
	if (p == NULL)
		return;
	fs_ticker_stop(&p->ticker);
	if (p->tty && p->drawn) {
		fputs("\r\033[K", stderr);       /* the table or the error takes the line */
		fflush(stderr);
	}
	fs_ticker_fini(&p->ticker);
	free(p);
}
