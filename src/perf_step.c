/*
 * perf_step.c — the step-time model of one engine iteration: weight GEMMs
 * (smooth roofline with a per-kernel floor), attention (prefill and decode
 * kernels at their own efficiencies), elementwise ops, tensor-parallel
 * all-reduce and fixed overheads, summed (kernels run one after the other).
 * Pure: every result is a function of (cfg, shape) only, computed in double
 * and rounded once to integer ns; the cached form (fs_perf_step_cost_cached)
 * reuses what does not change from step to step and gives the same bits.
 * Assumptions P8–P16 of docs/MODEL.md.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/perf.h"
#include "perf_internal.h"

/* The efficiencies and overheads of cfg, defaults resolved. */
struct eff {
	double peak_flops_per_s;     /* for the weight GEMMs (P9) */
	double attn_flops_per_s;     /* for attention: 16-bit tensor peak (P9) */
	double mfu, mbu;             /* mfu at the weight dtype (P9) */
	double knee_exp, gemm_floor_ns;
	double attn_prefill_eff, attn_decode_eff, elem_eff;
	double bw_bytes_per_s;
	double link_bytes_per_s;
	double iter_ns, per_seq_ns, layer_ns, allreduce_latency_ns, launch_ns;
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

static void resolve(const struct fs_perf_cfg *cfg, struct eff *e)
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

static double roofline_ns(double flops, double flops_per_s, double bytes,
                          double bytes_per_s, double knee_exp)
{
	return fs__perf_smooth_max(flops / flops_per_s * 1e9, bytes / bytes_per_s * 1e9,
	                           knee_exp);
}

/* llround for a non-negative time below 2^63 (halves away from zero), inline:
 * t - trunc(t) is exact, so this is llround's result. */
static fs_ns round_ns(double t)
{
	fs_ns r = (fs_ns)t;

	return r + (t - (double)r >= 0.5);
}

/* Weight GEMM kernels per transformer layer: QKV, output, gate+up, down. */
#define GEMMS_PER_LAYER 4.0

/* The parts of a step that depend on its token count and sampled rows only
 * (weight GEMMs, elementwise kernels, all-reduce, new KV written): one
 * function for the plain and the cached path, so both compute them with the
 * same operations in the same order. */
struct token_parts {
	double lin_flops, lin_bytes, linear_ns;
	double new_kv_bytes, elem_gpu_bytes, elementwise_ns, layer_floor_ns, comm_ns;
};

static void token_parts(const struct fs_perf_cfg *cfg, const struct eff *e,
                        const struct params *p, double kvb_per_gpu, double tokens,
                        double sampled, struct token_parts *t)
{
	const struct fs_model_spec *m = cfg->model;
	double tp = cfg->tp;
	double ffn_active = (double)m->ffn * (m->experts_per_token > 0 ? m->experts_per_token : 1);

	/* MODEL: P8 — 2 FLOPs per active body weight per token, plus the LM head
	 * for one sampled row per sequence.  MODEL: P11 — plus a floor per
	 * weight GEMM kernel (launch and tail of a small per-GPU GEMM). */
	t->lin_flops = 2.0 * p->body_active * tokens + 2.0 * p->lm_head * sampled;
	t->lin_bytes = tokens > 0 ? weight_bytes_read(cfg, p, tokens) : 0;
	t->linear_ns = roofline_ns(t->lin_flops / tp, e->peak_flops_per_s * e->mfu,
	                           t->lin_bytes / tp, e->bw_bytes_per_s * e->mbu, e->knee_exp);
	if (tokens > 0)
		t->linear_ns += e->gemm_floor_ns * (GEMMS_PER_LAYER * m->layers + 1.0);
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
	t->elementwise_ns = tokens > 0
		? fs__perf_smooth_max(t->layer_floor_ns,
		                      t->elem_gpu_bytes / (e->bw_bytes_per_s * e->elem_eff) * 1e9,
		                      e->knee_exp)
		: 0;

	/* MODEL: P14 — two ring all-reduces per layer of tokens × hidden 16-bit
	 * activations: a launch latency + 2(TP−1)/TP × bytes / link bandwidth. */
	t->comm_ns = 0;
	if (tokens > 0)
		t->comm_ns = 2.0 * m->layers * fs_perf_allreduce_ns(cfg, tokens * m->hidden * 2.0);
}

/* The memo's two halves: decode attention, whose compute-to-memory ratio
 * hardly moves from step to step (a few bit patterns per batch), and every
 * other smooth max, whose ratios differ at each prefill and would evict
 * them. */
#define MEMO_OTHER 0
#define MEMO_DECODE (FS_PERF_MEMO_SLOTS / 2)

/* fs__perf_smooth_max with its pow() factor looked up by the exact ratio
 * in the half of the memo that starts at `half`: the same operations on the
 * same operands, so the same result.  A zero ratio needs no pow: pow(0, n)
 * = 0 and pow(1, x) = 1 exactly. */
static double smooth_max_memo(double a, double b, double knee_exp, uint64_t *key,
                              double *factor, size_t half)
{
	double hi = a > b ? a : b, lo = a > b ? b : a, r;
	uint64_t bits;
	size_t slot;

	if (hi <= 0)
		return 0;
	if (lo == 0)
		return hi * 1.0;           /* r = 0 without waiting for the division */
	r = lo / hi;
	if (r == 0)
		return hi * 1.0;
	memcpy(&bits, &r, sizeof bits);
	slot = half + (size_t)((bits ^ (bits >> 21) ^ (bits >> 43)) &
	                      (FS_PERF_MEMO_SLOTS / 2 - 1));
	if (key[slot] != bits + 1) {
		key[slot] = bits + 1;
		factor[slot] = pow(1.0 + pow(r, knee_exp), 1.0 / knee_exp);
	}
	return hi * factor[slot];
}

/* The smooth-max factor of a ratio r (P11), as smooth_max_memo computes it. */
static double knee_factor(double r, double knee_exp)
{
	return pow(1.0 + pow(r, knee_exp), 1.0 / knee_exp);
}

/* Decode attention's two arms for `ctx` context tokens, with step_cost's
 * operations: compute (x) and memory (y) in ns. */
static void decode_arms(const struct fs_perf_step_cache *c, const struct eff *e, double ctx,
                        double *x, double *y)
{
	double tp = c->cfg->tp;

	*x = c->per_pair_flops * ctx / tp / (e->attn_flops_per_s * e->attn_prefill_eff) * 1e9;
	*y = c->kv_bytes_per_token_per_gpu * ctx / (e->bw_bytes_per_s * e->attn_decode_eff) * 1e9;
}

/* Decode attention's factors for every context: x and y are the exact
 * values K_x·ctx, K_y·ctx after at most 4 and 3 roundings, so their
 * rounded ratio r lies within 8 roundings (8.01 u, u = 2^-53) of the exact
 * ratio ρ = K_x/K_y, which does not depend on the context.  Two such ratios
 * differ by at most 16.03 u relative, under 33 ulps of the smaller binade:
 * the factors of the 48 doubles either side of the ratio at one context
 * cover every context, and the larger arm is always the same one when the
 * ratio stays well below 1.  When all of them have the same bits, no step
 * needs the ratio at all.  Otherwise (a zero or huge arm) the memo is used
 * as before.  O(1) (97 pow pairs), once per cache. */
static void decode_factor(struct fs_perf_step_cache *c, const struct eff *e)
{
	double x, y, hi, lo, r, s;
	int k, half = FS_PERF_DEC_WINDOW / 2;

	_Static_assert(FS_PERF_DEC_WINDOW == 97, "48 doubles either side: 33 needed");
	c->dec_window = c->dec_const = false;
	decode_arms(c, e, 1.0, &x, &y);
	if (!(x > 1e-280 && y > 1e-280 && x < 1e280 && y < 1e280))
		return;
	hi = x > y ? x : y;
	lo = x > y ? y : x;
	r = lo / hi;
	if (!(r > 1e-280 && r < 1.0 - 0x1p-45))
		return;
	for (k = 0, s = r; k < half; k++)
		s = nextafter(s, 0.0);
	memcpy(&c->dec_bits0, &s, sizeof s);
	for (k = 0; k < FS_PERF_DEC_WINDOW; k++, s = nextafter(s, 2.0))
		c->dec_window_factor[k] = knee_factor(s, e->knee_exp);
	c->dec_window = true;
	c->dec_hi_bytes = y > x;
	c->dec_factor = c->dec_window_factor[half];
	c->dec_const = true;
	for (k = 0; k < FS_PERF_DEC_WINDOW; k++)
		if (memcmp(&c->dec_window_factor[k], &c->dec_factor, sizeof(double)) != 0)
			c->dec_const = false;
}

/* Decode attention's smooth max of the arms x (compute) and y (memory):
 * from the window of factors where decode_factor built one (the ratio's
 * factor looked up by its bits, or the one constant factor without the
 * ratio), else through the memo — the same bits either way. */
static inline double decode_attn_ns(const struct fs_perf_step_cache *c, uint64_t *key,
                                    double *factor, double x, double y, double knee_exp)
{
	if (c->dec_window && x > 0 && y > 0) {
		double hi = c->dec_hi_bytes ? y : x, r;
		uint64_t bits;

		if (c->dec_const)
			return hi * c->dec_factor;
		r = (c->dec_hi_bytes ? x : y) / hi;
		memcpy(&bits, &r, sizeof bits);
		if (bits - c->dec_bits0 < FS_PERF_DEC_WINDOW)
			return hi * c->dec_window_factor[bits - c->dec_bits0];
	}
	return smooth_max_memo(x, y, knee_exp, key, factor, MEMO_DECODE);
}

/* The cached token parts of (nt tokens, ns sampled rows), computed on a
 * miss; with them the attention term of a decode-only step's (empty)
 * prefill kernel, as step_cost computes it for prefill_attn_tokens = 0. */
static struct fs__perf_token_entry *token_entry(struct fs_perf_step_cache *c,
                                                const struct eff *e, const struct params *p,
                                                int64_t nt, int64_t ns, double tokens,
                                                double sampled)
{
	uint64_t h = (uint64_t)nt * 0x9E3779B97F4A7C15u + (uint64_t)ns * 0xC2B2AE3D27D4EB4Fu;
	struct fs__perf_token_entry *ent;

	/* decode-only shapes (one token per row: a handful of batch sizes,
	 * priced at every run) in the cache's own table, by batch size; the
	 * many prefill shapes in the shared one */
	if (c->shared == NULL)
		ent = &c->tokens[(h >> 40) & (FS_PERF_MEMO_SLOTS - 1)];
	else if (nt == ns)
		ent = &c->tokens[(uint64_t)nt & (FS_PERF_MEMO_SLOTS - 1)];
	else
		ent = &c->shared->e[(h >> 40) & (FS_PERF_TOKEN_SLOTS - 1)];
	struct token_parts tpt;
	double tp = c->cfg->tp, pre_flops;

	if (ent->valid && ent->tokens == nt && ent->sampled == ns)
		return ent;
	token_parts(c->cfg, e, p, c->kv_bytes_per_token_per_gpu, tokens, sampled, &tpt);
	ent->valid = true;
	ent->tokens = nt;
	ent->sampled = ns;
	memcpy(ent->parts, &tpt, sizeof tpt);
	pre_flops = c->per_pair_flops * (double)0;
	ent->prefill_attn_ns =
		smooth_max_memo(pre_flops / tp / (e->attn_flops_per_s * e->attn_prefill_eff) * 1e9,
		                tpt.new_kv_bytes / (e->bw_bytes_per_s * e->mbu) * 1e9,
		                e->knee_exp, c->memo_key, c->memo_factor, MEMO_OTHER);
	return ent;
}

/* The whole step cost, the token parts and attention's smooth max taken from
 * `c` when it is not NULL (fs_perf_step_cost_cached). */
static void step_cost(const struct fs_perf_cfg *cfg, const struct eff *e,
                      const struct params *p, struct fs_perf_step_cache *c,
                      const struct fs_step_shape *shape, struct fs_step_cost *cost)
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

		memcpy(&tpt, token_entry(c, e, p, nt, ns, tokens, sampled)->parts, sizeof tpt);
	} else {
		token_parts(cfg, e, p, kvb_per_gpu, tokens, sampled, &tpt);
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
			smooth_max_memo(pre_flops / tp / (e->attn_flops_per_s * e->attn_prefill_eff) * 1e9,
			                tpt.new_kv_bytes / (e->bw_bytes_per_s * e->mbu) * 1e9,
			                e->knee_exp, c->memo_key, c->memo_factor, MEMO_OTHER) +
			decode_attn_ns(c, c->memo_key, c->memo_factor,
			               dec_flops / tp / (e->attn_flops_per_s * e->attn_prefill_eff) * 1e9,
			               ctx_kv_bytes / (e->bw_bytes_per_s * e->attn_decode_eff) * 1e9,
			               e->knee_exp);
	else
		cost->attn_ns = roofline_ns(pre_flops / tp, e->attn_flops_per_s * e->attn_prefill_eff,
		                            tpt.new_kv_bytes, e->bw_bytes_per_s * e->mbu, e->knee_exp) +
		                roofline_ns(dec_flops / tp, e->attn_flops_per_s * e->attn_prefill_eff,
		                            ctx_kv_bytes, e->bw_bytes_per_s * e->attn_decode_eff,
		                            e->knee_exp);
	cost->layer_floor_ns = tpt.layer_floor_ns;
	cost->elementwise_ns = tpt.elementwise_ns;
	cost->comm_ns = tpt.comm_ns;

	/* MODEL: P15 — a fixed cost per iteration (scheduling, sampling launch,
	 * host sync) and per sequence in the batch (sampling, bookkeeping). */
	cost->overhead_ns = e->iter_ns + e->per_seq_ns * (double)shape->n_seqs;

	cost->flops = tpt.lin_flops + pre_flops + dec_flops;
	cost->bytes = tpt.lin_bytes + (tpt.new_kv_bytes + ctx_kv_bytes + tpt.elem_gpu_bytes) * tp;
	cost->compute_ns = tpt.lin_flops / tp / (e->peak_flops_per_s * e->mfu) * 1e9 +
	                   (pre_flops + dec_flops) / tp /
	                   (e->attn_flops_per_s * e->attn_prefill_eff) * 1e9;
	cost->memory_ns = cost->bytes / tp / (e->bw_bytes_per_s * e->mbu) * 1e9;
	/* MODEL: P16 — the parts run back to back: no overlap. */
	total = cost->linear_ns + cost->attn_ns + cost->elementwise_ns + cost->comm_ns;
	/* MODEL: P15 — a step with prompt tokens runs without a CUDA graph (graphs
	 * are captured for decode-only batches): the host launches its kernels
	 * one by one, and the GPU work cannot finish before the last launch. */
	cost->launch_ns = shape->prefill_tokens > 0 ? e->launch_ns * m->layers : 0;
	cost->gpu_ns = c != NULL ?
	               smooth_max_memo(total, cost->launch_ns, e->knee_exp, c->memo_key,
	                               c->memo_factor, MEMO_OTHER) :
	               fs__perf_smooth_max(total, cost->launch_ns, e->knee_exp);
	total = cost->gpu_ns + cost->overhead_ns;
	cost->total_ns = total < 1 ? 1 : round_ns(total);
}

void fs_perf_step_cost(const struct fs_perf_cfg *cfg, const struct fs_step_shape *shape,
                       struct fs_step_cost *cost)
{
	struct eff e;
	struct params p;

	resolve(cfg, &e);
	split_params(cfg->model, &p);
	step_cost(cfg, &e, &p, NULL, shape, cost);
}

void fs_perf_step_cache_init(struct fs_perf_step_cache *c, const struct fs_perf_cfg *cfg)
{
	struct eff e;
	struct params p;

	_Static_assert(sizeof c->eff >= sizeof e, "fs_perf_step_cache.eff too small");
	_Static_assert(sizeof c->params >= sizeof p, "fs_perf_step_cache.params too small");
	_Static_assert(sizeof c->tokens[0].parts >= sizeof(struct token_parts),
	               "fs_perf_step_cache token parts too small");
	memset(c, 0, sizeof *c);
	c->cfg = cfg;
	resolve(cfg, &e);
	split_params(cfg->model, &p);
	memcpy(c->eff, &e, sizeof e);
	memcpy(c->params, &p, sizeof p);
	c->per_pair_flops = 4.0 * cfg->model->layers * (double)cfg->model->heads *
	                    fs__perf_head_dim(cfg->model);
	c->kv_bytes_per_token_per_gpu = fs__perf_kv_bytes_per_token_per_gpu(cfg);
	decode_factor(c, &e);
}

void fs_perf_step_cache_share(struct fs_perf_step_cache *c, struct fs_perf_token_memo *m)
{
	if (m->cfg == NULL)
		m->cfg = c->cfg;
	if (m->cfg != c->cfg) {
		fputs("fleetsim: internal error: a token memo shared across perf "
		      "configurations\n", stderr);
		abort();
	}
	c->shared = m;
}

void fs_perf_step_cost_cached(struct fs_perf_step_cache *c,
                              const struct fs_step_shape *shape, struct fs_step_cost *cost)
{
	struct eff e;
	struct params p;

	memcpy(&e, c->eff, sizeof e);
	memcpy(&p, c->params, sizeof p);
	step_cost(c->cfg, &e, &p, c, shape, cost);
}

void fs_perf_decode_prepare(struct fs_perf_step_cache *c, int64_t n_seqs,
                            struct fs_perf_decode_prep *d)
{
	struct eff e;
	struct params p;
	const struct fs__perf_token_entry *ent;
	struct token_parts tpt;

	memcpy(&e, c->eff, sizeof e);
	memcpy(&p, c->params, sizeof p);
	ent = token_entry(c, &e, &p, n_seqs, n_seqs, (double)n_seqs, (double)n_seqs);
	memcpy(&tpt, ent->parts, sizeof tpt);
	d->n_seqs = n_seqs;
	d->lin_flops = tpt.lin_flops;
	d->lin_bytes = tpt.lin_bytes;
	d->new_kv_bytes = tpt.new_kv_bytes;
	d->elem_gpu_bytes = tpt.elem_gpu_bytes;
	d->linear_ns = tpt.linear_ns;
	d->prefill_attn_ns = ent->prefill_attn_ns;
	d->elementwise_ns = tpt.elementwise_ns;
	d->comm_ns = tpt.comm_ns;
	d->overhead_ns = e.iter_ns + e.per_seq_ns * (double)n_seqs;
	d->pre_flops = c->per_pair_flops * (double)0;
	d->per_pair_flops = c->per_pair_flops;
	d->kv_bytes_per_token_per_gpu = c->kv_bytes_per_token_per_gpu;
	d->tp = c->cfg->tp;
	d->attn_flops_div = e.attn_flops_per_s * e.attn_prefill_eff;
	d->attn_bytes_div = e.bw_bytes_per_s * e.attn_decode_eff;
	d->knee_exp = e.knee_exp;
}

fs_ns fs_perf_decode_step(struct fs_perf_step_cache *c, const struct fs_perf_decode_prep *d,
                          int64_t context_tokens, double *flops, double *bytes)
{
	double dec_flops, ctx_kv_bytes, a, attn_ns, total, gpu_ns;

	/* step_cost's operations for {prefill 0, decode n_seqs, context, n_seqs}
	 * (pre_flops = 0, launch_ns = 0) in the same order; x / 1.0 is x */
	dec_flops = d->per_pair_flops * (double)context_tokens;
	ctx_kv_bytes = d->kv_bytes_per_token_per_gpu * (double)context_tokens;
	if (c->dec_const && c->dec_hi_bytes && context_tokens > 0) {
		/* only the larger arm: the factor is proved constant */
		attn_ns = d->prefill_attn_ns + ctx_kv_bytes / d->attn_bytes_div * 1e9 * c->dec_factor;
	} else {
		a = d->tp != 1.0 ? dec_flops / d->tp : dec_flops;
		attn_ns = d->prefill_attn_ns +
		          decode_attn_ns(c, c->memo_key, c->memo_factor,
		                         a / d->attn_flops_div * 1e9,
		                         ctx_kv_bytes / d->attn_bytes_div * 1e9, d->knee_exp);
	}
	if (flops != NULL)        /* the caller may know them in closed form */
		*flops = d->lin_flops + d->pre_flops + dec_flops;
	if (bytes != NULL)
		*bytes = d->lin_bytes + (d->new_kv_bytes + ctx_kv_bytes + d->elem_gpu_bytes) * d->tp;
	total = d->linear_ns + attn_ns + d->elementwise_ns + d->comm_ns;
	gpu_ns = total > 0 ? total * 1.0 : 0;      /* smooth max with a 0 launch floor */
	total = gpu_ns + d->overhead_ns;
	return total < 1 ? 1 : round_ns(total);
}

void fs_perf_decode_steps(struct fs_perf_step_cache *c, const struct fs_perf_decode_prep *d,
                          const int64_t *ctx_tokens, size_t n, fs_ns *dur_ns)
{
	double kvb = d->kv_bytes_per_token_per_gpu, bytes_div = d->attn_bytes_div;
	double ppf = d->per_pair_flops, tp = d->tp, flops_div = d->attn_flops_div;
	double factor = c->dec_factor, pre_attn_ns = d->prefill_attn_ns;
	double linear_ns = d->linear_ns, elem_ns = d->elementwise_ns, comm_ns = d->comm_ns;
	double overhead_ns = d->overhead_ns;
	uint64_t bits0 = c->dec_bits0;
	size_t i;

	if (!c->dec_window || !c->dec_hi_bytes) {
		for (i = 0; i < n; i++)
			dur_ns[i] = fs_perf_decode_step(c, d, ctx_tokens[i], NULL, NULL);
		return;
	}
	/* fs_perf_decode_step's operations, the memory arm the larger for every
	 * context: its factor constant, or looked up by the ratio's bits */
	for (i = 0; i < n; i++) {
		double ctx = (double)ctx_tokens[i], y, total;

		if (ctx_tokens[i] <= 0) {
			dur_ns[i] = fs_perf_decode_step(c, d, ctx_tokens[i], NULL, NULL);
			continue;
		}
		y = kvb * ctx / bytes_div * 1e9;
		if (!c->dec_const) {
			double x = ppf * ctx, r;
			uint64_t bits;

			x = (tp != 1.0 ? x / tp : x) / flops_div * 1e9;
			r = x / y;
			memcpy(&bits, &r, sizeof bits);
			if (bits - bits0 >= FS_PERF_DEC_WINDOW) {
				dur_ns[i] = fs_perf_decode_step(c, d, ctx_tokens[i], NULL, NULL);
				continue;
			}
			factor = c->dec_window_factor[bits - bits0];
		}
		total = linear_ns + (pre_attn_ns + y * factor) + elem_ns + comm_ns;
		total = (total > 0 ? total * 1.0 : 0) + overhead_ns;
		dur_ns[i] = total < 1 ? 1 : round_ns(total);
	}
}

fs_ns fs_perf_decode_step_cached(struct fs_perf_step_cache *c, int64_t n_seqs,
                                 int64_t context_tokens, double *flops, double *bytes)
{
	struct fs_perf_decode_prep d;

	fs_perf_decode_prepare(c, n_seqs, &d);
	return fs_perf_decode_step(c, &d, context_tokens, flops, bytes);
}

double fs_perf_allreduce_ns(const struct fs_perf_cfg *cfg, double bytes)
{
	struct eff e;
	double tp = cfg->tp;

	if (cfg->tp <= 1)
		return 0;
	resolve(cfg, &e);
	/* MODEL: P14 — ring: each GPU sends and receives 2(TP−1)/TP × bytes. */
	return 2.0 * (tp - 1) / tp * bytes / e.link_bytes_per_s * 1e9 + e.allreduce_latency_ns;
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
	                   e.bw_bytes_per_s * e.mbu, e.knee_exp) +
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
