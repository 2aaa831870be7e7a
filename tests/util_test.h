/*
 * util_test.h — helpers shared by the cmocka test binaries: a double
 * comparison with absolute and relative tolerance (cmocka 1.1.5 has no
 * assert_double_equal), running the fleetsim binary with its output
 * captured, and the file and JSON chores of whole-run tests (a path in a
 * directory, writing a scenario, reading a figure out of summary.json).
 * Include after <cmocka.h>.
 */
#ifndef FLEETSIM_UTIL_TEST_H
#define FLEETSIM_UTIL_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fails the test unless |a - b| <= abs_tol or |a - b| <= rel_tol * |b|. */
#define assert_near(a, b, abs_tol, rel_tol) \
	fs_test_assert_near((a), (b), (abs_tol), (rel_tol), #a, #b, __FILE__, __LINE__)

void fs_test_assert_near(double a, double b, double abs_tol, double rel_tol,
                         const char *a_text, const char *b_text,
                         const char *file, int line);

/* Fails the test unless text (not NULL) contains every one of the string
 * arguments: assert_has(html, "P(SLO met)", "sha256") is
 * assert_non_null(strstr(html, "P(SLO met)")) and the same for "sha256". */
#define assert_has(text, ...) \
	fs_test_assert_has((text), (const char *const[]){ __VA_ARGS__, NULL }, #text, \
	                   __FILE__, __LINE__)

void fs_test_assert_has(const char *text, const char *const *needles, const char *text_name,
                        const char *file, int line);

/* Fails the test unless lookup(text, &var) returns 0 and sets var to want:
 * a name-to-enum lookup (fs_X_from_name, fs_X_parse) in one line. */
#define assert_lookup(lookup, text, var, want) \
	do { \
		assert_int_equal((lookup)((text), &(var)), 0); \
		assert_int_equal((var), (want)); \
	} while (0)

/* Result of running the binary: exit status, captured stdout and stderr
 * (NUL-terminated, heap-owned; free with fs_test_run_free). */
struct fs_test_run {
	int exit_code;               /* -1 if it did not exit normally */
	char *out;
	char *err;
};

/* Run any program: argv is NULL-terminated with argv[0] the program, looked
 * up in $PATH when it has no '/'; no shell is involved, the environment is
 * inherited.  exit_code is -1 if it could not be started. */
struct fs_test_run fs_test_run_cmd(const char *const *argv);

/* Run the fleetsim binary ($FLEETSIM_BIN, default ./fleetsim) with argv
 * (NULL-terminated, without argv[0]); no shell is involved. */
struct fs_test_run fs_test_run_fleetsim(const char *const *args);

/* 1 if name (a path when it has a '/', else looked up in $PATH) is an
 * executable file, else 0.  For tests that skip when a tool is absent. */
int fs_test_have_cmd(const char *name);
void fs_test_run_free(struct fs_test_run *r);

/* Skip the calling test (saying so) unless `fleetsim report --help` runs. */
void fs_test_need_report(void);

/* Read a whole file into a heap string (NULL if unreadable); *len may be NULL. */
char *fs_test_read_file(const char *path, size_t *len);

/* Create a fresh empty directory under /tmp and return its path (heap). */
char *fs_test_tmpdir(void);

/* Remove a directory made by fs_test_tmpdir with everything in it, then
 * free the path. */
void fs_test_tmpdir_free(char *dir);

/* The world tests' chat class lengths, as members of a class object:
 * lognormal prompts (median 500 tokens, sigma 0.8, at most 8000) and
 * outputs (median 150, sigma 0.8, at most 2000). */
#define FS_TEST_CHAT_LENGTHS \
	"   \"prompt_tokens\": {\"dist\": \"lognormal\", \"median\": 500, " \
	"\"sigma\": 0.8, \"max\": 8000},\n" \
	"   \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 150, " \
	"\"sigma\": 0.8, \"max\": 2000}"

/* The next value of Marsaglia's xorshift64 (13, 7, 17) generator with
 * state *s (not 0): a test's own cheap, fixed pseudo-random sequence. */
uint64_t fs_test_xorshift64(uint64_t *s);

/* Fails the test unless the CSV cell fs_sbuf_csv writes for s (flags as
 * its) is want. */
#define assert_csv_cell(s, flags, want) \
	fs_test_assert_csv_cell((s), (flags), (want), __FILE__, __LINE__)

void fs_test_assert_csv_cell(const char *s, int flags, const char *want, const char *file,
                             int line);

/* "dir/file" (heap; free). */
char *fs_test_path(const char *dir, const char *file);

/* fs_test_read_file of dir/file: its text (heap), or NULL if unreadable. */
char *fs_test_read_at(const char *dir, const char *file);

/* fs_test_read_at, failing the test (naming the path) when unreadable. */
char *fs_test_read_out(const char *dir, const char *file);

/* Fail the test, naming the file, unless each of `files` (NULL-terminated)
 * has the same bytes in directory a as in directory b. */
void fs_test_assert_same_files(const char *a, const char *b, const char *const *files);

/* 1 if something exists at dir/file (dir NULL: at the path file), else 0. */
int fs_test_exists(const char *dir, const char *file);

/* Write text to the file at path, failing the test when it cannot. */
void fs_test_write_file(const char *path, const char *text);

/* Write text to dir/file, failing the test when it cannot; returns the
 * path (heap; free). */
char *fs_test_write(const char *dir, const char *file, const char *text);

/* Run fleetsim with args (as fs_test_run_fleetsim) and fail the test,
 * printing the command's stderr, unless it exits with want_exit; returns
 * the run (fs_test_run_free). */
struct fs_test_run fs_test_fleetsim_expect(const char *const *args, int want_exit);

/* fs_test_fleetsim_expect(args, 0), its output freed. */
void fs_test_fleetsim_ok(const char *const *args);

/* fs_test_fleetsim_expect(args, want_exit) and its stdout parsed as JSON,
 * failing the test when it is not JSON (cJSON_Delete). */
struct cJSON;
struct cJSON *fs_test_fleetsim_json(const char *const *args, int want_exit);

/* The JSON file dir/file (dir NULL: the path file) parsed, failing the
 * test when it cannot be read or is not JSON (cJSON_Delete). */
struct cJSON *fs_test_read_json(const char *dir, const char *file);

/* fs_test_fleetsim_ok(args), then fs_test_read_json(dir, file): the
 * parsed output file of a run (cJSON_Delete). */
struct cJSON *fs_test_fleetsim_output(const char *const *args, const char *dir,
                                      const char *file);

/* Member `key` of o (the whole key: dots are not followed), failing the
 * test when o has none. */
const struct cJSON *fs_test_json_get(const struct cJSON *o, const char *key);

/* The node at `path` of j: member names joined by '.', array items as
 * "[i]" ("tasks[0].plan_cost.monthly"; names hold no '.' or '['); NULL
 * when absent. */
const struct cJSON *fs_test_json_at(const struct cJSON *j, const char *path);

/* The number at `path` of j (as fs_test_json_at), failing the test when it
 * is absent or not a number. */
double fs_test_json_num(const struct cJSON *j, const char *path);

/* The scenario in text, loaded as the file `name` with relative data
 * paths from base_dir, failing the test with the loader's message when it
 * does not load (fs_scenario_free). */
struct fs_scenario *fs_test_load_text(const char *text, const char *name,
                                      const char *base_dir);

/* Llama-3.1-8B on L40S serving one class "chat" (FS_TEST_CHAT_LENGTHS
 * and `class_extra`: further members, each after a comma, or "") of
 * Poisson traffic at rate_per_s, with the given "fleet" object: `horizon`
 * after `warmup`, `reps` replications on `seed`, `root` (members each
 * followed by a comma, or "") at the document's start.  Loaded as the file
 * `name` with tests/data/fleet as the base directory (fs_test_load_text). */
struct fs_test_chat {
	double rate_per_s;
	const char *horizon, *warmup;
	int reps;
	unsigned seed;
	const char *root, *class_extra, *fleet_json, *name;
};
struct fs_scenario *fs_test_chat_fleet(const struct fs_test_chat *c);

/* Fails the test unless a figure that is the same in every replication
 * came out: ci's mean, low and high all `expected` (within 1e-9, or
 * 1e-12 relative), naming the caller's line. */
#define assert_exact_ci(ci, expected) \
	fs_test_assert_exact_ci((ci), (expected), #ci, __FILE__, __LINE__)

struct fs_ci;
void fs_test_assert_exact_ci(const struct fs_ci *ci, double expected, const char *ci_text,
                             const char *file, int line);

/* fn(c, cfg, arg) for a step cache of every built-in GPU and model at each
 * tensor-parallel degree of tps[0 .. n_tps) (fs_perf_cfg_defaults, then
 * that TP; fs_perf_step_cache_init), the cache freed after each. */
struct fs_perf_step_cache;
struct fs_perf_cfg;
typedef void fs_test_step_cache_fn(struct fs_perf_step_cache *c, const struct fs_perf_cfg *cfg,
                                   void *arg);
void fs_test_each_step_cache(const int *tps, size_t n_tps, fs_test_step_cache_fn *fn,
                             void *arg);

/* Erlang's C formula: the probability that an arrival waits in M/M/c with
 * c servers and an offered load of a Erlangs (a < c). */
double fs_test_erlang_c(int c, double a);

/* MODEL: F3 — a pool's cold start in seconds: the download of all TP
 * GPUs' weights, the load of one GPU's, the engine start. */
struct fs_pool_cfg;
double fs_test_cold_start_s(const struct fs_pool_cfg *pc);

/* An M/M/1 queue in sc (named "mm1"), its one class ("jobs", one token
 * in and out) in cls: Poisson arrivals at rate_per_s, exponential service
 * of mean service_ns on one server, the horizon and warm-up given, samples
 * every tenth of the horizon, `replications` by default. */
struct fs_scenario;
struct fs_class_cfg;
void fs_test_mm1(struct fs_scenario *sc, struct fs_class_cfg *cls, double rate_per_s, int64_t service_ns, int64_t horizon_ns,
                 int64_t warmup_ns, int replications);

/* A "fleet" object (JSON text; load it with tests/data/fleet as the base
 * directory): one warm spot L40S "spot" at 0.90/h in zone z, whose replayed
 * capacity (one_node_gone_10m_to_20m.csv) is 1, then 0 from 10 min, then 1
 * from 20 min; notice 5 min, in_flight drain, a relaunch retry every 2 h;
 * strategy fallback to the on-demand pool "od" (3.60/h, billed per started
 * hour); both provisioned in a fixed 60 s. */
#define FS_TEST_FALLBACK_FLEET \
	"{\"strategy\": \"fallback\", \"zones\": [{\"name\": \"z\", \"capacity_trace\": " \
	"{\"path\": \"one_node_gone_10m_to_20m.csv\", \"format\": \"spotserve\", " \
	"\"loop\": false}}], \"pools\": [{\"name\": \"spot\", \"pricing\": \"spot\", " \
	"\"count\": 1, \"price_per_h\": 0.90, \"fallback_pool\": \"od\", " \
	"\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"60s\"}, " \
	"\"spot\": {\"interruption_rate_per_month\": 0, \"notice\": \"5m\", " \
	"\"in_flight\": \"drain\", \"relaunch_retry\": \"2h\"}}, " \
	"{\"name\": \"od\", \"count\": 0, \"price_per_h\": 3.60, " \
	"\"provisioning\": {\"dist\": \"fixed\", \"mean\": \"60s\"}, " \
	"\"billing\": {\"granularity\": \"hour\"}}]}"

/* `fleetsim budget` of the plan text (written to dir/plan.json) into
 * dir/out, -q: its budget.json parsed, failing the test when the command
 * fails (cJSON_Delete). */
struct cJSON *fs_test_budget_json(const char *dir, const char *plan);

/* sc's own replications on its own seed, on `threads` threads, keeping
 * replication 0's request rows when `rows`: fs_replicate_run's results
 * (fs_replicate_free with sc->sim.replications). */
struct fs_rep_result;
struct fs_rep_result **fs_test_replicate(const struct fs_scenario *sc, int threads, bool rows);

/* fs_test_replicate(sc, threads, false) summarised, the results freed
 * (fs_summary_free). */
struct fs_summary;
struct fs_summary *fs_test_summarise(const struct fs_scenario *sc, int threads);

/* The time-weighted mean of pool p's desired instance count over the
 * horizon (the autoscaler's decisions). */
double fs_test_mean_desired(const struct fs_rep_result *r, size_t p);

#endif
