/*
 * report_plots.c — the report's comparison plots (Pareto front, spot
 * strategies, latency CDFs) and the driver of every plot; the fleet plots
 * are in report_plots_fleet.c and the shared plumbing in
 * report_plot_common.c.  Each plot writes its numbers to
 * DIR/plots/<name>.dat (numbers only: names reach gnuplot solely as escaped
 * single-quoted titles and labels, fs_sbuf_gp, each marked noenhanced), a
 * script <name>.gp that draws the same body twice (PNG, then SVG), and runs
 * gnuplot on it, all in the plot set's staging directory (report.c moves
 * them into DIR/plots with the report).  Plots without data are skipped and the
 * reason is kept in r->skipped for the report.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "fleetsim/gnuplot.h"
#include "fleetsim/outfile.h"
#include "report_internal.h"

static double pos_lo(double lo, double floor_v)
{
	return (isnan(lo) || lo < floor_v) ? floor_v : lo;
}

/* Labelled scatter of variants: monthly cost against the p99 TTFT or the
 * SLO attainment (%, axis capped at 100), names placed without overlap
 * (report_plot_labels.c), the recommended one first. */
static int plot_variants_scatter(struct fs__report *r, const char *name,
                                 const char *title, const char *xlabel,
                                 int x_is_attainment, const char *caption,
                                 struct fs_error *err)
{
	struct fs__frame fr = { 0.08, 0.72, 0.11, 0.91, 0, 1, 0, 1, false, false };
	struct fs__label *labels = fs_xcalloc(r->n_variants + 1, sizeof *labels);
	struct fs__seg *segs = fs_xcalloc(3 * r->n_variants + 1, sizeof *segs);
	char (*texts)[300] = fs_xcalloc(r->n_variants + 1, sizeof *texts);
	struct fs_sbuf dat, b;
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
	size_t i, n = 0, n_segs = 0, n_labels = 0, left_out;
	int rc, pass;

	fs_sbuf_init(&dat);
	fs_sbuf_puts(&dat, "# variant x x_lo x_hi monthly_cost lo hi meets recommended\n");
	for (i = 0; i < r->n_variants; i++) {
		const struct fs__variant *v = &r->variants[i];
		struct fs__ci x = x_is_attainment ? v->slo_attainment : v->ttft_p99_ms;
		double scale = x_is_attainment ? 100 : 1, ylo, yhi;

		if (isnan(x.value) || isnan(v->monthly_usd.value))
			continue;
		n++;
		x.value *= scale;
		x.lo = x_is_attainment ? x.lo * scale : pos_lo(x.lo, x.value / 100);
		x.hi *= scale;
		if (isnan(x.lo))
			x.lo = x.value;
		if (isnan(x.hi) || (x_is_attainment && x.hi > 100))
			x.hi = isnan(x.hi) ? x.value : 100;
		ylo = pos_lo(v->monthly_usd.lo, 0);
		yhi = isnan(v->monthly_usd.hi) ? v->monthly_usd.value : v->monthly_usd.hi;
		xmin = x.value < xmin ? x.value : xmin;
		xmax = x.value > xmax ? x.value : xmax;
		ymax = v->monthly_usd.value > ymax ? v->monthly_usd.value : ymax;
		fs_sbuf_printf(&dat, "%zu %.10g %.10g %.10g %.10g %.10g %.10g %d %d\n", i,
		               x.value, x.lo, x.hi, v->monthly_usd.value, ylo, yhi, v->meets,
		               r->have_rec && i == r->rec);
		segs[n_segs++] = (struct fs__seg){ x.value, v->monthly_usd.value, x.value,
		                                   v->monthly_usd.value };
		segs[n_segs++] = (struct fs__seg){ x.lo, v->monthly_usd.value, x.hi,
		                                   v->monthly_usd.value };
		segs[n_segs++] = (struct fs__seg){ x.value, ylo, x.value, yhi };
	}
	if (n == 0) {
		fs_sbuf_fini(&dat);
		fs__plot_skip(r, name, x_is_attainment ? "no variant has an SLO attainment"
		                              : "no variant has a TTFT p99");
		free(labels);
		free(segs);
		free(texts);
		return 0;
	}
	rc = fs__plot_write(r, name, "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc) {
		free(labels);
		free(segs);
		free(texts);
		return -1;
	}
	if (x_is_attainment) {
		/* The attainment is a share: the axis stops at 100%. */
		double lo = xmin - (100 - xmin) * 0.6 - 0.2;

		fr.xmin = lo < 0 ? 0 : lo;
		fr.xmax = 100;
	} else {
		fr.xlog = xmin > 0 && xmax / xmin > 20;
		fr.xmin = fr.xlog ? xmin / 1.6 : xmin - (xmax - xmin) * 0.3 - xmax * 0.05;
		fr.xmax = fr.xlog ? xmax * 1.6 : xmax + (xmax - xmin) * 0.3 + xmax * 0.05;
		if (fr.xmin < 0 || fr.xmin >= fr.xmax)
			fr.xmin = 0;
	}
	fr.ymax = ymax * 1.25 + 1e-9;
	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_printf(&b, "set title '%s' noenhanced\nset xlabel '%s' noenhanced\n"
	               "set ylabel 'projected cost (%s per month: cost per hour x 730 h)' "
	               "noenhanced\nset key at screen 0.735, screen 0.91 left top vertical "
	               "Left reverse box opaque noenhanced samplen 2 spacing 1.5\n", title, xlabel, r->currency);
	fs__frame_emit(&b, &fr);
	if (fr.xlog)
		fs_sbuf_puts(&b, "set format x '%.0f'\n");
	/* Names: the recommended variant first (it must be shown), then the rest
	 * in file order. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < r->n_variants; i++) {
			const struct fs__variant *v = &r->variants[i];
			struct fs__ci x = x_is_attainment ? v->slo_attainment : v->ttft_p99_ms;
			bool rec = r->have_rec && i == r->rec;

			if (isnan(x.value) || isnan(v->monthly_usd.value) || rec != (pass == 0))
				continue;
			snprintf(texts[n_labels], sizeof texts[n_labels], "%s%s", v->name,
			         rec ? " (recommended)" : "");
			labels[n_labels].text = texts[n_labels];
			labels[n_labels].x = x.value * (x_is_attainment ? 100 : 1);
			labels[n_labels].y = v->monthly_usd.value;
			labels[n_labels].colour = rec ? "#006600" : "#1f4e79";
			labels[n_labels++].bold = rec;
		}
	left_out = fs__labels_place(&fr, segs, n_segs, labels, n_labels, 1, &b);
	fs_sbuf_printf(&b, "plot '%s.dat' using 2:5:3:4:6:7 with xyerrorbars lc rgb '#1f77b4' "
		"pt 7 ps 1.3 title 'variant (95%% CI)', \\\n"
		"     '' using ($8 != 0 ? $2 : NaN):5 with points lc rgb '#2ca02c' pt 6 ps 2.6 lw 2 "
		"title 'meets its SLO target', \\\n"
		"     '' using ($9 != 0 ? $2 : NaN):5 with points lc rgb '#2ca02c' pt 3 ps 3.5 lw 3 "
		"title 'recommended'\n", name);
	if (left_out) {
		char cap[700];

		snprintf(cap, sizeof cap, "%s %zu name%s left out for room (the table lists "
		         "every variant).", caption, left_out, left_out == 1 ? "" : "s");
		rc = fs__plot_finish(r, name, fs_sbuf_str(&b), cap, err);
	} else {
		rc = fs__plot_finish(r, name, fs_sbuf_str(&b), caption, err);
	}
	fs_sbuf_fini(&b);
	free(labels);
	free(segs);
	free(texts);
	return rc;
}

int fs__report_plots(struct fs__report *r, struct fs_error *err)
{
	switch (r->kind) {
	case FS_REPORT_SWEEP:
		if (fs__plot_pareto_sweep(r, err) || fs__plot_cdf_sweep(r, err) ||
		    fs__plot_concurrency(r, err))
			return -1;
		/* The recommended point run again (report_rerun.c), when it was. */
		if (r->summary) {
			char lab[300];

			fs__short_label(fs__jget(r->best, "best.set"), lab, sizeof lab);
			if (fs__plot_timeline(r, r->timeseries, "timeline", lab, err) ||
			    fs__plot_utilization(r, err) || fs__plot_cost(r, err) ||
			    fs__plot_cost_per_rep(r, err))
				return -1;
		}
		return 0;
	case FS_REPORT_VARIANTS:
		if (plot_variants_scatter(r, "pareto", "Cost vs p99 TTFT per variant",
		                          "p99 TTFT, all traffic (ms)", 0,
		                          "Projected monthly cost against p99 time to first "
		                          "token, one point per variant, with 95% confidence "
		                          "intervals both ways.", err) ||
		    plot_variants_scatter(r, "spot_strategies",
		                          "Cost vs SLO attainment per variant",
		                          "SLO attainment, all traffic (% of requests within SLO)", 1,
		                          "Projected monthly cost against the share of requests "
		                          "that met their SLO, one point per variant, with 95% "
		                          "confidence intervals; circled variants meet their "
		                          "SLO target.", err) ||
		    fs__plot_cdf_variants(r, err) || fs__plot_cost(r, err) ||
		    fs__plot_cost_per_rep(r, err) ||
		    fs__plot_timeline(r, r->timeseries, "timeline", r->variants[r->rec].name, err) ||
		    fs__plot_utilization(r, err))
			return -1;
		if (r->base != r->rec) {
			struct fs__csv *ts;
			char path[4096];

			snprintf(path, sizeof path, "%s/timeseries.csv", r->variants[r->base].dir);
			ts = fs__csv_load(path, NULL);
			if (ts) {
				int rc = fs__plot_timeline(r, ts, "timeline_base",
				                       r->variants[r->base].name, err);

				fs__csv_free(ts);
				if (rc)
					return -1;
			}
		}
		return 0;
	case FS_REPORT_RUN:
		fs__plot_skip(r, "pareto, spot_strategies", "a single configuration has no "
		     "alternatives to compare; run a sweep or variants for them");
		if (fs__plot_cdf_run(r, err) || fs__plot_cost(r, err) ||
		    fs__plot_cost_per_rep(r, err) ||
		    fs__plot_timeline(r, r->timeseries, "timeline", NULL, err) ||
		    fs__plot_utilization(r, err))
			return -1;
		return 0;
	case FS_REPORT_BUDGET:       /* no plots (report_budget.c) */
		return 0;
	}
	return 0;
}
