/*
 * cli_report.c — `fleetsim report DIR [-q]`: plots and report.html /
 * report.md from a run, variants or sweep output directory.  Prints the path
 * of report.html.  Exit 2 for a bad DIR, 1 when gnuplot is missing or fails.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/gnuplot.h"
#include "fleetsim/report.h"

static const char report_help[] =
	"usage: fleetsim report DIR [OPTIONS]\n"
	"\n"
	"Draw plots with gnuplot (DIR/plots/*.png, *.svg, with their .gp scripts and\n"
	".dat data) and write a management report, DIR/report.html (self-contained)\n"
	"and DIR/report.md, from DIR: the output directory of fleetsim run (one\n"
	"configuration or a variants comparison) or of fleetsim sweep.\n"
	"Needs gnuplot in $PATH (Debian/Ubuntu package " FS_GNUPLOT_PACKAGE ").\n"
	"Contents: docs/REPORT.md.\n"
	"\n"
	"options:\n"
	"  -q, --quiet   do not print the path of report.html\n"
	"  -h, --help    this text\n"
	"\n"
	"exit status: 0 success, 1 runtime failure (gnuplot missing or failing,\n"
	"I/O), 2 bad input (DIR is not an output directory).\n";

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
	if (fs_gnuplot_find(gnuplot, sizeof gnuplot) != 0) {
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
