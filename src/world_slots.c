/*
 * world_slots.c — the request slot pool of a world (index + free list; a
 * slot is reused once its request has left) and the always-on failure
 * report the world's invariant checks use.  Shared by world.c and the engine
 * drivers.
 */
#include "world_state.h"

#include <stdio.h>
#include <stdlib.h>

_Noreturn void fs__world_fail(const struct fs_world *w, const char *what,
                              const char *file, int line)
{
	fprintf(stderr, "fleetsim: internal error at %s:%d: %s (t=%lld ns)\n",
	        file, line, what, (long long)w->now_ns);
	abort();
}

uint32_t fs__world_slot_alloc(struct fs_world *w, const struct fs_request *req)
{
	struct fs__slot *s;
	uint32_t i;

	if (w->free_head != FS__WORLD_NO_SLOT) {
		i = w->free_head;
		w->free_head = w->slots[i].next_free;
	} else {
		fs_xgrow((void **)&w->slots, &w->cap_slots, w->n_slots + 1,
		         sizeof *w->slots);
		i = (uint32_t)w->n_slots++;
	}
	s = &w->slots[i];
	s->req = *req;
	s->service_ns = 0;
	s->start_ns = -1;
	s->first_token_ns = -1;
	s->carried_tokens = 0;
	s->carried_token_ns = -1;
	s->computed_here = false;
	s->routed = false;
	s->instance = 0;
	s->next_free = FS__WORLD_NO_SLOT;
	s->agent = FS_WORKLOAD_NO_AGENT;
	s->in_use = true;
	w->in_system++;
	return i;
}

void fs__world_slot_release(struct fs_world *w, uint32_t i)
{
	FS__WORLD_CHECK(w, i < w->n_slots && w->slots[i].in_use, "release of a free slot");
	w->slots[i].in_use = false;
	w->slots[i].next_free = w->free_head;
	w->free_head = i;
	w->in_system--;
}

void fs__world_slot_end(struct fs_world *w, uint32_t i, bool completed,
                        int64_t output_tokens)
{
	uint32_t agent = w->slots[i].agent;

	if (agent != FS_WORKLOAD_NO_AGENT) {
		/* MODEL: U1 — the response (or the failure) reaches the user now. */
		fs_ns next_ns = fs_workload_user_done(w->workload, agent, w->now_ns,
		                                      completed, output_tokens);

		if (next_ns != FS_NS_MAX && !w->draining)
			fs_eventq_push(w->q, next_ns, FS_EV_USER_SEND, agent, 0);
	}
	fs__world_slot_release(w, i);
}
