/*
 * llm_waiting.c — the waiting line of one LLM replica: a binary min-heap of
 * request pool indices shared by both scheduling policies (see the comment
 * below).  O(log waiting) per push or pop; the heap array is reused.
 */
#include "fleetsim/llm_engine.h"

#include "llm_engine_internal.h"

/*
 * One binary min-heap serves both policies.  FCFS: key (0, position), where
 * the back takes increasing and the front decreasing positions, so the heap
 * is a deque (a preempted request goes to the front; MODEL: V8).  Priority:
 * key (priority, arrival_seq); a preempted request is simply re-inserted
 * (MODEL: V13).  The slot breaks any remaining tie, so order is total.
 */
static bool wait_before(const struct llm_seq *a, const struct llm_seq *b)
{
	if (a->wait_key1 != b->wait_key1)
		return a->wait_key1 < b->wait_key1;
	if (a->wait_key2 != b->wait_key2)
		return a->wait_key2 < b->wait_key2;
	return a->slot < b->slot;
}

void fs__llm_wait_push(struct fs_llm_engine *e, uint32_t idx, bool front)
{
	struct llm_seq *s = &e->seqs[idx];
	size_t i;

	if (e->cfg.policy == FS_LLM_POLICY_PRIORITY) {
		s->wait_key1 = s->priority;
		s->wait_key2 = (int64_t)s->arrival_seq;
	} else {
		s->wait_key1 = 0;
		s->wait_key2 = front ? --e->front_pos : e->back_pos++;
	}
	fs_xgrow((void **)&e->waiting, &e->cap_waiting, e->n_waiting + 1,
	         sizeof *e->waiting);
	i = e->n_waiting++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!wait_before(s, &e->seqs[e->waiting[parent]]))
			break;
		e->waiting[i] = e->waiting[parent];
		i = parent;
	}
	e->waiting[i] = idx;
}

uint32_t fs__llm_wait_pop(struct fs_llm_engine *e)
{
	uint32_t top = e->waiting[0];
	uint32_t last = e->waiting[--e->n_waiting];
	size_t i = 0;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= e->n_waiting)
			break;
		if (child + 1 < e->n_waiting &&
		    wait_before(&e->seqs[e->waiting[child + 1]], &e->seqs[e->waiting[child]]))
			child++;
		if (!wait_before(&e->seqs[e->waiting[child]], &e->seqs[last]))
			break;
		e->waiting[i] = e->waiting[child];
		i = child;
	}
	if (e->n_waiting > 0)
		e->waiting[i] = last;
	return top;
}
