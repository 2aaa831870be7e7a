/*
 * bench_fleet.c — the benchmark `make bench` runs (docs/PERFORMANCE.md):
 * simulated requests and events per CPU-second (getrusage, not wall) and
 * peak RSS of the standard scenarios under bench/ (small, day, the scaling
 * series of bench/scale.json), each in its own child process; the 2-thread
 * over 1-thread wall-clock speedup of 16 replications of the series' r8-6h-x1
 * (8 replicas, 6 h); a bare
 * event-heap "hold" loop (pop, push at t + Exp(1), 1,000 pending) on
 * src/eventq.c measured between the cases, with each case's ratio to it;
 * the series' cost per request with a straight-line fit; and the wall time
 * of `fleetsim sweep bench/sweep-60.json -j 2` (--sweep; --full adds the
 * unshared run and the series cases over 1 M requests).  Not model code: it reads
 * clocks, the environment and /proc.
 */
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleetsim/common.h"
#include "fleetsim/eventq.h"
#include "fleetsim/replicate.h"
#include "fleetsim/rng.h"
#include "fleetsim/scenario.h"

extern char **environ;

#define HOLD_PENDING 1000
#define HOLD_OPS 2000000
#define SPEEDUP_VARIANT "r8-6h-x1"      /* the 2-thread speedup case */

/* What one case's child reports back through its pipe. */
struct case_out {
	int ok;
	double requests;             /* completions over the whole horizon, all reps */
	double events;               /* events processed, all reps */
	double cpu_s;                /* CPU time of the replications alone */
	double wall_s;               /* their wall-clock time */
};

struct case_res {
	const char *name;
	struct case_out out;
	double maxrss_mb;            /* the child's peak resident set */
	double hold_ops_per_cpu_s;   /* the hold loop around this case */
};

static double cpu_now_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static double wall_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The hold model: HOLD_PENDING events pending; each operation pops the
 * earliest and pushes one at its time + Exp(mean 1 s).  Operations per
 * CPU-second. */
static double hold_loop(void)
{
	struct fs_eventq *q = fs_eventq_alloc(HOLD_PENDING);
	struct fs_rng *rng = fs_rng_alloc(1, 0, (enum fs_stream)0, 0);
	struct fs_event ev = { 0 };      /* fs_eventq_pop fills it: HOLD_PENDING > 0 */
	double t0;
	long i;

	for (i = 0; i < HOLD_PENDING; i++)
		fs_eventq_push(q, (fs_ns)(fs_rng_exponential(rng, 1.0) * 1e9), 0, 0, 0);
	t0 = cpu_now_s();
	for (i = 0; i < HOLD_OPS; i++) {
		fs_eventq_pop(q, &ev);
		fs_eventq_push(q, ev.t_ns + (fs_ns)(fs_rng_exponential(rng, 1.0) * 1e9), 0, 0, 0);
	}
	t0 = cpu_now_s() - t0;
	fs_rng_free(rng);
	fs_eventq_free(q);
	return (double)HOLD_OPS / t0;
}

/* In the child: load and run, report through fd. */
static void child_run(int fd, const char *path, const char *variant, int reps, int threads)
{
	struct case_out out = { 0 };
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_variant(path, variant, NULL, 0, &err);
	struct fs_rep_result **res;
	struct fs_run_opts opts = { 0 };
	double c0, w0;
	int r;

	if (sc == NULL) {
		fs_error_print(&err);
	} else {
		opts.replications = reps;
		opts.first_replication = 0;
		opts.threads = threads;
		opts.seed = sc->sim.seed;
		opts.record_first = false;
		c0 = cpu_now_s();
		w0 = wall_now_s();
		res = fs_replicate_run(sc, &opts);
		out.cpu_s = cpu_now_s() - c0;
		out.wall_s = wall_now_s() - w0;
		for (r = 0; r < reps; r++) {
			out.events += (double)res[r]->events;
			out.requests += (double)(res[r]->llm ? res[r]->fleet.all_completed :
			                         res[r]->cls[res[r]->n_classes].completed);
		}
		out.ok = 1;
		fs_replicate_free(res, reps);
		fs_scenario_free(sc);
	}
	if (write(fd, &out, sizeof out) != (ssize_t)sizeof out)
		_exit(1);
	_exit(out.ok ? 0 : 1);
}

/* Run one case in a child process (so its peak RSS is its own), with the
 * hold loop just before and just after it in this process. */
static struct case_res run_case(const char *name, const char *path, const char *variant,
                                int reps, int threads)
{
	struct case_res c;
	struct rusage ru;
	int fds[2], status;
	double h0 = hold_loop();
	pid_t pid;

	memset(&c, 0, sizeof c);
	c.name = name;
	fflush(stdout);
	if (pipe(fds) != 0) {
		perror("pipe");
		exit(1);
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child_run(fds[1], path, variant, reps, threads);
	}
	close(fds[1]);
	if (read(fds[0], &c.out, sizeof c.out) != (ssize_t)sizeof c.out)
		c.out.ok = 0;
	close(fds[0]);
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		c.out.ok = 0;
	c.maxrss_mb = (double)ru.ru_maxrss / 1024.0;
	c.hold_ops_per_cpu_s = 0.5 * (h0 + hold_loop());
	return c;
}

static void print_head(void)
{
	printf("%-18s %11s %12s %8s %8s %12s %12s %8s %8s\n", "case", "requests", "events",
	       "ev/req", "CPU s", "req/CPU-s", "events/CPU-s", "RSS MB", "ev/hold");
}

static void print_case(const struct case_res *c)
{
	const struct case_out *o = &c->out;

	if (!o->ok) {
		printf("%-18s FAILED\n", c->name);
		return;
	}
	printf("%-18s %11.0f %12.0f %8.1f %8.2f %12.0f %12.0f %8.1f %8.3f\n", c->name,
	       o->requests, o->events, o->requests > 0 ? o->events / o->requests : 0, o->cpu_s,
	       o->requests / o->cpu_s, o->events / o->cpu_s, c->maxrss_mb,
	       o->events / o->cpu_s / c->hold_ops_per_cpu_s);
	fflush(stdout);
}

static void print_machine(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], model[256] = "unknown";

	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
			snprintf(model, sizeof model, "%s", colon + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f != NULL)
		fclose(f);
	printf("machine: %ld online CPUs, %s\n", sysconf(_SC_NPROCESSORS_ONLN), model);
}

/* The scaling series: fleet x horizon x load, the variants of bench/scale.json. */
static const struct {
	const char *variant;
	int replicas, hours, load;
} SERIES[] = {
	{ "r8-1h-x1", 8, 1, 1 },    { "r8-1h-x4", 8, 1, 4 },    { "r8-6h-x1", 8, 6, 1 },
	{ "r8-6h-x4", 8, 6, 4 },    { "r8-24h-x1", 8, 24, 1 },  { "r8-24h-x4", 8, 24, 4 },
	{ "r32-1h-x1", 32, 1, 1 },  { "r32-1h-x4", 32, 1, 4 },  { "r32-6h-x1", 32, 6, 1 },
	{ "r32-6h-x4", 32, 6, 4 },  { "r32-24h-x1", 32, 24, 1 }, { "r32-24h-x4", 32, 24, 4 },
	{ "r128-1h-x1", 128, 1, 1 }, { "r128-1h-x4", 128, 1, 4 }, { "r128-6h-x1", 128, 6, 1 },
	{ "r128-6h-x4", 128, 6, 4 }, { "r128-24h-x1", 128, 24, 1 },
	{ "r128-24h-x4", 128, 24, 4 },
};
#define N_SERIES (sizeof SERIES / sizeof SERIES[0])
/* Requests per second per replica at load x1 (bench/scale.json). */
#define SERIES_RATE_X1 0.5

/* y = a + b x by least squares over the cases with load `load` (0: all),
 * x the requests (or the events); b in microseconds per unit. */
static void fit_series(const struct case_res *c, const int *loads, size_t n, int load,
                       int by_events)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, m = 0, a, b, r2;
	size_t i;

	for (i = 0; i < n; i++) {
		double x = by_events ? c[i].out.events : c[i].out.requests, y = c[i].out.cpu_s;

		if (!c[i].out.ok || (load != 0 && loads[i] != load))
			continue;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		syy += y * y;
		m++;
	}
	if (m < 3)
		return;
	b = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	a = (sy - b * sx) / m;
	r2 = pow(m * sxy - sx * sy, 2) / ((m * sxx - sx * sx) * (m * syy - sy * sy));
	printf("  fit over the %.0f cases%s: CPU s = %.3f + %.4f us x %s, R^2 = %.4f\n", m,
	       load == 1 ? " at x1" : load == 4 ? " at x4" : "", a, b * 1e6,
	       by_events ? "events" : "requests", r2);
}

static void print_loadavg(const char *when)
{
	FILE *f = fopen("/proc/loadavg", "r");
	char line[128];

	if (f != NULL && fgets(line, sizeof line, f) != NULL)
		printf("load average %s: %s", when, line);
	if (f != NULL)
		fclose(f);
}

/* Wall time of `fleetsim sweep SCENARIO -j 2 -q -o DIR [extra]`; -1 on failure. */
static double time_sweep(const char *scenario, const char *dir, const char *extra)
{
	const char *argv[] = { "./fleetsim", "sweep", scenario, "-j", "2", "-q", "-o", dir,
	                       extra, NULL };
	double t0 = wall_now_s();
	pid_t pid;
	int status;

	/* posix_spawn never writes the strings of argv */
	if (posix_spawn(&pid, argv[0], NULL, NULL, fs_unconst(argv), environ) != 0)
		return -1;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return wall_now_s() - t0;
}

static char *slurp(const char *dir, const char *name, long *len)
{
	char path[512], *text = NULL;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		text = malloc((size_t)*len + 1);
		if (text != NULL && fread(text, 1, (size_t)*len, f) != (size_t)*len) {
			free(text);
			text = NULL;
		}
	}
	fclose(f);
	return text;
}

static int same_file(const char *a_dir, const char *b_dir, const char *name)
{
	long la = -1, lb = -2;
	char *a = slurp(a_dir, name, &la), *b = slurp(b_dir, name, &lb);
	int same = a != NULL && b != NULL && la == lb && memcmp(a, b, (size_t)la) == 0;

	free(a);
	free(b);
	return same;
}

static void bench_sweep(int unshared)
{
	char shared[] = "/tmp/fleetsim-bench-XXXXXX", alone[] = "/tmp/fleetsim-bench-XXXXXX";
	double t;

	if (mkdtemp(shared) == NULL || (unshared && mkdtemp(alone) == NULL)) {
		perror("mkdtemp");
		return;
	}
	t = time_sweep("bench/sweep-60.json", shared, NULL);
	printf("sweep bench/sweep-60.json -j 2: %.1f s wall\n", t);
	if (unshared) {
		t = time_sweep("bench/sweep-60.json", alone, "--no-share");
		printf("sweep bench/sweep-60.json -j 2 --no-share: %.1f s wall; best.json %s, "
		       "sweep.json %s\n", t,
		       same_file(shared, alone, "best.json") ? "identical" : "DIFFERS",
		       same_file(shared, alone, "sweep.json") ? "identical" : "DIFFERS");
	}
	printf("(outputs in %s%s%s)\n", shared, unshared ? " and " : "", unshared ? alone : "");
}

int main(int argc, char **argv)
{
	struct case_res series[N_SERIES], c;
	int loads[N_SERIES];
	double max_requests = 1e6, w1, w2;
	int full = 0, sweep = 0, i;
	size_t k, n = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--full") == 0)
			full = 1;
		else if (strcmp(argv[i], "--sweep") == 0)
			sweep = 1;
		else if (strncmp(argv[i], "--max-requests=", 15) == 0)
			max_requests = atof(argv[i] + 15);
		else {
			fprintf(stderr, "usage: bench_fleet [--sweep] [--full] "
			        "[--max-requests=N]\n");
			return 2;
		}
	}
	if (full)
		max_requests = INFINITY;
	setvbuf(stdout, NULL, _IOLBF, 0);
	print_machine();
	print_loadavg("at the start");
	printf("hold loop (eventq, %d pending, pop + push at t + Exp(1)): %.0f ops/CPU-s\n\n",
	       HOLD_PENDING, hold_loop());
	print_head();
	c = run_case("small", "bench/small.json", NULL, 1, 1);
	print_case(&c);
	c = run_case("day", "bench/day.json", NULL, 1, 1);
	print_case(&c);

	printf("\nscaling series (bench/scale.json; %.1f req/s per replica at x1; cases over "
	       "%.3g expected requests skipped, --full runs them):\n", SERIES_RATE_X1,
	       max_requests);
	print_head();
	for (k = 0; k < N_SERIES; k++) {
		double expect = SERIES_RATE_X1 * SERIES[k].load * SERIES[k].replicas *
		                SERIES[k].hours * 3600.0;

		if (expect > max_requests)
			continue;
		loads[n] = SERIES[k].load;
		series[n] = run_case(SERIES[k].variant, "bench/scale.json", SERIES[k].variant, 1, 1);
		print_case(&series[n++]);
	}
	for (k = 0; k < n; k++)
		if (series[k].out.ok)
			printf("  %-14s %7.2f us CPU per request\n", series[k].name,
			       series[k].out.cpu_s / series[k].out.requests * 1e6);
	printf("cost per request is flat in fleet size and horizon at one load per replica\n"
	       "(the load sets events per request: batches), so cost grows linearly with\n"
	       "requests at each load:\n");
	fit_series(series, loads, n, 1, 0);
	fit_series(series, loads, n, 4, 0);
	printf("events (iterations) do not set the cost across loads: a run of decode\n"
	       "iterations is priced and recorded at once, so the fit against events over\n"
	       "both loads is loose (a low R^2 is expected):\n");
	fit_series(series, loads, n, 0, 1);

	/* long enough (about 6 CPU-s) that thread start-up and a shared
	 * machine's noise do not decide the ratio */
	printf("\n16 replications of %s (bench/scale.json):\n", SPEEDUP_VARIANT);
	print_head();
	c = run_case("x16 -j 1", "bench/scale.json", SPEEDUP_VARIANT, 16, 1);
	print_case(&c);
	w1 = c.out.wall_s;
	c = run_case("x16 -j 2", "bench/scale.json", SPEEDUP_VARIANT, 16, 2);
	print_case(&c);
	w2 = c.out.wall_s;
	printf("2-thread speedup (wall): %.2fx (%.2f s -> %.2f s)\n\n", w1 / w2, w1, w2);
	if (sweep || full)
		bench_sweep(full);
	else
		printf("(the timed sweep of bench/sweep-60.json: --sweep, or --full with the "
		       "unshared run)\n");
	print_loadavg("at the end");
	return 0;
}
