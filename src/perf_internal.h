/*
 * perf_internal.h — helpers shared by the perf_*.c files (the memory plan,
 * the roofline step model and the measured step table).  Not public: only
 * src/perf_*.c include it.
 */
#ifndef FLEETSIM_PERF_INTERNAL_H
#define FLEETSIM_PERF_INTERNAL_H

#include "fleetsim/perf.h"

/* Head dimension (hidden / heads when the catalogue leaves it 0). */
int fs__perf_head_dim(const struct fs_model_spec *m);

/* KV bytes per token of the whole replica, and of one GPU (P2, P3). */
double fs__perf_kv_bytes_per_token(const struct fs_perf_cfg *cfg);
double fs__perf_kv_bytes_per_token_per_gpu(const struct fs_perf_cfg *cfg);

/* The effective iteration overhead of cfg (its override or the GPU's). */
fs_ns fs__perf_iteration_overhead_ns(const struct fs_perf_cfg *cfg);

/* (a^n + b^n)^(1/n) for a, b >= 0: the larger of two bounds, raised where
 * they are close (P11); 0 when both are 0. */
double fs__perf_smooth_max(double a, double b, double knee_exp);

#endif
