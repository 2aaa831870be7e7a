/*
 * world_llm.c — the world's driver of LLM replicas: requests are routed to
 * the replica with the fewest outstanding requests, each replica runs one
 * engine iteration at a time (a STEP_DONE event per iteration in flight), and
 * a new iteration starts the instant the previous one ends while work
 * remains.  Step times come from the scenario's step-time model.
 */
#include "world_state.h"

#include <stdlib.h>

/* The engine's cost callback: the step-time model, keeping the modelled
 * work of the step for achieved-MFU/MBU figures. */
static fs_ns price_step(void *ctx, const struct fs_step_shape *shape)
{
	struct fs__replica *r = ctx;
	struct fs_step_cost cost;

	fs_perf_step_cost(r->perf, shape, &cost);
	r->step_flops = cost.flops;
	r->step_bytes = cost.bytes;
	if (r->perf->table != NULL)
		return fs_perf_step_ns(r->perf, shape);
	return cost.total_ns;
}

/* Fold the change of one replica's waiting count and KV use since the
 * *_before readings into the world totals (call after the replica's engine
 * calls of an event, begin_step included). */
static void sync_levels(struct fs_world *w, struct fs__replica *r,
                        int64_t *waiting_before, int64_t *kv_before)
{
	int64_t waiting = fs_llm_engine_waiting(r->engine);
	int64_t kv = fs_llm_engine_kv_used(r->engine);

	w->waiting_llm = w->waiting_llm + (uint64_t)waiting - (uint64_t)*waiting_before;
	w->kv_used_llm += kv - *kv_before;
	*waiting_before = waiting;
	*kv_before = kv;
}

static void note_levels(struct fs_world *w)
{
	fs__recorder_levels(&w->rec, w->now_ns, w->waiting_llm, (int)w->busy_replicas,
	                    w->kv_used_llm);
}

static void start_step(struct fs_world *w, uint32_t ri)
{
	struct fs__replica *r = &w->replicas[ri];
	fs_ns dur_ns;

	if (r->stepping)
		return;
	dur_ns = fs_llm_engine_begin_step(r->engine, w->now_ns);
	if (dur_ns < 0)
		return;                                  /* idle */
	r->stepping = true;
	w->busy_replicas++;
	fs_eventq_push(w->q, w->now_ns + dur_ns, FS_EV_STEP_DONE, ri, 0);
}

/* MODEL: V18 — least outstanding requests; ties go to the lowest index. */
static uint32_t route(const struct fs_world *w)
{
	uint32_t best = 0, i;

	for (i = 1; i < w->n_replicas; i++)
		if (w->replicas[i].outstanding < w->replicas[best].outstanding)
			best = i;
	return best;
}

void fs__world_llm_init(struct fs_world *w)
{
	const struct fs_llm_cfg *llm = &w->sc->engine.llm;
	struct fs_error err;
	uint32_t i;

	w->n_replicas = (uint32_t)llm->replicas;
	w->replicas = fs_xcalloc(w->n_replicas, sizeof *w->replicas);
	for (i = 0; i < w->n_replicas; i++) {
		struct fs__replica *r = &w->replicas[i];

		r->perf = &llm->perf;
		r->engine = fs_llm_engine_alloc(&llm->sched, price_step, r, &err);
		if (r->engine == NULL) {
			fs_error_print(&err);
			fs__world_fail(w, "engine configuration rejected after loading",
			               __FILE__, __LINE__);
		}
	}
}

void fs__world_llm_fini(struct fs_world *w)
{
	uint32_t i;

	for (i = 0; i < w->n_replicas; i++)
		fs_llm_engine_free(w->replicas[i].engine);
	free(w->replicas);
	w->replicas = NULL;
	w->n_replicas = 0;
}

int64_t fs__world_llm_kv_total(const struct fs_world *w)
{
	return (int64_t)w->n_replicas * w->sc->engine.llm.sched.kv_blocks;
}

static void fail_request(struct fs_world *w, uint32_t slot)
{
	const struct fs__slot *s = &w->slots[slot];

	fs__recorder_failed(&w->rec, &s->req, s->start_ns, s->first_token_ns, w->now_ns);
	w->failures++;
	fs__world_slot_release(w, slot);
}

void fs__world_llm_arrival(struct fs_world *w, uint32_t slot)
{
	struct fs__slot *s = &w->slots[slot];
	const struct fs_class_cfg *cls = &w->sc->workload.classes[s->req.class_idx];
	uint32_t ri = route(w);
	struct fs__replica *r = &w->replicas[ri];
	int64_t waiting_before = fs_llm_engine_waiting(r->engine);
	int64_t kv_before = fs_llm_engine_kv_used(r->engine);
	enum fs_llm_reject why;

	why = fs_llm_engine_add(r->engine, slot, s->req.prompt_tokens,
	                        s->req.output_tokens, cls->priority, s->req.id);
	if (why != FS_LLM_ACCEPTED) {
		fail_request(w, slot);                   /* MODEL: V11 */
		return;
	}
	s->replica = ri;
	r->outstanding++;
	start_step(w, ri);
	sync_levels(w, r, &waiting_before, &kv_before);
	note_levels(w);
}

void fs__world_llm_step_done(struct fs_world *w, uint32_t ri)
{
	struct fs__replica *r = &w->replicas[ri];
	int64_t waiting_before = fs_llm_engine_waiting(r->engine);
	int64_t kv_before = fs_llm_engine_kv_used(r->engine);
	struct fs_llm_report rep;
	size_t i;

	FS__WORLD_CHECK(w, r->stepping, "step end on an idle replica");
	fs_llm_engine_end_step(r->engine, w->now_ns, &rep);
	r->stepping = false;
	w->busy_replicas--;
	/* MODEL: V19 — queue delay ends at the start of the first iteration
	 * that schedules the request; its first token at the end of the
	 * iteration that completes its prefill. */
	for (i = 0; i < rep.n_started; i++)
		w->slots[rep.started[i]].start_ns = rep.begin_ns;
	for (i = 0; i < rep.n_first_token; i++)
		w->slots[rep.first_token[i]].first_token_ns = w->now_ns;
	fs__recorder_itl(&w->rec, w->now_ns, rep.end_ns - rep.begin_ns,
	                 (uint64_t)rep.itl_regular_seqs);
	for (i = 0; i < rep.n_itl_gaps; i++)
		fs__recorder_itl(&w->rec, w->now_ns, rep.itl_gaps[i].gap_ns, 1);
	for (i = 0; i < rep.n_done; i++) {
		uint32_t slot = rep.done[i].slot;
		const struct fs__slot *s = &w->slots[slot];

		fs__recorder_completion(&w->rec, &s->req, s->start_ns, s->first_token_ns,
		                        w->now_ns, rep.done[i].output_tokens);
		w->completions++;
		r->outstanding--;
		fs__world_slot_release(w, slot);
	}
	for (i = 0; i < rep.n_rejected; i++) {
		r->outstanding--;
		fail_request(w, rep.rejected[i].slot);
	}
	fs__recorder_step(&w->rec, rep.begin_ns, rep.end_ns, rep.shape.n_seqs,
	                  rep.shape.prefill_tokens, rep.tokens_generated,
	                  rep.n_preempted, r->step_flops, r->step_bytes);
	start_step(w, ri);
	sync_levels(w, r, &waiting_before, &kv_before);
	note_levels(w);
}
