/*
 * bench_world.c — end-to-end simulation speed: simulated requests and events
 * per wall-clock second for M/M/c worlds of growing size (servers, with the
 * arrival rate scaled to keep utilisation at 0.8), for a longer horizon, and
 * for 1 and 2 threads over 8 replications.  The scenarios are built in code
 * so the benchmark does not depend on a scenario file.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void build(struct fs_scenario *sc, struct fs_class_cfg *cls, int servers,
                  fs_ns horizon_ns, int reps)
{
	memset(sc, 0, sizeof *sc);
	memset(cls, 0, sizeof *cls);
	sc->name = "bench";
	sc->sim.horizon_ns = horizon_ns;
	sc->sim.sample_interval_ns = horizon_ns / 100;
	sc->sim.seed = 1;
	sc->sim.replications = reps;
	sc->sim.max_in_system = 10000000;
	sc->workload.has_shared_arrivals = true;
	sc->workload.arrivals.kind = FS_ARRIVAL_POISSON;
	/* 100 ms mean service: rate = 0.8 * servers * 10/s. */
	sc->workload.arrivals.rate_per_s = 8.0 * servers;
	cls->name = "all";
	cls->share = 1.0;
	cls->prompt.kind = FS_LENGTH_LOGNORMAL;
	cls->prompt.median_tokens = 500;
	cls->prompt.sigma = 1.0;
	cls->prompt.min_tokens = 1;
	cls->prompt.max_tokens = 8192;
	cls->output = cls->prompt;
	sc->workload.classes = cls;
	sc->workload.n_classes = 1;
	sc->engine.kind = FS_ENGINE_QUEUE;
	sc->engine.servers = servers;
	sc->engine.service.kind = FS_SERVICE_EXPONENTIAL;
	sc->engine.service.mean_ns = 100 * FS_NS_PER_MS;
}

static void run_case(const char *label, int servers, fs_ns horizon_ns, int reps,
                     int threads)
{
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	struct fs_run_opts opts;
	struct fs_rep_result **results;
	uint64_t requests = 0, events = 0;
	double t0, wall_s;
	int r;

	build(&sc, &cls, servers, horizon_ns, reps);
	opts.replications = reps;
	opts.first_replication = 0;
	opts.threads = threads;
	opts.seed = 1;
	opts.record_first = false;
	t0 = now_s();
	results = fs_replicate_run(&sc, &opts);
	wall_s = now_s() - t0;
	for (r = 0; r < reps; r++) {
		const struct fs_class_result *all = &results[r]->cls[results[r]->n_classes];

		requests += all->arrived;
		events += results[r]->events;
	}
	fs_replicate_free(results, reps);
	printf("world  %-22s servers=%-5d reps=%d threads=%d  requests/s=%.3e  "
	       "events/s=%.3e  wall=%.2fs\n", label, servers, reps, threads,
	       (double)requests / wall_s, (double)events / wall_s, wall_s);
}

int main(void)
{
	const fs_ns hour_ns = 3600 * FS_NS_PER_S;

	printf("what   case                   size\n");
	run_case("fleet size", 1, hour_ns, 8, 1);
	run_case("fleet size", 16, hour_ns, 8, 1);
	run_case("fleet size", 256, hour_ns / 8, 8, 1);
	run_case("horizon 1 day", 4, 24 * hour_ns, 4, 1);
	run_case("threads", 16, hour_ns, 8, 1);
	run_case("threads", 16, hour_ns, 8, 2);
	return 0;
}
