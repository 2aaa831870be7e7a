/*
 * perf_internal.h — helpers shared by the perf_*.c files (the memory plan,
 * the roofline step model, its step-cost cache and the measured step
 * table).  Not public: only src/perf_*.c include it.
 */
#ifndef FLEETSIM_PERF_INTERNAL_H
#define FLEETSIM_PERF_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* ---- The knee table (perf_knee.c) ---- */

/* Set k up for knee_exp (ok false outside [1, 64]: then never used).  The
 * pieces are built on first use (fs__perf_knee_factor). */
void fs__perf_knee_init(struct fs_perf_knee *k, double knee_exp);
/* Fit and check piece `piece` (binade x FS_PERF_KNEE_PARTS + part). */
void fs__perf_knee_build(struct fs_perf_knee *k, size_t piece);

/* A piece's polynomial at x in [-1, 1], by Estrin's scheme: a chain of
 * four operations rather than Horner's fourteen (the step's smooth maxima
 * wait on it). */
static inline double fs__perf_knee_poly(const double *c, double x)
{
	double x2 = x * x, x4 = x2 * x2;

	_Static_assert(FS_PERF_KNEE_TERMS == 8, "the terms below");
	return ((c[0] + c[1] * x) + x2 * (c[2] + c[3] * x)) +
	       x4 * ((c[4] + c[5] * x) + x2 * (c[6] + c[7] * x));
}

/* The table's factor for r in (0, 1] (1 below binade one_from), or -1 where
 * the table does not reach (binades table_to .. one_from - 1), or NaN in a
 * piece it refused: not above 0 either way, so the caller takes pow(). */
static inline double fs__perf_knee_factor(struct fs_perf_knee *k, double r)
{
	uint64_t bits, mbits;
	int binade;
	size_t piece;
	double m, x;

	memcpy(&bits, &r, sizeof bits);
	binade = 1023 - (int)(bits >> 52);
	if (binade >= k->one_from)
		return 1.0;
	if (binade < 0 || binade >= k->table_to)
		return -1.0;
	piece = (size_t)binade * FS_PERF_KNEE_PARTS + (size_t)((bits >> 48) & 15);
	if (k->coef[piece][0] == 0)
		fs__perf_knee_build(k, piece);
	mbits = (bits & 0x000FFFFFFFFFFFFFu) | 0x3FF0000000000000u;
	memcpy(&m, &mbits, sizeof m);
	/* exact: m and the piece's centre lie in one binade */
	x = (m - (1.0 + ((double)((bits >> 48) & 15) + 0.5) / FS_PERF_KNEE_PARTS)) *
	    (2.0 * FS_PERF_KNEE_PARTS);
	_Static_assert(FS_PERF_KNEE_PARTS == 16, "four bits of the mantissa");
	return fs__perf_knee_poly(k->coef[piece], x);
}

/* fs__perf_smooth_max(a, b) into *v with the table's factor, *approx set,
 * or (0 and a zero arm) exactly: false where the table does not reach. */
static inline bool fs__perf_knee_smooth_max(struct fs_perf_knee *k, double a, double b,
                                            double *v, bool *approx)
{
	double hi = a > b ? a : b, lo = a > b ? b : a, f;

	if (hi <= 0) {
		*v = 0;
		return true;
	}
	if (lo == 0) {
		*v = hi * 1.0;               /* pow(0, n) = 0, pow(1, x) = 1 */
		return true;
	}
	f = fs__perf_knee_factor(k, lo / hi);
	if (!(f > 0))
		return false;
	*v = hi * f;
	*approx = true;
	return true;
}

/* ---- The step model (perf_step.c) and its cache (perf_step_cache.c) ---- */

/* The efficiencies and overheads of cfg, defaults resolved (fs__perf_resolve);
 * a cache keeps them in fs_perf_step_cache.eff. */
struct eff {
	double peak_flops_per_s;     /* for the weight GEMMs (P9) */
	double attn_flops_per_s;     /* for attention: 16-bit tensor peak (P9) */
	double mfu, mbu;             /* mfu at the weight dtype (P9) */
	double knee_exp, gemm_floor_ns;
	double attn_prefill_eff, attn_decode_eff, elem_eff;
	double bw_bytes_per_s;
	double link_bytes_per_s;
	double iter_ns, per_seq_ns, layer_ns, allreduce_latency_ns, launch_ns;
};
void fs__perf_resolve(const struct fs_perf_cfg *cfg, struct eff *e);

/* Parameter groups of the model (P8); a cache keeps them in its params. */
struct params {
	double lm_head;              /* vocab × hidden */
	double body_total;           /* transformer blocks, all experts */
	double body_active;          /* transformer blocks, per token */
	double experts_total;        /* routed-expert FFN weights, all layers */
};
void fs__perf_split_params(const struct fs_model_spec *m, struct params *p);

/* llround for a non-negative time below 2^63 (halves away from zero), inline:
 * t - trunc(t) is exact, so this is llround's result. */
static inline fs_ns fs__perf_round_ns(double t)
{
	fs_ns r = (fs_ns)t;

	return r + (t - (double)r >= 0.5);
}

/* The batched decode kernels' condition: at least min_n >= 1 steps, and
 * every context ctx0 + ctx_step·i (i < n) a positive whole number below
 * 2^53, so exact as a double (ctx_step·(n - 1) checked with no division). */
static inline bool fs__perf_ctx_run_ok(int64_t ctx0, int64_t ctx_step, size_t n, size_t min_n)
{
	const int64_t max_ctx = (int64_t)1 << 53;
	int64_t span;

	return n >= min_n && n >= 1 && ctx0 > 0 && ctx_step >= 0 && ctx0 < max_ctx &&
	       n <= (size_t)max_ctx &&
	       !__builtin_mul_overflow(ctx_step, (int64_t)(n - 1), &span) &&
	       span <= max_ctx - 1 - ctx0;
}

/* fs_perf_decode_step's exact path: fs__perf_step_cost's operations in its
 * order, with a division or three per step (perf_step_cache.c). */
fs_ns fs__perf_decode_step_exact(struct fs_perf_step_cache *c,
                                 const struct fs_perf_decode_prep *d, int64_t context_tokens,
                                 double *flops, double *bytes);

/* One decode step of context ctx priced with no division, as each lane of
 * fs__perf_decode_guarded (perf_decode_guard.c): the exact path's ns, or 0
 * where a rounding edge lies within the guard or the conditions fail (then
 * price it exactly). */
fs_ns fs__perf_decode_guarded1(const struct fs_perf_step_cache *c,
                               const struct fs_perf_decode_prep *d, int64_t ctx);

#if defined(__x86_64__) && defined(__GNUC__)
/* Decode steps four at a time with no division (perf_decode_guard.c; AVX2
 * only: the caller checks c->wide): the same ns as fs_perf_decode_step
 * for each step it prices, from the first on, stopping at the first four
 * of which one lies too near a rounding edge (*edge set: price that step
 * exactly and call again) or where it does not apply (*edge false).
 * Returns the steps priced (a multiple of four, or all n), their times
 * added to *sum. */
size_t fs__perf_decode_guarded(const struct fs_perf_step_cache *c,
                               const struct fs_perf_decode_prep *d, int64_t ctx0,
                               int64_t ctx_step, size_t n, fs_ns *dur_ns, int64_t *sum,
                               bool *edge);
#endif

/* The parts of a step that depend on its token count and sampled rows only
 * (weight GEMMs, elementwise kernels, all-reduce, new KV written): one
 * function for the plain and the cached path, so both compute them with the
 * same operations in the same order. */
struct token_parts {
	double lin_flops, lin_bytes, linear_ns;
	double new_kv_bytes, elem_gpu_bytes, elementwise_ns, layer_floor_ns, comm_ns;
};
void fs__perf_token_parts(const struct fs_perf_cfg *cfg, const struct eff *e,
                          const struct params *p, double kvb_per_gpu, double tokens,
                          double sampled, struct token_parts *t);
/* Its two halves: the FLOPs and bytes in a few operations (lin_flops,
 * new_kv_bytes, elem_gpu_bytes, layer_floor_ns), and from them what a memo
 * keeps (lin_bytes, linear_ns, elementwise_ns, comm_ns: smooth maxima). */
void fs__perf_token_sizes(const struct fs_perf_cfg *cfg, const struct eff *e,
                          const struct params *p, double kvb_per_gpu, double tokens,
                          double sampled, struct token_parts *t);
void fs__perf_token_times(const struct fs_perf_cfg *cfg, const struct eff *e,
                          const struct params *p, double tokens, struct token_parts *t,
                          struct fs_perf_knee *knee, bool *approx);

/* The whole step cost, the token parts and attention's smooth max taken from
 * `c` when it is not NULL (the cached path of perf_step_cache.c).  With
 * `approx` not NULL (and c's knee table ok), the smooth maxima of the token
 * parts, of prefill attention and of the launch floor come from the knee
 * table and *approx is set when one did: then only flops and bytes are
 * exact, and the times within the table's error (fs_perf_step_ns_cached). */
void fs__perf_step_cost(const struct fs_perf_cfg *cfg, const struct eff *e,
                        const struct params *p, struct fs_perf_step_cache *c,
                        const struct fs_step_shape *shape, struct fs_step_cost *cost,
                        bool *approx);

/* The memo's two halves: decode attention, whose compute-to-memory ratio
 * hardly moves from step to step (a few bit patterns per batch), and every
 * other smooth max, whose ratios differ at each prefill and would evict
 * them. */
#define FS__PERF_MEMO_OTHER 0
#define FS__PERF_MEMO_DECODE (FS_PERF_MEMO_SLOTS / 2)

/* fs__perf_smooth_max with its pow() factor looked up by the exact ratio
 * in the half of the memo that starts at `half`: the same operations on the
 * same operands, so the same result.  A zero ratio needs no pow: pow(0, n)
 * = 0 and pow(1, x) = 1 exactly. */
static inline double fs__perf_smooth_max_memo(double a, double b, double knee_exp,
                                              uint64_t *key, double *factor, size_t half)
{
	double hi = a > b ? a : b, lo = a > b ? b : a, r;
	uint64_t bits;
	size_t slot;

	if (hi <= 0)
		return 0;
	if (lo == 0)
		return hi * 1.0;           /* r = 0 without waiting for the division */
	r = lo / hi;
	if (r == 0)
		return hi * 1.0;
	memcpy(&bits, &r, sizeof bits);
	slot = half + (size_t)((bits ^ (bits >> 21) ^ (bits >> 43)) &
	                      (FS_PERF_MEMO_SLOTS / 2 - 1));
	if (key[slot] != bits + 1) {
		key[slot] = bits + 1;
		factor[slot] = pow(1.0 + pow(r, knee_exp), 1.0 / knee_exp);
	}
	return hi * factor[slot];
}

/* Decode attention's smooth max of the arms x (compute) and y (memory):
 * from the window of factors where the cache's init built one (the ratio's
 * factor looked up by its bits, or the one constant factor without the
 * ratio), else through the memo — the same bits either way. */
static inline double fs__perf_decode_attn_ns(const struct fs_perf_step_cache *c,
                                             uint64_t *key, double *factor, double x,
                                             double y, double knee_exp)
{
	if (c->dec_window && x > 0 && y > 0) {
		double hi = c->dec_hi_bytes ? y : x, r;
		uint64_t bits;

		if (c->dec_const)
			return hi * c->dec_factor;
		r = (c->dec_hi_bytes ? x : y) / hi;
		memcpy(&bits, &r, sizeof bits);
		if (bits - c->dec_bits0 < FS_PERF_DEC_WINDOW)
			return hi * c->dec_window_factor[bits - c->dec_bits0];
	}
	return fs__perf_smooth_max_memo(x, y, knee_exp, key, factor, FS__PERF_MEMO_DECODE);
}

/* The token parts of (nt tokens, ns sampled rows) into *t: the sizes
 * computed, the times kept in the cache's table or its pool's memo and
 * computed on a miss.  `tokens` and `sampled` are nt and ns as doubles.
 * With `approx` not NULL the times may come from the knee table (and be
 * kept marked as such, for such lookups only): then *approx is set. */
void fs__perf_token_lookup(struct fs_perf_step_cache *c, const struct eff *e,
                           const struct params *p, int64_t nt, int64_t ns, double tokens,
                           double sampled, struct token_parts *t, bool *approx);

#endif
