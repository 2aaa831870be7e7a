/*
 * util_test.c — see util_test.h.
 */
#define _XOPEN_SOURCE 700      /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleetsim/common.h"
#include "util_test.h"

extern char **environ;

void fs_test_assert_near(double a, double b, double abs_tol, double rel_tol,
                         const char *a_text, const char *b_text,
                         const char *file, int line)
{
	double diff = fabs(a - b);

	if (diff <= abs_tol || diff <= rel_tol * fabs(b))
		return;
	print_error("%s:%d: %s = %.12g is not near %s = %.12g "
	            "(|diff| %.3g, abs tol %.3g, rel tol %.3g)\n",
	            file, line, a_text, a, b_text, b, diff, abs_tol, rel_tol);
	_fail(file, line);
}

char *fs_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, used = 0, got;

	if (f == NULL)
		return NULL;
	do {
		if (used + 4096 + 1 > cap) {
			cap = cap == 0 ? 8192 : cap * 2;
			buf = realloc(buf, cap);
			if (buf == NULL)
				abort();
		}
		got = fread(buf + used, 1, cap - used - 1, f);
		used += got;
	} while (got > 0);
	fclose(f);
	buf[used] = '\0';
	if (len != NULL)
		*len = used;
	return buf;
}

struct fs_test_run fs_test_run_cmd(const char *const *argv)
{
	struct fs_test_run r = { -1, NULL, NULL };
	char out_path[] = "/tmp/fleetsim-test-out-XXXXXX";
	char err_path[] = "/tmp/fleetsim-test-err-XXXXXX";
	int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;

	if (out_fd < 0 || err_fd < 0)
		abort();
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	/* posix_spawnp never writes the strings of argv */
	if (posix_spawnp(&pid, argv[0], &fa, NULL, fs_unconst(argv), environ) == 0 &&
	    waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		r.exit_code = WEXITSTATUS(status);
	posix_spawn_file_actions_destroy(&fa);
	close(out_fd);
	close(err_fd);
	r.out = fs_test_read_file(out_path, NULL);
	r.err = fs_test_read_file(err_path, NULL);
	unlink(out_path);
	unlink(err_path);
	return r;
}

struct fs_test_run fs_test_run_fleetsim(const char *const *args)
{
	const char *bin = getenv("FLEETSIM_BIN");
	const char *argv[64];
	size_t n = 0;

	if (bin == NULL || bin[0] == '\0')
		bin = "./fleetsim";
	argv[n++] = bin;
	while (args[n - 1] != NULL && n < 63) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	return fs_test_run_cmd(argv);
}

int fs_test_have_cmd(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];
	const char *p, *colon;
	size_t dir_len;

	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0;
	if (path == NULL || path[0] == '\0')
		path = "/usr/bin:/bin";
	for (p = path; ; p = colon + 1) {
		colon = strchr(p, ':');
		dir_len = colon != NULL ? (size_t)(colon - p) : strlen(p);
		if (dir_len == 0)
			snprintf(buf, sizeof buf, "./%s", name);
		else
			snprintf(buf, sizeof buf, "%.*s/%s", (int)dir_len, p, name);
		if (access(buf, X_OK) == 0)
			return 1;
		if (colon == NULL)
			return 0;
	}
}

void fs_test_run_free(struct fs_test_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fs_test_tmpdir_free(char *dir)
{
	if (dir == NULL)
		return;
	if (strncmp(dir, "/tmp/fleetsim-test-", 19) == 0)
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

char *fs_test_tmpdir(void)
{
	char tmpl[] = "/tmp/fleetsim-test-XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (dir == NULL)
		abort();
	return strdup(dir);
}
