/*
 * perf_step.c — the roofline step-time model of one engine iteration: weight
 * GEMMs, attention, elementwise ops, tensor-parallel all-reduce and fixed
 * overheads, each bounded separately and summed (kernels run one after the
 * other).  Pure: every result is a function of (cfg, shape) only, computed in
 * double and rounded once to integer ns.  Assumptions P8–P16 of
 * docs/MODEL-perf.md.
 */
#include <math.h>

#include "fleetsim/perf.h"
#include "perf_internal.h"

/* The efficiencies and overheads of cfg, defaults resolved. */
struct eff {
	double peak_flops_per_s;     /* for the weight GEMMs (P9) */
	double attn_flops_per_s;     /* for attention: 16-bit tensor peak (P9) */
	double mfu, mbu;
	double bw_bytes_per_s;
	double link_bytes_per_s;
	double iter_ns, per_seq_ns, layer_ns, allreduce_latency_ns;
};

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

static void resolve(const struct fs_perf_cfg *cfg, struct eff *e)
{
	const struct fs_gpu_spec *g = cfg->gpu;

	e->peak_flops_per_s = fs_perf_peak_flops_per_s(cfg);
	e->attn_flops_per_s = g->fp16_flops_per_s;
	e->mfu = pick(cfg->mfu, g->mfu > 0 ? g->mfu : 0.7);
	e->mbu = pick(cfg->mbu, g->mbu > 0 ? g->mbu : 0.75);
	e->bw_bytes_per_s = g->mem_bw_bytes_per_s;
	e->link_bytes_per_s = g->link_bytes_per_s > 0 ? g->link_bytes_per_s : 32e9;
	e->iter_ns = (double)fs__perf_iteration_overhead_ns(cfg);
	e->per_seq_ns = (double)(cfg->per_seq_overhead_ns >= 0 ? cfg->per_seq_overhead_ns
	                                                       : g->per_seq_overhead_ns);
	e->layer_ns = (double)(cfg->layer_overhead_ns >= 0 ? cfg->layer_overhead_ns
	                                                   : g->layer_overhead_ns);
	e->allreduce_latency_ns = (double)(cfg->allreduce_latency_ns >= 0
	                                   ? cfg->allreduce_latency_ns
	                                   : g->allreduce_latency_ns);
}

/* Parameter groups of the model (P8). */
struct params {
	double lm_head;              /* vocab × hidden */
	double body_total;           /* transformer blocks, all experts */
	double body_active;          /* transformer blocks, per token */
	double experts_total;        /* routed-expert FFN weights, all layers */
};

static void split_params(const struct fs_model_spec *m, struct params *p)
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

static double roofline_ns(double flops, double flops_per_s, double bytes,
                          double bytes_per_s)
{
	double c = flops / flops_per_s * 1e9, b = bytes / bytes_per_s * 1e9;

	return c > b ? c : b;                                /* MODEL: P11 */
}

void fs_perf_step_cost(const struct fs_perf_cfg *cfg, const struct fs_step_shape *shape,
                       struct fs_step_cost *cost)
{
	const struct fs_model_spec *m = cfg->model;
	struct eff e;
	struct params p;
	double tp = cfg->tp, tokens, sampled, lin_flops, lin_bytes, attn_flops;
	double kv_gpu_bytes, elem_gpu_bytes, ffn_active, total;

	resolve(cfg, &e);
	split_params(m, &p);
	tokens = (double)shape->prefill_tokens + (double)shape->decode_seqs;
	sampled = shape->n_seqs > 0 ? (double)shape->n_seqs : (double)shape->decode_seqs;
	ffn_active = (double)m->ffn * (m->experts_per_token > 0 ? m->experts_per_token : 1);

	/* MODEL: P8 — 2 FLOPs per active body weight per token, plus the LM head
	 * for one sampled row per sequence. */
	lin_flops = 2.0 * p.body_active * tokens + 2.0 * p.lm_head * sampled;
	lin_bytes = tokens > 0 ? weight_bytes_read(cfg, &p, tokens) : 0;
	cost->linear_ns = roofline_ns(lin_flops / tp, e.peak_flops_per_s * e.mfu,
	                              lin_bytes / tp, e.bw_bytes_per_s * e.mbu);

	/* MODEL: P13 — attention: 4 FLOPs per (query, key) pair per attention
	 * dimension per layer (QKᵀ and AV); reads the KV of decoding sequences,
	 * writes the KV of every new token. */
	attn_flops = 4.0 * m->layers * (double)m->heads * fs__perf_head_dim(m) *
	             ((double)shape->prefill_attn_tokens + (double)shape->decode_context_tokens);
	kv_gpu_bytes = fs__perf_kv_bytes_per_token_per_gpu(cfg) *
	               ((double)shape->decode_context_tokens + tokens);
	cost->attn_ns = roofline_ns(attn_flops / tp, e.attn_flops_per_s * e.mfu,
	                            kv_gpu_bytes, e.bw_bytes_per_s * e.mbu);

	/* MODEL: P12 — norms, rotary, activation and residual adds: per token per
	 * layer 6 hidden-sized (replicated) and 2 FFN-sized (split) 16-bit
	 * vectors of memory traffic. */
	elem_gpu_bytes = tokens * m->layers * (6.0 * m->hidden + 2.0 * ffn_active / tp) * 2.0;
	cost->elementwise_ns = elem_gpu_bytes / (e.bw_bytes_per_s * e.mbu) * 1e9;

	/* MODEL: P14 — two ring all-reduces per layer of tokens × hidden 16-bit
	 * activations: 2(TP−1)/TP × bytes / link bandwidth + a launch latency. */
	cost->comm_ns = 0;
	if (cfg->tp > 1 && tokens > 0) {
		double ar_bytes = tokens * m->hidden * 2.0;

		cost->comm_ns = 2.0 * m->layers *
		                (2.0 * (tp - 1) / tp * ar_bytes / e.link_bytes_per_s * 1e9 +
		                 e.allreduce_latency_ns);
	}

	/* MODEL: P15 — a fixed cost per iteration, per transformer layer (launch
	 * floor of the non-GEMM kernels) and per sequence in the batch. */
	cost->overhead_ns = e.iter_ns + e.layer_ns * m->layers +
	                    e.per_seq_ns * (double)shape->n_seqs;

	cost->flops = lin_flops + attn_flops;
	cost->bytes = lin_bytes + kv_gpu_bytes * tp + elem_gpu_bytes * tp;
	cost->compute_ns = lin_flops / tp / (e.peak_flops_per_s * e.mfu) * 1e9 +
	                   attn_flops / tp / (e.attn_flops_per_s * e.mfu) * 1e9;
	cost->memory_ns = cost->bytes / tp / (e.bw_bytes_per_s * e.mbu) * 1e9;
	/* MODEL: P16 — the parts run back to back: no overlap. */
	total = cost->linear_ns + cost->attn_ns + cost->elementwise_ns + cost->comm_ns +
	        cost->overhead_ns;
	cost->total_ns = total < 1 ? 1 : (fs_ns)llround(total);
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

	resolve(cfg, &e);
	split_params(cfg->model, &p);
	body_bytes = weight_bytes_read(cfg, &p, (double)tokens) -
	             p.lm_head * fs_dtype_bytes(cfg->weight_dtype);
	return roofline_ns(2.0 * p.body_active * (double)tokens / cfg->tp,
	                   e.peak_flops_per_s * e.mfu, body_bytes / cfg->tp,
	                   e.bw_bytes_per_s * e.mbu);
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
