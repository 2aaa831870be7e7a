/*
 * fuzz_scenario.c — libFuzzer harness for the scenario loader
 * (fs_scenario_load_text): the input is the scenario text, relative paths
 * resolved against tests/data (so seeds may name its traces).  A scenario
 * that loads is printed and the print must load back; a failed load must
 * leave a message.  Runs from the repository root.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleetsim/scenario.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_error err = {{0}, {0}, {0}};
	struct fs_scenario *sc, *again;
	char *printed = NULL;
	size_t printed_len = 0;
	FILE *f;

	sc = fs_scenario_load_text((const char *)data, size, "fuzz.json", "tests/data", &err);
	if (sc == NULL) {
		fuzz_check_error(&err);
		return 0;
	}
	f = open_memstream(&printed, &printed_len);
	fuzz_check(f != NULL, "open_memstream");
	fuzz_check(fs_scenario_print(sc, f) == 0, "a loaded scenario prints");
	fuzz_check(fclose(f) == 0, "closing the print");
	again = fs_scenario_load_text(printed, printed_len, "printed.json", "tests/data", &err);
	if (again == NULL) {
		fprintf(stderr, "fuzz: the print does not load back: %s: %s: %s\n%s\n",
		        err.where, err.path, err.msg, printed);
		abort();
	}
	fs_scenario_free(again);
	free(printed);
	fs_scenario_free(sc);
	return 0;
}
