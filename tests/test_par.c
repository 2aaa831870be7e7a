/*
 * test_par.c — include/fleetsim/par.h in one process: rank 0 of 1, a gather
 * that hands back copies of the records (bytes, lengths, keys) in the order
 * given, a no-op barrier, and abort as exit(status).  Built into the MPI
 * build too, where it runs as an MPI singleton (size 1); the multi-rank
 * gather is tests/test_par_mpi.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleetsim/par.h"
#include "util_test.h"

static void free_gathered(char **all_data, size_t *all_len, int *all_key, size_t n_all)
{
	size_t i;

	for (i = 0; i < n_all; i++)
		free(all_data[i]);
	free(all_data);
	free(all_len);
	free(all_key);
}

static void test_par_one_process_is_rank_zero_of_one(void **state)
{
	(void)state;
	assert_int_equal(fs_par_rank(), 0);
	assert_int_equal(fs_par_size(), 1);
#ifdef FS_MPI
	assert_true(fs_par_is_mpi());
#else
	assert_false(fs_par_is_mpi());
#endif
	fs_par_barrier();           /* must return at once with one rank */
}

/* Keys out of order, an empty record and a record with a NUL byte inside:
 * the gather keeps the given order and every byte, and copies. */
static void test_par_gather_copies_records_in_given_order(void **state)
{
	static const char bin[] = { 'a', '\0', 'b', '\n' };
	const char *data[] = { "point 7\n", "", bin, "x" };
	const size_t len[] = { 8, 0, sizeof bin, 1 };
	const int key[] = { 7, 3, -1, 1000000 };
	char **all_data;
	size_t *all_len, n_all = 99, i;
	int *all_key;

	(void)state;
	fs_par_gather(data, len, key, 4, &all_data, &all_len, &all_key, &n_all);
	assert_int_equal(n_all, 4);
	assert_non_null(all_data);
	assert_non_null(all_len);
	assert_non_null(all_key);
	for (i = 0; i < 4; i++) {
		assert_int_equal(all_key[i], key[i]);
		assert_int_equal(all_len[i], len[i]);
		assert_memory_equal(all_data[i], data[i], len[i] > 0 ? len[i] : 1);
		assert_true(all_data[i] != data[i]);          /* a copy */
		assert_int_equal(all_data[i][len[i]], '\0');  /* printable as text */
	}
	free_gathered(all_data, all_len, all_key, n_all);
}

static void test_par_gather_of_nothing_is_empty_and_freeable(void **state)
{
	char **all_data;
	size_t *all_len, n_all = 99;
	int *all_key;

	(void)state;
	fs_par_gather(NULL, NULL, NULL, 0, &all_data, &all_len, &all_key, &n_all);
	assert_int_equal(n_all, 0);
	free_gathered(all_data, all_len, all_key, n_all);
}

/* Abort ends the process with the status given (checked in a child, which
 * is not possible safely inside an MPI process). */
static void test_par_abort_exits_with_status(void **state)
{
	pid_t pid;
	int status = 0;

	(void)state;
#ifdef FS_MPI
	skip();
#endif
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		fs_par_abort(3);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_par_one_process_is_rank_zero_of_one),
		cmocka_unit_test(test_par_gather_copies_records_in_given_order),
		cmocka_unit_test(test_par_gather_of_nothing_is_empty_and_freeable),
		cmocka_unit_test(test_par_abort_exits_with_status),
	};
	int failed;

	fs_par_init(&argc, &argv);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	fs_par_finalize();
	return failed;
}
