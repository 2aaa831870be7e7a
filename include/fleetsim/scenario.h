/*
 * scenario.h — load, check and print a scenario file.  The loader is the only
 * cJSON user on the input side: it strips // and block comments, parses,
 * walks every object rejecting unknown keys (suggesting the nearest known
 * one), checks types and ranges, fills defaults, loads traces and empirical
 * length files, and on any failure returns -1 with an fs_error naming
 * file:line:col, the JSON path, what was expected and what was found.
 * A struct fs_scenario owns everything it points to; fs_scenario_free frees it.
 */
#ifndef FLEETSIM_SCENARIO_H
#define FLEETSIM_SCENARIO_H

#include <stdio.h>

#include "fleetsim/common.h"
#include "fleetsim/config.h"

struct fs_scenario {
	char *path;                  /* file as given */
	char *name;                  /* "name" key, default: file stem */
	char *description;           /* may be "" */
	char sha256_hex[65];         /* of the file's bytes */
	struct fs_sim_cfg sim;
	struct fs_workload_cfg workload;
	struct fs_engine_cfg engine;
	/* The CSV column each EMPIRICAL length was read from, so that
	 * fs_scenario_print can write it back: 2 * workload.n_classes entries
	 * ([2i] prompt, [2i + 1] output of class i), NULL where none. */
};

/*
 * Load and check the scenario at `path`.  Relative trace and empirical-file
 * paths are resolved against the scenario file's directory.  Returns a new
 * scenario (caller frees with fs_scenario_free), or NULL with `err` filled.
 */
struct fs_scenario *fs_scenario_load(const char *path, struct fs_error *err);

/* Same, from text already in memory; `name_for_errors` is used as the file
 * name in messages and `base_dir` to resolve relative paths (may be "."). */
struct fs_scenario *fs_scenario_load_text(const char *text, size_t text_len,
                                          const char *name_for_errors,
                                          const char *base_dir,
                                          struct fs_error *err);

void fs_scenario_free(struct fs_scenario *sc);

/* Write the resolved scenario, defaults filled in, as JSON (durations as
 * strings such as "90s", so it loads back to the same scenario). */
int fs_scenario_print(const struct fs_scenario *sc, FILE *out);

/*
 * Parse a duration: a JSON number is seconds; a string is a decimal number
 * followed by one of ns, us, ms, s, m, h, d ("90s", "15m", "1.5h").
 * Returns 0 and sets *out_ns, or -1 with a message in msg (no location).
 */
int fs_duration_parse_text(const char *text, fs_ns *out_ns, char *msg, size_t msg_len);

/* Format a duration in the shortest exact unit ("90s", "1500ms", "2h"). */
void fs_duration_format(fs_ns dur_ns, char *buf, size_t buf_len);

#endif
