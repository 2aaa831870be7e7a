/*
 * test_sweep.c — `fleetsim sweep` end to end on tests/data/sweep_small.json:
 * the four outputs exist and agree with each other; sweep.csv is the same
 * bytes for -j 1 and -j 2 (and for mpirun -np 2 with the MPI build, when
 * mpirun and ./fleetsim-mpi exist — skipped with a message otherwise); a sweep
 * killed mid-way and resumed ends with the same bytes as an uninterrupted
 * one; an edit of the scenario file while the sweep runs changes no point;
 * search mode evaluates fewer points and finds the same best point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleetsim/common.h"
#include "util_test.h"

#define SCENARIO "tests/data/sweep_small.json"

extern char **environ;

static void sweep(const char *dir, const char *threads, const char *extra)
{
	const char *args[] = { "sweep", SCENARIO, "-o", dir, "-q", "-j", threads, extra, NULL };

	fs_test_fleetsim_ok(args);
}

/* The files every sweep writes. */
static const char *const OUTPUTS[] = { "sweep.csv", "sweep.json", "pareto.csv", "best.json", NULL };

static void assert_same_outputs(const char *a, const char *b)
{
	fs_test_assert_same_files(a, b, OUTPUTS);
}

static void test_sweep_writes_four_consistent_outputs(void **state)
{
	char *dir = fs_test_tmpdir();
	char *csv, *best, *pareto;
	size_t lines = 0;
	const char *p;
	cJSON *root;
	const cJSON *label;

	(void)state;
	sweep(dir, "2", NULL);
	csv = fs_test_read_out(dir, "sweep.csv");
	best = fs_test_read_out(dir, "best.json");
	pareto = fs_test_read_out(dir, "pareto.csv");
	for (p = csv; *p != '\0'; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1 + 8);                 /* header + 2 x 4 points */
	assert_has(best, "\"p_slo_met\"", "\"why\"");
	/* One L40S cannot hold 10 req/s within a 2 s TTFT p99; the cheapest
	 * feasible point is two spot instances, proven at 5 of 5 (Wilson lower
	 * end 0.566 >= 0.5), and no point is left undecided. */
	root = cJSON_Parse(best);
	assert_non_null(root);
	label = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "best"),
	                                         "label");
	assert_true(cJSON_IsString(label));
	assert_string_equal(label->valuestring,
	                    "fleet.pools[0].pricing=\"spot\",fleet.pools[0].count=2");
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(root, "points_undecided")->valuedouble,
	                 0);
	cJSON_Delete(root);
	assert_true(strncmp(pareto, "point,label,feasible,objective", 30) == 0);
	free(csv);
	free(best);
	free(pareto);
	fs_test_tmpdir_free(dir);
}

static void test_sweep_is_identical_for_1_and_2_threads(void **state)
{
	char *d1 = fs_test_tmpdir(), *d2 = fs_test_tmpdir();

	(void)state;
	sweep(d1, "1", NULL);
	sweep(d2, "2", NULL);
	assert_same_outputs(d1, d2);
	fs_test_tmpdir_free(d1);
	fs_test_tmpdir_free(d2);
}

static int count_records(const char *dir)
{
	char *points = fs_test_path(dir, "points");
	DIR *d = opendir(points);
	struct dirent *e;
	int n = 0;

	free(points);
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".json") != NULL && strstr(e->d_name, ".tmp") == NULL;
	closedir(d);
	return n;
}

/* Kill a sweep (SIGKILL) once it has stored some points, resume it, and
 * compare with an uninterrupted sweep; then drop two records of a finished
 * sweep and resume again. */
static void test_sweep_resumes_after_a_kill_with_the_same_bytes(void **state)
{
	char *full = fs_test_tmpdir(), *cut = fs_test_tmpdir();
	const char *bin = getenv("FLEETSIM_BIN");
	const char *argv[] = { NULL, "sweep", SCENARIO, "-o", cut, "-q", "-j", "1", NULL };
	char *rec;
	pid_t pid;
	int status, tries;

	(void)state;
	sweep(full, "2", NULL);
	argv[0] = bin != NULL && bin[0] != '\0' ? bin : "./fleetsim";
	/* posix_spawn never writes the strings of argv */
	assert_int_equal(posix_spawn(&pid, argv[0], NULL, NULL, fs_unconst(argv),
	                             environ), 0);
	for (tries = 0; tries < 2000 && count_records(cut) < 2; tries++) {
		struct timespec ts = { 0, 5000000 };

		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	print_message("killed after %d stored points\n", count_records(cut));
	sweep(cut, "2", "--resume");
	assert_same_outputs(full, cut);

	rec = fs_test_path(cut, "points/3.json");
	assert_int_equal(unlink(rec), 0);
	free(rec);
	rec = fs_test_path(cut, "points/6.json");
	assert_int_equal(unlink(rec), 0);
	free(rec);
	sweep(cut, "1", "--resume");
	assert_same_outputs(full, cut);
	fs_test_tmpdir_free(full);
	fs_test_tmpdir_free(cut);
}

/* The scenario file edited while a sweep runs (its first point stored, a
 * rate doubled): every point still runs on the bytes the sweep read, which
 * scenario_input.json keeps and sweep.json's sha256 names, so the outputs
 * are those of a sweep of the unedited file (they mixed both, and a later
 * --resume on the unedited file reused points of the edited one). */
static void test_sweep_runs_every_point_on_the_file_as_read(void **state)
{
	char *full = fs_test_tmpdir(), *work = fs_test_tmpdir();
	char *scen = fs_test_path(work, "s.json"), *out = fs_test_path(work, "out");
	char *text = fs_test_read_file(SCENARIO, NULL), *edited, *p, *kept;
	const char *bin = getenv("FLEETSIM_BIN");
	const char *argv[] = { NULL, "sweep", scen, "-o", out, "-q", "-j", "1", "-r", "20",
	                       NULL };
	const char *ref[] = { "sweep", SCENARIO, "-o", full, "-q", "-r", "20", NULL };
	pid_t pid;
	int status = 0, tries;

	(void)state;
	assert_non_null(text);
	edited = strdup(text);
	assert_non_null(edited);
	p = strstr(edited, "\"rate_per_s\": 10");
	assert_non_null(p);
	p[sizeof "\"rate_per_s\": " - 1] = '2';
	fs_test_write_file(scen, text);
	fs_test_fleetsim_ok(ref);
	argv[0] = bin != NULL && bin[0] != '\0' ? bin : "./fleetsim";
	/* posix_spawn never writes the strings of argv */
	assert_int_equal(posix_spawn(&pid, argv[0], NULL, NULL, fs_unconst(argv),
	                             environ), 0);
	for (tries = 0; tries < 4000 && count_records(out) < 1; tries++) {
		struct timespec ts = { 0, 5000000 };

		nanosleep(&ts, NULL);
	}
	fs_test_write_file(scen, edited);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_same_outputs(full, out);
	kept = fs_test_read_out(out, "scenario_input.json");
	assert_string_equal(kept, text);
	free(kept);
	free(edited);
	free(text);
	free(scen);
	free(out);
	fs_test_tmpdir_free(full);
	fs_test_tmpdir_free(work);
}

/* A sweep of one replication a point has no interval of its objective (a
 * sweep without "objective" minimises the total cost, whose interval needs
 * two replications): the table, the recommendation and best.json's "why"
 * give the value alone, never "nan" (they printed "0.2 ± nan" and
 * "[nan, nan]"). */
static void test_sweep_of_one_replication_prints_no_nan(void **state)
{
	char *work = fs_test_tmpdir();
	char *scen = fs_test_path(work, "s.json"), *out = fs_test_path(work, "out");
	char *text = fs_test_read_file(SCENARIO, NULL), *cut, *best;
	const char *args[] = { "sweep", scen, "-o", out, "-r", "1", "-j", "1", NULL };
	struct fs_test_run r;

	(void)state;
	assert_non_null(text);
	cut = strstr(text, ",\n  \"objective\"");
	assert_non_null(cut);
	strcpy(cut, "\n}\n");
	fs_test_write_file(scen, text);
	r = fs_test_fleetsim_expect(args, 0);
	assert_has(r.out, "recommended: point 4, pricing=spot count=1: total_cost 0.131667 USD,");
	assert_null(strstr(r.out, "nan"));
	best = fs_test_read_out(out, "best.json");
	assert_has(best, "total_cost 0.1317 (no interval) with P(SLO met)");
	assert_null(strstr(best, "nan"));
	free(best);
	fs_test_run_free(&r);
	free(text);
	free(scen);
	free(out);
	fs_test_tmpdir_free(work);
}

static void test_sweep_search_evaluates_fewer_points_for_the_same_best(void **state)
{
	char *grid = fs_test_tmpdir(), *search = fs_test_tmpdir();
	const char *args[] = { "sweep", "tests/data/sweep_small_search.json", "-o", search,
	                       "-q", NULL };
	char *b1, *b2, *l1, *l2;

	(void)state;
	sweep(grid, "2", NULL);
	fs_test_fleetsim_ok(args);
	b1 = fs_test_read_out(grid, "best.json");
	b2 = fs_test_read_out(search, "best.json");
	assert_non_null(strstr(b2, "\"points_evaluated\":\t4"));
	l1 = strstr(b1, "\"label\"");
	l2 = strstr(b2, "\"label\"");
	assert_non_null(l1);
	assert_non_null(l2);
	assert_true(strncmp(l1, l2, strcspn(l1, "\n")) == 0);
	free(b1);
	free(b2);
	fs_test_tmpdir_free(grid);
	fs_test_tmpdir_free(search);
}

static bool have(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static const char *find_mpirun(void)
{
	static const char *candidates[] = { "/usr/bin/mpirun", "/usr/local/bin/mpirun", NULL };
	size_t i;

	for (i = 0; candidates[i] != NULL; i++)
		if (have(candidates[i]))
			return candidates[i];
	return NULL;
}

static void test_sweep_mpirun_np_2_matches_one_process(void **state)
{
	const char *mpirun = find_mpirun();
	char *one, *two;
	const char *args[16];
	struct fs_test_run r;

	(void)state;
	if (mpirun == NULL || !have("./fleetsim-mpi")) {
		print_message("skipped: mpirun or ./fleetsim-mpi not found (install "
		              "openmpi-bin libopenmpi-dev and run make MPI=1)\n");
		skip();
	}
	one = fs_test_tmpdir();
	two = fs_test_tmpdir();
	sweep(one, "2", NULL);
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	args[0] = mpirun;
	args[1] = "--oversubscribe";
	args[2] = "--timeout";
	args[3] = "300";
	args[4] = "-np";
	args[5] = "2";
	args[6] = "./fleetsim-mpi";
	args[7] = "sweep";
	args[8] = SCENARIO;
	args[9] = "-o";
	args[10] = two;
	args[11] = "-q";
	args[12] = "-j";
	args[13] = "1";
	args[14] = NULL;
	r = fs_test_run_cmd(args);
	if (r.exit_code != 0)
		print_error("mpirun stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	assert_same_outputs(one, two);
	fs_test_tmpdir_free(one);
	fs_test_tmpdir_free(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_writes_four_consistent_outputs),
		cmocka_unit_test(test_sweep_is_identical_for_1_and_2_threads),
		cmocka_unit_test(test_sweep_resumes_after_a_kill_with_the_same_bytes),
		cmocka_unit_test(test_sweep_runs_every_point_on_the_file_as_read),
		cmocka_unit_test(test_sweep_of_one_replication_prints_no_nan),
		cmocka_unit_test(test_sweep_search_evaluates_fewer_points_for_the_same_best),
		cmocka_unit_test(test_sweep_mpirun_np_2_matches_one_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
