/*
 * test_perf_decode_run.c — pricing a fast-path run's steps (MODEL: V24,
 * P11, P13): the times of a chunk of decode steps priced at once, from
 * decode attention's precomputed smooth-max factors, are the bits of the
 * plain step model for every built-in GPU and model, tensor parallelism 1
 * to 8, batch sizes 1 to 256 and contexts up to millions of tokens, also
 * where a step's time lies on a rounding edge (priced with no division
 * elsewhere); and the token memo a pool's instances share gives the plain
 * model's bits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/perf_internal.h"
#include "fleetsim/catalog.h"
#include "fleetsim/perf.h"
#include "util_test.h"

#define STEPS 200

/* The plain model's time of a decode-only step of n requests with ctx
 * context tokens in all, and its FLOPs and bytes. */
static fs_ns plain_decode_ns(const struct fs_perf_cfg *cfg, int64_t n, int64_t ctx,
                             double *flops, double *bytes)
{
	struct fs_step_shape sh = { 0, 0, n, ctx, n };
	struct fs_step_cost cost;

	fs_perf_step_cost(cfg, &sh, &cost);
	*flops = cost.flops;
	*bytes = cost.bytes;
	return cost.total_ns;
}

/* Runs of STEPS steps (context ctx0 + n·i) for a few batch sizes and
 * starting contexts: fs_perf_decode_steps, fs_perf_decode_step and the
 * plain model agree on every step; returns how many runs were checked. */
static int check_runs_at_width(struct fs_perf_step_cache *c, const struct fs_perf_cfg *cfg)
{
	static const int64_t batches[] = { 1, 3, 8, 31, 256 };
	static const int64_t starts[] = { 1, 977, 40000, 2500000 };
	int64_t ctx[STEPS];
	fs_ns dur[STEPS];
	int64_t sum;
	size_t b, s, i;
	int runs = 0;

	for (b = 0; b < sizeof batches / sizeof batches[0]; b++) {
		struct fs_perf_decode_prep d;
		int64_t n = batches[b];

		fs_perf_decode_prepare(c, n, &d);
		for (s = 0; s < sizeof starts / sizeof starts[0]; s++) {
			for (i = 0; i < STEPS; i++)
				ctx[i] = starts[s] * n + n * (int64_t)i;
			if (s % 2 == 0) {
				/* an odd count and a single step: steps priced two at a
				 * time where they can be, and one left over */
				sum = fs_perf_decode_steps(c, &d, ctx[0], n, STEPS - 1, dur);
				sum += fs_perf_decode_steps(c, &d, ctx[STEPS - 1], n, 1,
				                            &dur[STEPS - 1]);
			} else {
				sum = fs_perf_decode_steps(c, &d, ctx[0], n, STEPS, dur);
			}
			for (i = 0; i < STEPS; i++) {
				sum -= dur[i];
				assert_true(dur[i] >= 1);
				double flops, bytes, plain_flops, plain_bytes;

				assert_int_equal(dur[i], plain_decode_ns(cfg, n, ctx[i], &plain_flops,
				                                         &plain_bytes));
				assert_int_equal(dur[i], fs_perf_decode_step(c, &d, ctx[i], &flops,
				                                             &bytes));
				/* a decode-only step priced this way reports the same work */
				assert_memory_equal(&flops, &plain_flops, sizeof flops);
				assert_memory_equal(&bytes, &plain_bytes, sizeof bytes);
			}
			assert_int_equal(sum, 0);
			runs++;
		}
	}
	return runs;
}

/* check_runs_at_width with steps priced four at a time where the processor
 * can (AVX2) and, on any processor, two at a time: each width gives the
 * plain model's bits.  Returns the runs checked at one width. */
static int check_runs(struct fs_perf_step_cache *c, const struct fs_perf_cfg *cfg)
{
	bool wide = c->wide;
	int runs = check_runs_at_width(c, cfg);

	c->wide = false;
	assert_int_equal(check_runs_at_width(c, cfg), runs);
	c->wide = wide;
	return runs;
}

static void add_runs(struct fs_perf_step_cache *c, const struct fs_perf_cfg *cfg, void *arg)
{
	*(int *)arg += check_runs(c, cfg);
}

static void test_perf_decode_run_steps_give_the_plain_models_bits(void **state)
{
	static const int tps[] = { 1, 2, 8 };
	int runs = 0;

	(void)state;
	fs_test_each_step_cache(tps, sizeof tps / sizeof tps[0], add_runs, &runs);
	assert_true(runs >= 20 * 3 * 5 * 4);
}

/* The day benchmark's pools take the new paths: a constant factor on the
 * H100 and L40S, a window of factors looked up by the ratio's bits on the
 * A100, the memory arm the larger on all three. */
static void test_perf_decode_run_day_gpus_use_the_factor_window(void **state)
{
	static const struct { const char *gpu; bool constant; } cases[] = {
		{ "h100", true }, { "l40s", true }, { "a100-80g", false },
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct fs_perf_cfg cfg;
		struct fs_perf_step_cache *c = malloc(sizeof *c);

		assert_non_null(c);
		fs_perf_cfg_defaults(&cfg, fs_catalog_find_gpu(cases[k].gpu),
		                     fs_catalog_find_model("llama-3.1-8b"));
		fs_perf_step_cache_init(c, &cfg);
		assert_true(c->dec_window);
		assert_true(c->dec_hi_bytes);
		assert_true(c->dec_const == cases[k].constant);
		assert_int_equal(check_runs(c, &cfg), 20);
		free(c);
	}
}

/* Chunks of a few lengths priced at once give, step by step, the bits of
 * pricing each step alone. */
static void check_chunks_step_by_step(struct fs_perf_step_cache *c)
{
	static const int64_t batches[] = { 1, 2, 7, 64 };
	static const size_t counts[] = { 1, 2, 3, 4, 5, 6, 7, 199, 200 };
	fs_ns dur[200];
	size_t b, k, i;

	for (b = 0; b < sizeof batches / sizeof batches[0]; b++) {
		struct fs_perf_decode_prep d;
		int64_t n = batches[b], ctx0 = 3001 * n;

		fs_perf_decode_prepare(c, n, &d);
		for (k = 0; k < sizeof counts / sizeof counts[0]; k++) {
			int64_t sum = fs_perf_decode_steps(c, &d, ctx0, n, counts[k], dur);

			for (i = 0; i < counts[k]; i++) {
				fs_ns one = fs_perf_decode_step(c, &d, ctx0 + n * (int64_t)i, NULL, NULL);

				assert_int_equal(dur[i], one);
				sum -= dur[i];
			}
			assert_int_equal(sum, 0);
		}
	}
}

/* Each step of a chunk takes the factor of its own ratio: with the A100's
 * window made of distinct factors (a test-only change of the cache; the
 * model's factors differ only near one edge, where no real ratio lands),
 * a chunk priced at once, four or two steps at a time where it can be,
 * gives the bits of pricing each step alone, which looks its ratio up by
 * itself. */
static void test_perf_decode_run_each_step_looks_up_its_own_factor(void **state)
{
	struct fs_perf_cfg cfg;
	struct fs_perf_step_cache *c = malloc(sizeof *c);
	size_t w;

	(void)state;
	assert_non_null(c);
	fs_perf_cfg_defaults(&cfg, fs_catalog_find_gpu("a100-80g"),
	                     fs_catalog_find_model("llama-3.1-8b"));
	fs_perf_step_cache_init(c, &cfg);
	assert_true(c->dec_window);
	c->dec_factor_spread = 0;
	for (w = 0; w < FS_PERF_DEC_WINDOW; w++) {
		double gap;

		c->dec_window_factor[w] = 1.0 + (double)w * 0x1p-12;
		gap = fabs(c->dec_window_factor[w] - c->dec_factor);
		c->dec_factor_spread = gap > c->dec_factor_spread ? gap : c->dec_factor_spread;
	}
	c->dec_const = false;
	check_chunks_step_by_step(c);        /* four at a time where AVX2 is there */
	c->wide = false;
	check_chunks_step_by_step(c);        /* two at a time */
	free(c);
}

/* The steps priced with no division (perf_decode_guard.c) where AVX2 is
 * there: every step of an ordinary run on the day's GPUs; and a step whose
 * exact time lies on a rounding edge — the iteration overhead bisected to
 * the last double at which the step still rounds down, and the first at
 * which it rounds up — is refused and priced exactly, the run's times
 * still the bits of pricing each step alone. */
static void test_perf_decode_run_guarded_steps_refuse_rounding_edges(void **state)
{
	static const char *gpus[] = { "h100", "l40s", "a100-80g" };
	size_t g, side, i;

	(void)state;
#if defined(__x86_64__) && defined(__GNUC__)
	for (g = 0; g < sizeof gpus / sizeof gpus[0]; g++) {
		struct fs_perf_cfg cfg;
		struct fs_perf_step_cache *c = malloc(sizeof *c);
		struct fs_perf_decode_prep d;
		const int64_t n = 16, ctx0 = 16 * 1500, at = 5;   /* the edge's step */
		fs_ns dur[12];
		int64_t sum = 0;
		bool edge = true;

		assert_non_null(c);
		fs_perf_cfg_defaults(&cfg, fs_catalog_find_gpu(gpus[g]),
		                     fs_catalog_find_model("llama-3.1-8b"));
		fs_perf_step_cache_init(c, &cfg);
		if (!c->wide) {
			free(c);
			skip();
		}
		fs_perf_decode_prepare(c, n, &d);
		assert_int_equal(fs__perf_decode_guarded(c, &d, ctx0, n, 12, dur, &sum, &edge),
		                 12);
		assert_false(edge);
		/* a last quad of fewer than four steps is priced whole */
		sum = 0;
		edge = true;
		assert_int_equal(fs__perf_decode_guarded(c, &d, ctx0, n, 7, dur, &sum, &edge), 7);
		assert_false(edge);
		for (i = 0; i < 7; i++) {
			assert_int_equal(dur[i], fs_perf_decode_step(c, &d, ctx0 + n * (int64_t)i,
			                                             NULL, NULL));
			sum -= dur[i];
		}
		assert_int_equal(sum, 0);
		for (side = 0; side < 2; side++) {
			double lo = d.overhead_ns, hi, base_ns;
			int k;

			base_ns = (double)fs__perf_decode_step_exact(c, &d, ctx0 + n * at, NULL, NULL);
			hi = lo + 1.0;
			for (k = 0; k < 80; k++) {       /* to adjacent doubles */
				double mid = lo + (hi - lo) / 2, keep = d.overhead_ns;

				if (mid == lo || mid == hi)
					break;
				d.overhead_ns = mid;
				if ((double)fs__perf_decode_step_exact(c, &d, ctx0 + n * at, NULL,
				                                       NULL) == base_ns)
					lo = mid;
				else
					hi = mid;
				d.overhead_ns = keep;
			}
			d.overhead_ns = side == 0 ? lo : hi;
			/* one step alone is refused there too, and priced exactly;
			 * its neighbours are not */
			assert_int_equal(fs__perf_decode_guarded1(c, &d, ctx0 + n * at), 0);
			assert_int_equal(fs_perf_decode_step(c, &d, ctx0 + n * at, NULL, NULL),
			                 (fs_ns)base_ns + (fs_ns)side);
			assert_int_equal(fs__perf_decode_guarded1(c, &d, ctx0 + n * (at + 1)),
			                 fs__perf_decode_step_exact(c, &d, ctx0 + n * (at + 1), NULL,
			                                            NULL));
			sum = 0;
			edge = false;
			assert_int_equal(fs__perf_decode_guarded(c, &d, ctx0, n, 12, dur, &sum, &edge),
			                 4);                  /* stops at the quad of step 5 */
			assert_true(edge);
			edge = false;                 /* also where that quad is the last, */
			assert_int_equal(fs__perf_decode_guarded(c, &d, ctx0, n, 6, dur, &sum, &edge),
			                 4);                  /* of two steps */
			assert_true(edge);
			sum = fs_perf_decode_steps(c, &d, ctx0, n, 12, dur);
			for (i = 0; i < 12; i++) {
				assert_int_equal(dur[i], fs_perf_decode_step(c, &d, ctx0 + n * (int64_t)i,
				                                             NULL, NULL));
				sum -= dur[i];
			}
			assert_int_equal(sum, 0);
			assert_int_equal(dur[at], (fs_ns)base_ns + (fs_ns)side);
		}
		free(c);
	}
#else
	(void)gpus;
	(void)g;
	(void)side;
	(void)i;
	skip();
#endif
}

/* Two instances' caches sharing one token memo, fed interleaved prefill and
 * decode shapes whose token counts collide in it, price every shape with
 * the plain model's bits (the memo is keyed by the whole shape, not by a
 * slot), and so does a cache of its own. */
static void test_perf_decode_run_shared_token_memo_gives_the_plain_bits(void **state)
{
	struct fs_perf_cfg cfg;
	struct fs_perf_token_memo *memo = calloc(1, sizeof *memo);
	struct fs_perf_step_cache *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	struct fs_perf_step_cache *own = malloc(sizeof *own);
	uint64_t x = 12345;
	int k;

	(void)state;
	assert_non_null(memo);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(own);
	fs_perf_cfg_defaults(&cfg, fs_catalog_find_gpu("a100-80g"),
	                     fs_catalog_find_model("llama-3.1-8b"));
	fs_perf_step_cache_init(a, &cfg);
	fs_perf_step_cache_init(b, &cfg);
	fs_perf_step_cache_init(own, &cfg);
	fs_perf_step_cache_share(a, memo);
	fs_perf_step_cache_share(b, memo);
	assert_ptr_equal(memo->cfg, &cfg);
	for (k = 0; k < 60000; k++) {
		struct fs_step_shape sh;
		struct fs_step_cost plain, ca, cb, co;
		int64_t dec, pre;

		x = x * 6364136223846793005u + 1442695040888963407u;
		dec = (int64_t)((x >> 33) % 64);
		pre = k % 3 == 0 ? 0 : (int64_t)((x >> 17) % 9000);  /* repeats often */
		if (dec + pre == 0)
			dec = 1;
		sh.prefill_tokens = pre;
		sh.prefill_attn_tokens = pre * pre / 2;
		sh.decode_seqs = dec;
		sh.decode_context_tokens = dec * 700 + (int64_t)(x % 5000);
		sh.n_seqs = dec + (pre > 0);
		fs_perf_step_cost(&cfg, &sh, &plain);
		fs_perf_step_cost_cached(k % 2 ? a : b, &sh, &ca);
		fs_perf_step_cost_cached(k % 2 ? b : a, &sh, &cb);
		fs_perf_step_cost_cached(own, &sh, &co);
		assert_int_equal(ca.total_ns, plain.total_ns);
		assert_int_equal(cb.total_ns, plain.total_ns);
		assert_int_equal(co.total_ns, plain.total_ns);
		assert_memory_equal(&ca.flops, &plain.flops, sizeof plain.flops);
		assert_memory_equal(&cb.bytes, &plain.bytes, sizeof plain.bytes);
	}
	free(own);
	free(b);
	free(a);
	free(memo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_decode_run_steps_give_the_plain_models_bits),
		cmocka_unit_test(test_perf_decode_run_day_gpus_use_the_factor_window),
		cmocka_unit_test(test_perf_decode_run_each_step_looks_up_its_own_factor),
		cmocka_unit_test(test_perf_decode_run_guarded_steps_refuse_rounding_edges),
		cmocka_unit_test(test_perf_decode_run_shared_token_memo_gives_the_plain_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
