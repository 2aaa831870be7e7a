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
enum fs_point_kind {
	FS_POINT_GEMM,          /* the transformer body's weight GEMMs, `tokens` tokens */
	FS_POINT_ELEMENTWISE,   /* norms, RoPE, activation, residual adds */
	FS_POINT_ATTN_PREFILL,  /* attention kernel, one prompt of `tokens` */
	FS_POINT_ATTN_DECODE,   /* attention kernel, `batch` x `context` */
	FS_POINT_ALLREDUCE,     /* one all-reduce of `bytes` over `tp` GPUs */
	FS_POINT_PREFILL,       /* a whole step: batch-1 prompt of `tokens` */
	FS_POINT_DECODE         /* a whole decode step, `batch` x `context` */
};

/* "gemm", "elementwise", "attn_prefill", "attn_decode", "allreduce",
 * "prefill", "decode". */
const char *fs_point_kind_name(enum fs_point_kind kind);

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
