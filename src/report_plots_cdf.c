/*
 * report_plots_cdf.c — the latency distributions: for each metric a
 * cumulative distribution with the SLO bounds as dashed red lines, and
 * under it the tail (p90 to p99.9) on a log-survival scale, where each SLO
 * is a point the curve must pass left of (its bound at 1 - its attainment
 * target).  Run: TTFT and E2E per request class; variants: all traffic per
 * variant; sweep: the Pareto metric of the recommended point and of the
 * other Pareto-front points.  Names reach gnuplot only through fs_sbuf_gp.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "fleetsim/scenario.h"
#include "report_internal.h"

#define MAX_SLOS 8
#define SWEEP_SERIES 8               /* the recommended + 7 Pareto-front points */

/* An SLO drawn on a panel: bound (ms) and the share that must be within it. */
struct slo {
	double bound_ms;
	double share;                    /* 0.95; NAN: unknown */
	char label[200];
};

/* Per panel: data blocks first..first+n-1 of file. */
struct panel {
	const char *xlabel;
	size_t first, n;
	double xmin, xmax;               /* latency range over the blocks */
	double x_p90;                    /* lowest p90 among the blocks */
	struct slo slos[MAX_SLOS];
	size_t n_slos;
};

/* Blocks for one metric from a (group, metric, latency_ms, cdf) CSV; group
 * NULL takes every group.  Widens the panel's ranges. */
static size_t cdf_blocks(struct fs_sbuf *dat, const struct fs__csv *c, const char *metric,
                         const char *only_group, struct panel *pn)
{
	int gc = fs__csv_col(c, "group"), mc = fs__csv_col(c, "metric");
	int lc = fs__csv_col(c, "latency_ms"), cc = fs__csv_col(c, "cdf");
	const char *cur = NULL;
	size_t i, n = 0;
	int seen90 = 0;

	if (gc < 0 || mc < 0 || lc < 0 || cc < 0)
		return 0;
	for (i = 0; i < c->n_rows; i++) {
		const char *g = fs__csv_cell(c, i, (size_t)gc);
		double x = fs__csv_num(c, i, (size_t)lc), q = fs__csv_num(c, i, (size_t)cc);

		if (strcmp(fs__csv_cell(c, i, (size_t)mc), metric) != 0)
			continue;
		if (only_group && strcmp(g, only_group) != 0)
			continue;
		if (!cur || strcmp(cur, g) != 0) {
			if (n || dat->len)
				fs_sbuf_puts(dat, "\n\n");
			n++;
			cur = g;
			seen90 = 0;
		}
		if (x > 0 && x < pn->xmin)
			pn->xmin = x;
		if (x > pn->xmax)
			pn->xmax = x;
		if (!seen90 && q >= 0.9) {
			seen90 = 1;
			if (x > 0 && x < pn->x_p90)
				pn->x_p90 = x;
		}
		fs_sbuf_printf(dat, "%.10g %.10g\n", x, 100 * q);
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

/* Each class's SLO on key ("ttft", "e2e") from a resolved scenario, one
 * per distinct bound. */
static void class_slos(const cJSON *scenario, const char *key, struct panel *pn)
{
	const cJSON *cl;

	cJSON_ArrayForEach(cl, fs__jget(scenario, "workload.classes")) {
		const char *text = fs__jstr(fs__jget(cl, "slo"), key);
		const char *name = fs__jstr(cl, "name");
		fs_ns ns;
		double ms, share = fs__jnum(cl, "slo.attainment");
		size_t k;
		char msg[128];

		if (!text || fs_duration_parse_text(text, &ns, msg, sizeof msg) != 0 || ns <= 0)
			continue;
		ms = (double)ns / 1e6;
		for (k = 0; k < pn->n_slos && pn->slos[k].bound_ms != ms; k++)
			;
		if (k < pn->n_slos) {     /* same bound: name both classes */
			size_t len = strlen(pn->slos[k].label);

			if (name && len + strlen(name) + 3 < sizeof pn->slos[k].label)
				snprintf(pn->slos[k].label + len, sizeof pn->slos[k].label - len,
				         ", %s", name);
			continue;
		}
		if (pn->n_slos == MAX_SLOS)
			continue;
		pn->slos[pn->n_slos].bound_ms = ms;
		pn->slos[pn->n_slos].share = share;
		snprintf(pn->slos[pn->n_slos++].label, sizeof pn->slos[0].label,
		         "SLO %.0f ms (p%.3g): %s", ms, isnan(share) ? 0 : 100 * share,
		         name ? name : "?");
	}
}

/* A CDF panel over [lo, hi] of the latency; keyed panels carry the titles. */
static void panel_cdf(struct fs_sbuf *b, const char *file, const struct panel *pn)
{
	size_t i;

	fs_sbuf_puts(b, "unset logscale\nunset arrow\nunset label\nunset key\n"
	             "set style textbox opaque noborder margins 1,1\n");
	fs_sbuf_printf(b, "set xlabel '%s' noenhanced\n"
	               "set ylabel 'requests at or below (%%)' noenhanced\n"
	               "set yrange [0:100]\nset ytics 10\nset format y '%%g'\n", pn->xlabel);
	fs__plot_x_latency(b, pn->xmin, pn->xmax > pn->xmin ? pn->xmax : pn->xmin * 2);
	for (i = 0; i < pn->n_slos; i++) {
		fs_sbuf_printf(b, "set arrow %zu from %.10g, graph 0 to %.10g, graph 1 nohead "
		               "lc rgb '#cc0000' dt 2 lw 2 back\n", i + 1, pn->slos[i].bound_ms,
		               pn->slos[i].bound_ms);
		fs_sbuf_printf(b, "set label %zu ", i + 1);
		fs_sbuf_gp(b, pn->slos[i].label);
		fs_sbuf_printf(b, " at %.10g, graph 0.96 offset -0.9,0 right rotate by 90 "
		               "tc rgb '#cc0000' noenhanced front boxed\n", pn->slos[i].bound_ms);
	}
	fs_sbuf_puts(b, "plot ");
	for (i = 0; i < pn->n; i++) {
		fs_sbuf_printf(b, "%s'%s' index %zu using 1:2 with lines lw 2 lc %zu dt %zu notitle",
		               i ? ", \\\n     " : "", file, pn->first + i, i + 1, i / 8 + 1);
	}
	fs_sbuf_puts(b, "\n");
}

/* The tail from p90 to p99.9: survival (1 - F) on a log axis, reversed so
 * the higher quantile is higher. */
static void panel_tail(struct fs_sbuf *b, const char *file, const struct panel *pn)
{
	double lo = pn->x_p90 < INFINITY ? pn->x_p90 : pn->xmin, hi = pn->xmax;
	size_t i;

	for (i = 0; i < pn->n_slos; i++) {
		if (pn->slos[i].bound_ms > hi)
			hi = pn->slos[i].bound_ms;
		if (pn->slos[i].bound_ms < lo)
			lo = pn->slos[i].bound_ms;
	}
	if (!(hi > lo))
		hi = lo * 2 + 1;
	fs_sbuf_puts(b, "unset logscale\nunset arrow\nunset label\nunset key\n");
	fs_sbuf_printf(b, "set xlabel '%s, tail' noenhanced\n"
	               "set ylabel 'quantile (log survival)' noenhanced\n"
	               "set logscale y\nset yrange [0.104:0.00096]\n"
	               "set ytics ('p90' 0.1, 'p95' 0.05, 'p99' 0.01, 'p99.5' 0.005, "
	               "'p99.9' 0.001)\n", pn->xlabel);
	if (hi / lo > 20) {
		fs_sbuf_printf(b, "set logscale x\nset xrange [%.10g:%.10g]\n", lo / 1.2, hi * 1.2);
		fs__plot_log_tics(b, 'x', lo / 1.2, hi * 1.2);
	} else {
		double pad = (hi - lo) * 0.08;

		fs_sbuf_printf(b, "set xrange [%.10g:%.10g]\nset xtics autofreq\n",
		               lo - pad > 0 ? lo - pad : 0, hi + pad);
	}
	for (i = 0; i < pn->n_slos; i++) {
		double q = isnan(pn->slos[i].share) ? 0.99 : pn->slos[i].share;

		fs_sbuf_printf(b, "set arrow %zu from %.10g, graph 0 to %.10g, graph 1 nohead "
		               "lc rgb '#cc0000' dt 2 lw 2 front\n", i + 1, pn->slos[i].bound_ms,
		               pn->slos[i].bound_ms);
		if (q >= 0.9 && q <= 0.999)
			fs_sbuf_printf(b, "set object %zu circle at %.10g, %.10g size screen 0.008 "
			               "fc rgb '#cc0000' fs solid 1.0 front\n", i + 1,
			               pn->slos[i].bound_ms, 1 - q);
	}
	fs_sbuf_puts(b, "plot ");
	for (i = 0; i < pn->n; i++) {
		fs_sbuf_printf(b, "%s'%s' index %zu using 1:(1 - $2 / 100 > 0 ? 1 - $2 / 100 : NaN) "
		               "with lines lw 2 lc %zu dt %zu notitle",
		               i ? ", \\\n     " : "", file, pn->first + i, i + 1, i / 8 + 1);
	}
	fs_sbuf_puts(b, "\n");
	fs_sbuf_puts(b, "unset object\n");
}

/* The legend of every panel, alone in a borderless plot across the bottom
 * strip (a panel's own key would only get that panel's width). */
static void legend(struct fs_sbuf *b, size_t n, const char *const *titles, size_t cols,
                   double strip, size_t n_slos)
{
	size_t i;

	fs_sbuf_printf(b, "set lmargin at screen 0.03\nset rmargin at screen 0.97\n"
	               "set tmargin at screen %.4f\nset bmargin at screen 0.005\n"
	               "unset logscale\nunset arrow\nunset label\nunset object\n"
	               "unset border\nunset xtics\nunset ytics\nunset xlabel\nunset ylabel\n"
	               "unset grid\nset xrange [0:1]\nset yrange [0:1]\n"
	               "set key inside center center horizontal maxcols %zu box opaque "
	               "noenhanced samplen 3 width 2\nplot -1 notitle, ", strip, cols);
	for (i = 0; i < n; i++) {
		fs_sbuf_printf(b, "%skeyentry with lines lw 2 lc %zu dt %zu title ",
		               i ? ", \\\n     " : "\\\n     ", i + 1, i / 8 + 1);
		fs_sbuf_gp(b, titles[i]);
	}
	if (n_slos)
		fs_sbuf_puts(b, ", \\\n     keyentry with linespoints lw 2 dt 2 pt 7 ps 1.5 "
		             "lc rgb '#cc0000' title 'SLO bound (dot: at its attainment percentile)'");
	fs_sbuf_puts(b, "\n");
}

/* Panels side by side, each a CDF over its tail; one legend for all of
 * them in a strip along the bottom, sized to its rows. */
static void draw(struct fs_sbuf *b, const char *title, const char *file,
                 const struct panel *pn, size_t n_panels, const char *const *titles)
{
	size_t i, longest = 0, cols, rows, n_slos = 0;
	double w = 0.9 / (double)n_panels, strip, mid;

	for (i = 0; i < pn[0].n; i++)
		if (strlen(titles[i]) > longest)
			longest = strlen(titles[i]);
	for (i = 0; i < n_panels; i++)
		n_slos += pn[i].n_slos;
	if (n_slos && longest < 48)
		longest = 48;
	cols = 1100 / ((longest + 8) * 9);
	cols = cols < 1 ? 1 : cols > 4 ? 4 : cols;
	rows = (pn[0].n + (n_slos ? 1 : 0) + cols - 1) / cols;
	strip = ((double)rows * 19 + 16) / 700;
	mid = strip + 0.07 + (0.90 - strip - 0.07) * 0.5;
	fs_sbuf_puts(b, "set multiplot title ");
	fs_sbuf_gp(b, title);
	fs_sbuf_puts(b, " noenhanced\n");
	for (i = 0; i < n_panels; i++) {
		double l = 0.08 + (double)i * w;

		fs_sbuf_printf(b, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
		               "set tmargin at screen 0.90\nset bmargin at screen %.4f\n",
		               l, l + w - 0.09, mid + 0.05);
		panel_cdf(b, file, &pn[i]);
		fs_sbuf_printf(b, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
		               "set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
		               l, l + w - 0.09, mid - 0.03, strip + 0.085);
		panel_tail(b, file, &pn[i]);
	}
	legend(b, pn[0].n, titles, cols, strip, n_slos);
}

static void panel_init(struct panel *pn, const char *xlabel)
{
	memset(pn, 0, sizeof *pn);
	pn->xlabel = xlabel;
	pn->xmin = INFINITY;
	pn->x_p90 = INFINITY;
}

static int finish(struct fs__report *r, struct fs_sbuf *dat, const char *title,
                  struct panel *pn, size_t n_panels, const char *const *titles,
                  const char *caption, struct fs_error *err)
{
	struct fs_sbuf b;
	int rc = fs__plot_write(r, "latency_cdf", "dat", dat, err);

	if (rc)
		return -1;
	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	draw(&b, title, "latency_cdf.dat", pn, n_panels, titles);
	rc = fs__plot_finish(r, "latency_cdf", fs_sbuf_str(&b), caption, err);
	fs_sbuf_fini(&b);
	return rc;
}

int fs__plot_cdf_run(struct fs__report *r, struct fs_error *err)
{
	const char *groups[FS__MAX_SERIES];
	struct panel pn[2];
	struct fs_sbuf dat;
	size_t n_t, n_e, n_g;
	int rc;

	if (!r->latency_cdf) {
		fs__plot_skip(r, "latency_cdf", "no latency_cdf.csv");
		return 0;
	}
	panel_init(&pn[0], "TTFT, time to first token (ms)");
	panel_init(&pn[1], "E2E, end-to-end latency (ms)");
	n_g = cdf_groups(r->latency_cdf, "ttft_ms", groups, FS__MAX_SERIES);
	fs_sbuf_init(&dat);
	n_t = cdf_blocks(&dat, r->latency_cdf, "ttft_ms", NULL, &pn[0]);
	n_e = cdf_blocks(&dat, r->latency_cdf, "e2e_ms", NULL, &pn[1]);
	if (n_t == 0 || n_t != n_g || n_e != n_t) {
		fs_sbuf_fini(&dat);
		fs__plot_skip(r, "latency_cdf", "latency_cdf.csv has no TTFT and E2E rows per group");
		return 0;
	}
	pn[0].n = pn[1].n = n_t;
	pn[1].first = n_t;
	class_slos(r->scenario, "ttft", &pn[0]);
	class_slos(r->scenario, "e2e", &pn[1]);
	rc = finish(r, &dat, "Latency distributions per request class (all replications "
	            "pooled); below, the tail", pn, 2, groups,
	            "Cumulative distributions of time to first token and end-to-end latency "
	            "for all traffic and each request class, with each class's SLO bound "
	            "(dashed red); below, the tail from p90 to p99.9 on a log scale, where a "
	            "red dot is an SLO's bound at its attainment percentile: a class meets it "
	            "when its curve passes left of the dot.", err);
	fs_sbuf_fini(&dat);
	return rc;
}

int fs__plot_cdf_variants(struct fs__report *r, struct fs_error *err)
{
	const char *titles[FS__MAX_SERIES];
	struct fs__csv *cs[FS__MAX_SERIES];
	struct panel pn[2];
	struct fs_sbuf dat;
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
	panel_init(&pn[0], "TTFT, time to first token (ms)");
	panel_init(&pn[1], "E2E, end-to-end latency (ms)");
	fs_sbuf_init(&dat);
	for (i = 0; i < n; i++)
		if (cdf_blocks(&dat, cs[i], "ttft_ms", "all", &pn[0]) != 1)
			rc = 1;
	for (i = 0; i < n; i++)
		if (cdf_blocks(&dat, cs[i], "e2e_ms", "all", &pn[1]) != 1)
			rc = 1;
	pn[0].n = pn[1].n = n;
	pn[1].first = n;
	if (rc == 0)
		rc = finish(r, &dat, "Latency distributions per variant (all traffic, all "
		            "replications pooled); below, the tail", pn, 2, titles,
		            "Cumulative distributions of time to first token and end-to-end "
		            "latency of all traffic, one line per variant; below, the tail "
		            "from p90 to p99.9 on a log scale.", err);
	else
		fs__plot_skip(r, "latency_cdf", "a variant's latency_cdf.csv lacks all-traffic rows");
	fs_sbuf_fini(&dat);
	for (i = 0; i < n; i++)
		fs__csv_free(cs[i]);
	return rc > 0 ? 0 : rc;
}

int fs__plot_cdf_sweep(struct fs__report *r, struct fs_error *err)
{
	const struct fs__csv *c = r->sweep_cdf;
	char labels[SWEEP_SERIES][256], axis[256], xl[300], path[4096];
	const char *titles[SWEEP_SERIES];
	struct fs__csv *front;
	struct panel pn;
	struct fs_sbuf dat;
	double bound;
	int want[SWEEP_SERIES];
	size_t i, k, n_want = 0, n = 0;
	int pc, lc, cc, rc;

	if (!c || (pc = fs__csv_col(c, "point")) < 0 || (lc = fs__csv_col(c, "latency_ms")) < 0 ||
	    (cc = fs__csv_col(c, "cdf")) < 0) {
		fs__plot_skip(r, "latency_cdf", "the sweep directory has no sweep_cdf.csv");
		return 0;
	}
	fs__pareto_axis(r, axis, sizeof axis, &bound);
	/* The per-request distribution of the Pareto metric: drop its quantile. */
	snprintf(xl, sizeof xl, "%s", strchr(axis, ' ') ? strchr(axis, ' ') + 1 : axis);
	panel_init(&pn, xl);
	/* The recommended point, then the Pareto front in its order. */
	want[n_want++] = (int)fs__jnum(r->best, "best.point");
	snprintf(path, sizeof path, "%s/pareto.csv", r->dir);
	front = fs__csv_load(path, NULL);
	for (i = 0; front && i < front->n_rows && n_want < SWEEP_SERIES; i++) {
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
		int seen90 = 0;

		for (i = 0; i < c->n_rows; i++) {
			double x = fs__csv_num(c, i, (size_t)lc), q = fs__csv_num(c, i, (size_t)cc);

			if ((int)fs__csv_num(c, i, (size_t)pc) != want[k])
				continue;
			if (rows++ == 0 && n)
				fs_sbuf_puts(&dat, "\n\n");
			if (x > 0 && x < pn.xmin)
				pn.xmin = x;
			if (x > pn.xmax)
				pn.xmax = x;
			if (!seen90 && q >= 0.9) {
				seen90 = 1;
				if (x > 0 && x < pn.x_p90)
					pn.x_p90 = x;
			}
			fs_sbuf_printf(&dat, "%.10g %.10g\n", x, 100 * q);
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
	pn.n = n;
	if (!isnan(bound) && bound > 0) {
		pn.slos[0].bound_ms = bound;
		pn.slos[0].share = 0.99;   /* the Pareto bound is on the p99 (axis words) */
		if (strncmp(axis, "p", 1) == 0 && atof(axis + 1) > 0 && atof(axis + 1) < 100)
			pn.slos[0].share = atof(axis + 1) / 100;
		snprintf(pn.slos[0].label, sizeof pn.slos[0].label, "objective bound %.0f ms",
		         bound);
		pn.n_slos = 1;
	}
	rc = finish(r, &dat, "Latency distribution of the recommended and the Pareto-front "
	            "configurations", &pn, 1, titles,
	            "Cumulative distribution of the Pareto latency metric for the recommended "
	            "configuration and the other Pareto-front points (up to 7), with the "
	            "objective's bound dashed red; below, the tail from p90 to p99.9 on a log "
	            "scale, the red dot marking the bound at its percentile.", err);
	fs_sbuf_fini(&dat);
	return rc;
}
