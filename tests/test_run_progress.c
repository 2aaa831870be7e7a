/*
 * test_run_progress.c — a long run's progress (replicate_progress.c): the
 * replications fs_objective_run runs, on any thread count and through a
 * stopping rule's further batches, are all counted done with exactly
 * their horizons simulated (a drain past the horizon adds nothing); the
 * line says what it counts; a run over before the first interval prints
 * nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleetsim/objective.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario_cfg.h"
#include "util_test.h"

#define SERVICE_MEAN_NS (10 * FS_NS_PER_MS)

/* M/M/1 at rho 0.5 over 200 mean services; the queue drains past the
 * horizon (MODEL: E5). */
static void mm1(struct fs_scenario *sc, struct fs_class_cfg *cls)
{
	fs_test_mm1(sc, cls, 50.0, SERVICE_MEAN_NS, 200 * SERVICE_MEAN_NS, 0, 1);
	sc->sim.sample_interval_ns = sc->sim.horizon_ns;
}

/* One replication in ten at 100, the others at 1: the stopping rule keeps
 * adding batches of 10 up to its cap. */
static double skewed_figure(const struct fs_scenario *sc, const struct fs_rep_result *r)
{
	(void)sc;
	return r->replication % 10 == 9 ? 100.0 : 1.0;
}

/* 10 replications planned; the stopping rule runs 40 (four batches), on
 * one and on two threads: 40 done, 40 planned (each batch raised it), and
 * the simulated share exactly 1 — every replication told its horizon,
 * none more. */
static void test_run_progress_counts_every_replication_once(void **state)
{
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	int threads;

	(void)state;
	mm1(&sc, &cls);
	for (threads = 1; threads <= 2; threads++) {
		struct fs_run_opts opts = { 10, 0, threads, 5, false, NULL };
		struct fs_rep_result **res;
		int n = 0, done = -1, planned = -1;
		double simulated = -1;

		opts.progress = fs_run_progress_start("t", 10, sc.sim.horizon_ns, false);
		fs_run_progress_read(opts.progress, &done, &planned, &simulated);
		assert_int_equal(done, 0);
		assert_int_equal(planned, 10);
		assert_true(simulated == 0);
		res = fs_objective_run(&sc, &opts, skewed_figure, 1.0, 40, &n);
		assert_int_equal(n, 40);
		fs_run_progress_read(opts.progress, &done, &planned, &simulated);
		assert_int_equal(done, 40);
		assert_int_equal(planned, 40);
		assert_true(simulated == 1.0);
		fs_run_progress_stop(opts.progress);
		fs_replicate_free(res, n);
	}
}

/* The line: done of planned, the simulated share, the time elapsed and,
 * once the share is past 1% and short of all, the time left at that pace,
 * each span in seconds, minutes or hours as it is long; a buffer too
 * short is cut, never overrun. */
static void test_run_progress_line_text(void **state)
{
	static const struct {
		const char *label;
		int done, planned;
		double simulated, elapsed_s;
		const char *want;
	} cases[] = {
		{ "fleetsim run: base", 3, 16, 0.25, 100.0,
		  "fleetsim run: base: 3 of 16 replications done, 25% of the simulated time, "
		  "100 s elapsed, about 5 min left" },
		{ "fleetsim run", 1, 4, 0.25, 3600.0,
		  "fleetsim run: 1 of 4 replications done, 25% of the simulated time, "
		  "60 min elapsed, about 3.0 h left" },
		{ "fleetsim run", 15, 16, 0.9, 4.0,
		  "fleetsim run: 15 of 16 replications done, 90% of the simulated time, "
		  "4 s elapsed, under a second left" },
		{ "fleetsim run", 0, 1, 0.005, 5.0,
		  "fleetsim run: 0 of 1 replication done, 0% of the simulated time, 5 s elapsed" },
		{ "fleetsim run", 1, 1, 1.0, 12.0,
		  "fleetsim run: 1 of 1 replication done, 100% of the simulated time, "
		  "12 s elapsed" },
	};
	char buf[256], small[16];
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fs_run_progress_line(buf, sizeof buf, cases[i].label, cases[i].done,
		                     cases[i].planned, cases[i].simulated, cases[i].elapsed_s);
		assert_string_equal(buf, cases[i].want);
	}
	memset(small, 'x', sizeof small);
	n = fs_run_progress_line(small, sizeof small, "fleetsim run", 3, 16, 0.25, 100.0);
	assert_true(n >= (int)sizeof small);
	assert_int_equal(strlen(small), sizeof small - 1);
}

/* A run of a few milliseconds, off a terminal, writes nothing to stderr:
 * the first line comes only after 5 s. */
static void test_run_progress_short_run_prints_nothing(void **state)
{
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	struct fs_run_opts opts = { 2, 0, 1, 5, false, NULL };
	struct fs_rep_result **res;
	char *dir = fs_test_tmpdir(), *path = fs_test_path(dir, "stderr.txt"), *text;
	int fd, saved;

	(void)state;
	mm1(&sc, &cls);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	opts.progress = fs_run_progress_start("t", 2, sc.sim.horizon_ns, false);
	res = fs_replicate_run(&sc, &opts);
	fs_run_progress_stop(opts.progress);
	fflush(stderr);
	dup2(saved, 2);
	close(fd);
	close(saved);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	assert_string_equal(text, "");
	free(text);
	free(path);
	fs_replicate_free(res, 2);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_progress_counts_every_replication_once),
		cmocka_unit_test(test_run_progress_line_text),
		cmocka_unit_test(test_run_progress_short_run_prints_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
