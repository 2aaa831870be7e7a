/*
 * qengine.c — c parallel servers and one waiting line (see qengine.h).
 * The line is a binary heap keyed by (priority, seq); under FCFS every
 * priority is 0, so it pops in arrival order.  Idle servers sit on a stack
 * and the lowest-numbered idle server is taken first at start-up, so runs are
 * reproducible.  All operations O(log waiting).
 */
#include "fleetsim/qengine.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "fleetsim/rng.h"

struct waiter {
	int64_t priority;
	uint64_t seq;
	uint32_t slot;
};

struct fs_qengine {
	int servers;
	int busy;
	bool by_priority;
	int *idle;                   /* stack of idle server ids, top = idle[n_idle-1] */
	int n_idle;
	struct waiter *line;         /* binary min-heap */
	size_t n_line, cap_line;
};

static bool before(const struct waiter *a, const struct waiter *b)
{
	if (a->priority != b->priority)
		return a->priority < b->priority;
	return a->seq < b->seq;
}

static void line_push(struct fs_qengine *e, struct waiter w)
{
	size_t i;

	fs_xgrow((void **)&e->line, &e->cap_line, e->n_line + 1, sizeof *e->line);
	i = e->n_line++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(&w, &e->line[parent]))
			break;
		e->line[i] = e->line[parent];
		i = parent;
	}
	e->line[i] = w;
}

static struct waiter line_pop(struct fs_qengine *e)
{
	struct waiter top = e->line[0];
	struct waiter last = e->line[--e->n_line];
	size_t i = 0;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= e->n_line)
			break;
		if (child + 1 < e->n_line && before(&e->line[child + 1], &e->line[child]))
			child++;
		if (!before(&e->line[child], &last))
			break;
		e->line[i] = e->line[child];
		i = child;
	}
	if (e->n_line > 0)
		e->line[i] = last;
	return top;
}

struct fs_qengine *fs_qengine_alloc(const struct fs_engine_cfg *cfg)
{
	struct fs_qengine *e = fs_xcalloc(1, sizeof *e);
	int s;

	assert(cfg->kind == FS_ENGINE_QUEUE && cfg->servers >= 1);
	e->servers = cfg->servers;
	e->by_priority = cfg->discipline == FS_DISCIPLINE_PRIORITY;
	e->idle = fs_xmalloc((size_t)cfg->servers * sizeof *e->idle);
	for (s = 0; s < cfg->servers; s++)
		e->idle[s] = cfg->servers - 1 - s;   /* server 0 on top */
	e->n_idle = cfg->servers;
	return e;
}

void fs_qengine_free(struct fs_qengine *e)
{
	if (e == NULL)
		return;
	free(e->idle);
	free(e->line);
	free(e);
}

int fs_qengine_arrive(struct fs_qengine *e, uint32_t slot, int priority,
                      uint64_t seq)
{
	struct waiter w;

	if (e->n_idle > 0) {
		e->busy++;                              /* MODEL: Q1 */
		return e->idle[--e->n_idle];
	}
	w.priority = e->by_priority ? priority : 0;     /* MODEL: Q4 */
	w.seq = seq;
	w.slot = slot;
	line_push(e, w);
	return -1;
}

uint32_t fs_qengine_finish(struct fs_qengine *e, int server)
{
	assert(server >= 0 && server < e->servers && e->busy > 0);
	if (e->n_line > 0)
		return line_pop(e).slot;          /* the server stays busy */
	e->busy--;
	e->idle[e->n_idle++] = server;
	return FS_QENGINE_NONE;
}

uint64_t fs_qengine_waiting(const struct fs_qengine *e)
{
	return e->n_line;
}

int fs_qengine_busy(const struct fs_qengine *e)
{
	return e->busy;
}

int fs_qengine_servers(const struct fs_qengine *e)
{
	return e->servers;
}

fs_ns fs_qengine_draw_service_ns(const struct fs_service_cfg *cfg, struct fs_rng *r)
{
	double mean_ns = (double)cfg->mean_ns;
	double dur_ns = mean_ns;

	switch (cfg->kind) {
	case FS_SERVICE_FIXED:
		break;
	case FS_SERVICE_EXPONENTIAL:
		dur_ns = fs_rng_exponential(r, mean_ns);
		break;
	case FS_SERVICE_LOGNORMAL: {
		/* MODEL: Q3 — mean m and cv give sigma^2 = ln(1 + cv^2),
		 * mu = ln m - sigma^2 / 2. */
		double sigma2 = log1p(cfg->cv * cfg->cv);

		dur_ns = fs_rng_lognormal(r, log(mean_ns) - sigma2 / 2, sqrt(sigma2));
		break;
	}
	}
	if (dur_ns < 1.0)
		return 1;
	if (dur_ns > 9.0e18)
		return INT64_C(9000000000000000000);
	return (fs_ns)llround(dur_ns);
}
