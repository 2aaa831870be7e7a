/*
 * cli_sweep.c — `fleetsim sweep SCENARIO`: options, the output directory
 * checked (exit 2 before any work when it cannot be written), then
 * fs_sweep_run.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/common.h"
#include "fleetsim/outfile.h"
#include "fleetsim/scenario.h"
#include "fleetsim/sweep.h"

#define MAX_SETS 64

static const char sweep_help[] =
	"usage: fleetsim sweep SCENARIO [OPTIONS]\n"
	"\n"
	"Run every point of the scenario's \"sweep\" (grid or zip), or in search mode\n"
	"only the points a search on the search axis needs (a count axis starts\n"
	"at the count whose saturation throughput covers the offered load, then\n"
	"gallops and bisects), each with R\n"
	"replications on the same seed (common random numbers), and write\n"
	"DIR/sweep.csv and sweep.json (every evaluated point, with P(SLO met), the\n"
	"objective and its paired differences against the baseline point and the\n"
	"recommended one, all with 95% intervals), DIR/pareto.csv (cost vs the\n"
	"chosen latency) and DIR/best.json (the cheapest point proven to meet the\n"
	"objective, and why), plus DIR/sweep_cdf.csv (each point's latency CDF)\n"
	"and DIR/scenario.json (resolved) with DIR/scenario_input.json (the file as\n"
	"given, for fleetsim report to run the recommended point again).  A point\n"
	"is feasible when the lower end of the 95%\n"
	"Wilson interval of P(SLO met) reaches objective.confidence, infeasible\n"
	"when its upper end is below it, else undecided: an undecided point runs\n"
	"the replications that would decide it (up to objective.max_replications)\n"
	"and is never recommended while undecided.\n"
	"A sweep over the users of a closed-loop class (for example\n"
	"workload.classes[0].users) gives each point a \"concurrency\" block in\n"
	"sweep.json, and `fleetsim report` plots TTFT and throughput against users\n"
	"(scenarios/benchmark-concurrency.json).\n"
	"\n"
	"options:\n"
	"  -o, --output DIR        output directory (default: out/<scenario file stem>)\n"
	"  -r, --replications R    replications per point (default: the scenario's)\n"
	"  -j, --threads T         worker threads per process; outputs are identical\n"
	"                          for every T (and every MPI rank count)\n"
	"      --seed N            base seed (default: simulation.seed)\n"
	"      --ci-target F       stopping rule per point, e.g. 2% (default: the\n"
	"                          objective's ci_target)\n"
	"      --set PATH=JSON     set one scenario value for every point (repeatable)\n"
	"      --resume            reuse the finished points in DIR/points/ whose\n"
	"                          inputs all match (version, scenario, --set, point,\n"
	"                          seed, -r, --ci-target, stopping rule); others are\n"
	"                          computed again, saying why; an interrupted sweep\n"
	"                          resumes and ends with the same bytes\n"
	"      --no-share          simulate every point itself: by default points\n"
	"                          that differ only in a pricing plan that leaves the\n"
	"                          simulation alone (on_demand, daily, weekly,\n"
	"                          monthly, yearly; not spot) share one simulation,\n"
	"                          billed each way, with the same outputs\n"
	"  -q, --quiet             no progress line, no table, no recommendation\n"
	"  -h, --help              this text\n"
	"\n"
	"Progress goes to stderr: a line redrawn after every point on a terminal,\n"
	"else a log line every 5 seconds.  The end prints the table, the\n"
	"recommended point and where best.json and the other outputs are.\n"
	"\n"
	"exit status: 0 success, 1 runtime failure, 2 bad input (also an output\n"
	"directory that cannot be written, checked before any work), 130 / 143\n"
	"interrupted by SIGINT / SIGTERM: temporaries removed, finished points\n"
	"kept for --resume.\n";

/* The sweep's directory, its points/ and its files, checked before any
 * work: exit 2 with the path when one cannot be written. */
static int check_outputs(const char *out_dir)
{
	static const char *const files[] = { "sweep.csv", "sweep.json", "pareto.csv",
	                                      "sweep_cdf.csv", "best.json",
	                                      "scenario.json", "scenario_input.json" };
	struct fs_error err;
	char *points;
	size_t n = strlen(out_dir) + 8, i;
	int rc;

	points = fs_xmalloc(n);
	snprintf(points, n, "%s/points", out_dir);
	rc = fs_outfile_check_dir(out_dir, &err);
	if (rc == 0)
		rc = fs__cli_check_own_dir("sweep", out_dir, &err);
	if (rc == 0)
		rc = fs_outfile_check_dir(points, &err);
	for (i = 0; i < sizeof files / sizeof files[0] && rc == 0; i++)
		rc = fs_outfile_check_file(out_dir, files[i], &err);
	free(points);
	if (rc != 0) {
		fputs("fleetsim sweep: output: ", stderr);
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	return 0;
}

enum { OPT_SET = FS__CLI_OPT_SEED + 1, OPT_RESUME, OPT_CI_TARGET, OPT_NO_SHARE };

int fs__cli_sweep(int argc, char **argv)
{
	static const struct option longopts[] = {
		FS__CLI_RUN_LONGOPTS,
		{ "set", required_argument, NULL, OPT_SET },
		{ "resume", no_argument, NULL, OPT_RESUME },
		{ "ci-target", required_argument, NULL, OPT_CI_TARGET },
		{ "no-share", no_argument, NULL, OPT_NO_SHARE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct fs_sweep_opts o;
	struct fs_scenario_file file;
	struct fs_error err;
	struct fs__cli_run_opts ro;  /* -o, -r, -j, --seed */
	const char *sets[MAX_SETS];
	char *out_dir;
	int c, rc;

	memset(&o, 0, sizeof o);
	o.sets = sets;
	fs__cli_run_opts_begin(&ro);
	while ((c = fs__cli_getopt(argc, argv, ":o:r:j:qh", longopts)) != -1) {
		switch (c) {
		case OPT_SET:
			if (o.n_sets == MAX_SETS)
				return fs__cli_usage_error("sweep", "at most %d --set options",
				                           MAX_SETS);
			sets[o.n_sets++] = optarg;
			break;
		case OPT_RESUME:
			o.resume = true;
			break;
		case OPT_CI_TARGET:
			if (fs__cli_parse_fraction("sweep", "--ci-target", optarg, &o.ci_target))
				return FS_EXIT_INPUT;
			break;
		case OPT_NO_SHARE:
			o.no_share = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(sweep_help, stdout);
			return FS_EXIT_OK;
		default:
			rc = fs__cli_run_option("sweep", c, 100000, argv, &ro);
			if (rc != 0)
				return rc;
		}
	}
	rc = fs__cli_one_operand("sweep", argc, argv, "missing SCENARIO file",
	                         "expected one scenario file, found a second: ",
	                         &o.scenario_path);
	if (rc != 0)
		return rc;
	o.replications = ro.replications;
	o.threads = (int)ro.threads;
	o.seed = ro.seed;
	o.out_dir = out_dir = fs__cli_out_dir(ro.out_dir, o.scenario_path);
	rc = check_outputs(o.out_dir);
	/* Read once: every point runs on these bytes, whatever happens to the
	 * file while the sweep runs, and DIR/scenario_input.json keeps them
	 * (fleetsim report runs the recommended point again from it). */
	if (rc == 0 && fs_scenario_file_read(&file, o.scenario_path, &err) != 0) {
		fs_error_print(&err);
		rc = FS_EXIT_INPUT;
	} else if (rc == 0) {
		o.file = &file;
		rc = fs_sweep_run(&o);
		fs_scenario_file_fini(&file);
	}
	free(out_dir);
	return rc;
}
