/*
 * test_workload.c — the workload as the world drives it: trace replay with
 * time_scale, rate_scale, looping and start offsets (exact times), lengths
 * from trace rows or sampled, class shares of a shared process, sources with
 * their own arrivals, request ids, and determinism across seeds and
 * replications.  Fixed seeds; share tolerances are 5 binomial SEs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/trace.h"
#include "fleetsim/workload.h"
#include "util_test.h"

#define S FS_NS_PER_S
#define MAX_REQ 200000

/* Drive all sources like the world does: always take the earliest pending
 * arrival (ties: lower source index).  Returns the number of requests. */
static size_t drive(struct fs_workload *w, struct fs_request *out, size_t max)
{
	size_t n_src = fs_workload_n_sources(w), n = 0;
	fs_ns next[8];

	assert_true(n_src <= 8);
	for (size_t s = 0; s < n_src; s++)
		next[s] = fs_workload_first(w, s);
	for (;;) {
		size_t best = 0;

		for (size_t s = 1; s < n_src; s++)
			if (next[s] < next[best])
				best = s;
		if (n_src == 0 || next[best] == FS_NS_MAX)
			return n;
		assert_true(n < max);
		next[best] = fs_workload_take(w, best, next[best], &out[n]);
		assert_int_equal(out[n].id, n);
		n++;
	}
}

static struct fs_trace *small_trace(void)
{
	struct fs_error err = {0};
	struct fs_trace *t = fs_trace_load("tests/data/traces/mooncake_small.jsonl", NULL,
	                                   FS_TRACE_MOONCAKE, &err);

	assert_non_null(t);
	/* rows at 0, 1.2005 s, 1.5 s; loop gap 0.75 s, so the period is 2.25 s */
	assert_int_equal(t->loop_gap_ns, 750000000);
	return t;
}

struct trace_setup {
	struct fs_class_cfg cls;
	struct fs_workload_cfg wl;
	struct fs_sim_cfg sim;
};

static void trace_setup_init(struct trace_setup *s, struct fs_trace *t, double time_scale,
                             double rate_scale, bool loop, fs_ns offset_ns, fs_ns horizon_ns)
{
	*s = (struct trace_setup){0};
	static char name[] = "t";

	s->cls.name = name;
	s->cls.share = 1.0;
	s->cls.prompt.kind = FS_LENGTH_TRACE;
	s->cls.output.kind = FS_LENGTH_TRACE;
	s->wl.has_shared_arrivals = true;
	s->wl.arrivals.kind = FS_ARRIVAL_TRACE;
	s->wl.arrivals.trace = (struct fs_trace_cfg){.trace = t, .time_scale = time_scale,
	                                             .rate_scale = rate_scale, .loop = loop,
	                                             .start_offset_ns = offset_ns};
	s->wl.classes = &s->cls;
	s->wl.n_classes = 1;
	s->sim.horizon_ns = horizon_ns;
}

static void test_workload_trace_replay_scaled_and_looped(void **state)
{
	static const fs_ns expect[8] = {0, 600250000, 750000000, 1125000000,
	                                1725250000, 1875000000, 2250000000, 2850250000};
	static const int64_t prompt[3] = {6758, 20, 10}, output[3] = {500, 7, 3};
	struct fs_trace *t = small_trace();
	struct fs_request req[16];
	struct trace_setup s;
	struct fs_workload *w;
	size_t n;

	(void)state;
	/* times x 2 / 4 = x 0.5: period 1.125 s; 3.0 s itself is not before the horizon */
	trace_setup_init(&s, t, 2.0, 4.0, true, 0, 3 * S);
	assert_near(fs_arrival_rate_at(&s.wl.arrivals, &s.sim, 0), 3.0 / 1.125, 1e-12, 0);
	w = fs_workload_alloc(&s.wl, &s.sim, 1, 0);
	n = drive(w, req, 16);
	assert_int_equal(n, 8);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(req[i].arrival_ns, expect[i]);
		assert_int_equal(req[i].prompt_tokens, prompt[i % 3]);
		assert_int_equal(req[i].output_tokens, output[i % 3]);
		assert_int_equal(req[i].class_idx, 0);
	}
	fs_workload_free(w);

	/* no loop: the three rows once */
	trace_setup_init(&s, t, 2.0, 4.0, false, 0, 3 * S);
	w = fs_workload_alloc(&s.wl, &s.sim, 1, 0);
	assert_int_equal(drive(w, req, 16), 3);
	fs_workload_free(w);
	fs_trace_free(t);
}

static void test_workload_trace_start_offset(void **state)
{
	static const fs_ns expect[5] = {0, 750000000, 1950500000, 2250000000, 3000000000};
	struct fs_trace *t = small_trace();
	struct fs_request req[16];
	struct trace_setup s;
	struct fs_workload *w;
	size_t n;

	(void)state;
	/* skip trace time before 1.3 s: the row at 1.5 s arrives at 0, then the
	 * next loop starts 0.75 s later */
	trace_setup_init(&s, t, 1.0, 1.0, true, 1300 * FS_NS_PER_MS, 3100 * FS_NS_PER_MS);
	w = fs_workload_alloc(&s.wl, &s.sim, 1, 0);
	n = drive(w, req, 16);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(req[i].arrival_ns, expect[i]);
	assert_int_equal(req[0].prompt_tokens, 10);
	fs_workload_free(w);

	/* without looping only that one row remains; past the end, none */
	trace_setup_init(&s, t, 1.0, 1.0, false, 1300 * FS_NS_PER_MS, 100 * S);
	w = fs_workload_alloc(&s.wl, &s.sim, 1, 0);
	assert_int_equal(drive(w, req, 16), 1);
	fs_workload_free(w);
	trace_setup_init(&s, t, 1.0, 1.0, false, 2 * S, 100 * S);
	w = fs_workload_alloc(&s.wl, &s.sim, 1, 0);
	assert_int_equal(drive(w, req, 16), 0);
	fs_workload_free(w);
	fs_trace_free(t);
}

static void test_workload_trace_with_sampled_prompt(void **state)
{
	struct fs_trace *t = small_trace();
	struct fs_request req[16];
	struct trace_setup s;
	struct fs_workload *w;

	(void)state;
	trace_setup_init(&s, t, 1.0, 1.0, false, 0, 100 * S);
	s.cls.prompt = (struct fs_length_cfg){.kind = FS_LENGTH_FIXED, .fixed_tokens = 33};
	s.cls.output.max_tokens = 100;      /* trace lengths are clamped too */
	w = fs_workload_alloc(&s.wl, &s.sim, 1, 0);
	assert_int_equal(drive(w, req, 16), 3);
	assert_int_equal(req[0].prompt_tokens, 33);
	assert_int_equal(req[0].output_tokens, 100);
	assert_int_equal(req[1].output_tokens, 7);
	fs_workload_free(w);
	fs_trace_free(t);
}

/* Three shared classes (shares 1, 2, 0) and one with its own Gamma process. */
struct mix_setup {
	struct fs_class_cfg cls[4];
	struct fs_workload_cfg wl;
	struct fs_sim_cfg sim;
};

static void mix_setup_init(struct mix_setup *s)
{
	static const double shares[4] = {1.0, 2.0, 0.0, 5.0};

	*s = (struct mix_setup){0};
	for (int c = 0; c < 4; c++) {
		static char name[] = "c";

		s->cls[c].name = name;
		s->cls[c].share = shares[c];
		s->cls[c].prompt = (struct fs_length_cfg){.kind = FS_LENGTH_LOGNORMAL,
		                                          .median_tokens = 200, .sigma = 1,
		                                          .min_tokens = 1, .max_tokens = 8000};
		s->cls[c].output = (struct fs_length_cfg){.kind = FS_LENGTH_UNIFORM,
		                                          .min_tokens = 1, .max_tokens = 500};
	}
	s->cls[3].own_arrivals = true;         /* excluded from the shared mix */
	s->cls[3].arrivals = (struct fs_arrival_cfg){.kind = FS_ARRIVAL_GAMMA,
	                                             .rate_per_s = 1.0, .cv = 2.0};
	s->wl.has_shared_arrivals = true;
	s->wl.arrivals = (struct fs_arrival_cfg){.kind = FS_ARRIVAL_POISSON, .rate_per_s = 10.0};
	s->wl.classes = s->cls;
	s->wl.n_classes = 4;
	s->sim.horizon_ns = 3000 * S;
}

static void test_workload_shares_split_shared_arrivals(void **state)
{
	struct mix_setup s;
	struct fs_request *req = malloc(MAX_REQ * sizeof *req);
	struct fs_workload *w;
	long count[4] = {0};
	long shared = 0;
	double p0 = 1.0 / 3.0, p1 = 2.0 / 3.0;
	size_t n;

	(void)state;
	mix_setup_init(&s);
	w = fs_workload_alloc(&s.wl, &s.sim, 99, 0);
	assert_int_equal(fs_workload_n_sources(w), 2);
	n = drive(w, req, MAX_REQ);
	for (size_t i = 0; i < n; i++)
		count[req[i].class_idx]++;
	shared = count[0] + count[1] + count[2];
	assert_int_equal(count[2], 0);                       /* share 0 */
	assert_near((double)count[0] / shared, p0, 5.0 * sqrt(p0 * (1 - p0) / shared), 0);
	assert_near((double)count[1] / shared, p1, 5.0 * sqrt(p1 * (1 - p1) / shared), 0);
	/* own Gamma process at 1/s: count variance ~ cv^2 x mean */
	assert_near((double)count[3], 3000.0, 5.0 * 2.0 * sqrt(3000.0), 0);
	fs_workload_free(w);
	free(req);
}

/* The requests of replication `rep` of seed `seed` of s's workload into
 * out (at most MAX_REQ); returns how many. */
static size_t generate(const struct mix_setup *s, uint64_t seed, uint64_t rep,
                       struct fs_request *out)
{
	struct fs_workload *w = fs_workload_alloc(&s->wl, &s->sim, seed, rep);
	size_t n = drive(w, out, MAX_REQ);

	fs_workload_free(w);
	return n;
}

static void test_workload_same_seed_same_sequence(void **state)
{
	struct mix_setup s;
	struct fs_request *a = malloc(MAX_REQ * sizeof *a), *b = malloc(MAX_REQ * sizeof *b);
	size_t na, nb, same = 0;

	(void)state;
	mix_setup_init(&s);
	na = generate(&s, 5, 3, a);
	nb = generate(&s, 5, 3, b);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {      /* field by field: padding may differ */
		assert_int_equal(a[i].id, b[i].id);
		assert_int_equal(a[i].class_idx, b[i].class_idx);
		assert_int_equal(a[i].arrival_ns, b[i].arrival_ns);
		assert_int_equal(a[i].prompt_tokens, b[i].prompt_tokens);
		assert_int_equal(a[i].output_tokens, b[i].output_tokens);
	}

	/* another replication of the same seed: a different sequence */
	nb = generate(&s, 5, 4, b);
	for (size_t i = 0; i < na && i < nb; i++)
		same += a[i].arrival_ns == b[i].arrival_ns;
	assert_true(same < 10);
	free(a);
	free(b);
}

/* A class's lengths do not depend on other classes' draws: removing the own
 * process leaves the shared classes' arrival times unchanged (common random
 * numbers across configurations). */
static void test_workload_streams_are_independent(void **state)
{
	struct mix_setup s;
	struct fs_request *a = malloc(MAX_REQ * sizeof *a), *b = malloc(MAX_REQ * sizeof *b);
	size_t na, nb, k = 0;

	(void)state;
	mix_setup_init(&s);
	na = generate(&s, 8, 0, a);
	s.wl.n_classes = 3;                    /* drop the own-arrival class */
	nb = generate(&s, 8, 0, b);
	for (size_t i = 0; i < na; i++) {
		if (a[i].class_idx == 3)
			continue;
		assert_true(k < nb);
		assert_int_equal(a[i].arrival_ns, b[k].arrival_ns);
		assert_int_equal(a[i].class_idx, b[k].class_idx);
		k++;
	}
	assert_int_equal(k, nb);
	free(a);
	free(b);
}

static void test_workload_shared_without_classes_is_silent(void **state)
{
	struct mix_setup s;
	struct fs_request req[256];
	struct fs_workload *w;

	(void)state;
	mix_setup_init(&s);
	for (int c = 0; c < 3; c++)
		s.cls[c].share = 0.0;
	s.sim.horizon_ns = 2 * S;
	w = fs_workload_alloc(&s.wl, &s.sim, 1, 0);
	assert_int_equal(fs_workload_first(w, 0), FS_NS_MAX);
	fs_workload_free(w);
	/* no shared process at all: one source, the own class's */
	s.wl.has_shared_arrivals = false;
	s.cls[3].arrivals.rate_per_s = 2.0;
	w = fs_workload_alloc(&s.wl, &s.sim, 1, 0);
	assert_int_equal(fs_workload_n_sources(w), 1);
	assert_true(drive(w, req, 256) > 0);
	assert_int_equal(req[0].class_idx, 3);
	fs_workload_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workload_trace_replay_scaled_and_looped),
		cmocka_unit_test(test_workload_trace_start_offset),
		cmocka_unit_test(test_workload_trace_with_sampled_prompt),
		cmocka_unit_test(test_workload_shares_split_shared_arrivals),
		cmocka_unit_test(test_workload_same_seed_same_sequence),
		cmocka_unit_test(test_workload_streams_are_independent),
		cmocka_unit_test(test_workload_shared_without_classes_is_silent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
