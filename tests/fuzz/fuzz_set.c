/*
 * fuzz_set.c — libFuzzer harness for the `--set PATH=JSON` parser and the
 * variants it shares code with (fs_scenario_load_variant).  The input is up
 * to 8 lines: each line is one command-line set, except a first line
 * "@NAME", which names the variant to load first.  The base document is
 * tests/data/scenario_fleet.json (pools, zones, variants), so paths reach
 * deep; runs from the repository root.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"
#include "fuzz_util.h"

#define BASE_SCENARIO "tests/data/scenario_fleet.json"
#define MAX_SETS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		fuzz_check_error(&err);
	} else {
		for (i = 0; i < sc->fleet.n_pools; i++)
			fuzz_check(sc->fleet.pools[i].name != NULL, "every pool has a name");
		fs_scenario_free(sc);
	}
	free(text);
	return 0;
}
