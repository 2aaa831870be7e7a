/*
 * fuzz_set.c — libFuzzer harness for the `--set PATH=JSON` parser and the
 * variants it shares code with (fs_scenario_load_variant).  The input is up
 * to 8 lines: each line is one command-line set, except a first line
 * "@NAME", which names the variant to load first.  The base document is
 * tests/data/scenario_fleet.json (pools, zones, variants), so paths reach
 * deep; runs from the repository root.  A scenario that loads must print
 * text that loads back (the record a run directory keeps).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"
#include "fuzz_util.h"

#define BASE_SCENARIO "tests/data/scenario_fleet.json"
#define MAX_SETS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The print of sc must load back (relative paths against the base's directory). */
static void check_print_loads(const struct fs_scenario *sc)
{
	struct fs_error err = {{0}, {0}, {0}};
	struct fs_scenario *again;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fuzz_check(f != NULL, "open_memstream");
	fuzz_check(fs_scenario_print(sc, f) == 0, "a loaded scenario prints");
	fuzz_check(fclose(f) == 0, "closing the print");
	again = fs_scenario_load_text(text, len, "printed.json", "tests/data", &err);
	if (again == NULL) {
		fprintf(stderr, "fuzz: the print does not load back: %s: %s: %s\n%s\n",
		        err.where, err.path, err.msg, text);
		abort();
	}
	fs_scenario_free(again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_error err = {{0}, {0}, {0}};
	const char *sets[MAX_SETS], *variant = NULL;
	struct fs_scenario *sc;
	size_t n_sets = 0, i;
	char *text = malloc(size + 1), *line, *nl;

	fuzz_check(text != NULL, "malloc");
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text; line != NULL && n_sets < MAX_SETS; line = nl) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		if (line == text && line[0] == '@')
			variant = line + 1;
		else
			sets[n_sets++] = line;
	}
	sc = fs_scenario_load_variant(BASE_SCENARIO, variant, sets, n_sets, &err);
	if (sc == NULL) {
		fuzz_check_error(&err, NULL);
	} else {
		for (i = 0; i < sc->fleet.n_pools; i++)
			fuzz_check(sc->fleet.pools[i].name != NULL, "every pool has a name");
		check_print_loads(sc);
		fs_scenario_free(sc);
	}
	free(text);
	return 0;
}
