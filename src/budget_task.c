/*
 * budget_task.c — the figures of one budget task on its own: fine-tuning
 * card-hours from training FLOPs and the data-parallel step model, serving
 * instances from the engine's step times (as `fleetsim estimate` computes
 * them) or a run directory, fixed card-hours; set-up transfer time; the
 * training memory fit.  Pure functions of the plan; G1-G6, G10, G13.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "budget_internal.h"
#include "fleetsim/billing.h"
#include "fleetsim/llm_engine.h"
#include "fleetsim/perf.h"

double fs_budget_transfer_h(double gb, double bytes_per_s)
{
	if (!(bytes_per_s > 0))
		return INFINITY;
	return gb * 1e9 / bytes_per_s / 3600.0;            /* MODEL: G10 */
}

double fs_budget_break_even_share(double fee, enum fs_pricing plan, double hourly)
{
	/* MODEL: B8, G8 — hours per 730-hour month over 730 h, i.e.
	 * fee / (period hours x hourly price). */
	return fs_billing_break_even_h_per_month(fee, fs_pricing_period_ns(plan), hourly) /
	       FS_HOURS_PER_MONTH;
}

/* Trainable parameters of the job. */
static double trainable(const struct fs_model_spec *m, const struct fs_budget_train *t)
{
	return t->method == FS_TRAIN_FULL ? m->params :
	       fs_train_lora_params(m, t->lora_modules, t->lora_rank);   /* MODEL: T2 */
}

/* Adapters a token passes through: an MoE model's MLP adapters only in the
 * experts_per_token experts that route it (all of them still train and
 * all-reduce). */
static double active_adapters(const struct fs_model_spec *m, const struct fs_budget_train *t)
{
	struct fs_model_spec active = *m;

	if (m->experts > 1 && m->experts_per_token > 0)
		active.experts = m->experts_per_token;         /* MODEL: G1 */
	return fs_train_lora_params(&active, t->lora_modules, t->lora_rank);
}

double fs_budget_flops_per_token(const struct fs_model_spec *m,
                                 const struct fs_budget_train *t)
{
	/* MODEL: G1 — N is the parameters a token meets: an MoE model's
	 * active parameters (shared + experts_per_token experts). */
	double n = m->active_params > 0 ? m->active_params : m->params;

	/* MODEL: G1 — full recomputation runs each layer's forward again in
	 * backward: + 2 per parameter the token meets. */
	double again = t->recompute == FS_RECOMPUTE_FULL ? 2.0 : 0.0;

	if (t->method == FS_TRAIN_FULL)
		return (6.0 + again) * n;                   /* MODEL: G1 */
	/* MODEL: G2 — frozen base: forward 2N + activation gradients 2N, no
	 * weight gradients; the adapters train fully (6 per parameter). */
	return (4.0 + again) * n + (6.0 + again) * active_adapters(m, t);
}

/* Seconds of compute for `tokens` tokens on one card. */
static double compute_s(const struct fs_gpu_spec *gpu, const struct fs_model_spec *m,
                        const struct fs_budget_train *t, double tokens)
{
	double mfu = t->mfu > 0 ? t->mfu : gpu->mfu;         /* MODEL: P9 */
	double s = tokens * fs_budget_flops_per_token(m, t) / (mfu * gpu->fp16_flops_per_s);

	return t->method == FS_TRAIN_QLORA ? s * t->qlora_factor : s;   /* MODEL: G2 */
}

double fs_budget_dp_efficiency(const struct fs_gpu_spec *gpu, const struct fs_model_spec *m,
                               const struct fs_budget_train *t, int cards,
                               double *compute_ms, double *allreduce_ms)
{
	struct fs_perf_cfg cfg;
	double step_s, ar_s;

	step_s = compute_s(gpu, m, t, (double)t->micro_batch * (double)t->seq_tokens *
	                                 (double)t->grad_accum);
	/* MODEL: G3, P14 — one ring all-reduce of the bf16 gradients of the
	 * trainable parameters per optimizer step, over the GPU's link, not
	 * overlapped with compute. */
	fs_perf_cfg_defaults(&cfg, gpu, m);
	cfg.tp = cards;
	ar_s = fs_perf_allreduce_ns(&cfg, trainable(m, t) * 2.0) / FS_NS_PER_SECOND;
	if (compute_ms != NULL)
		*compute_ms = step_s * 1e3;
	if (allreduce_ms != NULL)
		*allreduce_ms = ar_s * 1e3;
	if (t->dp_efficiency > 0)
		return cards > 1 ? t->dp_efficiency : 1.0;
	return step_s / (step_s + ar_s);
}

/* Wall hours of the training compute on n cards. */
static double train_wall_h(const struct fs_budget_task *t, double one_card_h, int n)
{
	double eff = fs_budget_dp_efficiency(t->gpu, t->model, &t->train, n, NULL, NULL);

	return one_card_h / (n * eff);                  /* MODEL: G3 */
}

void fs__budget_train_cfg(const struct fs_budget_task *t, struct fs_train_cfg *c)
{
	const struct fs_budget_train *tr = &t->train;

	fs_train_cfg_defaults(c, t->model);
	c->method = tr->method;
	c->lora_modules = tr->lora_modules;
	c->lora_rank = tr->lora_rank;
	c->micro_batch = tr->micro_batch;
	c->seq_tokens = tr->seq_tokens;
	c->grad_accum = tr->grad_accum;
	c->recompute = tr->recompute;
	c->shard = tr->shard;
	c->n_gpus = t->cards;
	c->logit_bytes = tr->logit_bytes;
	c->kbit_fp32_cast = tr->kbit_fp32_cast;
}

/* MODEL: G13 — the job must fit each card: the training memory plan (T1-
 * T10) of its method, micro-batch, sequence, recomputation and sharding
 * over its cards against the catalogue memory; a plan that does not fit is
 * refused, with what would make it fit. */
static int memory_fit(const struct fs_budget_task *t, struct fs_budget_task_result *r,
                      struct fs_error *err)
{
	struct fs_train_cfg c;
	struct fs_train_mem m;
	char hint[200];

	fs__budget_train_cfg(t, &c);
	if (fs_train_mem_plan(&c, &m, err) != 0)
		return -1;
	r->mem_bytes_per_card = m.total_bytes;
	r->mem_activation_bytes = m.activation_bytes;
	if (m.total_bytes <= t->gpu->mem_bytes)
		return 0;
	snprintf(hint, sizeof hint, "%s%s%s%s",
	         c.recompute == FS_RECOMPUTE_NONE ? "\"recompute\": \"full\", " : "",
	         c.micro_batch > 1 ? "a smaller \"micro_batch\", " : "",
	         t->cards > 1 && c.shard != FS_SHARD_ZERO3 ? "\"shard\": \"zero3\", " : "",
	         c.method != FS_TRAIN_QLORA ? "\"method\": \"qlora\", " : "");
	return fs_error_set(err, NULL, NULL, "does not fit: %s %s of %s needs %.2f GB per "
	                    "card (weights %.2f, gradients %.2f, optimizer %.2f, "
	                    "activations %.2f, other %.2f) on %d x %s of %.2f GB; try %sor "
	                    "more memory per card (fleetsim estimate --train)",
	                    fs_train_method_name(c.method), "fine-tuning", t->model->id,
	                    m.total_bytes / 1e9, m.weights_bytes / 1e9, m.grads_bytes / 1e9,
	                    (m.master_bytes + m.moments_bytes) / 1e9, m.activation_bytes / 1e9,
	                    (m.gathered_bytes + m.reserve_bytes) / 1e9, t->cards, t->gpu->id,
	                    t->gpu->mem_bytes / 1e9, hint);
}

static void finetune(const struct fs_budget_plan *plan, const struct fs_budget_task *t,
                     struct fs_budget_task_result *r)
{
	const struct fs_budget_train *tr = &t->train;
	double tokens = tr->tokens_per_epoch * tr->epochs, wall_h;

	r->mfu = tr->mfu > 0 ? tr->mfu : t->gpu->mfu;
	r->trainable_params = trainable(t->model, tr);
	r->flops_per_token = fs_budget_flops_per_token(t->model, tr);
	r->total_flops = tokens * r->flops_per_token;
	r->one_card_h = compute_s(t->gpu, t->model, tr, tokens) / 3600.0;
	r->dp_efficiency = fs_budget_dp_efficiency(t->gpu, t->model, tr, t->cards,
	                                           &r->step_compute_ms, &r->allreduce_ms);
	r->speedup = t->cards * r->dp_efficiency;
	wall_h = r->one_card_h / r->speedup;
	r->wall_h = wall_h + r->setup_h;
	if (tr->deadline_ns > 0) {
		double left_h = (double)(tr->deadline_ns - t->start_ns) /
		                (double)FS__BUDGET_NS_PER_H;

		r->late = r->wall_h > left_h;
		for (int n = 1; n <= 64 && left_h > r->setup_h; n *= 2)
			if (train_wall_h(t, r->one_card_h, n) + r->setup_h <= left_h) {
				r->cards_for_deadline = n;
				break;
			}
	}
	(void)plan;
}

/* MODEL: G4 — serving instances from the step model: the largest decode
 * batch whose step meets the TPOT bound (and fits the KV cache at the mean
 * context), each request costing its prefill plus its share of the decode
 * steps; instances for the peak rate. */
int fs__budget_serving(const struct fs_budget_task *t, struct fs_budget_task_result *r,
                       struct fs_error *err)
{
	const struct fs_budget_serving *s = &t->serve;
	struct fs_perf_cfg cfg;
	struct fs_mem_plan mem;
	int64_t ctx, cap, b;
	double per_req_s, step_ms;

	fs_perf_cfg_defaults(&cfg, t->gpu, t->model);
	cfg.tp = s->tp;
	cfg.max_seqs = fs_llm_default_max_num_seqs(t->gpu,
	                                           fs_llm_default_max_num_batched_tokens(t->gpu));
	if (fs_perf_plan_memory(&cfg, &mem, err) != 0)
		return -1;
	ctx = (int64_t)ceil(s->prompt_tokens + s->output_tokens / 2);
	cap = fs_perf_max_seqs_at_context(&mem, cfg.block_tokens, ctx);
	if (cap > cfg.max_seqs)
		cap = cfg.max_seqs;
	r->prefill_ms = (double)fs_perf_prefill_ns(&cfg, (int64_t)ceil(s->prompt_tokens)) / 1e6;
	if (cap < 1)
		return fs_error_set(err, NULL, NULL, "no sequence of %" PRId64 " tokens fits the "
		                    "KV cache of %s on %d x %s", ctx, t->model->id, s->tp,
		                    t->gpu->id);
	if (s->ttft_slo_ms > 0 && r->prefill_ms > s->ttft_slo_ms)
		return fs_error_set(err, NULL, NULL, "the prefill of one %.0f-token prompt takes "
		                    "%.1f ms on %d x %s, above ttft_slo_ms %g", s->prompt_tokens,
		                    r->prefill_ms, s->tp, t->gpu->id, s->ttft_slo_ms);
	for (b = cap; b >= 1; b = b > 1 ? b * 9 / 10 : 0) {
		step_ms = (double)fs_perf_decode_ns(&cfg, b, ctx) / 1e6;
		if (s->tpot_slo_ms <= 0 || step_ms <= s->tpot_slo_ms)
			break;
	}
	if (b < 1)
		return fs_error_set(err, NULL, NULL, "one decode step of %s on %d x %s takes "
		                    "%.1f ms, above tpot_slo_ms %g", t->model->id, s->tp,
		                    t->gpu->id, (double)fs_perf_decode_ns(&cfg, 1, ctx) / 1e6,
		                    s->tpot_slo_ms);
	r->decode_batch = b;
	r->decode_step_ms = step_ms;
	per_req_s = r->prefill_ms / 1e3 + s->output_tokens * step_ms / 1e3 / (double)b;
	r->instance_rps = 1.0 / per_req_s;
	r->peak_rps = s->requests_per_day / 86400.0 * s->peak_to_mean;   /* MODEL: G5 */
	r->instances = (int)ceil(r->peak_rps / r->instance_rps - 1e-9);
	if (r->instances < 1)
		r->instances = 1;
	return 0;
}

int fs__budget_task_figures(const struct fs_budget_plan *plan, size_t i,
                            struct fs_budget_task_result *r, struct fs_error *err)
{
	const struct fs_budget_task *t = &plan->tasks[i];
	double gb = t->transfer_gb;

	memset(r, 0, sizeof *r);
	r->cards = t->cards;
	r->n_occurrences = 1;
	if (gb < 0)      /* MODEL: G10 — by default the bf16 weights move at set-up */
		gb = t->model != NULL ? t->model->params * fs_dtype_bytes(FS_DTYPE_BF16) / 1e9 : 0;
	r->setup_h = fs_budget_transfer_h(gb, plan->machine.bandwidth_bytes_per_s);
	switch (t->kind) {
	case FS_BUDGET_FINETUNE:
		if (memory_fit(t, r, err) != 0)
			return -1;
		finetune(plan, t, r);
		break;
	case FS_BUDGET_SERVING:
		if (t->serve.from_dir != NULL)
			r->instances = t->serve.from_instances;
		else if (fs__budget_serving(t, r, err) != 0)
			return -1;
		r->cards = r->instances * t->serve.tp;
		/* MODEL: G10 — a service's cold start falls inside its billed
		 * window: the set-up delays the first answer, not the end. */
		r->wall_h = (double)t->duration_ns / (double)FS__BUDGET_NS_PER_H;
		break;
	case FS_BUDGET_DATA:
	case FS_BUDGET_EXPERIMENT:
	case FS_BUDGET__KIND_COUNT:
		r->wall_h = (double)t->duration_ns / (double)FS__BUDGET_NS_PER_H + r->setup_h;
		break;
	}
	r->card_h = r->wall_h * r->cards;
	return 0;
}
