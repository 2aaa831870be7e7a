/*
 * util_test.h — helpers shared by the cmocka test binaries: a double
 * comparison with absolute and relative tolerance (cmocka 1.1.5 has no
 * assert_double_equal), and running the fleetsim binary with its output
 * captured.  Include after <cmocka.h>.
 */
#ifndef FLEETSIM_UTIL_TEST_H
#define FLEETSIM_UTIL_TEST_H

#include <stddef.h>

/* Fails the test unless |a - b| <= abs_tol or |a - b| <= rel_tol * |b|. */
#define assert_near(a, b, abs_tol, rel_tol) \
	fs_test_assert_near((a), (b), (abs_tol), (rel_tol), #a, #b, __FILE__, __LINE__)

void fs_test_assert_near(double a, double b, double abs_tol, double rel_tol,
                         const char *a_text, const char *b_text,
                         const char *file, int line);

/* Result of running the binary: exit status, captured stdout and stderr
 * (NUL-terminated, heap-owned; free with fs_test_run_free). */
struct fs_test_run {
	int exit_code;               /* -1 if it did not exit normally */
	char *out;
	char *err;
};

/* Run any program: argv is NULL-terminated with argv[0] the program, looked
 * up in $PATH when it has no '/'; no shell is involved, the environment is
 * inherited.  exit_code is -1 if it could not be started. */
struct fs_test_run fs_test_run_cmd(const char *const *argv);

/* Run the fleetsim binary ($FLEETSIM_BIN, default ./fleetsim) with argv
 * (NULL-terminated, without argv[0]); no shell is involved. */
struct fs_test_run fs_test_run_fleetsim(const char *const *args);

/* 1 if name (a path when it has a '/', else looked up in $PATH) is an
 * executable file, else 0.  For tests that skip when a tool is absent. */
int fs_test_have_cmd(const char *name);
void fs_test_run_free(struct fs_test_run *r);

/* Read a whole file into a heap string (NULL if unreadable); *len may be NULL. */
char *fs_test_read_file(const char *path, size_t *len);

/* Create a fresh empty directory under /tmp and return its path (heap). */
char *fs_test_tmpdir(void);

/* Remove a directory made by fs_test_tmpdir with everything in it, then
 * free the path. */
void fs_test_tmpdir_free(char *dir);

#endif
