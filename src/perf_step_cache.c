/*
 * perf_step_cache.c — the step-cost cache of one instance and the batched
 * pricing of decode runs: token parts kept per (tokens, sampled rows) in the
 * cache's own table or a pool's shared memo, the smooth max's pow() factor
 * memoised by the exact ratio, and decode attention's factors for every
 * context computed once per cache (decode_factor).  Every result has the
 * bits of the plain model of perf_step.c: the same operations on the same
 * operands, in the same order (MODEL: V24).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/perf.h"
#include "perf_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* fs_perf_decode_steps' loop two steps at a time: SSE2 rounds each
 * lane's operation as the scalar one, so every step gets the scalar loop's
 * bits (the factor constant, or looked up by each lane's ratio).  From the
 * first step while both of a pair's ratios fall in the window and times
 * (before rounding) in [1, 2^31), every context a positive whole number
 * below 2^53 (checked); returns the steps priced, their times added to
 * *sum. */
static size_t decode_pairs(const struct fs_perf_step_cache *c,
                           const struct fs_perf_decode_prep *d, int64_t ctx0,
                           int64_t ctx_step, size_t n, fs_ns *dur_ns, int64_t *sum)
{
	const __m128d kvb = _mm_set1_pd(d->kv_bytes_per_token_per_gpu);
	const __m128d bytes_div = _mm_set1_pd(d->attn_bytes_div);
	const __m128d giga = _mm_set1_pd(FS_NS_PER_SECOND);
	const __m128d ppf = _mm_set1_pd(d->per_pair_flops), tp = _mm_set1_pd(d->tp);
	const __m128d flops_div = _mm_set1_pd(d->attn_flops_div);
	const __m128d pre = _mm_set1_pd(d->prefill_attn_ns);
	const __m128d lin = _mm_set1_pd(d->linear_ns), elem = _mm_set1_pd(d->elementwise_ns);
	const __m128d comm = _mm_set1_pd(d->comm_ns), over = _mm_set1_pd(d->overhead_ns);
	const __m128d zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0);
	const __m128d half = _mm_set1_pd(0.5), top = _mm_set1_pd(0x1p31);
	const bool dec_const = c->dec_const, tp_one = d->tp == 1.0;
	const uint64_t bits0 = c->dec_bits0;
	__m128d ctx, inc, fac = _mm_set1_pd(c->dec_factor);
	__m128i acc = _mm_setzero_si128();
	int64_t lanes[2];
	size_t i = 0;

	if (!fs__perf_ctx_run_ok(ctx0, ctx_step, n, 2))
		return 0;
	ctx = _mm_set_pd((double)(ctx0 + ctx_step), (double)ctx0);
	inc = _mm_set1_pd(2.0 * (double)ctx_step);
	for (; i + 1 < n; i += 2, ctx = _mm_add_pd(ctx, inc)) {
		__m128d y = _mm_mul_pd(_mm_div_pd(_mm_mul_pd(kvb, ctx), bytes_div), giga), t;
		__m128i r32, r64;

		if (!dec_const) {
			__m128d x = _mm_mul_pd(ppf, ctx);
			uint64_t bits[2];

			x = _mm_mul_pd(_mm_div_pd(tp_one ? x : _mm_div_pd(x, tp), flops_div), giga);
			_mm_storeu_si128((__m128i *)(void *)bits, _mm_castpd_si128(_mm_div_pd(x, y)));
			if (bits[0] - bits0 >= FS_PERF_DEC_WINDOW ||
			    bits[1] - bits0 >= FS_PERF_DEC_WINDOW)
				break;
			fac = _mm_set_pd(c->dec_window_factor[bits[1] - bits0],
			                 c->dec_window_factor[bits[0] - bits0]);
		}
		t = _mm_add_pd(_mm_add_pd(_mm_add_pd(lin, _mm_add_pd(pre, _mm_mul_pd(y, fac))),
		                          elem), comm);
		t = _mm_add_pd(_mm_and_pd(t, _mm_cmpgt_pd(t, zero)), over);
		if (_mm_movemask_pd(_mm_and_pd(_mm_cmpge_pd(t, one), _mm_cmplt_pd(t, top))) != 3)
			break;
		/* fs__perf_round_ns: the truncation plus one where t - it >= 0.5 */
		r32 = _mm_cvttpd_epi32(t);
		r64 = _mm_unpacklo_epi32(r32, _mm_setzero_si128());
		r64 = _mm_sub_epi64(r64, _mm_castpd_si128(
			_mm_cmpge_pd(_mm_sub_pd(t, _mm_cvtepi32_pd(r32)), half)));
		_mm_storeu_si128((__m128i *)(void *)&dur_ns[i], r64);
		acc = _mm_add_epi64(acc, r64);
	}
	_mm_storeu_si128((__m128i *)(void *)lanes, acc);
	*sum += lanes[0] + lanes[1];
	return i;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* decode_pairs four steps at a time, for processors with AVX2 (checked
 * once per cache, fs_perf_step_cache_init): the same operations on each
 * lane, so the same bits, with half the divisions' issue slots per step.
 * The same conditions; stops where a quad leaves them, returning the steps
 * priced (a multiple of four). */
__attribute__((target("avx2")))
static size_t decode_quads(const struct fs_perf_step_cache *c,
                           const struct fs_perf_decode_prep *d, int64_t ctx0,
                           int64_t ctx_step, size_t n, fs_ns *dur_ns, int64_t *sum)
{
	const __m256d kvb = _mm256_set1_pd(d->kv_bytes_per_token_per_gpu);
	const __m256d bytes_div = _mm256_set1_pd(d->attn_bytes_div);
	const __m256d giga = _mm256_set1_pd(FS_NS_PER_SECOND);
	const __m256d ppf = _mm256_set1_pd(d->per_pair_flops), tp = _mm256_set1_pd(d->tp);
	const __m256d flops_div = _mm256_set1_pd(d->attn_flops_div);
	const __m256d pre = _mm256_set1_pd(d->prefill_attn_ns);
	const __m256d lin = _mm256_set1_pd(d->linear_ns);
	const __m256d elem = _mm256_set1_pd(d->elementwise_ns);
	const __m256d comm = _mm256_set1_pd(d->comm_ns), over = _mm256_set1_pd(d->overhead_ns);
	const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
	const __m256d half = _mm256_set1_pd(0.5), top = _mm256_set1_pd(0x1p31);
	const bool dec_const = c->dec_const, tp_one = d->tp == 1.0;
	const uint64_t bits0 = c->dec_bits0;
	const double *window = c->dec_window_factor;
	__m256d ctx, inc, fac = _mm256_set1_pd(c->dec_factor);
	__m256i acc = _mm256_setzero_si256();
	int64_t lanes[4];
	size_t i = 0;

	if (!fs__perf_ctx_run_ok(ctx0, ctx_step, n, 4))
		return 0;
	ctx = _mm256_set_pd((double)(ctx0 + 3 * ctx_step), (double)(ctx0 + 2 * ctx_step),
	                    (double)(ctx0 + ctx_step), (double)ctx0);
	inc = _mm256_set1_pd(4.0 * (double)ctx_step);
	for (; i + 3 < n; i += 4, ctx = _mm256_add_pd(ctx, inc)) {
		__m256d y = _mm256_mul_pd(_mm256_div_pd(_mm256_mul_pd(kvb, ctx), bytes_div), giga);
		__m256d t, tr;
		__m128i r32;
		__m256i r64;

		if (!dec_const) {
			__m256d x = _mm256_mul_pd(ppf, ctx);
			uint64_t b[4];

			x = _mm256_mul_pd(_mm256_div_pd(tp_one ? x : _mm256_div_pd(x, tp), flops_div),
			                  giga);
			_mm256_storeu_si256((__m256i *)(void *)b,
			                    _mm256_castpd_si256(_mm256_div_pd(x, y)));
			b[0] -= bits0;
			b[1] -= bits0;
			b[2] -= bits0;
			b[3] -= bits0;
			if ((b[0] | b[1] | b[2] | b[3]) >= FS_PERF_DEC_WINDOW &&
			    (b[0] >= FS_PERF_DEC_WINDOW || b[1] >= FS_PERF_DEC_WINDOW ||
			     b[2] >= FS_PERF_DEC_WINDOW || b[3] >= FS_PERF_DEC_WINDOW))
				break;
			fac = _mm256_set_pd(window[b[3]], window[b[2]], window[b[1]], window[b[0]]);
		}
		t = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(lin, _mm256_add_pd(pre,
		                  _mm256_mul_pd(y, fac))), elem), comm);
		t = _mm256_add_pd(_mm256_and_pd(t, _mm256_cmp_pd(t, zero, _CMP_GT_OQ)), over);
		if (_mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(t, one, _CMP_GE_OQ),
		                                     _mm256_cmp_pd(t, top, _CMP_LT_OQ))) != 15)
			break;
		/* fs__perf_round_ns: the truncation plus one where t - it >= 0.5 */
		r32 = _mm256_cvttpd_epi32(t);
		tr = _mm256_cvtepi32_pd(r32);
		r64 = _mm256_sub_epi64(_mm256_cvtepi32_epi64(r32), _mm256_castpd_si256(
			_mm256_cmp_pd(_mm256_sub_pd(t, tr), half, _CMP_GE_OQ)));
		_mm256_storeu_si256((__m256i *)(void *)&dur_ns[i], r64);
		acc = _mm256_add_epi64(acc, r64);
	}
	_mm256_storeu_si256((__m256i *)(void *)lanes, acc);
	*sum += lanes[0] + lanes[1] + lanes[2] + lanes[3];
	return i;
}
#endif

/* The smooth-max factor of a ratio r (P11), as fs__perf_smooth_max_memo
 * computes it. */
static double knee_factor(double r, double knee_exp)
{
	return pow(1.0 + pow(r, knee_exp), 1.0 / knee_exp);
}

/* Decode attention's two arms for `ctx` context tokens, with
 * fs__perf_step_cost's operations: compute (x) and memory (y) in ns. */
static void decode_arms(const struct fs_perf_step_cache *c, const struct eff *e, double ctx,
                        double *x, double *y)
{
	double tp = c->cfg->tp;

	*x = c->per_pair_flops * ctx / tp / (e->attn_flops_per_s * e->attn_prefill_eff) *
	     FS_NS_PER_SECOND;
	*y = c->kv_bytes_per_token_per_gpu * ctx / (e->bw_bytes_per_s * e->attn_decode_eff) *
	     FS_NS_PER_SECOND;
}

/* Decode attention's factors for every context: x and y are the exact
 * values K_x·ctx, K_y·ctx after at most 4 and 3 roundings, so their
 * rounded ratio r lies within 8 roundings (8.01 u, u = 2^-53) of the exact
 * ratio ρ = K_x/K_y, which does not depend on the context.  Two such ratios
 * differ by at most 16.03 u relative, under 33 ulps of the smaller binade:
 * the factors of the 48 doubles either side of the ratio at one context
 * cover every context, and the larger arm is always the same one when the
 * ratio stays well below 1.  When all of them have the same bits, no step
 * needs the ratio at all.  Otherwise (a zero or huge arm) the memo is used
 * as before.  O(1) (97 pow pairs), once per cache. */
static void decode_factor(struct fs_perf_step_cache *c, const struct eff *e)
{
	double x, y, hi, lo, r, s;
	int k, half = FS_PERF_DEC_WINDOW / 2;

	_Static_assert(FS_PERF_DEC_WINDOW == 97, "48 doubles either side: 33 needed");
	c->dec_window = c->dec_const = false;
	decode_arms(c, e, 1.0, &x, &y);
	if (!(x > 1e-280 && y > 1e-280 && x < 1e280 && y < 1e280))
		return;
	hi = x > y ? x : y;
	lo = x > y ? y : x;
	r = lo / hi;
	if (!(r > 1e-280 && r < 1.0 - 0x1p-45))
		return;
	for (k = 0, s = r; k < half; k++)
		s = nextafter(s, 0.0);
	memcpy(&c->dec_bits0, &s, sizeof s);
	for (k = 0; k < FS_PERF_DEC_WINDOW; k++, s = nextafter(s, 2.0))
		c->dec_window_factor[k] = knee_factor(s, e->knee_exp);
	c->dec_window = true;
	c->dec_hi_bytes = y > x;
	c->dec_factor = c->dec_window_factor[half];
	c->dec_const = true;
	c->dec_factor_spread = 0;
	for (k = 0; k < FS_PERF_DEC_WINDOW; k++) {
		double gap = fabs(c->dec_window_factor[k] - c->dec_factor);

		if (memcmp(&c->dec_window_factor[k], &c->dec_factor, sizeof(double)) != 0)
			c->dec_const = false;
		if (!isfinite(gap))
			c->dec_factor_spread = INFINITY;
		else if (gap > c->dec_factor_spread)
			c->dec_factor_spread = gap;
	}
}

/* The token memo entry of nt tokens over ns rows: decode-only shapes (one
 * token per row: a handful of batch sizes, priced at every run) in the
 * cache's own table, by batch size; the many prefill shapes in the shared
 * one, by a hash. */
static struct fs__perf_token_entry *token_entry(struct fs_perf_step_cache *c, int64_t nt,
                                                int64_t ns)
{
	uint64_t h = (uint64_t)nt * 0x9E3779B97F4A7C15u + (uint64_t)ns * 0xC2B2AE3D27D4EB4Fu;

	if (c->shared == NULL)
		return &c->tokens[(h >> 40) & (FS_PERF_MEMO_SLOTS - 1)];
	if (nt == ns)
		return &c->tokens[(uint64_t)nt & (FS_PERF_MEMO_SLOTS - 1)];
	return &c->shared->e[(h >> 40) & (FS_PERF_TOKEN_SLOTS - 1)];
}

/* The shared memo is larger than the caches near the core, and a prefill
 * step's shape is new to it more often than not: the step pays a miss where
 * nothing else can overlap it, unless its entry was asked for earlier. */
void fs_perf_step_cache_prefetch(struct fs_perf_step_cache *c, int64_t n_tokens,
                                 int64_t n_seqs)
{
	__builtin_prefetch(token_entry(c, n_tokens, n_seqs));
}

/* The key's top bit marks times from the knee table. */
#define KEY_APPROX ((uint64_t)1 << 63)

void fs__perf_token_lookup(struct fs_perf_step_cache *c, const struct eff *e,
                           const struct params *p, int64_t nt, int64_t ns, double tokens,
                           double sampled, struct token_parts *t, bool *approx)
{
	uint64_t key = (uint64_t)nt + 1;
	struct fs__perf_token_entry *ent = token_entry(c, nt, ns);
	bool by_table = false;

	fs__perf_token_sizes(c->cfg, e, p, c->kv_bytes_per_token_per_gpu, tokens, sampled, t);
	if (ent->sampled == ns &&
	    (ent->tokens1 == key || (approx != NULL && ent->tokens1 == (key | KEY_APPROX)))) {
		if (ent->tokens1 != key)
			*approx = true;
		t->lin_bytes = ent->times[0];
		t->linear_ns = ent->times[1];
		t->elementwise_ns = ent->times[2];
		t->comm_ns = ent->times[3];
		return;
	}
	fs__perf_token_times(c->cfg, e, p, tokens, t,
	                     approx != NULL && c->knee.ok ? &c->knee : NULL, &by_table);
	if (by_table)
		*approx = true;
	ent->tokens1 = by_table ? key | KEY_APPROX : key;
	ent->sampled = ns;
	ent->times[0] = t->lin_bytes;
	ent->times[1] = t->linear_ns;
	ent->times[2] = t->elementwise_ns;
	ent->times[3] = t->comm_ns;
}

void fs_perf_step_cache_init(struct fs_perf_step_cache *c, const struct fs_perf_cfg *cfg)
{
	struct eff e;
	struct params p;

	_Static_assert(sizeof c->eff >= sizeof e, "fs_perf_step_cache.eff too small");
	_Static_assert(sizeof c->params >= sizeof p, "fs_perf_step_cache.params too small");
	memset(c, 0, sizeof *c);
	c->cfg = cfg;
	fs__perf_resolve(cfg, &e);
	fs__perf_split_params(cfg->model, &p);
	memcpy(c->eff, &e, sizeof e);
	memcpy(c->params, &p, sizeof p);
	c->per_pair_flops = 4.0 * cfg->model->layers * (double)cfg->model->heads *
	                    fs__perf_head_dim(cfg->model);
	c->kv_bytes_per_token_per_gpu = fs__perf_kv_bytes_per_token_per_gpu(cfg);
	decode_factor(c, &e);
	fs__perf_knee_init(&c->knee, e.knee_exp);
#if defined(__x86_64__) && defined(__GNUC__)
	c->wide = __builtin_cpu_supports("avx2");
#endif
}

void fs_perf_step_cache_share(struct fs_perf_step_cache *c, struct fs_perf_token_memo *m)
{
	if (m->cfg == NULL)
		m->cfg = c->cfg;
	if (m->cfg != c->cfg) {
		fputs("fleetsim: internal error: a token memo shared across perf "
		      "configurations\n", stderr);
		abort();
	}
	c->shared = m;
}

void fs_perf_step_cost_cached(struct fs_perf_step_cache *c,
                              const struct fs_step_shape *shape, struct fs_step_cost *cost)
{
	struct eff e;
	struct params p;

	memcpy(&e, c->eff, sizeof e);
	memcpy(&p, c->params, sizeof p);
	fs__perf_step_cost(c->cfg, &e, &p, c, shape, cost, NULL);
}

/* Whether every time within FS_PERF_KNEE_GUARD of t (a step time before
 * rounding, from the knee table) rounds to the same ns, at least 1: the
 * exact path's time, within that of t, then rounds to it too. */
static bool rounds_alike(double t)
{
	double margin = t * FS_PERF_KNEE_GUARD, lo = t - margin, hi = t + margin;

	return lo >= 1 && hi < 0x1p52 && fs__perf_round_ns(lo) == fs__perf_round_ns(hi);
}

fs_ns fs_perf_step_ns_cached(struct fs_perf_step_cache *c, const struct fs_step_shape *shape,
                             double *flops, double *bytes)
{
	struct eff e;
	struct params p;
	struct fs_step_cost cost;
	bool approx = false;

	memcpy(&e, c->eff, sizeof e);
	memcpy(&p, c->params, sizeof p);
	fs__perf_step_cost(c->cfg, &e, &p, c, shape, &cost, &approx);
	*flops = cost.flops;
	*bytes = cost.bytes;
	if (!approx)
		return cost.total_ns;
	c->knee_steps++;
	if (rounds_alike(cost.gpu_ns + cost.overhead_ns))
		return cost.total_ns;
	c->knee_redone++;
	fs__perf_step_cost(c->cfg, &e, &p, c, shape, &cost, NULL);
	return cost.total_ns;
}

void fs_perf_decode_prepare(struct fs_perf_step_cache *c, int64_t n_seqs,
                            struct fs_perf_decode_prep *d)
{
	struct eff e;
	struct params p;
	struct token_parts tpt;
	double tp = c->cfg->tp;

	memcpy(&e, c->eff, sizeof e);
	memcpy(&p, c->params, sizeof p);
	fs__perf_token_lookup(c, &e, &p, n_seqs, n_seqs, (double)n_seqs, (double)n_seqs, &tpt,
	                      NULL);
	d->n_seqs = n_seqs;
	d->lin_flops = tpt.lin_flops;
	d->lin_bytes = tpt.lin_bytes;
	d->new_kv_bytes = tpt.new_kv_bytes;
	d->elem_gpu_bytes = tpt.elem_gpu_bytes;
	d->linear_ns = tpt.linear_ns;
	/* the (empty) prefill kernel's attention term, as fs__perf_step_cost
	 * computes it for prefill_attn_tokens = 0 */
	d->pre_flops = c->per_pair_flops * (double)0;
	d->prefill_attn_ns =
		fs__perf_smooth_max_memo(
			d->pre_flops / tp / (e.attn_flops_per_s * e.attn_prefill_eff) *
			FS_NS_PER_SECOND,
			tpt.new_kv_bytes / (e.bw_bytes_per_s * e.mbu) * FS_NS_PER_SECOND,
			e.knee_exp, c->memo_key, c->memo_factor, FS__PERF_MEMO_OTHER);
	d->elementwise_ns = tpt.elementwise_ns;
	d->comm_ns = tpt.comm_ns;
	d->overhead_ns = e.iter_ns + e.per_seq_ns * (double)n_seqs;
	d->per_pair_flops = c->per_pair_flops;
	d->kv_bytes_per_token_per_gpu = c->kv_bytes_per_token_per_gpu;
	d->tp = c->cfg->tp;
	d->attn_flops_div = e.attn_flops_per_s * e.attn_prefill_eff;
	d->attn_bytes_div = e.bw_bytes_per_s * e.attn_decode_eff;
	d->knee_exp = e.knee_exp;
	d->mem_ns_per_token = d->kv_bytes_per_token_per_gpu / d->attn_bytes_div *
	                      FS_NS_PER_SECOND;
	d->other_terms_ns = fabs(d->prefill_attn_ns) + fabs(d->linear_ns) +
	                    fabs(d->elementwise_ns) + fabs(d->comm_ns) + fabs(d->overhead_ns);
}

/* A decode-only step's FLOPs and bytes (either may be NULL), as
 * fs__perf_step_cost computes them for its shape: one function for the
 * exact and the guarded pricing. */
static void decode_work(const struct fs_perf_decode_prep *d, int64_t context_tokens,
                        double *flops, double *bytes)
{
	if (flops != NULL)
		*flops = d->lin_flops + d->pre_flops + d->per_pair_flops * (double)context_tokens;
	if (bytes != NULL)
		*bytes = d->lin_bytes + (d->new_kv_bytes + d->kv_bytes_per_token_per_gpu *
		                         (double)context_tokens + d->elem_gpu_bytes) * d->tp;
}

fs_ns fs__perf_decode_step_exact(struct fs_perf_step_cache *c,
                                 const struct fs_perf_decode_prep *d, int64_t context_tokens,
                                 double *flops, double *bytes)
{
	double dec_flops, ctx_kv_bytes, a, attn_ns, total, gpu_ns;

	/* fs__perf_step_cost's operations for {prefill 0, decode n_seqs,
	 * context, n_seqs} (pre_flops = 0, launch_ns = 0) in the same order;
	 * x / 1.0 is x */
	dec_flops = d->per_pair_flops * (double)context_tokens;
	ctx_kv_bytes = d->kv_bytes_per_token_per_gpu * (double)context_tokens;
	if (c->dec_const && c->dec_hi_bytes && context_tokens > 0) {
		/* only the larger arm: the factor is proved constant */
		attn_ns = d->prefill_attn_ns +
		          ctx_kv_bytes / d->attn_bytes_div * FS_NS_PER_SECOND * c->dec_factor;
	} else {
		a = d->tp != 1.0 ? dec_flops / d->tp : dec_flops;
		attn_ns = d->prefill_attn_ns +
		          fs__perf_decode_attn_ns(c, c->memo_key, c->memo_factor,
		                                  a / d->attn_flops_div * FS_NS_PER_SECOND,
		                                  ctx_kv_bytes / d->attn_bytes_div *
		                                  FS_NS_PER_SECOND,
		                                  d->knee_exp);
	}
	decode_work(d, context_tokens, flops, bytes);   /* NULL: known in closed form */
	total = d->linear_ns + attn_ns + d->elementwise_ns + d->comm_ns;
	gpu_ns = total > 0 ? total * 1.0 : 0;      /* smooth max with a 0 launch floor */
	total = gpu_ns + d->overhead_ns;
	return total < 1 ? 1 : fs__perf_round_ns(total);
}

fs_ns fs_perf_decode_step(struct fs_perf_step_cache *c, const struct fs_perf_decode_prep *d,
                          int64_t context_tokens, double *flops, double *bytes)
{
	fs_ns ns = fs__perf_decode_guarded1(c, d, context_tokens);

	if (ns == 0)                  /* near a rounding edge, or not guarded */
		return fs__perf_decode_step_exact(c, d, context_tokens, flops, bytes);
	decode_work(d, context_tokens, flops, bytes);
	return ns;
}

int64_t fs_perf_decode_steps(struct fs_perf_step_cache *c, const struct fs_perf_decode_prep *d,
                             int64_t ctx0, int64_t ctx_step, size_t n, fs_ns *dur_ns)
{
	double kvb = d->kv_bytes_per_token_per_gpu, bytes_div = d->attn_bytes_div;
	double ppf = d->per_pair_flops, tp = d->tp, flops_div = d->attn_flops_div;
	double factor = c->dec_factor, pre_attn_ns = d->prefill_attn_ns;
	double linear_ns = d->linear_ns, elem_ns = d->elementwise_ns, comm_ns = d->comm_ns;
	double overhead_ns = d->overhead_ns;
	uint64_t bits0 = c->dec_bits0;
	/* in locals: the stores to dur_ns could alias the cache's fields */
	const double *window = c->dec_window_factor;
	bool dec_const = c->dec_const;
	int64_t sum = 0, ctx_i = ctx0;
	size_t i;

	if (!c->dec_window || !c->dec_hi_bytes) {
		for (i = 0; i < n; i++, ctx_i += ctx_step) {
			dur_ns[i] = fs__perf_decode_step_exact(c, d, ctx_i, NULL, NULL);
			sum += dur_ns[i];
		}
		return sum;
	}
	/* fs_perf_decode_step's operations, the memory arm the larger for every
	 * context: its factor constant, or looked up by the ratio's bits */
	i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
	if (c->wide) {
		bool edge = true;

		/* with no division where no step lies near a rounding edge; a step
		 * that does, priced exactly */
		while (edge && i < n) {
			i += fs__perf_decode_guarded(c, d, ctx0 + ctx_step * (int64_t)i, ctx_step,
			                             n - i, dur_ns + i, &sum, &edge);
			if (edge) {
				dur_ns[i] = fs__perf_decode_step_exact(c, d,
				                                       ctx0 + ctx_step * (int64_t)i,
				                                       NULL, NULL);
				sum += dur_ns[i++];
			}
		}
		if (n - i >= 4)
			i += decode_quads(c, d, ctx0 + ctx_step * (int64_t)i, ctx_step, n - i,
			                  dur_ns + i, &sum);
	}
#endif
#if defined(__SSE2__)
	i += decode_pairs(c, d, ctx0 + ctx_step * (int64_t)i, ctx_step, n - i, dur_ns + i, &sum);
#endif
	ctx_i = ctx0 + ctx_step * (int64_t)i;
	for (; i < n; i++, ctx_i += ctx_step) {
		double ctx = (double)ctx_i, y, total;

		if (ctx_i <= 0) {
			dur_ns[i] = fs__perf_decode_step_exact(c, d, ctx_i, NULL, NULL);
			sum += dur_ns[i];
			continue;
		}
		y = kvb * ctx / bytes_div * FS_NS_PER_SECOND;
		if (!dec_const) {
			double x = ppf * ctx, r;
			uint64_t bits;

			x = (tp != 1.0 ? x / tp : x) / flops_div * FS_NS_PER_SECOND;
			r = x / y;
			memcpy(&bits, &r, sizeof bits);
			if (bits - bits0 >= FS_PERF_DEC_WINDOW) {
				dur_ns[i] = fs__perf_decode_step_exact(c, d, ctx_i, NULL, NULL);
				sum += dur_ns[i];
				continue;
			}
			factor = window[bits - bits0];
		}
		total = linear_ns + (pre_attn_ns + y * factor) + elem_ns + comm_ns;
		total = (total > 0 ? total * 1.0 : 0) + overhead_ns;
		dur_ns[i] = total < 1 ? 1 : fs__perf_round_ns(total);
		sum += dur_ns[i];
	}
	return sum;
}

fs_ns fs_perf_decode_step_cached(struct fs_perf_step_cache *c, int64_t n_seqs,
                                 int64_t context_tokens, double *flops, double *bytes)
{
	struct fs_perf_decode_prep d;

	fs_perf_decode_prepare(c, n_seqs, &d);
	return fs_perf_decode_step(c, &d, context_tokens, flops, bytes);
}
