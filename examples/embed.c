/*
 * embed.c — fleetsim as a library: load a scenario, run its replications
 * through the public API, aggregate them, and print the p99 time to first
 * token and the cost with their 95% intervals.  Build against an installed
 * libfleetsim with `cc embed.c $(pkg-config --cflags --libs fleetsim)`
 * (`make examples` does).  Usage: embed SCENARIO [REPLICATIONS [THREADS]].
 */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <fleetsim/replicate.h>
#include <fleetsim/scenario.h>
#include <fleetsim/summary.h>

static void print_ci(const char *what, const struct fs_ci *ci, const char *unit)
{
	printf("%-18s %12.4f %s  (95%% CI %.4f .. %.4f)\n", what, ci->value, unit,
	       ci->ci_lo, ci->ci_hi);
}

int main(int argc, char **argv)
{
	struct fs_run_opts opts = { 0 };
	struct fs_rep_result **results;
	struct fs_summary *sum;
	struct fs_scenario *sc;
	struct fs_error err;
	const struct fs_group_summary *all;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: %s SCENARIO [REPLICATIONS [THREADS]]\n", argv[0]);
		return 2;
	}
	/* As the fleetsim binary does: GSL reports errors by return code. */
	gsl_set_error_handler_off();
	sc = fs_scenario_load(argv[1], &err);
	if (sc == NULL) {
		fs_error_print(&err);
		return 2;
	}
	opts.replications = argc > 2 ? atoi(argv[2]) : sc->sim.replications;
	opts.threads = argc > 3 ? atoi(argv[3]) : 1;
	opts.seed = sc->sim.seed;
	if (opts.replications < 1 || opts.threads < 1) {
		fprintf(stderr, "%s: REPLICATIONS and THREADS must be >= 1\n", argv[0]);
		fs_scenario_free(sc);
		return 2;
	}
	results = fs_replicate_run(sc, &opts);
	sum = fs_summary_build(sc, results, opts.replications, opts.seed);
	all = &sum->groups[sum->n_classes];       /* the last group: all traffic */

	printf("scenario %s: %d replications, seed %llu\n", sc->name, opts.replications,
	       (unsigned long long)opts.seed);
	print_ci("p99 TTFT", &all->lat_ms[FS_LAT_TTFT][FS_QTY_P99], "ms");
	print_ci("total cost", &sum->cost.total_usd, sum->currency);
	print_ci("monthly cost", &sum->cost.monthly_usd, sum->currency);

	fs_summary_free(sum);
	fs_replicate_free(results, opts.replications);
	fs_scenario_free(sc);
	return 0;
}
