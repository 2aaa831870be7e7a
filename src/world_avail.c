/*
 * world_avail.c — how much of the time each pool, and the fleet as a whole,
 * had the serving instances it wanted (MODEL: F15, F16).  The world calls
 * fs__world_avail_note whenever an instance starts or stops serving or a
 * wanted count changes; the time since the previous call is accounted with
 * the counts then in force.  Only time inside [warm-up, horizon) counts.
 */
#include "world_state.h"

#include <stdint.h>

#define MAX_POOLS 64                 /* the loader allows 32 */

static void track_start(struct fs__avail_track *t, struct fs_availability *a)
{
	t->serving = 0;
	t->reached = false;
	t->last_ns = 0;
	*a = (struct fs_availability){ 0, 0, 0, INT64_MAX };
}

/* Account [t->last_ns, now_ns) with the counts in force, clipped to the
 * measured span [warm-up, horizon). */
static void advance(struct fs__avail_track *t, struct fs_availability *a,
                    const struct fs_scenario *sc, fs_ns now_ns)
{
	fs_ns from_ns = t->last_ns > sc->sim.warmup_ns ? t->last_ns : sc->sim.warmup_ns;
	fs_ns to_ns = now_ns < sc->sim.horizon_ns ? now_ns : sc->sim.horizon_ns;

	if (now_ns > t->last_ns)
		t->last_ns = now_ns;
	if (to_ns <= from_ns)
		return;
	a->window_ns += (double)(to_ns - from_ns);
	if (t->serving < t->wanted)
		a->short_ns += (double)(to_ns - from_ns);
	if (t->serving == 0 && t->wanted > 0)
		a->down_ns += (double)(to_ns - from_ns);      /* MODEL: F16 */
	if (t->serving < a->min_serving)
		a->min_serving = t->serving;
}

/* Take the new serving count.  MODEL: F15 — the first time the pool has
 * what it wants, start-up is over: what was accounted before (the cold
 * start of the first instances after the warm-up) is dropped. */
static void take(struct fs__avail_track *t, struct fs_availability *a, int serving)
{
	t->serving = serving;
	if (!t->reached && serving >= t->wanted) {
		t->reached = true;
		*a = (struct fs_availability){ 0, 0, 0, INT64_MAX };
	}
}

/* Serving instances per pool (a stand-in counts for the spot pool it
 * stands in for) into counts[0..n_pools), and their sum. */
static int count_serving(const struct fs_world *w, int *counts)
{
	size_t i, p;
	int total = 0;

	for (p = 0; p < w->fleet->n_pools; p++)
		counts[p] = 0;
	for (i = 0; i < w->n_insts; i++) {
		const struct fs__instance *in = &w->insts[i];

		if (in->state != FS__INST_SERVING)
			continue;
		counts[in->standin ? in->standin_for : in->pool]++;
		total++;
	}
	return total;
}

void fs__world_avail_note(struct fs_world *w)
{
	struct fs_fleet_result *fr = &w->rec.result->fleet;
	int c[MAX_POOLS], total, wanted = 0;
	size_t p;

	FS__WORLD_CHECK(w, w->fleet->n_pools <= MAX_POOLS, "too many pools");
	total = count_serving(w, c);

	for (p = 0; p < w->fleet->n_pools; p++) {
		struct fs__avail_track *t = &w->pools[p].avail;

		advance(t, &fr->pools[p].avail, w->sc, w->now_ns);
		take(t, &fr->pools[p].avail, c[p]);
		wanted += t->wanted;
	}
	advance(&w->fleet_avail, &fr->avail, w->sc, w->now_ns);
	w->fleet_avail.wanted = wanted;
	take(&w->fleet_avail, &fr->avail, total);
}

void fs__world_avail_init(struct fs_world *w)
{
	struct fs_fleet_result *fr = &w->rec.result->fleet;
	size_t p;

	for (p = 0; p < w->fleet->n_pools; p++)
		track_start(&w->pools[p].avail, &fr->pools[p].avail);
	track_start(&w->fleet_avail, &fr->avail);
	fs__world_avail_note(w);
}

static void close_one(struct fs_availability *a)
{
	if (a->min_serving == INT64_MAX)
		a->min_serving = -1;
}

void fs__world_avail_finish(struct fs_world *w, fs_ns end_ns)
{
	struct fs_fleet_result *fr = &w->rec.result->fleet;
	size_t p;

	for (p = 0; p < w->fleet->n_pools; p++) {
		advance(&w->pools[p].avail, &fr->pools[p].avail, w->sc, end_ns);
		close_one(&fr->pools[p].avail);
	}
	advance(&w->fleet_avail, &fr->avail, w->sc, end_ns);
	close_one(&fr->avail);
}
