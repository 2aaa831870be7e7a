/*
 * catalog.h — built-in GPU and model facts.  Each entry is immutable data
 * with its sources written beside it (src/catalog_gpus.c,
 * src/catalog_models.c); prices are dated examples, always overridable.
 * Lookup is by canonical id or alias, case-insensitive.  The tables are
 * static const: nothing here is mutable state.  Returned pointers stay valid
 * for the life of the process and must not be freed.
 */
#ifndef FLEETSIM_CATALOG_H
#define FLEETSIM_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"

/* Step-time defaults of a GPU without calibration data: the built-in
 * uncalibrated entries and a scenario catalogue GPU given without "base"
 * take these.  All come from the fit of docs/VALIDATION.md (`make
 * fit-step`): MBU is the lower of the A100 and H100 fits (0.744); MFU is the
 * A100 fit of the first fit (0.742), 1% above the current fit's 0.734; the
 * overheads and shared terms are fitted across GPUs. */
#define FS_GPU_MFU_DEFAULT 0.74
#define FS_GPU_MBU_DEFAULT 0.74
#define FS_GPU_ITERATION_OVERHEAD_NS_DEFAULT (165 * FS_NS_PER_US)
#define FS_GPU_PER_SEQ_OVERHEAD_NS_DEFAULT (24 * FS_NS_PER_US)
#define FS_GPU_LAYER_OVERHEAD_NS_DEFAULT (24 * FS_NS_PER_US)
#define FS_GPU_ALLREDUCE_LATENCY_NS_DEFAULT (60 * FS_NS_PER_US)
/* 8-bit (fp8/int8) GEMMs reach a smaller fraction of their peak than 16-bit
 * ones: mfu_8bit = mfu x this ratio where a GPU has no value of its own
 * (the Hopper fit). */
#define FS_GPU_MFU_8BIT_RATIO_DEFAULT 0.786
/* FlashAttention-2 forward reaches "50-73% of the theoretical maximum
 * FLOPs/s on A100" (Dao 2023, arXiv 2307.08691): the lower end is the
 * default prefill attention efficiency; Hopper GPUs set their own (35%). */
#define FS_GPU_ATTN_EFF_DEFAULT 0.50

/* Step-time terms shared by every GPU (docs/MODEL.md P11, P12), fitted. */
#define FS_STEP_KNEE_EXP_DEFAULT 1.63       /* (c^n + m^n)^(1/n) at the ridge */
#define FS_STEP_GEMM_FLOOR_NS_DEFAULT (4 * FS_NS_PER_US)   /* per weight GEMM kernel */
#define FS_STEP_EAGER_LAUNCH_NS_DEFAULT (177 * FS_NS_PER_US)  /* per layer, eager step */
#define FS_STEP_ELEMENTWISE_EFF_DEFAULT 0.63   /* of the memory bandwidth */

struct fs_gpu_spec {
	const char *id;                      /* canonical id: "a100-80g" */
	const char *aliases;                 /* comma-separated: "a100-80g-sxm,a100" */
	const char *display_name;            /* "NVIDIA A100 80GB SXM" */
	double mem_bytes;                    /* device memory, bytes (GB = 1e9) */
	double mem_bw_bytes_per_s;           /* HBM/GDDR bandwidth */
	double fp16_flops_per_s;             /* dense FP16/BF16 tensor (FP32 accumulate) */
	double fp8_flops_per_s;              /* dense FP8; 0 when unsupported */
	double int8_ops_per_s;               /* dense INT8; 0 when unsupported */
	double link_bytes_per_s;             /* per-GPU bandwidth a TP all-reduce
	                                        moves data at, one direction:
	                                        measured NCCL bus bandwidth where
	                                        known, else the link's per-direction
	                                        figure (PCIe x16, NVLink / 2) */
	const char *interconnect;            /* "NVLink4 900 GB/s", "PCIe 4.0 x16" */
	double tdp_w;                        /* board power, W; 0 when not verified */
	/* Step-time model defaults (how chosen: docs/CATALOG.md; calibration:
	 * docs/VALIDATION.md). */
	double mfu;                          /* achievable fraction of peak FLOP/s */
	double mbu;                          /* achievable fraction of memory bandwidth */
	double mfu_8bit;                     /* fraction of the fp8/int8 peak reached by
	                                        8-bit GEMMs; 0 = mfu x the ratio above */
	double attn_eff;                     /* fraction of the 16-bit peak reached by
	                                        prefill attention; 0 = the default */
	fs_ns iteration_overhead_ns;         /* fixed cost per engine iteration */
	fs_ns per_seq_overhead_ns;           /* extra cost per sequence in a batch */
	fs_ns layer_overhead_ns;             /* fixed GPU time per transformer layer
	                                        per iteration for the non-GEMM ops
	                                        (norms, RoPE, activation, residual) */
	fs_ns allreduce_latency_ns;          /* per all-reduce launch latency (TP > 1) */
	/* Example prices, USD; 0 when no anchor was found. */
	double price_on_demand_usd_per_h;    /* per GPU-hour */
	double price_spot_usd_per_h;         /* per GPU-hour */
	double price_monthly_usd;            /* per GPU-month, reserved/monthly rental */
	const char *price_date;              /* "2025-11" */
	const char *price_source;
	const char *spec_source;
	const char *notes;                   /* uncertainty, caveats; "" when none */
};

struct fs_model_spec {
	const char *id;                      /* canonical id: "llama-3.1-8b" */
	const char *aliases;                 /* comma-separated */
	const char *display_name;            /* "Llama-3.1-8B" */
	int layers;
	int hidden;
	int heads;
	int kv_heads;
	int head_dim;
	int ffn;                             /* intermediate size (per expert for MoE) */
	int vocab;
	int experts;                         /* 1 for dense models */
	int experts_per_token;               /* 1 for dense models */
	double params;                       /* total parameters */
	double active_params;                /* parameters touched per token */
	int64_t max_context_tokens;
	const char *source;
	const char *notes;
};

/* Number of built-in GPUs; fs_catalog_gpu_at(i) for i < that number
 * (asserts the bound).  Order is the catalogue's display order. */
size_t fs_catalog_n_gpus(void);
const struct fs_gpu_spec *fs_catalog_gpu_at(size_t i);

/* The GPU whose id or one of whose aliases equals `name`, compared
 * case-insensitively ("H100-SXM5" finds "h100"); NULL when unknown or NULL. */
const struct fs_gpu_spec *fs_catalog_find_gpu(const char *name);

/* Number of built-in models; fs_catalog_model_at(i) for i < that number. */
size_t fs_catalog_n_models(void);
const struct fs_model_spec *fs_catalog_model_at(size_t i);

/* The model whose id or alias equals `name` (case-insensitive, so
 * "meta-llama/Llama-2-7b-hf" finds "llama-2-7b"); NULL when unknown. */
const struct fs_model_spec *fs_catalog_find_model(const char *name);

/* 1 when `name` equals `id` or one of the comma-separated `aliases` (NULL
 * or "" for none), ignoring case; else 0.  The rule every lookup by name
 * follows, for catalogue entries held outside the built-in tables. */
int fs_catalog_name_matches(const char *name, const char *id, const char *aliases);

/* Canonical id most likely meant by a misspelt name, for "did you mean":
 * fs__suggest_nearest over every id and alias, mapped back to the id.  NULL
 * when nothing is close.  The returned string is static. */
const char *fs_catalog_suggest_gpu(const char *name);
const char *fs_catalog_suggest_model(const char *name);

/* KV-cache bytes one token occupies across all layers:
 * 2 (K and V) x layers x kv_heads x head_dim x bytes_per_elem
 * (bytes_per_elem 2 for bf16/fp16, 1 for fp8). */
int64_t fs_catalog_kv_bytes_per_token(const struct fs_model_spec *m,
                                      int bytes_per_elem);

#endif
