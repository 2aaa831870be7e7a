/*
 * world_run.c — the world's side of the fast path (MODEL: V24): an
 * instance whose next iterations are decodes of an unchanged batch prices
 * them at once and schedules one STEP_DONE event at the end of the last;
 * the iterations in between are recorded lazily, in order, when something
 * looks at the instance (an arrival routed to it, a fleet or autoscaler
 * event, the end of the run), exactly as their own events would have been.
 * An arrival routed to the instance cuts the run after the step in flight.
 * Per recorded iteration O(1): no work per request.
 */
#include "world_state.h"

fs_ns fs__world_run_open(struct fs_world *w, struct fs__instance *in, fs_ns dur0_ns)
{
	struct fs__cost_ctx *c = fs_llm_engine_cost_ctx(in->engine);
	fs_ns end_ns = w->now_ns + dur0_ns;
	struct fs_step_shape sh;
	uint32_t k = 1;

	in->run_n = 0;
	in->run_j = 0;
	if (dur0_ns <= 0 || !fs_llm_engine_run_open(in->engine))
		return end_ns;
	c->run_dur_ns[0] = dur0_ns;
	c->run_flops[0] = c->flops;
	c->run_bytes[0] = c->bytes;
	while (k < FS__RUN_MAX_STEPS && fs_llm_engine_run_plan(in->engine, &sh)) {
		fs_ns d = c->perf->table != NULL ? fs__world_price_step(c, &sh) :
		          fs_perf_decode_step_cached(&c->cache, sh.decode_seqs,
		                                     sh.decode_context_tokens, &c->flops,
		                                     &c->bytes);        /* MODEL: V1 */

		FS__WORLD_CHECK(w, d >= 1, "step cost must be at least 1 ns");
		c->run_dur_ns[k] = d;
		c->run_flops[k] = c->flops;
		c->run_bytes[k] = c->bytes;
		end_ns += d;
		k++;
	}
	in->run_n = k;
	return end_ns;
}

void fs__world_run_sync(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	struct fs__cost_ctx *c;
	struct fs_llm_report rep;

	if (in->run_n <= 1 || !in->stepping)
		return;
	c = fs_llm_engine_cost_ctx(in->engine);
	while (in->run_j + 1 < in->run_n) {
		uint32_t j = in->run_j;
		fs_ns end_ns = in->step_begin_ns + c->run_dur_ns[j];
		int64_t kv;

		/* the reference path pushed this step's event when it began */
		if (end_ns > w->now_ns ||
		    (end_ns == w->now_ns && !(in->step_begin_ns < w->tie_push_ns)))
			break;
		fs_llm_engine_run_advance(in->engine, end_ns, c->run_dur_ns[j + 1], &rep);
		w->rec.result->events++;
		w->rec.result->run_steps++;
		fs__recorder_itl(&w->rec, end_ns, end_ns - rep.begin_ns,
		                 (uint64_t)rep.itl_regular_seqs, &in->itl_hint);
		fs__world_llm_record_step(w, in, &rep, c->run_flops[j], c->run_bytes[j]);
		in->run_j = j + 1;
		in->step_begin_ns = end_ns;
		kv = fs_llm_engine_kv_used(in->engine);
		if (kv != in->kv_used)
			fs__world_llm_kv_level(w, in, kv, end_ns);
	}
}

void fs__world_run_cut(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	const struct fs__cost_ctx *c;

	fs__world_run_sync(w, ii);
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
