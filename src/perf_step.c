/*
 * perf_step.c — the step-time model of one engine iteration: weight GEMMs
 * (smooth roofline with a per-kernel floor), attention (prefill and decode
 * kernels at their own efficiencies), elementwise ops, tensor-parallel
 * all-reduce and fixed overheads, summed (kernels run one after the other).
 * Pure: every result is a function of (cfg, shape) only, computed in double
 * and rounded once to integer ns.  fs__perf_step_cost serves the plain and
 * the cached path (perf_step_cache.c), so both give the same bits.
 * Assumptions P8–P16 of docs/MODEL.md.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fleetsim/perf.h"
#include "perf_internal.h"

static double pick(double override, double fallback)
{
	return override > 0 ? override : fallback;
}

fs_ns fs__perf_iteration_overhead_ns(const struct fs_perf_cfg *cfg)
{
	return cfg->iteration_overhead_ns >= 0 ? cfg->iteration_overhead_ns
	                                       : cfg->gpu->iteration_overhead_ns;
}

double fs_perf_peak_flops_per_s(const struct fs_perf_cfg *cfg)
{
	const struct fs_gpu_spec *g = cfg->gpu;

	/* MODEL: P9 — fp8 weights use the fp8 peak and int8 weights the int8
	 * peak (W8A8) where the GPU has them; otherwise weights are dequantised
	 * into 16-bit GEMMs (int4 is always weight-only). */
	if (cfg->weight_dtype == FS_DTYPE_FP8 && g->fp8_flops_per_s > 0)
		return g->fp8_flops_per_s;
	if (cfg->weight_dtype == FS_DTYPE_INT8 && g->int8_ops_per_s > 0)
		return g->int8_ops_per_s;
	return g->fp16_flops_per_s;
}

/* MODEL: P9 — 8-bit GEMMs (fp8, int8 W8A8 on their own peak) reach their
 * own fraction of that peak: the GPU's mfu_8bit, else its 16-bit MFU times
 * FS_GPU_MFU_8BIT_RATIO_DEFAULT.  An explicit cfg->mfu is the MFU of the
 * dtype in use (what a calibration on this replica measured). */
double fs_perf_mfu(const struct fs_perf_cfg *cfg)
{
	const struct fs_gpu_spec *g = cfg->gpu;
	double mfu16 = g->mfu > 0 ? g->mfu : FS_GPU_MFU_DEFAULT;
	bool eight_bit = fs_perf_peak_flops_per_s(cfg) != g->fp16_flops_per_s;

	if (cfg->mfu > 0)
		return cfg->mfu;
	if (!eight_bit)
		return mfu16;
	if (cfg->mfu_8bit > 0)
		return cfg->mfu_8bit;
	return g->mfu_8bit > 0 ? g->mfu_8bit : mfu16 * FS_GPU_MFU_8BIT_RATIO_DEFAULT;
}

void fs__perf_resolve(const struct fs_perf_cfg *cfg, struct eff *e)
{
	const struct fs_gpu_spec *g = cfg->gpu;

	e->peak_flops_per_s = fs_perf_peak_flops_per_s(cfg);
	e->attn_flops_per_s = g->fp16_flops_per_s;
	e->mfu = fs_perf_mfu(cfg);
	e->mbu = pick(cfg->mbu, g->mbu > 0 ? g->mbu : FS_GPU_MBU_DEFAULT);
	e->knee_exp = pick(cfg->knee_exp, FS_STEP_KNEE_EXP_DEFAULT);
	e->gemm_floor_ns = (double)(cfg->gemm_floor_ns >= 0 ? cfg->gemm_floor_ns
	                                                   : FS_STEP_GEMM_FLOOR_NS_DEFAULT);
	e->attn_prefill_eff = pick(cfg->attn_prefill_eff,
	                           g->attn_eff > 0 ? g->attn_eff : FS_GPU_ATTN_EFF_DEFAULT);
	e->attn_decode_eff = pick(cfg->attn_decode_eff, e->mbu);
	e->elem_eff = pick(cfg->elementwise_eff, FS_STEP_ELEMENTWISE_EFF_DEFAULT);
	e->bw_bytes_per_s = g->mem_bw_bytes_per_s;
	e->link_bytes_per_s = pick(cfg->link_bytes_per_s,
	                           g->link_bytes_per_s > 0 ? g->link_bytes_per_s : 16e9);   /* PCIe 3.0 x16 */
	e->iter_ns = (double)fs__perf_iteration_overhead_ns(cfg);
	e->per_seq_ns = (double)(cfg->per_seq_overhead_ns >= 0 ? cfg->per_seq_overhead_ns
	                                                       : g->per_seq_overhead_ns);
	e->launch_ns = (double)(cfg->eager_launch_ns >= 0 ? cfg->eager_launch_ns
	                                                 : FS_STEP_EAGER_LAUNCH_NS_DEFAULT);
	e->layer_ns = (double)(cfg->layer_overhead_ns >= 0 ? cfg->layer_overhead_ns
	                                                   : g->layer_overhead_ns);
	e->allreduce_latency_ns = (double)(cfg->allreduce_latency_ns >= 0
	                                   ? cfg->allreduce_latency_ns
	                                   : g->allreduce_latency_ns);
}

void fs__perf_split_params(const struct fs_model_spec *m, struct params *p)
{
	double embed = (double)m->vocab * m->hidden;
	double active = m->active_params > 0 ? m->active_params : m->params;

	/* MODEL: P8 — untied input embedding and LM head of vocab × hidden each;
	 * the rest is the transformer body (clamped so odd entries stay sane). */
	p->lm_head = embed;
	p->body_total = fmax(m->params - 2 * embed, 0.5 * m->params);
	p->body_active = fmax(active - 2 * embed, 0.5 * active);
	p->experts_total = 0;
	if (m->experts > 1)
		p->experts_total = fmin(0.98 * p->body_total,
		                        (double)m->layers * m->experts * 3.0 * m->hidden * m->ffn);
}

/* MODEL: P10 — weight bytes a step streams: the dense body, the LM head and
 * the routed experts that `tokens` tokens touch, in expectation under uniform
 * top-k routing: E·(1 − (1 − k/E)^tokens) of E experts. */
static double weight_bytes_read(const struct fs_perf_cfg *cfg, const struct params *p,
                                double tokens)
{
	const struct fs_model_spec *m = cfg->model;
	double touched = 1.0;

	if (m->experts > 1) {
		double k = m->experts_per_token > 0 ? m->experts_per_token : 1;
		touched = 1.0 - pow(1.0 - k / m->experts, tokens);
	}
	return (p->body_total - p->experts_total + p->experts_total * touched + p->lm_head) *
	       fs_dtype_bytes(cfg->weight_dtype);
}

/* MODEL: P11 — a kernel bounded by both compute (c) and memory (m) takes
 * (c^n + m^n)^(1/n): the hard max as n grows, and at the ridge, where tiles
 * wait on loads and neither unit is saturated, up to 2^(1/n) x the max. */
double fs__perf_smooth_max(double a, double b, double knee_exp)
{
	double hi = a > b ? a : b, lo = a > b ? b : a;

	if (hi <= 0)
		return 0;
	return hi * pow(1.0 + pow(lo / hi, knee_exp), 1.0 / knee_exp);
}

/* fs__perf_smooth_max, its factor from the knee table k (where k is not
 * NULL and reaches the ratio: then *approx is set) or pow(). */
static double smooth_max_by(struct fs_perf_knee *k, double a, double b, double knee_exp,
                            bool *approx)
{
	double v;

	if (k != NULL && fs__perf_knee_smooth_max(k, a, b, &v, approx))
		return v;
	return fs__perf_smooth_max(a, b, knee_exp);
}

static double roofline_ns(double flops, double flops_per_s, double bytes,
                          double bytes_per_s, double knee_exp, struct fs_perf_knee *k,
                          bool *approx)
{
	return smooth_max_by(k, flops / flops_per_s * FS_NS_PER_SECOND,
	                     bytes / bytes_per_s * FS_NS_PER_SECOND, knee_exp, approx);
}

/* Weight GEMM kernels per transformer layer: QKV, output, gate+up, down. */
#define GEMMS_PER_LAYER 4.0

void fs__perf_token_sizes(const struct fs_perf_cfg *cfg, const struct eff *e,
                          const struct params *p, double kvb_per_gpu, double tokens,
                          double sampled, struct token_parts *t)
{
	const struct fs_model_spec *m = cfg->model;
	double tp = cfg->tp;
	double ffn_active = (double)m->ffn * (m->experts_per_token > 0 ? m->experts_per_token : 1);

	/* MODEL: P8 — 2 FLOPs per active body weight per token, plus the LM head
	 * for one sampled row per sequence. */
	t->lin_flops = 2.0 * p->body_active * tokens + 2.0 * p->lm_head * sampled;
	t->new_kv_bytes = kvb_per_gpu * tokens;

	/* MODEL: P12 — elementwise kernels (two RMS norms and two residual adds
	 * on hidden-sized vectors, replicated over TP; rotary on the local Q
	 * and K heads; SiLU·mul reading 2 and writing 1 FFN-sized vector per
	 * local expert) move their 16-bit vectors at elementwise_eff of the
	 * memory bandwidth, each kernel no faster than its launch floor: the
	 * per-layer floor and the traffic combine as a roofline (P11). */
	t->elem_gpu_bytes = tokens * m->layers * 2.0 *
	                    (2.0 * 2.0 * m->hidden + 2.0 * 3.0 * m->hidden +
	                     2.0 * ((double)m->heads + (double)m->kv_heads) *
	                         fs__perf_head_dim(m) / tp +
	                     3.0 * ffn_active / tp);
	t->layer_floor_ns = e->layer_ns * m->layers;
}

void fs__perf_token_times(const struct fs_perf_cfg *cfg, const struct eff *e,
                          const struct params *p, double tokens, struct token_parts *t,
                          struct fs_perf_knee *knee, bool *approx)
{
	const struct fs_model_spec *m = cfg->model;
	double tp = cfg->tp;

	/* MODEL: P10, P11 — the weights the tokens read; a floor per weight
	 * GEMM kernel (launch and tail of a small per-GPU GEMM). */
	t->lin_bytes = tokens > 0 ? weight_bytes_read(cfg, p, tokens) : 0;
	t->linear_ns = roofline_ns(t->lin_flops / tp, e->peak_flops_per_s * e->mfu,
	                           t->lin_bytes / tp, e->bw_bytes_per_s * e->mbu, e->knee_exp,
	                           knee, approx);
	if (tokens > 0)
		t->linear_ns += e->gemm_floor_ns * (GEMMS_PER_LAYER * m->layers + 1.0);
	t->elementwise_ns = tokens > 0
		? smooth_max_by(knee, t->layer_floor_ns,
		                t->elem_gpu_bytes / (e->bw_bytes_per_s * e->elem_eff) *
		                FS_NS_PER_SECOND,
		                e->knee_exp, approx)
		: 0;

	/* MODEL: P14 — two ring all-reduces per layer of tokens × hidden 16-bit
	 * activations: a launch latency + 2(TP−1)/TP × bytes / link bandwidth. */
	t->comm_ns = 0;
	if (tokens > 0)
		t->comm_ns = 2.0 * m->layers * fs_perf_allreduce_ns(cfg, tokens * m->hidden * 2.0);
}

void fs__perf_token_parts(const struct fs_perf_cfg *cfg, const struct eff *e,
                          const struct params *p, double kvb_per_gpu, double tokens,
                          double sampled, struct token_parts *t)
{
	fs__perf_token_sizes(cfg, e, p, kvb_per_gpu, tokens, sampled, t);
	fs__perf_token_times(cfg, e, p, tokens, t, NULL, NULL);
}

/* A smooth max of the step's own arms in the cached path: through the
 * memo (exact), or with `approx` from the knee table where it reaches. */
static double own_smooth_max(struct fs_perf_step_cache *c, double a, double b,
                             double knee_exp, bool *approx)
{
	double v;

	if (approx != NULL && c->knee.ok && fs__perf_knee_smooth_max(&c->knee, a, b, &v, approx))
		return v;
	return fs__perf_smooth_max_memo(a, b, knee_exp, c->memo_key, c->memo_factor,
	                                FS__PERF_MEMO_OTHER);
}

void fs__perf_step_cost(const struct fs_perf_cfg *cfg, const struct eff *e,
                        const struct params *p, struct fs_perf_step_cache *c,
                        const struct fs_step_shape *shape, struct fs_step_cost *cost,
                        bool *approx)
{
	const struct fs_model_spec *m = cfg->model;
	double tp = cfg->tp, tokens, sampled, per_pair_flops, kvb_per_gpu;
	double pre_flops, dec_flops, ctx_kv_bytes, total;
	struct token_parts tpt;

	tokens = (double)shape->prefill_tokens + (double)shape->decode_seqs;
	sampled = shape->n_seqs > 0 ? (double)shape->n_seqs : (double)shape->decode_seqs;
	per_pair_flops = c != NULL ? c->per_pair_flops :
	                 4.0 * m->layers * (double)m->heads * fs__perf_head_dim(m);
	kvb_per_gpu = c != NULL ? c->kv_bytes_per_token_per_gpu :
	              fs__perf_kv_bytes_per_token_per_gpu(cfg);
	if (c != NULL) {
		int64_t nt = shape->prefill_tokens + shape->decode_seqs;
		int64_t ns = shape->n_seqs > 0 ? shape->n_seqs : shape->decode_seqs;

		fs__perf_token_lookup(c, e, p, nt, ns, tokens, sampled, &tpt, approx);
	} else {
		fs__perf_token_parts(cfg, e, p, kvb_per_gpu, tokens, sampled, &tpt);
	}
	cost->linear_ns = tpt.linear_ns;

	/* MODEL: P13 — attention: 4 FLOPs per (query, key) pair per attention
	 * dimension per layer (QKᵀ and AV).  The prefill kernel is compute-bound
	 * at the GPU's attention efficiency of the 16-bit peak and writes the
	 * new tokens' KV; the decode kernel reads every decoding sequence's KV
	 * (at the MBU unless attn_decode_eff is given). */
	pre_flops = per_pair_flops * (double)shape->prefill_attn_tokens;
	dec_flops = per_pair_flops * (double)shape->decode_context_tokens;
	ctx_kv_bytes = kvb_per_gpu * (double)shape->decode_context_tokens;
	if (c != NULL)
		cost->attn_ns =
			own_smooth_max(
				c,
				pre_flops / tp / (e->attn_flops_per_s * e->attn_prefill_eff) *
				FS_NS_PER_SECOND,
				tpt.new_kv_bytes / (e->bw_bytes_per_s * e->mbu) * FS_NS_PER_SECOND,
				e->knee_exp, approx) +
			fs__perf_decode_attn_ns(
				c, c->memo_key, c->memo_factor,
				dec_flops / tp / (e->attn_flops_per_s * e->attn_prefill_eff) *
				FS_NS_PER_SECOND,
				ctx_kv_bytes / (e->bw_bytes_per_s * e->attn_decode_eff) *
				FS_NS_PER_SECOND,
				e->knee_exp);
	else
		cost->attn_ns = roofline_ns(pre_flops / tp, e->attn_flops_per_s * e->attn_prefill_eff,
		                            tpt.new_kv_bytes, e->bw_bytes_per_s * e->mbu, e->knee_exp,
		                            NULL, NULL) +
		                roofline_ns(dec_flops / tp, e->attn_flops_per_s * e->attn_prefill_eff,
		                            ctx_kv_bytes, e->bw_bytes_per_s * e->attn_decode_eff,
		                            e->knee_exp, NULL, NULL);
	cost->layer_floor_ns = tpt.layer_floor_ns;
	cost->elementwise_ns = tpt.elementwise_ns;
	cost->comm_ns = tpt.comm_ns;

	/* MODEL: P15 — a fixed cost per iteration (scheduling, sampling launch,
	 * host sync) and per sequence in the batch (sampling, bookkeeping). */
	cost->overhead_ns = e->iter_ns + e->per_seq_ns * (double)shape->n_seqs;

	cost->flops = tpt.lin_flops + pre_flops + dec_flops;
	cost->bytes = tpt.lin_bytes + (tpt.new_kv_bytes + ctx_kv_bytes + tpt.elem_gpu_bytes) * tp;
	cost->compute_ns = tpt.lin_flops / tp / (e->peak_flops_per_s * e->mfu) * FS_NS_PER_SECOND +
	                   (pre_flops + dec_flops) / tp /
	                   (e->attn_flops_per_s * e->attn_prefill_eff) * FS_NS_PER_SECOND;
	cost->memory_ns = cost->bytes / tp / (e->bw_bytes_per_s * e->mbu) * FS_NS_PER_SECOND;
	/* MODEL: P16 — the parts run back to back: no overlap. */
	total = cost->linear_ns + cost->attn_ns + cost->elementwise_ns + cost->comm_ns;
	/* MODEL: P15 — a step with prompt tokens runs without a CUDA graph (graphs
	 * are captured for decode-only batches): the host launches its kernels
	 * one by one, and the GPU work cannot finish before the last launch. */
	cost->launch_ns = shape->prefill_tokens > 0 ? e->launch_ns * m->layers : 0;
	cost->gpu_ns = c != NULL ?
	               own_smooth_max(c, total, cost->launch_ns, e->knee_exp, approx) :
	               fs__perf_smooth_max(total, cost->launch_ns, e->knee_exp);
	total = cost->gpu_ns + cost->overhead_ns;
	cost->total_ns = total < 1 ? 1 : fs__perf_round_ns(total);
}

void fs_perf_step_cost(const struct fs_perf_cfg *cfg, const struct fs_step_shape *shape,
                       struct fs_step_cost *cost)
{
	struct eff e;
	struct params p;

	fs__perf_resolve(cfg, &e);
	fs__perf_split_params(cfg->model, &p);
	fs__perf_step_cost(cfg, &e, &p, NULL, shape, cost, NULL);
}

double fs_perf_allreduce_ns(const struct fs_perf_cfg *cfg, double bytes)
{
	struct eff e;
	double tp = cfg->tp;

	if (cfg->tp <= 1)
		return 0;
	fs__perf_resolve(cfg, &e);
	/* MODEL: P14 — ring: each GPU sends and receives 2(TP−1)/TP × bytes. */
	return 2.0 * (tp - 1) / tp * bytes / e.link_bytes_per_s * FS_NS_PER_SECOND +
	       e.allreduce_latency_ns;
}

fs_ns fs_perf_step_ns(const struct fs_perf_cfg *cfg, const struct fs_step_shape *shape)
{
	struct fs_step_cost cost;

	if (cfg->table != NULL)
		return fs_step_table_step_ns(cfg->table, shape,
		                             fs__perf_iteration_overhead_ns(cfg));
	fs_perf_step_cost(cfg, shape, &cost);
	return cost.total_ns;
}

double fs_perf_gemm_ns(const struct fs_perf_cfg *cfg, int64_t tokens)
{
	struct eff e;
	struct params p;
	double body_bytes;

	fs__perf_resolve(cfg, &e);
	fs__perf_split_params(cfg->model, &p);
	body_bytes = weight_bytes_read(cfg, &p, (double)tokens) -
	             p.lm_head * fs_dtype_bytes(cfg->weight_dtype);
	return roofline_ns(2.0 * p.body_active * (double)tokens / cfg->tp,
	                   e.peak_flops_per_s * e.mfu, body_bytes / cfg->tp,
	                   e.bw_bytes_per_s * e.mbu, e.knee_exp, NULL, NULL) +
	       e.gemm_floor_ns * GEMMS_PER_LAYER * cfg->model->layers;
}

fs_ns fs_perf_prefill_ns(const struct fs_perf_cfg *cfg, int64_t prompt_tokens)
{
	struct fs_step_shape s = { 0 };

	s.prefill_tokens = prompt_tokens;
	s.prefill_attn_tokens = prompt_tokens * prompt_tokens / 2;
	s.n_seqs = 1;
	return fs_perf_step_ns(cfg, &s);
}

fs_ns fs_perf_decode_ns(const struct fs_perf_cfg *cfg, int64_t batch_seqs,
                        int64_t context_tokens)
{
	struct fs_step_shape s = { 0 };

	s.decode_seqs = batch_seqs;
	s.decode_context_tokens = batch_seqs * context_tokens;
	s.n_seqs = batch_seqs;
	return fs_perf_step_ns(cfg, &s);
}
