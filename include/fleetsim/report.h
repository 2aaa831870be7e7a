/*
 * report.h — `fleetsim report DIR`: gnuplot plots (PNG and SVG, with their
 * .gp scripts and .dat data) under DIR/plots/, and a management report as
 * DIR/report.html (self-contained) and DIR/report.md, from a run, variants
 * or sweep output directory.  Layout and contents: docs/REPORT.md.
 */
#ifndef FLEETSIM_REPORT_H
#define FLEETSIM_REPORT_H

#include <stddef.h>

#include "fleetsim/common.h"

enum fs_report_kind {
	FS_REPORT_RUN,               /* DIR/summary.json */
	FS_REPORT_VARIANTS,          /* DIR/comparison.json + DIR/<variant>/ */
	FS_REPORT_SWEEP,             /* DIR/sweep.json + best.json */
	FS_REPORT_BUDGET             /* DIR/budget.json (fleetsim budget) */
};

/* Build the report of dir using the gnuplot executable `gnuplot` (a path,
 * see fs_gnuplot_find).  Returns FS_EXIT_OK; FS_EXIT_INPUT when dir is not
 * an output directory (err says why); FS_EXIT_RUNTIME on an I/O or gnuplot
 * failure (err).  On success html_path (buf of html_len bytes) holds the
 * path of report.html. */
int fs_report_build(const char *dir, const char *gnuplot, char *html_path,
                    size_t html_len, struct fs_error *err);

#endif
