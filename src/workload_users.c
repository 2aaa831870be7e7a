/*
 * workload_users.c — closed-loop users and multi-turn sessions of one
 * workload (MODEL: U1-U9).  An agent is a user of a class with `users` (fixed
 * index, never freed) or an open session started by an arrival (freed when
 * its session ends).  The world tells an agent when its request ended; the
 * agent answers with the time of its next request.  Think times and turn
 * counts draw from per-class THINK and TURNS streams; prompt and output
 * lengths from the class's own length streams (borrowed from workload.c).
 * Also the offered load of a class (U10), a pure function of its config, for
 * capacity sizing.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "fleetsim/qengine.h"
#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "fleetsim/block_hash.h"
#include "workload_internal.h"

#define OPEN_AGENT UINT32_MAX        /* agent.user of an open session */

struct agent {
	uint32_t cls;
	uint32_t user;               /* index among its class's users, or OPEN_AGENT */
	uint64_t session_id;         /* current session, 0: none */
	uint32_t turn;               /* turn of the request in flight (or next) */
	uint32_t turns;              /* turns of the current session */
	int64_t history_tokens;      /* prompts and outputs of its earlier turns */
	int64_t pending_prompt;      /* prompt of the request in flight */
	uint32_t next_free;          /* free list of open-session agents */
};

struct fs__users {
	const struct fs_workload_cfg *cfg;
	const struct fs_sim_cfg *sim;
	struct fs_rng **rng_think;   /* per class: FS_STREAM_THINK (NULL: open class) */
	struct fs_rng **rng_turns;   /* per class: FS_STREAM_TURNS */
	struct fs_rng *const *rng_prompt;   /* borrowed, per class */
	struct fs_rng *const *rng_output;
	struct agent *agents;
	size_t n_agents, cap_agents;
	size_t n_users;              /* agents [0, n_users) are users */
	uint32_t free_head;
	uint64_t next_session;
};

struct fs__users *fs__users_alloc(const struct fs_workload_cfg *cfg,
                                  const struct fs_sim_cfg *sim, uint64_t seed,
                                  uint64_t replication, struct fs_rng *const *rng_prompt,
                                  struct fs_rng *const *rng_output)
{
	struct fs__users *u = fs_xcalloc(1, sizeof *u);

	u->cfg = cfg;
	u->sim = sim;
	u->rng_prompt = rng_prompt;
	u->rng_output = rng_output;
	u->free_head = FS_WORKLOAD_NO_AGENT;
	u->rng_think = fs_xcalloc(cfg->n_classes + 1, sizeof *u->rng_think);
	u->rng_turns = fs_xcalloc(cfg->n_classes + 1, sizeof *u->rng_turns);
	for (size_t c = 0; c < cfg->n_classes; c++) {
		const struct fs_closed_cfg *cc = cfg->classes[c].closed;

		if (cc == NULL)
			continue;
		/* MODEL: U8 — the class's own think and turn streams. */
		u->rng_think[c] = fs_rng_alloc(seed, replication, FS_STREAM_THINK, (uint32_t)c);
		u->rng_turns[c] = fs_rng_alloc(seed, replication, FS_STREAM_TURNS, (uint32_t)c);
		if (!cc->has_users)
			continue;
		for (int64_t i = 0; i < cc->users_max; i++) {   /* MODEL: U1 */
			struct agent *a;

			fs_xgrow((void **)&u->agents, &u->cap_agents, u->n_agents + 1,
			         sizeof *u->agents);
			a = &u->agents[u->n_agents++];
			*a = (struct agent){ .cls = (uint32_t)c, .user = (uint32_t)i };
		}
	}
	u->n_users = u->n_agents;
	return u;
}

void fs__users_free(struct fs__users *u)
{
	if (u == NULL)
		return;
	for (size_t c = 0; c < u->cfg->n_classes; c++) {
		fs_rng_free(u->rng_think[c]);
		fs_rng_free(u->rng_turns[c]);
	}
	free(u->rng_think);
	free(u->rng_turns);
	free(u->agents);
	free(u);
}

size_t fs__users_count(const struct fs__users *u)
{
	return u->n_users;
}

/* Users of cc logged on at t_ns: the last schedule step at or before t
 * (within the period when it repeats).  O(n_schedule).  MODEL: U2 */
static int64_t users_at(const struct fs_closed_cfg *cc, fs_ns t_ns)
{
	int64_t n = 0;

	if (cc->n_schedule == 0)
		return cc->users;
	if (cc->schedule_period_ns > 0)
		t_ns %= cc->schedule_period_ns;
	for (size_t k = 0; k < cc->n_schedule && cc->schedule[k].at_ns <= t_ns; k++)
		n = cc->schedule[k].users;
	return n;
}

/* The first schedule step after t_ns at which user i is logged on, or
 * FS_NS_MAX when none comes.  Called only while user i is logged off. */
static fs_ns next_logon(const struct fs_closed_cfg *cc, uint32_t i, fs_ns t_ns)
{
	fs_ns base = 0, local = t_ns, period = cc->schedule_period_ns;

	if (cc->n_schedule == 0)
		return FS_NS_MAX;
	if (period > 0) {
		base = t_ns - t_ns % period;
		local = t_ns % period;
	}
	for (int lap = 0; lap < 2; lap++) {
		for (size_t k = 0; k < cc->n_schedule; k++) {
			if (lap == 0 && cc->schedule[k].at_ns <= local)
				continue;
			if (cc->schedule[k].users > (int64_t)i)
				return base + lap * period + cc->schedule[k].at_ns;
		}
		if (period == 0)
			break;
	}
	return FS_NS_MAX;
}

/* One think time (0 in benchmark mode, without a draw).  MODEL: U3 */
static fs_ns think_ns(const struct fs_service_cfg *d, struct fs_rng *r)
{
	if (d->mean_ns <= 0)
		return 0;
	return fs_qengine_draw_service_ns(d, r);
}

/* A user's next request after thinking from t_ns with `think`: logged off
 * then, it waits for its next log-on and thinks again from there.
 * FS_NS_MAX when that falls at or after the horizon.  MODEL: U2, U3 */
static fs_ns user_next(struct fs__users *u, const struct agent *a, fs_ns t_ns,
                       const struct fs_service_cfg *think)
{
	const struct fs_closed_cfg *cc = u->cfg->classes[a->cls].closed;
	fs_ns t = t_ns + think_ns(think, u->rng_think[a->cls]);

	for (;;) {
		fs_ns on;

		if (t >= u->sim->horizon_ns)
			return FS_NS_MAX;                /* MODEL: E4 */
		if (users_at(cc, t) > (int64_t)a->user)
			return t;
		on = next_logon(cc, a->user, t);
		if (on >= u->sim->horizon_ns)
			return FS_NS_MAX;
		t = on + think_ns(&cc->think, u->rng_think[a->cls]);
	}
}

fs_ns fs__users_first(struct fs__users *u, uint32_t agent)
{
	const struct agent *a = &u->agents[agent];

	assert(agent < u->n_users);
	return user_next(u, a, 0, &u->cfg->classes[a->cls].closed->think);
}

static void start_session(struct fs__users *u, struct agent *a)
{
	const struct fs_closed_cfg *cc = u->cfg->classes[a->cls].closed;

	a->session_id = ++u->next_session;           /* MODEL: U4 */
	a->turn = 0;
	a->turns = (uint32_t)fs_length_sample(&cc->turns, u->rng_turns[a->cls]);
	a->history_tokens = 0;
}

/* The agent's next request at t_ns: turn k's prompt is the whole history
 * (earlier prompts and outputs) plus a new message.  MODEL: U4 */
static void fill(struct fs__users *u, struct agent *a, fs_ns t_ns, struct fs_request *req)
{
	const struct fs_class_cfg *cl = &u->cfg->classes[a->cls];
	int64_t msg;

	if (cl->closed->sessions && a->session_id == 0)
		start_session(u, a);
	msg = fs_length_sample(&cl->prompt, u->rng_prompt[a->cls]);
	req->class_idx = a->cls;
	req->arrival_ns = t_ns;
	req->prompt_tokens = a->history_tokens + msg;
	req->output_tokens = fs_length_sample(&cl->output, u->rng_output[a->cls]);
	req->session_id = a->session_id;
	req->turn = a->turn;
	req->block_hashes = (struct fs_block_hashes){ 0 };
	/* MODEL: V23 — a turn's tokens are the session's stream so far (its
	 * history, the new message, then its answer): hashed per 16-token unit
	 * of that stream, so the next turn finds this one's blocks cached. */
	if (a->session_id != 0)
		fs_block_hashes_session(&req->block_hashes, a->session_id,
		                        req->prompt_tokens + req->output_tokens, 16);
	a->pending_prompt = req->prompt_tokens;
}

void fs__users_take(struct fs__users *u, uint32_t agent, fs_ns t_ns, struct fs_request *req)
{
	assert(agent < u->n_agents);
	fill(u, &u->agents[agent], t_ns, req);
}

uint32_t fs__users_open(struct fs__users *u, uint32_t cls, fs_ns t_ns,
                        struct fs_request *req)
{
	uint32_t i;
	struct agent *a;

	if (u->free_head != FS_WORKLOAD_NO_AGENT) {
		i = u->free_head;
		u->free_head = u->agents[i].next_free;
	} else {
		fs_xgrow((void **)&u->agents, &u->cap_agents, u->n_agents + 1,
		         sizeof *u->agents);
		i = (uint32_t)u->n_agents++;
	}
	a = &u->agents[i];
	*a = (struct agent){ .cls = cls, .user = OPEN_AGENT,
	                     .next_free = FS_WORKLOAD_NO_AGENT };
	fill(u, a, t_ns, req);
	return i;
}

fs_ns fs__users_done(struct fs__users *u, uint32_t agent, fs_ns t_ns, bool completed,
                     int64_t output_tokens)
{
	struct agent *a = &u->agents[agent];
	const struct fs_closed_cfg *cc = u->cfg->classes[a->cls].closed;

	assert(agent < u->n_agents);
	if (a->session_id != 0) {
		/* MODEL: U5 — the next turn after the turn think time; a failed
		 * turn ends the session. */
		if (completed && a->turn + 1 < a->turns) {
			fs_ns next = a->user == OPEN_AGENT ?
				t_ns + think_ns(&cc->turn_think, u->rng_think[a->cls]) :
				user_next(u, a, t_ns, &cc->turn_think);

			a->history_tokens = a->pending_prompt + output_tokens;
			a->turn++;
			if (next < u->sim->horizon_ns)
				return next;
		}
		a->session_id = 0;
		a->turn = 0;
		a->history_tokens = 0;
	}
	if (a->user == OPEN_AGENT) {                     /* MODEL: U6 */
		a->next_free = u->free_head;
		u->free_head = agent;
		return FS_NS_MAX;
	}
	return user_next(u, a, t_ns, &cc->think);
}

/* Mean turns per session of cl (1 without sessions). */
static double turns_mean(const struct fs_class_cfg *cl)
{
	if (cl->closed == NULL || !cl->closed->sessions)
		return 1.0;
	return fs_length_mean(&cl->closed->turns);
}

double fs__users_offered_per_s(const struct fs_workload_cfg *wl, const struct fs_sim_cfg *sim,
                               size_t c, fs_ns t_ns, double response_s)
{
	const struct fs_class_cfg *cl = &wl->classes[c];
	const struct fs_closed_cfg *cc = cl->closed;
	double turns = turns_mean(cl), cycle_s, z_s, zt_s;

	if (cc == NULL || !cc->has_users) {
		double r = cl->own_arrivals ? fs_arrival_rate_at(&cl->arrivals, sim, t_ns) :
		           wl->has_shared_arrivals ?
		           cl->share * fs_arrival_rate_at(&wl->arrivals, sim, t_ns) : 0.0;

		return r * turns;                            /* MODEL: U6, U10 */
	}
	if (!(response_s >= 0) || !isfinite(response_s))
		response_s = 0;
	/* MODEL: U10 — a user's cycle of one session: `turns` responses,
	 * turns - 1 turn thinks and one think; without sessions one response
	 * and one think.  Little's law: N requests per cycle / cycle time. */
	z_s = (double)cc->think.mean_ns * 1e-9;
	zt_s = cc->sessions ? (double)cc->turn_think.mean_ns * 1e-9 : 0.0;
	cycle_s = turns * response_s + (turns - 1.0) * zt_s + z_s;
	if (!(cycle_s > 0) || !isfinite(turns))
		return 0.0;
	return (double)users_at(cc, t_ns) * turns / cycle_s;
}

double fs__users_mean_prompt_tokens(const struct fs_class_cfg *cl)
{
	double msg = fs_length_mean(&cl->prompt), turns = turns_mean(cl);

	if (turns <= 1.0)
		return msg;
	/* MODEL: U10 — turn k's prompt is k (message + answer) + a message;
	 * the mean turn index, (mean turns - 1) / 2, is exact for a fixed
	 * count and low for a spread one. */
	return msg + 0.5 * (turns - 1.0) * (msg + fs_length_mean(&cl->output));
}
