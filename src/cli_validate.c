/*
 * cli_validate.c — `fleetsim validate SCENARIO`: load with every check, then
 * print the resolved scenario (defaults filled in) as JSON on stdout,
 * followed by `//` comment lines with what the load derived (a vllm
 * engine's memory plan), so the output still loads as a scenario.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/scenario.h"

static const char validate_help[] =
	"usage: fleetsim validate SCENARIO\n"
	"\n"
	"Load SCENARIO with every check the simulator applies and print it resolved,\n"
	"with every default filled in, as JSON, then derived figures (an LLM\n"
	"engine's memory plan) as // comments.  On bad input print\n"
	"FILE:LINE:COL: JSON.PATH: MESSAGE on stderr and exit with status 2.\n";

int fs__cli_validate(int argc, char **argv)
{
	struct fs_error err;
	struct fs_scenario *sc;
	int i;
	const char *path = NULL;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(validate_help, stdout);
			return FS_EXIT_OK;
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
	sc = fs_scenario_load(path, &err);
	if (sc == NULL) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	if (fs_scenario_print(sc, stdout) != 0 || fs_scenario_print_notes(sc, stdout) != 0 ||
	    fflush(stdout) != 0) {
		fs_scenario_free(sc);
		fprintf(stderr, "fleetsim validate: cannot write to standard output\n");
		return FS_EXIT_RUNTIME;
	}
	fs_scenario_free(sc);
	return FS_EXIT_OK;
}
