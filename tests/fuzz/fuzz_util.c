/*
 * fuzz_util.c — temporary input file and invariant checks for the fuzz
 * harnesses (see fuzz_util.h).  One temporary file per process, rewritten for
 * every input; it is removed at exit.  Not part of libfleetsim.
 */
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleetsim/common.h"

static char tmp_path[256];

static void remove_tmp(void)
{
	if (tmp_path[0] != '\0')
		unlink(tmp_path);
}

const char *fuzz_tmp_write(const uint8_t *data, size_t size)
{
	FILE *f;
	int fd;

	if (tmp_path[0] == '\0') {
		const char *dir = getenv("TMPDIR");

		snprintf(tmp_path, sizeof tmp_path, "%s/fleetsim-fuzz-XXXXXX",
		         dir != NULL && dir[0] != '\0' ? dir : "/tmp");
		fd = mkstemp(tmp_path);
		if (fd < 0) {
			perror("fuzz: mkstemp");
			abort();
		}
		close(fd);
		atexit(remove_tmp);
	}
	f = fopen(tmp_path, "wb");
	if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror("fuzz: writing the input file");
		abort();
	}
	return tmp_path;
}

void fuzz_check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz: invariant broken: %s\n", what);
		abort();
	}
}

void fuzz_check_error(const struct fs_error *err, const char *display)
{
	fuzz_check(memchr(err->where, '\0', sizeof err->where) != NULL &&
	           memchr(err->msg, '\0', sizeof err->msg) != NULL,
	           "error strings are NUL-terminated");
	fuzz_check(err->msg[0] != '\0', "a failed load leaves a message");
	if (display == NULL ? err->where[0] == '\0'
	                    : strncmp(err->where, display, strlen(display)) != 0) {
		fprintf(stderr, "fuzz: error without its file: where \"%s\", msg \"%s\"\n",
		        err->where, err->msg);
		abort();
	}
}
