/*
 * bench_llm.c — simulation speed of the LLM engine: simulated requests,
 * engine iterations and events per wall-clock second for Llama-3.1-8B on
 * L40S replicas, as the fleet (replicas, with the load scaled to keep each
 * one busy), the horizon and the thread count grow.  Scenarios are JSON text
 * loaded by the real loader.
 */
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

static void run_case(const char *label, int replicas, const char *horizon, int reps,
                     int threads)
{
	char text[2048];
	struct fs_error err;
	struct fs_scenario *sc;
	struct fs_run_opts opts;
	struct fs_rep_result **results;
	uint64_t requests = 0, events = 0, steps = 0;
	double t0, wall_s;
	int r;

	/* About 2.5 requests/s per L40S replica: busy, below saturation. */
	snprintf(text, sizeof text,
	         "{\"simulation\": {\"horizon\": \"%s\", \"warmup\": \"0s\", \"seed\": 1},"
	         " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": %g},"
	         "  \"classes\": [{\"name\": \"chat\", \"share\": 1,"
	         "   \"prompt_tokens\": {\"dist\": \"lognormal\", \"median\": 600, \"sigma\": 0.9,"
	         " \"max\": 8192},"
	         "   \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 200, \"sigma\": 0.8,"
	         " \"max\": 2048}}]},"
	         " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\","
	         " \"replicas\": %d}}", horizon, 2.5 * replicas, replicas);
	sc = fs_scenario_load_text(text, strlen(text), "bench", ".", &err);
	if (sc == NULL) {
		fs_error_print(&err);
		exit(1);
	}
	opts.replications = reps;
	opts.first_replication = 0;
	opts.threads = threads;
	opts.seed = 1;
	opts.record_first = false;
	t0 = now_s();
	results = fs_replicate_run(sc, &opts);
	wall_s = now_s() - t0;
	for (r = 0; r < reps; r++) {
		requests += results[r]->cls[results[r]->n_classes].arrived;
		events += results[r]->events;
		steps += results[r]->engine.steps;
	}
	fs_replicate_free(results, reps);
	fs_scenario_free(sc);
	printf("llm    %-14s replicas=%-4d horizon=%-4s reps=%d threads=%d  requests/s=%.3e  "
	       "iterations/s=%.3e  events/s=%.3e  wall=%.2fs\n", label, replicas, horizon, reps,
	       threads, (double)requests / wall_s, (double)steps / wall_s,
	       (double)events / wall_s, wall_s);
}

int main(void)
{
	run_case("fleet size", 1, "1h", 4, 1);
	run_case("fleet size", 8, "1h", 4, 1);
	run_case("fleet size", 64, "15m", 4, 1);
	run_case("horizon", 2, "1d", 2, 1);
	run_case("threads", 8, "1h", 4, 1);
	run_case("threads", 8, "1h", 4, 2);
	return 0;
}
