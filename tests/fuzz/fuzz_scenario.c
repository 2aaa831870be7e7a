/*
 * fuzz_scenario.c — libFuzzer harness for the scenario loader
 * (fs_scenario_load_text): the input is the scenario text, relative paths
 * resolved against tests/data (so seeds may name its traces).  A scenario
 * that loads is printed, the print must load back and print to the same
 * bytes; a failed load must leave a message.  Runs from the repository root.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fs_scenario_print into a heap string (*len bytes). */
static char *print_text(const struct fs_scenario *sc, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	fuzz_check(f != NULL, "open_memstream");
	fuzz_check(fs_scenario_print(sc, f) == 0, "a loaded scenario prints");
	fuzz_check(fclose(f) == 0, "closing the print");
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_error err = {{0}, {0}, {0}};
	struct fs_scenario *sc, *again;
	char *printed, *reprinted;
	size_t printed_len = 0, reprinted_len = 0;

	sc = fs_scenario_load_text((const char *)data, size, "fuzz.json", "tests/data", &err);
	if (sc == NULL) {
		fuzz_check_error(&err, NULL);
		return 0;
	}
	printed = print_text(sc, &printed_len);
	again = fs_scenario_load_text(printed, printed_len, "printed.json", "tests/data", &err);
	if (again == NULL) {
		fprintf(stderr, "fuzz: the print does not load back: %s: %s: %s\n%s\n",
		        err.where, err.path, err.msg, printed);
		abort();
	}
	reprinted = print_text(again, &reprinted_len);
	if (reprinted_len != printed_len || memcmp(printed, reprinted, printed_len) != 0) {
		fprintf(stderr, "fuzz: the print of the print differs:\n%s\n----\n%s\n",
		        printed, reprinted);
		abort();
	}
	free(reprinted);
	fs_scenario_free(again);
	free(printed);
	fs_scenario_free(sc);
	return 0;
}
