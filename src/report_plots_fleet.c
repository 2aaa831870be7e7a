/*
 * report_plots_fleet.c — the plots of one configuration's fleet: the
 * timeline (instances per pool, spot reclaims, arrival rate, queue length),
 * utilization (busy fraction, KV-cache use and capacity utilisation with
 * their 95% bands, the healthy 80-95% band shaded, the idle threshold)
 * from timeseries.csv (the cost breakdown is in report_plots_cost.c).
 * Pool and variant names reach gnuplot only as escaped titles; the .dat
 * files hold numbers.
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
	snprintf(title, sizeof title, "Timeline%s%s%s (mean over replications)",
	         !variant ? "" : r->kind == FS_REPORT_SWEEP ? " of the recommended configuration, "
	                                                    : " of variant ",
	         variant ? variant : "", "");
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
	         !variant ? "The configuration" : r->kind == FS_REPORT_SWEEP ?
	         "The recommended configuration (run again with time series), " : "Variant ",
	         variant ? variant : "",
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
	               "noenhanced\nset key outside below center horizontal maxrows 3 box noenhanced width -4\n"
	               "set bmargin 8.5\nset xlabel 'time (%s)' noenhanced\n", unit);
	if (n_pools) {
		/* MODEL: S17, S19 — the healthy band and the idle threshold, named
		 * inside the frame at its right edge. */
		fs_sbuf_puts(&b, "set label 1 'healthy capacity utilisation 80-95%' at graph 0.99, "
		             "first 87.5 right tc rgb '#2ca02c' front noenhanced\n"
		             "set arrow 1 from graph 0, first 10 to graph 1, first 10 nohead "
		             "lc rgb '#7f7f7f' dt 3 lw 2 back\n"
		             "set label 2 'idle threshold 10% (30 min below it: an idle episode)' "
		             "at graph 0.99, first 5 right tc rgb '#555555' front "
		             "noenhanced\n");
	}
	if (n_pools) {
		/* Busy fraction = busy servers / instances running, in %. */
		struct fs_sbuf inst;

		fs_sbuf_init(&inst);
		fs_sbuf_puts(&inst, "(0");
		for (i = 0; i < n_pools; i++)
			fs_sbuf_printf(&inst, "+$%zu", 8 + i);
		fs_sbuf_puts(&inst, ")");
		fs_sbuf_printf(&b, "inst(x) = x > 0 ? x : NaN\nclip(p) = p > 100 ? 100 : p\n"
		               "set ylabel 'share (%%)' noenhanced\nset yrange [0:103]\n"
		               "plot %s'utilization.dat' using 1:(clip(100*$3/inst%s)):(clip(100*$4/inst%s)) "
		               "with filledcurves lc rgb '#1f77b4' notitle, \\\n"
		               "     '' using 1:(clip(100*$2/inst%s)) with lines lw 2 lc rgb '#1f77b4' "
		               "title 'busy fraction (busy / running instances)'",
		               has_cap ? "'utilization.dat' using 1:(80):(95) with filledcurves "
		                         "fc rgb '#2ca02c' fs transparent solid 0.12 noborder "
		                         "title 'healthy band 80-95%', \\\n     "
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
		               "lc rgb '#2ca02c' title 'MFU (modelled FLOPs / peak)', \\\n"
		               "     '' using 1:(100*$%zu) with lines lw 2 dt 2 lc rgb '#9467bd' "
		               "title 'MBU (modelled HBM bytes / bandwidth)'",
		               8 + n_pools, 9 + n_pools);
	if (has_cap && n_pools)
		fs_sbuf_printf(&b, ", \\\n     '' using 1:(100*$%zu):(100*$%zu) with filledcurves "
		               "lc rgb '#d62728' notitle, \\\n"
		               "     '' using 1:(100*$%zu) with lines lw 3 lc rgb '#d62728' "
		               "title 'capacity utilisation (of saturation throughput)'",
		               11 + n_pools, 12 + n_pools, 10 + n_pools);
	fs_sbuf_puts(&b, "\n");
	rc = fs__plot_finish(r, "utilization", fs_sbuf_str(&b),
	                     "Busy fraction of the running instances (an iteration in flight, "
	                     "what nvidia-smi shows; its band clipped at 100%), the share of KV-cache blocks in use, the "
	                     "achieved MFU and MBU of the iterations, and the capacity "
	                     "utilisation (the share of the instances' saturation throughput "
	                     "in use; 80-95% shaded as the healthy band, below the dotted 10% "
	                     "line a pool idles) over time, with 95% confidence bands.",
	                     err);
	fs_sbuf_fini(&b);
	return rc;
}
