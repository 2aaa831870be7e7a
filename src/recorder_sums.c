/*
 * recorder_sums.c — a fast-path run's step sums in one pass (MODEL: V24):
 * what fs__recorder_llm_run checks before it records a run's steps as a
 * group (Σ d, the ORs of the durations and of the KV levels) and what it
 * then records (Σ kv·d, Σ d², the least and the largest step).  Integer
 * arithmetic only, so four lanes at a time give the one-by-one loop's
 * values wherever those are used.
 */
#include "recorder_sums.h"

/* The one-by-one loop over steps from .. k - 1, added to s. */
static void sum_scalar(size_t from, size_t k, const fs_ns *dur_ns, const int64_t *kv_blocks,
                       struct fs__run_sums *s)
{
	size_t i;

	for (i = from; i < k; i++) {
		uint64_t d = (uint64_t)dur_ns[i];

		s->dur += dur_ns[i];
		s->or_d |= dur_ns[i];
		s->or_kv |= kv_blocks[i];
		s->kv_d += (uint64_t)kv_blocks[i] * d;
		s->d2 += (fs__i128)(d * d);
		s->lo = dur_ns[i] < s->lo ? dur_ns[i] : s->lo;
		s->hi = dur_ns[i] > s->hi ? dur_ns[i] : s->hi;
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2")))
static int64_t lanes_sum(__m256i v)
{
	int64_t l[4];

	_mm256_storeu_si256((__m256i *)(void *)l, v);
	return (int64_t)(((uint64_t)l[0] + (uint64_t)l[1]) + ((uint64_t)l[2] + (uint64_t)l[3]));
}

/* Steps 0 .. 4·floor(k / 4) - 1, four at a time, into s (zeroed, lo and
 * hi the first step's); returns how many.  The products take each lane's
 * low 32 bits (_mm256_mul_epu32): the loop's values where d < 2^32 and
 * 0 <= kv < 2^32, which the used ones are.  Σ d² is kept as the sums of
 * each product's high and low 32 bits, which cannot overflow a lane. */
__attribute__((target("avx2")))
static size_t sum_quads(size_t k, const fs_ns *dur_ns, const int64_t *kv_blocks,
                        struct fs__run_sums *s)
{
	const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
	__m256i dur = _mm256_setzero_si256(), or_d = dur, or_kv = dur, kv_d = dur;
	__m256i d2_lo = dur, d2_hi = dur;
	__m256i lo = _mm256_set1_epi64x(dur_ns[0]), hi = lo;
	int64_t l[4];
	size_t i, j;

	for (i = 0; i + 4 <= k; i += 4) {
		__m256i d = _mm256_loadu_si256((const __m256i *)(const void *)&dur_ns[i]);
		__m256i kv = _mm256_loadu_si256((const __m256i *)(const void *)&kv_blocks[i]);
		__m256i dd = _mm256_mul_epu32(d, d);

		dur = _mm256_add_epi64(dur, d);
		or_d = _mm256_or_si256(or_d, d);
		or_kv = _mm256_or_si256(or_kv, kv);
		kv_d = _mm256_add_epi64(kv_d, _mm256_mul_epu32(kv, d));
		d2_lo = _mm256_add_epi64(d2_lo, _mm256_and_si256(dd, low32));
		d2_hi = _mm256_add_epi64(d2_hi, _mm256_srli_epi64(dd, 32));
		lo = _mm256_blendv_epi8(lo, d, _mm256_cmpgt_epi64(lo, d));
		hi = _mm256_blendv_epi8(hi, d, _mm256_cmpgt_epi64(d, hi));
	}
	s->dur = lanes_sum(dur);
	s->kv_d = (uint64_t)lanes_sum(kv_d);
	s->d2 = ((fs__i128)(uint64_t)lanes_sum(d2_hi) << 32) + (fs__i128)(uint64_t)lanes_sum(d2_lo);
	_mm256_storeu_si256((__m256i *)(void *)l, _mm256_or_si256(
		_mm256_unpacklo_epi64(or_d, or_kv), _mm256_unpackhi_epi64(or_d, or_kv)));
	s->or_d = l[0] | l[2];
	s->or_kv = l[1] | l[3];
	_mm256_storeu_si256((__m256i *)(void *)l, lo);
	for (j = 0; j < 4; j++)
		s->lo = l[j] < s->lo ? l[j] : s->lo;
	_mm256_storeu_si256((__m256i *)(void *)l, hi);
	for (j = 0; j < 4; j++)
		s->hi = l[j] > s->hi ? l[j] : s->hi;
	return i;
}
#endif

void fs__rec_sum_run(size_t k, const fs_ns *dur_ns, const int64_t *kv_blocks, bool wide,
                     struct fs__run_sums *s)
{
	size_t done = 0;

	s->dur = 0;
	s->or_d = 0;
	s->or_kv = 0;
	s->kv_d = 0;
	s->d2 = 0;
	s->lo = dur_ns[0];
	s->hi = dur_ns[0];
#if defined(__x86_64__) && defined(__GNUC__)
	if (wide && k >= 4)
		done = sum_quads(k, dur_ns, kv_blocks, s);
#else
	(void)wide;
#endif
	sum_scalar(done, k, dur_ns, kv_blocks, s);
}
