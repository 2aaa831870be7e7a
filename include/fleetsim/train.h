/*
 * train.h — the memory one GPU needs to fine-tune a model: full fine-tuning
 * with mixed-precision AdamW, LoRA and QLoRA, activations with or without
 * recomputation, ZeRO/FSDP sharding over N data-parallel GPUs
 * (docs/MODEL.md T1-T9).  Pure functions of a caller-owned config; nothing
 * here allocates.  The config points at a model spec the caller keeps alive.
 */
#ifndef FLEETSIM_TRAIN_H
#define FLEETSIM_TRAIN_H

#include <stdint.h>

#include "fleetsim/catalog.h"
#include "fleetsim/common.h"
#include "fleetsim/perf.h"

/* What is trained. */
#define FS_TRAIN_METHOD_MAP(X)                                                    \
	X(FS_TRAIN_FULL, "full")    /* every parameter, mixed-precision AdamW */  \
	X(FS_TRAIN_LORA, "lora")    /* frozen base + rank-r adapters */           \
	X(FS_TRAIN_QLORA, "qlora")  /* frozen 4-bit NF4 base + rank-r adapters */
enum fs_train_method {
	FS_TRAIN_METHOD_MAP(FS_ENUM_MEMBER)
};

/* How data-parallel GPUs divide the model states.  FSDP FULL_SHARD is
 * stage 3, SHARD_GRAD_OP stage 2. */
#define FS_TRAIN_SHARD_MAP(X)                                                             \
	X(FS_SHARD_NONE, "none")    /* plain data parallel: every GPU holds everything */ \
	X(FS_SHARD_ZERO1, "zero1")  /* optimizer states (master + moments) / N */         \
	X(FS_SHARD_ZERO2, "zero2")  /* + gradients / N */                                 \
	X(FS_SHARD_ZERO3, "zero3")  /* + weights / N */
enum fs_train_shard {
	FS_TRAIN_SHARD_MAP(FS_ENUM_MEMBER)
};

/* Activation recomputation (checkpointing). */
#define FS_TRAIN_RECOMPUTE_MAP(X)                                                              \
	X(FS_RECOMPUTE_NONE, "none")  /* every layer keeps its activations */                  \
	X(FS_RECOMPUTE_FULL, "full")  /* each layer keeps its input; recomputed in backward */
enum fs_train_recompute {
	FS_TRAIN_RECOMPUTE_MAP(FS_ENUM_MEMBER)
};

/* LoRA target modules, a bit set over the seven linear maps of a layer. */
enum {
	FS_LORA_Q = 1 << 0,
	FS_LORA_K = 1 << 1,
	FS_LORA_V = 1 << 2,
	FS_LORA_O = 1 << 3,
	FS_LORA_GATE = 1 << 4,
	FS_LORA_UP = 1 << 5,
	FS_LORA_DOWN = 1 << 6,
	FS_LORA_ALL = (1 << 7) - 1
};

/* Defaults of fs_train_cfg_defaults (docs/MODEL.md T7, T9). */
#define FS_TRAIN_RESERVE_BYTES_DEFAULT 1.0e9   /* CUDA context + workspaces */
#define FS_TRAIN_LOGIT_BYTES_DEFAULT 4.0       /* fp32 logits (Korthikanti) */
#define FS_TRAIN_LORA_RANK_DEFAULT 16

struct fs_train_cfg {
	const struct fs_model_spec *model;   /* not owned */
	enum fs_train_method method;
	enum fs_dtype weight_dtype;          /* full: fp16 or bf16; LoRA: the frozen
	                                        base's dtype; QLoRA: ignored (NF4) */
	unsigned lora_modules;               /* FS_LORA_* bits; LoRA and QLoRA */
	int lora_rank;                       /* r >= 1 */
	int nf4_double_quant;                /* QLoRA: quantise the constants too */
	int kbit_fp32_cast;                  /* QLoRA: the unquantised parameters
	                                        (embeddings, LM head, norms) cast
	                                        to fp32, as PEFT's
	                                        prepare_model_for_kbit_training
	                                        does (T10); ignored otherwise */
	int64_t micro_batch;                 /* sequences per GPU per step */
	int64_t seq_tokens;                  /* tokens per sequence */
	int64_t grad_accum;                  /* micro-batches per optimizer step */
	enum fs_train_recompute recompute;
	int flash_attn;                      /* 1: no s x s matrix is stored */
	enum fs_train_shard shard;
	int n_gpus;                          /* data-parallel GPUs, >= 1 */
	double logit_bytes;                  /* bytes per vocabulary entry per token
	                                        held at the loss */
	double reserve_bytes;                /* per GPU: CUDA context, workspaces */
};

/* The plan: counts, and bytes per GPU by kind. */
struct fs_train_mem {
	double params;                       /* all parameters of the model */
	double trainable_params;             /* full: params; LoRA: adapters */
	double base_bytes_per_param;         /* frozen/trained weights, mean */
	double weights_bytes;                /* model weights (+ adapters) */
	double grads_bytes;                  /* gradients of the trained params */
	double master_bytes;                 /* fp32 master copy (full only) */
	double moments_bytes;                /* AdamW first and second moments */
	double gathered_bytes;               /* ZeRO-3: unsharded layers in flight */
	double activation_bytes;             /* one micro-batch, forward kept */
	double reserve_bytes;                /* context, workspaces */
	double total_bytes;                  /* the sum: peak per GPU */
	int64_t tokens_per_step;             /* micro x seq x accum x GPUs */
};

/* Fill *c with the defaults for model m: full fine-tuning in bf16, rank 16
 * on all seven modules, NF4 double quantisation, QLoRA's fp32 cast of the
 * unquantised parameters (T10), micro-batch 1 of 2048
 * tokens, no accumulation, no recomputation, FlashAttention, one GPU, no
 * sharding, 4 logit bytes, 1 GB reserve. */
void fs_train_cfg_defaults(struct fs_train_cfg *c, const struct fs_model_spec *m);

/* Adapter parameters of rank-r LoRA on `modules` (FS_LORA_* bits):
 * layers x sum over adapted matrices of r x (d_in + d_out); the FFN maps of
 * an MoE model are adapted in every expert.  Exact (a closed form). */
double fs_train_lora_params(const struct fs_model_spec *m, unsigned modules, int rank);

/* Activation bytes of one micro-batch on one GPU under c (T5, T6). */
double fs_train_activation_bytes(const struct fs_train_cfg *c);

/* The memory plan of c.  Returns 0, or -1 with err filled (a zero count, a
 * quantised dtype for full fine-tuning, LoRA without modules, etc.); *out
 * is zeroed on failure. */
int fs_train_mem_plan(const struct fs_train_cfg *c, struct fs_train_mem *out,
                      struct fs_error *err);

/* Names: "full", "lora", "qlora"; "none", "zero1", "zero2", "zero3";
 * "none", "full".  Parse returns 0, or -1 when unknown (*out untouched);
 * the shard parser also takes "fsdp" (= zero3) and "ddp" (= none). */
const char *fs_train_method_name(enum fs_train_method m);
int fs_train_method_parse(const char *text, enum fs_train_method *out);
const char *fs_train_shard_name(enum fs_train_shard s);
int fs_train_shard_parse(const char *text, enum fs_train_shard *out);
const char *fs_train_recompute_name(enum fs_train_recompute r);
/* Exact lookups of the names above (the parsers take any case and the
 * aliases): 0 with *out set, or -1 (*out untouched). */
int fs_train_method_from_name(const char *name, enum fs_train_method *out);
int fs_train_shard_from_name(const char *name, enum fs_train_shard *out);
int fs_train_recompute_from_name(const char *name, enum fs_train_recompute *out);
int fs_train_recompute_parse(const char *text, enum fs_train_recompute *out);

/* Parse "q,v" / "all" (comma-separated q k v o gate up down, each also as
 * "q_proj" etc., any case) into FS_LORA_* bits.  Returns 0, or -1 with err
 * (may be NULL) naming the name at fault: an unknown or empty one, or a
 * map named twice ("q,v,q_proj"); *out is untouched on failure. */
int fs_train_lora_modules_parse(const char *text, unsigned *out, struct fs_error *err);

/* Write the module list ("q,k,v,o,gate,up,down") into buf. */
void fs_train_lora_modules_format(unsigned modules, char *buf, size_t buf_len);

#endif
