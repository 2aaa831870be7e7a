/*
 * world_capacity_util.c — capacity utilisation (world_capacity_util.h, MODEL: S16-S19):
 * the saturation throughput of each pool from a closed-loop run of its
 * engine on the scenario's length mix, and the per-replication figures that
 * divide by it (whole horizon, per time bin, idle episodes), and the
 * unloaded response time a closed-loop class's offered load is estimated
 * from (U10).  The closed loop owns its engine and random stream and frees
 * both before returning.
 */
#include "fleetsim/world_capacity_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/llm_engine.h"
#include "fleetsim/perf.h"
#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "workload_internal.h"

/* Base seed of the closed loop's one stream: fixed, so that the saturation
 * throughput is a property of the configuration, not of the run's seed. */
#define SAT_SEED UINT64_C(0x5a7c0de)
/* Slices of the horizon for the expected arrivals of each class. */
#define RATE_SLICES 1024
/* Consecutive refusals after which the mix is taken as unservable. */
#define MAX_REFUSALS 10000
/* Iterations at most (a guard; a run needs far fewer). */
#define MAX_STEPS 5000000

/* The classes a pool serves, with cumulative weights for drawing one. */
struct mix {
	size_t n;
	size_t *cls;                 /* class indices */
	double *cum;                 /* cumulative weights, cum[n-1] = total */
};

/* Expected arrivals of one arrival process over [0, horizon): the midpoint
 * rule over RATE_SLICES slices (exact for a constant rate). */
static double expected_arrivals(const struct fs_arrival_cfg *a, const struct fs_sim_cfg *sim)
{
	double h_ns = (double)sim->horizon_ns, sum = 0;
	int i;

	for (i = 0; i < RATE_SLICES; i++)
		sum += fs_arrival_rate_at(a, sim, (fs_ns)((i + 0.5) * h_ns / RATE_SLICES));
	return sum * h_ns * 1e-9 / RATE_SLICES;
}

/* The arrival process that drives class c (NULL: none). */
static const struct fs_arrival_cfg *class_arrivals(const struct fs_workload_cfg *wl, size_t c)
{
	if (wl->classes[c].own_arrivals)
		return &wl->classes[c].arrivals;
	return wl->has_shared_arrivals ? &wl->arrivals : NULL;
}

static bool serves(const struct fs_fleet_cfg *fleet, size_t pool, size_t c)
{
	return fleet->class_pool == NULL || fleet->class_pool[c] < 0 ||
	       (size_t)fleet->class_pool[c] == pool;
}

/* Expected requests of closed-loop class c over [0, horizon) on one
 * instance of pool `pool` (MODEL: U10): its offered rate at an unloaded
 * response time, by the midpoint rule like expected_arrivals. */
static double expected_closed(const struct fs_scenario *sc, size_t pool, size_t c)
{
	double h_ns = (double)sc->sim.horizon_ns, sum = 0;
	double r_s = fs_capacity_util_response_s(sc, pool, c);

	for (int i = 0; i < RATE_SLICES; i++)
		sum += fs__users_offered_per_s(&sc->workload, &sc->sim, c,
		                               (fs_ns)((i + 0.5) * h_ns / RATE_SLICES), r_s);
	return sum * h_ns * 1e-9 / RATE_SLICES;
}

/* MODEL: S16 — the pool's mix: the classes it may serve (pinned to it or
 * to no pool), each weighted by its expected requests over the horizon
 * (arrivals times turns per session; a closed loop's offered load, U10);
 * equal weights when none is expected, every class when it serves none. */
static void mix_build(struct mix *m, const struct fs_scenario *sc, size_t pool)
{
	const struct fs_workload_cfg *wl = &sc->workload;
	double shared = 0, share_sum = 0, total = 0;
	size_t c, k;

	m->cls = fs_xcalloc(wl->n_classes, sizeof *m->cls);
	m->cum = fs_xcalloc(wl->n_classes, sizeof *m->cum);
	m->n = 0;
	for (c = 0; c < wl->n_classes; c++)
		if (!wl->classes[c].own_arrivals && wl->classes[c].share > 0)
			share_sum += wl->classes[c].share;
	if (wl->has_shared_arrivals && share_sum > 0)
		shared = expected_arrivals(&wl->arrivals, &sc->sim);
	for (c = 0; c < wl->n_classes; c++) {
		const struct fs_class_cfg *cl = &wl->classes[c];
		double w;

		if (!serves(&sc->fleet, pool, c))
			continue;
		if (cl->closed != NULL && cl->closed->has_users)
			w = expected_closed(sc, pool, c);                /* MODEL: U10 */
		else if (cl->own_arrivals)
			w = expected_arrivals(&cl->arrivals, &sc->sim);
		else
			w = cl->share > 0 ? shared * cl->share / share_sum : 0;
		if (cl->closed != NULL && cl->closed->sessions && !cl->closed->has_users)
			w *= fs_length_mean(&cl->closed->turns);         /* MODEL: U6 */
		if (w > 0 && isfinite(w))
			total += w;
		m->cls[m->n] = c;
		m->cum[m->n++] = total;
	}
	if (m->n == 0) {
		for (c = 0; c < wl->n_classes; c++)
			m->cls[m->n++] = c;
		total = 0;
	}
	if (!(total > 0))
		for (k = 0; k < m->n; k++)
			m->cum[k] = (double)(k + 1);
}

static void mix_free(struct mix *m)
{
	free(m->cls);
	free(m->cum);
}

/* One length of class cl: its distribution, or a trace row when its kind is
 * `trace` (clamped as the workload clamps it, MODEL: W17, W22). */
static int64_t draw_length(const struct fs_length_cfg *lc, const struct fs_trace_row *row,
                           bool prompt, struct fs_rng *rng)
{
	if (lc->kind == FS_LENGTH_TRACE)
		return fs__length_clamp(lc, row == NULL ? 1 :
		                        prompt ? row->prompt_tokens : row->output_tokens);
	return fs_length_sample(lc, rng);
}

/* A session class's prompt (MODEL: U4, U10): a turn index k drawn
 * uniformly below a drawn turn count, then k earlier messages and answers
 * and the new message. */
static int64_t draw_session_prompt(const struct fs_class_cfg *cl, struct fs_rng *rng)
{
	int64_t turns = fs_length_sample(&cl->closed->turns, rng);
	uint64_t k = turns > 1 ? fs_rng_below(rng, (uint64_t)turns) : 0;
	int64_t prompt = fs_length_sample(&cl->prompt, rng);

	for (uint64_t j = 0; j < k; j++)
		prompt += fs_length_sample(&cl->prompt, rng) + fs_length_sample(&cl->output, rng);
	return prompt;
}

/* Draw one request of the mix: class by weight, then its lengths. */
static void draw_request(const struct mix *m, const struct fs_workload_cfg *wl,
                         struct fs_rng *rng, int64_t *prompt, int64_t *output)
{
	double u = fs_rng_uniform(rng) * m->cum[m->n - 1];
	size_t k = 0;
	const struct fs_class_cfg *cl;
	const struct fs_arrival_cfg *a;
	const struct fs_trace_row *row = NULL;

	while (k + 1 < m->n && m->cum[k] <= u)
		k++;
	cl = &wl->classes[m->cls[k]];
	a = class_arrivals(wl, m->cls[k]);
	if ((cl->prompt.kind == FS_LENGTH_TRACE || cl->output.kind == FS_LENGTH_TRACE) &&
	    a != NULL && a->kind == FS_ARRIVAL_TRACE && a->trace.trace != NULL &&
	    a->trace.trace->n_rows > 0)
		row = &a->trace.trace->rows[fs_rng_below(rng, a->trace.trace->n_rows)];
	*prompt = cl->closed != NULL && cl->closed->sessions ? draw_session_prompt(cl, rng) :
	          draw_length(&cl->prompt, row, true, rng);
	*output = draw_length(&cl->output, row, false, rng);
}

/* The engine's cost callback: the pool's step-time model, as in the world. */
static fs_ns step_cost(void *ctx, const struct fs_step_shape *shape)
{
	const struct fs_perf_cfg *perf = ctx;

	return fs_perf_step_ns(perf, shape);
}

static void set_nan(struct fs_saturation *out)
{
	out->output_tokens_per_s = NAN;
	out->requests_per_s = NAN;
	out->mean_batch_seqs = NAN;
}

int fs_capacity_util_saturation(const struct fs_scenario *sc, size_t pool,
                                struct fs_saturation *out)
{
	const struct fs_llm_cfg *llm = sc->fleet.pools[pool].llm;
	struct fs_llm_engine_cfg cfg = llm->sched;
	struct fs_llm_engine *e;
	struct fs_rng *rng;
	struct mix m;
	uint32_t slot = 0;
	uint64_t done = 0, done0 = 0, warm = 0, window = 0, refusals = 0, steps0 = 0;
	int64_t tokens = 0, tokens0 = 0, seqs0 = 0;
	fs_ns t_ns = 0, t0_ns = -1;
	bool measuring = false;
	int rc = -1;

	out->completed = out->steps = 0;
	set_nan(out);
	cfg.policy = FS_LLM_POLICY_FCFS;          /* MODEL: S16 — the mix as offered */
	/* step_cost only reads the perf configuration it is given */
	e = fs_llm_engine_alloc(&cfg, step_cost, fs_unconst(&llm->perf), NULL);
	if (e == NULL)
		return -1;
	rng = fs_rng_alloc(SAT_SEED, 0, FS_STREAM_PROMPT_LEN, 0);
	mix_build(&m, sc, pool);
	while (out->steps < MAX_STEPS) {
		const struct fs_llm_engine_stats *st;
		struct fs_llm_report rep;
		fs_ns dur_ns;

		/* MODEL: S16 — saturation: max_num_seqs requests always wait. */
		while (fs_llm_engine_waiting(e) < cfg.max_num_seqs && refusals < MAX_REFUSALS) {
			int64_t prompt, output;

			draw_request(&m, &sc->workload, rng, &prompt, &output);
			if (fs_llm_engine_add(e, slot, prompt, output, 0, slot) == FS_LLM_ACCEPTED)
				refusals = 0;
			else
				refusals++;
			slot++;
		}
		dur_ns = fs_llm_engine_begin_step(e, t_ns);
		if (dur_ns < 0)
			break;                       /* nothing fits: an unservable mix */
		t_ns += dur_ns;
		fs_llm_engine_end_step(e, t_ns, &rep);
		out->steps++;
		tokens += rep.tokens_generated;
		done += rep.n_done;
		st = fs_llm_engine_stats(e);
		if (!measuring) {
			warm = (uint64_t)(2 * st->peak_running);
			if (done >= warm && done >= 200) {
				measuring = true;
				t0_ns = t_ns;
				tokens0 = tokens;
				done0 = done;
				seqs0 = st->sum_batch_seqs;
				steps0 = st->steps;
				window = warm > 2000 ? warm : 2000;
			}
		} else if (done - done0 >= window) {
			double dt_s = (double)(t_ns - t0_ns) * 1e-9;

			out->output_tokens_per_s = (double)(tokens - tokens0) / dt_s;
			out->requests_per_s = (double)(done - done0) / dt_s;
			out->completed = done - done0;
			out->mean_batch_seqs = (double)(st->sum_batch_seqs - seqs0) /
			                       (double)(st->steps - steps0);
			rc = 0;
			break;
		}
	}
	fs_rng_free(rng);
	fs_llm_engine_free(e);
	mix_free(&m);
	return rc;
}

double fs_capacity_util_response_s(const struct fs_scenario *sc, size_t pool, size_t c)
{
	const struct fs_class_cfg *cl = &sc->workload.classes[c];
	const struct fs_perf_cfg *perf;
	double prompt, output;
	int64_t p, o;

	if (sc->engine.kind != FS_ENGINE_VLLM)
		return (double)sc->engine.service.mean_ns * 1e-9;
	prompt = fs__users_mean_prompt_tokens(cl);
	output = fs_length_mean(&cl->output);
	if (!isfinite(prompt) || !isfinite(output) || pool >= sc->fleet.n_pools)
		return NAN;
	perf = &sc->fleet.pools[pool].llm->perf;
	p = prompt < 1 ? 1 : llround(prompt);
	o = output < 1 ? 1 : llround(output);
	/* MODEL: U10 — alone on the instance: one prefill of the whole prompt,
	 * then o - 1 decode steps at batch 1 and the mean context. */
	return ((double)fs_perf_prefill_ns(perf, p) +
	        (double)(o - 1) * (double)fs_perf_decode_ns(perf, 1, p + o / 2)) * 1e-9;
}

/* Whether pools p and q have the same saturation by construction: the same
 * scheduler and step-time configuration, byte for byte (borrowed specs and
 * tables by address), and the same classes to serve (so the same mix). */
static bool same_saturation(const struct fs_scenario *sc, size_t p, size_t q)
{
	const struct fs_llm_cfg *a = sc->fleet.pools[p].llm, *b = sc->fleet.pools[q].llm;
	size_t c;

	if (memcmp(&a->sched, &b->sched, sizeof a->sched) != 0 ||
	    memcmp(&a->perf, &b->perf, sizeof a->perf) != 0)
		return false;
	for (c = 0; c < sc->workload.n_classes; c++)
		if (serves(&sc->fleet, p, c) != serves(&sc->fleet, q, c))
			return false;
	return true;
}

struct fs_saturation *fs_capacity_util_saturate_fleet(const struct fs_scenario *sc)
{
	struct fs_saturation *sat;
	size_t p, q;

	if (sc->engine.kind != FS_ENGINE_VLLM || sc->fleet.n_pools == 0)
		return NULL;
	sat = fs_xcalloc(sc->fleet.n_pools, sizeof *sat);
	for (p = 0; p < sc->fleet.n_pools; p++) {
		/* pools that differ only in pricing, zones or counts (on demand
		 * and spot of one GPU, say) share one closed loop */
		for (q = 0; q < p && !same_saturation(sc, p, q); q++)
			;
		if (q < p)
			sat[p] = sat[q];
		else
			fs_capacity_util_saturation(sc, p, &sat[p]);
	}
	return sat;
}

void fs_capacity_util_stamp(struct fs_rep_result *const *results, int n,
                            const struct fs_saturation *sat, size_t n_pools)
{
	size_t p;
	int r;

	if (sat == NULL)
		return;
	for (r = 0; r < n; r++) {
		for (p = 0; p < n_pools && p < results[r]->fleet.n_pools; p++) {
			results[r]->fleet.pools[p].sat_output_tokens_per_s =
				sat[p].output_tokens_per_s;
			results[r]->fleet.pools[p].sat_requests_per_s = sat[p].requests_per_s;
		}
	}
}

static bool has_sat(const struct fs_pool_result *pr)
{
	return isfinite(pr->sat_output_tokens_per_s) && pr->sat_output_tokens_per_s > 0;
}

/* MODEL: S17 — work in saturated instance-seconds: the time one saturated
 * instance would need to sample these tokens. */
static double saturated_s(const struct fs_pool_result *pr, double tokens)
{
	return tokens / pr->sat_output_tokens_per_s;
}

double fs_capacity_util_pool(const struct fs_rep_result *r, size_t p)
{
	const struct fs_pool_result *pr = &r->fleet.pools[p];

	if (!has_sat(pr) || !(pr->serving_ns > 0))
		return NAN;
	return saturated_s(pr, pr->output_tokens) / (pr->serving_ns * 1e-9);
}

double fs_capacity_util_fleet(const struct fs_rep_result *r)
{
	double work_s = 0, serving_s = 0;
	size_t p;

	for (p = 0; p < r->fleet.n_pools; p++) {
		const struct fs_pool_result *pr = &r->fleet.pools[p];

		if (!(pr->serving_ns > 0))
			continue;
		if (!has_sat(pr))
			return NAN;
		work_s += saturated_s(pr, pr->output_tokens);
		serving_s += pr->serving_ns * 1e-9;
	}
	return serving_s > 0 ? work_s / serving_s : NAN;
}

/* Work (saturated instance-seconds) and serving instance-seconds of pool p
 * in one bin; false when the pool has no saturation figure. */
static bool bin_parts(const struct fs_rep_result *r, size_t p, size_t bin, double *work_s,
                      double *serving_s)
{
	const struct fs_pool_result *pr = &r->fleet.pools[p];
	size_t n_bins = r->queue_len.n_bins;

	*serving_s = r->pool_serving[p].area[bin] * 1e-9;
	*work_s = 0;
	if (!has_sat(pr))
		return false;
	*work_s = saturated_s(pr, r->bin_pool_output_tokens[p * n_bins + bin]);
	return true;
}

double fs_capacity_util_bin(const struct fs_rep_result *r, size_t p, size_t bin)
{
	double work_s = 0, serving_s = 0, w, s;
	size_t q;

	if (bin >= r->queue_len.n_bins || r->fleet.n_pools == 0)
		return NAN;
	for (q = 0; q < r->fleet.n_pools; q++) {
		if (p != SIZE_MAX && q != p)
			continue;
		if (!bin_parts(r, q, bin, &w, &s) && s > 0)
			return NAN;
		work_s += w;
		serving_s += s;
	}
	return serving_s > 0 ? work_s / serving_s : NAN;
}

/* Covered length of bin b, ns (the last bin may be shorter). */
static double bin_len_ns(const struct fs_tseries *ts, size_t b)
{
	fs_ns start = (fs_ns)b * ts->interval_ns, end = start + ts->interval_ns;

	if (end > ts->horizon_ns)
		end = ts->horizon_ns;
	if (end > ts->t_last_ns)
		end = ts->t_last_ns;
	return end > start ? (double)(end - start) : 0;
}

/* MODEL: S19 — close a run of idle bins: an episode when it lasted long
 * enough. */
static void close_run(struct fs_idle_episodes *out, double *run_ns, double *run_inst_ns)
{
	if (*run_ns >= (double)FS_IDLE_MIN_NS) {
		out->count += 1;
		out->hours += *run_ns / FS_NS_PER_HOUR;
		out->instance_hours += *run_inst_ns / FS_NS_PER_HOUR;
	}
	*run_ns = *run_inst_ns = 0;
}

void fs_capacity_util_idle(const struct fs_rep_result *r, size_t p,
                           struct fs_idle_episodes *out)
{
	const struct fs_pool_result *pr = &r->fleet.pools[p];
	const struct fs_tseries *ts = &r->pool_serving[p];
	double run_ns = 0, run_inst_ns = 0;
	size_t b;

	out->count = out->hours = out->instance_hours = out->usd = 0;
	if (!has_sat(pr)) {
		out->count = out->hours = out->instance_hours = out->usd = NAN;
		return;
	}
	for (b = 0; b < ts->n_bins; b++) {
		double u = fs_capacity_util_bin(r, p, b);

		/* MODEL: S19 — an idle bin: instances serving, under 10% in use. */
		if (ts->area[b] > 0 && u < FS_IDLE_UTIL_BELOW) {
			run_ns += bin_len_ns(ts, b);
			run_inst_ns += ts->area[b];
		} else {
			close_run(out, &run_ns, &run_inst_ns);
		}
	}
	close_run(out, &run_ns, &run_inst_ns);
	/* MODEL: S19 — priced at the pool's bill per billed instance-hour. */
	out->usd = pr->billed_ns > 0 ?
	           out->instance_hours * pr->usd / (pr->billed_ns / FS_NS_PER_HOUR) : 0;
}
