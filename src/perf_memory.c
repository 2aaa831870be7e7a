/*
 * perf_memory.c — data types, the replica configuration (its checks and
 * the peaks of an instance) and its memory plan: weights, the activation
 * reserve and the KV-block pool per GPU.  Pure
 * arithmetic on borrowed catalogue entries; nothing is allocated.  The
 * assumptions tagged here are P1–P7 of docs/MODEL.md.
 */
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "fleetsim/perf.h"
#include "perf_internal.h"

#define GB 1e9

double fs_dtype_bytes(enum fs_dtype dtype)
{
	switch (dtype) {
	case FS_DTYPE_FP16:
	case FS_DTYPE_BF16:
		return 2.0;
	case FS_DTYPE_FP8:
	case FS_DTYPE_INT8:
		return 1.0;
	case FS_DTYPE_INT4:
		return 0.5;
	}
	return 2.0;
}

FS_ENUM_FUNCS(enum fs_dtype, FS_DTYPE_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_dtype_name, fs_dtype_from_name, "?")

int fs_dtype_parse(const char *text, enum fs_dtype *out)
{
	static const struct { const char *name; enum fs_dtype dtype; } names[] = {
		{ "fp16", FS_DTYPE_FP16 }, { "float16", FS_DTYPE_FP16 },
		{ "half", FS_DTYPE_FP16 }, { "bf16", FS_DTYPE_BF16 },
		{ "bfloat16", FS_DTYPE_BF16 }, { "fp8", FS_DTYPE_FP8 },
		{ "int8", FS_DTYPE_INT8 }, { "int4", FS_DTYPE_INT4 },
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(text, names[i].name) == 0) {
			*out = names[i].dtype;
			return 0;
		}
	return -1;
}

void fs_perf_cfg_defaults(struct fs_perf_cfg *cfg, const struct fs_gpu_spec *gpu,
                          const struct fs_model_spec *model)
{
	cfg->gpu = gpu;
	cfg->model = model;
	cfg->tp = 1;
	cfg->weight_dtype = FS_DTYPE_BF16;
	cfg->kv_dtype = FS_DTYPE_BF16;
	cfg->gpu_mem_util = 0.90;            /* MODEL: P4 (vLLM default) */
	cfg->block_tokens = 16;              /* MODEL: P5 (vLLM default) */
	cfg->kv_blocks_pinned = 0;
	cfg->max_batched_tokens = 2048;
	cfg->max_seqs = 256;
	cfg->mfu = 0;
	cfg->mbu = 0;
	cfg->mfu_8bit = 0;
	cfg->knee_exp = 0;
	cfg->gemm_floor_ns = -1;
	cfg->attn_prefill_eff = 0;
	cfg->attn_decode_eff = 0;
	cfg->elementwise_eff = 0;
	cfg->link_bytes_per_s = 0;
	cfg->eager_launch_ns = -1;
	cfg->iteration_overhead_ns = -1;
	cfg->per_seq_overhead_ns = -1;
	cfg->layer_overhead_ns = -1;
	cfg->allreduce_latency_ns = -1;
	cfg->activation_reserve_bytes = -1;
	cfg->table = NULL;
}

struct fs_perf_peaks fs_perf_instance_peaks(const struct fs_perf_cfg *cfg)
{
	struct fs_perf_peaks pk;

	pk.flops_per_s = fs_perf_peak_flops_per_s(cfg) * cfg->tp;
	pk.bytes_per_s = cfg->gpu->mem_bw_bytes_per_s * cfg->tp;
	return pk;
}

static const char *model_name(const struct fs_perf_cfg *cfg)
{
	return cfg->model->id;
}

int fs_perf_cfg_check(const struct fs_perf_cfg *cfg, struct fs_error *err)
{
	const struct fs_model_spec *m = cfg->model;

	if (cfg->gpu == NULL || m == NULL)
		return fs_error_set(err, "", "", "no GPU or model given");
	if (cfg->tp < 1 || cfg->tp > 64)
		return fs_error_set(err, "", "", "tp: expected 1 to 64, found %d", cfg->tp);
	if (!(cfg->gpu_mem_util > 0 && cfg->gpu_mem_util <= 1))
		return fs_error_set(err, "", "", "gpu_mem_util: expected a number in "
		                    "(0, 1], found %g", cfg->gpu_mem_util);
	if (cfg->block_tokens < 1 || cfg->block_tokens > 4096)
		return fs_error_set(err, "", "", "block_tokens: expected 1 to 4096, "
		                    "found %d", cfg->block_tokens);
	if (cfg->kv_blocks_pinned < 0)
		return fs_error_set(err, "", "", "kv_blocks: expected 0 (derive) or "
		                    "more, found %lld", (long long)cfg->kv_blocks_pinned);
	if (cfg->mfu < 0 || cfg->mfu > 1 || cfg->mbu < 0 || cfg->mbu > 1)
		return fs_error_set(err, "", "", "mfu/mbu: expected a fraction in "
		                    "(0, 1] (0 = GPU default), found %g/%g", cfg->mfu, cfg->mbu);
	if (cfg->mfu_8bit < 0 || cfg->mfu_8bit > 1 || cfg->attn_prefill_eff < 0 ||
	    cfg->attn_prefill_eff > 1 || cfg->attn_decode_eff < 0 || cfg->attn_decode_eff > 1 ||
	    cfg->elementwise_eff < 0 || cfg->elementwise_eff > 1)
		return fs_error_set(err, "", "", "mfu_8bit/attn_prefill_eff/attn_decode_eff/"
		                    "elementwise_eff: expected a fraction in (0, 1] (0 = "
		                    "default), found %g/%g/%g/%g", cfg->mfu_8bit,
		                    cfg->attn_prefill_eff, cfg->attn_decode_eff,
		                    cfg->elementwise_eff);
	if (cfg->knee_exp != 0 && !(cfg->knee_exp >= 1 && cfg->knee_exp <= 64))
		return fs_error_set(err, "", "", "knee_exp: expected 1 to 64 (0 = default), "
		                    "found %g", cfg->knee_exp);
	if (cfg->link_bytes_per_s < 0)
		return fs_error_set(err, "", "", "link bandwidth: expected more than 0 (0 = "
		                    "GPU default), found %g", cfg->link_bytes_per_s);
	/* MODEL: P3 — attention heads split evenly; KV heads split evenly or,
	 * when fewer than TP, replicated so each GPU holds one. */
	if (m->heads % cfg->tp != 0)
		return fs_error_set(err, "", "", "%s has %d attention heads, which "
		                    "tp %d does not divide; use a tp that divides %d",
		                    model_name(cfg), m->heads, cfg->tp, m->heads);
	if (m->kv_heads >= cfg->tp ? m->kv_heads % cfg->tp != 0
	                           : cfg->tp % m->kv_heads != 0)
		return fs_error_set(err, "", "", "%s has %d KV heads: tp %d must divide "
		                    "them or be a multiple of them", model_name(cfg),
		                    m->kv_heads, cfg->tp);
	return 0;
}

int fs__perf_head_dim(const struct fs_model_spec *m)
{
	return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

double fs__perf_kv_bytes_per_token(const struct fs_perf_cfg *cfg)
{
	const struct fs_model_spec *m = cfg->model;

	/* MODEL: P2 — K and V per layer per KV head. */
	return 2.0 * m->layers * m->kv_heads * fs__perf_head_dim(m) *
	       fs_dtype_bytes(cfg->kv_dtype);
}

double fs__perf_kv_bytes_per_token_per_gpu(const struct fs_perf_cfg *cfg)
{
	const struct fs_model_spec *m = cfg->model;
	double heads_per_gpu = m->kv_heads >= cfg->tp
	                       ? (double)m->kv_heads / cfg->tp : 1.0;    /* MODEL: P3 */

	return 2.0 * m->layers * heads_per_gpu * fs__perf_head_dim(m) *
	       fs_dtype_bytes(cfg->kv_dtype);
}

/* MODEL: P6 — the reserve vLLM's profiling pass leaves for one forward pass
 * at the engine's token budget: per token 12 hidden-sized and 3 FFN-sized
 * (split by TP) 16-bit buffers, plus fp32 logits for max_seqs rows. */
static double activation_rule_bytes(const struct fs_perf_cfg *cfg)
{
	const struct fs_model_spec *m = cfg->model;
	double ffn_active = (double)m->ffn * (m->experts_per_token > 0 ? m->experts_per_token : 1);

	return (double)cfg->max_batched_tokens *
	       (12.0 * m->hidden + 3.0 * ffn_active / cfg->tp) * 2.0 +
	       (double)cfg->max_seqs * m->vocab * 4.0;
}

int fs_perf_plan_memory(const struct fs_perf_cfg *cfg, struct fs_mem_plan *plan,
                        struct fs_error *err)
{
	double block_bytes, free_bytes;

	if (fs_perf_cfg_check(cfg, err) != 0)
		return -1;
	/* MODEL: P1 — all parameters (embeddings included) split evenly over TP. */
	plan->weights_bytes_per_gpu = cfg->model->params *
	                              fs_dtype_bytes(cfg->weight_dtype) / cfg->tp;
	plan->activation_bytes_per_gpu = cfg->activation_reserve_bytes >= 0
	                                 ? cfg->activation_reserve_bytes
	                                 : activation_rule_bytes(cfg);
	plan->kv_bytes_per_token = fs__perf_kv_bytes_per_token(cfg);
	plan->kv_bytes_per_token_per_gpu = fs__perf_kv_bytes_per_token_per_gpu(cfg);
	plan->usable_bytes_per_gpu = cfg->gpu->mem_bytes * cfg->gpu_mem_util; /* MODEL: P4 */
	plan->available_bytes_per_gpu = plan->usable_bytes_per_gpu;
	free_bytes = plan->usable_bytes_per_gpu - plan->weights_bytes_per_gpu -
	             plan->activation_bytes_per_gpu;
	plan->kv_pool_bytes_per_gpu = free_bytes > 0 ? free_bytes : 0;
	block_bytes = cfg->block_tokens * plan->kv_bytes_per_token_per_gpu;
	plan->needed_bytes_per_gpu = plan->weights_bytes_per_gpu +
	                             plan->activation_bytes_per_gpu + block_bytes;
	/* MODEL: P7 — whole blocks only; a pinned count replaces the derived one
	 * but must still fit. */
	if (cfg->kv_blocks_pinned > 0) {
		plan->kv_blocks = cfg->kv_blocks_pinned;
		plan->needed_bytes_per_gpu = plan->weights_bytes_per_gpu +
		                             plan->activation_bytes_per_gpu +
		                             (double)cfg->kv_blocks_pinned * block_bytes;
	} else {
		plan->kv_blocks = (int64_t)floor(plan->kv_pool_bytes_per_gpu / block_bytes);
	}
	plan->fits = plan->kv_blocks >= 1 &&
	             plan->needed_bytes_per_gpu <= plan->usable_bytes_per_gpu;
	if (plan->fits)
		return 0;
	if (cfg->kv_blocks_pinned > 0 &&
	    plan->weights_bytes_per_gpu + plan->activation_bytes_per_gpu <
	    plan->usable_bytes_per_gpu)
		return fs_error_set(err, "", "", "%s on %s (tp %d): does not fit: "
		                    "weights need %.1f GB per GPU, activations %.1f GB and "
		                    "%lld pinned KV blocks %.1f GB (%.1f GB needed), but "
		                    "%.1f GB are usable (%.1f GB × gpu_mem_util %.2f)",
		                    model_name(cfg), cfg->gpu->id, cfg->tp,
		                    plan->weights_bytes_per_gpu / GB,
		                    plan->activation_bytes_per_gpu / GB,
		                    (long long)cfg->kv_blocks_pinned,
		                    (double)cfg->kv_blocks_pinned * block_bytes / GB,
		                    plan->needed_bytes_per_gpu / GB,
		                    plan->usable_bytes_per_gpu / GB, cfg->gpu->mem_bytes / GB,
		                    cfg->gpu_mem_util);
	return fs_error_set(err, "", "", "%s on %s (tp %d): does not fit: weights "
	                    "need %.1f GB per GPU, activations %.1f GB and one KV block "
	                    "%.2f GB (%.1f GB needed), but %.1f GB are usable (%.1f GB × "
	                    "gpu_mem_util %.2f)", model_name(cfg), cfg->gpu->id, cfg->tp,
	                    plan->weights_bytes_per_gpu / GB,
	                    plan->activation_bytes_per_gpu / GB, block_bytes / GB,
	                    plan->needed_bytes_per_gpu / GB,
	                    plan->usable_bytes_per_gpu / GB, cfg->gpu->mem_bytes / GB,
	                    cfg->gpu_mem_util);
}

int64_t fs_perf_max_seqs_at_context(const struct fs_mem_plan *plan,
                                    int block_tokens, int64_t context_tokens)
{
	int64_t blocks_per_seq;

	if (block_tokens < 1 || context_tokens < 1 || plan->kv_blocks < 1)
		return 0;
	blocks_per_seq = (context_tokens + block_tokens - 1) / block_tokens;
	return plan->kv_blocks / blocks_per_seq;
}
