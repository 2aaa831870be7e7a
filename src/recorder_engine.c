/*
 * recorder_engine.c — the engine's figures of one replication (see
 * recorder.h): inter-token gaps (histogram and exact moment sums), each
 * iteration's work and busy time (per time bin, per pool and after warm-up
 * in total), prefix-cache lookups, and the KV-use series as block·ns sums
 * per bin divided by the KV total when it changes (MODEL: M3).  Sums over
 * iterations are exact (fs__i128), so the order in which instances'
 * iterations are recorded does not matter (MODEL: V24).
 */
#include "recorder.h"

#include <math.h>

/* fs_hist_bucket_of(gap) for gap > 0: the hint's range (a run's step
 * times change slowly), else the bucket finder (no logarithm either; a
 * prefill's step time lands anywhere, and walking the bucket edges from
 * the hint's bucket first cost more than it found). */
size_t fs__recorder_itl_bucket(struct fs_recorder *rec, double gap,
                               struct fs__hist_hint *hint)
{
	size_t b;

	if (gap >= hint->lo && gap < hint->hi)
		return hint->bucket;
	b = fs_hist_finder_bucket(&rec->buckets, gap);
	hint->bucket = b;
	hint->lo = fs_hist_finder_floor(&rec->buckets, b);
	hint->hi = fs_hist_finder_floor(&rec->buckets, b + 1);
	return b;
}

void fs__recorder_itl(struct fs_recorder *rec, fs_ns t_ns, fs_ns gap_ns,
                      uint64_t count, struct fs__hist_hint *hint)
{
	double gap = (double)gap_ns;

	if (count == 0 || t_ns < rec->sc->sim.warmup_ns)
		return;
	if (hint != NULL && gap > 0)
		fs_hist_add_n_at(&rec->result->itl_hist, fs__recorder_itl_bucket(rec, gap, hint),
		                 gap, count);
	else
		fs_hist_add_n(&rec->result->itl_hist, gap, count);
	/* exact sums, made into moments at the end (order-free) */
	rec->itl_n += count;
	rec->itl_s1 += (fs__i128)gap_ns * (fs__i128)count;
	rec->itl_s2 += (fs__i128)gap_ns * (fs__i128)gap_ns * (fs__i128)count;
	if (!(gap >= rec->itl_min))
		rec->itl_min = gap;
	if (!(gap <= rec->itl_max))
		rec->itl_max = gap;
}

/* The ITL moments from the exact sums: with S1 = qN + r, the mean is
 * q + r/N and m2 = S2 - S1²/N = (S2 - q²N - 2qr) - r²/N. */
void fs__recorder_itl_moments(const struct fs_recorder *rec, struct fs_moments *m)
{
	fs__i128 n = (fs__i128)rec->itl_n, q, r, a;
	double m2;

	fs_moments_init(m);
	if (rec->itl_n == 0)
		return;
	q = rec->itl_s1 / n;
	r = rec->itl_s1 % n;
	a = rec->itl_s2 - q * q * n - 2 * q * r;
	m2 = (double)a - (double)r * ((double)r / (double)n);
	m->n = rec->itl_n;
	m->mean = (double)q + (double)r / (double)n;
	m->m2 = m2 > 0 ? m2 : 0;
	m->min = rec->itl_min;
	m->max = rec->itl_max;
}

void fs__recorder_llm_step(struct fs_recorder *rec, size_t pool, fs_ns begin_ns,
                           fs_ns end_ns, int64_t batch_seqs, int64_t prefill_tokens,
                           int64_t tokens_generated, uint64_t preemptions,
                           double flops, double bytes, double peak_flops_per_s,
                           double peak_bytes_per_s, double kv_block_ns)
{
	struct fs_engine_totals *t = &rec->result->engine;
	fs__i128 flops_fx = fs__rec_fx(flops), bytes_fx = fs__rec_fx(bytes);
	struct fs_rep_result *r = rec->result;
	struct fs__rec_pool_fx *p = &rec->pool_fx[pool];
	size_t b = begin_ns < rec->sc->sim.horizon_ns ? fs__recorder_bin_at(rec, begin_ns)
	                                               : SIZE_MAX;

	p->flops += flops_fx;
	p->bytes += bytes_fx;
	p->kv_block_ns += fs__rec_fx(kv_block_ns);
	/* MODEL: S17 — work for capacity utilisation: output tokens sampled
	 * (fs__recorder_pool_tokens) */
	r->fleet.pools[pool].output_tokens += (double)tokens_generated;
	rec->pool_peak_flops[pool] = peak_flops_per_s;           /* MODEL: S8 */
	rec->pool_peak_bytes[pool] = peak_bytes_per_s;
	if (b != SIZE_MAX) {
		size_t pb = pool * r->queue_len.n_bins + b;

		r->bin_pool_output_tokens[pb] += (double)tokens_generated;
		rec->bin_fx[2 * b] += flops_fx;
		rec->bin_fx[2 * b + 1] += bytes_fx;
		rec->bin_pool_busy_ns[pb] += end_ns - begin_ns;     /* capacity (S8) */
	}

	/* MODEL: S1 — engine figures cover steps that begin after warm-up. */
	if (begin_ns < rec->sc->sim.warmup_ns)
		return;
	t->steps++;
	t->preemptions += preemptions;
	t->sum_batch_seqs += batch_seqs;
	t->prefill_tokens += prefill_tokens;
	t->tokens_generated += tokens_generated;
	t->busy_ns += (double)(end_ns - begin_ns);
	rec->flops_fx += flops_fx;
	rec->bytes_fx += bytes_fx;
}

void fs__recorder_prefix(struct fs_recorder *rec, fs_ns begin_ns,
                         const struct fs_llm_prefix_counts *pc)
{
	struct fs_engine_totals *t = &rec->result->engine;

	if (begin_ns < rec->sc->sim.warmup_ns)                 /* MODEL: S1 */
		return;
	t->prefix_query_tokens += pc->query_tokens;
	t->prefix_hit_tokens += pc->hit_tokens;
	t->prefix_query_blocks += pc->query_blocks;
	t->prefix_hit_blocks += pc->hit_blocks;
	t->prefix_saved_tokens += pc->saved_tokens;
}

/* Add `area` block·ns to bin b of the KV-use sums (MODEL: M3). */
static void kv_add(struct fs_recorder *rec, size_t b, fs__i128 area)
{
	rec->kv_acc[b] += area;
	if (!rec->kv_touched || b < rec->kv_bin_lo)
		rec->kv_bin_lo = b;
	if (!rec->kv_touched || b > rec->kv_bin_hi)
		rec->kv_bin_hi = b;
	rec->kv_touched = true;
}

void fs__recorder_kv_span(struct fs_recorder *rec, fs_ns from_ns, fs_ns to_ns,
                          int64_t blocks)
{
	const struct fs_tseries *ts = &rec->result->kv_used;
	fs_ns to = to_ns < ts->horizon_ns ? to_ns : ts->horizon_ns;

	if (blocks == 0 || from_ns >= to)
		return;
	while (from_ns < to) {                                  /* MODEL: M3 */
		size_t b = (size_t)(from_ns / ts->interval_ns);
		fs_ns grid_end = ts->interval_ns * (fs_ns)(b + 1);
		fs_ns seg_end = to < grid_end ? to : grid_end;

		rec->kv_acc[b] += (fs__i128)blocks * (fs__i128)(seg_end - from_ns);
		if (!rec->kv_touched || b < rec->kv_bin_lo)
			rec->kv_bin_lo = b;
		if (!rec->kv_touched || b > rec->kv_bin_hi)
			rec->kv_bin_hi = b;
		rec->kv_touched = true;
		from_ns = seg_end;
	}
}

/* The KV-use bin of t_ns and its span [lo, hi) cut at the horizon; past
 * the horizon an empty span (no span fits in it). */
static void kv_bin_bounds(const struct fs_tseries *ts, fs_ns t_ns, size_t *b, fs_ns *lo_ns,
                          fs_ns *hi_ns)
{
	if (t_ns >= ts->horizon_ns) {
		*b = 0;
		*lo_ns = INT64_MAX;
		*hi_ns = INT64_MIN;
		return;
	}
	*b = (size_t)(t_ns / ts->interval_ns);
	*lo_ns = ts->interval_ns * (fs_ns)*b;
	*hi_ns = ts->horizon_ns - *lo_ns > ts->interval_ns ? *lo_ns + ts->interval_ns
	                                                   : ts->horizon_ns;
}

/* fs__recorder_kv_steps where the run's pass summed its block·ns (`a`):
 * the level after the last change held from that change on, so the area up
 * to the change is the run's minus the steps after it, found from the end.
 * Returns false (nothing done) where the usual pass's conditions fail. */
static bool kv_steps_from_area(struct fs_recorder *rec, fs_ns *since_ns, int64_t *blocks,
                               fs_ns t_ns, const fs_ns *dur_ns, const int64_t *kv, size_t k,
                               const struct fs__rec_kv_area *a, size_t b, fs_ns lo_ns,
                               fs_ns hi_ns)
{
	fs_ns since = *since_ns, t_end = t_ns + a->dur_ns, tail_ns = 0;
	int64_t cur = *blocks, last;
	size_t m = k;

	if (!a->ok || k == 0 || a->first_blocks != cur || !(since >= lo_ns && since <= t_ns) ||
	    t_end > hi_ns)
		return false;
	last = kv[k - 1];
	if (!(last >= 0 && last < ((int64_t)1 << 22)))
		return false;
	while (m > 0 && kv[m - 1] == (m >= 2 ? kv[m - 2] : cur)) {
		tail_ns += dur_ns[m - 1];
		m--;
	}
	if (m > 0) {                                      /* a change: MODEL M3 */
		fs__i128 area = (fs__i128)cur * (fs__i128)(t_ns - since) +
		                (fs__i128)(a->block_ns - (uint64_t)last * (uint64_t)tail_ns);

		if (area != 0)
			kv_add(rec, b, area);
		*since_ns = t_end - tail_ns;
		*blocks = last;
	}
	return true;
}

void fs__recorder_kv_steps(struct fs_recorder *rec, fs_ns *since_ns, int64_t *blocks,
                           fs_ns t_ns, const fs_ns *dur_ns, const int64_t *kv, size_t k,
                           const struct fs__rec_kv_area *a)
{
	const struct fs_tseries *ts = &rec->result->kv_used;
	fs_ns since = *since_ns, lo_ns, hi_ns;
	int64_t cur = *blocks;
	fs__i128 area = 0;                  /* block·ns in bin b since the last flush */
	size_t b, i;

	kv_bin_bounds(ts, since, &b, &lo_ns, &hi_ns);
	if (a != NULL &&
	    kv_steps_from_area(rec, since_ns, blocks, t_ns, dur_ns, kv, k, a, b, lo_ns, hi_ns))
		return;
	if (since >= lo_ns && since <= t_ns && cur >= 0 && cur < ((int64_t)1 << 22) &&
	    k <= 512) {
		/* the usual call, in one pass without branches: the level of each
		 * step times its time, summed up to the step whose end last
		 * changes it; used where every change falls inside the bin and
		 * every product is a whole number below 2^53 (so the sum fits a
		 * word) */
		int64_t prev = cur, or_kv = cur;
		uint64_t sum = 0, sum_at = 0;    /* wraps only where the check fails */
		fs_ns t = t_ns, t_at = since, or_d = 0;

		for (i = 0; i < k; i++) {
			bool change = kv[i] != prev;

			sum += (uint64_t)prev * (uint64_t)dur_ns[i];
			t += dur_ns[i];
			sum_at = change ? sum : sum_at;
			t_at = change ? t : t_at;
			or_kv |= kv[i];
			or_d |= dur_ns[i];
			prev = kv[i];
		}
		if (t <= hi_ns && or_kv >= 0 && or_kv < ((int64_t)1 << 22) && or_d >= 0 &&
		    or_d < ((fs_ns)1 << 31)) {
			if (t_at != since) {               /* a change: MODEL M3 */
				area = (fs__i128)cur * (fs__i128)(t_ns - since) + (fs__i128)sum_at;
				if (area != 0)
					kv_add(rec, b, area);
				*since_ns = t_at;
				*blocks = prev;
			}
			return;
		}
	}
	for (i = 0; i < k; i++) {
		t_ns += dur_ns[i];
		if (kv[i] == cur)
			continue;
		if (t_ns > since) {
			if (since >= lo_ns && t_ns <= hi_ns) {       /* MODEL: M3 */
				area += (fs__i128)cur * (fs__i128)(t_ns - since);
			} else {
				fs__recorder_kv_span(rec, since, t_ns, cur);
				/* the spans after it start in the bin of t_ns */
				if (area != 0)
					kv_add(rec, b, area);
				area = 0;
				kv_bin_bounds(ts, t_ns, &b, &lo_ns, &hi_ns);
			}
			since = t_ns;
		}
		cur = kv[i];
	}
	if (area != 0)
		kv_add(rec, b, area);
	*since_ns = since;
	*blocks = cur;
}

/* Move the block·ns sums of the span that ends into the series' areas. */
void fs__recorder_kv_flush(struct fs_recorder *rec)
{
	struct fs_tseries *ts = &rec->result->kv_used;
	size_t b;

	if (!rec->kv_touched)
		return;
	for (b = rec->kv_bin_lo; b <= rec->kv_bin_hi; b++) {
		if (rec->kv_acc[b] != 0 && rec->kv_total > 0)
			ts->area[b] += (double)rec->kv_acc[b] / (double)rec->kv_total;
		rec->kv_acc[b] = 0;
	}
	rec->kv_touched = false;
}

bool fs__recorder_kv_total_changes(const struct fs_recorder *rec, int64_t total)
{
	return total != rec->kv_total;
}

void fs__recorder_kv_total(struct fs_recorder *rec, fs_ns t_ns, int64_t total)
{
	(void)t_ns;
	if (total == rec->kv_total)
		return;
	fs__recorder_kv_flush(rec);
	rec->kv_total = total;
}
