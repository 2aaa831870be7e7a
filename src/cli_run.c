/*
 * cli_run.c — `fleetsim run SCENARIO`: load, run R replications on T
 * threads, print the summary table, write DIR/summary.json (and
 * DIR/requests.csv with --requests-csv).  Output paths are checked before
 * any work; the files are staged and moved into place together, so nothing
 * is written when the scenario, the options or a write fail.
 */
#include <getopt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fleetsim/compare.h"
#include "fleetsim/objective.h"
#include "fleetsim/outfile.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"

static const char run_help[] =
	"usage: fleetsim run SCENARIO [OPTIONS]\n"
	"\n"
	"Simulate SCENARIO for R independent replications and report every figure\n"
	"as the mean across replications with a 95% Student-t confidence interval.\n"
	"Costs are given over the simulated horizon, and apart from them projected\n"
	"to a 730-hour month with the outage minutes of each pool; availability is\n"
	"the share of time a pool had the serving instances it wanted.  A spot pool\n"
	"expecting fewer than 3 reclaims per replication is flagged \"too short to\n"
	"see spot risk\" (table, summary.json \"warnings\", report).\n"
	"An autoscaler's warnings (work stranded, at max or its lower bound most of\n"
	"the run, flapping) go to the same places, to stderr for variants, and its\n"
	"figures to summary.json \"autoscale\".\n"
	"A class with \"users\" is a closed loop (each user sends, waits for the\n"
	"response, thinks, sends again; \"session\" makes multi-turn conversations):\n"
	"summary.json \"concurrency\" then reports users, TTFT / TPOT / ITL / E2E\n"
	"(mean, median, p99), output tokens/s and requests/s, as serving\n"
	"benchmarks do (docs/SCENARIO.md, CLASS).\n"
	"\n"
	"options:\n"
	"  -o, --output DIR        output directory (default: out/<scenario file stem>);\n"
	"                          writes summary.json and timeseries.csv there\n"
	"  -r, --replications R    replications (default: simulation.replications)\n"
	"  -j, --threads T         worker threads (default: processors, at most R);\n"
	"                          results are identical for every T\n"
	"      --seed N            base seed (default: simulation.seed)\n"
	"      --requests-csv      also write DIR/requests.csv, one row per request\n"
	"                          of replication 0\n"
	"      --variant NAME      run only the scenario's variant NAME (\"base\": the\n"
	"                          scenario as written); without it a scenario with\n"
	"                          \"variants\" runs the base and every variant on the\n"
	"                          same seed, each into DIR/<variant>/, and prints\n"
	"                          and writes DIR/comparison.csv and .json\n"
	"      --ci-target F       stopping rule: add replications (in batches of R)\n"
	"                          until the 95% CI half-width of the objective (the\n"
	"                          scenario's, else the total cost, else mean E2E) is\n"
	"                          below F of its mean, e.g. 2%, and its replication\n"
	"                          values are not too skewed to trust that interval\n"
	"      --max-replications N  cap for the stopping rule (default 10 x R)\n"
	"      --set PATH=JSON     set one scenario value, e.g.\n"
	"                          --set 'fleet.pools[0].count=4' (repeatable)\n"
	"  -q, --quiet             no progress lines, no table\n"
	"  -h, --help              this text\n"
	"\n"
	"Output paths are checked before any work (exit 2 naming the path); the\n"
	"files of a run are moved into place together, or none of them.\n"
	"A run that takes longer than a few seconds shows its progress on stderr\n"
	"(replications done, share of the simulated time, time left): a line every\n"
	"5 s, or on a terminal one line redrawn every second and erased at the end.\n"
	"\n"
	"exit status: 0 success, 1 runtime failure, 2 bad input, 130 / 143\n"
	"interrupted by SIGINT / SIGTERM (temporary files removed).\n";

#define MAX_SETS 64

struct run_args {
	const char *scenario_path;
	/* its bytes, read once: the base and every variant load from them */
	struct fs_scenario_file file;
	const char *variant;         /* NULL: all (or the base when none) */
	const char *sets[MAX_SETS];
	size_t n_sets;
	struct fs__cli_run_opts o;   /* -o, -r, -j, --seed */
	int requests_csv;
	int quiet;
	double ci_target;            /* 0: from the scenario's objective, or off */
	int64_t max_replications;    /* 0: default */
};

enum { OPT_REQUESTS_CSV = FS__CLI_OPT_SEED + 1, OPT_VARIANT, OPT_SET, OPT_CI_TARGET,
       OPT_MAX_REPS };

static int parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct option longopts[] = {
		FS__CLI_RUN_LONGOPTS,
		{ "requests-csv", no_argument, NULL, OPT_REQUESTS_CSV },
		{ "variant", required_argument, NULL, OPT_VARIANT },
		{ "set", required_argument, NULL, OPT_SET },
		{ "ci-target", required_argument, NULL, OPT_CI_TARGET },
		{ "max-replications", required_argument, NULL, OPT_MAX_REPS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, rc;

	memset(a, 0, sizeof *a);
	fs__cli_run_opts_begin(&a->o);
	while ((c = fs__cli_getopt(argc, argv, ":o:r:j:qh", longopts)) != -1) {
		switch (c) {
		case OPT_REQUESTS_CSV:
			a->requests_csv = 1;
			break;
		case OPT_VARIANT:
			a->variant = optarg;
			break;
		case OPT_CI_TARGET:
			if (fs__cli_parse_fraction("run", "--ci-target", optarg, &a->ci_target))
				return FS_EXIT_INPUT;
			break;
		case OPT_MAX_REPS:
			if (fs__cli_parse_int("run", "--max-replications", optarg, 1, 100000,
			                      &a->max_replications))
				return FS_EXIT_INPUT;
			break;
		case OPT_SET:
			if (a->n_sets == MAX_SETS)
				return fs__cli_usage_error("run", "at most %d --set options",
				                           MAX_SETS);
			a->sets[a->n_sets++] = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			fputs(run_help, stdout);
			return -1;
		default:
			rc = fs__cli_run_option("run", c, 100000, argv, &a->o);
			if (rc != 0)
				return rc;
		}
	}
	return fs__cli_one_operand("run", argc, argv, "missing SCENARIO file",
	                           "expected one scenario file, found a second: ",
	                           &a->scenario_path);
}

static char *join_path(const char *dir, const char *file)
{
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = fs_xmalloc(n);

	snprintf(p, n, "%s/%s", dir, file);
	return p;
}

/* The files of one configuration's directory (requests.csv only with
 * --requests-csv). */
static const char *const RUN_FILES[] = { "summary.json", "timeseries.csv",
                                         "scenario.json", "latency_cdf.csv",
                                         "requests.csv" };

static size_t n_run_files(const struct run_args *a)
{
	return sizeof RUN_FILES / sizeof RUN_FILES[0] - (a->requests_csv ? 0 : 1);
}

/* Write one configuration's files into the staging area of `set`; they
 * reach the directory only when the caller commits the set. */
static int write_outputs(const struct run_args *a, struct fs_outset *set,
                         const struct fs_scenario *sc, const struct fs_summary *s,
                         struct fs_rep_result *const *results)
{
	struct fs_error err;
	int rc = 0;

	if (fs_summary_write_json(s, sc, fs_outset_path(set, "summary.json"), &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && fs_timeseries_write_csv(results, s->replications, sc,
	                                       fs_outset_path(set, "timeseries.csv"),
	                                       &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && fs_scenario_write(sc, fs_outset_path(set, "scenario.json"), &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && fs_latency_cdf_write_csv(results, s->replications, sc,
	                                        fs_outset_path(set, "latency_cdf.csv"),
	                                        &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && a->requests_csv &&
	    fs_requests_write_csv(results[0], sc, fs_outset_path(set, "requests.csv"),
	                          &err) != 0)
		rc = FS_EXIT_RUNTIME;
	if (rc == 0 && !a->requests_csv)
		fs_outset_drop(set, "requests.csv");   /* an earlier run's, now stale */
	if (rc != 0) {
		fputs("fleetsim run: ", stderr);
		fs_error_print(&err);
		fprintf(stderr, "fleetsim run: nothing written to %s\n", set->dir);
	}
	return rc;
}

/* Load, run and stage one variant (NULL: the base) into `set`; print its
 * table unless `table` is false; fill *row when non-NULL (also on a write
 * failure: the caller finalises it). */
static int run_one(const struct run_args *a, const char *variant, struct fs_outset *set,
                   bool table, struct fs_compare_row *row)
{
	struct fs_run_opts opts = { 0 };
	struct fs_error err;
	struct fs_scenario *sc;
	struct fs_rep_result **results;
	struct fs_summary *summary;
	double ci_target;
	int rc, max_reps, n_reps;

	sc = fs_scenario_file_load(&a->file, variant, a->sets, a->n_sets, NULL, 0, &err);
	if (sc == NULL) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	opts.replications = a->o.replications > 0 ? (int)a->o.replications
	                                           : sc->sim.replications;
	opts.seed = a->o.seed >= 0 ? (uint64_t)a->o.seed : sc->sim.seed;
	opts.threads = a->o.threads > 0 ? (int)a->o.threads : omp_get_num_procs();
	if (opts.threads > opts.replications)
		opts.threads = opts.replications;
	/* DIR/scenario.json is the scenario as run: -r and --seed go into it,
	 * so it runs again to the same summary and the report's headroom
	 * search (which loads it) runs on the run's seed. */
	sc->sim.seed = opts.seed;
	sc->sim.replications = opts.replications;
	opts.record_first = a->requests_csv != 0;
	opts.first_replication = 0;
	ci_target = a->ci_target > 0 ? a->ci_target :
	            sc->objective.present ? sc->objective.ci_target : 0;
	max_reps = a->max_replications > 0 ? (int)a->max_replications :
	           sc->objective.present && sc->objective.max_replications > 0 ?
	           sc->objective.max_replications : 10 * opts.replications;
	if (a->max_replications > 0 && !(ci_target > 0)) {
		fs_scenario_free(sc);
		return fs__cli_usage_error("run", "--max-replications caps the stopping rule, "
		                           "found no --ci-target (nor objective.ci_target in "
		                           "the scenario)");
	}
	if (ci_target > 0 && max_reps < opts.replications) {
		fs_scenario_free(sc);
		return fs__cli_usage_error("run", "--max-replications: expected at least the "
		                           "first batch's %d replications, found %d",
		                           opts.replications, max_reps);
	}
	if (!a->quiet) {
		char label[160];

		snprintf(label, sizeof label, table ? "fleetsim run" : "fleetsim run: %s",
		         variant != NULL ? variant : "base");
		opts.progress = fs_run_progress_start(label, opts.replications,
		                                      sc->sim.horizon_ns, isatty(2));
	}
	results = fs_objective_run(sc, &opts, fs_objective_default_figure, ci_target,
	                           max_reps, &n_reps);
	fs_run_progress_stop(opts.progress);
	opts.progress = NULL;
	opts.replications = n_reps;
	summary = fs_summary_build(sc, results, opts.replications, opts.seed);
	if (table && !a->quiet)
		fs_summary_print_table(summary, sc, stdout);
	rc = write_outputs(a, set, sc, summary, results);
	if (!table && !a->quiet) {
		/* Without its table a variant's warnings go to stderr. */
		struct fs_summary_warning_cursor cur = { 0, 0 };
		enum fs_summary_warning_kind kind;
		char text[512];

		while (fs_summary_warning_next(summary, sc, &cur, &kind, text, sizeof text))
			fprintf(stderr, "fleetsim run: %s: warning: %s\n",
			        variant != NULL ? variant : "base", text);
	}
	if (row != NULL)
		fs_compare_row_fill(row, variant != NULL ? variant : "base", summary);
	fs_summary_free(summary);
	fs_replicate_free(results, opts.replications);
	fs_scenario_free(sc);
	return rc;
}

/* A variant's directory (fs_scenario_variant_dir: the load has checked
 * that no two variants share one). */
static char *variant_dir(const char *out_dir, const char *variant)
{
	char name[256];

	fs_scenario_variant_dir(variant, name, sizeof name);
	return join_path(out_dir, name);
}

/* Every directory and file this run will write, checked before any work:
 * exit 2 with the path when one cannot be written. */
static int check_outputs(const struct run_args *a, char **names, size_t n,
                         const char *out_dir)
{
	struct fs_error err;
	size_t i, f;
	int rc = 0;

	if (fs_outfile_check_dir(out_dir, &err) != 0 ||
	    fs__cli_check_own_dir("run", out_dir, &err) != 0)
		rc = -1;
	for (i = 0; i <= n && rc == 0; i++) {
		char *dir = n == 0 ? fs_xstrdup(out_dir) :
		            variant_dir(out_dir, i == 0 ? "base" : names[i - 1]);

		if (n > 0 && fs_outfile_check_dir(dir, &err) != 0)
			rc = -1;
		for (f = 0; f < n_run_files(a) && rc == 0; f++)
			if (fs_outfile_check_file(dir, RUN_FILES[f], &err) != 0)
				rc = -1;
		free(dir);
	}
	if (rc == 0 && n > 0 &&
	    (fs_outfile_check_file(out_dir, "comparison.csv", &err) != 0 ||
	     fs_outfile_check_file(out_dir, "comparison.json", &err) != 0))
		rc = -1;
	if (rc != 0) {
		fputs("fleetsim run: output: ", stderr);
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	return 0;
}

/* One configuration: stage its files, then move them into out_dir. */
static int run_single(const struct run_args *a, const char *variant, const char *out_dir)
{
	struct fs_outset set;
	struct fs_error err;
	int rc;

	if (fs_outset_begin(&set, out_dir, &err) != 0) {
		fputs("fleetsim run: ", stderr);
		fs_error_print(&err);
		return FS_EXIT_RUNTIME;
	}
	rc = run_one(a, variant, &set, true, NULL);
	if (rc != 0) {
		fs_outset_abort(&set);
		return rc;
	}
	if (fs_outset_commit(&set, 1, &err) != 0) {
		fputs("fleetsim run: ", stderr);
		fs_error_print(&err);
		return FS_EXIT_RUNTIME;
	}
	if (!a->quiet)
		printf("\nwrote %s/summary.json, timeseries.csv, latency_cdf.csv%s\n", out_dir,
		       a->requests_csv ? ", requests.csv" : "");
	return 0;
}

/* The base and every variant, same seed; then the comparison.  Every
 * directory's files are staged and moved into place together at the end,
 * so a failure leaves none of them behind. */
static int run_all(const struct run_args *a, char **names, size_t n, const char *out_dir)
{
	struct fs_compare_row *rows = fs_xcalloc(n + 1, sizeof *rows);
	/* sets[0]: out_dir (the comparison); sets[1 + i]: variant i (0: base). */
	struct fs_outset *sets = fs_xcalloc(n + 2, sizeof *sets);
	struct fs_error err;
	size_t i, n_sets = 0;
	int rc = 0;

	if (fs_outset_begin(&sets[0], out_dir, &err) != 0)
		rc = FS_EXIT_RUNTIME;
	else
		n_sets = 1;
	for (i = 0; i <= n && rc == 0; i++) {
		const char *variant = i == 0 ? NULL : names[i - 1];
		char *dir = variant_dir(out_dir, variant != NULL ? variant : "base");

		if (!a->quiet)
			fprintf(stderr, "fleetsim run: %s (%zu of %zu)\n",
			        variant != NULL ? variant : "base", i + 1, n + 1);
		if (fs_outset_begin(&sets[1 + i], dir, &err) != 0) {
			fputs("fleetsim run: ", stderr);
			fs_error_print(&err);
			rc = FS_EXIT_RUNTIME;
		} else {
			n_sets = 2 + i;
			rc = run_one(a, variant, &sets[1 + i], false, &rows[i]);
		}
		free(dir);
	}
	if (rc == 0) {
		fs_outset_path(&sets[0], "comparison.csv");
		fs_outset_path(&sets[0], "comparison.json");
		if (fs_compare_write(rows, n + 1, sets[0].stage, &err) != 0 ||
		    fs_outset_commit(sets, n_sets, &err) != 0) {
			fputs("fleetsim run: ", stderr);
			fs_error_print(&err);
			rc = FS_EXIT_RUNTIME;
		}
	} else if (n_sets == 0) {
		fputs("fleetsim run: ", stderr);
		fs_error_print(&err);
	}
	/* Whatever was not committed is removed, variants before out_dir. */
	for (i = n_sets; i-- > 0;)
		fs_outset_abort(&sets[i]);
	if (rc == 0 && !a->quiet) {
		fs_compare_print(rows, n + 1, stdout);
		printf("\nwrote %s/comparison.csv, comparison.json and one directory per "
		       "variant\n", out_dir);
	}
	for (i = 0; i <= n; i++)
		fs_compare_row_fini(&rows[i]);
	free(rows);
	free(sets);
	return rc;
}

int fs__cli_run(int argc, char **argv)
{
	struct run_args a;
	struct fs_error err;
	char **names = NULL;
	size_t n_names = 0;
	char *out_dir;
	int rc = parse_args(argc, argv, &a);

	if (rc != 0)
		return rc < 0 ? FS_EXIT_OK : rc;
	/* Read once: an edit of the file while the variants run changes none
	 * of them. */
	if (fs_scenario_file_read(&a.file, a.scenario_path, &err) != 0) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	if (a.variant == NULL &&
	    fs_scenario_file_variants(&a.file, &names, &n_names, &err) != 0) {
		fs_error_print(&err);
		fs_scenario_file_fini(&a.file);
		return FS_EXIT_INPUT;
	}
	/* Every variant loads before anything runs or is written. */
	if (a.variant == NULL &&
	    fs_scenario_file_check_all(&a.file, a.sets, a.n_sets, true, false, &err) != 0) {
		fs_error_print(&err);
		fs_scenario_variants_free(names, n_names);
		fs_scenario_file_fini(&a.file);
		return FS_EXIT_INPUT;
	}
	out_dir = fs__cli_out_dir(a.o.out_dir, a.scenario_path);
	rc = check_outputs(&a, names, n_names, out_dir);
	if (rc == 0 && n_names > 0)
		rc = run_all(&a, names, n_names, out_dir);
	else if (rc == 0)
		rc = run_single(&a, a.variant != NULL && strcmp(a.variant, "base") != 0 ?
		                a.variant : NULL, out_dir);
	fs_scenario_variants_free(names, n_names);
	fs_scenario_file_fini(&a.file);
	free(out_dir);
	return rc;
}
