/*
 * timeseries_csv.c — timeseries.csv: one row per grid bin with the mean
 * across replications (and 95% Student-t interval, cut at 0: every figure
 * is a count, rate or share) of each per-bin figure:
 * time-averaged queue length and busy servers (instances with an iteration
 * in flight), arrival rate, and with a fleet the KV use, spot reclaims,
 * achieved MFU and MBU of the iterations starting in the bin, each
 * pool's serving instances, and capacity utilisation (fleet, then each
 * pool; MODEL: S17).  A replication stopped early contributes nothing to
 * the bins after its stop.  Figures have 9 significant digits and names the
 * CSV quoting of escape.h (docs/OUTPUTS.md).  Written atomically.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/world_capacity_util.h"
#include "fleetsim/escape.h"
#include "fleetsim/out_format.h"
#include "fleetsim/outfile.h"
#include "fleetsim/summary.h"

static void ci_fields(FILE *f, const struct fs_ci *ci)
{
	fs_csv_put_num(f, ci->value);
	fs_csv_put_num(f, ci->ci_lo);
	fs_csv_put_num(f, ci->ci_hi);
}

/* A column name for a pool: "instances_<name>" with anything but
 * [A-Za-z0-9_-] replaced by '_' (names are free text).  The fixed prefix
 * also keeps the header cell from reading as a spreadsheet formula. */
static void pool_column(FILE *f, const char *name)
{
	fputs(",instances_", f);
	for (; *name != '\0'; name++) {
		char c = *name;

		fputc((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' ? c : '_', f);
	}
}

/* ",capacity_util_<name>" plus its _ci_lo and _ci_hi columns, the name
 * cleaned as in pool_column. */
static void capacity_columns(FILE *f, const char *name)
{
	static const char *const suffix[3] = { "", "_ci_lo", "_ci_hi" };
	const char *c;
	int k;

	for (k = 0; k < 3; k++) {
		fputs(",capacity_util_", f);
		for (c = name; *c != '\0'; c++)
			fputc((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' ? *c : '_', f);
		fputs(suffix[k], f);
	}
}

/* Seconds of [start_ns, end_ns) that replication r simulated. */
static double covered_s(const struct fs_rep_result *r, fs_ns start_ns, fs_ns end_ns)
{
	fs_ns to_ns = r->end_ns < end_ns ? r->end_ns : end_ns;

	return to_ns > start_ns ? (double)(to_ns - start_ns) / (double)FS_NS_PER_S : 0.0;
}

int fs_timeseries_write_csv(struct fs_rep_result *const *results, int replications,
                            const struct fs_scenario *sc, const char *path,
                            struct fs_error *err)
{
	const struct fs_tseries *first = &results[0]->queue_len;
	size_t n_pools = results[0]->fleet.n_pools, p, bin;
	bool llm = results[0]->llm;
	double *x = fs_xmalloc((size_t)replications * sizeof *x);
	struct fs_outfile o;
	int r;

	if (fs_outfile_open(&o, path, err) != 0) {
		free(x);
		return -1;
	}
	fprintf(o.f, "t_start_s,t_end_s,queue_len,queue_len_ci_lo,queue_len_ci_hi,"
	        "busy_servers,busy_servers_ci_lo,busy_servers_ci_hi,"
	        "arrival_rate_per_s,arrival_rate_ci_lo,arrival_rate_ci_hi");
	if (llm) {
		fprintf(o.f, ",kv_use,kv_use_ci_lo,kv_use_ci_hi,reclaims,reclaims_ci_lo,"
		        "reclaims_ci_hi,mfu,mfu_ci_lo,mfu_ci_hi,mbu,mbu_ci_lo,mbu_ci_hi");
		for (p = 0; p < n_pools; p++) {
			pool_column(o.f, sc->fleet.pools[p].name);
			pool_column(o.f, sc->fleet.pools[p].name);
			fputs("_ci_lo", o.f);
			pool_column(o.f, sc->fleet.pools[p].name);
			fputs("_ci_hi", o.f);
		}
		/* MODEL: S17 — capacity utilisation, fleet then per pool. */
		fprintf(o.f, ",capacity_util,capacity_util_ci_lo,capacity_util_ci_hi");
		for (p = 0; p < n_pools; p++)
			capacity_columns(o.f, sc->fleet.pools[p].name);
		/* MODEL: A6 — the autoscaler's desired count of its pool. */
		if (results[0]->has_desired) {
			const char *pn = sc->fleet.pools[sc->fleet.autoscale.pool].name;

			pool_column(o.f, pn);
			fputs("_desired", o.f);
			pool_column(o.f, pn);
			fputs("_desired_ci_lo", o.f);
			pool_column(o.f, pn);
			fputs("_desired_ci_hi", o.f);
		}
	}
	fputc('\n', o.f);
	for (bin = 0; bin < first->n_bins; bin++) {
		fs_ns start_ns = (fs_ns)bin * first->interval_ns;
		fs_ns end_ns = start_ns + first->interval_ns;
		struct fs_ci ci;
		char num[FS_OUT_NUM_LEN];

		if (end_ns > first->horizon_ns)
			end_ns = first->horizon_ns;
		fputs(fs_out_num(num, (double)start_ns / (double)FS_NS_PER_S), o.f);
		fs_csv_put_num(o.f, (double)end_ns / (double)FS_NS_PER_S);
#define COLUMN(expr) \
		do { \
			for (r = 0; r < replications; r++) \
				x[r] = (expr); \
			ci = fs_stats_mean_ci_nonneg(x, (size_t)replications, FS_CI_LEVEL); /* MODEL: M6 */ \
			ci_fields(o.f, &ci); \
		} while (0)
		COLUMN(fs_tseries_mean(&results[r]->queue_len, bin));
		COLUMN(fs_tseries_mean(&results[r]->busy, bin));
		/* MODEL: S3 — per second of the bin simulated (none after a stop). */
		COLUMN(covered_s(results[r], start_ns, end_ns) > 0 ?
		       results[r]->bin_arrivals[bin] / covered_s(results[r], start_ns, end_ns) : NAN);
		if (llm) {
			COLUMN(fs_tseries_mean(&results[r]->kv_used, bin));
			COLUMN(covered_s(results[r], start_ns, end_ns) > 0 ?
			       results[r]->bin_reclaims[bin] : NAN);
			COLUMN(results[r]->bin_flops_cap[bin] > 0 ?
			       results[r]->bin_flops[bin] / results[r]->bin_flops_cap[bin] : NAN);
			COLUMN(results[r]->bin_bytes_cap[bin] > 0 ?
			       results[r]->bin_bytes[bin] / results[r]->bin_bytes_cap[bin] : NAN);
			for (p = 0; p < n_pools; p++)
				COLUMN(fs_tseries_mean(&results[r]->pool_serving[p], bin));
			COLUMN(fs_capacity_util_bin(results[r], SIZE_MAX, bin));
			for (p = 0; p < n_pools; p++)
				COLUMN(fs_capacity_util_bin(results[r], p, bin));
			if (results[0]->has_desired)
				COLUMN(fs_tseries_mean(&results[r]->pool_desired[
				       sc->fleet.autoscale.pool], bin));
		}
#undef COLUMN
		fputc('\n', o.f);
	}
	free(x);
	return fs_outfile_commit(&o, err);
}

static void cdf_rows(FILE *f, const char *group, const char *metric,
                     struct fs_rep_result *const *results, int replications, size_t idx,
                     enum fs_latency k)
{
	struct fs_hist h;
	size_t i, nb = fs_hist_n_buckets();
	uint64_t cum;
	int r;

	fs_hist_init(&h);
	for (r = 0; r < replications; r++)
		fs_hist_merge(&h, &results[r]->cls[idx].lat_hist[k]);
	if (h.n == 0) {
		fs_hist_fini(&h);
		return;
	}
	cum = h.n_zero;
	if (h.n_zero > 0) {
		fprintf(f, "%s,%s", group, metric);
		fs_csv_put_num(f, 0.0);
		fs_csv_put_num(f, (double)cum / (double)h.n);
		fputc('\n', f);
	}
	for (i = 0; i < nb; i++) {
		if (h.buckets[i] == 0)
			continue;
		cum += h.buckets[i];
		fprintf(f, "%s,%s", group, metric);
		fs_csv_put_num(f, fs_hist_bucket_value(i) / (double)FS_NS_PER_MS);
		fs_csv_put_num(f, (double)cum / (double)h.n);
		fputc('\n', f);
	}
	fs_hist_fini(&h);
}

/* A class name as one CSV field (quoted, quotes doubled, guarded against
 * spreadsheet formulas). */
static char *csv_quoted(const char *s)
{
	struct fs_sbuf b;

	fs_sbuf_init(&b);
	fs_sbuf_csv(&b, s, FS_CSV_QUOTE);
	return b.s;
}

int fs_latency_cdf_write_csv(struct fs_rep_result *const *results, int replications,
                             const struct fs_scenario *sc, const char *path,
                             struct fs_error *err)
{
	static const enum fs_latency metrics[] = { FS_LAT_TTFT, FS_LAT_TPOT, FS_LAT_E2E };
	struct fs_outfile o;
	size_t c, m;

	if (fs_outfile_open(&o, path, err) != 0)
		return -1;
	fprintf(o.f, "group,metric,latency_ms,cdf\n");
	for (c = 0; c <= sc->workload.n_classes; c++) {
		size_t idx = c == 0 ? sc->workload.n_classes : c - 1;
		char *group = csv_quoted(c == 0 ? "all" : sc->workload.classes[idx].name);

		for (m = 0; m < 3; m++) {
			if (metrics[m] == FS_LAT_TPOT && !results[0]->llm)
				continue;
			cdf_rows(o.f, group, fs_latency_name(metrics[m]), results, replications,
			         idx, metrics[m]);
		}
		free(group);
	}
	return fs_outfile_commit(&o, err);
}
