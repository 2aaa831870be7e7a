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
 * take these (sources beside their use in src/catalog_gpus.c). */
#define FS_GPU_MFU_DEFAULT 0.70
#define FS_GPU_MBU_DEFAULT 0.75
#define FS_GPU_ITERATION_OVERHEAD_NS_DEFAULT (1000 * FS_NS_PER_US)
#define FS_GPU_PER_SEQ_OVERHEAD_NS_DEFAULT (10 * FS_NS_PER_US)
#define FS_GPU_LAYER_OVERHEAD_NS_DEFAULT (30 * FS_NS_PER_US)
#define FS_GPU_ALLREDUCE_LATENCY_NS_DEFAULT (60 * FS_NS_PER_US)

struct fs_gpu_spec {
	const char *id;                      /* canonical id: "a100-80g" */
	const char *aliases;                 /* comma-separated: "a100-80g-sxm,a100" */
	const char *display_name;            /* "NVIDIA A100 80GB SXM" */
	double mem_bytes;                    /* device memory, bytes (GB = 1e9) */
	double mem_bw_bytes_per_s;           /* HBM/GDDR bandwidth */
	double fp16_flops_per_s;             /* dense FP16/BF16 tensor (FP32 accumulate) */
	double fp8_flops_per_s;              /* dense FP8; 0 when unsupported */
	double int8_ops_per_s;               /* dense INT8; 0 when unsupported */
	double link_bytes_per_s;             /* per-GPU bandwidth for TP all-reduce:
	                                        NVLink/xGMI/HCCS total where present,
	                                        else PCIe x16 (both bidirectional) */
	const char *interconnect;            /* "NVLink4 900 GB/s", "PCIe 4.0 x16" */
	double tdp_w;                        /* board power, W; 0 when not verified */
	/* Step-time model defaults (how chosen: docs/CATALOG.md; calibration:
	 * docs/VALIDATION.md). */
	double mfu;                          /* achievable fraction of peak FLOP/s */
	double mbu;                          /* achievable fraction of memory bandwidth */
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
