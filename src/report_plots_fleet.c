/*
 * report_plots_fleet.c — the plots of one configuration's fleet: the
 * timeline (instances per pool, spot reclaims, arrival rate, queue length),
 * utilization (busy fraction, KV-cache use and capacity utilisation with
 * their 95% bands, the healthy 80-95% band shaded) from
 * timeseries.csv, and the stacked cost breakdown from summary.json (one bar
 * for a run, one per variant).  Pool and variant names reach gnuplot only as
 * escaped titles and tick labels; the .dat files hold numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "report_internal.h"

/* Columns instances_<pool> (not the _ci_ ones, not the autoscaler's
 * instances_<pool>_desired), in file order. */
static size_t pool_cols(const struct fs__csv *ts, int *cols, const char **names,
                        size_t max)
{
	size_t i, n = 0, len;

	for (i = 0; i < ts->n_cols && n < max; i++) {
		const char *h = ts->head[i];

		if (strncmp(h, "instances_", 10) != 0)
			continue;
		len = strlen(h);
		if ((len > 6 && strcmp(h + len - 6, "_ci_lo") == 0) ||
		    (len > 6 && strcmp(h + len - 6, "_ci_hi") == 0) ||
		    (len > 8 && strcmp(h + len - 8, "_desired") == 0))
			continue;
		cols[n] = (int)i;
		names[n++] = h + 10;
	}
	return n;
}

static double time_scale(const struct fs__csv *ts, const char **unit)
{
	int ce = fs__csv_col(ts, "t_end_s");
	double end = ce >= 0 && ts->n_rows ? fs__csv_num(ts, ts->n_rows - 1, (size_t)ce) : 0;

	if (end > 5 * 3600) {
		*unit = "h";
		return 3600;
	}
	*unit = "min";
	return 60;
}

/* Emit row i's columns (NaN for a missing column) with time t. */
static void ts_row(struct fs_sbuf *dat, const struct fs__csv *ts, size_t i, double t,
                   const int *cols, size_t n)
{
	size_t k;

	fs_sbuf_printf(dat, "%.10g", t);
	for (k = 0; k < n; k++)
		fs_sbuf_printf(dat, " %.10g", cols[k] >= 0 ? fs__csv_num(ts, i, (size_t)cols[k]) : NAN);
	fs_sbuf_puts(dat, "\n");
}

/* Rows of ts with the given columns, plus a closing row at the last t_end so
 * step plots show the last interval. */
static void ts_data(struct fs_sbuf *dat, const struct fs__csv *ts, const int *cols,
                    size_t n, double scale)
{
	int cs = fs__csv_col(ts, "t_start_s"), ce = fs__csv_col(ts, "t_end_s");
	size_t i;

	for (i = 0; i < ts->n_rows; i++)
		ts_row(dat, ts, i, fs__csv_num(ts, i, (size_t)cs) / scale, cols, n);
	if (ts->n_rows && ce >= 0)
		ts_row(dat, ts, ts->n_rows - 1,
		       fs__csv_num(ts, ts->n_rows - 1, (size_t)ce) / scale, cols, n);
}

/* Largest value in the given columns (0 when none). */
static double col_max(const struct fs__csv *ts, const int *cols, size_t n)
{
	double m = 0, v;
	size_t i, k;

	for (k = 0; k < n; k++)
		for (i = 0; cols[k] >= 0 && i < ts->n_rows; i++)
			if ((v = fs__csv_num(ts, i, (size_t)cols[k])) > m)
				m = v;
	return m;
}

int fs__plot_timeline(struct fs__report *r, const struct fs__csv *ts, const char *name,
                      const char *variant, struct fs_error *err)
{
	int cols[2 * FS__MAX_SERIES + 3];
	const char *pools[FS__MAX_SERIES];
	struct fs_sbuf dat, b;
	const char *unit;
	char title[400], caption[600];
	size_t n_pools, k, n_cols, n_desired;
	double scale;
	int rc, has_reclaims;

	if (!ts || fs__csv_col(ts, "t_start_s") < 0 || fs__csv_col(ts, "queue_len") < 0 ||
	    fs__csv_col(ts, "arrival_rate_per_s") < 0 || ts->n_rows == 0) {
		fs__plot_skip(r, name, "no timeseries.csv");
		return 0;
	}
	scale = time_scale(ts, &unit);
	n_pools = pool_cols(ts, cols, pools, FS__MAX_SERIES);
	has_reclaims = fs__csv_col(ts, "reclaims") >= 0;
	/* Data columns: 1 t, 2..n_pools+1 instances, then reclaims, arrivals, queue. */
	n_cols = n_pools;
	cols[n_cols++] = fs__csv_col(ts, "reclaims");
	cols[n_cols++] = fs__csv_col(ts, "arrival_rate_per_s");
	cols[n_cols++] = fs__csv_col(ts, "queue_len");
	/* Then each pool's desired count (the autoscaler's; NaN elsewhere). */
	for (k = 0, n_desired = 0; k < n_pools; k++) {
		char col[300];

		snprintf(col, sizeof col, "instances_%s_desired", pools[k]);
		cols[n_cols] = fs__csv_col(ts, col);
		n_desired += cols[n_cols++] >= 0;
	}
	fs_sbuf_init(&dat);
	fs_sbuf_printf(&dat, "# t_%s instances(per pool) reclaims arrival_rate_per_s queue_len "
	               "desired(per pool)\n", unit);
	ts_data(&dat, ts, cols, n_cols, scale);
	rc = fs__plot_write(r, name, "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc)
		return -1;

	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	snprintf(title, sizeof title, "Timeline%s%s (mean over replications)",
	         variant ? " of variant " : "", variant ? variant : "");
	fs_sbuf_puts(&b, "set multiplot layout 2,1 title ");
	fs_sbuf_gp(&b, title);
	fs_sbuf_puts(&b, " noenhanced\nset lmargin at screen 0.08\nset rmargin at screen 0.90\n"
	             "set key inside left top box opaque noenhanced\n");
	if (n_pools || has_reclaims) {
		fs_sbuf_printf(&b, "set xlabel 'time (%s)' noenhanced\n"
		               "set ylabel 'instances running' noenhanced\nset yrange [0:%.6g]\n",
		               unit, col_max(ts, cols, n_pools) * 1.5 + 1);
		if (has_reclaims)
			fs_sbuf_printf(&b, "set y2label 'spot reclaims per interval' noenhanced\n"
			               "set y2range [0:%.6g]\nset y2tics\nset ytics nomirror\n",
			               col_max(ts, cols + n_pools, 1) * 1.5 + 0.5);
		fs_sbuf_puts(&b, "plot ");
		for (k = 0; k < n_pools; k++) {
			char t[300];

			snprintf(t, sizeof t, "instances: %s", pools[k]);
			fs_sbuf_printf(&b, "%s'%s.dat' using 1:%zu with steps lw 2 title ",
			               k ? ", \\\n     " : "", name, k + 2);
			fs_sbuf_gp(&b, t);
		}
		/* MODEL: A6 — desired (dashed) against serving, and a point at each
		 * interval where the desired count changed (a scale event). */
		for (k = 0; k < n_pools; k++) {
			char t[300];
			size_t c = n_pools + 5 + k;    /* 1 t, pools, reclaims, arrivals, queue */

			if (cols[n_pools + 3 + k] < 0)
				continue;
			snprintf(t, sizeof t, "desired: %s", pools[k]);
			fs_sbuf_printf(&b, ", \\\n     '%s.dat' using 1:%zu with steps lw 2 dt 2 "
			               "title ", name, c);
			fs_sbuf_gp(&b, t);
			snprintf(t, sizeof t, "scale events: %s", pools[k]);
			fs_sbuf_printf(&b, ", \\\n     prev = NaN, '%s.dat' using 1:(d = column(%zu), "
			               "e = (prev == prev && d != prev) ? d : NaN, prev = d, e) "
			               "with points pt 7 ps 0.8 title ", name, c);
			fs_sbuf_gp(&b, t);
		}
		if (has_reclaims)
			fs_sbuf_printf(&b, "%s'%s.dat' using 1:($%zu > 0 ? $%zu : NaN) axes x1y2 "
			               "with impulses lw 3 lc rgb '#d62728' title 'spot reclaims'",
			               n_pools ? ", \\\n     " : "", name, n_pools + 2, n_pools + 2);
		fs_sbuf_puts(&b, "\n");
		fs_sbuf_puts(&b, "unset y2label\nunset y2tics\nset ytics mirror\n");
	}
	fs_sbuf_printf(&b, "set xlabel 'time (%s)' noenhanced\n"
	               "set ylabel 'arrival rate (requests/s)' noenhanced\nset yrange [0:%.6g]\n"
	               "set y2label 'queue length (requests waiting)' noenhanced\n"
	               "set y2range [0:%.6g]\nset y2tics\nset ytics nomirror\n"
	               "plot '%s.dat' using 1:%zu with lines lw 2 lc rgb '#1f77b4' "
	               "title 'arrival rate', \\\n"
	               "     '' using 1:%zu axes x1y2 with steps lw 2 lc rgb '#ff7f0e' "
	               "title 'queue length'\n",
	               unit, col_max(ts, cols + n_pools + 1, 1) * 1.45 + 1e-9,
	               col_max(ts, cols + n_pools + 2, 1) * 1.45 + 1, name, n_pools + 3,
	               n_pools + 4);
	snprintf(caption, sizeof caption,
	         "%s%s: instances running per pool with spot reclaims%s (top), arrival rate "
	         "and queue length (bottom), each the mean over replications per interval.",
	         variant ? "Variant " : "The configuration", variant ? variant : "",
	         n_desired ? ", the autoscaler's desired count (dashed) and its scale "
	         "events (dots)" : "");
	rc = fs__plot_finish(r, name, fs_sbuf_str(&b), caption, err);
	fs_sbuf_fini(&b);
	return rc;
}

int fs__plot_utilization(struct fs__report *r, struct fs_error *err)
{
	const struct fs__csv *ts = r->timeseries;
	int cols[FS__MAX_SERIES + 12], pc[FS__MAX_SERIES];
	const char *pools[FS__MAX_SERIES];
	struct fs_sbuf dat, b;
	const char *unit;
	size_t n_pools, k, i, n = 0;
	double scale;
	int rc, has_kv, has_mfu, has_cap;

	if (!ts || fs__csv_col(ts, "busy_servers") < 0 || ts->n_rows == 0) {
		fs__plot_skip(r, "utilization", "no timeseries.csv with busy servers");
		return 0;
	}
	scale = time_scale(ts, &unit);
	n_pools = pool_cols(ts, pc, pools, FS__MAX_SERIES);
	has_kv = fs__csv_col(ts, "kv_use") >= 0;
	/* Columns: t, busy, busy_lo, busy_hi, kv, kv_lo, kv_hi, then instances. */
	cols[n++] = fs__csv_col(ts, "busy_servers");
	cols[n++] = fs__csv_col(ts, "busy_servers_ci_lo");
	cols[n++] = fs__csv_col(ts, "busy_servers_ci_hi");
	cols[n++] = fs__csv_col(ts, "kv_use");
	cols[n++] = fs__csv_col(ts, "kv_use_ci_lo");
	cols[n++] = fs__csv_col(ts, "kv_use_ci_hi");
	for (k = 0; k < n_pools; k++)
		cols[n++] = pc[k];
	has_mfu = fs__csv_col(ts, "mfu") >= 0 && fs__csv_col(ts, "mbu") >= 0;
	cols[n++] = fs__csv_col(ts, "mfu");      /* column 8 + n_pools */
	cols[n++] = fs__csv_col(ts, "mbu");      /* column 9 + n_pools */
	/* MODEL: S17 — capacity utilisation, columns 10-12 + n_pools. */
	has_cap = fs__csv_col(ts, "capacity_util") >= 0;
	cols[n++] = fs__csv_col(ts, "capacity_util");
	cols[n++] = fs__csv_col(ts, "capacity_util_ci_lo");
	cols[n++] = fs__csv_col(ts, "capacity_util_ci_hi");
	fs_sbuf_init(&dat);
	fs_sbuf_puts(&dat, "# t busy busy_lo busy_hi kv_use kv_lo kv_hi instances(per pool) "
	             "mfu mbu capacity_util capacity_util_lo capacity_util_hi\n");
	ts_data(&dat, ts, cols, n, scale);
	rc = fs__plot_write(r, "utilization", "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc)
		return -1;

	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_printf(&b, "set title 'Utilization over time (mean over replications, 95%% band)' "
	               "noenhanced\nset key outside below center horizontal maxrows 2 box noenhanced\nset bmargin 7\nset xlabel 'time (%s)' noenhanced\n", unit);
	if (n_pools) {
		/* Busy fraction = busy servers / instances running, in %. */
		struct fs_sbuf inst;

		fs_sbuf_init(&inst);
		fs_sbuf_puts(&inst, "(0");
		for (i = 0; i < n_pools; i++)
			fs_sbuf_printf(&inst, "+$%zu", 8 + i);
		fs_sbuf_puts(&inst, ")");
		fs_sbuf_printf(&b, "inst(x) = x > 0 ? x : NaN\n"
		               "set ylabel 'share (%%)' noenhanced\nset yrange [0:105]\n"
		               "plot %s'utilization.dat' using 1:(100*$3/inst%s):(100*$4/inst%s) "
		               "with filledcurves lc rgb '#1f77b4' notitle, \\\n"
		               "     '' using 1:(100*$2/inst%s) with lines lw 2 lc rgb '#1f77b4' "
		               "title 'busy fraction (busy instances / running)'",
		               has_cap ? "'utilization.dat' using 1:(80):(95) with filledcurves "
		                         "fc rgb '#2ca02c' fs transparent solid 0.12 noborder "
		                         "title 'healthy capacity utilisation (80-95%)', \\\n     "
		                       : "",
		               fs_sbuf_str(&inst), fs_sbuf_str(&inst), fs_sbuf_str(&inst));
		fs_sbuf_fini(&inst);
	} else {
		fs_sbuf_puts(&b, "set ylabel 'busy servers (count)' noenhanced\nset yrange [0:*]\n"
		             "plot 'utilization.dat' using 1:3:4 with filledcurves "
		             "lc rgb '#1f77b4' notitle, \\\n"
		             "     '' using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'busy servers'");
		if (has_kv)
			fs_sbuf_puts(&b, "\nset y2label 'KV-cache use (%)' noenhanced\n");
	}
	if (has_kv)
		fs_sbuf_printf(&b, ", \\\n     '' using 1:(100*$6):(100*$7)%s with filledcurves "
		               "lc rgb '#ff7f0e' notitle, \\\n"
		               "     '' using 1:(100*$5)%s with lines lw 2 lc rgb '#ff7f0e' "
		               "title 'KV-cache blocks in use'",
		               n_pools ? "" : " axes x1y2", n_pools ? "" : " axes x1y2");
	if (has_mfu && n_pools)
		fs_sbuf_printf(&b, ", \\\n     '' using 1:(100*$%zu) with lines lw 2 "
		               "lc rgb '#2ca02c' title 'achieved MFU (modelled FLOPs / peak)', \\\n"
		               "     '' using 1:(100*$%zu) with lines lw 2 dt 2 lc rgb '#9467bd' "
		               "title 'achieved MBU (modelled HBM bytes / bandwidth)'",
		               8 + n_pools, 9 + n_pools);
	if (has_cap && n_pools)
		fs_sbuf_printf(&b, ", \\\n     '' using 1:(100*$%zu):(100*$%zu) with filledcurves "
		               "lc rgb '#d62728' notitle, \\\n"
		               "     '' using 1:(100*$%zu) with lines lw 3 lc rgb '#d62728' "
		               "title 'capacity utilisation (share of saturation throughput)'",
		               11 + n_pools, 12 + n_pools, 10 + n_pools);
	fs_sbuf_puts(&b, "\n");
	rc = fs__plot_finish(r, "utilization", fs_sbuf_str(&b),
	                     "Busy fraction of the running instances (an iteration in flight, "
	                     "what nvidia-smi shows), the share of KV-cache blocks in use, the "
	                     "achieved MFU and MBU of the iterations, and the capacity "
	                     "utilisation (the share of the instances' saturation throughput "
	                     "in use; 80-95% shaded as the healthy band) over time, with 95% "
	                     "confidence bands.",
	                     err);
	fs_sbuf_fini(&b);
	return rc;
}

/* ---- cost breakdown ---- */

struct bar {
	const char *name;            /* bar label (borrowed) */
	const cJSON *summary;
};

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

int fs__plot_cost(struct fs__report *r, struct fs_error *err)
{
	struct bar bars[FS__MAX_SERIES];
	const char *pools[FS__MAX_SERIES];
	const char *pricing[FS__MAX_SERIES];
	double usd[FS__MAX_SERIES][FS__MAX_SERIES + 2];
	struct fs_sbuf dat, b;
	size_t n_bars = 0, n_pools = 0, i, k;
	int monthly = 1, rc;
	double top = 0;
	char rec_label[300];

	if (r->kind != FS_REPORT_VARIANTS) {
		if (!r->summary) {
			fs__plot_skip(r, "cost_breakdown", "no summary.json");
			return 0;
		}
		bars[n_bars].name = fs__jstr(r->summary, "provenance.scenario");
		if (r->kind == FS_REPORT_SWEEP) {
			fs__short_label(fs__jget(r->best, "best.set"), rec_label, sizeof rec_label);
			bars[n_bars].name = rec_label;
		}
		if (!bars[n_bars].name)
			bars[n_bars].name = "this configuration";
		bars[n_bars++].summary = r->summary;
	} else {
		for (i = 0; i < r->n_variants && n_bars < FS__MAX_SERIES; i++) {
			if (!r->variants[i].summary)
				continue;
			bars[n_bars].name = r->variants[i].name;
			bars[n_bars++].summary = r->variants[i].summary;
		}
	}
	memset(usd, 0, sizeof usd);
	for (i = 0; i < n_bars; i++) {
		const cJSON *pool;
		double total = fs__jnum(bars[i].summary, "cost.total.value");
		double month = fs__jnum(bars[i].summary, "cost.monthly_projected.value");

		if (!(total > 0 && month > 0))
			monthly = 0;
		cJSON_ArrayForEach(pool, fs__jget(bars[i].summary, "cost.pools")) {
			size_t p = pool_index(pools, &n_pools, pool->string ? pool->string : "?");
			double u = fs__jnum(pool, "total.value");
			double idle = fs__jnum(pool, "idle.value");
			double lost = fs__jnum(pool, "lost_to_reclaims.value");
			double serving;

			if (p >= FS__MAX_SERIES || isnan(u))
				continue;
			pricing[p] = fs__jstr(pool, "pricing");
			idle = isnan(idle) ? 0 : idle;
			lost = isnan(lost) ? 0 : lost;
			serving = u - idle - lost;  /* idle and lost are parts of the bill */
			usd[i][p] += serving > 0 ? serving : 0;
			usd[i][FS__MAX_SERIES] += idle;
			usd[i][FS__MAX_SERIES + 1] += lost;
		}
	}
	if (n_bars == 0 || n_pools == 0) {
		fs__plot_skip(r, "cost_breakdown", "no cost figures per pool in summary.json "
		              "(the queue engine has no cost)");
		return 0;
	}
	fs_sbuf_init(&dat);
	fs_sbuf_printf(&dat, "# bar serving(per pool) idle lost_to_reclaims (%s %s)\n",
	               r->currency, monthly ? "per month, projected" : "over the horizon");
	for (i = 0; i < n_bars; i++) {
		double f = monthly ? fs__jnum(bars[i].summary, "cost.monthly_projected.value") /
		                     fs__jnum(bars[i].summary, "cost.total.value") : 1;
		double sum = 0;

		fs_sbuf_printf(&dat, "%zu", i);
		for (k = 0; k < n_pools; k++) {
			fs_sbuf_printf(&dat, " %.10g", usd[i][k] * f);
			sum += usd[i][k] * f;
		}
		fs_sbuf_printf(&dat, " %.10g %.10g\n", usd[i][FS__MAX_SERIES] * f,
		               usd[i][FS__MAX_SERIES + 1] * f);
		sum += (usd[i][FS__MAX_SERIES] + usd[i][FS__MAX_SERIES + 1]) * f;
		if (sum > top)
			top = sum;
	}
	rc = fs__plot_write(r, "cost_breakdown", "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc)
		return -1;

	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_printf(&b, "set title 'Where the money goes' noenhanced\n"
	               "set ylabel '%s (%s%s)' noenhanced\nset yrange [0:%.6g]\n"
	               "set style data histograms\nset style histogram rowstacked\n"
	               "set style fill solid 0.85 border lc rgb '#333333'\nset boxwidth 0.6\n"
	               "set grid noxtics ytics\n",
	               monthly ? "cost per month, projected" : "cost over the horizon",
	               r->currency, monthly ? "; cost per hour x 730 h" : "", top * 1.15 + 1e-9);
	fs_sbuf_printf(&b, "set xtics nomirror %s(", n_bars > 4 ? "rotate by -30 left " : "");
	for (i = 0; i < n_bars; i++) {
		fs_sbuf_puts(&b, i ? ", " : "");
		fs_sbuf_gp(&b, bars[i].name);
		fs_sbuf_printf(&b, " %zu", i);
	}
	fs_sbuf_printf(&b, ")\nset xrange [-0.6:%.1f]\n", (double)n_bars - 0.4);
	fs_sbuf_puts(&b, "plot ");
	for (k = 0; k < n_pools; k++) {
		char t[300];

		snprintf(t, sizeof t, "pool %s (%s), serving", pools[k],
		         pricing[k] ? pricing[k] : "?");
		fs_sbuf_printf(&b, "%s'cost_breakdown.dat' using %zu title ", k ? ", \\\n     " : "",
		               k + 2);
		fs_sbuf_gp(&b, t);
	}
	fs_sbuf_printf(&b, ", \\\n     '' using %zu lc rgb '#bbbbbb' title 'idle (all pools)', \\\n"
	               "     '' using %zu lc rgb '#d62728' title 'lost to spot reclaims (all pools)'\n",
	               n_pools + 2, n_pools + 3);
	rc = fs__plot_finish(r, "cost_breakdown", fs_sbuf_str(&b),
	                     "Cost split per pool and pricing mode: the part spent serving, "
	                     "the idle part and the part lost to spot reclaims (both summed "
	                     "over pools; all three add up to the bill).", err);
	fs_sbuf_fini(&b);
	return rc;
}
