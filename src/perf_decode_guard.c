/*
 * perf_decode_guard.c — decode steps priced one or four at a time with no
 * division (MODEL: V24).  The exact path (fs__perf_decode_step_exact and
 * the batched kernels in perf_step_cache.c) divides per step: the memory arm
 * kv·ctx / bw · 1e9 and, where the smooth-max factor is not constant, the
 * compute arm and the two arms' ratio.  Only the rounded ns of a step is
 * kept, so here the memory arm is one product K·ctx (K = kv / bw · 1e9,
 * once per batch size: the prep's mem_ns_per_token), the factor the
 * window's middle one, and a step's time is taken only where no time
 * within a proved bound of it lies on a rounding edge: the exact path's
 * time lies within that bound, so it rounds to the same ns and every
 * result keeps its bits.
 *
 * The bound.  With u = 2^-53, the exact memory arm y and K·ctx are both
 * the real kv·ctx·1e9 / bw after three roundings: they differ by at most
 * 7u·y.  The exact factor is one of the window's (decode_factor: the
 * arms' ratio stays within it for every context), at most `spread` from
 * the middle one.  Each of the two sums of six terms rounds six times,
 * each by at most u times a magnitude below M (the terms' absolute values,
 * the arm at the run's largest context).  So the two times differ by less
 * than 19u·M + y·spread; the guard is 512u·M + 2·y·spread.
 */
#include "perf_internal.h"

fs_ns fs__perf_decode_guarded1(const struct fs_perf_step_cache *c,
                               const struct fs_perf_decode_prep *d, int64_t ctx)
{
	double k = d->mem_ns_per_token, f = c->dec_factor, spread = c->dec_factor_spread;
	double y, y_hi, m, guard, t5, t, z, fl, fr;

	if (!c->dec_window || !c->dec_hi_bytes || ctx <= 0 || ctx >= ((int64_t)1 << 53))
		return 0;
	y = k * (double)ctx;
	y_hi = k * (double)ctx * (1.0 + 0x1p-40);
	m = d->other_terms_ns + y_hi * (f + spread);
	guard = m * 0x1p-44 + 2.0 * y_hi * spread;
	if (!(k > 0 && guard < 0.25 && m < 0x1p40))
		return 0;
	t5 = d->linear_ns + (d->prefill_attn_ns + y * f) + d->elementwise_ns + d->comm_ns;
	t = t5 + d->overhead_ns;
	if (!(t5 > guard && t >= 1.0 + guard && t < 0x1p31 - 1.0))
		return 0;
	/* floor(t + 0.5), t + 0.5 exact and positive below 2^31: truncation */
	z = t + 0.5;
	fl = (double)(int64_t)z;
	fr = z - fl;
	if (!(fr > guard && fr < 1.0 - guard))
		return 0;
	return (fs_ns)fl;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2")))
size_t fs__perf_decode_guarded(const struct fs_perf_step_cache *c,
                               const struct fs_perf_decode_prep *d, int64_t ctx0,
                               int64_t ctx_step, size_t n, fs_ns *dur_ns, int64_t *sum,
                               bool *edge)
{
	double k, f = c->dec_factor, spread = c->dec_factor_spread, y_hi, m, guard;
	__m256d kk, ctx, inc, fac, pre, lin, elem, comm, over, g, g1, half, one, top;
	__m256i acc = _mm256_setzero_si256();
	int64_t lanes[4];
	size_t i = 0;

	*edge = false;
	if (!fs__perf_ctx_run_ok(ctx0, ctx_step, n, 1) || !c->dec_window || !c->dec_hi_bytes)
		return 0;
	k = d->mem_ns_per_token;
	y_hi = k * (double)(ctx0 + ctx_step * (int64_t)(n - 1)) * (1.0 + 0x1p-40);
	m = d->other_terms_ns + y_hi * (f + spread);
	guard = m * 0x1p-44 + 2.0 * y_hi * spread;
	if (!(k > 0 && guard < 0.25 && m < 0x1p40))
		return 0;
	kk = _mm256_set1_pd(k);
	fac = _mm256_set1_pd(f);
	pre = _mm256_set1_pd(d->prefill_attn_ns);
	lin = _mm256_set1_pd(d->linear_ns);
	elem = _mm256_set1_pd(d->elementwise_ns);
	comm = _mm256_set1_pd(d->comm_ns);
	over = _mm256_set1_pd(d->overhead_ns);
	g = _mm256_set1_pd(guard);
	g1 = _mm256_set1_pd(1.0 - guard);
	half = _mm256_set1_pd(0.5);
	one = _mm256_set1_pd(1.0 + guard);
	top = _mm256_set1_pd(0x1p31 - 1.0);   /* floor(t + 0.5) fits an int32 */
	ctx = _mm256_set_pd((double)(ctx0 + 3 * ctx_step), (double)(ctx0 + 2 * ctx_step),
	                    (double)(ctx0 + ctx_step), (double)ctx0);
	inc = _mm256_set1_pd(4.0 * (double)ctx_step);
	/* the last quad may hold fewer than four steps: its lanes past n are
	 * neither checked nor kept (their contexts lie past the run's largest,
	 * which the guard covers) */
	for (; i < n; i += 4, ctx = _mm256_add_pd(ctx, inc)) {
		__m256d y = _mm256_mul_pd(kk, ctx), t5, t, z, fl, fr, ok;
		size_t live = n - i < 4 ? n - i : 4;
		int want = (1 << live) - 1;
		__m256i r64;

		/* the exact path's operations and order, without its clamp at 0
		 * (t5 above the guard: the exact sum is positive) */
		t5 = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(lin, _mm256_add_pd(pre,
		                   _mm256_mul_pd(y, fac))), elem), comm);
		t = _mm256_add_pd(t5, over);
		/* the ns is floor(t + 0.5) (t + 0.5 exact below 2^31) unless a
		 * half ns lies within the guard of t */
		z = _mm256_add_pd(t, half);
		fl = _mm256_floor_pd(z);
		fr = _mm256_sub_pd(z, fl);
		ok = _mm256_and_pd(_mm256_cmp_pd(fr, g, _CMP_GT_OQ),
		                   _mm256_cmp_pd(fr, g1, _CMP_LT_OQ));
		ok = _mm256_and_pd(ok, _mm256_cmp_pd(t5, g, _CMP_GT_OQ));
		ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(t, one, _CMP_GE_OQ),
		                                     _mm256_cmp_pd(t, top, _CMP_LT_OQ)));
		if ((_mm256_movemask_pd(ok) & want) != want) {
			*edge = true;
			break;
		}
		r64 = _mm256_cvtepi32_epi64(_mm256_cvttpd_epi32(fl));
		if (live == 4) {
			_mm256_storeu_si256((__m256i *)(void *)&dur_ns[i], r64);
			acc = _mm256_add_epi64(acc, r64);
		} else {
			size_t j;

			_mm256_storeu_si256((__m256i *)(void *)lanes, r64);
			for (j = 0; j < live; j++) {
				dur_ns[i + j] = lanes[j];
				*sum += lanes[j];
			}
			i += live;
			break;
		}
	}
	_mm256_storeu_si256((__m256i *)(void *)lanes, acc);
	*sum += lanes[0] + lanes[1] + lanes[2] + lanes[3];
	return i;
}
#else
/* no AVX2 kernel on this target: fs_perf_decode_steps keeps its exact path */
typedef int fs__perf_decode_guard_none;
#endif
