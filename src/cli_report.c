/*
 * cli_report.c — `fleetsim report DIR [-q] [--pdf]`: plots and report.html /
 * report.md from a run, variants or sweep output directory, and with --pdf
 * report.pdf printed by headless Chromium.  Prints the path of report.html
 * (and report.pdf).  Exit 2 for a bad DIR (also one that cannot take new
 * files, checked before any plot), 1 when gnuplot or (with --pdf) Chromium
 * is missing or fails.
 */
#define _XOPEN_SOURCE 700            /* nftw */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	"On a sweep directory the recommended point is run again (same seed and\n"
	"replications, with time series) into DIR/recommended/, reused by later\n"
	"reports, for its timeline, utilisation and cost breakdown plots.\n"
	"Needs gnuplot in $PATH (Debian/Ubuntu package " FS_GNUPLOT_PACKAGE ").\n"
	"Contents: docs/REPORT.md.\n"
	"\n"
	"options:\n"
	"  -q, --quiet   do not print the path of report.html\n"
	"      --pdf     also print the report to DIR/report.pdf with headless\n"
	"                Chromium (chromium, chromium-browser or google-chrome in\n"
	"                $PATH; Debian: apt-get install chromium), checked first\n"
	"  -h, --help    this text\n"
	"\n"
	"exit status: 0 success, 1 runtime failure (gnuplot missing or failing, or\n"
	"I/O: no new plot and no new report is left, DIR's earlier ones stay as\n"
	"they were; Chromium with --pdf missing, checked first, or failing, after\n"
	"the report is written), 2 bad input (DIR is not an output directory, or\n"
	"cannot take the report's files: checked before any work).\n";

/* DIR, when it is a directory, must take new files and DIR/plots must be
 * creatable (a DIR that is not an output directory is fs_report_build's
 * to report). */
static int check_outputs(const char *dir)
{
	static const char *const files[] = { "report.html", "report.md", "report.pdf" };
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

static const char *const BROWSERS[] = { "chromium", "chromium-browser", "google-chrome" };

/* The first browser of BROWSERS in $PATH into buf; -1 when none is. */
static int find_browser(char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof BROWSERS / sizeof BROWSERS[0]; i++)
		if (fs_exec_find(BROWSERS[i], buf, len) == 0)
			return 0;
	return -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Print report.html to report.pdf beside it: headless Chromium with a
 * throw-away profile, writing a temporary name renamed once it is a
 * non-empty file.  Prints the PDF's path unless quiet. */
static int print_pdf(const char *browser, const char *html, int quiet)
{
	char abs_html[PATH_MAX], profile[PATH_MAX + 32];
	char url[PATH_MAX + 16], out_flag[PATH_MAX + 96], prof_flag[PATH_MAX + 64];
	char tmp[PATH_MAX + 48];
	char pdf[PATH_MAX + 8];
	const char *args[16];
	struct fs_error err;
	struct stat st;
	size_t n = 0, len;
	int rc;

	if (realpath(html, abs_html) == NULL) {
		fprintf(stderr, "fleetsim report: --pdf: %s: %s\n", html, strerror(errno));
		return FS_EXIT_RUNTIME;
	}
	len = strlen(abs_html);
	/* The browser's throw-away profile lives beside the report. */
	snprintf(profile, sizeof profile, "%.*s.fleetsim-pdf.XXXXXX",
	         (int)(strrchr(abs_html, '/') - abs_html + 1), abs_html);
	snprintf(pdf, sizeof pdf, "%.*s.pdf", (int)(len > 5 ? len - 5 : len), abs_html);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", pdf, (long)getpid());
	if (mkdtemp(profile) == NULL) {
		fprintf(stderr, "fleetsim report: --pdf: cannot create a browser profile "
		        "directory: %s\n", strerror(errno));
		return FS_EXIT_RUNTIME;
	}
	snprintf(url, sizeof url, "file://%s", abs_html);
	snprintf(out_flag, sizeof out_flag, "--print-to-pdf=%s", tmp);
	snprintf(prof_flag, sizeof prof_flag, "--user-data-dir=%s", profile);
	args[n++] = "chromium";
	args[n++] = "--headless";
	if (geteuid() == 0)
		args[n++] = "--no-sandbox";   /* Chromium refuses root otherwise */
	args[n++] = "--disable-gpu";
	args[n++] = "--no-first-run";
	args[n++] = "--disable-background-networking";
	args[n++] = "--disable-component-update";
	args[n++] = "--disable-sync";
	args[n++] = "--disable-dev-shm-usage";
	args[n++] = "--no-pdf-header-footer";
	args[n++] = prof_flag;
	args[n++] = out_flag;
	args[n++] = url;
	args[n] = NULL;
	memset(&err, 0, sizeof err);
	rc = fs_exec_run(browser, profile, args, "chromium", 120, &err);
	nftw(profile, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (rc == 0 && (stat(tmp, &st) != 0 || st.st_size == 0))
		rc = fs_error_set(&err, tmp, NULL, "chromium wrote no PDF");
	if (rc == 0 && rename(tmp, pdf) != 0)
		rc = fs_error_set(&err, pdf, NULL, "cannot rename %s: %s", tmp, strerror(errno));
	if (rc != 0) {
		remove(tmp);
		fputs("fleetsim report: --pdf: ", stderr);
		fs_error_print(&err);
		return FS_EXIT_RUNTIME;
	}
	if (!quiet)
		printf("%s\n", pdf);
	return FS_EXIT_OK;
}

enum { OPT_PDF = 256 };

int fs__cli_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "pdf", no_argument, NULL, OPT_PDF },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char gnuplot[4096], html[4096], browser[4096];
	struct fs_error err;
	int c, quiet = 0, pdf = 0, rc;

	optind = 1;
	opterr = 0;
	while ((c = fs__cli_getopt(argc, argv, ":qh", longopts)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case OPT_PDF:
			pdf = 1;
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
	if (pdf && find_browser(browser, sizeof browser) != 0) {
		fprintf(stderr, "fleetsim report: --pdf needs headless Chromium: none of "
		        "chromium, chromium-browser, google-chrome is in $PATH; install it "
		        "(Debian: apt-get install chromium), or open report.html in a browser "
		        "and print it; nothing was written\n");
		return FS_EXIT_RUNTIME;
	}
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
	return pdf ? print_pdf(browser, html, quiet) : FS_EXIT_OK;
}
