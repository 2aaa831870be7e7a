/*
 * timeseries_csv.c — timeseries.csv: one row per grid bin with the mean
 * across replications (and 95% Student-t interval) of the time-averaged
 * queue length and busy servers in that bin.  Written atomically.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleetsim/outfile.h"
#include "fleetsim/summary.h"

static void ci_fields(FILE *f, const struct fs_ci *ci)
{
	const double v[3] = { ci->value, ci->ci_lo, ci->ci_hi };
	int i;

	for (i = 0; i < 3; i++) {
		if (isfinite(v[i]))
			fprintf(f, ",%.6g", v[i]);
		else
			fputc(',', f);
	}
}

int fs_timeseries_write_csv(struct fs_rep_result *const *results, int replications,
                            const char *path, struct fs_error *err)
{
	const struct fs_tseries *first = &results[0]->queue_len;
	double *queue = fs_xmalloc((size_t)replications * sizeof *queue);
	double *busy = fs_xmalloc((size_t)replications * sizeof *busy);
	struct fs_outfile o;
	size_t bin;
	int r;

	if (fs_outfile_open(&o, path, err) != 0) {
		free(queue);
		free(busy);
		return -1;
	}
	fprintf(o.f, "t_start_s,t_end_s,queue_len,queue_len_ci_lo,queue_len_ci_hi,"
	        "busy_servers,busy_servers_ci_lo,busy_servers_ci_hi\n");
	for (bin = 0; bin < first->n_bins; bin++) {
		fs_ns start_ns = (fs_ns)bin * first->interval_ns;
		fs_ns end_ns = start_ns + first->interval_ns;
		struct fs_ci q, b;

		if (end_ns > first->horizon_ns)
			end_ns = first->horizon_ns;
		for (r = 0; r < replications; r++) {
			queue[r] = fs_tseries_mean(&results[r]->queue_len, bin);
			busy[r] = fs_tseries_mean(&results[r]->busy, bin);
		}
		q = fs_stats_mean_ci(queue, (size_t)replications, 0.95);
		b = fs_stats_mean_ci(busy, (size_t)replications, 0.95);
		fprintf(o.f, "%.9g,%.9g", (double)start_ns / (double)FS_NS_PER_S,
		        (double)end_ns / (double)FS_NS_PER_S);
		ci_fields(o.f, &q);
		ci_fields(o.f, &b);
		fputc('\n', o.f);
	}
	free(queue);
	free(busy);
	return fs_outfile_commit(&o, err);
}
