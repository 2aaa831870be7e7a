/*
 * util_test.c — see util_test.h.  Every helper that can fail fails the
 * calling test through cmocka; every string or tree it returns is the
 * caller's.
 */
#define _XOPEN_SOURCE 700      /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <ftw.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "fleetsim/catalog.h"
#include "fleetsim/common.h"
#include "fleetsim/perf.h"
#include "fleetsim/escape.h"
#include "util_test.h"

extern char **environ;

void fs_test_assert_near(double a, double b, double abs_tol, double rel_tol,
                         const char *a_text, const char *b_text,
                         const char *file, int line)
{
	double diff = fabs(a - b);

	if (diff <= abs_tol || diff <= rel_tol * fabs(b))
		return;
	print_error("%s:%d: %s = %.12g is not near %s = %.12g "
	            "(|diff| %.3g, abs tol %.3g, rel tol %.3g)\n",
	            file, line, a_text, a, b_text, b, diff, abs_tol, rel_tol);
	_fail(file, line);
}

void fs_test_assert_has(const char *text, const char *const *needles, const char *text_name,
                        const char *file, int line)
{
	for (; *needles != NULL; needles++) {
		if (text != NULL && strstr(text, *needles) != NULL)
			continue;
		print_error("%s:%d: %s does not contain \"%s\"\n", file, line, text_name,
		            *needles);
		_fail(file, line);
	}
}

char *fs_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, used = 0, got;

	if (f == NULL)
		return NULL;
	do {
		if (used + 4096 + 1 > cap) {
			cap = cap == 0 ? 8192 : cap * 2;
			buf = realloc(buf, cap);
			if (buf == NULL)
				abort();
		}
		got = fread(buf + used, 1, cap - used - 1, f);
		used += got;
	} while (got > 0);
	fclose(f);
	buf[used] = '\0';
	if (len != NULL)
		*len = used;
	return buf;
}

struct fs_test_run fs_test_run_cmd(const char *const *argv)
{
	struct fs_test_run r = { -1, NULL, NULL };
	char out_path[] = "/tmp/fleetsim-test-out-XXXXXX";
	char err_path[] = "/tmp/fleetsim-test-err-XXXXXX";
	int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;

	if (out_fd < 0 || err_fd < 0)
		abort();
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	/* posix_spawnp never writes the strings of argv */
	if (posix_spawnp(&pid, argv[0], &fa, NULL, fs_unconst(argv), environ) == 0 &&
	    waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		r.exit_code = WEXITSTATUS(status);
	posix_spawn_file_actions_destroy(&fa);
	close(out_fd);
	close(err_fd);
	r.out = fs_test_read_file(out_path, NULL);
	r.err = fs_test_read_file(err_path, NULL);
	unlink(out_path);
	unlink(err_path);
	return r;
}

struct fs_test_run fs_test_run_fleetsim(const char *const *args)
{
	const char *bin = getenv("FLEETSIM_BIN");
	const char *argv[64];
	size_t n = 0;

	if (bin == NULL || bin[0] == '\0')
		bin = "./fleetsim";
	argv[n++] = bin;
	while (args[n - 1] != NULL && n < 63) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	return fs_test_run_cmd(argv);
}

int fs_test_have_cmd(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];
	const char *p, *colon;
	size_t dir_len;

	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0;
	if (path == NULL || path[0] == '\0')
		path = "/usr/bin:/bin";
	for (p = path; ; p = colon + 1) {
		colon = strchr(p, ':');
		dir_len = colon != NULL ? (size_t)(colon - p) : strlen(p);
		if (dir_len == 0)
			snprintf(buf, sizeof buf, "./%s", name);
		else
			snprintf(buf, sizeof buf, "%.*s/%s", (int)dir_len, p, name);
		if (access(buf, X_OK) == 0)
			return 1;
		if (colon == NULL)
			return 0;
	}
}

void fs_test_run_free(struct fs_test_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fs_test_tmpdir_free(char *dir)
{
	if (dir == NULL)
		return;
	if (strncmp(dir, "/tmp/fleetsim-test-", 19) == 0)
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

char *fs_test_tmpdir(void)
{
	char tmpl[] = "/tmp/fleetsim-test-XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (dir == NULL)
		abort();
	return strdup(dir);
}

char *fs_test_path(const char *dir, const char *file)
{
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = malloc(n);

	if (p == NULL)
		abort();
	snprintf(p, n, "%s/%s", dir, file);
	return p;
}

char *fs_test_read_at(const char *dir, const char *file)
{
	char *path = fs_test_path(dir, file);
	char *text = fs_test_read_file(path, NULL);

	free(path);
	return text;
}

char *fs_test_read_out(const char *dir, const char *file)
{
	char *text = fs_test_read_at(dir, file);

	if (text == NULL)
		fail_msg("missing %s/%s", dir, file);
	return text;
}

void fs_test_assert_same_files(const char *a, const char *b, const char *const *files)
{
	for (; *files != NULL; files++) {
		char *x = fs_test_read_out(a, *files), *y = fs_test_read_out(b, *files);

		if (strcmp(x, y) != 0)
			print_error("%s differs\n", *files);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
}

int fs_test_exists(const char *dir, const char *file)
{
	char *path = dir != NULL ? fs_test_path(dir, file) : NULL;
	struct stat st;
	int yes = stat(path != NULL ? path : file, &st) == 0;

	free(path);
	return yes;
}

void fs_test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	if (fclose(f) != 0)
		fail_msg("cannot write %s", path);
}

char *fs_test_write(const char *dir, const char *file, const char *text)
{
	char *path = fs_test_path(dir, file);

	fs_test_write_file(path, text);
	return path;
}

struct fs_test_run fs_test_fleetsim_expect(const char *const *args, int want_exit)
{
	struct fs_test_run r = fs_test_run_fleetsim(args);

	if (r.exit_code != want_exit)
		print_error("fleetsim %s exited %d, not %d; stderr: %s\n", args[0],
		            r.exit_code, want_exit, r.err != NULL ? r.err : "");
	assert_int_equal(r.exit_code, want_exit);
	return r;
}

void fs_test_fleetsim_ok(const char *const *args)
{
	struct fs_test_run r = fs_test_fleetsim_expect(args, 0);

	fs_test_run_free(&r);
}

cJSON *fs_test_fleetsim_json(const char *const *args, int want_exit)
{
	struct fs_test_run r = fs_test_fleetsim_expect(args, want_exit);
	cJSON *j = cJSON_Parse(r.out);

	if (j == NULL)
		print_error("fleetsim %s: stdout is not JSON: %s\n", args[0], r.out);
	assert_non_null(j);
	fs_test_run_free(&r);
	return j;
}

cJSON *fs_test_read_json(const char *dir, const char *file)
{
	char *path = dir != NULL ? fs_test_path(dir, file) : NULL;
	char *text = fs_test_read_file(path != NULL ? path : file, NULL);
	cJSON *j;

	if (text == NULL)
		fail_msg("cannot read %s/%s", dir != NULL ? dir : ".", file);
	j = cJSON_Parse(text);
	if (j == NULL)
		fail_msg("%s/%s is not JSON", dir != NULL ? dir : ".", file);
	free(text);
	free(path);
	return j;
}

cJSON *fs_test_fleetsim_output(const char *const *args, const char *dir, const char *file)
{
	fs_test_fleetsim_ok(args);
	return fs_test_read_json(dir, file);
}

const cJSON *fs_test_json_get(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (v == NULL)
		fail_msg("missing key \"%s\"", key);
	return v;
}

const cJSON *fs_test_json_at(const cJSON *j, const char *path)
{
	const char *p = path;
	char key[256];
	size_t n;

	while (j != NULL && *p != '\0') {
		if (*p == '[') {
			j = cJSON_GetArrayItem(j, atoi(p + 1));
			p = strchr(p, ']');
			if (p == NULL)
				return NULL;
			p++;
		} else {
			n = strcspn(p, ".[");
			if (n >= sizeof key)
				return NULL;
			memcpy(key, p, n);
			key[n] = '\0';
			j = cJSON_GetObjectItemCaseSensitive(j, key);
			p += n;
		}
		if (*p == '.')
			p++;
	}
	return j;
}

double fs_test_json_num(const cJSON *j, const char *path)
{
	const cJSON *v = fs_test_json_at(j, path);

	if (!cJSON_IsNumber(v))
		fail_msg("no number at \"%s\"", path);
	return v->valuedouble;
}

struct fs_scenario *fs_test_load_text(const char *text, const char *name,
                                      const char *base_dir)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_text(text, strlen(text), name, base_dir,
	                                               &err);

	if (sc == NULL)
		fail_msg("%s: %s: %s", err.where, err.path, err.msg);
	return sc;
}

struct fs_scenario *fs_test_chat_fleet(const struct fs_test_chat *c)
{
	char text[8192];
	int n = snprintf(text, sizeof text,
	                 "{%s\"simulation\": {\"horizon\": \"%s\", \"warmup\": \"%s\", "
	                 "\"replications\": %d, \"seed\": %u},\n"
	                 " \"workload\": {\"arrivals\": {\"process\": \"poisson\", "
	                 "\"rate_per_s\": %g},\n"
	                 "  \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
	                 FS_TEST_CHAT_LENGTHS "%s}]},\n"
	                 " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	                 "\"gpu\": \"l40s\"},\n"
	                 " \"fleet\": %s}\n",
	                 c->root, c->horizon, c->warmup, c->reps, c->seed, c->rate_per_s,
	                 c->class_extra, c->fleet_json);

	if (n < 0 || (size_t)n >= sizeof text)
		fail_msg("test scenario longer than %zu bytes", sizeof text);
	return fs_test_load_text(text, c->name, "tests/data/fleet");
}

void fs_test_assert_exact_ci(const struct fs_ci *ci, double expected, const char *ci_text,
                             const char *file, int line)
{
	fs_test_assert_near(ci->value, expected, 1e-9, 1e-12, ci_text, "expected", file, line);
	fs_test_assert_near(ci->ci_lo, expected, 1e-9, 1e-12, "its CI's low end", "expected",
	                    file, line);
	fs_test_assert_near(ci->ci_hi, expected, 1e-9, 1e-12, "its CI's high end", "expected",
	                    file, line);
}

void fs_test_each_step_cache(const int *tps, size_t n_tps, fs_test_step_cache_fn *fn,
                             void *arg)
{
	size_t g, m, t;

	for (g = 0; g < fs_catalog_n_gpus(); g++) {
		for (m = 0; m < fs_catalog_n_models(); m++) {
			for (t = 0; t < n_tps; t++) {
				struct fs_perf_cfg cfg;
				/* a cache is large: on the heap, not the stack */
				struct fs_perf_step_cache *c = malloc(sizeof *c);

				assert_non_null(c);
				fs_perf_cfg_defaults(&cfg, fs_catalog_gpu_at(g), fs_catalog_model_at(m));
				cfg.tp = tps[t];
				fs_perf_step_cache_init(c, &cfg);
				fn(c, &cfg, arg);
				free(c);
			}
		}
	}
}

double fs_test_erlang_c(int c, double a)
{
	double term = 1.0, sum = 1.0, top;
	int k;

	for (k = 1; k < c; k++) {
		term *= a / k;
		sum += term;
	}
	top = term * a / c / (1.0 - a / c);
	return top / (sum + top);
}

void fs_test_mm1(struct fs_scenario *sc, struct fs_class_cfg *cls, double rate_per_s,
                 int64_t service_ns, int64_t horizon_ns, int64_t warmup_ns,
                 int replications)
{
	static char name[] = "mm1", jobs[] = "jobs";

	memset(sc, 0, sizeof *sc);
	memset(cls, 0, sizeof *cls);
	sc->name = name;
	sc->sim.horizon_ns = horizon_ns;
	sc->sim.warmup_ns = warmup_ns;
	sc->sim.sample_interval_ns = horizon_ns / 10;
	sc->sim.replications = replications;
	sc->sim.max_in_system = 1000000;
	sc->workload.has_shared_arrivals = true;
	sc->workload.arrivals.kind = FS_ARRIVAL_POISSON;
	sc->workload.arrivals.rate_per_s = rate_per_s;
	cls->name = jobs;
	cls->share = 1.0;
	cls->prompt.kind = FS_LENGTH_FIXED;
	cls->prompt.fixed_tokens = cls->prompt.min_tokens = cls->prompt.max_tokens = 1;
	cls->output = cls->prompt;
	sc->workload.classes = cls;
	sc->workload.n_classes = 1;
	sc->engine.kind = FS_ENGINE_QUEUE;
	sc->engine.servers = 1;
	sc->engine.service.kind = FS_SERVICE_EXPONENTIAL;
	sc->engine.service.mean_ns = service_ns;
}

uint64_t fs_test_xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

void fs_test_need_report(void)
{
	const char *args[] = { "report", "--help", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	int ok = r.exit_code == 0;

	fs_test_run_free(&r);
	if (!ok) {
		printf("skipped: `fleetsim report --help` failed (no report command yet)\n");
		skip();
	}
}

void fs_test_assert_csv_cell(const char *s, int flags, const char *want, const char *file,
                             int line)
{
	struct fs_sbuf b;
	int same;

	fs_sbuf_init(&b);
	fs_sbuf_csv(&b, s, flags);
	same = strcmp(fs_sbuf_str(&b), want) == 0;
	if (!same)
		print_error("%s:%d: the CSV cell of \"%s\" is \"%s\", not \"%s\"\n", file, line,
		            s, fs_sbuf_str(&b), want);
	fs_sbuf_fini(&b);
	if (!same)
		_fail(file, line);
}

double fs_test_cold_start_s(const struct fs_pool_cfg *pc)
{
	double w = pc->llm->mem.weights_bytes_per_gpu;

	return w * pc->llm->perf.tp / pc->download_bytes_per_s + w / pc->load_bytes_per_s +
	       (double)pc->engine_start_ns / FS_NS_PER_SECOND;
}

struct fs_rep_result **fs_test_replicate(const struct fs_scenario *sc, int threads, bool rows)
{
	struct fs_run_opts opts = { sc->sim.replications, 0, threads, sc->sim.seed, rows, NULL };

	return fs_replicate_run(sc, &opts);
}

struct fs_summary *fs_test_summarise(const struct fs_scenario *sc, int threads)
{
	struct fs_rep_result **res = fs_test_replicate(sc, threads, false);
	struct fs_summary *s = fs_summary_build(sc, res, sc->sim.replications, sc->sim.seed);

	fs_replicate_free(res, sc->sim.replications);
	return s;
}

double fs_test_mean_desired(const struct fs_rep_result *r, size_t p)
{
	const struct fs_tseries *ts = &r->pool_desired[p];
	double area = 0;

	for (size_t b = 0; b < ts->n_bins; b++)
		area += ts->area[b];
	return area / (double)ts->horizon_ns;
}

struct cJSON *fs_test_budget_json(const char *dir, const char *plan)
{
	char *path = fs_test_write(dir, "plan.json", plan), *out = fs_test_path(dir, "out");
	const char *args[] = { "budget", path, "-o", out, "-q", NULL };
	cJSON *j = fs_test_fleetsim_output(args, out, "budget.json");

	free(path);
	free(out);
	return j;
}
