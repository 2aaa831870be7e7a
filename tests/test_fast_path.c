/*
 * test_fast_path.c — the fast path (MODEL: V24) against the step-by-step
 * reference: the cached step pricing gives the bits of the plain model, an
 * engine driven in runs reports every iteration as the engine driven step
 * by step, and whole runs of several scenarios (chunked and prefill_first
 * schedulers, static batching, prefix caching with sessions, spot and
 * autoscaling, closed loop, preemptions, iterations ending at the very ns
 * of arrivals, of fleet events and of each other) write the same bytes of
 * summary.json, timeseries.csv and requests.csv with engine.fast_path on
 * and off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/catalog.h"
#include "fleetsim/llm_engine.h"
#include "fleetsim/min_tree.h"
#include "fleetsim/perf.h"
#include "fleetsim/replicate.h"
#include "fleetsim/result.h"
#include "fleetsim/router.h"
#include "fleetsim/scenario.h"
#include "util_test.h"

/* ---- pricing ------------------------------------------------------------ */

static void perf_for(struct fs_perf_cfg *cfg, const char *gpu, const char *model, int tp)
{
	const struct fs_gpu_spec *g = fs_catalog_find_gpu(gpu);
	const struct fs_model_spec *m = fs_catalog_find_model(model);

	assert_non_null(g);
	assert_non_null(m);
	fs_perf_cfg_defaults(cfg, g, m);
	cfg->tp = tp;
}

static void test_fast_path_cached_pricing_gives_the_same_bits(void **state)
{
	static const struct { const char *gpu, *model; int tp; } cases[] = {
		{ "h100", "llama-3.1-8b", 1 }, { "a100-80g", "llama-3.1-8b", 1 },
		{ "l40s", "llama-3.1-8b", 1 }, { "h100", "llama-3.1-70b", 4 },
		{ "h100", "mixtral-8x7b", 2 },
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct fs_perf_cfg cfg;
		struct fs_perf_step_cache *c = malloc(sizeof *c);
		int64_t n, ctx;

		assert_non_null(c);
		perf_for(&cfg, cases[k].gpu, cases[k].model, cases[k].tp);
		fs_perf_step_cache_init(c, &cfg);
		for (n = 1; n <= 300; n += 7) {
			for (ctx = n; ctx < n * 9000; ctx += 997 * n + 13) {
				struct fs_step_shape sh = { 0, 0, n, ctx, n };
				struct fs_step_cost plain, cached;
				double flops, bytes;
				fs_ns d;

				fs_perf_step_cost(&cfg, &sh, &plain);
				fs_perf_step_cost_cached(c, &sh, &cached);
				d = fs_perf_decode_step_cached(c, n, ctx, &flops, &bytes);
				assert_true(plain.total_ns == cached.total_ns);
				assert_true(plain.total_ns == d);
				assert_memory_equal(&plain.flops, &flops, sizeof flops);
				assert_memory_equal(&plain.bytes, &bytes, sizeof bytes);
				assert_memory_equal(&plain, &cached, sizeof plain);
				/* a mixed step: prefill chunk plus the decodes */
				sh.prefill_tokens = 512;
				sh.prefill_attn_tokens = 512 * 300 + 512 * 512 / 2;
				sh.n_seqs = n + 1;
				fs_perf_step_cost(&cfg, &sh, &plain);
				fs_perf_step_cost_cached(c, &sh, &cached);
				assert_memory_equal(&plain, &cached, sizeof plain);
			}
		}
		free(c);
	}
}

/* ---- routing ------------------------------------------------------------ */

/* The least_outstanding tree (a min tree keyed by outstanding requests)
 * picks what the least_outstanding scan picks, through random key changes,
 * for every size from 1 to 70 slots, the tree reused across sizes as the
 * world reuses it; after each change every node is what a tree built afresh
 * from the keys holds. */
static void test_fast_path_route_tree_matches_the_least_outstanding_scan(void **state)
{
	struct fs_route_candidate cand[70];
	struct fs_min_tree t, fresh;
	int64_t keys[70], least;
	uint64_t x = 12345;
	uint32_t pos;
	size_t n, i, step;

	(void)state;
	fs_min_tree_init(&t);
	fs_min_tree_init(&fresh);
	for (n = 70; n >= 1; n -= n > 40 ? 1 : 3) {
		for (i = 0; i < n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			keys[i] = (int64_t)((x >> 33) % 5);
			memset(&cand[i], 0, sizeof cand[i]);
			cand[i].id = (uint32_t)i;
			cand[i].outstanding = (uint64_t)keys[i];
		}
		fs_min_tree_build(&t, keys, n);
		for (step = 0; step < 200; step++) {
			size_t slot;

			assert_true(fs_min_tree_peek(&t, &least, &pos));
			assert_int_equal(pos, fs_router_pick(FS_ROUTER_LEAST_OUTSTANDING, cand, n,
			                                     NULL, NULL));
			assert_int_equal(least, keys[pos]);
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			slot = (size_t)(x >> 33) % n;
			cand[slot].outstanding = (x >> 20) % 6;
			fs_min_tree_set(&t, (uint32_t)slot, (int64_t)cand[slot].outstanding);
			keys[slot] = (int64_t)cand[slot].outstanding;
			fs_min_tree_build(&fresh, keys, n);
			assert_int_equal(fresh.leaves, t.leaves);
			assert_memory_equal(&fresh.win[1], &t.win[1],
			                    (2 * t.leaves - 1) * sizeof t.win[0]);
		}
		if (n == 1)
			break;
	}
	fs_min_tree_fini(&fresh);
	fs_min_tree_fini(&t);
}

/* ---- the engine in runs ------------------------------------------------- */

/* A step time that depends on every part of the shape. */
static fs_ns toy_cost(void *ctx, const struct fs_step_shape *s)
{
	(void)ctx;
	return 1000 + 7 * s->prefill_tokens + s->prefill_attn_tokens / 64 +
	       150 * s->decode_seqs + s->decode_context_tokens / 3 + 20 * s->n_seqs;
}

static struct fs_llm_engine *toy_engine(int64_t kv_blocks, int64_t block_tokens, bool fast,
                                        enum fs_llm_scheduler sched)
{
	struct fs_llm_engine_cfg cfg;
	struct fs_llm_engine *e;

	fs_llm_engine_cfg_default(&cfg);
	cfg.kv_blocks = kv_blocks;
	cfg.block_tokens = block_tokens;
	cfg.max_num_seqs = 16;
	cfg.max_num_batched_tokens = 512;
	cfg.fast_path = fast;
	cfg.scheduler = sched;
	if (sched == FS_LLM_SCHED_PREFILL_FIRST)
		cfg.enable_chunked_prefill = false;
	e = fs_llm_engine_alloc(&cfg, toy_cost, NULL, NULL);
	assert_non_null(e);
	return e;
}

/* The reports of one step worth comparing. */
struct step_rec {
	fs_ns begin_ns, end_ns;
	struct fs_step_shape shape;
	int64_t tokens, regular, kv_used, waiting, running;
	size_t n_first, n_done, n_gaps, n_preempted, n_started;
	uint64_t lists;              /* the slots listed, in order, hashed */
};

/* The report's lists of slots (first tokens, completions, first
 * schedulings) in their order, hashed. */
static uint64_t lists_hash(const struct fs_llm_report *r)
{
	uint64_t h = 14695981039346656037u;
	size_t i;

	for (i = 0; i < r->n_first_token; i++)
		h = (h ^ r->first_token[i]) * 1099511628211u;
	for (i = 0; i < r->n_done; i++)
		h = (h ^ (r->done[i].slot + ((uint64_t)1 << 32))) * 1099511628211u;
	for (i = 0; i < r->n_started; i++)
		h = (h ^ (r->started[i] + ((uint64_t)2 << 32))) * 1099511628211u;
	return h;
}

static void keep(struct step_rec *out, const struct fs_llm_report *r)
{
	memset(out, 0, sizeof *out);
	out->begin_ns = r->begin_ns;
	out->end_ns = r->end_ns;
	out->shape = r->shape;
	out->tokens = r->tokens_generated;
	out->regular = r->itl_regular_seqs;
	out->kv_used = r->kv_used_blocks;
	out->waiting = r->waiting;
	out->running = r->running;
	out->n_first = r->n_first_token;
	out->n_done = r->n_done;
	out->n_gaps = r->n_itl_gaps;
	out->n_preempted = r->n_preempted;
	out->n_started = r->n_started;
	out->lists = lists_hash(r);
}

static void add_requests(struct fs_llm_engine *e, uint32_t first, int n)
{
	for (int i = 0; i < n; i++) {
		uint32_t slot = first + (uint32_t)i;

		assert_int_equal(fs_llm_engine_add(e, slot, 40 + 37 * (slot % 11),
		                                   5 + 23 * (slot % 7), 0, slot),
		                 FS_LLM_ACCEPTED);
	}
}

/* Requests that arrive while `e` steps: the i-th at at_ns[i], added before
 * the end of the step that ends at or after it (as the world adds them). */
struct arrivals {
	const fs_ns *at_ns;
	size_t n, next;
	uint32_t slot;
};

static void arrive(struct fs_llm_engine *e, struct arrivals *a, fs_ns t)
{
	while (a->next < a->n && a->at_ns[a->next] <= t) {
		add_requests(e, a->slot++, 1);
		a->next++;
	}
}

/* The counts of each fast-path call that took a step. */
struct taken {
	size_t run_steps, continued, begun, admitted, joined, rejoined, cont_admitted;
};

/* Drive `e` until idle and every arrival came, step by step or (fast) in
 * runs of at most 50 planned steps at a time, cut after the step in flight
 * when a request arrives, opened with their step 0 where the engine can
 * (fs_llm_engine_begin_run), carried on past completions where it can
 * (fs_llm_engine_run_continue), through a step with the admissions where
 * it can (fs_llm_engine_run_admit) and on with them after it
 * (fs_llm_engine_run_join), or on with them through the next admission
 * (fs_llm_engine_run_join_admit), and past a completion into an admission
 * (fs_llm_engine_run_continue_admit); returns the steps recorded into recs. */
static size_t drive(struct fs_llm_engine *e, bool fast, struct step_rec *recs,
                    size_t cap, struct arrivals *a, struct taken *tk)
{
	fs_ns t = 0, durs[64];
	size_t n = 0;
	struct fs_llm_report r;

	for (;;) {
		fs_ns d = -1;
		bool open = fast && fs_llm_engine_begin_run(e, t, &d);
		struct fs_step_shape sh;

		if (open) {
			tk->begun++;
			assert_int_equal(fs_llm_engine_run_planned(e), 1);
		} else {
			d = fs_llm_engine_begin_step(e, t);
			if (d < 0 && a->next < a->n) {      /* idle until the next */
				if (t < a->at_ns[a->next])
					t = a->at_ns[a->next];
				arrive(e, a, t);
				continue;
			}
			if (d < 0)
				break;
			open = fast && fs_llm_engine_run_open(e);
		}
		durs[0] = d;
		for (;;) {
			size_t k = 1, j;
			fs_ns end = t + durs[0];

			if (open && a->next == a->n) {
				/* nothing left to arrive: the steps planned at once */
				int64_t ctx, seqs = fs_llm_engine_run_batch(e);
				size_t m = fs_llm_engine_run_plan_n(e, 49, &ctx);

				memset(&sh, 0, sizeof sh);
				sh.decode_seqs = sh.n_seqs = seqs;
				for (j = 0; j < m; j++, k++) {
					sh.decode_context_tokens = ctx + seqs * (int64_t)j;
					durs[k] = toy_cost(NULL, &sh);
				}
			}
			while (open && k < 50 && (a->next == a->n || end < a->at_ns[a->next]) &&
			       fs_llm_engine_run_plan(e, &sh)) {
				durs[k] = toy_cost(NULL, &sh);
				end += durs[k++];
			}
			for (j = 0; j + 1 < k; j++) {
				t += durs[j];
				fs_llm_engine_run_advance(e, t, durs[j + 1], &r);
				assert_true(n < cap);
				keep(&recs[n++], &r);
				tk->run_steps++;
				assert_int_equal(fs_llm_engine_kv_check(e), 0);
			}
			t += durs[k - 1];
			arrive(e, a, t);
			if (open && fs_llm_engine_run_continue(e, t, &r, &durs[0])) {
				assert_true(n < cap);
				keep(&recs[n++], &r);
				assert_true(r.n_done > 0);
				tk->continued++;
				assert_int_equal(fs_llm_engine_kv_check(e), 0);
				continue;
			}
			if (open && fs_llm_engine_run_continue_admit(e, t, &r, &durs[0])) {
				assert_true(n < cap);
				keep(&recs[n++], &r);
				assert_true(r.n_done > 0);
				tk->cont_admitted++;
				assert_int_equal(fs_llm_engine_kv_check(e), 0);
				assert_false(fs_llm_engine_run_open(e));   /* it prefills */
				open = false;
				continue;
			}
			if (open && fs_llm_engine_run_admit(e, t, &r, &durs[0])) {
				assert_true(n < cap);
				keep(&recs[n++], &r);
				assert_int_equal(r.n_done, 0);
				tk->admitted++;
				assert_int_equal(fs_llm_engine_kv_check(e), 0);
				/* the step prefills: no run opens on it */
				assert_false(fs_llm_engine_run_open(e));
				open = false;
				continue;
			}
			if (!open && fast && fs_llm_engine_run_join(e, t, &r, &durs[0])) {
				assert_true(n < cap);
				keep(&recs[n++], &r);
				assert_true(r.n_first_token > 0);
				assert_int_equal(r.n_done, 0);
				tk->joined++;
				assert_int_equal(fs_llm_engine_kv_check(e), 0);
				open = true;
				continue;
			}
			if (!open && fast && fs_llm_engine_run_join_admit(e, t, &r, &durs[0])) {
				assert_true(n < cap);
				keep(&recs[n++], &r);
				assert_int_equal(r.n_done, 0);
				tk->rejoined++;
				assert_int_equal(fs_llm_engine_kv_check(e), 0);
				assert_false(fs_llm_engine_run_open(e));   /* it prefills */
				continue;
			}
			fs_llm_engine_end_step(e, t, &r);
			assert_true(n < cap);
			keep(&recs[n++], &r);
			assert_int_equal(fs_llm_engine_kv_check(e), 0);
			break;
		}
	}
	return n;
}

/* 40 requests at once, or 6 and then 80 more arriving one by one; the
 * reference and the fast path must report every step alike and end with
 * the same statistics, the fast path having taken each of its shortcuts
 * at least the given number of times. */
static void engine_runs_match(int64_t kv_blocks, int64_t block_tokens,
                              enum fs_llm_scheduler sched, bool arriving,
                              const struct taken *min)
{
	size_t cap = 20000, n_ref, n_fast, i;
	struct taken ref_tk = { 0 }, fast_tk = { 0 };
	struct step_rec *ref = calloc(cap, sizeof *ref), *fast = calloc(cap, sizeof *fast);
	struct fs_llm_engine *a = toy_engine(kv_blocks, block_tokens, false, sched);
	struct fs_llm_engine *b = toy_engine(kv_blocks, block_tokens, true, sched);
	fs_ns at_ns[80];
	int first = arriving ? 6 : 40;
	struct arrivals arr_a = { at_ns, arriving ? 80 : 0, 0, (uint32_t)first };
	struct arrivals arr_b = arr_a;

	for (i = 0; i < 80; i++)
		at_ns[i] = 20000 + (fs_ns)i * 37000 + 9000 * (fs_ns)(i % 5);
	add_requests(a, 0, first);
	add_requests(b, 0, first);
	n_ref = drive(a, false, ref, cap, &arr_a, &ref_tk);
	n_fast = drive(b, true, fast, cap, &arr_b, &fast_tk);
	assert_int_equal(n_ref, n_fast);
	for (i = 0; i < n_ref; i++)
		assert_memory_equal(&ref[i], &fast[i], sizeof ref[i]);
	assert_int_equal(ref_tk.run_steps + ref_tk.continued + ref_tk.begun + ref_tk.admitted +
	                 ref_tk.joined + ref_tk.rejoined + ref_tk.cont_admitted, 0);
	fprintf(stderr, "  %zu steps, %zu in runs, %zu runs carried past a completion, "
	        "%zu opened with their first step, %zu through an admission, %zu on after "
	        "it, %zu into the next admission, %zu past a completion into one\n", n_ref,
	        fast_tk.run_steps, fast_tk.continued, fast_tk.begun, fast_tk.admitted,
	        fast_tk.joined, fast_tk.rejoined, fast_tk.cont_admitted);
	assert_true(fast_tk.run_steps > n_ref / 3);       /* most steps went in runs */
	assert_true(fast_tk.continued >= min->continued); /* and on past completions */
	assert_true(fast_tk.begun >= min->begun);         /* opened with their step 0 */
	assert_true(fast_tk.admitted >= min->admitted);   /* went through an admission */
	assert_true(fast_tk.joined >= min->joined);       /* and on after it */
	assert_true(fast_tk.rejoined >= min->rejoined);   /* or into the next one */
	assert_true(fast_tk.cont_admitted >= min->cont_admitted); /* or from a completion */
	assert_int_equal(fs_llm_engine_stats(a)->completed, (uint64_t)first + arr_a.n);
	assert_memory_equal(fs_llm_engine_stats(a), fs_llm_engine_stats(b),
	                    sizeof *fs_llm_engine_stats(a));
	fs_llm_engine_free(a);
	fs_llm_engine_free(b);
	free(ref);
	free(fast);
}

static void test_fast_path_engine_runs_report_every_step_as_the_reference(void **state)
{
	/* 40 at once: more than a batch, so the rest wait and are admitted
	 * as requests finish; prefill_first never admits through a run */
	static const struct taken at_once = { 0, 10, 0, 0, 0, 10, 10 },
	                          prefill_first = { 0, 10, 1, 0, 0, 0, 0 },
	                          arriving = { 0, 10, 5, 20, 1, 5, 1 };

	(void)state;
	engine_runs_match(400, 16, FS_LLM_SCHED_CHUNKED, false, &at_once);
	engine_runs_match(400, 16, FS_LLM_SCHED_PREFILL_FIRST, false, &prefill_first);
	engine_runs_match(400, 16, FS_LLM_SCHED_CHUNKED, true, &arriving);
}

static void test_fast_path_engine_runs_stop_before_a_preemption(void **state)
{
	static const struct taken none = { 0, 0, 0, 0, 0, 0, 0 };

	(void)state;
	/* 40 blocks of 16 tokens: the batch outgrows them and preempts */
	engine_runs_match(40, 16, FS_LLM_SCHED_CHUNKED, false, &none);
	engine_runs_match(40, 16, FS_LLM_SCHED_CHUNKED, true, &none);
}

/* A block size that is not a power of two (the engine takes any; a
 * scenario only 8, 16 or 32): the residues wrap by division, plenty of
 * blocks and few enough to preempt. */
static void test_fast_path_engine_runs_with_blocks_of_12_tokens(void **state)
{
	static const struct taken at_once = { 0, 10, 0, 0, 0, 10, 10 },
	                          arriving = { 0, 10, 5, 20, 1, 5, 1 };
	static const struct taken none = { 0, 0, 0, 0, 0, 0, 0 };

	(void)state;
	engine_runs_match(540, 12, FS_LLM_SCHED_CHUNKED, false, &at_once);
	engine_runs_match(540, 12, FS_LLM_SCHED_CHUNKED, true, &arriving);
	engine_runs_match(54, 12, FS_LLM_SCHED_CHUNKED, false, &none);
	engine_runs_match(54, 12, FS_LLM_SCHED_CHUNKED, true, &none);
}

/* ---- whole runs: fast and reference write the same bytes ---------------- */

static char *write_scenario(const char *dir, const char *name, const char *text)
{
	size_t len = strlen(dir) + strlen(name) + 8;
	char *path = malloc(len);

	assert_non_null(path);
	snprintf(path, len, strstr(name, "step_table") != NULL ? "%s/%s.csv" : "%s/%s.json",
	         dir, name);
	fs_test_write_file(path, text);
	return path;
}

static char *file_in(const char *dir, const char *sub, const char *file)
{
	size_t len = strlen(dir) + strlen(sub) + strlen(file) + 3;
	char *path = malloc(len);

	assert_non_null(path);
	snprintf(path, len, "%s/%s/%s", dir, sub, file);
	return path;
}

/* Iterations replication 0 of `text` recorded inside runs (it must be
 * most of them: the fast path is really taken). */
static void runs_taken(const char *text)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_text(text, strlen(text), "t.json", "tests/data", &err);
	struct fs_run_opts opts;
	struct fs_rep_result **res;

	if (sc == NULL)
		fs_error_print(&err);
	assert_non_null(sc);
	memset(&opts, 0, sizeof opts);
	opts.replications = 1;
	opts.threads = 1;
	opts.seed = sc->sim.seed;
	res = fs_replicate_run(sc, &opts);
	assert_non_null(res);
	assert_true(res[0]->run_steps > 0);
	assert_true(res[0]->run_steps < res[0]->events);
	fprintf(stderr, "  %llu of %llu events were iterations inside runs\n",
	        (unsigned long long)res[0]->run_steps, (unsigned long long)res[0]->events);
	fs_replicate_free(res, 1);
	fs_scenario_free(sc);
}

/* Copy tests/data/`name` into dir where the scenario text names it. */
static void copy_named_data(const char *dir, const char *text, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 16;
	char *from = malloc(len), *to = malloc(len), *data;

	assert_non_null(from);
	assert_non_null(to);
	if (strstr(text, name) != NULL) {
		snprintf(from, len, "tests/data/%s", name);
		snprintf(to, len, "%s/%s", dir, name);
		data = fs_test_read_file(from, NULL);
		assert_non_null(data);
		fs_test_write_file(to, data);
		free(data);
	}
	free(from);
	free(to);
}

/* Run `text` with the fast path on and off and compare the three output
 * files byte for byte; requests.csv must contain `must_contain` (may be
 * NULL); with `runs`, replication 0 must record iterations inside runs
 * (runs_taken).  The step tables and traces of tests/data it names are
 * copied next to it. */
static void same_bytes_with(const char *name, const char *text, const char *must_contain,
                            bool runs)
{
	static const char *const files[] = { "summary.json", "timeseries.csv",
	                                      "requests.csv" };
	char *dir = fs_test_tmpdir();
	char *path = write_scenario(dir, name, text);
	size_t len = strlen(dir) + 8;
	char *out_fast = malloc(len), *out_ref = malloc(len);
	size_t k;

	copy_named_data(dir, text, "step_table_small.csv");
	copy_named_data(dir, text, "step_table_flat.csv");
	copy_named_data(dir, text, "trace_ms_ties.csv");

	snprintf(out_fast, len, "%s/fast", dir);
	snprintf(out_ref, len, "%s/ref", dir);
	{
		const char *args_fast[] = { "run", path, "-o", out_fast, "-q", "-j", "2",
		                            "--requests-csv", NULL };
		const char *args_ref[] = { "run", path, "-o", out_ref, "-q", "-j", "2",
		                           "--requests-csv", "--set",
		                           "engine.fast_path=false", NULL };
		struct fs_test_run r1 = fs_test_run_fleetsim(args_fast);
		struct fs_test_run r2 = fs_test_run_fleetsim(args_ref);

		if (r1.exit_code != 0 || r2.exit_code != 0)
			fprintf(stderr, "%s: %s\n%s\n", name, r1.err, r2.err);
		assert_int_equal(r1.exit_code, 0);
		assert_int_equal(r2.exit_code, 0);
		fs_test_run_free(&r1);
		fs_test_run_free(&r2);
	}
	for (k = 0; k < sizeof files / sizeof files[0]; k++) {
		char *pa = file_in(dir, "fast", files[k]), *pb = file_in(dir, "ref", files[k]);
		size_t la = 0, lb = 0;
		char *a = fs_test_read_file(pa, &la), *b = fs_test_read_file(pb, &lb);

		assert_non_null(a);
		assert_non_null(b);
		if (la != lb || memcmp(a, b, la) != 0)
			fprintf(stderr, "%s: %s differs with the fast path\n", name, files[k]);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
		if (k == 2 && must_contain != NULL)
			assert_non_null(strstr(a, must_contain));
		free(a);
		free(b);
		free(pa);
		free(pb);
	}
	free(out_fast);
	free(out_ref);
	free(path);
	fs_test_tmpdir_free(dir);
	if (runs)
		runs_taken(text);
}

static void same_bytes(const char *name, const char *text)
{
	same_bytes_with(name, text, NULL, true);
}

#define CHAT_CLASS(extra) \
	"{\"name\": \"chat\", " extra \
	" \"prompt_tokens\": {\"dist\": \"lognormal\", \"median\": 500, \"sigma\": 0.8, \"max\": 6000}," \
	" \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 150, \"sigma\": 0.8, \"max\": 1500}," \
	" \"slo\": {\"ttft\": \"1s\", \"tpot\": \"50ms\"}}"

static void test_fast_path_same_bytes_fleet_spot_autoscaling(void **state)
{
	(void)state;
	same_bytes("fleet",
	           "{\"name\": \"fleet\", \"simulation\": {\"horizon\": \"20m\", \"warmup\": \"2m\","
	           " \"replications\": 2, \"seed\": 3},"
	           " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 12},"
	           "  \"classes\": [" CHAT_CLASS("\"share\": 1,") "]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\"},"
	           " \"fleet\": {\"router\": \"least_outstanding\", \"strategy\": \"relaunch\","
	           "  \"zones\": [{\"name\": \"a\"}, {\"name\": \"b\"}],"
	           "  \"pools\": [{\"name\": \"od\", \"gpu\": \"h100\", \"count\": 1, \"min\": 1, \"max\": 4},"
	           "   {\"name\": \"sa\", \"gpu\": \"a100-80g\", \"pricing\": \"spot\", \"count\": 2,"
	           "    \"spot\": {\"zone_reclaims_per_day\": 100, \"zone_outage\": \"2m\","
	           "     \"notice\": \"30s\", \"in_flight\": \"requeue\"}},"
	           "   {\"name\": \"sl\", \"gpu\": \"l40s\", \"pricing\": \"spot\", \"count\": 2,"
	           "    \"spot\": {\"interruption_rate_per_month\": 0.99, \"notice\": \"20s\","
	           "     \"in_flight\": \"drain\"}}],"
	           "  \"autoscale\": {\"pool\": \"od\", \"metric\": \"kv_use\", \"target\": 0.05,"
	           "   \"interval\": \"10s\"}}}\n");
}

static void test_fast_path_same_bytes_prefill_first_and_static(void **state)
{
	(void)state;
	same_bytes("prefill_first",
	           "{\"name\": \"pf\", \"simulation\": {\"horizon\": \"15m\", \"warmup\": \"1m\","
	           " \"replications\": 2, \"seed\": 4},"
	           " \"workload\": {\"arrivals\": {\"process\": \"gamma\", \"rate_per_s\": 6, \"cv\": 2},"
	           "  \"classes\": [" CHAT_CLASS("\"share\": 1,") "]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\","
	           "  \"replicas\": 2, \"scheduler\": \"prefill_first\"}}\n");
	same_bytes("table",
	           "{\"name\": \"table\", \"simulation\": {\"horizon\": \"10m\", \"warmup\": \"1m\","
	           " \"replications\": 2, \"seed\": 8},"
	           " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 3},"
	           "  \"classes\": [" CHAT_CLASS("\"share\": 1,") "]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\","
	           "  \"replicas\": 2, \"step_table\": \"step_table_small.csv\"}}\n");
	same_bytes("static",
	           "{\"name\": \"static\", \"simulation\": {\"horizon\": \"15m\", \"warmup\": \"1m\","
	           " \"replications\": 2, \"seed\": 5},"
	           " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 4},"
	           "  \"classes\": [" CHAT_CLASS("\"share\": 1,") "]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"a100-80g\","
	           "  \"replicas\": 2, \"batching\": \"static\", \"max_num_seqs\": 16}}\n");
}

/* MODEL: E2 — a trace on a millisecond grid and steps of exactly 5 ms: an
 * iteration ends at the very ns of many arrivals, of autoscaler ticks and
 * spot notices, and of other instances' iterations; every other event of
 * that ns comes first, iterations in instance order, on either path. */
static void test_fast_path_same_bytes_at_exact_ties(void **state)
{
	(void)state;
	same_bytes("ties",
	           "{\"name\": \"ties\", \"simulation\": {\"horizon\": \"20s\","
	           " \"replications\": 2, \"seed\": 2},"
	           " \"workload\": {\"arrivals\": {\"process\": \"trace\","
	           "  \"trace\": {\"path\": \"trace_ms_ties.csv\", \"format\": \"azure\"}},"
	           "  \"classes\": [{\"name\": \"c\", \"share\": 1}]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\","
	           "  \"step_table\": \"step_table_flat.csv\"},"
	           " \"fleet\": {\"router\": \"least_kv\","
	           "  \"pools\": [{\"name\": \"od\", \"gpu\": \"l40s\", \"count\": 1, \"min\": 1,"
	           "    \"max\": 4},"
	           "   {\"name\": \"sp\", \"gpu\": \"l40s\", \"pricing\": \"spot\", \"count\": 2,"
	           "    \"spot\": {\"interruption_rate_per_month\": 0.99, \"notice\": \"2s\","
	           "     \"in_flight\": \"requeue\"}}],"
	           "  \"autoscale\": {\"pool\": \"od\", \"metric\": \"kv_use\", \"target\": 0.05,"
	           "   \"interval\": \"1s\"}}}\n");
	same_bytes("ties_lo",
	           "{\"name\": \"ties_lo\", \"simulation\": {\"horizon\": \"20s\","
	           " \"replications\": 1, \"seed\": 2},"
	           " \"workload\": {\"arrivals\": {\"process\": \"trace\","
	           "  \"trace\": {\"path\": \"trace_ms_ties.csv\", \"format\": \"azure\"}},"
	           "  \"classes\": [{\"name\": \"c\", \"share\": 1}]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\","
	           "  \"replicas\": 3, \"step_table\": \"step_table_flat.csv\"}}\n");
}

/* Sessions with prefix caching on: a decoder whose new tokens could still
 * be cached is run step by step (MODEL V24), so here runs are rare by
 * design (0 to 30 of about 87,000 events in replication 0 of seeds 1-10)
 * and not required (under the earlier MT19937 streams seed 6, this
 * scenario's, gave 5); the bytes must match all the same. */
static void test_fast_path_same_bytes_sessions_with_prefix_caching(void **state)
{
	(void)state;
	same_bytes_with("sessions",
	           "{\"name\": \"sessions\", \"simulation\": {\"horizon\": \"15m\", \"warmup\": \"1m\","
	           " \"replications\": 2, \"seed\": 6},"
	           " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1.5},"
	           "  \"classes\": [" CHAT_CLASS("\"share\": 1, \"session\": {\"turns\": {\"dist\": \"uniform\","
	           "   \"min\": 1, \"max\": 6}, \"think\": {\"dist\": \"exponential\", \"mean\": \"5s\"}},")
	           "]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\"},"
	           " \"fleet\": {\"router\": \"prefix\", \"pools\": [{\"name\": \"p\", \"gpu\": \"l40s\","
	           "  \"count\": 3}]}}\n", ",1\n", false);   /* requests.csv: a second turn */
}

static void test_fast_path_same_bytes_closed_loop_preemptions_least_kv(void **state)
{
	(void)state;
	/* few KV blocks: requests are preempted and re-prefilled */
	same_bytes("closed",
	           "{\"name\": \"closed\", \"simulation\": {\"horizon\": \"10m\", \"warmup\": \"1m\","
	           " \"replications\": 2, \"seed\": 7},"
	           " \"workload\": {\"classes\": [" CHAT_CLASS("\"users\": 48, \"think\": "
	           "   {\"dist\": \"exponential\", \"mean\": \"2s\"},") "]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"kv_blocks\": 600,"
	           "  \"policy\": \"fcfs\"},"
	           " \"fleet\": {\"router\": \"least_kv\", \"pools\": [{\"name\": \"p\", \"gpu\": \"h100\","
	           "  \"count\": 2}]}}\n");
}

/* Arrivals that cut runs where admission is gated every way: priority
 * classes, a small sequence cap and token budget, prompts split over steps
 * by a long-prefill threshold, and few KV blocks (runs stop before a
 * preemption, and admissions fail the KV gate). */
static void test_fast_path_same_bytes_priority_small_budget_and_kv(void **state)
{
	(void)state;
	same_bytes("gated",
	           "{\"name\": \"gated\", \"simulation\": {\"horizon\": \"10m\", \"warmup\": \"1m\","
	           " \"replications\": 2, \"seed\": 11},"
	           " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 9},"
	           "  \"classes\": [" CHAT_CLASS("\"share\": 2, \"priority\": 0,") ","
	           "   {\"name\": \"batch\", \"share\": 1, \"priority\": 5,"
	           "    \"prompt_tokens\": {\"dist\": \"uniform\", \"min\": 200, \"max\": 2000},"
	           "    \"output_tokens\": {\"dist\": \"uniform\", \"min\": 20, \"max\": 400}}]},"
	           " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"kv_blocks\": 700,"
	           "  \"policy\": \"priority\", \"max_num_seqs\": 12, \"max_num_batched_tokens\": 1024,"
	           "  \"long_prefill_token_threshold\": 384},"
	           " \"fleet\": {\"router\": \"least_outstanding\", \"pools\": [{\"name\": \"p\","
	           "  \"gpu\": \"l40s\", \"count\": 3}]}}\n");
}

/* More requests than FS__ROWS_IN_MEMORY (65,536): the rows go to the
 * temporary file, and requests.csv still has every request once, in id
 * order, with the session columns. */
static void test_fast_path_requests_csv_streams_past_the_in_memory_rows(void **state)
{
	static const char text[] =
		"{\"name\": \"many\", \"simulation\": {\"horizon\": \"20m\", \"warmup\": \"0s\","
		" \"replications\": 1, \"seed\": 9},"
		" \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 80},"
		"  \"classes\": [{\"name\": \"q\", \"share\": 1,"
		"   \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 100},"
		"   \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}]},"
		" \"engine\": {\"type\": \"queue\", \"servers\": 2,"
		"  \"service\": {\"dist\": \"exponential\", \"mean\": \"20ms\"}}}\n";
	char *dir = fs_test_tmpdir();
	char *path = write_scenario(dir, "many", text);
	char *csv_path = file_in(dir, "out", "requests.csv");
	size_t len = strlen(dir) + 8, lines = 0, expect_id = 0;
	char *out = malloc(len), *csv, *p;
	struct fs_test_run r;

	(void)state;
	snprintf(out, len, "%s/out", dir);
	{
		const char *args[] = { "run", path, "-o", out, "-q", "--requests-csv", NULL };

		r = fs_test_run_fleetsim(args);
	}
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	csv = fs_test_read_file(csv_path, NULL);
	assert_non_null(csv);
	assert_true(strncmp(csv, "id,class,status,counted,arrival_s,prompt_tokens,"
	                    "output_tokens,queue_ms,ttft_ms,e2e_ms,session_id,turn\n", 102) == 0);
	for (p = strchr(csv, '\n') + 1; *p != '\0'; p = strchr(p, '\n') + 1) {
		assert_int_equal(strtoull(p, NULL, 10), expect_id);
		expect_id++;
		lines++;
	}
	assert_true(lines > 90000);              /* ~80/s for 20 minutes */
	free(csv);
	free(csv_path);
	free(out);
	free(path);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_path_cached_pricing_gives_the_same_bits),
		cmocka_unit_test(test_fast_path_route_tree_matches_the_least_outstanding_scan),
		cmocka_unit_test(test_fast_path_engine_runs_report_every_step_as_the_reference),
		cmocka_unit_test(test_fast_path_engine_runs_stop_before_a_preemption),
		cmocka_unit_test(test_fast_path_engine_runs_with_blocks_of_12_tokens),
		cmocka_unit_test(test_fast_path_same_bytes_fleet_spot_autoscaling),
		cmocka_unit_test(test_fast_path_same_bytes_prefill_first_and_static),
		cmocka_unit_test(test_fast_path_same_bytes_priority_small_budget_and_kv),
		cmocka_unit_test(test_fast_path_same_bytes_at_exact_ties),
		cmocka_unit_test(test_fast_path_same_bytes_sessions_with_prefix_caching),
		cmocka_unit_test(test_fast_path_same_bytes_closed_loop_preemptions_least_kv),
		cmocka_unit_test(test_fast_path_requests_csv_streams_past_the_in_memory_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
