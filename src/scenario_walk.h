/*
 * scenario_walk.h — the strict walk over a parsed scenario: a context that
 * carries the file name, the position index and the current JSON path, and
 * typed readers that check type and range and report errors as
 * FILE:LINE:COL: PATH: MESSAGE.  Shared by src/scenario*.c only.  Readers
 * return 1 (present, *out set), 0 (absent, *out untouched) or -1 (error set).
 */
#ifndef FLEETSIM_SCENARIO_WALK_H
#define FLEETSIM_SCENARIO_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "fleetsim/common.h"
#include "fleetsim/config.h"
#include "json_pos.h"

struct fs_catalog_file;

#define FS__MAX_LENGTH_TOKENS INT64_C(1048576)     /* default "max" of a LENGTH */
#define FS__MAX_INT_JSON INT64_C(9007199254740992) /* 2^53: exact in a double */

struct fs__sc {
	const char *file;            /* name used in messages (borrowed) */
	const char *text;            /* stripped source text (borrowed) */
	size_t text_len;
	const struct fs__jpos *pos;  /* node positions (borrowed) */
	const char *base_dir;        /* for relative data-file paths (borrowed) */
	struct fs_error *err;        /* may be NULL */
	const struct fs_catalog_file *catalog; /* own GPUs/models, may be NULL (borrowed) */
	char path[256];              /* current JSON path, "" at the root */
	size_t path_len;
};

/* ---- text ------------------------------------------------------------------ */

/* Read the whole file at `path` (at most 64 MiB); `what` names it in
 * messages ("cannot open WHAT: ..."). Heap (caller frees) or NULL with err. */
char *fs__sc_read_file(const char *path, const char *what, size_t *len,
                       struct fs_error *err);

/* Strip comments from a copy of text, parse it and index node positions.
 * Returns the root (cJSON_Delete) with *buf_out (the stripped text, free)
 * and *pos_out (fs__jpos_free), or NULL with err set at FILE:LINE:COL, $. */
cJSON *fs__sc_parse(const char *text, size_t text_len, const char *file,
                    char **buf_out, struct fs__jpos **pos_out, struct fs_error *err);

/* ---- path ---------------------------------------------------------------- */

/* Append ".key" (or "key" at the root) / "[i]"; return the length to restore
 * with fs__sc_pop. */
size_t fs__sc_push_key(struct fs__sc *sc, const char *key);
size_t fs__sc_push_index(struct fs__sc *sc, size_t i);
void fs__sc_pop(struct fs__sc *sc, size_t saved_len);

/* ---- errors (all return -1) ------------------------------------------------ */

/* At node's value (an object's '{'), with the current path. */
int fs__sc_fail_at(struct fs__sc *sc, const cJSON *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* At node's key, with the current path. */
int fs__sc_fail_at_key(struct fs__sc *sc, const cJSON *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* At the value of obj[key], with path extended by key. */
int fs__sc_fail_member(struct fs__sc *sc, const cJSON *obj, const char *key,
                       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* At the key of obj[key], with path extended by key. */
int fs__sc_fail_member_key(struct fs__sc *sc, const cJSON *obj, const char *key,
                           const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "a string", "a number", "an object", "an array", "a boolean", "null". */
const char *fs__sc_type_name(const cJSON *node);

/* The value as written in the source ("1.5", "\"2h\""), for "found ...". */
void fs__sc_found(const struct fs__sc *sc, const cJSON *node, char *buf, size_t buf_len);

/* ---- structure ------------------------------------------------------------- */

/* Check that node is an object whose keys are all in `keys` (NULL-terminated)
 * and appear once.  Errors: wrong type, unknown key (with a suggestion or the
 * list of valid keys), duplicate key. */
int fs__sc_check_object(struct fs__sc *sc, const cJSON *node, const char *const *keys);

/* obj[key] (case-sensitive) or NULL. */
const cJSON *fs__sc_get(const cJSON *obj, const char *key);

/* Fail with `missing required key "key"` at obj's '{' unless obj has it. */
int fs__sc_require(struct fs__sc *sc, const cJSON *obj, const char *key);

/* Fail at obj[key]'s key when present: `key "K" is not allowed REASON`. */
int fs__sc_forbid(struct fs__sc *sc, const cJSON *obj, const char *key,
                  const char *reason);

/* ---- typed readers: 1 present, 0 absent, -1 error ------------------------ */

/* A finite number in [lo, hi]; lo_open / hi_open make that end exclusive
 * (use -INFINITY / INFINITY for no bound). */
int fs__sc_number(struct fs__sc *sc, const cJSON *obj, const char *key,
                  double lo, bool lo_open, double hi, bool hi_open, double *out);

/* An integer (a number with no fraction) in [lo, hi]. */
int fs__sc_int(struct fs__sc *sc, const cJSON *obj, const char *key,
               int64_t lo, int64_t hi, int64_t *out);

/* A duration (string with unit, or number of seconds) >= min_ns. */
int fs__sc_duration(struct fs__sc *sc, const cJSON *obj, const char *key,
                    fs_ns min_ns, fs_ns *out);

/* A string; non-empty unless allow_empty. */
int fs__sc_string(struct fs__sc *sc, const cJSON *obj, const char *key,
                  bool allow_empty, const char **out);

int fs__sc_bool(struct fs__sc *sc, const cJSON *obj, const char *key, bool *out);

/* One of `names` (NULL-terminated); *out is its index.  `what` names the
 * thing in the message: `unknown WHAT "x"; expected one of a, b (did you
 * mean "a"?)`. */
int fs__sc_enum(struct fs__sc *sc, const cJSON *obj, const char *key,
                const char *what, const char *const *names, int *out);

/* ---- data files ------------------------------------------------------------- */

/* `rel` resolved against the scenario's directory (heap; caller frees). */
char *fs__sc_resolve_path(const struct fs__sc *sc, const char *rel);

/* ---- sections (one file each) ---------------------------------------------- */

/* Each loader checks `node` (the section's value; the path already names it)
 * and fills cfg, which must start zeroed.  On error it returns -1 with the
 * error set and leaves what it attached in cfg for the matching fini. */

/* An ARRIVALS object (scenario_arrivals.c); loads the trace file if any. */
int fs__sc_load_arrivals(struct fs__sc *sc, const cJSON *node, struct fs_arrival_cfg *cfg);
/* Free the schedule, spikes and trace of cfg; zeroed cfg is fine. */
void fs__sc_arrivals_fini(struct fs_arrival_cfg *cfg);

/* The "workload" section (scenario_workload.c). */
int fs__sc_load_workload(struct fs__sc *sc, const cJSON *node, struct fs_workload_cfg *cfg);

/* Free the classes and the shared arrivals; zeroed cfg is fine. */
void fs__sc_workload_fini(struct fs_workload_cfg *cfg);

/* The "engine" section (scenario_engine.c), dispatched on "type".  Model
 * and GPU names resolve through sc->catalog, which must be loaded first. */
int fs__sc_load_engine(struct fs__sc *sc, const cJSON *node, struct fs_engine_cfg *cfg);
/* Add the engine section's JSON form to `engine` (an empty object). */
void fs__sc_print_engine(const struct fs_engine_cfg *cfg, cJSON *engine);
/* Free what a loaded engine owns (vllm: the step table); zeroed cfg is fine. */
void fs__sc_engine_fini(struct fs_engine_cfg *cfg);

/* The "vllm" engine type (scenario_llm.c): its keys (NULL-terminated), its
 * loader (the table has checked the keys; fills cfg->llm), its printer and
 * the derived notes fs_scenario_print_notes writes as comments. */
extern const char *const fs__sc_vllm_keys[];
int fs__sc_load_vllm(struct fs__sc *sc, const cJSON *node, struct fs_engine_cfg *cfg);
void fs__sc_print_vllm(const struct fs_engine_cfg *cfg, cJSON *engine);
int fs__sc_print_vllm_notes(const struct fs_llm_cfg *llm, FILE *out);

/* A {"gpus": [...], "models": [...]} object (scenario_catalog.c): the
 * scenario's "catalog" section or a --catalog file.  Fills cf (zeroed). */
int fs__sc_load_catalog(struct fs__sc *sc, const cJSON *node, struct fs_catalog_file *cf);
/* Free the entries of cf and zero it; zeroed cf is fine. */
void fs__sc_catalog_fini(struct fs_catalog_file *cf);
/* The JSON form of cf ({"gpus": [...], "models": [...]}; caller deletes). */
cJSON *fs__sc_print_catalog(const struct fs_catalog_file *cf);

/* ---- printing helpers (scenario_print.c) ----------------------------------- */

/* obj[key] = v, written with the fewest digits that read back exactly
 * (cJSON's own printer may drop the last bits of large integers). */
void fs__sc_print_number(cJSON *obj, const char *key, double v);
/* obj[key] = "90s": the duration in its shortest exact unit. */
void fs__sc_print_duration(cJSON *obj, const char *key, fs_ns dur_ns);

#endif
