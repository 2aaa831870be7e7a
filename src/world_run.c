/*
 * world_run.c — the world's side of the fast path (MODEL: V24): an
 * instance whose next iterations are decodes of an unchanged batch prices
 * a chunk of them at once and schedules one STEP_DONE event at the end of
 * the chunk's last; the iterations in between are recorded lazily, in
 * order, when something looks at the instance (an arrival routed to it, a
 * fleet or autoscaler event, the chunk's end), exactly as their own events
 * would have been.  At a chunk's end a run that can go on plans the next,
 * twice as long (16, 32, ... 255 steps: an arrival cutting the run early
 * wastes little pricing).  An arrival routed to the instance cuts the run
 * after the step in flight.  Per recorded iteration O(1): no work per
 * request.  The planned steps live in the instance's cost context.
 */
#include "world_state.h"

#define RUN_FIRST_CHUNK 16           /* steps planned after step 0 at first */

/* Plan up to `chunk` more steps of in's run after slot in->run_n - 1;
 * returns their total time. */
static fs_ns plan(struct fs_world *w, struct fs__instance *in, struct fs__cost_ctx *c,
                  uint32_t chunk)
{
	struct fs_step_shape sh;
	uint32_t k = in->run_n, limit = k + chunk;
	fs_ns total_ns = 0;

	if (limit > FS__RUN_MAX_STEPS)
		limit = FS__RUN_MAX_STEPS;
	while (k < limit && fs_llm_engine_run_plan(in->engine, &sh)) {
		fs_ns d;

		if (c->perf->table != NULL) {
			d = fs__world_price_step(c, &sh);                /* MODEL: V1 */
		} else {
			if (!c->run_prep_ok) {
				fs_perf_decode_prepare(&c->cache, sh.decode_seqs, &c->run_prep);
				c->run_prep_ok = true;
			}
			d = fs_perf_decode_step(&c->cache, &c->run_prep, sh.decode_context_tokens,
			                        &c->flops, &c->bytes);
		}
		FS__WORLD_CHECK(w, d >= 1, "step cost must be at least 1 ns");
		c->run_dur_ns[k] = d;
		c->run_flops[k] = c->flops;
		c->run_bytes[k] = c->bytes;
		total_ns += d;
		k++;
	}
	in->run_more = k == limit;       /* stopped by the chunk, not the engine */
	in->run_n = k;
	return total_ns;
}

fs_ns fs__world_run_open(struct fs_world *w, struct fs__instance *in, fs_ns dur0_ns)
{
	struct fs__cost_ctx *c = fs_llm_engine_cost_ctx(in->engine);

	in->run_n = 0;
	in->run_j = 0;
	in->run_more = false;
	if (dur0_ns <= 0 || !fs_llm_engine_run_open(in->engine))
		return w->now_ns + dur0_ns;
	c->run_dur_ns[0] = dur0_ns;
	c->run_flops[0] = c->flops;
	c->run_bytes[0] = c->bytes;
	c->run_prep_ok = false;
	c->run_chunk = RUN_FIRST_CHUNK;
	in->run_n = 1;
	return w->now_ns + dur0_ns + plan(w, in, c, c->run_chunk);
}

/* The end of the run's step in flight (at end_ns) and the begin of the
 * next: record the iteration as its own STEP_DONE event would have. */
static void advance(struct fs_world *w, struct fs__instance *in, struct fs__cost_ctx *c,
                    fs_ns end_ns, bool count_event)
{
	uint32_t j = in->run_j;
	struct fs_llm_report rep;
	int64_t kv;

	fs_llm_engine_run_advance(in->engine, end_ns, c->run_dur_ns[j + 1], &rep);
	fs__recorder_run_step(&w->rec, count_event);
	fs__recorder_itl(&w->rec, end_ns, end_ns - rep.begin_ns,
	                 (uint64_t)rep.itl_regular_seqs, &in->itl_hint);
	fs__world_llm_record_step(w, in, &rep, c->run_flops[j], c->run_bytes[j]);
	in->run_j = j + 1;
	in->step_begin_ns = end_ns;
	kv = fs_llm_engine_kv_used(in->engine);
	if (kv != in->kv_used)
		fs__world_llm_kv_level(w, in, kv, end_ns);
}

void fs__world_run_sync(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	struct fs__cost_ctx *c;

	if (in->run_n <= 1 || !in->stepping)
		return;
	c = fs_llm_engine_cost_ctx(in->engine);
	while (in->run_j + 1 < in->run_n) {
		fs_ns end_ns = in->step_begin_ns + c->run_dur_ns[in->run_j];

		/* the reference path pushed this step's event when it began */
		if (end_ns > w->now_ns ||
		    (end_ns == w->now_ns && !(in->step_begin_ns < w->tie_push_ns)))
			break;
		advance(w, in, c, end_ns, true);
	}
}

bool fs__world_run_extend(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	struct fs__cost_ctx *c;
	uint32_t j;
	fs_ns more_ns;

	if (in->run_n == 0 || !in->run_more || !in->stepping)
		return false;
	c = fs_llm_engine_cost_ctx(in->engine);
	fs__world_run_sync(w, ii);
	j = in->run_j;
	FS__WORLD_CHECK(w, j + 1 == in->run_n &&
	                in->step_begin_ns + c->run_dur_ns[j] == w->now_ns,
	                "run chunk ends off its last step");
	/* the step in flight becomes slot 0, the next chunk follows it */
	c->run_dur_ns[0] = c->run_dur_ns[j];
	c->run_flops[0] = c->run_flops[j];
	c->run_bytes[0] = c->run_bytes[j];
	in->run_j = 0;
	in->run_n = 1;
	if (c->run_chunk < FS__RUN_MAX_STEPS / 2)
		c->run_chunk *= 2;
	more_ns = plan(w, in, c, c->run_chunk);
	if (in->run_n == 1)
		return false;            /* nothing after it: it ends as usual */
	advance(w, in, c, w->now_ns, false);   /* this event is its end */
	in->step_ev = fs_eventq_push(w->q, w->now_ns + more_ns, FS_EV_STEP_DONE, ii, 0);
	return true;
}

void fs__world_run_cut(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	const struct fs__cost_ctx *c;

	fs__world_run_sync(w, ii);
	in->run_more = false;
	if (in->run_n <= 1 || !in->stepping || in->run_j + 1 >= in->run_n)
		return;
	c = fs_llm_engine_cost_ctx(in->engine);
	fs_llm_engine_run_cut(in->engine);
	in->run_n = in->run_j + 1;
	fs_eventq_cancel(w->q, in->step_ev);
	in->step_ev = fs_eventq_push(w->q, in->step_begin_ns + c->run_dur_ns[in->run_j],
	                             FS_EV_STEP_DONE, ii, 0);
}

void fs__world_llm_sync_all(struct fs_world *w)
{
	size_t i;

	for (i = 0; i < w->n_insts; i++)
		if (w->insts[i].run_n > 1)
			fs__world_run_sync(w, (uint32_t)i);
}

void fs__world_run_step_work(const struct fs__instance *in, double *flops, double *bytes)
{
	const struct fs__cost_ctx *c = fs_llm_engine_cost_ctx(in->engine);

	if (in->run_n >= 1) {              /* a run was opened: c->flops moved on */
		*flops = c->run_flops[in->run_j];
		*bytes = c->run_bytes[in->run_j];
	} else {
		*flops = c->flops;
		*bytes = c->bytes;
	}
}
