/*
 * test_recorder_itl.c — the recorder's inter-token gaps and a fast-path
 * run's recording (MODEL: M1, S1, V24): the bucket a hint gives is the
 * value's own bucket whether the gaps drift, jump or sit on a bucket's
 * edge; and a run recorded at once (fs__recorder_llm_run) leaves every
 * figure — the ITL histogram, extremes and exact moments, the work sums per
 * pool and time bin, the engine totals — as recording its steps one by one
 * does, across time bins and the warm-up, in one bucket or many.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/recorder.h"
#include "fleetsim/scenario.h"
#include "util_test.h"

#define MAX_STEPS 300

static struct fs_scenario *load_quickstart(void)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load("scenarios/quickstart.json", &err);

	if (sc == NULL)
		fs_error_print(&err);
	assert_non_null(sc);
	return sc;
}

/* A gap in ns: drifting from the last (most), jumping anywhere from 1 µs
 * to 100 s, or on a bucket's first or last whole ns. */
static fs_ns next_gap(uint64_t *x, fs_ns last, struct fs_hist_finder *f)
{
	uint64_t u = fs_test_xorshift64(x);

	switch (u % 5) {
	case 0: case 1: {
		fs_ns g = last + (fs_ns)(fs_test_xorshift64(x) % 20001) - 10000;

		return g > 0 ? g : 1;
	}
	case 2:
		return (fs_ns)llround(exp(log(1e3) + (log(1e11) - log(1e3)) *
		                          (double)(fs_test_xorshift64(x) % 1000000) / 1e6));
	default: {
		fs_ns g = (fs_ns)ceil(fs_hist_finder_floor(f, 1000 + fs_test_xorshift64(x) % 1200));

		return u % 5 == 3 ? g : g - 1;
	}
	}
}

static void test_itl_hint_finds_the_bucket_of_every_gap(void **state)
{
	struct fs_scenario *sc = load_quickstart();
	struct fs_recorder rec;
	struct fs__hist_hint hint = { 0 };
	struct fs_hist ref;
	uint64_t x = 77;
	fs_ns gap = 20000000, t = sc->sim.warmup_ns;
	size_t i, b;

	(void)state;
	fs__recorder_init(&rec, sc, 0, false, 0, 1);
	fs_hist_init(&ref);
	for (i = 0; i < 200000; i++) {
		double g;

		gap = next_gap(&x, gap, &rec.buckets);
		g = (double)gap;
		assert_int_equal(fs__recorder_itl_bucket(&rec, g, &hint), fs_hist_bucket_of(g));
		assert_true(g >= hint.lo && g < hint.hi);
		fs__recorder_itl(&rec, t, gap, 1 + i % 3, &hint);
		fs_hist_add_n(&ref, g, 1 + i % 3);
	}
	for (b = 0; b < fs_hist_n_buckets(); b++)
		assert_int_equal(rec.result->itl_hist.buckets[b], ref.buckets[b]);
	assert_int_equal(rec.result->itl_hist.n, ref.n);
	fs_hist_fini(&ref);
	fs__recorder_fini(&rec);
	fs_scenario_free(sc);
}

/* Steps of a run: all near one time (one bucket), spread over a few
 * buckets, or with far outliers (2^31 ns and more: recorded step by step
 * inside the run too). */
static void draw_run(uint64_t *x, size_t k, int kind, fs_ns *dur, int64_t *kv, double *flops,
                     double *bytes, struct fs__rec_run_lin *lin)
{
	size_t i;

	lin->flops0 = 1000000 + (int64_t)(fs_test_xorshift64(x) % 1000000);
	lin->flops_step = (int64_t)(fs_test_xorshift64(x) % 5000);
	lin->bytes0 = 5000000 + (int64_t)(fs_test_xorshift64(x) % 1000000);
	lin->bytes_step = (int64_t)(fs_test_xorshift64(x) % 3000);
	for (i = 0; i < k; i++) {
		dur[i] = kind == 0 ? 25000000 + (fs_ns)(fs_test_xorshift64(x) % 50) :
		         kind == 1 ? 20000000 + (fs_ns)(fs_test_xorshift64(x) % 4000000) :
		         1 + (fs_ns)(fs_test_xorshift64(x) % 40000000);
		if (kind == 2 && fs_test_xorshift64(x) % 50 == 0)
			dur[i] = ((fs_ns)1 << 31) + (fs_ns)(fs_test_xorshift64(x) % 1000000000);
		kv[i] = 100 + (int64_t)i / 16 + (int64_t)(fs_test_xorshift64(x) % 3);
		flops[i] = (double)(lin->flops0 + lin->flops_step * (int64_t)i);
		bytes[i] = (double)(lin->bytes0 + lin->bytes_step * (int64_t)i);
	}
}

static void assert_same_recording(const struct fs_recorder *a, const struct fs_recorder *b)
{
	const struct fs_rep_result *ra = a->result, *rb = b->result;
	size_t i, n_bins = ra->queue_len.n_bins;

	for (i = 0; i < fs_hist_n_buckets(); i++)
		assert_int_equal(ra->itl_hist.buckets[i], rb->itl_hist.buckets[i]);
	assert_int_equal(ra->itl_hist.n, rb->itl_hist.n);
	assert_memory_equal(&ra->itl_hist.min, &rb->itl_hist.min, sizeof(double));
	assert_memory_equal(&ra->itl_hist.max, &rb->itl_hist.max, sizeof(double));
	assert_int_equal(a->itl_n, b->itl_n);
	assert_true(a->itl_s1 == b->itl_s1);
	assert_true(a->itl_s2 == b->itl_s2);
	assert_memory_equal(&a->itl_min, &b->itl_min, sizeof(double));
	assert_memory_equal(&a->itl_max, &b->itl_max, sizeof(double));
	assert_true(a->pool_fx[0].flops == b->pool_fx[0].flops);
	assert_true(a->pool_fx[0].bytes == b->pool_fx[0].bytes);
	assert_true(a->pool_fx[0].kv_block_ns == b->pool_fx[0].kv_block_ns);
	assert_true(a->flops_fx == b->flops_fx);
	assert_true(a->bytes_fx == b->bytes_fx);
	for (i = 0; i < n_bins; i++) {
		assert_true(a->bin_fx[2 * i] == b->bin_fx[2 * i]);
		assert_true(a->bin_fx[2 * i + 1] == b->bin_fx[2 * i + 1]);
		assert_int_equal(a->bin_pool_busy_ns[i], b->bin_pool_busy_ns[i]);
		assert_memory_equal(&ra->bin_pool_output_tokens[i], &rb->bin_pool_output_tokens[i],
		                    sizeof(double));
	}
	assert_int_equal(ra->engine.steps, rb->engine.steps);
	assert_int_equal(ra->engine.sum_batch_seqs, rb->engine.sum_batch_seqs);
	assert_int_equal(ra->engine.tokens_generated, rb->engine.tokens_generated);
	assert_memory_equal(&ra->engine.busy_ns, &rb->engine.busy_ns, sizeof(double));
	assert_memory_equal(&ra->fleet.pools[0].output_tokens, &rb->fleet.pools[0].output_tokens,
	                    sizeof(double));
}

static void test_run_recorded_at_once_as_step_by_step(void **state)
{
	static fs_ns dur[MAX_STEPS];
	static int64_t kv[MAX_STEPS];
	static double flops[MAX_STEPS], bytes[MAX_STEPS];
	struct fs_scenario *sc = load_quickstart();
	struct fs_recorder run, one;
	struct fs__hist_hint hint_run = { 0 }, hint_one = { 0 };
	double busy = 0;
	uint64_t x = 4242;
	fs_ns t = sc->sim.warmup_ns - 3000000000;   /* the first runs cross the warm-up */
	int r;

	(void)state;
	fs__recorder_init(&run, sc, 0, false, 0, 1);
	fs__recorder_init(&one, sc, 0, false, 0, 1);
	for (r = 0; r < 3000 && t < sc->sim.horizon_ns; r++) {
		size_t k = 1 + (size_t)(fs_test_xorshift64(&x) % MAX_STEPS), i;
		int64_t n_seqs = 1 + (int64_t)(fs_test_xorshift64(&x) % 64);
		struct fs__rec_run_lin lin;
		struct fs__rec_kv_area area;
		fs_ns s = t;

		draw_run(&x, k, r % 3, dur, kv, flops, bytes, &lin);
		t += fs__recorder_llm_run(&run, 0, t, k, dur, flops, bytes, r % 4 == 3 ? NULL : &lin,
		                          kv, n_seqs, 1e15, 3e12, &hint_run, &busy, &area);
		for (i = 0; i < k; i++) {
			fs__recorder_llm_step(&one, 0, s, s + dur[i], n_seqs, 0, n_seqs, 0, flops[i],
			                      bytes[i], 1e15, 3e12, (double)kv[i] * (double)dur[i]);
			fs__recorder_itl(&one, s + dur[i], dur[i], (uint64_t)n_seqs,
			                 r % 2 == 0 ? &hint_one : NULL);
			s += dur[i];
		}
		assert_int_equal(s, t);
		t += (fs_ns)(fs_test_xorshift64(&x) % 2000000000);    /* idle between runs */
	}
	assert_true(r > 100);
	assert_same_recording(&run, &one);
	fs__recorder_fini(&run);
	fs__recorder_fini(&one);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_itl_hint_finds_the_bucket_of_every_gap),
		cmocka_unit_test(test_run_recorded_at_once_as_step_by_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
