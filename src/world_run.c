/*
 * world_run.c — the world's side of the fast path (MODEL: V24): an
 * instance whose next iterations are decodes of an unchanged batch prices
 * a chunk of them at once and schedules one STEP_DONE event at the end of
 * the chunk's last; the iterations in between are recorded lazily, in
 * order, when something looks at the instance (an arrival routed to it, a
 * fleet or autoscaler event, the run's end), exactly as their own events
 * would have been.  At a chunk's end a run that can go on plans the next,
 * twice as long, up to 128 steps (the pricing a cut or a completion
 * wastes costs less than more chunk ends would: RUN_FIRST_CHUNK), after
 * the planned ones while they fit (FS__RUN_MAX_STEPS), else the steps up
 * to now are recorded and the rest moved to the front.  An
 * arrival routed to the instance cuts the run after the step in flight.
 * Per recorded iteration O(1): no work per request; the iterations that
 * end before now are recorded together (fs__recorder_llm_run) and the
 * engine advanced over them in one call.
 * The planned steps live in the instance's cost context; their FLOPs and
 * bytes, exact integers linear in the step, as two linear functions.
 */
#include "world_state.h"

/* Steps planned after step 0 at first: a longer chunk prices steps a cut
 * or a completion then wastes (over the day about a third of those
 * priced), a shorter one costs more chunk ends.  On bench/day.json, paired
 * CPU time of the whole day (six pairs each, with the last steps of a
 * chunk priced by the guarded kernel): 16 against 32: 0.979; 8 against
 * 16: 1.039; 24 against 16: 1.001. */
#define RUN_FIRST_CHUNK 16

static bool whole(double x)
{
	return x >= 0 && x < 0x1p52 && x == (double)(int64_t)x;
}

/* Whether the decode terms of d's batch that run_linear reads are whole
 * numbers (kept per batch size: they depend on nothing else). */
static bool terms_whole(struct fs__cost_ctx *c, const struct fs_perf_decode_prep *d)
{
	size_t k = (uint64_t)d->n_seqs % FS__PREPS;

	if (c->whole_n[k] != d->n_seqs) {
		c->whole_n[k] = d->n_seqs;
		c->whole_ok[k] = whole(d->lin_flops) && d->pre_flops == 0 &&
		                 whole(d->per_pair_flops) && whole(d->lin_bytes) &&
		                 whole(d->new_kv_bytes) && whole(d->elem_gpu_bytes) &&
		                 whole(d->kv_bytes_per_token_per_gpu) && whole(d->tp) && d->tp >= 1;
	}
	return c->whole_ok[k];
}

/* Whether every step of the run, from slot 0 (context ctx0) to its last
 * possible one (context ctx_last), has FLOPs and bytes that are exact
 * integers: the step model's terms are whole numbers and every partial sum
 * of fs_perf_decode_step's additions stays below 2^52 (so no rounding).
 * Then slot i's are lin's linear functions of i (batch n), with slot 0's
 * checked against the real step 0's priced ones. */
static bool run_linear(struct fs__cost_ctx *c, int64_t ctx0, int64_t ctx_last,
                       int64_t n, struct fs__rec_run_lin *lin)
{
	const struct fs_perf_decode_prep *d = &c->run_prep;
	double ctx_max = (double)ctx_last;
	int64_t ppf, kvb, tp;

	if (!terms_whole(c, d) || ctx0 < 0 || ctx_last < ctx0 || ctx_max > 0x1p40)
		return false;
	if (!(d->lin_flops + d->per_pair_flops * ctx_max < 0x1p52) ||
	    !(d->lin_bytes + (d->new_kv_bytes + d->kv_bytes_per_token_per_gpu * ctx_max +
	                      d->elem_gpu_bytes) * d->tp < 0x1p52))
		return false;
	ppf = (int64_t)d->per_pair_flops;
	kvb = (int64_t)d->kv_bytes_per_token_per_gpu;
	tp = (int64_t)d->tp;
	lin->flops0 = (int64_t)d->lin_flops + ppf * ctx0;
	lin->flops_step = ppf * n;
	lin->bytes0 = (int64_t)d->lin_bytes +
	              tp * ((int64_t)d->new_kv_bytes + kvb * ctx0 + (int64_t)d->elem_gpu_bytes);
	lin->bytes_step = tp * kvb * n;
	return (double)lin->flops0 == c->run_flops[0] && (double)lin->bytes0 == c->run_bytes[0];
}

/* Plan up to `chunk` more steps of in's run after slot in->run_n - 1;
 * returns their total time. */
static fs_ns plan(struct fs_world *w, struct fs__instance *in, struct fs__cost_ctx *c,
                  uint32_t chunk)
{
	uint32_t k = in->run_n, limit = k + chunk;
	size_t n, i;
	int64_t seqs, ctx_first;
	fs_ns total_ns = 0;

	if (limit > FS__RUN_MAX_STEPS)
		limit = FS__RUN_MAX_STEPS;
	n = fs_llm_engine_run_plan_n(in->engine, limit - k, &ctx_first);
	seqs = fs_llm_engine_run_batch(in->engine);
	if (n > 0 && c->perf->table == NULL && !c->run_prep_ok) {
		int64_t ctx0, ctx_last;

		c->run_prep = *fs__world_decode_prep(c, seqs);   /* step 0's batch, say */
		c->run_prep_ok = true;
		fs_llm_engine_run_context_span(in->engine, &ctx0, &ctx_last);
		c->run_lin_ok = in->run_n == 1 && run_linear(c, ctx0, ctx_last, seqs, &c->run_lin);
	}
	if (n > 0 && c->run_lin_ok) {      /* FLOPs and bytes in closed form */
		total_ns = fs_perf_decode_steps(c->cache, &c->run_prep, ctx_first, seqs, n,
		                                &c->run_dur_ns[k]);
		k += (uint32_t)n;
		n = 0;
	}
	for (i = 0; i < n; i++, k++) {
		int64_t ctx = ctx_first + seqs * (int64_t)i;              /* MODEL: V1 */
		fs_ns d;

		if (c->perf->table != NULL) {
			struct fs_step_shape sh = { 0 };

			sh.decode_seqs = seqs;
			sh.n_seqs = seqs;
			sh.decode_context_tokens = ctx;
			d = fs__world_price_step(c, &sh);                /* MODEL: V1 */
		} else {
			d = fs_perf_decode_step(c->cache, &c->run_prep, ctx, &c->run_flops[k],
			                        &c->run_bytes[k]);
		}
		FS__WORLD_CHECK(w, d >= 1, "step cost must be at least 1 ns");
		if (c->perf->table != NULL) {
			c->run_flops[k] = c->flops;
			c->run_bytes[k] = c->bytes;
		}
		c->run_dur_ns[k] = d;
		total_ns += d;
	}
	in->run_more = k == limit;       /* stopped by the chunk, not the engine */
	in->run_n = k;
	return total_ns;
}

/* The first chunk of in's run, whose step in flight (slot 0, dur0_ns, just
 * priced into c) began now: returns when its last step ends. */
static fs_ns first_chunk(struct fs_world *w, struct fs__instance *in, fs_ns dur0_ns)
{
	struct fs__cost_ctx *c = in->cost;

	c->run_dur_ns[0] = dur0_ns;
	c->run_flops[0] = c->flops;
	c->run_bytes[0] = c->bytes;
	c->run_prep_ok = false;
	c->run_lin_ok = false;
	c->run_chunk = RUN_FIRST_CHUNK;
	in->run_n = 1;
	return w->now_ns + dur0_ns + plan(w, in, c, c->run_chunk);
}

fs_ns fs__world_run_open(struct fs_world *w, struct fs__instance *in, fs_ns dur0_ns,
                         bool opened)
{
	in->run_n = 0;
	in->run_j = 0;
	in->run_more = false;
	if (!opened && (dur0_ns <= 0 || !fs_llm_engine_run_open(in->engine)))
		return w->now_ns + dur0_ns;
	return first_chunk(w, in, dur0_ns);
}

bool fs__world_run_continue(struct fs_world *w, struct fs__instance *in,
                            struct fs_llm_report *rep, fs_ns *end_ns)
{
	fs_ns dur_ns;

	if (in->run_n == 0 || !fs_llm_engine_run_continue(in->engine, w->now_ns, rep, &dur_ns))
		return false;
	in->run_j = 0;
	in->run_more = false;
	*end_ns = first_chunk(w, in, dur_ns);
	return true;
}

/* The ends of k steps of the run from the one in flight on, back to back,
 * and the begin of the step after them: recorded as their own STEP_DONE
 * events would have recorded them (`events` of which count as events),
 * in one pass over the steps with no work per request. */
static void advance(struct fs_world *w, struct fs__instance *in, struct fs__cost_ctx *c,
                    uint32_t k, uint64_t events)
{
	uint32_t j = in->run_j;
	fs_ns t_ns = in->step_begin_ns;
	int64_t kv0 = in->kv_used;
	struct fs__rec_run_lin lin = c->run_lin;     /* from slot j on */
	struct fs__rec_kv_area area = { 0 };

	lin.flops0 += lin.flops_step * (int64_t)j;
	lin.bytes0 += lin.bytes_step * (int64_t)j;

	fs_llm_engine_run_advance_n(in->engine, k, &c->run_dur_ns[j], c->run_kv);
	fs__recorder_run_steps(&w->rec, k, events);
	in->tokens_processed += (double)(fs_llm_engine_run_batch(in->engine) * (int64_t)k);
	t_ns += fs__recorder_llm_run(&w->rec, in->pool, t_ns, k, &c->run_dur_ns[j], &c->run_flops[j],
	                     &c->run_bytes[j], c->run_lin_ok ? &lin : NULL, c->run_kv, fs_llm_engine_run_batch(in->engine),
	                     c->peak_flops_per_s, c->peak_bytes_per_s, &in->itl_hint,
	                     &in->busy_ns, &area);
	/* the KV levels at each step's begin (MODEL: M3), as
	 * fs__world_llm_kv_level at each change */
	fs__recorder_kv_steps(&w->rec, &in->kv_since_ns, &in->kv_used, in->step_begin_ns,
	                      &c->run_dur_ns[j], &c->run_kv[1], k, &area);
	w->kv_used_llm += in->kv_used - kv0;
	in->run_j = j + k;
	in->step_begin_ns = t_ns;
}

void fs__world_run_sync(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	struct fs__cost_ctx *c;
	uint32_t j, last;
	fs_ns t_ns;

	if (in->run_n <= 1 || !in->stepping)
		return;
	c = in->cost;
	/* the steps ended before now; then one ending now, whose event the
	 * reference path popped before this one iff its rank is less (MODEL:
	 * E2; steps take >= 1 ns: only one can end now) */
	last = in->run_n - 1;
	j = in->run_j;
	t_ns = in->step_begin_ns;
	/* eight steps at a time while all eight end before now (steps take
	 * >= 1 ns: then so does each of them), then one by one */
	while (j + 8 <= last) {
		const fs_ns *d = &c->run_dur_ns[j];
		fs_ns eight_ns = ((d[0] + d[1]) + (d[2] + d[3])) + ((d[4] + d[5]) + (d[6] + d[7]));

		if (!(t_ns + eight_ns < w->now_ns))
			break;
		t_ns += eight_ns;
		j += 8;
	}
	for (; j < last && t_ns + c->run_dur_ns[j] < w->now_ns; j++)
		t_ns += c->run_dur_ns[j];
	if (j < last && t_ns + c->run_dur_ns[j] == w->now_ns && 1 + ii < w->tie_rank)
		t_ns += c->run_dur_ns[j++];
	if (j > in->run_j)
		advance(w, in, c, j - in->run_j, j - in->run_j);
}

bool fs__world_run_extend(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	struct fs__cost_ctx *c;
	uint32_t j, o, i;
	fs_ns more_ns, t_ns;

	if (in->run_n == 0 || !in->run_more || !in->stepping)
		return false;
	c = in->cost;
	if (c->run_chunk < FS__RUN_MAX_STEPS / 2)
		c->run_chunk *= 2;
	if (in->run_n + c->run_chunk <= FS__RUN_MAX_STEPS) {
		/* room for the next chunk after this one: planned on, and the
		 * chunk's steps (its last ends now) recorded lazily with the
		 * next chunk's, as those before them were */
		uint32_t n0 = in->run_n;

		more_ns = plan(w, in, c, c->run_chunk);   /* slots n0 on */
		if (in->run_n == n0)
			return false;            /* nothing after it: it ends as usual */
		fs__recorder_event_deferred(&w->rec);
		fs__world_push_step(w, w->now_ns + more_ns, ii);
		return true;
	}
	/* the chunk's last step ends now; the steps before it are recorded
	 * with it, in one call, once the next chunk is planned after it */
	j = in->run_j;
	for (t_ns = in->step_begin_ns; j + 1 < in->run_n; j++)
		t_ns += c->run_dur_ns[j];
	FS__WORLD_CHECK(w, t_ns + c->run_dur_ns[j] == w->now_ns,
	                "run chunk ends off its last step");
	more_ns = plan(w, in, c, c->run_chunk);       /* slots j + 1 on */
	if (in->run_n == j + 1)
		return false;            /* nothing after it: it ends as usual */
	/* this event is the last step's end */
	advance(w, in, c, j + 1 - in->run_j, j - in->run_j);
	/* the step now in flight (j + 1) and those planned after it move to
	 * slot 0 on, so the next chunk has room */
	o = j + 1;
	for (i = o; i < in->run_n; i++)
		c->run_dur_ns[i - o] = c->run_dur_ns[i];
	if (c->run_lin_ok) {
		c->run_lin.flops0 += c->run_lin.flops_step * (int64_t)o;
		c->run_lin.bytes0 += c->run_lin.bytes_step * (int64_t)o;
	} else {
		for (i = o; i < in->run_n; i++) {
			c->run_flops[i - o] = c->run_flops[i];
			c->run_bytes[i - o] = c->run_bytes[i];
		}
	}
	in->run_n -= o;
	in->run_j = 0;
	fs__world_push_step(w, w->now_ns + more_ns, ii);
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
	c = in->cost;
	fs_llm_engine_run_cut(in->engine);
	in->run_n = in->run_j + 1;
	/* the chunk's end moves to the end of the step in flight */
	FS__WORLD_CHECK(w, fs_min_tree_pending(&w->steps, ii),
	                "a run's chunk end was not pending");
	fs__world_push_step(w, in->step_begin_ns + c->run_dur_ns[in->run_j], ii);
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
	const struct fs__cost_ctx *c = in->cost;

	if (in->run_n >= 1 && c->run_lin_ok) {
		*flops = (double)(c->run_lin.flops0 + c->run_lin.flops_step * (int64_t)in->run_j);
		*bytes = (double)(c->run_lin.bytes0 + c->run_lin.bytes_step * (int64_t)in->run_j);
	} else if (in->run_n >= 1) {       /* a run was opened: c->flops moved on */
		*flops = c->run_flops[in->run_j];
		*bytes = c->run_bytes[in->run_j];
	} else {
		*flops = c->flops;
		*bytes = c->bytes;
	}
}
