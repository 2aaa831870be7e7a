/*
 * report_plots_conc.c — the benchmark curves of a sweep over closed-loop
 * users (MODEL: U7): TTFT (mean, median, p99) and throughput (output
 * tokens/s, requests/s) against the number of users, read from the
 * "concurrency" block of each point of sweep.json.  Points are drawn in
 * users order; a sweep without that block, or with one users count, has no
 * curve (skipped with the reason).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleetsim/escape.h"
#include "report_internal.h"

struct conc_row {
	double users;
	double ttft_mean, ttft_med, ttft_p99;
	double tok_s, tok_lo, tok_hi, req_s;
};

static double item(const cJSON *conc, const char *key, int i)
{
	const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(conc, key), i);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int by_users(const void *a, const void *b)
{
	double x = ((const struct conc_row *)a)->users, y = ((const struct conc_row *)b)->users;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* "NaN" for gnuplot when a figure is missing. */
static void put(struct fs_sbuf *dat, double v)
{
	if (isfinite(v))
		fs_sbuf_printf(dat, " %.10g", v);
	else
		fs_sbuf_puts(dat, " NaN");
}

int fs__plot_concurrency(struct fs__report *r, struct fs_error *err)
{
	const cJSON *pts = fs__jget(r->sweep, "points"), *p;
	struct conc_row *rows;
	size_t n = 0, i, cap = (size_t)cJSON_GetArraySize(pts) + 1;
	struct fs_sbuf dat, b;
	int rc;

	rows = fs_xcalloc(cap, sizeof *rows);
	cJSON_ArrayForEach(p, pts) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "concurrency");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(c, "users");
		struct conc_row *row = &rows[n];

		if (!cJSON_IsObject(c) || !cJSON_IsNumber(u))
			continue;
		row->users = u->valuedouble;
		row->ttft_mean = item(c, "ttft_ms_mean", 0);
		row->ttft_med = item(c, "ttft_ms_median", 0);
		row->ttft_p99 = item(c, "ttft_ms_p99", 0);
		row->tok_s = item(c, "output_tokens_per_s", 0);
		row->tok_lo = item(c, "output_tokens_per_s", 1);
		row->tok_hi = item(c, "output_tokens_per_s", 2);
		row->req_s = item(c, "requests_per_s", 0);
		n++;
	}
	qsort(rows, n, sizeof *rows, by_users);
	if (n < 2 || rows[0].users == rows[n - 1].users) {
		free(rows);
		fs__plot_skip(r, "concurrency", "the sweep does not vary the users of a "
		              "closed-loop class");
		return 0;
	}
	fs_sbuf_init(&dat);
	fs_sbuf_puts(&dat, "# users ttft_mean_ms ttft_median_ms ttft_p99_ms "
	             "output_tokens_per_s lo hi requests_per_s\n");
	for (i = 0; i < n; i++) {
		fs_sbuf_printf(&dat, "%.10g", rows[i].users);
		put(&dat, rows[i].ttft_mean);
		put(&dat, rows[i].ttft_med);
		put(&dat, rows[i].ttft_p99);
		put(&dat, rows[i].tok_s);
		put(&dat, isfinite(rows[i].tok_lo) ? rows[i].tok_lo : rows[i].tok_s);
		put(&dat, isfinite(rows[i].tok_hi) ? rows[i].tok_hi : rows[i].tok_s);
		put(&dat, rows[i].req_s);
		fs_sbuf_puts(&dat, "\n");
	}
	rc = fs__plot_write(r, "concurrency", "dat", &dat, err);
	fs_sbuf_fini(&dat);
	if (rc) {
		free(rows);
		return -1;
	}
	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_puts(&b, "set multiplot layout 1,2 title 'Serving benchmark by concurrency "
	             "(closed-loop users)' noenhanced\n"
	             "set key inside top left box opaque noenhanced\nset grid\n");
	if (rows[n - 1].users / (rows[0].users > 0 ? rows[0].users : 1) > 20)
		fs_sbuf_puts(&b, "set logscale x 2\n");
	fs_sbuf_printf(&b, "set xrange [%.6g:%.6g]\n", rows[0].users > 0 ?
	               rows[0].users / 1.2 : 0.0, rows[n - 1].users * 1.2);
	fs_sbuf_puts(&b, "set xlabel 'concurrent users' noenhanced\n"
	             "set ylabel 'TTFT, time to first token (ms)' noenhanced\n"
	             "set yrange [0:*]\n"
	             "plot 'concurrency.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'mean', \\\n"
	             "     '' using 1:3 with linespoints lw 2 pt 5 lc rgb '#2ca02c' title 'median', \\\n"
	             "     '' using 1:4 with linespoints lw 2 pt 9 lc rgb '#d62728' title 'p99'\n"
	             "set ylabel 'output tokens/s' noenhanced\n"
	             "set y2label 'requests/s' noenhanced\nset y2tics\nset ytics nomirror\n"
	             "set y2range [0:*]\n"
	             "plot 'concurrency.dat' using 1:5:6:7 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'output tokens/s (95% CI)', \\\n"
	             "     '' using 1:8 axes x1y2 with linespoints lw 2 dt 2 pt 6 lc rgb '#ff7f0e' title 'requests/s'\n");
	rc = fs__plot_finish(r, "concurrency", fs_sbuf_str(&b),
	                     "Time to first token (mean, median, p99) and throughput (output "
	                     "tokens/s with its 95% interval, requests/s) against the number "
	                     "of concurrent users, one point per sweep point, as serving "
	                     "benchmarks report a --max-concurrency sweep.", err);
	fs_sbuf_fini(&b);
	free(rows);
	return rc;
}
