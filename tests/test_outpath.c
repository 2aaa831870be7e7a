/*
 * test_outpath.c — output paths checked before any work (exit 2 naming the
 * path, nothing written), a run's files moved into place together (nothing
 * left by a failing variants run), SIGINT/SIGTERM removing temporaries with
 * exit 130/143 (in-process, and a real sweep killed and resumed to the same
 * bytes).  Runs ./fleetsim; needs no tool but it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleetsim/common.h"
#include "fleetsim/outfile.h"
#include "fleetsim/scenario.h"
#include "util_test.h"

#define MINIMAL "tests/data/scenario_minimal.json"
#define SWEEP "tests/data/sweep_small.json"

/* Entries under dir (recursively) whose name holds ".tmp.". */
static int count_temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char *p;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		p = fs_test_path(dir, e->d_name);
		if (strstr(e->d_name, ".tmp.") != NULL)
			n++;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			n += count_temporaries(p);
		free(p);
	}
	closedir(d);
	return n;
}

/* Entries in dir, not counting . and .. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* Run fleetsim with args; expect exit 2 and every `needle` in stderr. */
static void expect_refused(const char *const *args, const char *needle1,
                           const char *needle2)
{
	struct fs_test_run r = fs_test_run_fleetsim(args);

	if (r.exit_code != 2 || strstr(r.err, needle1) == NULL ||
	    (needle2 != NULL && strstr(r.err, needle2) == NULL))
		print_error("exit %d, stderr: %s\n", r.exit_code, r.err);
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, needle1));
	if (needle2 != NULL)
		assert_non_null(strstr(r.err, needle2));
	assert_string_equal(r.out, "");
	fs_test_run_free(&r);
}

static void test_outpath_run_empty_output_is_refused(void **state)
{
	const char *args[] = { "run", MINIMAL, "-r", "1", "-o", "", "-q", NULL };

	(void)state;
	expect_refused(args, "output: \"\": expected an output directory",
	               "empty name");
	assert_false(fs_test_exists(NULL, "/summary.json"));
	assert_false(fs_test_exists(NULL, "/timeseries.csv"));
}

static void test_outpath_run_output_that_is_a_file_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), *file = fs_test_path(dir, "taken");
	const char *args[] = { "run", MINIMAL, "-r", "1", "-o", file, "-q", NULL };
	FILE *f = fopen(file, "w");

	(void)state;
	fputs("keep me\n", f);
	fclose(f);
	expect_refused(args, file, "found a file at");
	assert_int_equal(count_entries(dir), 1);
	fs_test_tmpdir_free(dir);
	free(file);
}

static void test_outpath_run_output_below_a_file_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), *file = fs_test_path(dir, "taken");
	char *below = fs_test_path(file, "sub/deeper");
	const char *args[] = { "run", MINIMAL, "-r", "1", "-o", below, "-q", NULL };
	FILE *f = fopen(file, "w");

	(void)state;
	fclose(f);
	expect_refused(args, below, "found a file at");
	assert_int_equal(count_entries(dir), 1);
	fs_test_tmpdir_free(dir);
	free(file);
	free(below);
}

static void test_outpath_run_output_that_cannot_be_created_is_refused(void **state)
{
	/* /proc takes no new entries, not even for root. */
	const char *args[] = { "run", MINIMAL, "-r", "1", "-o", "/proc/fleetsim-out/x",
	                       "-q", NULL };

	(void)state;
	expect_refused(args, "/proc/fleetsim-out/x", "files cannot be created in \"/proc\"");
	assert_false(fs_test_exists(NULL, "/proc/fleetsim-out"));
}

static void test_outpath_run_output_file_that_is_a_directory_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), *sub = fs_test_path(dir, "latency_cdf.csv");
	const char *args[] = { "run", MINIMAL, "-r", "1", "-o", dir, "-q", NULL };

	(void)state;
	mkdir(sub, 0777);
	expect_refused(args, sub, "found a directory of that name");
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(count_entries(sub), 0);
	fs_test_tmpdir_free(dir);
	free(sub);
}

static void test_outpath_requests_csv_that_is_a_directory_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), *sub = fs_test_path(dir, "requests.csv");
	const char *args[] = { "run", MINIMAL, "-r", "1", "-o", dir, "-q",
	                       "--requests-csv", NULL };
	const char *without[] = { "run", MINIMAL, "-r", "1", "-o", dir, "-q", NULL };

	(void)state;
	mkdir(sub, 0777);
	expect_refused(args, sub, "found a directory of that name");
	assert_int_equal(count_entries(dir), 1);
	/* Without --requests-csv that name is not an output. */
	fs_test_fleetsim_ok(without);
	assert_int_equal(count_temporaries(dir), 0);
	fs_test_tmpdir_free(dir);
	free(sub);
}

static void test_outpath_run_success_leaves_no_temporaries(void **state)
{
	char *dir = fs_test_tmpdir(), *out = fs_test_path(dir, "new/deep");
	const char *args[] = { "run", MINIMAL, "-r", "2", "-o", out, "-q",
	                       "--requests-csv", NULL };

	(void)state;
	fs_test_fleetsim_ok(args);
	/* The five files and nothing else: the staging area is gone. */
	assert_int_equal(count_entries(out), 5);
	assert_int_equal(count_temporaries(dir), 0);
	fs_test_tmpdir_free(dir);
	free(out);
}

/* A run without --requests-csv into the directory of one with it: the
 * earlier requests.csv would sit beside a summary it does not belong to;
 * the run removes it with its commit. */
static void test_outpath_run_removes_an_earlier_requests_csv(void **state)
{
	char *dir = fs_test_tmpdir(), *out = fs_test_path(dir, "d");
	const char *with[] = { "run", MINIMAL, "-r", "2", "-o", out, "-q", "--requests-csv",
	                       "--seed", "1", NULL };
	const char *without[] = { "run", MINIMAL, "-r", "2", "-o", out, "-q", "--seed", "2",
	                          NULL };

	(void)state;
	fs_test_fleetsim_ok(with);
	assert_true(fs_test_exists(out, "requests.csv"));
	fs_test_fleetsim_ok(without);
	assert_false(fs_test_exists(out, "requests.csv"));
	assert_int_equal(count_entries(out), 4);
	assert_int_equal(count_temporaries(dir), 0);
	fs_test_tmpdir_free(dir);
	free(out);
}

/* Each command refuses a directory that holds another command's output
 * (exit 2 naming it, nothing written): a run into a sweep's directory
 * would have replaced its scenario.json, and `fleetsim report` would have
 * shown the sweep. */
static void test_outpath_other_commands_output_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), *run = fs_test_path(dir, "run");
	char *sw = fs_test_path(dir, "sw"), *marker = fs_test_path(sw, "sweep.json");
	const char *run_args[] = { "run", MINIMAL, "-r", "1", "-o", run, "-q", NULL };
	const char *into_sweep[] = { "run", MINIMAL, "-r", "1", "-o", sw, "-q", NULL };
	const char *sweep_into_run[] = { "sweep", SWEEP, "-r", "1", "-o", run, "-q", NULL };

	(void)state;
	fs_test_fleetsim_ok(run_args);
	assert_int_equal(mkdir(sw, 0755), 0);
	fs_test_write_file(marker, "{}\n");
	expect_refused(into_sweep, "found the output of fleetsim sweep (sweep.json)",
	               "choose another -o");
	assert_int_equal(count_entries(sw), 1);
	expect_refused(sweep_into_run, "found the output of fleetsim run (summary.json)",
	               "choose another -o");
	assert_int_equal(count_entries(run), 4);
	fs_test_fleetsim_ok(run_args);                /* its own: fine */
	fs_test_tmpdir_free(dir);
	free(run);
	free(sw);
	free(marker);
}

static void test_outpath_failing_variants_run_leaves_nothing(void **state)
{
	/* scenario_fleet.json's third variant sets a count of -1: the base and
	 * two variants run, then the run stops with exit 2. */
	char *dir = fs_test_tmpdir(), *out = fs_test_path(dir, "v");
	const char *args[] = { "run", "tests/data/scenario_fleet.json", "-r", "1", "-j", "1",
	                       "-o", out, "-q", "--set", "simulation.horizon=\"20m\"",
	                       NULL };
	struct fs_test_run r;

	(void)state;
	r = fs_test_run_fleetsim(args);
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "fleet.pools[0].count"));
	fs_test_run_free(&r);
	assert_false(fs_test_exists(NULL, out));
	assert_int_equal(count_entries(dir), 0);
	fs_test_tmpdir_free(dir);
	free(out);
}

static void test_outpath_failing_variants_run_keeps_older_outputs(void **state)
{
	char *dir = fs_test_tmpdir(), *old = fs_test_path(dir, "comparison.csv");
	const char *args[] = { "run", "tests/data/scenario_fleet.json", "-r", "1", "-j", "1",
	                       "-o", dir, "-q", "--set", "simulation.horizon=\"20m\"",
	                       NULL };
	struct fs_test_run r;
	FILE *f = fopen(old, "w");
	char *text;

	(void)state;
	fputs("older\n", f);
	fclose(f);
	r = fs_test_run_fleetsim(args);
	assert_int_equal(r.exit_code, 2);
	fs_test_run_free(&r);
	text = fs_test_read_file(old, NULL);
	assert_string_equal(text, "older\n");
	assert_int_equal(count_entries(dir), 1);
	free(text);
	fs_test_tmpdir_free(dir);
	free(old);
}

static void test_outpath_sweep_output_that_is_a_file_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), *file = fs_test_path(dir, "taken");
	const char *args[] = { "sweep", SWEEP, "-o", file, "-q", NULL };
	FILE *f = fopen(file, "w");

	(void)state;
	fclose(f);
	expect_refused(args, file, "found a file at");
	assert_int_equal(count_entries(dir), 1);
	fs_test_tmpdir_free(dir);
	free(file);
}

static void test_outpath_sweep_points_that_is_a_file_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), *points = fs_test_path(dir, "points");
	const char *args[] = { "sweep", SWEEP, "-o", dir, "-q", NULL };
	FILE *f = fopen(points, "w");

	(void)state;
	fclose(f);
	expect_refused(args, points, "found a file at");
	assert_int_equal(count_entries(dir), 1);
	fs_test_tmpdir_free(dir);
	free(points);
}

/* A point's record is written over points/N.json: a directory there is
 * refused before any point runs (it failed with exit 1 after the run). */
static void test_outpath_sweep_record_that_is_a_directory_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), *points = fs_test_path(dir, "points");
	char *rec = fs_test_path(points, "1.json");
	const char *args[] = { "sweep", SWEEP, "-o", dir, "-q", "--resume", NULL };

	(void)state;
	assert_int_equal(mkdir(points, 0755), 0);
	assert_int_equal(mkdir(rec, 0755), 0);
	expect_refused(args, rec, "found a directory");
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(count_entries(points), 1);
	fs_test_tmpdir_free(dir);
	free(rec);
	free(points);
}

static void test_outpath_sweep_empty_output_is_refused(void **state)
{
	const char *args[] = { "sweep", SWEEP, "-o", "", "-q", NULL };

	(void)state;
	expect_refused(args, "\"\": expected an output directory", NULL);
	assert_false(fs_test_exists(NULL, "/points"));
	assert_false(fs_test_exists(NULL, "/sweep.csv"));
}

static void test_outpath_report_plots_that_is_a_file_is_refused(void **state)
{
	/* Checked before gnuplot is looked for: no gnuplot needed. */
	char *dir = fs_test_tmpdir(), *plots = fs_test_path(dir, "plots");
	const char *args[] = { "report", dir, "-q", NULL };
	const char *empty[] = { "report", "", "-q", NULL };
	FILE *f = fopen(plots, "w");

	(void)state;
	fclose(f);
	expect_refused(args, plots, "found a file at");
	expect_refused(empty, "DIR: expected an output directory", "empty name");
	assert_int_equal(count_entries(dir), 1);
	fs_test_tmpdir_free(dir);
	free(plots);
}

/* In a child: a temporary open (and a staged set with one file) when the
 * signal comes.  The child must exit 128 + sig and leave nothing. */
static void signal_child(const char *dir, int sig)
{
	pid_t pid = fork();
	int status = 0;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct fs_outfile o;
		struct fs_outset set;
		struct fs_error err;
		char *target = fs_test_path(dir, "a.json"), *sub = fs_test_path(dir, "set");

		fs_outfile_install_signals();
		if (fs_outfile_open(&o, target, &err) != 0)
			_exit(3);
		fputs("{\"half\": ", o.f);
		fflush(o.f);
		if (fs_outset_begin(&set, sub, &err) != 0)
			_exit(4);
		if (fs_outfile_write(fs_outset_path(&set, "b.csv"), "x\n", 2, &err) != 0)
			_exit(5);
		fs_outset_path(&set, "c.csv");   /* registered, never written */
		raise(sig);
		_exit(6);                        /* not reached */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 128 + sig);
}

static void test_outpath_sigterm_removes_temporaries_and_exits_143(void **state)
{
	char *dir = fs_test_tmpdir(), *sub = fs_test_path(dir, "set");

	(void)state;
	signal_child(dir, SIGTERM);
	assert_int_equal(count_temporaries(dir), 0);
	/* Nothing: no a.json, and the set's directory, which the set made,
	 * is gone with its staged files (an interrupted run leaves no empty
	 * output directory). */
	assert_int_equal(count_entries(dir), 0);
	/* A directory that was there before the set stays, empty. */
	assert_int_equal(mkdir(sub, 0755), 0);
	signal_child(dir, SIGTERM);
	assert_int_equal(count_temporaries(dir), 0);
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(count_entries(sub), 0);
	fs_test_tmpdir_free(dir);
	free(sub);
}

static void test_outpath_sigint_removes_temporaries_and_exits_130(void **state)
{
	char *dir = fs_test_tmpdir(), *a = fs_test_path(dir, "a.json");

	(void)state;
	signal_child(dir, SIGINT);
	assert_int_equal(count_temporaries(dir), 0);
	assert_false(fs_test_exists(NULL, a));
	fs_test_tmpdir_free(dir);
	free(a);
}

/* In a child: the sets of a variants run, out/ and out/base/, out/v/ inside
 * it, all made by the command, each with a staged file, when the signal
 * comes.  The child must exit 128 + sig. */
static void signal_nested_child(const char *out, int sig)
{
	pid_t pid = fork();
	int status = 0;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct fs_outset sets[3];
		struct fs_error err;
		char *base = fs_test_path(out, "base"), *v = fs_test_path(out, "v");

		fs_outfile_install_signals();
		if (fs_outset_begin(&sets[0], out, &err) != 0 ||
		    fs_outset_begin(&sets[1], base, &err) != 0 ||
		    fs_outset_begin(&sets[2], v, &err) != 0)
			_exit(3);
		for (int k = 0; k < 3; k++)
			if (fs_outfile_write(fs_outset_path(&sets[k], "a.csv"), "x\n", 2, &err))
				_exit(4);
		raise(sig);
		_exit(6);                        /* not reached */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 128 + sig);
}

/* An interrupted variants run leaves no empty output directory: the
 * directories it made nest three deep (DIR, DIR/base, its staging
 * directory), and each goes once what it held is gone. */
static void test_outpath_signal_removes_nested_directories_it_made(void **state)
{
	char *dir = fs_test_tmpdir(), *out = fs_test_path(dir, "out");

	(void)state;
	signal_nested_child(out, SIGINT);
	assert_int_equal(count_entries(dir), 0);
	fs_test_tmpdir_free(dir);
	free(out);
}

static pid_t spawn_fleetsim(const char *const *args)
{
	const char *bin = getenv("FLEETSIM_BIN");
	const char *argv[16];
	size_t i;
	pid_t pid;

	argv[0] = bin != NULL ? bin : "./fleetsim";
	for (i = 0; args[i] != NULL && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	if (pid == 0) {
		execv(argv[0], fs_unconst(argv));   /* exec never writes argv */
		_exit(127);
	}
	return pid;
}

/* SIGINT into a sweep whose first point is still running (100,000
 * replications: it never ends first): exit 130, and the directories it
 * made, DIR and DIR/points, hold nothing, so they are gone. */
static void test_outpath_sweep_sigint_before_a_point_leaves_no_directory(void **state)
{
	char *dir = fs_test_tmpdir(), *out = fs_test_path(dir, "out");
	char *points = fs_test_path(out, "points");
	const char *args[] = { "sweep", SWEEP, "-j", "1", "-r", "100000", "-o", out, "-q",
	                       NULL };
	struct timespec delay = { 0, 20 * 1000 * 1000 };
	pid_t pid;
	int status = 0, i;

	(void)state;
	pid = spawn_fleetsim(args);
	assert_true(pid > 0);
	for (i = 0; i < 3000 && !fs_test_exists(NULL, points); i++)
		nanosleep(&delay, NULL);
	assert_true(fs_test_exists(NULL, points));
	kill(pid, SIGINT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 130);
	assert_int_equal(count_entries(dir), 0);
	fs_test_tmpdir_free(dir);
	free(points);
	free(out);
}

/* SIGTERM into a running sweep: exit 143, no *.tmp.* left, finished
 * points kept; --resume then ends with the bytes of an uninterrupted run. */
static void test_outpath_sweep_sigterm_then_resume_gives_same_bytes(void **state)
{
	static const char *const files[] = { "sweep.csv", "sweep.json", "pareto.csv",
	                                      "best.json", "sweep_cdf.csv" };
	char *dir = fs_test_tmpdir(), *ref = fs_test_tmpdir();
	const char *args[] = { "sweep", SWEEP, "-j", "1", "-o", dir, "-q", NULL };
	const char *resume[] = { "sweep", SWEEP, "-j", "1", "-o", dir, "-q", "--resume",
	                         NULL };
	const char *full[] = { "sweep", SWEEP, "-j", "1", "-o", ref, "-q", NULL };
	struct timespec delay = { 0, 300 * 1000 * 1000 };
	pid_t pid;
	int status = 0;
	size_t i;

	(void)state;
	pid = spawn_fleetsim(args);
	assert_true(pid > 0);
	nanosleep(&delay, NULL);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	/* The whole sweep takes well over a second on one thread. */
	assert_int_equal(WEXITSTATUS(status), 143);
	assert_int_equal(count_temporaries(dir), 0);
	{
		char *sweep_csv = fs_test_path(dir, "sweep.csv");

		assert_false(fs_test_exists(NULL, sweep_csv));
		free(sweep_csv);
	}
	fs_test_fleetsim_ok(resume);
	fs_test_fleetsim_ok(full);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *p1 = fs_test_path(dir, files[i]), *p2 = fs_test_path(ref, files[i]);
		char *t1 = fs_test_read_file(p1, NULL), *t2 = fs_test_read_file(p2, NULL);

		assert_non_null(t1);
		assert_non_null(t2);
		assert_string_equal(t1, t2);
		free(t1);
		free(t2);
		free(p1);
		free(p2);
	}
	assert_int_equal(count_temporaries(dir), 0);
	fs_test_tmpdir_free(dir);
	fs_test_tmpdir_free(ref);
}

/* A resolved scenario that cannot be written says why, as every other
 * output file does: a file-size limit (EFBIG, standing in for a full disk)
 * made it "cannot write the resolved scenario" with no reason.  Nothing is
 * left behind. */
static void test_outpath_scenario_write_failure_names_the_reason(void **state)
{
	char *dir = fs_test_tmpdir();
	char *path = fs_test_path(dir, "scenario.json");
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load("scenarios/quickstart.json", &err);
	struct rlimit old, small;
	void (*was)(int);
	int rc;

	(void)state;
	assert_non_null(sc);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 64;             /* the scenario's text is far longer */
	was = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	rc = fs_scenario_write(sc, path, &err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, was);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.msg, strerror(EFBIG)));
	assert_int_equal(count_entries(dir), 0);
	fs_scenario_free(sc);
	free(path);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outpath_run_empty_output_is_refused),
		cmocka_unit_test(test_outpath_run_output_that_is_a_file_is_refused),
		cmocka_unit_test(test_outpath_run_output_below_a_file_is_refused),
		cmocka_unit_test(test_outpath_run_output_that_cannot_be_created_is_refused),
		cmocka_unit_test(test_outpath_run_output_file_that_is_a_directory_is_refused),
		cmocka_unit_test(test_outpath_requests_csv_that_is_a_directory_is_refused),
		cmocka_unit_test(test_outpath_run_success_leaves_no_temporaries),
		cmocka_unit_test(test_outpath_run_removes_an_earlier_requests_csv),
		cmocka_unit_test(test_outpath_other_commands_output_is_refused),
		cmocka_unit_test(test_outpath_failing_variants_run_leaves_nothing),
		cmocka_unit_test(test_outpath_failing_variants_run_keeps_older_outputs),
		cmocka_unit_test(test_outpath_sweep_output_that_is_a_file_is_refused),
		cmocka_unit_test(test_outpath_sweep_points_that_is_a_file_is_refused),
		cmocka_unit_test(test_outpath_sweep_record_that_is_a_directory_is_refused),
		cmocka_unit_test(test_outpath_sweep_empty_output_is_refused),
		cmocka_unit_test(test_outpath_report_plots_that_is_a_file_is_refused),
		cmocka_unit_test(test_outpath_sigterm_removes_temporaries_and_exits_143),
		cmocka_unit_test(test_outpath_sigint_removes_temporaries_and_exits_130),
		cmocka_unit_test(test_outpath_signal_removes_nested_directories_it_made),
		cmocka_unit_test(test_outpath_sweep_sigterm_then_resume_gives_same_bytes),
		cmocka_unit_test(test_outpath_sweep_sigint_before_a_point_leaves_no_directory),
		cmocka_unit_test(test_outpath_scenario_write_failure_names_the_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
