/*
 * perf_points.h — published step-time measurements and the step-time
 * model's prediction of each (docs/VALIDATION.md).  A points file is a CSV
 * with the header named in fs_perf_points_load; each row is one measured
 * kernel, step or collective with its GPU, model, TP and dtypes, and says
 * whether it belongs to the fit set or the held-out validation set.
 */
#ifndef FLEETSIM_PERF_POINTS_H
#define FLEETSIM_PERF_POINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/perf.h"

/* What a point measured. */
#define FS_POINT_KIND_MAP(X)                                                                                 \
	X(FS_POINT_GEMM, "gemm")                  /* the transformer body's weight GEMMs, `tokens` tokens */ \
	X(FS_POINT_ELEMENTWISE, "elementwise")    /* norms, RoPE, activation, residual adds */               \
	X(FS_POINT_ATTN_PREFILL, "attn_prefill")  /* attention kernel, one prompt of `tokens` */             \
	X(FS_POINT_ATTN_DECODE, "attn_decode")    /* attention kernel, `batch` x `context` */                \
	X(FS_POINT_ALLREDUCE, "allreduce")        /* one all-reduce of `bytes` over `tp` GPUs */             \
	X(FS_POINT_PREFILL, "prefill")            /* a whole step: batch-1 prompt of `tokens` */             \
	X(FS_POINT_DECODE, "decode")              /* a whole decode step, `batch` x `context` */
enum fs_point_kind {
	FS_POINT_KIND_MAP(FS_ENUM_MEMBER)
};

/* "gemm", "elementwise", "attn_prefill", "attn_decode", "allreduce",
 * "prefill", "decode". */
const char *fs_point_kind_name(enum fs_point_kind kind);
/* The kind named `name` (exact) into *out: 0, or -1 when none (*out untouched). */
int fs_point_kind_from_name(const char *name, enum fs_point_kind *out);

struct fs_perf_point {
	char id[96];
	char source[48];
	const struct fs_gpu_spec *gpu;        /* catalogue entry */
	const struct fs_model_spec *model;    /* catalogue entry; NULL for an
	                                         all-reduce given with model "-" */
	int tp;
	enum fs_dtype weight_dtype, kv_dtype;
	enum fs_point_kind kind;
	int64_t tokens, batch, context;
	double bytes;
	double measured_ms;
	bool validation;                      /* set column "validation" */
	bool other;                           /* set column "other": an engine outside
	                                         the defaults' scope, reported apart */
	int line;                             /* 1-based line in the file */
};

/*
 * Load a points CSV.  Header (columns in any order, extra columns ignored):
 * id, source, set, gpu, model, tp, weight_dtype, kv_dtype, kind, tokens,
 * batch, context, bytes, measured_ms.  Fields hold no commas; '#' lines and
 * blank lines are skipped.  GPU and model must be catalogue ids or aliases
 * (model "-" for an allreduce), the TP one the model splits over.
 * Returns 0 with a heap array in *out (free()) and its length in *n, or -1
 * with err set to "display:line:col: column: expected ..., found ...".
 */
int fs_perf_points_load(const char *path, const char *display_path,
                        struct fs_perf_point **out, size_t *n, struct fs_error *err);

/* The configuration a point ran with: catalogue defaults for its GPU and
 * model, its TP and dtypes.  Callers may override fields before predicting. */
void fs_perf_point_cfg(const struct fs_perf_point *pt, struct fs_perf_cfg *cfg);

/* The model's prediction of what the point measured, ms. */
double fs_perf_point_predict_ms(const struct fs_perf_point *pt,
                                const struct fs_perf_cfg *cfg);

/* Regime label of a point for the error breakdown: kind, with prefill split
 * at 256 tokens ("prefill<=256", "prefill>256") and decode by batch
 * ("decode b1", "decode b2-64", "decode b>64"). */
const char *fs_perf_point_regime(const struct fs_perf_point *pt);

#endif
