/*
 * test_par_mpi.c — the MPI gather across real ranks: runs
 * `mpirun --oversubscribe -np N build-mpi/tests/par_mpi_probe` (built by
 * `make MPI=1`; $FLEETSIM_MPI_PROBE overrides the path) and checks that rank
 * 0 printed every rank's records, keys and lengths in rank order.  Skips,
 * passing, when mpirun or the probe is absent.  Open MPI refuses root
 * unless OMPI_ALLOW_RUN_AS_ROOT{,_CONFIRM}=1, so those are set here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util_test.h"

/* Open MPI's mpirun: more ranks than cores is fine (CI has 2), and a job
 * that hangs is killed rather than hanging the test run. */
#define MPIRUN "mpirun", "--oversubscribe", "--timeout", "120"

static const char *probe_path(void)
{
	const char *p = getenv("FLEETSIM_MPI_PROBE");

	return p != NULL && p[0] != '\0' ? p : "./build-mpi/tests/par_mpi_probe";
}

/* Skips the calling test when it cannot run here. */
static void need_mpi(void)
{
	if (!fs_test_have_cmd("mpirun")) {
		printf("skipped: mpirun not found (install openmpi-bin and run make MPI=1)\n");
		skip();
	}
	if (!fs_test_have_cmd(probe_path())) {
		printf("skipped: %s not found (run make MPI=1)\n", probe_path());
		skip();
	}
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
}

static void run_probe(const char *np, const char *expected)
{
	const char *argv[] = { MPIRUN, "-np", np, probe_path(), NULL };
	struct fs_test_run r = fs_test_run_cmd(argv);

	if (r.exit_code != 0 || r.out == NULL || strcmp(r.out, expected) != 0)
		print_error("mpirun -np %s: exit %d\nstdout:\n%s\nstderr:\n%s\nexpected:\n%s\n",
		            np, r.exit_code, r.out ? r.out : "(none)",
		            r.err ? r.err : "(none)", expected);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(r.out);
	assert_string_equal(r.out, expected);
	fs_test_run_free(&r);
}

static void test_par_mpi_gather_two_ranks_in_rank_order(void **state)
{
	(void)state;
	need_mpi();
	run_probe("2",
	          "size 2 mpi 1\n"
	          "0 10 rank0-rec0\n"
	          "100 10 rank1-rec0\n"
	          "101 0 \n");
}

static void test_par_mpi_gather_three_ranks_in_rank_order(void **state)
{
	(void)state;
	need_mpi();
	run_probe("3",
	          "size 3 mpi 1\n"
	          "0 10 rank0-rec0\n"
	          "100 10 rank1-rec0\n"
	          "101 0 \n"
	          "200 10 rank2-rec0\n"
	          "201 10 rank2-rec1\n"
	          "202 0 \n");
}

/* fs_par_abort on one rank takes the whole job down with its status while
 * the other rank waits in a barrier (no hang). */
static void test_par_mpi_abort_on_one_rank_ends_the_job(void **state)
{
	const char *argv[] = { MPIRUN, "-np", "2", NULL, "abort", NULL };
	struct fs_test_run r;

	(void)state;
	need_mpi();
	argv[6] = probe_path();
	r = fs_test_run_cmd(argv);
	if (r.exit_code != 5)
		print_error("exit %d\nstderr:\n%s\n", r.exit_code, r.err ? r.err : "(none)");
	assert_int_equal(r.exit_code, 5);   /* Open MPI's notice on stderr is racy */
	fs_test_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_par_mpi_gather_two_ranks_in_rank_order),
		cmocka_unit_test(test_par_mpi_gather_three_ranks_in_rank_order),
		cmocka_unit_test(test_par_mpi_abort_on_one_rank_ends_the_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
