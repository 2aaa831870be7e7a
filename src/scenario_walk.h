/*
 * scenario_walk.h — the strict walk over a parsed scenario and the other JSON
 * inputs (scenario_hf_config.c, calib_input.c, ckpt_load.c, budget_*.c): a context
 * carrying the file name, the position index and the current JSON path, and
 * typed readers that check type and range and report FILE:LINE:COL: PATH:
 * MESSAGE.  Readers return 1 (present, *out set), 0 (absent) or -1 (error set).
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
#include "fleetsim/scenario.h"
#include "json_pos.h"

struct fs_catalog_file;
struct fs_scenario;
struct fs_fleet_cfg;
struct fs_objective_cfg;
struct fs_pool_cfg;
struct fs_spot_cfg;
struct fs_sweep_cfg;
struct fs_gpu_spec;
struct fs_model_spec;

#define FS__MAX_LENGTH_TOKENS INT64_C(1048576)     /* default "max" of a LENGTH */
#define FS__MAX_INT_JSON INT64_C(9007199254740992) /* 2^53: exact in a double */
/* Bounds on the work a scenario implies (docs/SCENARIO.md, "Ranges"). */
#define FS__MAX_HORIZON_NS (INT64_C(3660) * 86400 * 1000000000) /* 10 years */
#define FS__MAX_BINS 100000.0        /* horizon / sample_interval */
#define FS__MAX_BIN_CELLS 1000000.0  /* bins x (pools + 1) */
#define FS__MAX_ARRIVALS 1e9         /* expected arrivals per replication */
/* simulation.max_in_system: the requests one replication holds in memory at
 * once (at 10^7: a peak of about 4.4 GB on the vllm engine, 1.6 GB on queue). */
#define FS__MAX_IN_SYSTEM INT64_C(10000000)
#define FS__MAX_CV 100.0             /* any coefficient of variation */
#define FS__MAX_RATE_PER_S 1e7       /* any arrival rate */
#define FS__MAX_SERVICE_NS (INT64_C(86400) * 1000000000) /* a queue service mean */
#define FS__MAX_DELAY_NS FS__MAX_HORIZON_NS /* any fleet delay, notice, outage,
                                             * retry, schedule step: t + d cannot
                                             * overflow */
#define FS__MAX_FLEET_EVENTS 1e9     /* relaunch retries, zone reclaims per replication */
#define FS__MAX_SCALE_EVALS 1e8      /* horizon / autoscale interval */
#define FS__MAX_RUNS 1e8             /* sweep points x replications (a cap) */
#define FS__MAX_KV_BLOCKS INT64_C(1000000000) /* a pinned kv_blocks */
#define FS__MAX_OVERHEAD_NS (INT64_C(3600) * 1000000000) /* a catalog overhead */

struct fs__sc {
	const char *file;            /* name used in messages (borrowed) */
	const char *text;            /* stripped source text (borrowed) */
	size_t text_len;
	struct fs__jpos *pos;        /* node positions (borrowed; sets index new nodes) */
	const char *base_dir;        /* for relative data-file paths (borrowed) */
	struct fs_error *err;        /* may be NULL */
	const struct fs_catalog_file *catalog; /* own GPUs/models, may be NULL (borrowed) */
	char path[256];              /* current JSON path, "" at the root */
	size_t path_len;
	const cJSON *fleet_node;     /* root "fleet", NULL when absent (borrowed) */
	const cJSON *engine_node;    /* root "engine" (borrowed) */
	const struct fs_gpu_spec *engine_gpu; /* engine "gpu" with a fleet, or NULL */
	int engine_tp;               /* engine "tp" (default 1) */
	const char *const *set_texts;/* command-line sets ("path=json"), whose nodes
	                              * sit at FS__JPOS_SET_BASE + i (borrowed) */
	size_t n_set_texts;
	uint64_t open_pricing;       /* bit i: a sweep axis, a variant or a set of
	                              * this load names fleet.pools[i].pricing
	                              * (fs__sc_note_open_pricing) */
	unsigned n_failures;         /* errors reported so far: a walk that returns
	                              * success after one is a bug, and fails */
	const struct fs_sweep_cfg *point_sweep; /* loading sweep point `point`
	                              * of this cfg (the base's), or NULL */
	size_t point;
};

/* A copy of the current path, to report at another path and come back. */
struct fs__sc_saved_path {
	char path[256];
	size_t len;
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

/* The directory of path ("." when it has none; heap). */
char *fs__sc_dir_of(const char *path);

/* Read the file at path (`what` as fs__sc_read_file), parse it and call
 * load(sc, root, ctx) with a walk over it: file, text and positions set,
 * base_dir the file's directory, errors into err.  Nothing load keeps may
 * point into the tree or the text, which are freed on return.  Returns 0,
 * or -1 when the file cannot be read or parsed, load fails or reported an
 * error.  fs__sc_load_text does the same for the file's text already read
 * (len bytes; path names it in messages and gives base_dir). */
int fs__sc_load_text(const char *text, size_t len, const char *path,
                     int (*load)(struct fs__sc *sc, const cJSON *root, void *ctx),
                     void *ctx, struct fs_error *err);
int fs__sc_load_file(const char *path, const char *what,
                     int (*load)(struct fs__sc *sc, const cJSON *root, void *ctx),
                     void *ctx, struct fs_error *err);

/* Load obj[key] with load(sc, obj[key], ctx) under the path extended by
 * key; 0 without doing anything when obj has no key.  Returns load's. */
int fs__sc_member(struct fs__sc *sc, const cJSON *obj, const char *key,
                  int (*load)(struct fs__sc *sc, const cJSON *node, void *ctx), void *ctx);

/* MODEL: B9 — root "currency" into out (len bytes, NUL included): a
 * label of 1 to len - 1 characters without spaces, quotes or < > & ` $;
 * default "USD".  Returns 0 or -1 (reported at the key). */
int fs__sc_load_currency(struct fs__sc *sc, const cJSON *root, char *out, size_t len);

/* ---- path ---------------------------------------------------------------- */

/* Append ".key" (or "key" at the root) / "[i]"; return the length to restore
 * with fs__sc_pop. */
size_t fs__sc_push_key(struct fs__sc *sc, const char *key);
size_t fs__sc_push_index(struct fs__sc *sc, size_t i);
void fs__sc_pop(struct fs__sc *sc, size_t saved_len);
void fs__sc_path_save(const struct fs__sc *sc, struct fs__sc_saved_path *saved);
void fs__sc_path_restore(struct fs__sc *sc, const struct fs__sc_saved_path *saved);
/* Replace the current path by `path` ("" = the root). */
void fs__sc_path_set(struct fs__sc *sc, const char *path);

/* ---- errors (all return -1) ------------------------------------------------ */

/* "FILE:LINE:COL" of node's value (heap), for an error found after the
 * load (a study run on the loaded values) to be reported at its place. */
char *fs__sc_place(const struct fs__sc *sc, const cJSON *node);

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

/* Check that node is an array of min..max elements, `what` naming them in
 * the message at node with the current path: "expected MIN to MAX WHAT,
 * found N" (an empty one: "found an empty array"). */
int fs__sc_check_array(struct fs__sc *sc, const cJSON *node, int min, int max,
                       const char *what);

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

/* fs__sc_duration that also refuses a value above max_ns (at the key:
 * "expected a duration <= MAX, found X"). */
static inline int fs__sc_duration_upto(struct fs__sc *sc, const cJSON *obj, const char *key,
                                       fs_ns min_ns, fs_ns max_ns, fs_ns *out)
{
	fs_ns v = 0;
	char found[64], bound[40];
	int rc = fs__sc_duration(sc, obj, key, min_ns, &v);

	if (rc != 1)
		return rc;
	if (v > max_ns) {
		fs__sc_found(sc, fs__sc_get(obj, key), found, sizeof found);
		fs_duration_format(max_ns, bound, sizeof bound);
		return fs__sc_fail_member(sc, obj, key, "expected a duration <= %s, found %s",
		                          bound, found);
	}
	*out = v;
	return 1;
}

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

/* Check that the data file `rel` (the string obj[key]; `what` names it:
 * "trace") opens as a file, not a directory.  Returns 0 with *full_out the
 * resolved path (heap; caller frees), or -1 with the error at obj[key]. */
int fs__sc_open_data(struct fs__sc *sc, const cJSON *obj, const char *key,
                     const char *rel, const char *what, char **full_out);

/* After a data-file reader failed with sc->err at the file's own
 * FILE:LINE:COL: name the scenario key that pointed at the file (obj[key],
 * the path) and its location in the message.  Returns -1. */
int fs__sc_data_failed(struct fs__sc *sc, const cJSON *obj, const char *key);

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

/* A LENGTH object at `node` (the path names it; scenario_workload.c);
 * "dist": "trace" only when from_trace. */
int fs__sc_load_length(struct fs__sc *sc, const cJSON *node, bool from_trace,
                       struct fs_length_cfg *cfg);
/* parent[key] = the LENGTH's JSON form (scenario_print.c). */
void fs__sc_print_length(cJSON *parent, const char *key, const struct fs_length_cfg *l);
/* A class's closed-loop keys "users", "think", "session" (scenario_users.c):
 * sets cl->closed (NULL for an open class); fs__sc_check_closed runs once
 * the lengths are loaded; fs__sc_closed_fini frees; fs__sc_print_closed adds
 * the keys to the class's printed object. */
int fs__sc_load_closed(struct fs__sc *sc, const cJSON *node, struct fs_class_cfg *cl);
int fs__sc_check_closed(struct fs__sc *sc, const cJSON *node, const struct fs_class_cfg *cl);
void fs__sc_closed_fini(struct fs_class_cfg *cl);
void fs__sc_print_closed(cJSON *obj, const struct fs_class_cfg *cl);

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
/* With an explicit fleet the printed engine ("gpu", "tp" and the resolved
 * scheduler of pool 0) must not pin pool 0's GPU-dependent defaults on
 * every pool: drop max_num_seqs / max_num_batched_tokens where every pool
 * has its own GPU's default (V17). */
void fs__sc_print_vllm_fleet(const struct fs_fleet_cfg *fleet, cJSON *engine);

/* The vllm engine's "efficiency" object (scenario_efficiency.c): load its
 * overrides onto perf's default sentinels; print back the given ones. */
int fs__sc_load_efficiency(struct fs__sc *sc, const cJSON *node, struct fs_perf_cfg *perf);
void fs__sc_print_efficiency(const struct fs_perf_cfg *p, cJSON *engine);

/* Build one instance's llm config on (gpu, tp) from the vllm engine object
 * `node` (the current path must name it): dtypes, memory, scheduler (V17
 * defaults of this GPU), efficiency and step table, then the memory plan,
 * whose failure is reported at plan_at (default node) with plan_path
 * (default the current path).  llm must start zeroed; fs__sc_llm_fini. */
int fs__sc_llm_build(struct fs__sc *sc, const cJSON *node,
                     const struct fs_gpu_spec *gpu, const struct fs_model_spec *model,
                     int tp, const cJSON *plan_at, const char *plan_path,
                     struct fs_llm_cfg *llm);
/* Free the step table and its path of llm (NULL or zeroed is fine). */
void fs__sc_llm_fini(struct fs_llm_cfg *llm);
/* The engine's resolved model (NULL when "model" is missing or unknown). */
const struct fs_model_spec *fs__sc_vllm_model(const struct fs__sc *sc, const cJSON *node);
/* obj[key] as a GPU name through the catalogues: 1 set, 0 absent, -1 error
 * (unknown name, with a suggestion). */
int fs__sc_vllm_gpu(struct fs__sc *sc, const cJSON *obj, const char *key,
                    const struct fs_gpu_spec **gpu);

/* The "fleet" section (scenario_fleet.c, pools in scenario_pool.c): needs
 * the workload and the engine loaded; fills s->fleet (explicit) and, when
 * the engine names no GPU, s->engine.llm from pool 0.  Without "fleet",
 * fs__sc_fleet_implicit builds the single warm on-demand pool of a vllm
 * engine (nothing for a queue engine). */
int fs__sc_load_fleet(struct fs__sc *sc, const cJSON *node, struct fs_scenario *s);
void fs__sc_fleet_implicit(struct fs_scenario *s);
/* The work a loaded fleet implies over the horizon (docs/SCENARIO.md,
 * "Work bounds"): relaunch retries and zone reclaims per replication,
 * autoscaler evaluations.  0 or -1 with the error at the key that sets it. */
int fs__sc_check_fleet_work(struct fs__sc *sc, const cJSON *root, const struct fs_scenario *s);
/* Free what the fleet owns and zero it; zeroed is fine. */
void fs__sc_fleet_fini(struct fs_fleet_cfg *fleet);
/* The "fleet" object of an explicit fleet (caller deletes). */
cJSON *fs__sc_print_fleet(const struct fs_scenario *s);

/* One pool (scenario_pool.c): `node` is fleet.pools[i] (the current path);
 * names of earlier pools are in fleet->pools[0..i).  Cross-references to
 * pools (fallback_pool) are resolved by fs__sc_resolve_fallbacks. */
int fs__sc_load_pool(struct fs__sc *sc, const cJSON *node, struct fs_scenario *s,
                     struct fs_pool_cfg *pool);
int fs__sc_resolve_fallbacks(struct fs__sc *sc, const cJSON *pools_node,
                             struct fs_fleet_cfg *fleet);
void fs__sc_pool_fini(struct fs_pool_cfg *pool);
/* Every default of a pool that does not depend on its GPU or pricing. */
void fs__sc_pool_defaults(struct fs_pool_cfg *pool);
cJSON *fs__sc_print_pool(const struct fs_scenario *s, const struct fs_pool_cfg *pool);
/* The index of name among names[0..n) (NULL entries skipped), or fail at
 * obj[key] with `unknown WHAT "name"` and the nearest (did you mean). */
int fs__sc_find_name(struct fs__sc *sc, const cJSON *obj, const char *key,
                     const char *what, const char *const *names, size_t n, int *out);
/* Same for `node` itself (an array element), at the current path. */
int fs__sc_find_name_at(struct fs__sc *sc, const cJSON *node, const char *what,
                        const char *const *names, size_t n, int *out);
/* Print v so that forward(printed) == stored exactly: tries `guess` and its
 * nearest neighbours (forward of a derived unit may not round-trip). */
void fs__sc_print_inverse(cJSON *obj, const char *key, double stored, double guess,
                          double (*forward)(double x, double arg), double arg);

/* Variants and command-line sets (scenario_variant.c).  Patch root in place:
 * the named variant's sets (variant NULL: none), then each "path=json" of
 * sets; with either, the "variants" key is removed first.  New nodes are
 * indexed in pos at the offsets of the values they copy (command-line
 * sets: FS__JPOS_SET_BASE + i).  Returns 0 or -1 with sc->err. */
int fs__sc_apply_variant(struct fs__sc *sc, cJSON *root, struct fs__jpos *pos,
                         const char *variant, const char *const *sets, size_t n_sets);
/* Check the root "variants" array (`node`; the path names it): objects
 * {"name", "set"}, names unique, every path resolving in the base document. */
int fs__sc_check_variants(struct fs__sc *sc, const cJSON *root, const cJSON *node);

/* A copy of the base document `root` to try set paths on, without its
 * "variants", "sweep" and "objective" (caller deletes). */
cJSON *fs__sc_base_copy(const cJSON *root);
/* Set `path` in doc to a copy of `value`, exactly as a variant's set would
 * (new nodes indexed in pos at value's offsets).  Returns 0, or -1 with the
 * variant's message ("no key \"pols\" at fleet; did you mean ...") in msg. */
int fs__sc_try_set(cJSON *doc, struct fs__jpos *pos, const char *path,
                   const cJSON *value, char *msg, size_t msg_len);

/* N when path[0..path_len) is "fleet.pools[N].KEY" (any spelling the set
 * syntax reads as that), else -1. */
long fs__sc_pool_key_index(const char *path, size_t path_len, const char *key);

/* ---- spot (scenario_spot.c) ------------------------------------------------- */

/* A pool's "spot" object (`node`; the path names it): every key checked;
 * *sp (the pool's defaults) is updated only when all are valid. */
int fs__sc_load_spot(struct fs__sc *sc, const cJSON *node, struct fs_spot_cfg *sp);
/* pool["spot"] = sp, every key written (a band when the rate is one). */
void fs__sc_print_spot(cJSON *pool, const struct fs_spot_cfg *sp);

/* The pool keys only a spot pool uses: "spot", "overprovision",
 * "price_schedule", "fallback_pool" (NULL-terminated). */
extern const char *const fs__sc_spot_only_keys[];
/* Record in sc->open_pricing the pools whose pricing the root's sweep axes,
 * its variants' sets or the command-line `sets` name; call on the parsed
 * root before a variant or the sets are applied (they drop "sweep" and
 * "variants").  A pool with open pricing may carry its spot-only keys
 * where it is not spot (checked, unused). */
void fs__sc_note_open_pricing(struct fs__sc *sc, const cJSON *root,
                              const char *const *sets, size_t n_sets);
bool fs__sc_pricing_open(const struct fs__sc *sc, size_t pool);
/* The spot-only keys of pool object `node` as written, as the text of one
 * JSON object (heap, caller frees), or NULL when it has none. */
char *fs__sc_spot_only_text(const cJSON *node);
/* Add p's unused spot-only keys to its printed object `pool` when the
 * scenario's sweep sets its pricing (so the printed sweep runs as the
 * file's); nothing otherwise. */
void fs__sc_print_unused_spot(const struct fs_scenario *s, const struct fs_pool_cfg *p,
                              cJSON *pool);
/* A `//` line naming p's unused spot-only keys, if any; 0 or -1 (write). */
int fs__sc_print_unused_spot_note(const struct fs_scenario *s, const struct fs_pool_cfg *p,
                                  FILE *out);

/* The root "sweep" (scenario_sweep.c) and "objective" (scenario_objective.c)
 * sections; `node` is the section (the path names it).  The sweep's axis
 * paths are tried on a base copy of `root`; the objective needs the
 * workload's classes and sim.replications loaded.  Fill cfg (zeroed); the
 * finis free what a load attached, also after an error. */
int fs__sc_load_sweep(struct fs__sc *sc, const cJSON *root, const cJSON *node,
                      struct fs_sweep_cfg *cfg);
void fs__sc_sweep_fini(struct fs_sweep_cfg *cfg);
/* Sweep points x the replications each may run (replications, or the
 * objective's max_replications) at most FS__MAX_RUNS: 0, or -1 at "sweep". */
int fs__sc_check_sweep_work(struct fs__sc *sc, const cJSON *root, const struct fs_scenario *s);
cJSON *fs__sc_print_sweep(const struct fs_sweep_cfg *cfg);
int fs__sc_load_objective(struct fs__sc *sc, const cJSON *node,
                          const struct fs_scenario *s, struct fs_objective_cfg *cfg);
void fs__sc_objective_fini(struct fs_objective_cfg *cfg);
cJSON *fs__sc_print_objective(const struct fs_scenario *s);

/* A {"gpus": [...], "models": [...]} object (scenario_catalog.c): the
 * scenario's "catalog" section or a --catalog file.  Fills cf (zeroed). */
int fs__sc_load_catalog(struct fs__sc *sc, const cJSON *node, struct fs_catalog_file *cf);
/* Free the entries of cf and zero it; zeroed cf is fine. */
void fs__sc_catalog_fini(struct fs_catalog_file *cf);
/* The entry of cf's first n GPUs (models) whose id is `id`, case-insensitive,
 * or NULL; no built-in fallback (scenario_catalog_find.c). */
const struct fs_gpu_spec *fs__sc_catalog_own_gpu(const struct fs_catalog_file *cf,
                                                 const char *id, size_t n);
const struct fs_model_spec *fs__sc_catalog_own_model(const struct fs_catalog_file *cf,
                                                     const char *id, size_t n);
/* The JSON form of cf ({"gpus": [...], "models": [...]}; caller deletes). */
cJSON *fs__sc_print_catalog(const struct fs_catalog_file *cf);
/* The same with every GPU entry complete and without "base", followed by
 * the n_extra GPUs of extra (built-ins the scenario uses), also complete;
 * extra non-NULL selects this form even when n_extra is 0.  !usd leaves out
 * the USD example prices with their date and source (a scenario in another
 * currency prices every pool itself). */
cJSON *fs__sc_print_catalog_full(const struct fs_catalog_file *cf,
                                 const struct fs_gpu_spec *const *extra, size_t n_extra,
                                 bool usd);

/* ---- printing helpers (scenario_print.c) ----------------------------------- */

/* obj[key] = v, written with the fewest digits that read back exactly
 * (cJSON's own printer may drop the last bits of large integers). */
void fs__sc_print_number(cJSON *obj, const char *key, double v);
/* v as text with the fewest digits (15 to 17) that read back exactly
 * ("0.1", not "0.10000000000000001"): the form of numbers in printed
 * scenarios and in the loader's messages. */
void fs__sc_format_number(double v, char *buf, size_t buf_len);
/* obj[key] = "90s": the duration in its shortest exact unit. */
void fs__sc_print_duration(cJSON *obj, const char *key, fs_ns dur_ns);

#endif
