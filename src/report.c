/*
 * report.c — `fleetsim report DIR`: load the directory, draw the plots,
 * fill the document model (report_doc.c) and write report.html and
 * report.md (see report.h).  The plots and the two documents are one set
 * of outputs: staged (fs_outset) and moved into place together once all
 * are written, so a failure (gnuplot, a full disk) leaves DIR's earlier
 * report and plots as they were, never new plots beside an old report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleetsim/escape.h"
#include "fleetsim/outfile.h"
#include "report_internal.h"

/* Draw the plots into plots and write report.md and report.html into
 * docs, both staged.  0, or -1 with err. */
static int write_staged(struct fs__report *r, struct fs_outset *plots,
                        struct fs_outset *docs, struct fs_error *err)
{
	r->plot_set = plots;
	fs__plot_load_style(r);
	if (fs__report_plots(r, err))
		return -1;
	fs__report_content(r);
	if (fs__report_write_md(r, fs_outset_path(docs, "report.md"), err))
		return -1;
	return fs__report_write_html(r, fs_outset_path(docs, "report.html"), err);
}

/* A failure before the commit: what failed, then that nothing moved. */
static void say_nothing_written(struct fs_error *err)
{
	size_t n = strlen(err->msg);

	snprintf(err->msg + n, sizeof err->msg - n, "; nothing was written: the "
	         "directory's earlier report and plots, if any, are unchanged");
}

int fs_report_build(const char *dir, const char *gnuplot, char *html_path,
                    size_t html_len, struct fs_error *err)
{
	struct fs__report r;
	struct fs_outset sets[2];        /* DIR/plots, DIR */
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
	if (fs_outset_begin(&sets[0], r.plots_dir, err))
		goto out;
	if (fs_outset_begin(&sets[1], dir, err)) {
		fs_outset_abort(&sets[0]);
		goto out;
	}
	if (write_staged(&r, &sets[0], &sets[1], err)) {
		fs_outset_abort(&sets[1]);
		fs_outset_abort(&sets[0]);
		say_nothing_written(err);
		goto out;
	}
	if (fs_outset_commit(sets, 2, err))
		goto out;
	snprintf(path, sizeof path, "%s/report.html", dir);
	if (html_len)
		snprintf(html_path, html_len, "%s", path);
	rc = FS_EXIT_OK;
out:
	fs__report_fini(&r);
	return rc;
}
