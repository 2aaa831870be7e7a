/*
 * cli_validate.c — `fleetsim validate SCENARIO`: load with every check (and,
 * without --variant, every variant and distinct sweep axis value), then
 * print the resolved scenario (defaults filled in) as JSON on stdout,
 * followed by `//` comment lines with what the load derived (a vllm
 * engine's memory plan, a pool's unused spot keys), so the output still
 * loads as a scenario.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/scenario.h"

#define MAX_SETS 64

static const char validate_help[] =
	"usage: fleetsim validate [--variant NAME] [--set PATH=JSON]... SCENARIO\n"
	"\n"
	"Load SCENARIO with every check the simulator applies (without --variant:\n"
	"also every variant and every distinct sweep axis value, each at its place\n"
	"in the file) and print it resolved,\n"
	"with every default filled in, as JSON, then derived figures (an LLM\n"
	"engine's memory plan) and notes (a pool's spot settings that are unused\n"
	"because it is not spot here) as // comments.  On bad input print\n"
	"FILE:LINE:COL: JSON.PATH: MESSAGE on stderr and exit with status 2.\n"
	"\n"
	"  --variant NAME   the scenario's variant NAME (its \"variants\" list)\n"
	"  --set PATH=JSON  set one value after the variant's, e.g.\n"
	"                   --set 'fleet.pools[0].count=4'\n"
	"                   --set 'fleet.strategy=\"relaunch\"'\n";

int fs__cli_validate(int argc, char **argv)
{
	struct fs_error err;
	struct fs_scenario *sc;
	struct fs_scenario_file file;
	int i;
	const char *path = NULL, *variant = NULL, *sets[MAX_SETS];
	size_t n_sets = 0;

	for (i = 1; i < argc; i++) {
		static const char *const valued[] = { "--variant", "--set", NULL };
		char name[16];
		const char *a = argv[i], *v = fs__cli_split_long(a, valued, name, sizeof name);

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(validate_help, stdout);
			return FS_EXIT_OK;
		}
		if (v != NULL)
			a = name;                /* --NAME=VALUE */
		else if ((strcmp(a, "--variant") == 0 || strcmp(a, "--set") == 0) &&
		         i + 1 == argc)
			return fs__cli_usage_error("validate", "option \"%s\" needs a value", a);
		else if (strcmp(a, "--variant") == 0 || strcmp(a, "--set") == 0)
			v = argv[++i];
		if (strcmp(a, "--variant") == 0) {
			variant = v;
			continue;
		}
		if (strcmp(a, "--set") == 0) {
			if (n_sets == MAX_SETS)
				return fs__cli_usage_error("validate", "at most %d --set "
				                           "options", MAX_SETS);
			sets[n_sets++] = v;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0')
			return fs__cli_usage_error("validate", "unknown option \"%s\"", argv[i]);
		if (path != NULL)
			return fs__cli_usage_error("validate", "expected one scenario file, "
			                           "found a second: \"%s\"", argv[i]);
		path = argv[i];
	}
	if (path == NULL)
		return fs__cli_usage_error("validate", "missing SCENARIO file");
	/* Read once: the scenario and the checks below load the same bytes. */
	if (fs_scenario_file_read(&file, path, &err) != 0) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	sc = fs_scenario_file_load(&file, variant, sets, n_sets, NULL, 0, &err);
	/* Everything a run or sweep of the file would load later: every
	 * variant and every distinct sweep axis value. */
	if (sc == NULL || (variant == NULL &&
	    fs_scenario_file_check_all(&file, sets, n_sets, true, true, &err) != 0)) {
		fs_error_print(&err);
		fs_scenario_free(sc);
		fs_scenario_file_fini(&file);
		return FS_EXIT_INPUT;
	}
	fs_scenario_file_fini(&file);
	if (fs_scenario_print(sc, stdout) != 0 || fs_scenario_print_notes(sc, stdout) != 0 ||
	    fflush(stdout) != 0) {
		fs_scenario_free(sc);
		fprintf(stderr, "fleetsim validate: cannot write to standard output\n");
		return FS_EXIT_RUNTIME;
	}
	fs_scenario_free(sc);
	return FS_EXIT_OK;
}
