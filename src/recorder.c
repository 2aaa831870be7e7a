/*
 * recorder.c — per-replication metrics (see recorder.h): the result's
 * set-up and hand-over, each request's arrival, end and latencies, and the
 * time series of arrivals, reclaims, levels and pools; the engine's
 * per-iteration figures are in recorder_engine.c.  Only requests that
 * arrive at or after the warm-up are counted (MODEL: S1); the time series
 * cover the whole horizon.  "all" is built at the end by merging the classes,
 * which is exact for histograms and moments.  Figures summed over the
 * iterations of many instances are exact sums (fs__i128), so the order in
 * which instances' iterations are recorded does not matter (MODEL: V24).
 */
#include "recorder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double fx_value(fs__i128 v)
{
	return (double)v / FS__FX_ONE;
}

static bool counted(const struct fs_recorder *rec, const struct fs_request *req)
{
	return req->arrival_ns >= rec->sc->sim.warmup_ns;
}

void fs__recorder_init(struct fs_recorder *rec, const struct fs_scenario *sc,
                       uint64_t replication, bool record_rows, int servers,
                       size_t n_pools)
{
	struct fs_rep_result *r = fs_xcalloc(1, sizeof *r);
	size_t c;
	int k;

	memset(rec, 0, sizeof *rec);
	rec->sc = sc;
	rec->levels_small = true;
	rec->level_limit = 0x1p53 / (double)sc->sim.sample_interval_ns;
	rec->record_rows = record_rows;
#if defined(__x86_64__) && defined(__GNUC__)
	rec->wide = __builtin_cpu_supports("avx2");
#endif
	r->replication = replication;
	r->n_classes = sc->workload.n_classes;
	r->cls = fs_xcalloc(r->n_classes + 1, sizeof *r->cls);
	for (c = 0; c <= r->n_classes; c++) {
		for (k = 0; k < FS_LAT__COUNT; k++) {
			fs_hist_init(&r->cls[c].lat_hist[k]);
			fs_moments_init(&r->cls[c].lat_moments[k]);
		}
	}
	fs_tseries_init(&r->queue_len, sc->sim.sample_interval_ns, sc->sim.horizon_ns);
	fs_tseries_init(&r->busy, sc->sim.sample_interval_ns, sc->sim.horizon_ns);
	fs_tseries_init(&r->kv_used, sc->sim.sample_interval_ns, sc->sim.horizon_ns);
	r->bin_arrivals = fs_xcalloc(r->queue_len.n_bins, sizeof *r->bin_arrivals);
	r->bin_reclaims = fs_xcalloc(r->queue_len.n_bins, sizeof *r->bin_reclaims);
	r->bin_flops = fs_xcalloc(r->queue_len.n_bins, sizeof *r->bin_flops);
	r->bin_flops_cap = fs_xcalloc(r->queue_len.n_bins, sizeof *r->bin_flops_cap);
	r->bin_bytes = fs_xcalloc(r->queue_len.n_bins, sizeof *r->bin_bytes);
	r->bin_bytes_cap = fs_xcalloc(r->queue_len.n_bins, sizeof *r->bin_bytes_cap);
	r->pool_serving = fs_xcalloc(n_pools + 1, sizeof *r->pool_serving);
	r->bin_pool_output_tokens = fs_xcalloc(n_pools * r->queue_len.n_bins + 1,
	                                       sizeof *r->bin_pool_output_tokens);
	for (c = 0; c < n_pools; c++)
		fs_tseries_init(&r->pool_serving[c], sc->sim.sample_interval_ns,
		                sc->sim.horizon_ns);
	r->pool_desired = fs_xcalloc(n_pools + 1, sizeof *r->pool_desired);
	for (c = 0; c < n_pools; c++)
		fs_tseries_init(&r->pool_desired[c], sc->sim.sample_interval_ns,
		                sc->sim.horizon_ns);
	fs_hist_init(&r->itl_hist);
	fs_moments_init(&r->itl_moments);
	r->servers = servers;
	r->llm = n_pools > 0;
	r->fleet.n_pools = n_pools;
	r->fleet.pools = fs_xcalloc(n_pools, sizeof *r->fleet.pools);
	r->measured_ns = sc->sim.horizon_ns - sc->sim.warmup_ns;
	rec->result = r;
	rec->bin_fx = fs_xcalloc(2 * r->queue_len.n_bins, sizeof *rec->bin_fx);
	rec->pool_fx = fs_xcalloc(n_pools + 1, sizeof *rec->pool_fx);
	rec->n_pools = n_pools;
	rec->bin_pool_busy_ns = fs_xcalloc(n_pools * r->queue_len.n_bins + 1,
	                                   sizeof *rec->bin_pool_busy_ns);
	rec->pool_peak_flops = fs_xcalloc(n_pools + 1, sizeof *rec->pool_peak_flops);
	rec->pool_peak_bytes = fs_xcalloc(n_pools + 1, sizeof *rec->pool_peak_bytes);
	rec->kv_acc = fs_xcalloc(r->queue_len.n_bins, sizeof *rec->kv_acc);
	rec->itl_min = NAN;
	rec->itl_max = NAN;
	fs_hist_finder_init(&rec->buckets);
}

void fs__recorder_fini(struct fs_recorder *rec)
{
	fs_rep_result_free(rec->result);
	rec->result = NULL;
	free(rec->bin_fx);
	free(rec->pool_fx);
	free(rec->kv_acc);
	free(rec->bin_pool_busy_ns);
	free(rec->pool_peak_flops);
	free(rec->pool_peak_bytes);
	rec->bin_pool_busy_ns = NULL;
	rec->pool_peak_flops = rec->pool_peak_bytes = NULL;
	fs_hist_finder_fini(&rec->buckets);
	fs__recorder_rows_fini(rec);
	rec->bin_fx = NULL;
	rec->pool_fx = NULL;
	rec->kv_acc = NULL;
}

static void add_row(struct fs_recorder *rec, const struct fs_request *req,
                    bool completed, bool failed, fs_ns start_ns,
                    fs_ns first_token_ns, fs_ns end_ns, int64_t output_tokens)
{
	struct fs_request_row row;

	if (!rec->record_rows)
		return;
	memset(&row, 0, sizeof row);
	row.id = req->id;
	row.class_idx = req->class_idx;
	row.counted = counted(rec, req);
	row.completed = completed;
	row.failed = failed;
	row.arrival_ns = req->arrival_ns;
	row.start_ns = start_ns;
	row.first_token_ns = first_token_ns;
	row.end_ns = end_ns;
	row.prompt_tokens = req->prompt_tokens;
	row.output_tokens = output_tokens;
	row.session_id = req->session_id;
	row.turn = req->turn;
	fs__recorder_row_add(rec, &row);
}

static size_t bin_of(const struct fs_rep_result *r, fs_ns t_ns)
{
	size_t b = (size_t)(t_ns / r->queue_len.interval_ns);

	return b < r->queue_len.n_bins ? b : r->queue_len.n_bins - 1;
}

/* bin_of for the per-iteration calls, remembering the last bin's span (the
 * division is the costly part and nearly every call falls in that bin). */
size_t fs__recorder_bin_at(struct fs_recorder *rec, fs_ns t_ns)
{
	const struct fs_rep_result *r = rec->result;

	if (t_ns < rec->bin_lo_ns || t_ns >= rec->bin_hi_ns) {
		size_t b = bin_of(r, t_ns);

		rec->bin_idx = b;
		rec->bin_lo_ns = (fs_ns)b * r->queue_len.interval_ns;
		rec->bin_hi_ns = b + 1 < r->queue_len.n_bins ?
		                 rec->bin_lo_ns + r->queue_len.interval_ns : INT64_MAX;
	}
	return rec->bin_idx;
}

void fs__recorder_reclaim(struct fs_recorder *rec, fs_ns t_ns)
{
	if (t_ns < rec->sc->sim.horizon_ns)
		rec->result->bin_reclaims[bin_of(rec->result, t_ns)] += 1;
}

void fs__recorder_pool_serving(struct fs_recorder *rec, size_t pool, fs_ns t_ns, int serving)
{
	if (t_ns < rec->sc->sim.horizon_ns)
		fs_tseries_set(&rec->result->pool_serving[pool], t_ns, (double)serving);
}

void fs__recorder_pool_desired(struct fs_recorder *rec, size_t pool, fs_ns t_ns, int desired)
{
	rec->result->has_desired = true;
	if (t_ns < rec->sc->sim.horizon_ns)
		fs_tseries_set(&rec->result->pool_desired[pool], t_ns, (double)desired);
}

void fs__recorder_pool_tokens(struct fs_recorder *rec, size_t pool, fs_ns t_ns,
                              int64_t tokens)
{
	struct fs_rep_result *r = rec->result;

	r->fleet.pools[pool].output_tokens += (double)tokens;
	if (t_ns < rec->sc->sim.horizon_ns)
		r->bin_pool_output_tokens[pool * r->queue_len.n_bins +
		                          fs__recorder_bin_at(rec, t_ns)] +=
			(double)tokens;
}

void fs__recorder_arrival(struct fs_recorder *rec, const struct fs_request *req)
{
	if (req->arrival_ns < rec->sc->sim.horizon_ns)
		rec->result->bin_arrivals[bin_of(rec->result, req->arrival_ns)] += 1;
	if (counted(rec, req))
		rec->result->cls[req->class_idx].arrived++;
}

/* A latency (>= 0) into its histogram, bucketed without the logarithm. */
static void add_latency(struct fs_recorder *rec, struct fs_class_result *cr,
                        enum fs_latency k, double lat)
{
	fs_hist_add_n_at(&cr->lat_hist[k], fs_hist_finder_bucket(&rec->buckets, lat), lat, 1);
	fs_moments_add(&cr->lat_moments[k], lat);
}

/* MODEL: S2 — a request meets its SLO when every target it has is met;
 * TPOT = (e2e - ttft) / (output tokens - 1), as vLLM's benchmark defines it. */
static bool slo_met(const struct fs_slo_cfg *slo, int64_t output_tokens,
                    fs_ns ttft_ns, fs_ns e2e_ns)
{
	if (slo->ttft_ns > 0 && ttft_ns > slo->ttft_ns)
		return false;
	if (slo->e2e_ns > 0 && e2e_ns > slo->e2e_ns)
		return false;
	if (slo->tpot_ns > 0 && output_tokens > 1) {
		double tpot_ns = (double)(e2e_ns - ttft_ns) / (double)(output_tokens - 1);

		if (tpot_ns > (double)slo->tpot_ns)
			return false;
	}
	return true;
}

void fs__recorder_completion(struct fs_recorder *rec, const struct fs_request *req,
                             fs_ns start_ns, fs_ns first_token_ns, fs_ns end_ns,
                             int64_t output_tokens)
{
	struct fs_class_result *cr = &rec->result->cls[req->class_idx];
	const struct fs_class_cfg *cls = &rec->sc->workload.classes[req->class_idx];
	fs_ns ttft_ns = first_token_ns - req->arrival_ns;
	fs_ns e2e_ns = end_ns - req->arrival_ns;

	add_row(rec, req, true, false, start_ns, first_token_ns, end_ns, output_tokens);
	/* MODEL: S6, E5 — every completion inside [warm-up, horizon), whenever
	 * it arrived: the departures of the window, whose expected rate is the
	 * arrival rate of a stable system.  Counting only requests that arrived
	 * after the warm-up would miss those in the system at the warm-up and
	 * be short by the mean number in the system over the window's length. */
	if (end_ns >= rec->sc->sim.warmup_ns && end_ns < rec->sc->sim.horizon_ns) {
		cr->completed_in_window++;
		cr->output_tokens_in_window += output_tokens;
	}
	if (!counted(rec, req))
		return;
	cr->completed++;
	cr->output_tokens += output_tokens;
	add_latency(rec, cr, FS_LAT_QUEUE, (double)(start_ns - req->arrival_ns));
	add_latency(rec, cr, FS_LAT_TTFT, (double)ttft_ns);
	if (output_tokens > 1)            /* MODEL: S2 — TPOT as vLLM's benchmark defines it */
		add_latency(rec, cr, FS_LAT_TPOT,
		            (double)(e2e_ns - ttft_ns) / (double)(output_tokens - 1));
	add_latency(rec, cr, FS_LAT_E2E, (double)e2e_ns);
	if (slo_met(&cls->slo, output_tokens, ttft_ns, e2e_ns))
		cr->slo_met++;
}

void fs__recorder_failed(struct fs_recorder *rec, const struct fs_request *req,
                         fs_ns start_ns, fs_ns first_token_ns, fs_ns t_ns)
{
	(void)t_ns;
	add_row(rec, req, false, true, start_ns, first_token_ns, -1, req->output_tokens);
	if (counted(rec, req))
		rec->result->cls[req->class_idx].failed++;
}

void fs__recorder_in_flight(struct fs_recorder *rec, const struct fs_request *req,
                            fs_ns start_ns, fs_ns first_token_ns)
{
	add_row(rec, req, false, false, start_ns, first_token_ns, -1, req->output_tokens);
	if (counted(rec, req))
		rec->result->cls[req->class_idx].in_flight++;
}

void fs__recorder_levels(struct fs_recorder *rec, fs_ns t_ns, uint64_t waiting,
                         int busy)
{
	struct fs_tseries *q = &rec->result->queue_len, *b = &rec->result->busy;
	double limit = rec->level_limit;

	if (t_ns >= rec->sc->sim.horizon_ns)
		return;
	/* Both levels as before: nothing to account yet.  While every level is
	 * a whole number whose product with a bin's length is below 2^53, each
	 * bin's area is an exact sum, so one segment where there were two gives
	 * the same bits (the series are read only once the run ends). */
	rec->levels_small = rec->levels_small && (double)waiting < limit && (double)busy < limit &&
	                    busy >= 0;
	if (rec->levels_small && q->value == (double)waiting && b->value == (double)busy)
		return;
	fs_tseries_set(q, t_ns, (double)waiting);
	fs_tseries_set(b, t_ns, (double)busy);
}

/* The FLOPs (or bytes) the LLM pools' steps that began in bin c could have
 * done at their peaks: Σ over pools of busy seconds × peak (MODEL: S8). */
static double pool_capacity(const struct fs_recorder *rec, size_t c, const double *peak)
{
	size_t n_bins = rec->result->queue_len.n_bins, p;
	double sum = 0;

	for (p = 0; p < rec->n_pools; p++)
		sum += (double)rec->bin_pool_busy_ns[p * n_bins + c] * 1e-9 * peak[p];
	return sum;
}

struct fs_rep_result *fs__recorder_finish(struct fs_recorder *rec, fs_ns end_ns)
{
	struct fs_rep_result *r = rec->result;
	struct fs_class_result *all = &r->cls[r->n_classes];
	fs_ns close_ns = end_ns < rec->sc->sim.horizon_ns ? end_ns : rec->sc->sim.horizon_ns;
	size_t c;
	int k;

	fs_tseries_finish(&r->queue_len, close_ns);
	fs_tseries_finish(&r->busy, close_ns);
	fs_tseries_finish(&r->kv_used, close_ns);
	fs__recorder_kv_flush(rec);
	for (c = 0; c < r->queue_len.n_bins; c++) {
		r->bin_flops[c] = fx_value(rec->bin_fx[2 * c]);
		r->bin_flops_cap[c] = pool_capacity(rec, c, rec->pool_peak_flops);
		r->bin_bytes[c] = fx_value(rec->bin_fx[2 * c + 1]);
		r->bin_bytes_cap[c] = pool_capacity(rec, c, rec->pool_peak_bytes);
	}
	r->engine.flops = fx_value(rec->flops_fx);
	r->engine.bytes = fx_value(rec->bytes_fx);
	for (c = 0; c < r->fleet.n_pools; c++) {
		r->fleet.pools[c].flops = fx_value(rec->pool_fx[c].flops);
		r->fleet.pools[c].bytes = fx_value(rec->pool_fx[c].bytes);
		r->fleet.pools[c].kv_block_ns = fx_value(rec->pool_fx[c].kv_block_ns);
	}
	fs__recorder_itl_moments(rec, &r->itl_moments);
	for (c = 0; c < r->fleet.n_pools; c++)
		fs_tseries_finish(&r->pool_serving[c], close_ns);
	for (c = 0; c < r->fleet.n_pools; c++)
		fs_tseries_finish(&r->pool_desired[c], close_ns);
	r->end_ns = end_ns;
	/* MODEL: S3, S6 — a replication stopped early measured up to its stop. */
	if (close_ns < rec->sc->sim.horizon_ns)
		r->measured_ns = close_ns > rec->sc->sim.warmup_ns ?
		                 close_ns - rec->sc->sim.warmup_ns : 0;
	for (c = 0; c < r->n_classes; c++) {
		const struct fs_class_result *cr = &r->cls[c];

		for (k = 0; k < FS_LAT__COUNT; k++) {
			fs_hist_merge(&all->lat_hist[k], &cr->lat_hist[k]);
			fs_moments_merge(&all->lat_moments[k], &cr->lat_moments[k]);
		}
		all->arrived += cr->arrived;
		all->completed += cr->completed;
		all->in_flight += cr->in_flight;
		all->failed += cr->failed;
		all->slo_met += cr->slo_met;
		all->output_tokens += cr->output_tokens;
		all->completed_in_window += cr->completed_in_window;
		all->output_tokens_in_window += cr->output_tokens_in_window;
	}
	fs__recorder_rows_finish(rec);
	rec->result = NULL;
	return r;
}

void fs_rep_result_free(struct fs_rep_result *r)
{
	size_t c;
	int k;

	if (r == NULL)
		return;
	for (c = 0; c <= r->n_classes; c++)
		for (k = 0; k < FS_LAT__COUNT; k++)
			fs_hist_fini(&r->cls[c].lat_hist[k]);
	free(r->cls);
	fs_tseries_fini(&r->queue_len);
	fs_tseries_fini(&r->busy);
	fs_tseries_fini(&r->kv_used);
	free(r->bin_arrivals);
	free(r->bin_reclaims);
	free(r->bin_flops);
	free(r->bin_flops_cap);
	free(r->bin_bytes);
	free(r->bin_bytes_cap);
	for (c = 0; c < r->fleet.n_pools; c++)
		fs_tseries_fini(&r->pool_serving[c]);
	free(r->pool_serving);
	for (c = 0; r->pool_desired != NULL && c < r->fleet.n_pools; c++)
		fs_tseries_fini(&r->pool_desired[c]);
	free(r->pool_desired);
	free(r->bin_pool_output_tokens);
	fs_hist_fini(&r->itl_hist);
	for (c = 0; c < r->fleet.n_pools; c++)
		free(r->fleet.pools[c].level_ns);
	free(r->fleet.pools);
	free(r->rows);
	fs__row_spool_close(r->row_spool);
	free(r);
}
