/*
 * report.c — `fleetsim report DIR`: load the directory, draw the plots,
 * fill the document model (report_doc.c) and write report.html and
 * report.md (see report.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleetsim/escape.h"
#include "report_internal.h"

int fs_report_build(const char *dir, const char *gnuplot, char *html_path,
                    size_t html_len, struct fs_error *err)
{
	struct fs__report r;
	char path[4096];
	int rc = FS_EXIT_RUNTIME;
	struct stat st;

	snprintf(path, sizeof path, "%s/budget.json", dir);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return fs__report_budget(dir, html_path, html_len, err);
	if (fs__report_load(&r, dir, err)) {
		fs__report_fini(&r);
		return FS_EXIT_INPUT;
	}
	r.gnuplot = gnuplot;
	if (r.kind == FS_REPORT_SWEEP && fs__report_rerun_best(&r, err))
		goto out;
	fs__plot_load_style(&r);
	if (fs__report_plots(&r, err))
		goto out;
	fs__report_content(&r);
	snprintf(path, sizeof path, "%s/report.md", dir);
	if (fs__report_write_md(&r, path, err))
		goto out;
	snprintf(path, sizeof path, "%s/report.html", dir);
	if (fs__report_write_html(&r, path, err))
		goto out;
	if (html_len)
		snprintf(html_path, html_len, "%s", path);
	rc = FS_EXIT_OK;
out:
	fs__report_fini(&r);
	return rc;
}
