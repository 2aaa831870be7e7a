/*
 * test_perf_knee.c — the smooth max's factor from a table (MODEL: P11,
 * V24): within FS_PERF_KNEE_REL_ERR of pow()'s for knee exponents across
 * the accepted range and ratios across every binade; step times priced
 * through it have the exact path's bits for every built-in GPU and model;
 * and a step whose time lies within the guard of a rounding boundary is
 * priced again exactly, while one far from it is not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/catalog.h"
#include "fleetsim/perf.h"
#include "../src/perf_internal.h"
#include "util_test.h"

static uint64_t next(uint64_t *x)
{
	*x = *x * 6364136223846793005u + 1442695040888963407u;
	return *x >> 11;
}

static double pow_factor(double r, double n)
{
	return pow(1.0 + pow(r, n), 1.0 / n);
}

/* Ratios log-uniform from 2^-70 to 1, and 1 itself: the table's factor is
 * within its bound of pow()'s, or the table says it does not reach. */
static void test_perf_knee_factor_is_within_its_bound(void **state)
{
	static const double exps[] = { 1.0, 1.3, 1.63, 2.0, 3.7, 8.0, 64.0 };
	struct fs_perf_knee *k = malloc(sizeof *k);
	uint64_t x = 99;
	size_t e;
	int i, covered = 0, outside = 0;

	(void)state;
	assert_non_null(k);
	for (e = 0; e < sizeof exps / sizeof exps[0]; e++) {
		fs__perf_knee_init(k, exps[e]);
		assert_true(k->ok);
		assert_int_equal(k->built, 0);          /* pieces built on first use */
		assert_true(k->table_to <= k->one_from);
		for (i = 0; i <= 100000; i++) {
			double r = i == 0 ? 1.0 : exp2(-70.0 * (double)next(&x) / 0x1p53);
			double got = fs__perf_knee_factor(k, r), want = pow_factor(r, exps[e]);
			int binade = -ilogb(r);

			if (!(got > 0)) {          /* refused, or past the table */
				assert_true(isnan(got) ||
				            (binade >= k->table_to && binade < k->one_from));
				outside++;
				continue;
			}
			covered++;
			assert_true(fabs(got - want) <= FS_PERF_KNEE_REL_ERR * want);
		}
		assert_true(k->built > 0 && k->built <= (uint32_t)k->table_to * 16);
		/* every piece kept up to knee_exp 8, whatever the ratio */
		assert_true(exps[e] > 8.0 || k->refused == 0);
	}
	assert_true(covered > 600000);
	assert_true(outside > 0);            /* knee_exp 1: 45 binades, 32 tabulated */
	free(k);
}

/* Outside the accepted range of knee_exp the table is not used. */
static void test_perf_knee_outside_the_range_is_not_used(void **state)
{
	struct fs_perf_knee *k = malloc(sizeof *k);

	(void)state;
	assert_non_null(k);
	fs__perf_knee_init(k, 0.5);
	assert_false(k->ok);
	fs__perf_knee_init(k, 65.0);
	assert_false(k->ok);
	fs__perf_knee_init(k, NAN);
	assert_false(k->ok);
	free(k);
}

/* A random prefill or mixed step shape. */
static struct fs_step_shape random_shape(uint64_t *x)
{
	struct fs_step_shape sh;
	static const int64_t often[] = { 128, 512, 1000 };
	int64_t dec = (int64_t)(next(x) % 48), pre = (int64_t)(next(x) % 6000) + 1;

	if (pre % 3 == 0)            /* shapes that repeat: the token memo hits */
		pre = often[next(x) % 3];

	sh.prefill_tokens = pre;
	sh.prefill_attn_tokens = pre * (pre + 1) / 2 + pre * (int64_t)(next(x) % 3000);
	sh.decode_seqs = dec;
	sh.decode_context_tokens = dec * (int64_t)(next(x) % 4000 + 1);
	sh.n_seqs = dec + 1 + (int64_t)(next(x) % 3 == 0);
	return sh;
}

/* The table steps' checks across caches, and what they counted. */
struct knee_counts {
	uint64_t x, table, redone;
};

static void check_table_steps(struct fs_perf_step_cache *c, const struct fs_perf_cfg *cfg,
                              void *arg)
{
	struct knee_counts *k = arg;
	int i;

	assert_true(c->knee.ok);
	for (i = 0; i < 400; i++) {
		struct fs_step_shape sh = random_shape(&k->x);
		struct fs_step_cost plain, cached;
		double flops, bytes;
		fs_ns ns = fs_perf_step_ns_cached(c, &sh, &flops, &bytes);

		fs_perf_step_cost(cfg, &sh, &plain);
		assert_int_equal(ns, plain.total_ns);
		assert_memory_equal(&flops, &plain.flops, sizeof flops);
		assert_memory_equal(&bytes, &plain.bytes, sizeof bytes);
		if (i % 2 == 0) {
			fs_perf_step_cost_cached(c, &sh, &cached);
			assert_memory_equal(&cached, &plain, sizeof plain);
		}
	}
	k->table += c->knee_steps - c->knee_redone;
	k->redone += c->knee_redone;
}

/* Every built-in GPU and model, TP 1 and 4: steps priced through the table
 * give the plain model's time, FLOPs and bytes, bit for bit, and most of
 * them are priced by the table alone; the exact cached path, asked for the
 * same shapes from the same cache in between (its token memo then holds
 * times from the table, marked), still gives every part's bits. */
static void test_perf_knee_step_times_keep_the_exact_bits(void **state)
{
	static const int tps[] = { 1, 4 };
	struct knee_counts k = { 7, 0, 0 };

	(void)state;
	fs_test_each_step_cache(tps, sizeof tps / sizeof tps[0], check_table_steps, &k);
	assert_true(k.table > 100 * k.redone);
}

/* Steps whose exact time (before rounding) lies within the guard of a half
 * ns are priced again exactly; steps far from one are not (the count of
 * steps priced again, before and after each). */
static void test_perf_knee_steps_near_a_boundary_are_priced_again(void **state)
{
	struct fs_perf_cfg cfg;
	struct fs_perf_step_cache *c = malloc(sizeof *c);
	uint64_t x = 2024;
	int i, near = 0, far = 0;

	(void)state;
	assert_non_null(c);
	fs_perf_cfg_defaults(&cfg, fs_catalog_find_gpu("a100-80g"),
	                     fs_catalog_find_model("llama-3.1-70b"));
	cfg.tp = 4;
	fs_perf_step_cache_init(c, &cfg);
	for (i = 0; i < 200000 && near < 20; i++) {
		struct fs_step_shape sh = random_shape(&x);
		struct fs_step_cost plain;
		double t, frac, flops, bytes;
		uint64_t redone = c->knee_redone;
		fs_ns ns;

		fs_perf_step_cost(&cfg, &sh, &plain);
		t = plain.gpu_ns + plain.overhead_ns;
		frac = t - floor(t);
		ns = fs_perf_step_ns_cached(c, &sh, &flops, &bytes);
		assert_int_equal(ns, plain.total_ns);
		if (fabs(frac - 0.5) < 0.5 * t * FS_PERF_KNEE_GUARD) {
			assert_int_equal(c->knee_redone, redone + 1);
			near++;
		} else if (fabs(frac - 0.5) > 2.0 * t * FS_PERF_KNEE_GUARD) {
			assert_int_equal(c->knee_redone, redone);
			far++;
		}
	}
	assert_true(near >= 20);
	assert_true(far > 1000);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_knee_factor_is_within_its_bound),
		cmocka_unit_test(test_perf_knee_outside_the_range_is_not_used),
		cmocka_unit_test(test_perf_knee_step_times_keep_the_exact_bits),
		cmocka_unit_test(test_perf_knee_steps_near_a_boundary_are_priced_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
