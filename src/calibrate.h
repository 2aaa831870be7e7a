/*
 * calibrate.h — internal: fit the step-time model's efficiency and overhead
 * terms of one GPU to measured step times (fleetsim calibrate).  The fit is
 * pure: points in, parameters and errors out; the readers of measurement
 * files live in calib_input.c (CSV of step times, whole runs or single
 * requests) and calib_vllm.c (vLLM bench serve JSON).
 * Points arrays are heap-owned by the caller (free()).  A point is one
 * step or one whole `benchmark_latency` run (calib_run.c).  MODEL: C1-C4, C7.
 */
#ifndef FLEETSIM_CALIBRATE_H
#define FLEETSIM_CALIBRATE_H

#include <stddef.h>

#include "fleetsim/common.h"
#include "fleetsim/perf.h"

/* The terms calibrate can fit, in this order. */
enum { FS_CAL_MFU, FS_CAL_MBU, FS_CAL_ITER, FS_CAL_SEQ, FS_CAL_N };

/* What a point measures: one engine step, or one whole batch run. */
enum fs_cal_kind { FS_CAL_STEP, FS_CAL_RUN };

/* A whole `vllm bench latency` run: batch prompts of input_len tokens each,
 * output_len tokens generated for each (MODEL: C7). */
struct fs_cal_run {
	int64_t batch;               /* sequences, >= 1 */
	int64_t input_len;           /* prompt tokens per sequence, >= 1 */
	int64_t output_len;          /* generated tokens per sequence, >= 1 */
	int64_t budget_tokens;       /* max_num_batched_tokens; 0 until set */
	int input_col;               /* CSV column of input_len (for messages) */
};

/* One measured point: its shape (or run) and time, and where it came from.
 * A zeroed point is a step (kind FS_CAL_STEP). */
struct fs_cal_point {
	struct fs_step_shape shape;  /* FS_CAL_STEP only */
	double measured_ns;          /* > 0 */
	char where[160];             /* "file:line" or "file:key" */
	enum fs_cal_kind kind;
	struct fs_cal_run run;       /* FS_CAL_RUN only */
};

/* A growable list of points (heap; free pts with free()). */
struct fs_cal_points {
	struct fs_cal_point *pts;
	size_t n, cap;
};

/* Parameter values: mfu and mbu fractions, overheads in ns (double). */
struct fs_cal_params {
	double v[FS_CAL_N];
};

/* Result of one calibration. */
struct fs_cal_result {
	struct fs_cal_params before;       /* catalogue values */
	struct fs_cal_params after;        /* fitted (kept ones = before) */
	double stderr_v[FS_CAL_N];         /* standard errors; 0 when kept */
	int fitted[FS_CAL_N];              /* 1 fitted, 0 kept at catalogue */
	int n_fitted;
	double *pred_before_ns;            /* per point, catalogue model (heap) */
	double *pred_after_ns;             /* per point, fitted model (heap) */
	double *cv_pred_ns;                /* per point, fitted without its fold (heap) */
	int k_folds;
	int iterations;
};

/* The accepted ranges of measurement values (docs/CALIBRATE.md, "Ranges"):
 * token counts per sequence are bounded by the model's context; these
 * bound the rest.  A larger value is a wrong number, not a measurement. */
#define FS__CAL_MAX_SEQS 65536       /* sequences in one step, a run's concurrency */
#define FS__CAL_MAX_RUN_BATCH 256    /* a whole run's batch: vLLM V0's max_num_seqs */
#define FS__CAL_MAX_MS 1e9           /* any measured time in ms (11.6 days) */
#define FS__CAL_MAX_REQ_PER_S 1e9    /* a serving run's request_throughput */

/* An accepted range of one measured value: [lo, hi], or (lo, hi] with
 * lo_open; whole numbers only with whole; hi may be INFINITY (then any
 * finite value above lo).  why says where the bound comes from ("" for
 * nothing), for the message. */
struct fs_cal_range {
	double lo, hi;
	int lo_open;
	int whole;
	char why[160];
};

/* Whether v is finite and inside r. */
int fs__cal_range_ok(const struct fs_cal_range *r, double v);

/* r as the "expected" part of a message: "a whole number from 1 to 256
 * (why)", "a number > 0 and <= 1000000000 (why)". */
void fs__cal_range_text(const struct fs_cal_range *r, char *buf, size_t len);

/*
 * MODEL: C8 — push the points of one request measured alone: a batch-1
 * prefill of prompt tokens taking ttft_ms, and, with tpot_ms > 0 and two or
 * more output tokens, a batch-1 decode step at context prompt + output / 2
 * taking tpot_ms.  where labels the points (" ttft" / " tpot" appended).
 * prompt and output must be within the model's context (the readers check).
 */
void fs__cal_push_request(struct fs_cal_points *ps, double prompt, double output,
                          double ttft_ms, double tpot_ms, const char *where);

/* Name of parameter i ("mfu", "mbu", "iteration_overhead", "per_seq_overhead"). */
const char *fs__cal_param_name(int i);

/* Append a point (grows pts). */
void fs__cal_points_push(struct fs_cal_points *ps, const struct fs_cal_point *p);

/* Read a CSV of measured steps, whole runs or single requests, or a vLLM
 * bench serve result JSON (by the extension .json), measured serving model
 * (its context bounds the token counts), and append its points.  Returns
 * 0, or -1 with err set (where = "file:line:col", path = the column or the
 * JSON path) and ps as it was. */
int fs__cal_read_file(const char *path, const struct fs_model_spec *model,
                      struct fs_cal_points *ps, struct fs_error *err);

/* The vLLM bench serve reader (calib_vllm.c): text[0..len) of file path,
 * one result object or an array of them.  Returns 0, or -1 with err set
 * (some points may have been appended: fs__cal_read_file drops them). */
int fs__cal_read_vllm(const char *path, const char *text, size_t len,
                      const struct fs_model_spec *model, struct fs_cal_points *ps,
                      struct fs_error *err);

/* Model step time in ns (unrounded) of shape under cfg with parameters p. */
double fs__cal_model_ns(const struct fs_perf_cfg *cfg, const struct fs_cal_params *p,
                        const struct fs_step_shape *shape);

/*
 * Model time in ns (unrounded) of point pt under cfg with parameters p: the
 * step's time, or for a whole run the sum of its prefill and decode steps
 * (MODEL: C7; pt->run.budget_tokens must be set).  In calib_run.c.
 */
double fs__cal_point_ns(const struct fs_perf_cfg *cfg, const struct fs_cal_params *p,
                        const struct fs_cal_point *pt);

/* vLLM V0's default token budget without chunked prefill for model m:
 * max(max_model_len, 2048), max_model_len = the model's context (MODEL: C7). */
int64_t fs__cal_default_budget(const struct fs_model_spec *m);

/*
 * Give every whole-run point of ps the token budget budget_tokens.  Returns
 * 0, or -1 with err at the first run whose prompt does not fit the budget
 * (vLLM without chunked prefill refuses such a prompt); ps is then unchanged.
 */
int fs__cal_set_budget(struct fs_cal_points *ps, int64_t budget_tokens,
                       struct fs_error *err);

/*
 * Fit the identifiable subset of the four terms (others keep cfg's GPU
 * values) by trust-region nonlinear least squares on relative errors, then
 * k-fold cross-validate (k = min(5, n), fold of point i = i mod k).
 * Returns 0; -1 with err when there are too few points for the parameters
 * or the fit fails.  Free the result with fs__cal_result_fini.
 */
int fs__cal_fit(const struct fs_perf_cfg *cfg, const struct fs_cal_points *ps,
                struct fs_cal_result *res, struct fs_error *err);

void fs__cal_result_fini(struct fs_cal_result *res);

#endif
