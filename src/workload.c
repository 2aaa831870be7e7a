/*
 * workload.c — request generation for one replication: arrival sources (the
 * shared process, then each class with its own), the class mix of shared
 * arrivals, and prompt/output lengths.  Every source and class draws from its
 * own RNG streams, so adding a class or a draw elsewhere never shifts another
 * stream.  Borrows the config; owns its RNGs and arrays.  No per-request
 * allocation.  MODEL: W1-W13 (arrivals), W17-W22 (lengths); closed-loop
 * users and sessions live in workload_users.c (U1-U9).
 */
#include <assert.h>
#include <stdlib.h>

#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "workload_internal.h"

struct source {
	struct fs__arrivals gen;     /* arrival times */
	struct fs_rng *rng_arrivals; /* FS_STREAM_ARRIVALS, index = source */
	struct fs_rng *rng_mix;      /* FS_STREAM_CLASS_MIX, index = source */
	long own_class;              /* class of an own process, -1 when shared */
	fs_ns next_ns;               /* pending arrival, FS_NS_MAX when none */
	const struct fs_trace_row *row;  /* trace row of the pending arrival */
	bool started;                /* fs_workload_first was called */
};

struct fs_workload {
	const struct fs_workload_cfg *cfg;
	const struct fs_sim_cfg *sim;
	struct source *src;
	size_t n_src;
	struct fs_rng **rng_prompt;  /* per class: FS_STREAM_PROMPT_LEN */
	struct fs_rng **rng_output;  /* per class: FS_STREAM_OUTPUT_LEN */
	double *cum_share;           /* per class: running sum of shared shares */
	double total_share;          /* sum of shares of classes without own arrivals */
	uint64_t next_id;
	struct fs__users *users;     /* closed-loop users and sessions */
	uint32_t taken_agent;        /* agent of the last fs_workload_take */
};

/*
 * Allocate the workload of replication `replication`: one source for the
 * shared process (if cfg->has_shared_arrivals) and one per class with
 * own_arrivals, in class order.  cfg and sim are borrowed and must outlive it.
 */
struct fs_workload *fs_workload_alloc(const struct fs_workload_cfg *cfg,
                                      const struct fs_sim_cfg *sim,
                                      uint64_t seed, uint64_t replication)
{
	struct fs_workload *w = fs_xcalloc(1, sizeof *w);
	size_t n = cfg->has_shared_arrivals ? 1 : 0;
	double sum = 0.0;

	w->cfg = cfg;
	w->sim = sim;
	for (size_t c = 0; c < cfg->n_classes; c++)
		n += cfg->classes[c].own_arrivals ? 1 : 0;
	w->n_src = n;
	w->src = fs_xcalloc(n > 0 ? n : 1, sizeof *w->src);
	n = 0;
	if (cfg->has_shared_arrivals) {
		w->src[0].own_class = -1;
		n = 1;
	}
	for (size_t c = 0; c < cfg->n_classes; c++)
		if (cfg->classes[c].own_arrivals)
			w->src[n++].own_class = (long)c;
	for (size_t s = 0; s < w->n_src; s++) {
		struct source *src = &w->src[s];
		const struct fs_arrival_cfg *acfg = src->own_class < 0 ? &cfg->arrivals :
		                                    &cfg->classes[src->own_class].arrivals;

		src->rng_arrivals = fs_rng_alloc(seed, replication, FS_STREAM_ARRIVALS,
		                                 (uint32_t)s);
		src->rng_mix = fs_rng_alloc(seed, replication, FS_STREAM_CLASS_MIX, (uint32_t)s);
		fs__arrivals_init(&src->gen, acfg, sim, src->rng_arrivals);
		src->next_ns = FS_NS_MAX;
	}

	w->rng_prompt = fs_xcalloc(cfg->n_classes + 1, sizeof *w->rng_prompt);
	w->rng_output = fs_xcalloc(cfg->n_classes + 1, sizeof *w->rng_output);
	w->cum_share = fs_xcalloc(cfg->n_classes + 1, sizeof *w->cum_share);
	for (size_t c = 0; c < cfg->n_classes; c++) {
		const struct fs_class_cfg *cl = &cfg->classes[c];

		w->rng_prompt[c] = fs_rng_alloc(seed, replication, FS_STREAM_PROMPT_LEN,
		                                (uint32_t)c);
		w->rng_output[c] = fs_rng_alloc(seed, replication, FS_STREAM_OUTPUT_LEN,
		                                (uint32_t)c);
		if (!cl->own_arrivals && cl->share > 0.0)   /* MODEL: W13 */
			sum += cl->share;
		w->cum_share[c] = sum;
	}
	w->total_share = sum;
	w->users = fs__users_alloc(cfg, sim, seed, replication, w->rng_prompt, w->rng_output);
	w->taken_agent = FS_WORKLOAD_NO_AGENT;
	return w;
}

/* Free the workload, its RNGs and arrays (NULL is fine). */
void fs_workload_free(struct fs_workload *w)
{
	if (w == NULL)
		return;
	for (size_t s = 0; s < w->n_src; s++) {
		fs_rng_free(w->src[s].rng_arrivals);
		fs_rng_free(w->src[s].rng_mix);
	}
	for (size_t c = 0; c < w->cfg->n_classes; c++) {
		fs_rng_free(w->rng_prompt[c]);
		fs_rng_free(w->rng_output[c]);
	}
	fs__users_free(w->users);
	free(w->src);
	free(w->rng_prompt);
	free(w->rng_output);
	free(w->cum_share);
	free(w);
}

/* Number of arrival sources (shared process first). */
size_t fs_workload_n_sources(const struct fs_workload *w)
{
	return w->n_src;
}

/* First arrival of source `src`; a shared source whose classes all have
 * their own arrivals (or zero shares) has none. */
fs_ns fs_workload_first(struct fs_workload *w, size_t src)
{
	struct source *s = &w->src[src];

	assert(src < w->n_src && !s->started);
	s->started = true;
	if (s->own_class < 0 && !(w->total_share > 0.0))
		s->next_ns = FS_NS_MAX;
	else
		s->next_ns = fs__arrivals_next(&s->gen, &s->row);
	return s->next_ns;
}

/* Class of a shared arrival: share-weighted choice among the classes without
 * their own arrivals, one uniform draw and a binary search.  MODEL: W13 */
static size_t pick_class(struct fs_workload *w, struct source *s)
{
	double u = fs_rng_uniform(s->rng_mix) * w->total_share;
	size_t lo = 0, hi = w->cfg->n_classes - 1;

	while (lo < hi) {               /* first class with cum_share > u */
		size_t mid = lo + (hi - lo) / 2;

		if (w->cum_share[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* Rounding could land on a class with no share: step back to one. */
	while (lo > 0 && (w->cfg->classes[lo].own_arrivals ||
	                  !(w->cfg->classes[lo].share > 0.0)))
		lo--;
	return lo;
}

/* A length for class c: from the trace row when the kind is TRACE and the
 * arrival came from a trace, else drawn from the class's stream.  MODEL: W22 */
static int64_t length_for(const struct fs_length_cfg *lc, struct fs_rng *r,
                          const struct fs_trace_row *row, bool prompt)
{
	if (lc->kind == FS_LENGTH_TRACE) {
		assert(row != NULL);
		if (row == NULL)
			return fs__length_clamp(lc, 1);
		return fs__length_clamp(lc, prompt ? row->prompt_tokens : row->output_tokens);
	}
	return fs_length_sample(lc, r);
}

/*
 * Take the request of source `src` due at t_ns: fills *req (id, class,
 * arrival, lengths) and returns the source's next arrival time or FS_NS_MAX.
 * O(log n_classes) plus the arrival generator's cost.
 */
fs_ns fs_workload_take(struct fs_workload *w, size_t src, fs_ns t_ns,
                       struct fs_request *req)
{
	struct source *s = &w->src[src];
	const struct fs_class_cfg *cl;
	size_t c;

	assert(src < w->n_src && s->started && t_ns == s->next_ns && t_ns != FS_NS_MAX);
	c = s->own_class >= 0 ? (size_t)s->own_class : pick_class(w, s);
	cl = &w->cfg->classes[c];
	req->id = w->next_id++;
	w->taken_agent = FS_WORKLOAD_NO_AGENT;
	if (cl->closed != NULL && cl->closed->sessions) {     /* MODEL: U6 */
		w->taken_agent = fs__users_open(w->users, (uint32_t)c, t_ns, req);
	} else {
		req->class_idx = (uint32_t)c;
		req->arrival_ns = t_ns;
		req->prompt_tokens = length_for(&cl->prompt, w->rng_prompt[c], s->row, true);
		req->output_tokens = length_for(&cl->output, w->rng_output[c], s->row, false);
		req->session_id = 0;
		req->turn = 0;
		/* MODEL: V23 — a replayed prompt keeps its trace row's block hashes. */
		req->block_hashes = cl->prompt.kind == FS_LENGTH_TRACE && s->row != NULL ?
		                    s->row->hashes : (struct fs_block_hashes){0};
	}
	s->next_ns = fs__arrivals_next(&s->gen, &s->row);
	return s->next_ns;
}

/* See workload.h: thin wrappers over workload_users.c that number the
 * requests with the workload's own id counter. */
size_t fs_workload_n_users(const struct fs_workload *w)
{
	return fs__users_count(w->users);
}

fs_ns fs_workload_user_first(struct fs_workload *w, uint32_t agent)
{
	return fs__users_first(w->users, agent);
}

void fs_workload_user_take(struct fs_workload *w, uint32_t agent, fs_ns t_ns,
                           struct fs_request *req)
{
	req->id = w->next_id++;
	fs__users_take(w->users, agent, t_ns, req);
}

uint32_t fs_workload_taken_agent(const struct fs_workload *w)
{
	return w->taken_agent;
}

fs_ns fs_workload_user_done(struct fs_workload *w, uint32_t agent, fs_ns t_ns,
                            bool completed, int64_t output_tokens)
{
	return fs__users_done(w->users, agent, t_ns, completed, output_tokens);
}
