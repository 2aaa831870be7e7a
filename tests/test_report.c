/*
 * test_report.c — `fleetsim report DIR` end to end on a run directory, a
 * variants directory and a sweep directory made by running ./fleetsim into
 * temporary directories with few replications: every expected plot exists
 * in PNG and SVG and is non-empty, report.html and report.md hold the
 * sections and the recommendation, hostile names come out escaped, and a bad
 * DIR is exit 2.  Needs gnuplot: skips with a message when it is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util_test.h"

static void need_gnuplot(void)
{
	if (!fs_test_have_cmd("gnuplot")) {
		fprintf(stderr, "gnuplot not in PATH (package gnuplot-nox): skipping\n");
		skip();
	}
}

static void run_ok(const char *const *args)
{
	struct fs_test_run r = fs_test_run_fleetsim(args);

	if (r.exit_code != 0)
		fail_msg("fleetsim %s %s exited %d: %s", args[0], args[1], r.exit_code, r.err);
	fs_test_run_free(&r);
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
 * 2 / (2 + 1.96^2) = 34%, and 35 runs would prove 90%. */
static void first_section(const char *html)
{
	char *t = first_of(html);

	assert_non_null(strstr(t, "2 x l40s on the hourly (on demand) plan"));
	assert_non_null(strstr(t, "USD 2044 (same in every replication) per month"));
	assert_non_null(strstr(t, "USD 24528 per year"));
	assert_non_null(strstr(t, "Annual budget to ask for: USD 39858"));
	assert_non_null(strstr(t, "break-even of 438 h a month"));
	assert_non_null(strstr(t, "USD 818 less per month"));
	assert_non_null(strstr(t, "Headroom: the recommended fleet stays within its SLO up to"));
	assert_non_null(strstr(t, "If traffic doubles"));
	assert_non_null(strstr(t, "345600 requests a day"));
	assert_non_null(strstr(t, "miss the daily peak"));
	assert_non_null(strstr(t, "5.33 requests/s around 14:00"));
	assert_non_null(strstr(t, "Availability: the fleet had the serving instances it "
	                          "wanted 100.0%"));
	assert_non_null(strstr(t, "Spot exposure: none"));
	assert_non_null(strstr(t, "Redundancy: "));
	assert_non_null(strstr(t, "Confidence: met the SLO in 2 of 2 simulated runs"));
	assert_non_null(strstr(t, "with 2 runs we can claim at least 34%"));
	assert_non_null(strstr(t, "run 35 replications"));
	free(t);
}

static void test_report_run_dir(void **state)
{
	static const char *const plots[] = { "latency_cdf", "timeline", "utilization",
	                                     "cost_breakdown", "cost_per_rep", NULL };
	char *dir, *html;

	(void)state;
	need_gnuplot();
	dir = fs_test_tmpdir();
	{
		const char *args[] = { "run", "scenarios/quickstart.json", "-r", "2", "-q",
		                       "-o", dir, NULL };
		run_ok(args);
	}
	html = report(dir);
	expect_plots(dir, plots);
	assert_non_null(strstr(html, "A single configuration was simulated"));
	assert_non_null(strstr(html, "P(SLO met)"));
	/* 2 of 2 replications: [34.2%, 100%] straddles 80%; 16 would decide it. */
	assert_non_null(strstr(html, "P(SLO met) at least 80%?"));
	assert_non_null(strstr(html, "undecided: 16 replications would decide it"));
	/* A fixed fleet: $2.80 in every replication, said so. */
	assert_non_null(strstr(html, "2.80 (same in every replication)"));
	assert_non_null(strstr(html, "sha256"));
	first_section(html);
	free(html);
	/* A second report reuses the headroom search kept in the directory. */
	html = report(dir);
	assert_non_null(strstr(html, "reused from headroom.json"));
	free(html);
	fs_test_tmpdir_free(dir);
}

static void test_report_variants_dir(void **state)
{
	static const char *const plots[] = { "pareto", "spot_strategies", "latency_cdf",
	                                     "cost_breakdown", "cost_per_rep", "timeline",
	                                     "utilization", NULL };
	char *dir, *html;

	(void)state;
	need_gnuplot();
	dir = fs_test_tmpdir();
	{
		const char *args[] = { "run", "scenarios/spot-strategies.json", "-r", "2", "-q",
		                       "--set", "simulation.horizon=\"1h\"", "-o", dir, NULL };
		run_ok(args);
	}
	html = report(dir);
	expect_plots(dir, plots);
	/* 2 replications cannot prove P(SLO met) >= 90%: nothing is recommended
	 * and nothing "saves" a negative amount. */
	assert_true(strstr(html, "Recommended: variant") ||
	            strstr(html, "No variant is proven to meet"));
	assert_null(strstr(html, "saves"));
	assert_non_null(strstr(html, "all-on-demand"));
	assert_non_null(strstr(html, "Spot exposure"));
	assert_non_null(strstr(html, "The answer in brief"));
	assert_non_null(strstr(html, "why not chosen"));
	free(html);
	fs_test_tmpdir_free(dir);
}

static void test_report_sweep_dir(void **state)
{
	static const char *const plots[] = { "pareto", NULL };
	char *dir, *html;

	(void)state;
	need_gnuplot();
	dir = fs_test_tmpdir();
	{
		const char *args[] = { "sweep", "tests/data/sweep_small.json", "-q", "-o", dir,
		                       NULL };
		run_ok(args);
	}
	html = report(dir);
	expect_plots(dir, plots);
	assert_non_null(strstr(html, "Recommended: "));
	assert_non_null(strstr(html, "Worst replication"));
	{
		/* Point 5: 2 spot L40S at USD 0.79/h = USD 1153.40 a month (best.json);
		 * budget 12 x 1153.4 x 1.3 x 1.25 = 22490.6; 5 of 5 runs: Wilson
		 * lower end 5 / (5 + 1.96^2) = 57%. */
		char *t = first_of(html);

		assert_non_null(strstr(t, "2 x l40s on the hourly spot plan"));
		assert_non_null(strstr(t, "Annual budget to ask for: USD 22491"));
		assert_non_null(strstr(t, "Headroom: the recommended fleet stays within its SLO"));
		assert_non_null(strstr(t, "Availability: "));
		assert_non_null(strstr(t, "met the SLO in 5 of 5 simulated runs"));
		assert_non_null(strstr(t, "at least 57%"));
		free(t);
	}
	assert_non_null(strstr(html, "why not chosen"));
	assert_non_null(strstr(html, "meets them but costs more"));
	assert_non_null(strstr(html, "as of "));        /* catalogue price date */
	free(html);
	fs_test_tmpdir_free(dir);
}

/* A class name full of markup reaches neither HTML nor gnuplot raw. */
static void test_report_escapes_hostile_names(void **state)
{
	char *dir, *html, *gp, path[4096];
	struct stat st;

	(void)state;
	need_gnuplot();
	dir = fs_test_tmpdir();
	{
		const char *args[] = { "run", "scenarios/quickstart.json", "-r", "2", "-q",
		                       "--set", "workload.classes[0].name=\"<script>it's `touch pwned` $(touch pwned) @x\"",
		                       "-o", dir, NULL };
		run_ok(args);
	}
	html = report(dir);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_run_dir),
		cmocka_unit_test(test_report_variants_dir),
		cmocka_unit_test(test_report_sweep_dir),
		cmocka_unit_test(test_report_escapes_hostile_names),
		cmocka_unit_test(test_report_bad_dir_is_exit_2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
