/*
 * test_bad_scenarios.c — every tests/bad/NAME.json is a scenario that must
 * be rejected with one exact message, given on its first line as
 *     // expect: tests/bad/NAME.json:LINE:COL: JSON.PATH: MESSAGE
 * One cmocka test per file (sorted by name): fs_scenario_load must fail with
 * that message, and `./fleetsim validate` must print it on stderr and exit 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleetsim/scenario.h"
#include "util_test.h"

#define BAD_DIR "tests/bad"
#define EXPECT_PREFIX "// expect: "
#define MIN_BAD_FILES 30

/* The expected message of `path` (heap), from its first line. */
static char *expected_line(const char *path)
{
	char *text = fs_test_read_file(path, NULL), *nl, *want;

	if (text == NULL)
		fail_msg("cannot read %s", path);
	if (strncmp(text, EXPECT_PREFIX, strlen(EXPECT_PREFIX)) != 0) {
		free(text);
		fail_msg("%s: first line must be \"" EXPECT_PREFIX "<message>\"", path);
	}
	nl = strchr(text, '\n');
	if (nl != NULL)
		*nl = '\0';
	want = strdup(text + strlen(EXPECT_PREFIX));
	free(text);
	return want;
}

static void test_bad_scenario_is_rejected_with_its_message(void **state)
{
	const char *path = *state;
	const char *args[] = { "validate", path, NULL };
	char *want = expected_line(path), *want_nl, got[2048];
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load(path, &err);
	struct fs_test_run run;
	const char *bin = getenv("FLEETSIM_BIN");

	if (sc != NULL) {
		fs_scenario_free(sc);
		free(want);
		fail_msg("%s loaded without error", path);
	}
	fs_error_format(&err, got, sizeof got);
	assert_string_equal(got, want);

	if (bin == NULL || bin[0] == '\0')
		bin = "./fleetsim";
	if (access(bin, X_OK) != 0) {
		print_message("skipping the %s run: binary not built\n", bin);
		free(want);
		return;
	}
	run = fs_test_run_fleetsim(args);
	want_nl = malloc(strlen(want) + 2);
	assert_non_null(want_nl);
	sprintf(want_nl, "%s\n", want);
	assert_int_equal(run.exit_code, 2);
	assert_non_null(run.err);
	assert_string_equal(run.err, want_nl);
	assert_string_equal(run.out, "");
	free(want_nl);
	free(want);
	fs_test_run_free(&run);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	DIR *dir = opendir(BAD_DIR);
	struct dirent *de;
	char **paths = NULL;
	struct CMUnitTest *tests;
	size_t n = 0, cap = 0, len, i;
	int failed;

	if (dir == NULL) {
		fprintf(stderr, "test_bad_scenarios: cannot open %s (run from the "
		        "repository root)\n", BAD_DIR);
		return 1;
	}
	while ((de = readdir(dir)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 64 : 2 * cap;
			paths = realloc(paths, cap * sizeof *paths);
			if (paths == NULL)
				abort();
		}
		paths[n] = malloc(sizeof BAD_DIR + 1 + len);
		if (paths[n] == NULL)
			abort();
		sprintf(paths[n], "%s/%s", BAD_DIR, de->d_name);
		n++;
	}
	closedir(dir);
	if (n < MIN_BAD_FILES) {
		fprintf(stderr, "test_bad_scenarios: expected at least %d files in "
		        "%s, found %zu\n", MIN_BAD_FILES, BAD_DIR, n);
		return 1;
	}
	qsort(paths, n, sizeof *paths, by_name);
	tests = calloc(n, sizeof *tests);
	if (tests == NULL)
		abort();
	for (i = 0; i < n; i++) {
		tests[i].name = paths[i];
		tests[i].test_func = test_bad_scenario_is_rejected_with_its_message;
		tests[i].initial_state = paths[i];
	}
	failed = _cmocka_run_group_tests("bad_scenarios", tests, n, NULL, NULL);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(tests);
	return failed;
}
