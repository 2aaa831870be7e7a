/*
 * perf.h — the step-time and memory model of one replica (a GPU type × a
 * tensor-parallel degree serving one model).  Pure functions of their inputs:
 * no clock, no randomness, no state beyond what the caller passes in.  The
 * configuration borrows catalogue entries and an optional measured step table
 * (owned by the caller, freed with fs_step_table_free).  Assumptions P1–P20
 * are in docs/MODEL.md; the evidence is in docs/VALIDATION.md.
 */
#ifndef FLEETSIM_PERF_H
#define FLEETSIM_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/catalog.h"
#include "fleetsim/common.h"

/* Element type of weights or of the KV cache. */
/* The dtypes a KV cache may take, then the weights-only one. */
#define FS_KV_DTYPE_MAP(X)                                                      \
	X(FS_DTYPE_FP16, "fp16")                                                \
	X(FS_DTYPE_BF16, "bf16")                                                \
	X(FS_DTYPE_FP8, "fp8")                                                  \
	X(FS_DTYPE_INT8, "int8")
#define FS_DTYPE_MAP(X)                                                         \
	FS_KV_DTYPE_MAP(X)                                                      \
	X(FS_DTYPE_INT4, "int4")
enum fs_dtype {
	FS_DTYPE_MAP(FS_ENUM_MEMBER)
};

/* Bytes per element: 2, 2, 1, 1, 0.5. */
double fs_dtype_bytes(enum fs_dtype dtype);

/* "fp16", "bf16", "fp8", "int8", "int4". */
const char *fs_dtype_name(enum fs_dtype dtype);
/* The dtype named `name` exactly as above into *out: 0, or -1 (*out untouched);
 * fs_dtype_parse also takes other spellings, in any case. */
int fs_dtype_from_name(const char *name, enum fs_dtype *out);

/* Parse a dtype name (case-insensitive; "float16", "bfloat16" accepted too).
 * Returns 0, or -1 when unknown (*out untouched). */
int fs_dtype_parse(const char *text, enum fs_dtype *out);

/* A measured step-time table (opaque); see fs_step_table_load. */
struct fs_step_table;

/*
 * Everything the model needs about one replica.  Fill with
 * fs_perf_cfg_defaults, then override fields.  Sentinels: 0 for mfu/mbu and
 * kv_blocks_pinned, negative for the overheads and the activation reserve,
 * mean "use the default" (GPU catalogue value or the documented rule).
 */
struct fs_perf_cfg {
	const struct fs_gpu_spec *gpu;       /* borrowed catalogue entry */
	const struct fs_model_spec *model;   /* borrowed catalogue entry */
	int tp;                              /* tensor-parallel degree, >= 1 */
	enum fs_dtype weight_dtype;          /* default bf16 */
	enum fs_dtype kv_dtype;              /* default bf16 */
	double gpu_mem_util;                 /* fraction of memory usable, default 0.90 */
	int block_tokens;                    /* KV block size, tokens, default 16 */
	int64_t kv_blocks_pinned;            /* 0 = derive from memory */
	int64_t max_batched_tokens;          /* engine token budget per step (activation rule), 2048 */
	int64_t max_seqs;                    /* engine sequence cap (activation rule), 256 */
	double mfu;                          /* 0 = gpu->mfu */
	double mbu;                          /* 0 = gpu->mbu */
	double mfu_8bit;                     /* 8-bit GEMMs; 0 = gpu default (P9) */
	double knee_exp;                     /* GEMM ridge smoothness n; 0 = default (P11) */
	fs_ns gemm_floor_ns;                 /* per weight GEMM kernel; -1 = default */
	double attn_prefill_eff;             /* fraction of 16-bit peak; 0 = gpu's (P13) */
	double attn_decode_eff;              /* fraction of memory BW; 0 = the MBU (P13) */
	double elementwise_eff;              /* fraction of memory BW; 0 = default (P12) */
	double link_bytes_per_s;             /* all-reduce bandwidth; 0 = gpu's (P14) */
	fs_ns eager_launch_ns;               /* host launch time per layer of a step
	                                        with prompt tokens; -1 = default (P15) */
	fs_ns iteration_overhead_ns;         /* -1 = gpu default */
	fs_ns per_seq_overhead_ns;           /* -1 = gpu default */
	fs_ns layer_overhead_ns;             /* per layer per step; -1 = gpu default */
	fs_ns allreduce_latency_ns;          /* -1 = gpu default */
	double activation_reserve_bytes;     /* per GPU; < 0 = rule P6 */
	const struct fs_step_table *table;   /* NULL = roofline; borrowed */
};

/* Defaults for a (gpu, model) pair at TP 1, bf16 weights and KV. */
void fs_perf_cfg_defaults(struct fs_perf_cfg *cfg, const struct fs_gpu_spec *gpu,
                          const struct fs_model_spec *model);

/* Check ranges and that TP splits the model (P3).  Returns 0, or -1 with a
 * message in err. */
int fs_perf_cfg_check(const struct fs_perf_cfg *cfg, struct fs_error *err);

/* Memory plan of one replica; all bytes per GPU unless named otherwise. */
struct fs_mem_plan {
	double weights_bytes_per_gpu;        /* params × weight bytes / TP */
	double activation_bytes_per_gpu;     /* reserve for one forward pass */
	double kv_bytes_per_token;           /* whole replica, all layers */
	double kv_bytes_per_token_per_gpu;   /* one GPU's share (with replication) */
	double usable_bytes_per_gpu;         /* mem × gpu_mem_util */
	double kv_pool_bytes_per_gpu;        /* usable − weights − activations (≥ 0) */
	int64_t kv_blocks;                   /* blocks of block_tokens (pinned or derived) */
	bool fits;                           /* at least one block fits */
	double needed_bytes_per_gpu;         /* weights + activations (+ one block) */
	double available_bytes_per_gpu;      /* = usable_bytes_per_gpu */
};

/*
 * Plan the memory of one replica.  Fills *plan in every case where the
 * configuration is valid; returns 0 when the model fits, -1 when it does not
 * (plan->fits false, err says the numbers needed vs available) or when the
 * configuration is invalid (err says why).
 */
int fs_perf_plan_memory(const struct fs_perf_cfg *cfg, struct fs_mem_plan *plan,
                        struct fs_error *err);

/* Sequences of context_tokens each whose KV fits at once:
 * kv_blocks / ceil(context_tokens / block_tokens); 0 when none. */
int64_t fs_perf_max_seqs_at_context(const struct fs_mem_plan *plan,
                                    int block_tokens, int64_t context_tokens);

/* What one engine iteration computes. */
struct fs_step_shape {
	int64_t prefill_tokens;              /* new prompt tokens processed this step */
	int64_t prefill_attn_tokens;         /* Σ chunk_len × (ctx_before + chunk_len/2) */
	int64_t decode_seqs;                 /* sequences producing one token each */
	int64_t decode_context_tokens;       /* Σ context length of those sequences */
	int64_t n_seqs;                      /* sequences in the batch (prefill + decode) */
};

/* A step's cost, for reporting achieved MFU/MBU.  Times are per GPU. */
struct fs_step_cost {
	double flops;                        /* whole replica */
	double bytes;                        /* whole replica, HBM traffic */
	double compute_ns;                   /* flops / (TP · peak · MFU) */
	double memory_ns;                    /* bytes / (TP · BW · MBU) */
	double linear_ns;                    /* weight GEMMs (P11) with their floors */
	double attn_ns;                      /* roofline of attention */
	double elementwise_ns;               /* norms, activation, residual, with
	                                        their per-layer launch floor (P12) */
	double comm_ns;                      /* TP all-reduce */
	double overhead_ns;                  /* iteration + per-sequence */
	double layer_floor_ns;               /* layers x layer overhead (in elementwise_ns) */
	double launch_ns;                    /* host launch floor of an eager step (P15) */
	double gpu_ns;                       /* the kernels: linear + attention +
	                                        elementwise + comm, raised to the
	                                        launch floor; total = this + overhead */
	fs_ns total_ns;                      /* the step time */
};

/* Peak FLOP/s of one GPU for the weight GEMMs at cfg's weight dtype (P9). */
double fs_perf_peak_flops_per_s(const struct fs_perf_cfg *cfg);

/* Peaks of one instance (cfg->tp GPUs): FLOP/s for the weight GEMMs at
 * cfg's weight dtype (P9) and memory bandwidth, bytes/s — the denominators
 * of achieved MFU and MBU (MODEL: S8).  The one place they are computed. */
struct fs_perf_peaks {
	double flops_per_s;
	double bytes_per_s;
};
struct fs_perf_peaks fs_perf_instance_peaks(const struct fs_perf_cfg *cfg);

/* The MFU the weight GEMMs run at (P9): cfg->mfu when given, else the
 * GPU's 16-bit MFU, or for 8-bit weights on an 8-bit peak its mfu_8bit
 * (cfg's, the GPU's, or the 16-bit MFU x FS_GPU_MFU_8BIT_RATIO_DEFAULT). */
double fs_perf_mfu(const struct fs_perf_cfg *cfg);

/* Step time of one iteration, ns (≥ 1).  Uses cfg->table when set. */
fs_ns fs_perf_step_ns(const struct fs_perf_cfg *cfg, const struct fs_step_shape *shape);

/* The roofline step time with its parts (ignores cfg->table). */
void fs_perf_step_cost(const struct fs_perf_cfg *cfg, const struct fs_step_shape *shape,
                       struct fs_step_cost *cost);

/*
 * A step-cost cache for one perf configuration: the resolved efficiencies
 * and parameter groups, the token-count parts of recent step shapes and the
 * smooth-roofline factors of recent ratios.  fs_perf_step_cost_cached gives
 * exactly the bits of fs_perf_step_cost (the same operations on the same
 * operands; the cache only skips recomputing them).  Caller-owned, plain
 * data (no allocation: free the memory that holds it); `cfg` is borrowed and
 * must not change while the cache is used.
 */
#define FS_PERF_MEMO_SLOTS 64
#define FS_PERF_DEC_WINDOW 97
/* Entries of a pool's shared token memo: 4,096 of 48 bytes (192 KB) stay in
 * the L2 cache.  Entries of 96 bytes (every token part kept) in 8,192 slots
 * hit more often but missed the cache at nearly every prefill, and ran the
 * 2-hour peak of bench/day.json 3.5% slower; keeping only the parts with a
 * smooth max (the rest is a few multiplications) made room for more. */
#define FS_PERF_TOKEN_SLOTS 4096
struct fs__perf_token_entry {
	uint64_t tokens1;                    /* the key: scheduled tokens + 1 (0: empty), */
	int64_t sampled;                     /* ... rows sampled */
	double times[4];                     /* weight bytes, linear, elementwise, comm ns */
};
/* The token parts of step shapes (what depends on a step's token count and
 * sampled rows only) for one perf configuration, shared by the caches of
 * every instance that uses it (fs_perf_step_cache_share): each prompt length
 * is priced once per pool, not once per instance.  Plain data, zeroed
 * before use (fs_xcalloc); about 192 KB. */
struct fs_perf_token_memo {
	const struct fs_perf_cfg *cfg;       /* set by the first cache that shares it */
	struct fs__perf_token_entry e[FS_PERF_TOKEN_SLOTS];
};
/* The smooth max's factor (1 + r^n)^(1/n) for a ratio r in (0, 1], from a
 * table instead of two pow() calls (perf_knee.c): a polynomial of degree
 * FS_PERF_KNEE_TERMS - 1 on each sixteenth of the binades 2^-k <= r <
 * 2^(1-k) for k < table_to, and 1 for k >= one_from (where r^n/n is below
 * 2^-44).  Each piece is fitted on first use and checked against pow() (a
 * piece over FS_PERF_KNEE_REL_ERR is refused: NaN); the step time it gives
 * is used only where no error within FS_PERF_KNEE_GUARD of it can change
 * the rounded ns (fs_perf_step_ns_cached), so every result keeps the bits
 * of the exact path.  About 32 KB. */
#define FS_PERF_KNEE_BINADES 32
#define FS_PERF_KNEE_PARTS 16
#define FS_PERF_KNEE_TERMS 8
struct fs_perf_knee {
	bool ok;                             /* set up (knee_exp in [1, 64]) */
	int table_to;                        /* binades tabulated: 0 .. table_to - 1 */
	int one_from;                        /* binades from here on: the factor is 1 */
	double knee_exp;
	uint32_t built, refused;             /* pieces fitted, and refused of them */
	double coef[FS_PERF_KNEE_BINADES * FS_PERF_KNEE_PARTS][FS_PERF_KNEE_TERMS];
};
/* The largest relative error of a kept piece at its check points (the
 * degree-7 fit's is ~2e-15 where it is kept; a factor of 1 past one_from
 * errs by at most 2^-44), and the relative margin around a step time from
 * the table that must round to one ns for it to stand: a factor in each
 * term of the kernels' sum and one in the launch floor's smooth max (at
 * most twice the table's error, each smooth max being at most as
 * sensitive to its arms as they are), a dozen roundings of 2^-53, and 4x
 * for error between the check points. */
#define FS_PERF_KNEE_REL_ERR 1e-13
#define FS_PERF_KNEE_GUARD 1e-12

struct fs_perf_step_cache {
	const struct fs_perf_cfg *cfg;
	double eff[24];                      /* perf_step.c's resolved efficiencies */
	double params[4];                    /* its parameter groups (P8) */
	double per_pair_flops;               /* attention FLOPs per (query, key) pair */
	double kv_bytes_per_token_per_gpu;
	struct fs__perf_token_entry tokens[FS_PERF_MEMO_SLOTS];
	struct fs_perf_token_memo *shared;   /* used instead of tokens when set */
	uint64_t memo_key[FS_PERF_MEMO_SLOTS];   /* bits of a ratio + 1, 0 empty */
	double memo_factor[FS_PERF_MEMO_SLOTS];
	/* Decode attention's smooth-max factors (perf_step_cache.c, decode_factor):
	 * its arms are both linear in the context, so their rounded ratio stays
	 * within 33 ulps of one value; the factor of every double in a window
	 * of FS_PERF_DEC_WINDOW around it, by its bits above dec_bits0. */
	bool dec_window;                     /* the window holds for every context > 0 */
	bool dec_const;                      /* ... and all its factors are dec_factor */
	bool dec_hi_bytes;                   /* the memory arm is the larger one */
	bool wide;                           /* price four steps at once (AVX2) */
	uint64_t dec_bits0;
	double dec_factor;
	double dec_window_factor[FS_PERF_DEC_WINDOW];
	struct fs_perf_knee knee;            /* the factor of the step's other smooth maxima */
	uint64_t knee_steps;                 /* steps fs_perf_step_ns_cached priced by it, */
	uint64_t knee_redone;                /* ... and those it had to price exactly */
	double dec_factor_spread;            /* the most a window factor differs from
	                                      * dec_factor (INFINITY: unusable) */
};

/* Fill `c` for `cfg`.  O(1). */
void fs_perf_step_cache_init(struct fs_perf_step_cache *c, const struct fs_perf_cfg *cfg);

/* Let `c` keep its token parts in `m` (borrowed; it must outlive `c`),
 * which other caches of the same cfg may share: the same result bits, fewer
 * recomputations.  Aborts if `m` already serves another cfg. */
void fs_perf_step_cache_share(struct fs_perf_step_cache *c, struct fs_perf_token_memo *m);
/* A hint: a step of n_tokens tokens over n_seqs rows will likely be priced
 * soon; its token memo entry is fetched into the cache.  No effect on any
 * result. */
void fs_perf_step_cache_prefetch(struct fs_perf_step_cache *c, int64_t n_tokens,
                                 int64_t n_seqs);

/* fs_perf_step_cost through the cache (same result bits; ignores the table). */
void fs_perf_step_cost_cached(struct fs_perf_step_cache *c,
                              const struct fs_step_shape *shape, struct fs_step_cost *cost);

/* The step time, FLOPs and bytes of fs_perf_step_cost_cached (the same
 * bits), faster: the smooth maxima of the weight GEMMs, the elementwise
 * kernels, prefill attention and the launch floor from the knee table, the
 * step priced exactly only where the table's time lies within
 * FS_PERF_KNEE_GUARD of a rounding boundary. */
fs_ns fs_perf_step_ns_cached(struct fs_perf_step_cache *c, const struct fs_step_shape *shape,
                             double *flops, double *bytes);

/* The step time, FLOPs and bytes of a decode-only step of n_seqs requests
 * with context_tokens of context in all: exactly fs_perf_step_cost's
 * total_ns, flops and bytes for {0, 0, n_seqs, context_tokens, n_seqs},
 * without the parts nobody reads per step (ignores the table). */
fs_ns fs_perf_decode_step_cached(struct fs_perf_step_cache *c, int64_t n_seqs,
                                 int64_t context_tokens, double *flops, double *bytes);

/* The same in two parts for many steps of one batch size: what depends on
 * n_seqs only, once, then each step from its context (same bits; flops and
 * bytes may be NULL). */
struct fs_perf_decode_prep {
	int64_t n_seqs;
	double lin_flops, lin_bytes, new_kv_bytes, elem_gpu_bytes, pre_flops;
	double linear_ns, prefill_attn_ns, elementwise_ns, comm_ns, overhead_ns;
	double per_pair_flops, kv_bytes_per_token_per_gpu, tp;
	double attn_flops_div, attn_bytes_div, knee_exp;
	/* for pricing with no division (perf_decode_guard.c): the memory arm
	 * per context token, kv_bytes_per_token_per_gpu / attn_bytes_div · 1e9,
	 * and the sum of the other terms' magnitudes */
	double mem_ns_per_token, other_terms_ns;
};
void fs_perf_decode_prepare(struct fs_perf_step_cache *c, int64_t n_seqs,
                            struct fs_perf_decode_prep *d);
fs_ns fs_perf_decode_step(struct fs_perf_step_cache *c, const struct fs_perf_decode_prep *d,
                          int64_t context_tokens, double *flops, double *bytes);
/* The times of n such steps, step i of context ctx0 + ctx_step·i, into
 * dur_ns[i] (the same bits as fs_perf_decode_step, each >= 1 ns; no FLOPs
 * or bytes); returns their sum. */
int64_t fs_perf_decode_steps(struct fs_perf_step_cache *c, const struct fs_perf_decode_prep *d,
                             int64_t ctx0, int64_t ctx_step, size_t n, fs_ns *dur_ns);

/* Time of the weight GEMMs alone (linear layers of all transformer blocks,
 * no LM head, attention, norms, communication or overheads) for `tokens`
 * tokens — the quantity Vidur profiles; used by the validation. */
double fs_perf_gemm_ns(const struct fs_perf_cfg *cfg, int64_t tokens);

/* Time of one all-reduce of `bytes` over cfg->tp GPUs (P14); 0 at TP 1. */
double fs_perf_allreduce_ns(const struct fs_perf_cfg *cfg, double bytes);

/* Step time of one prompt of prompt_tokens at batch 1, no prior context. */
fs_ns fs_perf_prefill_ns(const struct fs_perf_cfg *cfg, int64_t prompt_tokens);

/* Step time of a decode-only batch of batch_seqs sequences, each with
 * context_tokens of context. */
fs_ns fs_perf_decode_ns(const struct fs_perf_cfg *cfg, int64_t batch_seqs,
                        int64_t context_tokens);

/*
 * Load a measured step table: CSV with header `kind,tokens,batch,context,step_ms`
 * (columns in any order; lines starting with '#' and blank lines skipped).
 * kind "prefill": `tokens` at batch 1, context 0; kind "decode": `batch`
 * sequences with `context` tokens each.  Needs at least one prefill and one
 * decode row; decode rows must form a full grid over their batch and context
 * values.  Returns a heap table (free with fs_step_table_free) or NULL with
 * err set to "display:line:col: message".
 */
struct fs_step_table *fs_step_table_load(const char *path, const char *display_path,
                                         struct fs_error *err);

/* Free a table (NULL accepted). */
void fs_step_table_free(struct fs_step_table *table);

/* Step time from the table (P17–P19): prefill part interpolated in tokens,
 * decode part bilinear in (batch, context); a mixed step pays the weights
 * once: the prefill curve at (prompt tokens + decode sequences) plus the
 * decode rows' context-dependent part.  iteration_overhead_ns is unused
 * (kept for callers; each measured row already holds the overhead). */
fs_ns fs_step_table_step_ns(const struct fs_step_table *table,
                            const struct fs_step_shape *shape,
                            fs_ns iteration_overhead_ns);

#endif
