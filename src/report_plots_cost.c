/*
 * report_plots_cost.c — where the money goes: one stacked bar per
 * configuration (a run, the sweep's recommended point re-run, each
 * variant), USD per month projected.  Per pool the capacity used, then
 * summed over pools the capacity paid for but not used while serving
 * (MODEL.md S18 beyond the idle part), the idle part (F13) and the part
 * lost to spot reclaims; the four add up to the bill.  Above each bar its
 * total and the three losses as shares of it, so a thin slice stays
 * readable.  Names reach gnuplot only through fs_sbuf_gp.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "report_internal.h"

struct bar {
	const char *name;            /* bar label (borrowed) */
	const cJSON *summary;
};

/* Columns after the pools: unused while serving, idle, lost to reclaims. */
enum { COL_UNUSED, COL_IDLE, COL_LOST, N_LOSS };

static size_t pool_index(const char **names, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	if (*n < FS__MAX_SERIES)
		names[(*n)++] = name;
	return i;
}

static double num0(const cJSON *o, const char *path)
{
	double v = fs__jnum(o, path);

	return isnan(v) || v < 0 ? 0 : v;
}

/* The bars: one for a run or a sweep's re-run, else one per variant. */
static size_t bars_of(const struct fs__report *r, struct bar *bars, char *label, size_t len)
{
	size_t i, n = 0;

	if (r->kind != FS_REPORT_VARIANTS) {
		if (!r->summary)
			return 0;
		bars[0].name = fs__jstr(r->summary, "provenance.scenario");
		if (r->kind == FS_REPORT_SWEEP) {
			fs__short_label(fs__jget(r->best, "best.set"), label, len);
			bars[0].name = label;
		}
		if (!bars[0].name)
			bars[0].name = "this configuration";
		bars[0].summary = r->summary;
		return 1;
	}
	for (i = 0; i < r->n_variants && n < FS__MAX_SERIES; i++) {
		if (!r->variants[i].summary)
			continue;
		bars[n].name = r->variants[i].name;
		bars[n++].summary = r->variants[i].summary;
	}
	return n;
}

int fs__plot_cost(struct fs__report *r, struct fs_error *err)
{
	struct bar bars[FS__MAX_SERIES];
	const char *pools[FS__MAX_SERIES], *pricing[FS__MAX_SERIES];
	double usd[FS__MAX_SERIES][FS__MAX_SERIES + N_LOSS], total_usd[FS__MAX_SERIES];
	struct fs_sbuf dat, b;
	size_t n_bars, n_pools = 0, i, k;
	int monthly = 1, rc;
	double top = 0;
	char rec_label[300];

	n_bars = bars_of(r, bars, rec_label, sizeof rec_label);
	memset(usd, 0, sizeof usd);
	memset(pricing, 0, sizeof pricing);
	for (i = 0; i < n_bars; i++) {
		const cJSON *pool;
		double total = fs__jnum(bars[i].summary, "cost.total.value");
		double month = fs__jnum(bars[i].summary, "cost.monthly_projected.value");

		if (!(total > 0 && month > 0))
			monthly = 0;
		cJSON_ArrayForEach(pool, fs__jget(bars[i].summary, "cost.pools")) {
			size_t p = pool_index(pools, &n_pools, pool->string ? pool->string : "?");
			double u = fs__jnum(pool, "total.value");
			double idle = num0(pool, "idle.value"), lost = num0(pool, "lost_to_reclaims.value");
			double unused = num0(pool, "unused_capacity.value"), rest;

			if (p >= FS__MAX_SERIES || isnan(u))
				continue;
			pricing[p] = fs__jstr(pool, "pricing");
			/* MODEL: S18 — idle time is unused capacity too: count it once,
			 * as idle, and the rest of the unused USD beside it. */
			rest = u - lost - idle;
			unused = unused - idle > 0 ? unused - idle : 0;
			unused = unused < rest ? unused : rest > 0 ? rest : 0;
			usd[i][p] += rest - unused > 0 ? rest - unused : 0;
			usd[i][FS__MAX_SERIES + COL_UNUSED] += unused;
			usd[i][FS__MAX_SERIES + COL_IDLE] += idle;
			usd[i][FS__MAX_SERIES + COL_LOST] += lost;
		}
	}
	if (n_bars == 0 || n_pools == 0) {
		fs__plot_skip(r, "cost_breakdown", "no cost figures per pool in summary.json "
		              "(the queue engine has no cost)");
		return 0;
	}
	fs_sbuf_init(&dat);
	fs_sbuf_printf(&dat, "# bar used(per pool) unused_while_serving idle lost_to_reclaims "
	               "(%s %s)\n", r->currency,
	               monthly ? "per month, projected" : "over the horizon");
	for (i = 0; i < n_bars; i++) {
		double f = monthly ? fs__jnum(bars[i].summary, "cost.monthly_projected.value") /
		                     fs__jnum(bars[i].summary, "cost.total.value") : 1;

		total_usd[i] = 0;
		fs_sbuf_printf(&dat, "%zu", i);
		for (k = 0; k < n_pools; k++) {
			fs_sbuf_printf(&dat, " %.10g", usd[i][k] * f);
			total_usd[i] += usd[i][k] * f;
		}
		for (k = 0; k < N_LOSS; k++) {
			usd[i][FS__MAX_SERIES + k] *= f;
			fs_sbuf_printf(&dat, " %.10g", usd[i][FS__MAX_SERIES + k]);
			total_usd[i] += usd[i][FS__MAX_SERIES + k];
		}
		fs_sbuf_puts(&dat, "\n");
		top = total_usd[i] > top ? total_usd[i] : top;
	}
	rc = fs__plot_write(r, "cost_breakdown", "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc)
		return -1;

	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_printf(&b, "set label 100 'Where the money goes' at screen 0.5, screen 0.975 "
	               "center noenhanced\n"
	               "set ylabel '%s (%s%s)' noenhanced\nset yrange [0:%.6g]\n"
	               "set style data histograms\nset style histogram rowstacked\n"
	               "set style fill solid 0.85 border lc rgb '#333333'\nset boxwidth 0.6\n"
	               "set grid noxtics ytics\n"
	               "set key at screen 0.5, screen 0.945 center top horizontal maxrows 3 box "
	               "noenhanced width -2\nset tmargin at screen 0.81\n",
	               monthly ? "cost per month, projected" : "cost over the horizon",
	               r->currency, monthly ? "; cost per hour x 730 h" : "",
	               top * 1.35 + 1e-9);
	fs_sbuf_printf(&b, "set xtics nomirror %s(", n_bars > 4 ? "rotate by -30 left " : "");
	for (i = 0; i < n_bars; i++) {
		fs_sbuf_puts(&b, i ? ", " : "");
		fs_sbuf_gp(&b, bars[i].name);
		fs_sbuf_printf(&b, " %zu", i);
	}
	fs_sbuf_printf(&b, ")\nset xrange [-0.6:%.1f]\n", (double)n_bars - 0.4);
	/* The total and the losses' shares above each bar, in lines. */
	for (i = 0; i < n_bars; i++) {
		double t = total_usd[i] > 0 ? total_usd[i] : 1;

		/* Only numbers inside the double quotes (gnuplot expands those);
		 * the currency joins them as an escaped single-quoted string. */
		fs_sbuf_printf(&b, "set label %zu ", i + 1);
		fs_sbuf_gp(&b, r->currency);
		fs_sbuf_printf(&b, ".\" %.0f\\nunused %.1f%%\\nidle %.1f%%\\nreclaims %.1f%%\" "
		               "at %zu, %.10g center offset 0,%s front noenhanced%s\n", total_usd[i],
		               100 * usd[i][FS__MAX_SERIES + COL_UNUSED] / t,
		               100 * usd[i][FS__MAX_SERIES + COL_IDLE] / t,
		               100 * usd[i][FS__MAX_SERIES + COL_LOST] / t, i,
		               total_usd[i], n_bars > 5 ? "3.0" : "3.9",
		               n_bars > 5 ? " font ',9'" : "");
	}
	fs_sbuf_puts(&b, "plot ");
	for (k = 0; k < n_pools; k++) {
		char t[300];

		snprintf(t, sizeof t, "pool %s (%s): capacity used", pools[k],
		         pricing[k] ? pricing[k] : "?");
		fs_sbuf_printf(&b, "%s'cost_breakdown.dat' using %zu title ", k ? ", \\\n     " : "",
		               k + 2);
		fs_sbuf_gp(&b, t);
	}
	fs_sbuf_printf(&b, ", \\\n     '' using %zu lc rgb '#ffbb78' fs pattern 4 border "
	               "lc rgb '#e6550d' title 'unused capacity while serving (all pools)', \\\n"
	               "     '' using %zu lc rgb '#7f7f7f' title 'idle: no request running (all pools)', \\\n"
	               "     '' using %zu lc rgb '#d62728' title 'lost to spot reclaims (all pools)'\n",
	               n_pools + 2, n_pools + 3, n_pools + 4);
	rc = fs__plot_finish(r, "cost_breakdown", fs_sbuf_str(&b),
	                     "The bill split per pool and pricing plan into the capacity used, "
	                     "then over all pools the capacity paid for but unused while "
	                     "serving, the idle part and the part lost to spot reclaims; the "
	                     "four add up to the bill, and the shares above each bar keep thin "
	                     "slices readable.", err);
	fs_sbuf_fini(&b);
	return rc;
}
