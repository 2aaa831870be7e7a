/*
 * test_recorder_sums.c — a fast-path run's step sums (MODEL: V24): four
 * steps at a time (AVX2) and one by one give the same Σ d, ORs, Σ kv·d,
 * Σ d² and extremes wherever the grouped recording uses them, checked
 * against a plain 128-bit computation, at the largest durations and KV
 * levels it accepts, for every run length up to 1,024 steps; and where a
 * step is too long for the group, the sums it checks still agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "../src/recorder_sums.h"

#define MAX_STEPS 1024

/* splitmix64: the test's own reproducible draws */
static uint64_t next_u64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static bool have_wide(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	return __builtin_cpu_supports("avx2");
#else
	return false;
#endif
}

/* The sums by hand, in 128 bits, of steps whose products fit (d < 2^31,
 * 0 <= kv < 2^22). */
static void plain_sums(size_t k, const fs_ns *d, const int64_t *kv, struct fs__run_sums *s)
{
	fs__i128 kv_d = 0;
	size_t i;

	s->dur = 0;
	s->or_d = 0;
	s->or_kv = 0;
	s->d2 = 0;
	s->lo = d[0];
	s->hi = d[0];
	for (i = 0; i < k; i++) {
		s->dur += d[i];
		s->or_d |= d[i];
		s->or_kv |= kv[i];
		kv_d += (fs__i128)kv[i] * d[i];
		s->d2 += (fs__i128)d[i] * d[i];
		if (d[i] < s->lo)
			s->lo = d[i];
		if (d[i] > s->hi)
			s->hi = d[i];
	}
	s->kv_d = (uint64_t)kv_d;
}

static void assert_used_sums_equal(const struct fs__run_sums *a, const struct fs__run_sums *b)
{
	assert_int_equal(a->dur, b->dur);
	assert_int_equal(a->or_d, b->or_d);
	assert_int_equal(a->or_kv, b->or_kv);
	assert_int_equal(a->kv_d, b->kv_d);
	assert_true(a->d2 == b->d2);
	assert_int_equal(a->lo, b->lo);
	assert_int_equal(a->hi, b->hi);
}

/* Runs of every length 1 .. 1,024: random durations and levels, then the
 * largest the group accepts (2^31 - 1 ns, 2^22 - 1 blocks), where one lane's
 * Σ d² passes 2^64. */
static void test_recorder_sums_wide_and_one_by_one_agree_with_plain(void **state)
{
	fs_ns *d = malloc(MAX_STEPS * sizeof *d);
	int64_t *kv = malloc(MAX_STEPS * sizeof *kv);
	uint64_t seed = 42;
	size_t k, i;
	int pass;

	(void)state;
	assert_non_null(d);
	assert_non_null(kv);
	for (pass = 0; pass < 2; pass++) {
		for (k = 1; k <= MAX_STEPS; k++) {
			struct fs__run_sums want, one, wide;

			for (i = 0; i < k; i++) {
				if (pass == 0) {
					d[i] = 1 + (fs_ns)(next_u64(&seed) % (((uint64_t)1 << 31) - 1));
					kv[i] = (int64_t)(next_u64(&seed) % ((uint64_t)1 << 22));
				} else {
					d[i] = ((fs_ns)1 << 31) - 1 - (fs_ns)(next_u64(&seed) % 3);
					kv[i] = ((int64_t)1 << 22) - 1 - (int64_t)(next_u64(&seed) % 3);
				}
			}
			plain_sums(k, d, kv, &want);
			fs__rec_sum_run(k, d, kv, false, &one);
			assert_used_sums_equal(&one, &want);
			if (have_wide()) {
				fs__rec_sum_run(k, d, kv, true, &wide);
				assert_used_sums_equal(&wide, &want);
			}
		}
	}
	free(kv);
	free(d);
}

/* A step of 2^40 ns or a level of 2^40 blocks fails the group's checks:
 * Σ d, the ORs and the extremes that tell it so are the same both ways. */
static void test_recorder_sums_long_steps_fail_the_checks_the_same_way(void **state)
{
	fs_ns d[37];
	int64_t kv[37];
	size_t i, at;

	(void)state;
	if (!have_wide())
		skip();
	for (at = 0; at < 37; at++) {
		struct fs__run_sums one, wide;

		for (i = 0; i < 37; i++) {
			d[i] = 1000 + (fs_ns)i;
			kv[i] = (int64_t)i;
		}
		d[at] = (fs_ns)1 << 40;
		kv[(at * 7) % 37] = (int64_t)1 << 40;
		fs__rec_sum_run(37, d, kv, false, &one);
		fs__rec_sum_run(37, d, kv, true, &wide);
		assert_int_equal(wide.dur, one.dur);
		assert_int_equal(wide.or_d, one.or_d);
		assert_int_equal(wide.or_kv, one.or_kv);
		assert_int_equal(wide.lo, one.lo);
		assert_int_equal(wide.hi, one.hi);
		assert_true(one.or_d >= ((fs_ns)1 << 31));
		assert_true(one.or_kv >= ((int64_t)1 << 22));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorder_sums_wide_and_one_by_one_agree_with_plain),
		cmocka_unit_test(test_recorder_sums_long_steps_fail_the_checks_the_same_way),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
