/*
 * calibrate.h — internal: fit the step-time model's efficiency and overhead
 * terms of one GPU to measured step times (fleetsim calibrate).  The fit is
 * pure: points in, parameters and errors out; the readers of measurement
 * files (CSV of step times, vLLM bench serve JSON) live in calib_input.c.
 * Points arrays are heap-owned by the caller (free()).  MODEL: C1-C4.
 */
#ifndef FLEETSIM_CALIBRATE_H
#define FLEETSIM_CALIBRATE_H

#include <stddef.h>

#include "fleetsim/common.h"
#include "fleetsim/perf.h"

/* The terms calibrate can fit, in this order. */
enum { FS_CAL_MFU, FS_CAL_MBU, FS_CAL_ITER, FS_CAL_SEQ, FS_CAL_N };

/* One measured step: its shape and time, and where it came from. */
struct fs_cal_point {
	struct fs_step_shape shape;
	double measured_ns;          /* > 0 */
	char where[160];             /* "file:line" or "file:key" */
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

/* Name of parameter i ("mfu", "mbu", "iteration_overhead", "per_seq_overhead"). */
const char *fs__cal_param_name(int i);

/* Append a point (grows pts). */
void fs__cal_points_push(struct fs_cal_points *ps, const struct fs_cal_point *p);

/* Read a CSV of measured steps or a vLLM bench serve result JSON (by the
 * extension .json) and append its points.  Returns 0, or -1 with err set
 * (where = "display:line:col"). */
int fs__cal_read_file(const char *path, struct fs_cal_points *ps, struct fs_error *err);

/* Model step time in ns (unrounded) of shape under cfg with parameters p. */
double fs__cal_model_ns(const struct fs_perf_cfg *cfg, const struct fs_cal_params *p,
                        const struct fs_step_shape *shape);

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
