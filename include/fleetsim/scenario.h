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

#include "fleetsim/catalog.h"
#include "fleetsim/common.h"
#include "fleetsim/scenario_cfg.h"

/*
 * Load and check the scenario at `path`.  Relative trace and empirical-file
 * paths are resolved against the scenario file's directory.  Returns a new
 * scenario (caller frees with fs_scenario_free), or NULL with `err` filled.
 */
struct fs_scenario *fs_scenario_load(const char *path, struct fs_error *err);

/*
 * Load the variant named `variant` of the scenario at `path` (NULL: the base
 * document), then apply the command-line sets: each "PATH=JSON", such as
 * "fleet.pools[0].count=4" or "fleet.strategy=\"relaunch\"" (may be NULL
 * when n_sets is 0).  A variant is the base document with each of its
 * "set" paths replaced; the "variants" key is ignored then.  Errors in a
 * variant's value point at it in the file; errors of a command-line set
 * read "--set PATH=VALUE: MESSAGE".  sha256_hex stays that of the file.
 * fs_scenario_load(path, err) is fs_scenario_load_variant(path, NULL, NULL,
 * 0, err).  Returns a new scenario (fs_scenario_free) or NULL with err.
 */
struct fs_scenario *fs_scenario_load_variant(const char *path, const char *variant,
                                             const char *const *sets, size_t n_sets,
                                             struct fs_error *err);

/*
 * Load point `point` of `sweep` (the base document's sweep, loaded from the
 * same file with the same sets): the base with the command-line sets, then
 * each axis's value at the point, taken from the file's own "sweep" node so
 * an error in a value reads FILE:LINE:COL at that value (a "range" axis: at
 * its "range").  The point's scenario has no "sweep" or "objective".
 * Returns a new scenario (fs_scenario_free) or NULL with err.
 */
struct fs_scenario *fs_scenario_load_point(const char *path, const char *const *sets,
                                           size_t n_sets, const struct fs_sweep_cfg *sweep,
                                           size_t point, struct fs_error *err);

/*
 * A scenario file's bytes, read once: a command that loads its scenario
 * many times (every variant, every sweep point, the checks before them)
 * loads each from these bytes, so an edit of the file while it runs changes
 * nothing it loads, and the sha256 it records names what ran.  path names
 * the file in messages and resolves relative data paths (traces, length
 * files), which are read at each load.  fs_scenario_file_read: 0, or -1
 * with err (the path is not a regular file, or unreadable); the struct owns
 * its strings, freed by fs_scenario_file_fini.
 */
struct fs_scenario_file {
	char *path;
	char *text;                  /* the file's bytes, len of them */
	size_t len;
};
int fs_scenario_file_read(struct fs_scenario_file *f, const char *path,
                          struct fs_error *err);
void fs_scenario_file_fini(struct fs_scenario_file *f);

/* fs_scenario_load_variant (sweep NULL) or fs_scenario_load_point (sweep
 * and point) of the file's bytes. */
struct fs_scenario *fs_scenario_file_load(const struct fs_scenario_file *f,
                                          const char *variant,
                                          const char *const *sets, size_t n_sets,
                                          const struct fs_sweep_cfg *sweep, size_t point,
                                          struct fs_error *err);

/* fs_scenario_list_variants and fs_scenario_check_all of the file's bytes. */
int fs_scenario_file_variants(const struct fs_scenario_file *f, char ***names, size_t *n,
                              struct fs_error *err);
int fs_scenario_file_check_all(const struct fs_scenario_file *f,
                               const char *const *sets, size_t n_sets,
                               bool variants, bool sweep, struct fs_error *err);

/*
 * Check up front everything a run or sweep of the scenario at `path` (with
 * the command-line sets) would load later: the base, with `variants` every
 * variant, and with `sweep` every distinct value of every sweep axis (the
 * point that takes it with the other axes at their first value; in "zip"
 * mode every point).  0, or -1 with err at the failing variant's or axis
 * value's place in the file.
 */
int fs_scenario_check_all(const char *path, const char *const *sets, size_t n_sets,
                          bool variants, bool sweep, struct fs_error *err);

/* The directory name `fleetsim run` gives a variant's outputs: letters,
 * digits, '.', '-' and '_' kept, anything else '_', a leading '.' made '_'
 * (at most len - 1 bytes, NUL-terminated). */
void fs_scenario_variant_dir(const char *name, char *buf, size_t len);

/* The names of the scenario's variants, in file order, after checking the
 * whole base scenario: *names is a heap array of *n heap strings (free with
 * fs_scenario_variants_free; NULL and 0 when there are none).  Returns 0,
 * or -1 with err (then *names is NULL). */
int fs_scenario_list_variants(const char *path, char ***names, size_t *n,
                              struct fs_error *err);
void fs_scenario_variants_free(char **names, size_t n);

/* fs_scenario_load (the base document) from text already in memory;
 * `name_for_errors` is used as the file name in messages and `base_dir` to
 * resolve relative paths (may be "."). */
struct fs_scenario *fs_scenario_load_text(const char *text, size_t text_len,
                                          const char *name_for_errors,
                                          const char *base_dir,
                                          struct fs_error *err);

void fs_scenario_free(struct fs_scenario *sc);

/* Write the resolved scenario (fs_scenario_print_self_contained) to `path`
 * atomically — the record of what a run or sweep directory was made from.
 * 0, or -1 with err. */
int fs_scenario_write(const struct fs_scenario *sc, const char *path, struct fs_error *err);

/* Write the resolved scenario, defaults filled in, as JSON (durations as
 * strings such as "90s", so it loads back to the same scenario). */
int fs_scenario_print(const struct fs_scenario *sc, FILE *out);

/* The same, self-contained: every GPU of the scenario's catalogue and every
 * built-in GPU it uses (the engine's, the pools', the values of sweep axes
 * over a gpu) is written as a complete catalogue entry without "base" —
 * specs, efficiencies, prices, dates, sources, notes, names — so that the
 * text loads to the same simulation whatever the built-in catalogue of the
 * binary that reads it.  What fs_scenario_write records.  0, or -1. */
int fs_scenario_print_self_contained(const struct fs_scenario *sc, FILE *out);

/* Write what the load derived but the JSON cannot carry (for "vllm": the
 * memory plan, the KV capacity and the resolved step-model efficiencies) as
 * `// ...` comment lines, so that JSON + notes still loads.  Nothing for a
 * queue engine.  Returns 0, or -1 on a write error. */
int fs_scenario_print_notes(const struct fs_scenario *sc, FILE *out);

/* price_source and spec_source of a scenario catalogue GPU given without
 * "base" and without those keys: its facts are the scenario's own. */
#define FS_SC_CATALOG_SOURCE "scenario catalogue"

/* The scenario's own catalogue entry named `name` (id, case-insensitive),
 * else the built-in one (id or alias), where a scenario entry with the
 * built-in's id shadows it; NULL when unknown.  The pointer lives as long as
 * `sc` (or the process, for a built-in). */
const struct fs_gpu_spec *fs_scenario_find_gpu(const struct fs_scenario *sc,
                                               const char *name);
const struct fs_model_spec *fs_scenario_find_model(const struct fs_scenario *sc,
                                                   const char *name);

/*
 * Load a catalogue file: JSON (comments allowed) of the form
 * {"gpus": [GPU...], "models": [MODEL...]}, checked like a scenario's
 * "catalog" section (docs/SCENARIO.md), errors as FILE:LINE:COL: PATH: MSG.
 * Returns a new catalogue (free with fs_catalog_file_free) or NULL with err.
 */
struct fs_catalog_file *fs_catalog_file_load(const char *path, struct fs_error *err);
void fs_catalog_file_free(struct fs_catalog_file *cf);    /* NULL is fine */

/* Lookup in `cf` (may be NULL) first, then the built-ins, with the same
 * shadowing rule as fs_scenario_find_gpu. */
const struct fs_gpu_spec *fs_catalog_file_find_gpu(const struct fs_catalog_file *cf,
                                                   const char *name);
const struct fs_model_spec *fs_catalog_file_find_model(const struct fs_catalog_file *cf,
                                                       const char *name);
/* The id most likely meant by a misspelt name, among `cf`'s ids first, then
 * the built-ins (fs_catalog_suggest_*); NULL when nothing is close. */
const char *fs_catalog_file_suggest_gpu(const struct fs_catalog_file *cf,
                                        const char *name);
const char *fs_catalog_file_suggest_model(const struct fs_catalog_file *cf,
                                          const char *name);

/*
 * Sweep points (the scenario's "sweep" section, docs/SCENARIO.md SWEEP).
 * Points are numbered 0 .. fs_sweep_n_points - 1.  GRID and SEARCH: every
 * combination, the last axis turning fastest (nested loops in axis order);
 * ZIP: point i takes the i-th value of every axis.  A cfg without axes (no
 * "sweep") has one point, the base, with no sets.  At most 8 axes.
 */

/* GRID: the product of the axes' value counts; ZIP: the (common) count;
 * SEARCH: the full grid the search may visit (the product, the search
 * axis's values included).  O(axes). */
size_t fs_sweep_n_points(const struct fs_sweep_cfg *cfg);

/* The value index of every axis at `point` (< fs_sweep_n_points) into
 * value_index_per_axis[0 .. n_axes), and back.  fs_sweep_point_index of a
 * ZIP sweep needs all indices equal. */
void fs_sweep_point_coords(const struct fs_sweep_cfg *cfg, size_t point,
                           size_t *value_index_per_axis);
size_t fs_sweep_point_index(const struct fs_sweep_cfg *cfg,
                            const size_t *value_index_per_axis);

/* The sets that make `point` from the base: sets[a] = "PATH=JSON" for axis
 * a (n_axes heap strings, in axis order; free each, or all with
 * fs_sweep_point_sets_free), ready for fs_scenario_load_variant. */
void fs_sweep_point_sets(const struct fs_sweep_cfg *cfg, size_t point, char **sets);
void fs_sweep_point_sets_free(char **sets, size_t n_axes);

/* "PATH=JSON,PATH=JSON" of `point`, for outputs; truncated to fit len
 * bytes (always terminated when len > 0). */
void fs_sweep_point_label(const struct fs_sweep_cfg *cfg, size_t point,
                          char *buf, size_t len);

/*
 * Parse a duration: a JSON number is seconds; a string is a decimal number
 * followed by one of ns, us, ms, s, m, h, d ("90s", "15m", "1.5h").
 * Returns 0 and sets *out_ns, or -1 with a message in msg (no location).
 */
int fs_duration_parse_text(const char *text, fs_ns *out_ns, char *msg, size_t msg_len);

/* Format a duration in the shortest exact unit ("90s", "1500ms", "2h"). */
void fs_duration_format(fs_ns dur_ns, char *buf, size_t buf_len);

#endif
