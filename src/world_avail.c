/*
 * world_avail.c — how much of the time each pool, and the fleet as a whole,
 * had the serving instances it wanted (MODEL: F15, F16).  The world calls
 * fs__world_avail_note whenever an instance starts or stops serving, and
 * fs__world_avail_want when a wanted count changes; the time since the
 * previous call is accounted with the counts then in force (a wanted count
 * changes only after the time before it is accounted).  Only time inside [warm-up, horizon) counts.
 */
#include "world_state.h"

#include <stdint.h>

#define MAX_POOLS 64                 /* the loader allows 32 */

/* `pool` indexes w->pools, FS__REC_FLEET the fleet: its track. */
static struct fs__avail_track *track_of(struct fs_world *w, size_t pool)
{
	return pool == FS__REC_FLEET ? &w->fleet_avail : &w->pools[pool].avail;
}

static void track_start(struct fs_world *w, size_t pool)
{
	struct fs__avail_track *t = track_of(w, pool);

	t->serving = 0;
	t->reached = false;
	t->last_ns = 0;
	fs__rec_avail_restart(&w->rec, pool);
}

/* Account [t->last_ns, now_ns) with the counts in force, clipped to the
 * measured span [warm-up, horizon). */
static void advance(struct fs_world *w, size_t pool, fs_ns now_ns)
{
	struct fs__avail_track *t = track_of(w, pool);
	const struct fs_scenario *sc = w->sc;
	fs_ns from_ns = t->last_ns > sc->sim.warmup_ns ? t->last_ns : sc->sim.warmup_ns;
	fs_ns to_ns = now_ns < sc->sim.horizon_ns ? now_ns : sc->sim.horizon_ns;

	if (now_ns > t->last_ns)
		t->last_ns = now_ns;
	if (to_ns <= from_ns)
		return;
	fs__rec_avail_span(&w->rec, pool, (double)(to_ns - from_ns), t->serving,
	                   t->wanted);                  /* MODEL: F16 */
}

/* Take the new serving count.  MODEL: F15 — the first time the pool has
 * what it wants, start-up is over: what was accounted before (the cold
 * start of the first instances after the warm-up) is dropped. */
static void take(struct fs_world *w, size_t pool, int serving)
{
	struct fs__avail_track *t = track_of(w, pool);

	t->serving = serving;
	if (!t->reached && serving >= t->wanted) {
		t->reached = true;
		fs__rec_avail_restart(&w->rec, pool);
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
	int c[MAX_POOLS], total, wanted = 0;
	size_t p;

	FS__WORLD_CHECK(w, w->fleet->n_pools <= MAX_POOLS, "too many pools");
	total = count_serving(w, c);

	for (p = 0; p < w->fleet->n_pools; p++) {
		advance(w, p, w->now_ns);
		take(w, p, c[p]);
		wanted += w->pools[p].avail.wanted;
	}
	advance(w, FS__REC_FLEET, w->now_ns);
	w->fleet_avail.wanted = wanted;
	take(w, FS__REC_FLEET, total);
}

void fs__world_avail_want(struct fs_world *w, uint32_t p, int wanted)
{
	fs__world_avail_note(w);             /* until now: the old wanted count */
	w->pools[p].avail.wanted = wanted;
	fs__world_avail_note(w);             /* no time passes: the new one taken */
}

void fs__world_avail_init(struct fs_world *w)
{
	size_t p;

	for (p = 0; p < w->fleet->n_pools; p++)
		track_start(w, p);
	track_start(w, FS__REC_FLEET);
	fs__world_avail_note(w);
}

void fs__world_avail_finish(struct fs_world *w, fs_ns end_ns)
{
	size_t p;

	for (p = 0; p < w->fleet->n_pools; p++) {
		advance(w, p, end_ns);
		fs__rec_avail_close(&w->rec, p);
	}
	advance(w, FS__REC_FLEET, end_ns);
	fs__rec_avail_close(&w->rec, FS__REC_FLEET);
}
