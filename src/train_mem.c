/*
 * train_mem.c — fine-tuning memory per GPU (docs/MODEL.md T1-T10): model
 * states of full mixed-precision AdamW, LoRA and QLoRA (with PEFT's fp32
 * cast of the unquantised parameters), ZeRO/FSDP sharding, activations after
 * Korthikanti et al. 2022 generalised to GQA and gated FFNs, the loss's
 * logits, a fixed reserve.  Pure arithmetic over a caller-owned config.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fleetsim/train.h"

/* T1: bytes per trained parameter under mixed-precision AdamW. */
#define HALF_BYTES 2.0          /* bf16/fp16 weight or gradient */
#define FP32_BYTES 4.0          /* fp32 master weight, or one Adam moment */

/* T3: NF4 blocks (Dettmers et al. 2023, QLoRA §3): 64 weights share one
 * absmax constant, fp32 (4 B); with double quantisation that constant is
 * 8-bit and 256 of them share one fp32 second-level constant. */
#define NF4_BYTES 0.5
#define NF4_BLOCK 64.0
#define NF4_DQ_BLOCK 256.0

static const char *const MODULE_NAMES[] = { "q", "k", "v", "o", "gate", "up", "down" };
#define N_MODULES (sizeof MODULE_NAMES / sizeof MODULE_NAMES[0])

void fs_train_cfg_defaults(struct fs_train_cfg *c, const struct fs_model_spec *m)
{
	memset(c, 0, sizeof *c);
	c->model = m;
	c->method = FS_TRAIN_FULL;
	c->weight_dtype = FS_DTYPE_BF16;
	c->lora_modules = FS_LORA_ALL;
	c->lora_rank = FS_TRAIN_LORA_RANK_DEFAULT;
	c->nf4_double_quant = 1;
	c->kbit_fp32_cast = 1;
	c->micro_batch = 1;
	c->seq_tokens = 2048;
	c->grad_accum = 1;
	c->recompute = FS_RECOMPUTE_NONE;
	c->flash_attn = 1;
	c->shard = FS_SHARD_NONE;
	c->n_gpus = 1;
	c->logit_bytes = FS_TRAIN_LOGIT_BYTES_DEFAULT;
	c->reserve_bytes = FS_TRAIN_RESERVE_BYTES_DEFAULT;
}

static double head_dim(const struct fs_model_spec *m)
{
	return m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
}

/* MODEL: T2 — r x (d_in + d_out) per adapted matrix per layer. */
double fs_train_lora_params(const struct fs_model_spec *m, unsigned modules, int rank)
{
	double h = m->hidden, q = m->heads * head_dim(m), kv = m->kv_heads * head_dim(m);
	double f = m->ffn, experts = m->experts > 0 ? m->experts : 1;
	double per_layer = 0;

	if (modules & FS_LORA_Q)
		per_layer += h + q;
	if (modules & FS_LORA_K)
		per_layer += h + kv;
	if (modules & FS_LORA_V)
		per_layer += h + kv;
	if (modules & FS_LORA_O)
		per_layer += q + h;
	if (modules & FS_LORA_GATE)
		per_layer += experts * (h + f);
	if (modules & FS_LORA_UP)
		per_layer += experts * (h + f);
	if (modules & FS_LORA_DOWN)
		per_layer += experts * (f + h);
	return (double)m->layers * rank * per_layer;
}

/* Parameters kept in 16 bits whatever the base dtype: the input embedding
 * and LM head (untied, as the catalogue counts them) and the norm vectors. */
static double unquantised_params(const struct fs_model_spec *m)
{
	return 2.0 * m->vocab * m->hidden + (2.0 * m->layers + 1) * m->hidden;
}

/* MODEL: T3 — bytes per NF4 weight with its block constants. */
static double nf4_bytes_per_param(int double_quant)
{
	if (double_quant)
		return NF4_BYTES + 1.0 / NF4_BLOCK + FP32_BYTES / (NF4_BLOCK * NF4_DQ_BLOCK);
	return NF4_BYTES + FP32_BYTES / NF4_BLOCK;
}

/* Frozen or trained weight bytes of the whole model (unsharded). */
static double base_weight_bytes(const struct fs_train_cfg *c)
{
	const struct fs_model_spec *m = c->model;
	double keep = unquantised_params(m), body = m->params - keep;

	if (body < 0) {
		body = 0;
		keep = m->params;
	}
	switch (c->method) {
	case FS_TRAIN_FULL:
		return m->params * HALF_BYTES;                       /* MODEL: T1 */
	case FS_TRAIN_LORA:
		return body * fs_dtype_bytes(c->weight_dtype) +      /* MODEL: T2 */
		       keep * HALF_BYTES;
	case FS_TRAIN_QLORA:
		/* MODEL: T10 — PEFT's prepare_model_for_kbit_training casts
		 * every 16-bit parameter that is not 4-bit to fp32. */
		return body * nf4_bytes_per_param(c->nf4_double_quant) +      /* MODEL: T3 */
		       keep * (c->kbit_fp32_cast ? FP32_BYTES : HALF_BYTES);
	}
	return m->params * HALF_BYTES;
}

/* MODEL: T5 — activation bytes one transformer layer keeps per token in
 * 16 bits: Korthikanti et al. 2022 (sbh(34 + 5as/h) for GPT) with each
 * tensor counted at the model's own width and no dropout masks.
 * Attention: norm input 2h, QKV input 2h, Q and K 2(q + kv), V 2kv, the
 * attention output (the O projection's input) 2q, and without
 * FlashAttention the paper's 5 a s bytes of softmax/dropout matrices.
 * FFN: norm input 2h; per routed expert its input 2h and four f-wide
 * tensors (gate output, its SiLU, up output, their product) 8f. */
static double layer_bytes_per_token(const struct fs_train_cfg *c)
{
	const struct fs_model_spec *m = c->model;
	double h = m->hidden, q = m->heads * head_dim(m), kv = m->kv_heads * head_dim(m);
	double k = m->experts > 1 ? m->experts_per_token : 1, f = m->ffn;
	double attn = 2 * h + 2 * h + 2 * (q + kv) + 2 * kv + 2 * q;
	double ffn = 2 * h + k * (2 * h + 8 * f);

	if (!c->flash_attn)
		attn += 5.0 * m->heads * (double)c->seq_tokens;
	return attn + ffn;
}

double fs_train_activation_bytes(const struct fs_train_cfg *c)
{
	const struct fs_model_spec *m = c->model;
	double tokens = (double)c->micro_batch * (double)c->seq_tokens;
	double layer = layer_bytes_per_token(c), body;
	/* MODEL: T7 — the final norm's and LM head's inputs (4h) and the
	 * logits the loss holds, logit_bytes per vocabulary entry. */
	double loss = 4.0 * m->hidden + c->logit_bytes * m->vocab;

	if (c->recompute == FS_RECOMPUTE_FULL)
		/* MODEL: T6 — each layer keeps its 16-bit input; backward
		 * recomputes one layer at a time, whose activations are live. */
		body = m->layers * 2.0 * m->hidden + layer;
	else
		body = m->layers * layer;
	return tokens * (body + loss);
}

static int check(const struct fs_train_cfg *c, struct fs_error *err)
{
	const struct fs_model_spec *m = c->model;

	if (m == NULL || m->layers < 1 || m->hidden < 1 || m->heads < 1 || m->vocab < 1 ||
	    m->ffn < 1 || !(m->params > 0))
		return fs_error_set(err, NULL, "model", "expected a model with layers, hidden, "
		                    "heads, ffn, vocab and params all positive");
	if (c->micro_batch < 1 || c->seq_tokens < 1 || c->grad_accum < 1 || c->n_gpus < 1)
		return fs_error_set(err, NULL, NULL, "expected micro-batch, sequence length, "
		                    "gradient accumulation and GPU count of at least 1");
	if (c->method == FS_TRAIN_FULL && c->weight_dtype != FS_DTYPE_BF16 &&
	    c->weight_dtype != FS_DTYPE_FP16)
		return fs_error_set(err, NULL, "weights-dtype", "expected fp16 or bf16 for "
		                    "full fine-tuning (mixed precision), found %s",
		                    fs_dtype_name(c->weight_dtype));
	if (c->method != FS_TRAIN_FULL && (c->lora_rank < 1 || c->lora_modules == 0 ||
	                                   (c->lora_modules & ~(unsigned)FS_LORA_ALL) != 0))
		return fs_error_set(err, NULL, "lora", "expected a rank of at least 1 and at "
		                    "least one of q,k,v,o,gate,up,down");
	if (!(c->logit_bytes >= 0) || !(c->reserve_bytes >= 0))
		return fs_error_set(err, NULL, NULL, "expected logit bytes and reserve of at "
		                    "least 0");
	return 0;
}

int fs_train_mem_plan(const struct fs_train_cfg *c, struct fs_train_mem *out,
                      struct fs_error *err)
{
	const struct fs_model_spec *m = c->model;
	double n, trained, weights, grads, master, moments, layer_params;

	memset(out, 0, sizeof *out);
	if (check(c, err) != 0)
		return -1;
	n = c->n_gpus;
	weights = base_weight_bytes(c);
	if (c->method == FS_TRAIN_FULL) {
		/* MODEL: T1 — bf16 weights 2 + bf16 gradients 2 + fp32 master 4
		 * + fp32 first and second moments 4 + 4 = 16 B per parameter. */
		trained = m->params;
		grads = trained * HALF_BYTES;
		master = trained * FP32_BYTES;
		moments = trained * 2 * FP32_BYTES;
	} else {
		/* MODEL: T2 — adapters are fp32 (their own master): weights 4 +
		 * gradients 4 + moments 8 = 16 B per adapter parameter. */
		trained = fs_train_lora_params(m, c->lora_modules, c->lora_rank);
		weights += trained * FP32_BYTES;
		grads = trained * FP32_BYTES;
		master = 0;
		moments = trained * 2 * FP32_BYTES;
	}
	out->params = m->params;
	out->trainable_params = trained;
	out->base_bytes_per_param = base_weight_bytes(c) / m->params;
	/* MODEL: T4 — ZeRO stage 1 divides the optimizer states (master and
	 * moments), stage 2 also the gradients, stage 3 also the weights. */
	if (c->shard >= FS_SHARD_ZERO1) {
		master /= n;
		moments /= n;
	}
	if (c->shard >= FS_SHARD_ZERO2)
		grads /= n;
	if (c->shard >= FS_SHARD_ZERO3)
		weights /= n;
	/* MODEL: T4 — what sharding gathers back: under stage 3 two layers'
	 * full weights (the one computing and the one prefetched); under
	 * stages 2 and 3 one layer's full gradients before its reduce-scatter. */
	layer_params = (m->params - unquantised_params(m)) / m->layers;
	if (layer_params < 0)
		layer_params = 0;
	if (c->n_gpus > 1 && c->shard >= FS_SHARD_ZERO3)
		out->gathered_bytes += 2 * layer_params * (base_weight_bytes(c) / m->params);
	if (c->n_gpus > 1 && c->shard >= FS_SHARD_ZERO2)
		out->gathered_bytes += c->method == FS_TRAIN_FULL ? layer_params * HALF_BYTES :
		                       trained / m->layers * FP32_BYTES;
	out->weights_bytes = weights;
	out->grads_bytes = grads;
	out->master_bytes = master;
	out->moments_bytes = moments;
	out->activation_bytes = fs_train_activation_bytes(c);
	out->reserve_bytes = c->reserve_bytes;                      /* MODEL: T9 */
	out->total_bytes = out->weights_bytes + out->grads_bytes + out->master_bytes +
	                   out->moments_bytes + out->gathered_bytes + out->activation_bytes +
	                   out->reserve_bytes;
	/* MODEL: T8 — accumulation adds tokens per step, not memory. */
	out->tokens_per_step = c->micro_batch * c->seq_tokens * c->grad_accum * c->n_gpus;
	return 0;
}

/* The index of text among the n names, ignoring case; -1 when none. */
static int name_index_ci(const char *const *names, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(text, names[i]) == 0)
			return (int)i;
	return -1;
}

FS_ENUM_FUNCS(enum fs_train_method, FS_TRAIN_METHOD_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_train_method_name, fs_train_method_from_name, "?")

int fs_train_method_parse(const char *text, enum fs_train_method *out)
{
	static const char *const NAMES[] = { FS_TRAIN_METHOD_MAP(FS_ENUM_NAME) };
	int i = name_index_ci(NAMES, sizeof NAMES / sizeof NAMES[0], text);

	if (i < 0)
		return -1;
	*out = (enum fs_train_method)i;
	return 0;
}

FS_ENUM_FUNCS(enum fs_train_shard, FS_TRAIN_SHARD_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_train_shard_name, fs_train_shard_from_name, "?")

int fs_train_shard_parse(const char *text, enum fs_train_shard *out)
{
	static const char *const NAMES[] = { FS_TRAIN_SHARD_MAP(FS_ENUM_NAME) };
	int i;

	if (strcasecmp(text, "fsdp") == 0) {
		*out = FS_SHARD_ZERO3;
		return 0;
	}
	if (strcasecmp(text, "ddp") == 0) {
		*out = FS_SHARD_NONE;
		return 0;
	}
	i = name_index_ci(NAMES, sizeof NAMES / sizeof NAMES[0], text);
	if (i < 0)
		return -1;
	*out = (enum fs_train_shard)i;
	return 0;
}

FS_ENUM_FUNCS(enum fs_train_recompute, FS_TRAIN_RECOMPUTE_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_train_recompute_name, fs_train_recompute_from_name, "?")

int fs_train_recompute_parse(const char *text, enum fs_train_recompute *out)
{
	static const char *const NAMES[] = { FS_TRAIN_RECOMPUTE_MAP(FS_ENUM_NAME) };
	int i = name_index_ci(NAMES, sizeof NAMES / sizeof NAMES[0], text);

	if (i < 0)
		return -1;
	*out = (enum fs_train_recompute)i;
	return 0;
}

/* The index of the module text[0 .. len) names ("q" or "q_proj", any
 * case), or N_MODULES when none. */
static size_t module_index(const char *text, size_t len)
{
	size_t i;

	/* "q_proj" names the same map as "q" (the Llama module names). */
	if (len > 5 && strncasecmp(text + len - 5, "_proj", 5) == 0)
		len -= 5;
	for (i = 0; i < N_MODULES; i++)
		if (len == strlen(MODULE_NAMES[i]) && strncasecmp(text, MODULE_NAMES[i], len) == 0)
			break;
	return i;
}

int fs_train_lora_modules_parse(const char *text, unsigned *out, struct fs_error *err)
{
	unsigned bits = 0;
	const char *p = text;
	size_t n = 0, first[N_MODULES] = { 0 };

	if (strcasecmp(text, "all") == 0 || strcasecmp(text, "all-linear") == 0) {
		*out = FS_LORA_ALL;
		return 0;
	}
	while (*p != '\0') {
		size_t len = strcspn(p, ","), i = module_index(p, len);

		n++;
		if (i == N_MODULES)
			return fs_error_set(err, NULL, NULL, "expected a comma-separated list of "
			                    "q,k,v,o,gate,up,down or all, found \"%.*s\" (name %zu "
			                    "of \"%s\")", (int)len, p, n, text);
		/* A repeated map would be adapted once: the list is not what
		 * was meant. */
		if (bits & (1u << i))
			return fs_error_set(err, NULL, NULL, "expected each module once, found "
			                    "\"%.*s\" again (name %zu of \"%s\"; the same map as "
			                    "name %zu)", (int)len, p, n, text, first[i]);
		bits |= 1u << i;
		first[i] = n;
		p += len;
		if (*p == ',' && *++p == '\0')        /* "q," names nothing last */
			return fs_error_set(err, NULL, NULL, "expected a comma-separated list of "
			                    "q,k,v,o,gate,up,down or all, found an empty name "
			                    "after the last comma of \"%s\"", text);
	}
	if (bits == 0)
		return fs_error_set(err, NULL, NULL, "expected a comma-separated list of "
		                    "q,k,v,o,gate,up,down or all, found an empty one");
	*out = bits;
	return 0;
}

void fs_train_lora_modules_format(unsigned modules, char *buf, size_t buf_len)
{
	size_t used = 0;

	if (buf_len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < N_MODULES; i++) {
		int w;

		if (!(modules & (1u << i)))
			continue;
		w = snprintf(buf + used, buf_len - used, "%s%s", used > 0 ? "," : "",
		             MODULE_NAMES[i]);
		if (w < 0 || (size_t)w >= buf_len - used)
			return;
		used += (size_t)w;
	}
}
