/*
 * report_plots_reps.c — the spread over replications: a strip plot of the
 * total cost of every replication (summary.json's cost.cost_per_rep), one
 * row for a run directory and one per variant, with each row's mean and
 * its 95% interval.  Dots are spread vertically by replication index only
 * to keep equal values apart (deterministic, no random draw).  Row names
 * reach gnuplot only as escaped tick labels; the .dat file holds numbers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "report_internal.h"

struct row {
	const char *name;            /* borrowed */
	const cJSON *summary;
};

static size_t rows_of(const struct fs__report *r, struct row *rows, size_t max)
{
	size_t n = 0, i;

	if ((r->kind == FS_REPORT_RUN || r->kind == FS_REPORT_SWEEP) && r->summary) {
		rows[n].name = fs__jstr(r->summary, "provenance.scenario");
		if (!rows[n].name)
			rows[n].name = "this configuration";
		rows[n++].summary = r->summary;
	}
	for (i = 0; r->kind == FS_REPORT_VARIANTS && i < r->n_variants && n < max; i++) {
		if (!cJSON_IsArray(fs__jget(r->variants[i].summary, "cost.cost_per_rep")))
			continue;
		rows[n].name = r->variants[i].name;
		rows[n++].summary = r->variants[i].summary;
	}
	return n;
}

int fs__plot_cost_per_rep(struct fs__report *r, struct fs_error *err)
{
	struct row rows[FS__MAX_SERIES];
	struct fs_sbuf dat, b;
	double lo = INFINITY, hi = -INFINITY, pad;
	size_t n_rows = rows_of(r, rows, FS__MAX_SERIES), i, n_dots = 0;
	const cJSON *v;
	int rc, k;

	fs_sbuf_init(&dat);
	fs_sbuf_printf(&dat, "# total_cost(%s) row (one line per replication)\n", r->currency);
	for (i = 0; i < n_rows; i++) {
		k = 0;
		cJSON_ArrayForEach(v, fs__jget(rows[i].summary, "cost.cost_per_rep")) {
			if (!cJSON_IsNumber(v))
				continue;
			/* Spread over [-0.25, 0.25] by index: 0, 0.1, -0.1, 0.2, ... */
			fs_sbuf_printf(&dat, "%.10g %.4f\n", v->valuedouble,
			               (double)i + 0.05 * (double)((k % 11) - 5));
			lo = fmin(lo, v->valuedouble);
			hi = fmax(hi, v->valuedouble);
			k++;
			n_dots++;
		}
	}
	if (n_dots == 0) {
		fs_sbuf_fini(&dat);
		fs__plot_skip(r, "cost_per_rep", "no cost.cost_per_rep in summary.json (the "
		              "queue engine has no cost, or the directory predates it)");
		return 0;
	}
	fs_sbuf_puts(&dat, "\n\n# mean row ci_lo ci_hi\n");
	for (i = 0; i < n_rows; i++) {
		struct fs__ci ci = fs__jci(rows[i].summary, "cost.total");

		if (isnan(ci.value))
			continue;
		fs_sbuf_printf(&dat, "%.10g %zu %.10g %.10g\n", ci.value, i,
		               isnan(ci.lo) ? ci.value : ci.lo, isnan(ci.hi) ? ci.value : ci.hi);
		lo = fmin(lo, isnan(ci.lo) ? ci.value : ci.lo);
		hi = fmax(hi, isnan(ci.hi) ? ci.value : ci.hi);
	}
	rc = fs__plot_write(r, "cost_per_rep", "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc)
		return -1;

	/* An explicit range: equal values would give gnuplot an empty one. */
	pad = hi > lo ? 0.08 * (hi - lo) : fmax(0.05 * fabs(hi), 0.01);
	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_printf(&b, "set title 'Cost of each replication' noenhanced\n"
	               "set xlabel 'cost over the simulated span (%s)' noenhanced\n"
	               "set xrange [%.10g:%.10g]\nset yrange [-0.6:%.1f]\n"
	               "set key outside below center horizontal box noenhanced\nset bmargin 6\n"
	               "set grid xtics noytics\nset ytics nomirror (",
	               r->currency, lo - pad, hi + pad, (double)n_rows - 0.4);
	for (i = 0; i < n_rows; i++) {
		fs_sbuf_puts(&b, i ? ", " : "");
		fs_sbuf_gp(&b, rows[i].name);
		fs_sbuf_printf(&b, " %zu", i);
	}
	fs_sbuf_puts(&b, ")\nplot 'cost_per_rep.dat' index 0 using 1:2 with points pt 7 "
	             "ps 1.2 lc rgb '#1f77b4' title 'one replication', \\\n"
	             "     '' index 1 using 1:2:3:4 with xerrorbars pt 2 ps 3 lw 2 "
	             "lc rgb '#d62728' title 'mean with its 95% interval'\n");
	rc = fs__plot_finish(r, "cost_per_rep", fs_sbuf_str(&b),
	                     "Total cost of every replication (one dot each, spread up and down "
	                     "only to keep equal values apart) with the mean and its 95% "
	                     "interval; a fixed fleet costs the same in every replication, so "
	                     "its dots coincide.", err);
	fs_sbuf_fini(&b);
	return rc;
}
