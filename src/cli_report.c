/*
 * cli_report.c — `fleetsim report DIR [-q]`: plots and report.html /
 * report.md from a run, variants or sweep output directory.  Prints the path
 * of report.html.  Exit 2 for a bad DIR (also one that cannot take new
 * files, checked before any plot), 1 when gnuplot is missing or fails.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fleetsim/gnuplot.h"
#include "fleetsim/outfile.h"
#include "fleetsim/report.h"

static const char report_help[] =
	"usage: fleetsim report DIR [OPTIONS]\n"
	"\n"
	"Draw plots with gnuplot (DIR/plots/*.png, *.svg, with their .gp scripts and\n"
	".dat data) and write a management report, DIR/report.html (self-contained)\n"
	"and DIR/report.md, from DIR: the output directory of fleetsim run (one\n"
	"configuration or a variants comparison) or of fleetsim sweep.\n"
	"On the output directory of fleetsim budget (DIR/budget.json) it writes a\n"
	"one-page budget instead: the plan, cost per task, per month and per pricing\n"
	"plan, the planning margin and the assumptions (no plots, no gnuplot).\n"
	"Needs gnuplot in $PATH (Debian/Ubuntu package " FS_GNUPLOT_PACKAGE ").\n"
	"Contents: docs/REPORT.md.\n"
	"\n"
	"options:\n"
	"  -q, --quiet   do not print the path of report.html\n"
	"  -h, --help    this text\n"
	"\n"
	"exit status: 0 success, 1 runtime failure (gnuplot missing or failing,\n"
	"I/O), 2 bad input (DIR is not an output directory, or cannot take the\n"
	"report's files: checked before any work).\n";

/* DIR, when it is a directory, must take new files and DIR/plots must be
 * creatable (a DIR that is not an output directory is fs_report_build's
 * to report). */
static int check_outputs(const char *dir)
{
	static const char *const files[] = { "report.html", "report.md" };
	struct fs_error err;
	struct stat st;
	char *plots;
	size_t n = strlen(dir) + 16, i;
	int rc;

	if (dir[0] == '\0') {
		fprintf(stderr, "fleetsim report: DIR: expected an output directory, "
		        "found an empty name\n");
		return -1;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	plots = fs_xmalloc(n);
	snprintf(plots, n, "%s/plots", dir);
	rc = fs_outfile_check_dir(dir, &err);
	if (rc == 0)
		rc = fs_outfile_check_dir(plots, &err);
	for (i = 0; i < sizeof files / sizeof files[0] && rc == 0; i++)
		rc = fs_outfile_check_file(dir, files[i], &err);
	/* A sweep's recommended point is run again into DIR/recommended. */
	snprintf(plots, n, "%s/sweep.json", dir);
	if (rc == 0 && stat(plots, &st) == 0) {
		static const char *const rerun[] = { "summary.json", "timeseries.csv",
		                                     "scenario.json", "latency_cdf.csv",
		                                     "source.json" };
		char *sub = fs_xmalloc(n + 16);

		snprintf(sub, n + 16, "%s/recommended", dir);
		rc = fs_outfile_check_dir(sub, &err);
		for (i = 0; i < sizeof rerun / sizeof rerun[0] && rc == 0; i++)
			rc = fs_outfile_check_file(sub, rerun[i], &err);
		free(sub);
	}
	free(plots);
	if (rc != 0) {
		fputs("fleetsim report: output: ", stderr);
		fs_error_print(&err);
	}
	return rc;
}

/* A fleetsim budget output directory (DIR/budget.json)? */
static int is_budget_dir(const char *dir)
{
	struct stat st;
	size_t n = strlen(dir) + 16;
	char *p = fs_xmalloc(n);
	int yes;

	snprintf(p, n, "%s/budget.json", dir);
	yes = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return yes;
}

int fs__cli_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char gnuplot[4096], html[4096];
	struct fs_error err;
	int c, quiet = 0, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(report_help, stdout);
			return FS_EXIT_OK;
		default:
			return fs__cli_usage_error("report", "unknown option \"%s\"",
			                           argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return fs__cli_usage_error("report", "missing DIR");
	if (optind + 1 < argc)
		return fs__cli_usage_error("report", "one DIR expected, found also \"%s\"",
		                           argv[optind + 1]);
	if (check_outputs(argv[optind]) != 0)
		return FS_EXIT_INPUT;
	if (is_budget_dir(argv[optind]))
		gnuplot[0] = '\0';       /* a budget has no plots */
	else if (fs_gnuplot_find(gnuplot, sizeof gnuplot) != 0) {
		fprintf(stderr, "fleetsim report: gnuplot not found in $PATH; install it "
		        "(Debian/Ubuntu: apt-get install " FS_GNUPLOT_PACKAGE ")\n");
		return FS_EXIT_RUNTIME;
	}
	memset(&err, 0, sizeof err);
	rc = fs_report_build(argv[optind], gnuplot, html, sizeof html, &err);
	if (rc != FS_EXIT_OK) {
		fputs("fleetsim report: ", stderr);
		fs_error_print(&err);
		return rc;
	}
	if (!quiet)
		printf("%s\n", html);
	return FS_EXIT_OK;
}
