/*
 * util_scenario.h — what the scenario loader tests share: the data files they
 * load, loading a document from a string or a file (failing the test with
 * the loader's message), printing a scenario to a string, and the one-class
 * and queue-engine snippets documents are built from.  Header only.
 */
#ifndef FLEETSIM_UTIL_SCENARIO_H
#define FLEETSIM_UTIL_SCENARIO_H

#include <stdio.h>
#include <string.h>

#include "fleetsim/scenario.h"

#define FULL "tests/data/scenario_full.json"
#define MINIMAL "tests/data/scenario_minimal.json"
#define VLLM "tests/data/scenario_vllm.json"
#define LLM_EXAMPLE "scenarios/llm-single-replica.json"
#define FLEET "tests/data/scenario_fleet.json"
#define SWEEP_EXAMPLE "scenarios/sweep-fleet-size.json"

/* Load text as "t.json" with relative paths resolved in tests/data. */
static inline struct fs_scenario *load_str(const char *text, struct fs_error *err)
{
	return fs_scenario_load_text(text, strlen(text), "t.json", "tests/data", err);
}

static inline struct fs_scenario *load_ok(const char *text)
{
	struct fs_error err;
	struct fs_scenario *sc = load_str(text, &err);
	char buf[2048];

	if (sc == NULL) {
		fs_error_format(&err, buf, sizeof buf);
		fail_msg("load failed: %s", buf);
	}
	return sc;
}

static inline struct fs_scenario *load_file_ok(const char *path)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load(path, &err);
	char buf[2048];

	if (sc == NULL) {
		fs_error_format(&err, buf, sizeof buf);
		fail_msg("load of %s failed: %s", path, buf);
	}
	return sc;
}

/* sc printed by `print` (fs_scenario_print or its self-contained form)
 * into a heap string (caller frees). */
static inline char *print_to_string_with(const struct fs_scenario *sc,
                                         int (*print)(const struct fs_scenario *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(print(sc, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static inline char *print_to_string(const struct fs_scenario *sc)
{
	return print_to_string_with(sc, fs_scenario_print);
}

#define SIMPLE_CLASS \
	"{\"name\": \"c\", \"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1}," \
	" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}," \
	" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}"
#define ENGINE \
	"\"engine\": {\"type\": \"queue\", \"service\": {\"dist\": \"fixed\", \"mean\": 1}}"

/* A two-class vllm document with one pool and `study` (sweep or objective
 * members) added at its root. */
#define STUDY_DOC(study) \
	"{\"simulation\": {\"horizon\": \"1h\", \"replications\": 4}, \"workload\": " \
	"{\"classes\": [" SIMPLE_CLASS ", {\"name\": \"batch\", \"arrivals\": " \
	"{\"process\": \"poisson\", \"rate_per_s\": 1}, \"prompt_tokens\": " \
	"{\"dist\": \"fixed\", \"tokens\": 10}, \"output_tokens\": {\"dist\": " \
	"\"fixed\", \"tokens\": 10}}]}, \"engine\": {\"type\": \"vllm\", \"model\": " \
	"\"llama-3.1-8b\", \"gpu\": \"l40s\"}, \"fleet\": {\"pools\": [{\"name\": " \
	"\"a\", \"count\": 1}]}, " study "}"

#endif
