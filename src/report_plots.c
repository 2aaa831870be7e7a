/*
 * report_plots.c — the report's comparison plots (Pareto front, spot
 * strategies, latency CDFs) and the driver of every plot; the fleet plots
 * are in report_plots_fleet.c and the shared plumbing in
 * report_plot_common.c.  Each plot writes its numbers to
 * DIR/plots/<name>.dat (numbers only: names reach gnuplot solely as escaped
 * single-quoted titles and labels, fs_sbuf_gp, each marked noenhanced), a
 * script <name>.gp that draws the same body twice (PNG, then SVG), and runs
 * gnuplot on it in DIR/plots.  The images are written under temporary names
 * and renamed once gnuplot succeeds.  Plots without data are skipped and the
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

/* Labelled scatter of variants: x column xc, y column from v. */
static int plot_variants_scatter(struct fs__report *r, const char *name,
                                 const char *title, const char *xlabel,
                                 int x_is_attainment, const char *caption,
                                 struct fs_error *err)
{
	struct fs_sbuf dat, b;
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
	size_t i, n = 0;
	int rc;

	fs_sbuf_init(&dat);
	fs_sbuf_puts(&dat, "# variant x x_lo x_hi monthly_cost lo hi meets\n");
	for (i = 0; i < r->n_variants; i++) {
		const struct fs__variant *v = &r->variants[i];
		struct fs__ci x = x_is_attainment ? v->slo_attainment : v->ttft_p99_ms;
		double scale = x_is_attainment ? 100 : 1;

		if (isnan(x.value) || isnan(v->monthly_usd.value))
			continue;
		n++;
		x.value *= scale;
		x.lo *= scale;
		x.hi *= scale;
		if (x_is_attainment && x.hi > 100)
			x.hi = 100;
		if (x.value < xmin)
			xmin = x.value;
		if (x.value > xmax)
			xmax = x.value;
		if (v->monthly_usd.value > ymax)
			ymax = v->monthly_usd.value;
		fs_sbuf_printf(&dat, "%zu %.10g %.10g %.10g %.10g %.10g %.10g %d %d\n", i,
		               x.value, x_is_attainment ? x.lo : pos_lo(x.lo, x.value / 100),
		               x.hi, v->monthly_usd.value,
		               pos_lo(v->monthly_usd.lo, 0), v->monthly_usd.hi, v->meets,
		               r->have_rec && i == r->rec);
	}
	if (n == 0) {
		fs_sbuf_fini(&dat);
		fs__plot_skip(r, name, x_is_attainment ? "no variant has an SLO attainment"
		                              : "no variant has a TTFT p99");
		return 0;
	}
	rc = fs__plot_write(r, name, "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc)
		return -1;
	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_printf(&b, "set title '%s' noenhanced\nset xlabel '%s' noenhanced\n"
	               "set ylabel 'projected cost (%s per month: cost per hour x 730 h)' "
	               "noenhanced\n", title, xlabel, r->currency);
	if (x_is_attainment) {
		double lo = xmin - (100 - xmin) * 0.3 - 0.5;

		fs_sbuf_printf(&b, "set xrange [%.6g:100.5]\n", lo < 0 ? 0 : lo);
		xmax = 100.5;
		xmin = lo < 0 ? 0 : lo;
	} else {
		fs__plot_x_latency(&b, xmin, xmax);
	}
	fs_sbuf_printf(&b, "set yrange [0:%.6g]\n", ymax * 1.25 + 1e-9);
	/* Names as labels beside their points, alternately above and below to
	 * keep neighbours apart. */
	for (i = 0; i < r->n_variants; i++) {
		const struct fs__variant *v = &r->variants[i];
		struct fs__ci x = x_is_attainment ? v->slo_attainment : v->ttft_p99_ms;
		char text[300];
		int right;

		if (isnan(x.value) || isnan(v->monthly_usd.value))
			continue;
		snprintf(text, sizeof text, "%s%s", v->name,
		         r->have_rec && i == r->rec ? " (recommended)" : "");
		fs_sbuf_printf(&b, "set label %zu ", i + 1);
		fs_sbuf_gp(&b, text);
		/* Points in the right third get their label on their left. */
		right = x_is_attainment && 100 * x.value > xmin + (xmax - xmin) * 0.66;
		fs_sbuf_printf(&b, " at %.10g,%.10g offset %s,%s %s noenhanced%s\n",
		               x.value * (x_is_attainment ? 100 : 1), v->monthly_usd.value,
		               right ? "-1.5" : "1", i % 2 ? "-0.9" : "0.9",
		               right ? "right" : "left",
		               r->have_rec && i == r->rec ? " tc rgb '#006600'" : "");
	}
	fs_sbuf_puts(&b,
		"plot '" );
	fs_sbuf_printf(&b, "%s.dat' using 2:5:3:4:6:7 with xyerrorbars lc rgb '#1f77b4' pt 7 ps 1.3 "
		"title 'variant (95%% CI)', \\\n"
		"     '' using ($8 != 0 ? $2 : NaN):5 with points lc rgb '#2ca02c' pt 6 ps 2.6 lw 2 "
		"title 'meets its SLO target', \\\n"
		"     '' using ($9 != 0 ? $2 : NaN):5 with points lc rgb '#2ca02c' pt 3 ps 3.5 lw 3 "
		"title 'recommended'\n", name);
	rc = fs__plot_finish(r, name, fs_sbuf_str(&b), caption, err);
	fs_sbuf_fini(&b);
	return rc;
}

/* ---- latency CDFs ---- */

/* Blocks for one metric from a (group, metric, latency_ms, cdf) CSV; group
 * NULL takes every group.  Appends titles (raw) to titles. */
static size_t cdf_blocks(struct fs_sbuf *dat, const struct fs__csv *c, const char *metric,
                         const char *only_group, double *xmin, double *xmax)
{
	int gc = fs__csv_col(c, "group"), mc = fs__csv_col(c, "metric");
	int lc = fs__csv_col(c, "latency_ms"), cc = fs__csv_col(c, "cdf");
	const char *cur = NULL;
	size_t i, n = 0;

	if (gc < 0 || mc < 0 || lc < 0 || cc < 0)
		return 0;
	for (i = 0; i < c->n_rows; i++) {
		const char *g = fs__csv_cell(c, i, (size_t)gc);
		double x = fs__csv_num(c, i, (size_t)lc);

		if (strcmp(fs__csv_cell(c, i, (size_t)mc), metric) != 0)
			continue;
		if (only_group && strcmp(g, only_group) != 0)
			continue;
		if (!cur || strcmp(cur, g) != 0) {
			if (n || dat->len)
				fs_sbuf_puts(dat, "\n\n");
			n++;
			cur = g;
		}
		if (x > 0 && x < *xmin)
			*xmin = x;
		if (x > *xmax)
			*xmax = x;
		fs_sbuf_printf(dat, "%.10g %.10g\n", x, 100 * fs__csv_num(c, i, (size_t)cc));
	}
	return n;
}

/* The groups of a latency_cdf.csv in file order (borrowed strings). */
static size_t cdf_groups(const struct fs__csv *c, const char *metric,
                         const char **out, size_t max)
{
	int gc = fs__csv_col(c, "group"), mc = fs__csv_col(c, "metric");
	size_t i, k, n = 0;

	if (gc < 0 || mc < 0)
		return 0;
	for (i = 0; i < c->n_rows; i++) {
		const char *g = fs__csv_cell(c, i, (size_t)gc);

		if (strcmp(fs__csv_cell(c, i, (size_t)mc), metric) != 0)
			continue;
		for (k = 0; k < n && strcmp(out[k], g) != 0; k++)
			;
		if (k == n && n < max)
			out[n++] = g;
	}
	return n;
}

static void cdf_panel(struct fs_sbuf *b, const char *file, size_t first, size_t n,
                      const char *const *titles, const char *xlabel,
                      double xmin, double xmax)
{
	size_t i;

	fs_sbuf_printf(b, "set xlabel '%s' noenhanced\n"
	               "set ylabel 'requests at or below (%%)' noenhanced\n"
	               "set yrange [0:100]\nset ytics 10\nset key right bottom inside box opaque noenhanced\n",
	               xlabel);
	fs_sbuf_puts(b, "unset logscale x\n");
	fs__plot_x_latency(b, xmin, xmax);
	fs_sbuf_puts(b, "plot ");
	for (i = 0; i < n; i++) {
		fs_sbuf_printf(b, "%s'%s' index %zu using 1:2 with lines lw 2 dt %zu title ",
		               i ? ", \\\n     " : "", file, first + i, i / 8 + 1);
		fs_sbuf_gp(b, titles[i]);
	}
	fs_sbuf_puts(b, "\n");
}

static int plot_cdf_run(struct fs__report *r, struct fs_error *err)
{
	const char *groups[FS__MAX_SERIES];
	struct fs_sbuf dat, b;
	double x1 = INFINITY, x2 = 0, y1 = INFINITY, y2 = 0;
	size_t n_t, n_e, n_g;
	int rc;

	if (!r->latency_cdf) {
		fs__plot_skip(r, "latency_cdf", "no latency_cdf.csv");
		return 0;
	}
	n_g = cdf_groups(r->latency_cdf, "ttft_ms", groups, FS__MAX_SERIES);
	fs_sbuf_init(&dat);
	n_t = cdf_blocks(&dat, r->latency_cdf, "ttft_ms", NULL, &x1, &x2);
	n_e = cdf_blocks(&dat, r->latency_cdf, "e2e_ms", NULL, &y1, &y2);
	if (n_t == 0 || n_t != n_g || n_e != n_t) {
		fs_sbuf_fini(&dat);
		fs__plot_skip(r, "latency_cdf", "latency_cdf.csv has no TTFT and E2E rows per group");
		return 0;
	}
	rc = fs__plot_write(r, "latency_cdf", "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc)
		return -1;
	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_puts(&b, "set multiplot layout 1,2 title 'Latency distributions per request "
	             "class (all replications pooled)' noenhanced\n");
	cdf_panel(&b, "latency_cdf.dat", 0, n_t, groups, "TTFT, time to first token (ms)", x1, x2);
	cdf_panel(&b, "latency_cdf.dat", n_t, n_e, groups, "E2E, end-to-end latency (ms)", y1, y2);
	rc = fs__plot_finish(r, "latency_cdf", fs_sbuf_str(&b),
	                 "Cumulative distributions of time to first token and end-to-end "
	                 "latency, for all traffic and each request class.", err);
	fs_sbuf_fini(&b);
	return rc;
}

static int plot_cdf_variants(struct fs__report *r, struct fs_error *err)
{
	const char *titles[FS__MAX_SERIES];
	struct fs__csv *cs[FS__MAX_SERIES];
	struct fs_sbuf dat, b;
	double x1 = INFINITY, x2 = 0, y1 = INFINITY, y2 = 0;
	size_t i, n = 0;
	int rc = 0;

	for (i = 0; i < r->n_variants && n < FS__MAX_SERIES; i++) {
		char path[4096];

		snprintf(path, sizeof path, "%s/latency_cdf.csv", r->variants[i].dir);
		cs[n] = fs__csv_load(path, NULL);
		if (cs[n])
			titles[n++] = r->variants[i].name;
	}
	if (n == 0) {
		fs__plot_skip(r, "latency_cdf", "no variant has a latency_cdf.csv");
		return 0;
	}
	fs_sbuf_init(&dat);
	for (i = 0; i < n; i++)
		if (cdf_blocks(&dat, cs[i], "ttft_ms", "all", &x1, &x2) != 1)
			rc = 1;
	for (i = 0; i < n; i++)
		if (cdf_blocks(&dat, cs[i], "e2e_ms", "all", &y1, &y2) != 1)
			rc = 1;
	if (rc == 0)
		rc = fs__plot_write(r, "latency_cdf", "dat", &dat, err);
	else
		fs__plot_skip(r, "latency_cdf", "a variant's latency_cdf.csv lacks all-traffic rows");
	fs_sbuf_fini(&dat);
	if (rc == 0) {
		fs_sbuf_init(&b);
		fs__plot_body_start(r, &b);
		fs_sbuf_puts(&b, "set multiplot layout 1,2 title 'Latency distributions per "
		             "variant (all traffic, all replications pooled)' noenhanced\n");
		cdf_panel(&b, "latency_cdf.dat", 0, n, titles, "TTFT, time to first token (ms)", x1, x2);
		cdf_panel(&b, "latency_cdf.dat", n, n, titles, "E2E, end-to-end latency (ms)", y1, y2);
		rc = fs__plot_finish(r, "latency_cdf", fs_sbuf_str(&b),
		                 "Cumulative distributions of time to first token and "
		                 "end-to-end latency of all traffic, one line per variant.", err);
		fs_sbuf_fini(&b);
	} else if (rc > 0) {
		rc = 0;
	}
	for (i = 0; i < n; i++)
		fs__csv_free(cs[i]);
	return rc;
}

static int plot_cdf_sweep(struct fs__report *r, struct fs_error *err)
{
	const struct fs__csv *c = r->sweep_cdf;
	char labels[FS__MAX_SERIES][256];
	const char *titles[FS__MAX_SERIES];
	struct fs_sbuf dat, b;
	struct fs__csv *front;
	char path[4096], axis[256], xl[300];
	double x1 = INFINITY, x2 = 0, bound;
	int want[FS__MAX_SERIES];
	size_t i, k, n_want = 0, n = 0;
	int pc, lc, cc, rc;

	if (!c || (pc = fs__csv_col(c, "point")) < 0 || (lc = fs__csv_col(c, "latency_ms")) < 0 ||
	    (cc = fs__csv_col(c, "cdf")) < 0) {
		fs__plot_skip(r, "latency_cdf", "the sweep directory has no sweep_cdf.csv");
		return 0;
	}
	/* The Pareto-front points and the recommended one. */
	want[n_want++] = (int)fs__jnum(r->best, "best.point");
	snprintf(path, sizeof path, "%s/pareto.csv", r->dir);
	front = fs__csv_load(path, NULL);
	for (i = 0; front && i < front->n_rows && n_want < FS__MAX_SERIES; i++) {
		int p = (int)fs__csv_num(front, i, 0);

		for (k = 0; k < n_want && want[k] != p; k++)
			;
		if (k == n_want)
			want[n_want++] = p;
	}
	fs__csv_free(front);
	fs_sbuf_init(&dat);
	for (k = 0; k < n_want; k++) {
		size_t rows = 0;

		for (i = 0; i < c->n_rows; i++) {
			double x = fs__csv_num(c, i, (size_t)lc);

			if ((int)fs__csv_num(c, i, (size_t)pc) != want[k])
				continue;
			if (rows++ == 0 && n)
				fs_sbuf_puts(&dat, "\n\n");
			if (x > 0 && x < x1)
				x1 = x;
			if (x > x2)
				x2 = x;
			fs_sbuf_printf(&dat, "%.10g %.10g\n", x, 100 * fs__csv_num(c, i, (size_t)cc));
		}
		if (rows) {
			char sl[220];

			fs__short_label(fs__jget(fs__sweep_point(r, want[k]), "set"), sl, sizeof sl);
			snprintf(labels[n], sizeof labels[n], "%s%s", sl,
			         k == 0 ? " (recommended)" : "");
			titles[n] = labels[n];
			n++;
		}
	}
	if (n == 0) {
		fs_sbuf_fini(&dat);
		fs__plot_skip(r, "latency_cdf", "sweep_cdf.csv has none of the Pareto-front points");
		return 0;
	}
	rc = fs__plot_write(r, "latency_cdf", "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc)
		return -1;
	fs__pareto_axis(r, axis, sizeof axis, &bound);
	/* The per-request distribution of the Pareto metric: drop its quantile. */
	snprintf(xl, sizeof xl, "%s", strchr(axis, ' ') ? strchr(axis, ' ') + 1 : axis);
	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_puts(&b, "set title 'Latency distribution of the Pareto-front configurations' noenhanced\n");
	cdf_panel(&b, "latency_cdf.dat", 0, n, titles, xl, x1, x2);
	rc = fs__plot_finish(r, "latency_cdf", fs_sbuf_str(&b),
	                 "Cumulative distribution of the Pareto latency metric for the "
	                 "recommended configuration and the other points on the Pareto front.",
	                 err);
	fs_sbuf_fini(&b);
	return rc;
}

int fs__report_plots(struct fs__report *r, struct fs_error *err)
{
	if (fs_outfile_mkdirs(r->plots_dir, err))
		return -1;
	switch (r->kind) {
	case FS_REPORT_SWEEP:
		if (fs__plot_pareto_sweep(r, err) || plot_cdf_sweep(r, err) ||
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
		    plot_cdf_variants(r, err) || fs__plot_cost(r, err) ||
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
		if (plot_cdf_run(r, err) || fs__plot_cost(r, err) ||
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
