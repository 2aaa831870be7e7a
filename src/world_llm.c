/*
 * world_llm.c — the world's side of LLM serving: routing arrivals to serving
 * instances (a line of unrouted requests waits while none can take them),
 * running each instance's iterations back to back (one STEP_DONE event per
 * iteration in flight, or per chunk of a fast-path run: world_run.c),
 * recording what every iteration reports, and moving requests off an
 * instance that is being reclaimed.  Step times come from the pool's
 * step-time model through a cache its instances share.
 */
#include "world_state.h"

#include <stdlib.h>

#include "fleetsim/perf.h"

const struct fs_perf_decode_prep *fs__world_decode_prep(struct fs__cost_ctx *c,
                                                        int64_t n_seqs)
{
	struct fs_perf_decode_prep *d = &c->preps[(uint64_t)n_seqs % FS__PREPS];

	if (d->n_seqs != n_seqs)
		fs_perf_decode_prepare(c->cache, n_seqs, d);
	return d;
}

fs_ns fs__world_price_step(void *ctx, const struct fs_step_shape *shape)
{
	struct fs__cost_ctx *c = ctx;
	struct fs_step_cost cost;

	if (c->perf->table == NULL && shape->prefill_tokens == 0 &&
	    shape->prefill_attn_tokens == 0 && shape->decode_seqs > 0 &&
	    shape->n_seqs == shape->decode_seqs) {
		/* a decode-only step (a run's first, say): the decode path's
		 * bits, FLOPs and bytes included, its batch's terms kept */
		return fs_perf_decode_step(c->cache, fs__world_decode_prep(c, shape->n_seqs),
		                           shape->decode_context_tokens, &c->flops, &c->bytes);
	}
	if (c->perf->table == NULL)
		return fs_perf_step_ns_cached(c->cache, shape, &c->flops, &c->bytes);
	fs_perf_step_cost_cached(c->cache, shape, &cost);
	c->flops = cost.flops;
	c->bytes = cost.bytes;
	return fs_perf_step_ns(c->perf, shape);
}

struct fs__cost_ctx *fs__world_cost_ctx_alloc(const struct fs_perf_cfg *perf,
                                              struct fs__pool_pricing *pricing)
{
	struct fs__cost_ctx *c = fs_xcalloc(1, sizeof *c);

	c->perf = perf;
	c->cache = &pricing->cache;
	c->peak_flops_per_s = fs_perf_instance_peaks(perf).flops_per_s;
	c->peak_bytes_per_s = fs_perf_instance_peaks(perf).bytes_per_s;
	return c;
}

/* The KV-use series is kept per instance: each adds its own blocks · ns
 * spans (exact integers), and a change of the serving total divides what
 * was added since (so the series does not depend on when levels are
 * noted, which differs between the fast and the reference path). */
void fs__world_llm_kv_account_all(struct fs_world *w)
{
	size_t i;

	for (i = 0; i < w->n_insts; i++)
		fs__world_llm_kv_level(w, &w->insts[i], w->insts[i].kv_used, w->now_ns);
}

void fs__world_llm_kv_level(struct fs_world *w, struct fs__instance *in, int64_t kv,
                            fs_ns t_ns)
{
	if (t_ns > in->kv_since_ns) {
		fs__recorder_kv_span(&w->rec, in->kv_since_ns, t_ns, in->kv_used);
		in->kv_since_ns = t_ns;
	}
	w->kv_used_llm += kv - in->kv_used;
	in->kv_used = kv;
}

void fs__world_llm_note_levels(struct fs_world *w)
{
	fs__recorder_levels(&w->rec, w->now_ns, w->waiting_llm + w->n_unrouted,
	                    (int)w->busy_insts);
	if (fs__recorder_kv_total_changes(&w->rec, w->kv_total_llm)) {
		fs__world_llm_sync_all(w);
		fs__world_llm_kv_account_all(w);
		fs__recorder_kv_total(&w->rec, w->now_ns, w->kv_total_llm);
	}
}

/* Fold one instance's waiting count and KV use into the world totals. */
static void sync_levels(struct fs_world *w, struct fs__instance *in)
{
	int64_t waiting = in->engine != NULL ? fs_llm_engine_waiting(in->engine) : 0;
	int64_t kv = in->engine != NULL ? fs_llm_engine_kv_used(in->engine) : 0;

	w->waiting_llm = w->waiting_llm + (uint64_t)waiting - (uint64_t)in->waiting;
	in->waiting = waiting;
	if (kv != in->kv_used)
		fs__world_llm_kv_level(w, in, kv, w->now_ns);
}

void fs__world_llm_kick(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	fs_ns dur_ns;

	if (in->engine == NULL)
		return;
	if (!in->stepping) {
		/* MODEL: V24 — a decode of the whole batch opens a run with its
		 * begin; a run of unchanged decodes ends at its last step */
		bool opened = fs_llm_engine_begin_run(in->engine, w->now_ns, &dur_ns);

		if (!opened)
			dur_ns = fs_llm_engine_begin_step(in->engine, w->now_ns);
		if (dur_ns >= 0) {
			in->stepping = true;
			in->step_begin_ns = w->now_ns;
			w->busy_insts++;
			fs__world_push_step(w, fs__world_run_open(w, in, dur_ns, opened), ii);
		}
	}
	sync_levels(w, in);
}

/* MODEL: V21 — a request routed to an idle instance does not start a step
 * at once: the instance is listed and started after the last event of this
 * instant, so every request arriving at the same ns joins its first step
 * (vLLM schedules at the next iteration boundary, which sees them all).
 * O(1) per routed request; nothing when the instance is already stepping. */
static void kick_later(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];

	if (!in->stepping && !in->kick_pending) {
		in->kick_pending = true;
		fs_xgrow((void **)&w->kicks, &w->cap_kicks, w->n_kicks + 1, sizeof *w->kicks);
		w->kicks[w->n_kicks++] = ii;
	}
	sync_levels(w, in);
}

void fs__world_llm_flush_kicks(struct fs_world *w)
{
	size_t i;

	for (i = 0; i < w->n_kicks; i++) {
		w->insts[w->kicks[i]].kick_pending = false;
		fs__world_llm_kick(w, w->kicks[i]);
	}
	w->n_kicks = 0;
	fs__world_llm_note_levels(w);
}

/* The list of serving instances in index order and, for the
 * least_outstanding router, its tournament tree.  O(instances), after each
 * fleet event that routing follows. */
static void serving_rebuild(struct fs_world *w)
{
	size_t i;

	w->n_serving = 0;
	for (i = 0; i < w->n_insts; i++) {
		struct fs__instance *in = &w->insts[i];

		in->serving_pos = UINT32_MAX;
		if (in->state != FS__INST_SERVING)
			continue;
		fs_xgrow((void **)&w->serving, &w->cap_serving, w->n_serving + 1,
		         sizeof *w->serving);
		in->serving_pos = (uint32_t)w->n_serving;
		w->serving[w->n_serving++] = (uint32_t)i;
	}
	if (w->fleet->router == FS_ROUTER_LEAST_OUTSTANDING && w->n_serving > 0) {
		int64_t *keys = fs_xmalloc(w->n_serving * sizeof *keys);

		for (i = 0; i < w->n_serving; i++)
			keys[i] = (int64_t)w->insts[w->serving[i]].outstanding;
		fs_min_tree_build(&w->lo_tree, keys, w->n_serving);
		free(keys);
	}
	w->serving_dirty = false;
}

/* in->outstanding changed: keep the least_outstanding tree in step. */
static void outstanding_changed(struct fs_world *w, const struct fs__instance *in)
{
	if (!w->serving_dirty && w->fleet->router == FS_ROUTER_LEAST_OUTSTANDING &&
	    in->serving_pos != UINT32_MAX && in->serving_pos < w->n_serving)
		fs_min_tree_set(&w->lo_tree, in->serving_pos, (int64_t)in->outstanding);
}

/* Candidates: serving instances (of the class's pinned pool, if any) for
 * the request in `slot`. */
static size_t candidates(struct fs_world *w, int pinned_pool, uint32_t slot)
{
	const struct fs__slot *s = &w->slots[slot];
	size_t i, n = 0;

	size_t k, n_scan;

	/* KV use and prefix caches move during runs: bring them up to now */
	if (w->fleet->router == FS_ROUTER_LEAST_KV || w->fleet->router == FS_ROUTER_PREFIX)
		fs__world_llm_sync_all(w);
	/* Outside fleet events the serving set cannot change: scan the list of
	 * serving instances (in index order, as a full scan would meet them). */
	if (!w->in_fleet_event && w->serving_dirty)
		serving_rebuild(w);
	n_scan = w->in_fleet_event ? w->n_insts : w->n_serving;
	for (k = 0; k < n_scan; k++) {
		const struct fs__instance *in;
		struct fs_route_candidate *c;

		i = w->in_fleet_event ? k : w->serving[k];
		in = &w->insts[i];
		if (in->state != FS__INST_SERVING)
			continue;
		if (pinned_pool >= 0 && in->pool != (uint32_t)pinned_pool)
			continue;
		fs_xgrow((void **)&w->cand, &w->cap_cand, n + 1, sizeof *w->cand);
		c = &w->cand[n++];
		c->id = (uint32_t)i;
		c->outstanding = in->outstanding;
		c->kv_frac = (double)in->kv_used /
		             (double)w->pools[in->pool].cfg->llm->sched.kv_blocks;
		/* Only the cost-aware router reads the price (a per-arrival cost);
		 * an overflow instance costs its overflow price (MODEL: B6). */
		c->price_usd_per_h = w->fleet->router != FS_ROUTER_COST_AWARE ? 0 :
		                     in->overflow ? w->pools[in->pool].cfg->overflow_usd_per_h :
		                     fs_billing_price_at(w->pools[in->pool].cfg, w->now_ns);
		c->max_num_seqs = w->pools[in->pool].cfg->llm->sched.max_num_seqs;
		/* MODEL: R6 — the prefix router probes each instance's cache. */
		c->prefix_blocks = w->fleet->router != FS_ROUTER_PREFIX ? 0 :
		                   fs_llm_engine_prefix_match(in->engine, &s->req.block_hashes,
		                                              s->req.prompt_tokens +
		                                              s->carried_tokens);
	}
	return n;
}

static void fail_request(struct fs_world *w, uint32_t slot)
{
	const struct fs__slot *s = &w->slots[slot];

	fs__recorder_failed(&w->rec, &s->req, s->start_ns, s->first_token_ns, w->now_ns);
	w->failures++;
	fs__world_slot_end(w, slot, false, 0);
}

/* The pool the request in `slot` is pinned to, -1 none. */
static int slot_pinned_pool(const struct fs_world *w, uint32_t slot)
{
	return w->fleet->class_pool != NULL ?
	       w->fleet->class_pool[w->slots[slot].req.class_idx] : -1;
}

/* Hand a request to an instance; false when none can take it now.
 * arrival: a new request (else one queued or moved before), counted as
 * an arrival for the instance's pool. */
static bool route(struct fs_world *w, uint32_t slot, bool arrival)
{
	struct fs__slot *s = &w->slots[slot];
	const struct fs_class_cfg *cls = &w->sc->workload.classes[s->req.class_idx];
	int pinned = slot_pinned_pool(w, slot);
	size_t n, pick;
	struct fs__instance *in;
	enum fs_llm_reject why;
	int64_t least, running;
	uint32_t pos;
	struct fs_route_request rq = {.session = s->req.block_hashes.session};

	if (w->fleet->router == FS_ROUTER_LEAST_OUTSTANDING && pinned < 0 &&
	    !w->in_fleet_event) {
		/* MODEL: R2 — the same choice as the scan, in O(log n) */
		if (w->serving_dirty)
			serving_rebuild(w);
		if (w->n_serving == 0)
			return false;
		FS__WORLD_CHECK(w, fs_min_tree_peek(&w->lo_tree, &least, &pos) &&
		                pos < w->n_serving, "least_outstanding tree out of step");
		s->instance = w->serving[pos];
	} else {
		n = candidates(w, pinned, slot);
		if (n == 0)
			return false;
		pick = fs_router_pick_for(w->fleet->router, w->cand, n, &w->router,
		                          w->routing_rng, &rq);
		s->instance = w->cand[pick].id;
	}
	in = &w->insts[s->instance];
	fs__world_run_cut(w, s->instance);      /* MODEL: V24 — it joins the next step */
	/* MODEL: F6 — a request moved off a reclaimed instance is prefilled again
	 * with the tokens it already produced. */
	why = fs_llm_engine_add_hashed(in->engine, slot,
	                               s->req.prompt_tokens + s->carried_tokens,
	                               s->req.output_tokens - s->carried_tokens,
	                               cls->priority, s->req.id, &s->req.block_hashes);
	if (why != FS_LLM_ACCEPTED) {
		fail_request(w, slot);                   /* MODEL: V11 */
		return true;
	}
	s->routed = true;
	/* its prefill will likely be the next step's only one, beside the
	 * running requests' decodes */
	running = fs_llm_engine_running(in->engine);
	fs_perf_step_cache_prefetch(in->cost->cache,
	                            s->req.prompt_tokens + s->carried_tokens + running,
	                            running + 1);
	in->outstanding++;
	outstanding_changed(w, in);
	if (arrival)
		w->pools[in->pool].arrived++;                /* MODEL: A10 */
	kick_later(w, s->instance);
	return true;
}

uint64_t fs__world_llm_unrouted_for(const struct fs_world *w, uint32_t p)
{
	return w->n_unrouted_free + w->pools[p].unrouted_pinned;
}

uint64_t fs__world_llm_arrived_for(const struct fs_world *w, uint32_t p)
{
	return w->pools[p].arrived + w->arrived_free;
}

static void unrouted_push(struct fs_world *w, uint32_t slot, bool arrival)
{
	int pinned = slot_pinned_pool(w, slot);

	if (pinned >= 0) {
		w->pools[pinned].unrouted_pinned++;
		w->pools[pinned].arrived += arrival;         /* MODEL: A10 */
	} else {
		w->n_unrouted_free++;
		w->arrived_free += arrival;
	}
	w->slots[slot].next_free = FS__WORLD_NO_SLOT;
	if (w->unrouted_tail == FS__WORLD_NO_SLOT)
		w->unrouted_head = slot;
	else
		w->slots[w->unrouted_tail].next_free = slot;
	w->unrouted_tail = slot;
	w->n_unrouted++;
}

static void route_or_wait(struct fs_world *w, uint32_t slot, bool arrival)
{
	if (!route(w, slot, arrival))
		unrouted_push(w, slot, arrival);    /* MODEL: F5 */
}

void fs__world_llm_arrival(struct fs_world *w, uint32_t slot)
{
	route_or_wait(w, slot, true);
	fs__world_llm_note_levels(w);
}

void fs__world_llm_instance_ready(struct fs_world *w, uint32_t ii)
{
	uint32_t slot = w->unrouted_head;
	uint64_t n = w->n_unrouted;

	(void)ii;
	w->unrouted_head = w->unrouted_tail = FS__WORLD_NO_SLOT;
	w->n_unrouted = w->n_unrouted_free = 0;
	for (size_t p = 0; p < w->fleet->n_pools; p++)
		w->pools[p].unrouted_pinned = 0;
	while (n-- > 0) {
		uint32_t next = w->slots[slot].next_free;

		route_or_wait(w, slot, false);
		slot = next;
	}
	fs__world_llm_note_levels(w);
}

void fs__world_llm_record_step(struct fs_world *w, struct fs__instance *in,
                               const struct fs_llm_report *rep, double flops,
                               double bytes)
{
	struct fs__cost_ctx *c = in->cost;
	double dur_ns = (double)(rep->end_ns - rep->begin_ns);

	in->busy_ns += dur_ns;
	in->tokens_processed += (double)(rep->shape.prefill_tokens + rep->shape.decode_seqs);
	fs__rec_pool_busy(&w->rec, in->pool, dur_ns);
	fs__recorder_llm_step(&w->rec, in->pool, rep->begin_ns, rep->end_ns, rep->shape.n_seqs,
	                      rep->shape.prefill_tokens, rep->tokens_generated,
	                      rep->n_preempted, flops, bytes, c->peak_flops_per_s,
	                      c->peak_bytes_per_s, (double)rep->kv_used_blocks * dur_ns);
	fs__recorder_prefix(&w->rec, rep->begin_ns, &rep->prefix);
}

/* Record a first token of pool p for the autoscaler's ttft_p90 metric
 * (only the scaled pool, only with that metric; world_scale.c reads and
 * trims the marks). */
static void note_ttft(struct fs_world *w, uint32_t p, fs_ns ttft_ns)
{
	const struct fs_autoscale_cfg *ac = &w->fleet->autoscale;
	struct fs__pool *pool = &w->pools[p];

	if (!ac->enabled || ac->metric != FS_SCALE_TTFT_P90 || (uint32_t)ac->pool != p)
		return;
	fs_xgrow((void **)&pool->ttfts, &pool->cap_ttfts, pool->n_ttfts + 1,
	         sizeof *pool->ttfts);
	pool->ttfts[pool->n_ttfts].t_ns = w->now_ns;
	pool->ttfts[pool->n_ttfts++].ttft_ns = ttft_ns;
}

void fs__world_llm_step_done(struct fs_world *w, uint32_t ii)
{
	struct fs__instance *in = &w->insts[ii];
	struct fs_llm_report rep;
	double flops, bytes;
	fs_ns run_end_ns = 0, admit_dur_ns = 0;
	bool go_on, admitted, joined;
	size_t i;

	FS__WORLD_CHECK(w, in->stepping && in->engine != NULL, "step end on an idle instance");
	if (fs__world_run_extend(w, ii))
		return;                          /* MODEL: V24 — the run goes on */
	fs__world_run_sync(w, ii);
	FS__WORLD_CHECK(w, in->run_j + 1 >= in->run_n, "run ended early");
	fs__world_run_step_work(in, &flops, &bytes);
	/* MODEL: V24 — past a completion with nothing else changing, the run
	 * goes on with the requests left: the next step begins now, as the
	 * kick below would begin it */
	go_on = fs__world_run_continue(w, in, &rep, &run_end_ns);
	/* MODEL: V24 — a run cut by an arrival ends (past a completion, too)
	 * and the next step, with the admissions, begins in one pass: as the
	 * end and the kick below */
	admitted = !go_on && in->run_n > 0 &&
	           (fs_llm_engine_run_admit(in->engine, w->now_ns, &rep, &admit_dur_ns) ||
	            fs_llm_engine_run_continue_admit(in->engine, w->now_ns, &rep,
	                                             &admit_dur_ns));
	/* MODEL: V24 — the end of that mixed step: the admitted requests join
	 * the run and its next step begins, as the end and the kick below */
	joined = !go_on && !admitted && in->run_n == 0 &&
	         fs_llm_engine_run_join(in->engine, w->now_ns, &rep, &admit_dur_ns);
	/* MODEL: V24 — or, with requests that arrived during it waiting, they
	 * join and the next step admits those: as the end and the kick below */
	admitted = admitted ||
	           (!go_on && !joined && in->run_n == 0 &&
	            fs_llm_engine_run_join_admit(in->engine, w->now_ns, &rep, &admit_dur_ns));
	if (!go_on && !admitted && !joined) {
		fs_llm_engine_end_step(in->engine, w->now_ns, &rep);
		in->stepping = false;
		in->run_n = 0;
		w->busy_insts--;
	}
	/* MODEL: V19 — queue delay ends at the start of the first iteration
	 * that schedules the request; its first token at the end of the
	 * iteration that completes its prefill (a request moved off a reclaimed
	 * instance keeps both). */
	for (i = 0; i < rep.n_started; i++) {
		w->slots[rep.started[i]].computed_here = true;     /* MODEL: F6 */
		if (w->slots[rep.started[i]].start_ns < 0)
			w->slots[rep.started[i]].start_ns = rep.begin_ns;
	}
	for (i = 0; i < rep.n_first_token; i++) {
		struct fs__slot *s = &w->slots[rep.first_token[i]];

		if (s->first_token_ns < 0) {
			s->first_token_ns = w->now_ns;
			note_ttft(w, in->pool, w->now_ns - s->req.arrival_ns);
		} else if (s->carried_token_ns >= 0) {
			/* MODEL: F6 — a moved request's first token here follows
			 * the last one it streamed before the move: that gap is
			 * one of its inter-token latencies */
			fs__recorder_itl(&w->rec, w->now_ns, w->now_ns - s->carried_token_ns, 1,
			                 NULL);
		}
	}
	fs__recorder_itl(&w->rec, w->now_ns, rep.end_ns - rep.begin_ns,
	                 (uint64_t)rep.itl_regular_seqs, &in->itl_hint);
	for (i = 0; i < rep.n_itl_gaps; i++)
		fs__recorder_itl(&w->rec, w->now_ns, rep.itl_gaps[i].gap_ns, 1, NULL);
	for (i = 0; i < rep.n_done; i++) {
		uint32_t slot = rep.done[i].slot;
		const struct fs__slot *s = &w->slots[slot];
		int64_t out_tokens = s->carried_tokens + rep.done[i].output_tokens;

		fs__recorder_completion(&w->rec, &s->req, s->start_ns, s->first_token_ns,
		                        w->now_ns, out_tokens);
		fs__rec_served(&w->rec, out_tokens);
		w->completions++;
		in->outstanding--;
		outstanding_changed(w, in);
		fs__world_slot_end(w, slot, true, out_tokens);
	}
	for (i = 0; i < rep.n_rejected; i++) {
		in->outstanding--;
		outstanding_changed(w, in);
		fail_request(w, rep.rejected[i].slot);
	}
	fs__world_llm_record_step(w, in, &rep, flops, bytes);
	if (go_on) {
		in->step_begin_ns = w->now_ns;
		fs__world_push_step(w, run_end_ns, ii);
		sync_levels(w, in);
	} else if (admitted || joined) {
		in->step_begin_ns = w->now_ns;
		fs__world_push_step(w, fs__world_run_open(w, in, admit_dur_ns, joined),
		                    ii);
		sync_levels(w, in);
	} else {
		fs__world_llm_kick(w, ii);
	}
	fs__world_llm_note_levels(w);
}

void fs__world_llm_evacuate(struct fs_world *w, uint32_t ii, bool fail)
{
	struct fs__instance *in = &w->insts[ii];
	const struct fs_llm_evacuee *ev;
	size_t n, i;

	if (in->engine == NULL)
		return;
	if (in->stepping) {
		/* The iteration in flight is abandoned: its time was spent. */
		fs__world_run_sync(w, ii);
		in->run_n = 0;
		in->run_more = false;
		fs_min_tree_clear(&w->steps, ii);
		in->busy_ns += (double)(w->now_ns - in->step_begin_ns);
		fs__rec_pool_busy(&w->rec, in->pool, (double)(w->now_ns - in->step_begin_ns));
		in->stepping = false;
		w->busy_insts--;
	}
	fs_llm_engine_evacuate(in->engine, &ev, &n);
	sync_levels(w, in);
	for (i = 0; i < n; i++) {
		uint32_t slot = ev[i].slot;
		struct fs__slot *s = &w->slots[slot];

		in->outstanding--;
		outstanding_changed(w, in);
		s->routed = false;
		if (fail) {
			fs__rec_reclaim_fail(&w->rec, in->pool);   /* MODEL: F17 */
			fail_request(w, slot);           /* MODEL: F7 */
			continue;
		}
		/* MODEL: F6 — what it had computed there is lost; a request this
		 * instance never scheduled (waiting there, or moved here from
		 * another reclaimed instance) lost nothing here. */
		if (s->computed_here) {
			double lost = (double)(s->req.prompt_tokens + s->carried_tokens +
			                       ev[i].generated);

			in->tokens_lost += lost;
			fs__rec_recompute(&w->rec, (int64_t)lost);
		}
		s->computed_here = false;
		s->carried_tokens += ev[i].generated;
		if (ev[i].generated > 0)
			s->carried_token_ns = ev[i].last_token_ns;
		fs__rec_reclaim_requeue(&w->rec, in->pool);   /* MODEL: F17 */
		route_or_wait(w, slot, false);      /* a move, no arrival */
	}
	FS__WORLD_CHECK(w, in->outstanding == 0, "requests left on an evacuated instance");
	fs__world_llm_note_levels(w);
}
