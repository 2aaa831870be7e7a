/*
 * test_report.c — `fleetsim report DIR` end to end on a run directory, a
 * variants directory and a sweep directory made by running ./fleetsim into
 * temporary directories with few replications: every expected plot exists
 * in PNG and SVG and is non-empty, report.html and report.md hold the
 * sections and the recommendation, hostile names come out escaped, and a bad
 * DIR is exit 2.  A sweep report runs the recommended point again into
 * DIR/recommended (checked against a hand computation of its bill, reused
 * by a second report) and draws its timeline, utilisation and cost plots;
 * the plot scripts carry what makes them readable (GPU colours and plan
 * markers, the SLO lines and tail view, the 100% caps, the idle threshold,
 * unused capacity).  A gnuplot that fails on a later plot (a shim first in
 * $PATH) leaves no new plot and no new report beside the earlier ones.
 * Needs gnuplot: skips with a message when it is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util_test.h"

static void need_gnuplot(void)
{
	if (!fs_test_have_cmd("gnuplot")) {
		fprintf(stderr, "gnuplot not in PATH (package gnuplot-nox): skipping\n");
		skip();
	}
}

static void expect_plots(const char *dir, const char *const *names)
{
	char path[4096];
	struct stat st;
	size_t i;

	for (i = 0; names[i]; i++) {
		static const char *const ext[] = { "png", "svg", "gp", "dat" };
		size_t e;

		for (e = 0; e < 4; e++) {
			snprintf(path, sizeof path, "%s/plots/%s.%s", dir, names[i], ext[e]);
			if (stat(path, &st) != 0 || st.st_size == 0)
				fail_msg("missing or empty %s", path);
		}
	}
}

/* Run the report; return report.html's text (heap) and check report.md has
 * the same sections. */
static char *report(const char *dir)
{
	const char *args[] = { "report", dir, NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	char path[4096];
	char *html, *md;
	static const char *const sections[] = { "1. The question", "2. The recommendation",
		"3. The alternatives", "4. The risk", "5. The assumptions", "6. Plots",
		"7. Provenance", NULL };
	size_t i;

	if (r.exit_code != 0)
		fail_msg("fleetsim report exited %d: %s", r.exit_code, r.err);
	assert_non_null(strstr(r.out, "report.html"));
	fs_test_run_free(&r);
	snprintf(path, sizeof path, "%s/report.html", dir);
	html = fs_test_read_file(path, NULL);
	assert_non_null(html);
	snprintf(path, sizeof path, "%s/report.md", dir);
	md = fs_test_read_file(path, NULL);
	assert_non_null(md);
	for (i = 0; sections[i]; i++) {
		assert_non_null(strstr(html, sections[i]));
		assert_non_null(strstr(md, sections[i]));
	}
	/* Self-contained: images inline, nothing fetched. */
	assert_non_null(strstr(html, "data:image/png;base64,"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<link"));
	assert_non_null(strstr(md, "(plots/"));
	free(md);
	return html;
}

static const char *const NO_PLOTS[] = { NULL };

/* Skip without gnuplot; else run `args` into a fresh directory *dir (the
 * value after "-o", a placeholder), then the report: report.html's text
 * (heap), with every plot of `plots` drawn. */
static char *run_then_report(const char **args, const char *const *plots, char **dir)
{
	char *html;

	need_gnuplot();
	*dir = fs_test_tmpdir();
	for (size_t i = 0; args[i] != NULL; i++)
		if (strcmp(args[i], "-o") == 0)
			args[i + 1] = *dir;
	fs_test_fleetsim_ok(args);
	html = report(*dir);
	expect_plots(*dir, plots);
	return html;
}

/* The text of the first section ("The answer in brief", up to section 1),
 * or a failure when it is missing or not first. */
static char *first_of(const char *html)
{
	const char *a = strstr(html, "The answer in brief"), *b = strstr(html, "1. The question");
	char *t;

	if (!a || !b || b < a)
		fail_msg("the first section is missing or not first");
	t = strndup(a, (size_t)(b - a));
	assert_non_null(t);
	return t;
}

/* The first section of quickstart run with 2 replications, against hand
 * computations: 2 L40S at USD 1.40/h for 730 h = USD 2044 a month, USD
 * 24528 a year; budget (G9) 24528 x 1.3 x 1.25 = 39858; the monthly
 * commitment (USD 613.20 an instance) breaks even at 613.2 / 1.4 = 438 h
 * and saves 2 x (1022 - 613.2) = 817.6 a month; 4 requests/s is 345600 a
 * day; the diurnal peak (ratio 2) is 4 x 2 x 2 / 3 = 5.33 requests/s at
 * 14:00, outside 09:00-10:00; 2 of 2 runs give a Wilson lower end of
 * 2 / (2 + 1.96^2) = 34%, and 16 runs would prove the objective's 80%. */
static void first_section(const char *html)
{
	char *t = first_of(html);

	assert_has(t, "2 x l40s on the hourly (on demand) plan",
	           "intervals 95%): USD 2044 (same in every replication); per year",
	           "per year (12 months): USD 24528", "Annual budget to ask for: USD 39858",
	           "break-even of 438 h a month", "USD 818 less per month",
	           "Headroom: the simulated fleet (not recommended) stays within its SLO "
	           "up to", "If traffic doubles", "345600 requests a day", "miss the daily peak",
	           "5.33 requests/s around 14:00");
	assert_non_null(strstr(t, "Availability: the fleet had the serving instances it "
	                          "wanted 100.0%"));
	/* 2 replications leave it "not yet" recommended (the run's own
	 * Recommendation line): the headroom must not call it recommended. */
	assert_has(t, "Recommendation: not yet.", "searched by this report and kept in "
	           "headroom.json for later reports of this directory");
	assert_null(strstr(t, "recommended fleet"));
	assert_has(t, "Spot exposure: none", "Redundancy: ",
	           "Confidence: met the SLO in 2 of 2 simulated runs",
	           "with 2 runs we can claim at least 34%",
	           /* the share to claim is the objective's confidence, 0.8, the
	            * one the Recommendation line judges: n / (n + 1.96^2) >= 0.8
	            * takes n = 16 */
	           "To claim 80%: run 16 replications (fleetsim run -r 16)");
	assert_null(strstr(t, "90%"));
	free(t);
}

static void test_report_run_dir(void **state)
{
	static const char *const plots[] = { "latency_cdf", "timeline", "utilization",
	                                     "cost_breakdown", "cost_per_rep", NULL };
	char *dir, *html;

	(void)state;
	{
		const char *args[] = { "run", "scenarios/quickstart.json", "-r", "2", "-q",
		                       "-o", "DIR", NULL };

		html = run_then_report(args, plots, &dir);
	}
	assert_has(html, "A single configuration was simulated", "P(SLO met)");
	/* 2 of 2 replications: [34.2%, 100%] straddles 80%; 16 would decide it. */
	assert_has(html, "P(SLO met) at least 80%?",
	           "undecided: 16 replications would decide it");
	/* A fixed fleet: $2.80 in every replication, said so. */
	assert_has(html, "2.80 (same in every replication)", "sha256");
	first_section(html);
	/* quickstart's sweep block lists a100-80g and h100, but a run simulates
	 * l40s only: the assumptions name no GPU it did not use. */
	{
		const char *a = strstr(html, "5. The assumptions"), *b = strstr(html, "6. Plots");

		assert_true(a != NULL && b != NULL && a < b);
		assert_non_null(strstr(a, "(l40s)"));
		assert_true(strstr(a, "(a100-80g)") == NULL || strstr(a, "(a100-80g)") > b);
		assert_true(strstr(a, "(h100)") == NULL || strstr(a, "(h100)") > b);
	}
	free(html);
	/* Each script draws its own images: rerun in plots/ (as its first line
	 * says), it redraws latency_cdf.png and .svg, not temporaries. */
	{
		char *gp = fs_test_read_out(dir, "plots/latency_cdf.gp");

		assert_has(gp, "rerun in this directory with: gnuplot latency_cdf.gp",
		           "set output 'latency_cdf.png'", "set output 'latency_cdf.svg'");
		assert_null(strstr(gp, ".tmp."));
		free(gp);
	}
	/* A second report reads the headroom search the first kept in the
	 * directory, and says so. */
	html = report(dir);
	assert_non_null(strstr(html, "not searched again: read from headroom.json, which "
	                             "an earlier report searched with the same scenario, "
	                             "seed and replications"));
	assert_null(strstr(html, "kept in headroom.json"));
	free(html);
	/* One searched with another generator's draws is not reused: the
	 * report searches again and keeps its own. */
	{
		char *cache = fs_test_path(dir, "headroom.json");
		cJSON *root = fs_test_read_json(dir, "headroom.json");
		char *edited;

		cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "key"),
		                                       "rng", cJSON_CreateString("gsl_rng_mt19937"));
		edited = cJSON_Print(root);
		fs_test_write_file(cache, edited);
		html = report(dir);
		assert_non_null(strstr(html, "searched by this report and kept in headroom.json"));
		assert_null(strstr(html, "not searched again"));
		free(html);
		cJSON_free(edited);
		cJSON_Delete(root);
		free(cache);
	}
	/* A headroom.json that cannot be written: the report is, and says the
	 * search was not kept instead of claiming it was. */
	{
		char *cache = fs_test_path(dir, "headroom.json");

		assert_int_equal(remove(cache), 0);
		assert_int_equal(mkdir(cache, 0755), 0);
		html = report(dir);
		assert_non_null(strstr(html, "searched by this report, not kept for later "
		                             "reports ("));
		assert_null(strstr(html, "kept in headroom.json"));
		free(html);
		assert_int_equal(rmdir(cache), 0);
		free(cache);
	}
	fs_test_tmpdir_free(dir);
}

static void test_report_variants_dir(void **state)
{
	static const char *const plots[] = { "pareto", "spot_strategies", "latency_cdf",
	                                     "cost_breakdown", "cost_per_rep", "timeline",
	                                     "utilization", NULL };
	char *dir, *html;

	(void)state;
	{
		const char *args[] = { "run", "scenarios/spot-strategies.json", "-r", "2", "-q",
		                       "--set", "simulation.horizon=\"1h\"", "-o", "DIR", NULL };

		html = run_then_report(args, plots, &dir);
	}
	/* 2 replications cannot prove P(SLO met) >= 90%: nothing is recommended
	 * and nothing "saves" a negative amount. */
	assert_true(strstr(html, "Recommended: variant") ||
	            strstr(html, "No variant is proven to meet"));
	assert_null(strstr(html, "saves"));
	/* No variant recommended: neither the Recommendation line nor the
	 * headroom may present the one shown for reference as recommended. */
	assert_has(html, "No variant is recommended",
	           "Recommendation: none; the figures below are variant ",
	           "(not recommended) stays within its SLO");
	assert_null(strstr(html, "Recommendation: variant"));
	assert_null(strstr(html, "the recommended fleet"));
	assert_has(html, "all-on-demand", "Spot exposure", "The answer in brief",
	           "why not chosen");
	/* no objective: the share to claim is 90%, 2 / (2 + 1.96^2) = 34% now,
	 * n / (n + 3.84) >= 0.9 at n = 35 */
	assert_has(html, "To claim 90%: run 35 replications");
	free(html);
	fs_test_tmpdir_free(dir);
}

static void test_report_sweep_dir(void **state)
{
	static const char *const plots[] = { "pareto", NULL };
	char *dir, *html;

	(void)state;
	{
		const char *args[] = { "sweep", "tests/data/sweep_small.json", "-q", "-o", "DIR",
		                       NULL };

		html = run_then_report(args, plots, &dir);
	}
	assert_has(html, "Recommended: ", "Worst replication");
	{
		/* Point 5: 2 spot L40S at USD 0.79/h = USD 1153.40 a month (best.json);
		 * budget 12 x 1153.4 x 1.3 x 1.25 = 22490.6; 5 of 5 runs: Wilson
		 * lower end 5 / (5 + 1.96^2) = 57%. */
		char *t = first_of(html);

		assert_has(t, "2 x l40s on the hourly spot plan",
		           "Annual budget to ask for: USD 22491",
		           "Headroom: the recommended fleet stays within its SLO",
		           "Availability: ");
		/* The sweep's objective bounds TTFT p99, not only SLO attainment:
		 * its runs met every constraint, not "the SLO" (MODEL: H9). */
		assert_non_null(strstr(t, "met every constraint of the objective "
		                          "(ttft_ms p99 at most 2s) in 5 of 5 simulated runs"));
		assert_null(strstr(t, "met the SLO in"));
		assert_non_null(strstr(t, "at least 57%"));
		free(t);
	}
	assert_has(html, "why not chosen", "meets them but costs more");
	assert_non_null(strstr(html, "as of "));        /* catalogue price date */
	free(html);
	fs_test_tmpdir_free(dir);
}

/* The headroom key's seed in DIR/headroom.json (fails when absent). */
static double headroom_seed(const char *dir)
{
	char *text = fs_test_read_out(dir, "headroom.json");
	cJSON *root = cJSON_Parse(text);
	const cJSON *seed = cJSON_GetObjectItemCaseSensitive(
	        cJSON_GetObjectItemCaseSensitive(root, "key"), "seed");
	double v;

	assert_true(cJSON_IsNumber(seed));
	v = seed->valuedouble;
	cJSON_Delete(root);
	free(text);
	return v;
}

/* The headroom search runs on the seed the run or sweep was given with
 * --seed, not on the scenario file's (MODEL: H4). */
static void test_report_headroom_runs_on_the_seed_given(void **state)
{
	char *dir, *html;

	(void)state;
	{
		const char *args[] = { "run", "scenarios/quickstart.json", "-r", "2", "-q",
		                       "--seed", "777", "--set", "simulation.horizon=\"10m\"",
		                       "--set", "simulation.warmup=\"1m\"", "-o", "DIR", NULL };

		html = run_then_report(args, NO_PLOTS, &dir);
	}
	assert_has(html, "Seed 777, 2 replications");
	assert_true(headroom_seed(dir) == 777);
	free(html);
	fs_test_tmpdir_free(dir);
	{
		const char *args[] = { "sweep", "tests/data/sweep_small.json", "-q", "--seed", "5",
		                       "-o", "DIR", NULL };

		html = run_then_report(args, NO_PLOTS, &dir);
	}
	assert_true(headroom_seed(dir) == 5);
	free(html);
	fs_test_tmpdir_free(dir);
}

/* A class name full of markup reaches neither HTML nor gnuplot raw. */
static void test_report_escapes_hostile_names(void **state)
{
	char *dir, *html, *gp, path[4096];
	struct stat st;

	(void)state;
	{
		const char *args[] = { "run", "scenarios/quickstart.json", "-r", "2", "-q",
		                       "--set", "workload.classes[0].name=\"<script>it's `touch pwned` $(touch pwned) @x\"",
		                       "-o", "DIR", NULL };

		html = run_then_report(args, NO_PLOTS, &dir);
	}
	assert_null(strstr(html, "<script>"));
	assert_non_null(strstr(html, "&lt;script&gt;it&#39;s"));
	snprintf(path, sizeof path, "%s/plots/latency_cdf.gp", dir);
	gp = fs_test_read_file(path, NULL);
	assert_non_null(gp);
	assert_non_null(strstr(gp, "'<script>it''s `touch pwned` $(touch pwned) @x'"));
	assert_int_not_equal(stat("pwned", &st), 0);
	snprintf(path, sizeof path, "%s/plots/pwned", dir);
	assert_int_not_equal(stat(path, &st), 0);
	free(gp);
	free(html);
	fs_test_tmpdir_free(dir);
}

/* Run `fleetsim report dir` with a gnuplot first in $PATH that fails on
 * utilization.gp (a run's last plot) and runs the real one on the others,
 * as a full disk or a broken gnuplot would fail a later plot: exit 1, the
 * message names the plot and says nothing was written. */
static void report_with_failing_plot(const char *dir)
{
	const char *args[] = { "report", dir, NULL }, *path = getenv("PATH");
	char *shim_dir = fs_test_tmpdir(), *shim = fs_test_path(shim_dir, "gnuplot");
	char *old = strdup(path != NULL ? path : "/usr/bin:/bin"), *new_path;
	struct fs_test_run r;
	FILE *f = fopen(shim, "w");
	size_t n = strlen(shim_dir) + strlen(old) + 2;

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncase \"$*\" in *utilization.gp*) echo 'no space left' >&2; "
	           "exit 1;; esac\nPATH='%s' exec gnuplot \"$@\"\n", old);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(shim, 0755), 0);
	new_path = malloc(n);
	assert_non_null(new_path);
	snprintf(new_path, n, "%s:%s", shim_dir, old);
	setenv("PATH", new_path, 1);
	r = fs_test_run_fleetsim(args);
	setenv("PATH", old, 1);
	assert_int_equal(r.exit_code, 1);
	assert_has(r.err, "utilization.gp", "no space left", "nothing was written");
	/* the staging directory is gone: the message does not send the user there */
	assert_null(strstr(r.err, ".fleetsim.tmp"));
	fs_test_run_free(&r);
	free(new_path);
	free(old);
	free(shim);
	fs_test_tmpdir_free(shim_dir);
}

/* The inode of dir/file (0 when it is absent): a rename replaces it. */
static ino_t inode_of(const char *dir, const char *file)
{
	char *path = fs_test_path(dir, file);
	struct stat st;
	ino_t ino = stat(path, &st) == 0 ? st.st_ino : 0;

	free(path);
	return ino;
}

/* No staging directory is left in dir. */
static void no_staging_left(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, ".fleetsim.tmp", 13) == 0)
			fail_msg("%s/%s left behind", dir, e->d_name);
	closedir(d);
}

/* The plots and the two documents are one set of outputs: a plot that
 * fails after others were drawn leaves no new plot beside the earlier
 * report (nor a new plot with no report at all), and no temporary. */
static void test_report_failed_plot_writes_nothing(void **state)
{
	static const char *const kept[] = { "report.md", "report.html",
	                                    "plots/latency_cdf.png", "plots/latency_cdf.gp",
	                                    "plots/timeline.svg", NULL };
	const char *run[] = { "run", "scenarios/quickstart.json", "-r", "2", "-q", "-o", NULL,
	                      NULL };
	char *dir, *plots, *html;
	ino_t before[8];
	size_t i;

	(void)state;
	need_gnuplot();
	dir = fs_test_tmpdir();
	plots = fs_test_path(dir, "plots");
	run[6] = dir;
	fs_test_fleetsim_ok(run);
	/* A first report that fails: nothing of it appears. */
	report_with_failing_plot(dir);
	for (i = 0; kept[i] != NULL; i++)
		if (inode_of(dir, kept[i]) != 0)
			fail_msg("%s written by a report that failed", kept[i]);
	no_staging_left(dir);
	no_staging_left(plots);
	/* A report that succeeds, then one that fails: the first's files stay. */
	html = report(dir);
	free(html);
	for (i = 0; kept[i] != NULL; i++) {
		before[i] = inode_of(dir, kept[i]);
		assert_true(before[i] != 0);
	}
	report_with_failing_plot(dir);
	for (i = 0; kept[i] != NULL; i++)
		if (inode_of(dir, kept[i]) != before[i])
			fail_msg("%s replaced by a report that failed", kept[i]);
	no_staging_left(dir);
	no_staging_left(plots);
	free(plots);
	fs_test_tmpdir_free(dir);
}

static void test_report_bad_dir_is_exit_2(void **state)
{
	char *dir;

	(void)state;
	need_gnuplot();
	dir = fs_test_tmpdir();
	{
		const char *args[] = { "report", dir, NULL };
		struct fs_test_run r = fs_test_run_fleetsim(args);

		assert_int_equal(r.exit_code, 2);
		assert_non_null(strstr(r.err, "not an output directory"));
		fs_test_run_free(&r);
	}
	{
		const char *args[] = { "report", "/nonexistent/fleetsim-dir", NULL };
		struct fs_test_run r = fs_test_run_fleetsim(args);

		assert_int_equal(r.exit_code, 2);
		assert_non_null(strstr(r.err, "not a directory"));
		fs_test_run_free(&r);
	}
	{
		const char *args[] = { "report", NULL };
		struct fs_test_run r = fs_test_run_fleetsim(args);

		assert_int_equal(r.exit_code, 2);
		fs_test_run_free(&r);
	}
	fs_test_tmpdir_free(dir);
}


/* Sum of the numbers of the first data row of a .dat file, from column
 * `from` (1-based) on; the number of columns in *n_cols. */
static double dat_row_sum(const char *path, int from, int *n_cols)
{
	char *text = fs_test_read_file(path, NULL), *line, *save = NULL;
	double sum = 0;

	assert_non_null(text);
	*n_cols = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok, *save2 = NULL;

		if (line[0] == '#')
			continue;
		for (tok = strtok_r(line, " ", &save2); tok; tok = strtok_r(NULL, " ", &save2))
			if (++*n_cols >= from)
				sum += strtod(tok, NULL);
		break;
	}
	free(text);
	return sum;
}

static void mtime_of(const char *path, struct timespec *t)
{
	struct stat st;

	if (stat(path, &st) != 0)
		fail_msg("missing %s", path);
	*t = st.st_mtim;
}

/* Issue 18: a sweep report shows the recommended configuration in full. */
static void test_report_sweep_runs_the_recommended_point_again(void **state)
{
	static const char *const plots[] = { "pareto", "latency_cdf", "timeline",
	                                     "utilization", "cost_breakdown", NULL };
	char *dir, *html, path[4096], *source, *again;
	cJSON *j;
	struct timespec t1, t2;
	int n_cols;

	(void)state;
	{
		const char *args[] = { "sweep", "tests/data/sweep_small.json", "-q", "-o", "DIR",
		                       NULL };

		html = run_then_report(args, plots, &dir);
	}
	/* The plots are in the report itself, with their captions. */
	assert_has(html, "plots/timeline.svg", "plots/utilization.svg",
	           "plots/cost_breakdown.svg", "The recommended configuration (run again",
	           "healthy band", "unused while serving");
	assert_null(strstr(html, "a sweep keeps no per-point time series"));
	/* Point 5 (spot, 2 x L40S at USD 0.79/h) again on seed 3: 10 minutes
	 * cost 2 x 0.79 / 6 = USD 0.26333 and a 730-hour month 2 x 0.79 x 730 =
	 * USD 1153.40, the sweep's objective for it. */
	j = fs_test_read_json(dir, "recommended/summary.json");
	assert_near(fs_test_json_num(j, "cost.total.value"), 2 * 0.79 / 6, 1e-6, 0);
	assert_near(fs_test_json_num(j, "cost.monthly_projected.value"), 2 * 0.79 * 730,
	            1e-6, 0);
	cJSON_Delete(j);
	j = fs_test_read_json(dir, "best.json");
	assert_near(fs_test_json_num(j, "best.objective.value"), 2 * 0.79 * 730, 1e-6, 0);
	cJSON_Delete(j);
	/* Its bar: used + unused + idle + reclaims = the monthly bill. */
	snprintf(path, sizeof path, "%s/plots/cost_breakdown.dat", dir);
	assert_near(dat_row_sum(path, 2, &n_cols), 2 * 0.79 * 730, 1e-6, 1e-9);
	assert_int_equal(n_cols, 5);         /* bar, pool p, unused, idle, reclaims */
	snprintf(path, sizeof path, "%s/recommended/source.json", dir);
	source = fs_test_read_file(path, NULL);
	assert_non_null(source);
	assert_non_null(strstr(source, "\"point\":\t5"));
	free(html);

	/* A second report reuses the run: the files are not written again. */
	snprintf(path, sizeof path, "%s/recommended/summary.json", dir);
	mtime_of(path, &t1);
	html = report(dir);
	mtime_of(path, &t2);
	assert_true(t1.tv_sec == t2.tv_sec && t1.tv_nsec == t2.tv_nsec);
	free(html);
	/* A source.json that no longer matches best.json is run again. */
	snprintf(path, sizeof path, "%s/recommended/source.json", dir);
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs("{}\n", f);
		fclose(f);
	}
	html = report(dir);
	again = fs_test_read_file(path, NULL);
	assert_non_null(again);
	assert_string_equal(again, source);
	free(again);
	free(source);
	free(html);
	fs_test_tmpdir_free(dir);
}

/* Read DIR/plots/NAME.gp (heap). */
static char *script(const char *dir, const char *name)
{
	char path[4096];
	char *gp;

	snprintf(path, sizeof path, "%s/plots/%s.gp", dir, name);
	gp = fs_test_read_file(path, NULL);
	if (gp == NULL)
		fail_msg("missing %s", path);
	return gp;
}

/* Issue 18: plots a manager can read — what each script must carry. */
static void test_report_plots_carry_their_reading_aids(void **state)
{
	char *run, *var, *gp;

	(void)state;
	need_gnuplot();
	run = fs_test_tmpdir();
	var = fs_test_tmpdir();
	{
		const char *args[] = { "run", "scenarios/quickstart.json", "-r", "2", "-q",
		                       "-o", run, NULL };
		const char *vargs[] = { "run", "scenarios/spot-strategies.json", "-r", "2", "-q",
		                        "--set", "simulation.horizon=\"1h\"", "-o", var, NULL };
		const char *r1[] = { "report", run, "-q", NULL };
		const char *r2[] = { "report", var, "-q", NULL };

		fs_test_fleetsim_ok(args);
		fs_test_fleetsim_ok(vargs);
		fs_test_fleetsim_ok(r1);
		fs_test_fleetsim_ok(r2);
	}
	/* CDFs: each class's TTFT SLO (chat 1 s, code 2 s) as a line, and the
	 * p90-p99.9 tail on a reversed log-survival axis. */
	gp = script(run, "latency_cdf");
	assert_has(gp, "SLO 1000 ms (p95): chat", "SLO 2000 ms (p95): code",
	           "'p99.9' 0.001", "set yrange [0.104:0.00096]");
	free(gp);
	/* Utilisation: busy fraction clipped at 100%, the healthy band and the
	 * idle threshold. */
	gp = script(run, "utilization");
	assert_has(gp, "clip(p) = p > 100 ? 100 : p", "healthy band 80-95%",
	           "first 10 to graph 1, first 10");
	free(gp);
	/* Cost: unused capacity, idle and reclaims each a visible part. */
	gp = script(run, "cost_breakdown");
	assert_has(gp, "unused capacity while serving", "lost to spot reclaims",
	           "reclaims 0.0%");
	free(gp);
	/* Spot strategies: the attainment axis stops at 100%; every label was
	 * placed (no "left out" in the caption) and at graph coordinates. */
	gp = script(var, "spot_strategies");
	assert_non_null(strstr(gp, "set xrange ["));
	assert_non_null(strstr(strstr(gp, "set xrange ["), ":100]"));
	assert_non_null(strstr(gp, "at graph "));
	free(gp);
	fs_test_tmpdir_free(var);
	fs_test_tmpdir_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_run_dir),
		cmocka_unit_test(test_report_variants_dir),
		cmocka_unit_test(test_report_sweep_dir),
		cmocka_unit_test(test_report_headroom_runs_on_the_seed_given),
		cmocka_unit_test(test_report_escapes_hostile_names),
		cmocka_unit_test(test_report_bad_dir_is_exit_2),
		cmocka_unit_test(test_report_failed_plot_writes_nothing),
		cmocka_unit_test(test_report_sweep_runs_the_recommended_point_again),
		cmocka_unit_test(test_report_plots_carry_their_reading_aids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
