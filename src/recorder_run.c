/*
 * recorder_run.c — recording a fast-path run of LLM decode iterations at
 * once (MODEL: V24): what fs__recorder_llm_step and fs__recorder_itl do
 * for each iteration, with the exact sums gathered in locals and added to
 * the recorder once per time bin and once per call.  Every sum is exact
 * (integers, or fixed point per term), so the grouping gives the same bits
 * as the one-by-one path.  FLOPs and bytes linear in the iteration are
 * summed in closed form (arithmetic series) per segment; the busy-time
 * doubles get the run's integer total at once where every partial sum is
 * an exact integer (the same bits as adding per iteration), else per
 * iteration in order.
 */
#include "recorder.h"
#include "recorder_sums.h"

#include <string.h>

/* An exact fixed-point sum kept as 64-bit words: terms below 2^63 (all but
 * astronomically large ones) go to `lo` with a count of its wrap-arounds,
 * the rest straight to `big` — the same value as adding fs__rec_fx of each
 * term to an fs__i128, without 128-bit arithmetic per term. */
struct fx_acc {
	uint64_t lo, wraps;
	fs__i128 big;
};

static inline void fx_add(struct fx_acc *a, double x)
{
	double y = x * FS__FX_ONE;

	if (y < 9.2e18) {
		if (__builtin_add_overflow(a->lo, (uint64_t)(int64_t)y, &a->lo))
			a->wraps++;
	} else {
		a->big += fs__rec_fx(x);
	}
}

static fs__i128 fx_value(const struct fx_acc *a)
{
	return ((fs__i128)a->wraps << 64) + (fs__i128)a->lo + a->big;
}

/* The sums of consecutive iterations that began in one time bin on the same
 * side of the warm-up: added to the pool, the bin and the engine totals
 * when the bin or the side changes. */
struct seg {
	size_t bin;                  /* SIZE_MAX: past the horizon */
	bool warm;                   /* began at or after the warm-up (MODEL: S1) */
	int64_t steps;
	size_t i0;                   /* its first iteration in the call */
	struct fx_acc flops, bytes, kv_block_ns;
	int64_t busy_ns;             /* Σ step ns: the capacity terms (MODEL: S8) */
	struct fx_acc kv_int;        /* Σ blocks·ns of the exact integer terms */
};

/* Σ (a + b·i) over i = i0 .. i0 + m - 1, in FS__FX_ONE units: the fixed
 * point of each term, an integer below 2^53, is the term times 2^8. */
static fs__i128 series_fx(int64_t a, int64_t b, size_t i0, int64_t m)
{
	fs__i128 sum_i = (fs__i128)m * (fs__i128)i0 + (fs__i128)m * (m - 1) / 2;

	return ((fs__i128)a * m + (fs__i128)b * sum_i) * 256;
}

/* Work of `steps` iterations of n_seqs sequences that began in time bin
 * `bin` (SIZE_MAX: past the horizon), on the warm side or not, with their
 * exact sums: added to the pool, the bin and the engine totals. */
static void add_work(struct fs_recorder *rec, size_t pool, int64_t n_seqs, size_t bin,
                     bool warm, int64_t steps, fs__i128 flops, fs__i128 bytes,
                     fs__i128 kv_block_ns, int64_t busy_ns)
{
	struct fs_rep_result *r = rec->result;
	struct fs_engine_totals *t = &r->engine;
	struct fs__rec_pool_fx *p = &rec->pool_fx[pool];

	p->flops += flops;
	p->bytes += bytes;
	p->kv_block_ns += kv_block_ns;
	/* MODEL: S17 — output tokens sampled, for capacity utilisation */
	r->fleet.pools[pool].output_tokens += (double)(n_seqs * steps);
	if (bin != SIZE_MAX) {
		fs__i128 *fx = &rec->bin_fx[2 * bin];

		fx[0] += flops;
		fx[1] += bytes;
		rec->bin_pool_busy_ns[pool * r->queue_len.n_bins + bin] += busy_ns;
		r->bin_pool_output_tokens[pool * r->queue_len.n_bins + bin] +=
			(double)(n_seqs * steps);
	}
	if (warm) {
		t->steps += (uint64_t)steps;
		t->sum_batch_seqs += n_seqs * steps;
		t->tokens_generated += n_seqs * steps;
		rec->flops_fx += flops;
		rec->bytes_fx += bytes;
	}
}

/* A segment's work added (add_work), the segment emptied. */
static void seg_flush(struct fs_recorder *rec, size_t pool, int64_t n_seqs,
                      const struct fs__rec_run_lin *lin, struct seg *g)
{
	fs__i128 flops, bytes;

	if (g->steps == 0)
		return;
	if (lin != NULL) {
		flops = series_fx(lin->flops0, lin->flops_step, g->i0, g->steps);
		bytes = series_fx(lin->bytes0, lin->bytes_step, g->i0, g->steps);
	} else {
		flops = fx_value(&g->flops);
		bytes = fx_value(&g->bytes);
	}
	add_work(rec, pool, n_seqs, g->bin, g->warm, g->steps, flops, bytes,
	         fx_value(&g->kv_block_ns) + fx_value(&g->kv_int) * 256, g->busy_ns);
	memset(g, 0, sizeof *g);
}

/* The ITL figures of k <= 1024 iterations that all begin in one bin
 * after the warm-up and end with an ITL gap of count requests, each
 * 0 < dur_ns[i] < 2^31 with 0 <= kv_blocks[i] < 2^22, from their sums:
 * Σ d², the gaps' extremes, and the histogram — one bucket for all of them
 * where the least and the largest share it, else bucket by bucket (their
 * work and KV block·ns go to add_work at once). */
static void group_run(struct fs_recorder *rec, size_t k, const fs_ns *dur_ns,
                      const struct fs__run_sums *sum, uint64_t count,
                      struct fs__hist_hint *hint, struct fx_acc *s2, fs_ns *itl_lo,
                      fs_ns *itl_hi)
{
	struct fs_hist *h = &rec->result->itl_hist;
	size_t i, nb;

	s2->big += sum->d2;
	*itl_lo = sum->lo < *itl_lo ? sum->lo : *itl_lo;
	*itl_hi = sum->hi > *itl_hi ? sum->hi : *itl_hi;
	nb = fs__recorder_itl_bucket(rec, (double)sum->lo, hint);
	if ((double)sum->hi < hint->hi) {
		h->buckets[nb] += count * (uint64_t)k;
		return;
	}
	for (i = 0; i < k; i++) {
		double dur = (double)dur_ns[i];

		nb = dur >= hint->lo && dur < hint->hi ? hint->bucket :
		     fs__recorder_itl_bucket(rec, dur, hint);
		h->buckets[nb] += count;
	}
}

/* acc + Σ dur_ns[from .. to) with the bits of adding them one by one in
 * order: at once where acc is a whole number and every partial sum stays at
 * most 2^53 (then each addition is exact), else one by one.  `sum` is the
 * integer total. */
static double add_durs(double acc, const fs_ns *dur_ns, size_t from, size_t to, int64_t sum)
{
	size_t i;

	if (acc >= 0 && acc <= 0x1p53 && acc == (double)(int64_t)acc &&
	    (int64_t)acc + sum <= ((int64_t)1 << 53))
		return acc + (double)sum;
	for (i = from; i < to; i++)
		acc += (double)dur_ns[i];
	return acc;
}

fs_ns fs__recorder_llm_run(struct fs_recorder *rec, size_t pool, fs_ns begin_ns, size_t k,
                           const fs_ns *dur_ns, const double *flops, const double *bytes,
                           const struct fs__rec_run_lin *lin,
                           const int64_t *kv_blocks, int64_t n_seqs,
                           double peak_flops_per_s, double peak_bytes_per_s,
                           struct fs__hist_hint *hint, double *busy_ns,
                           struct fs__rec_kv_area *area)
{
	struct fs_rep_result *r = rec->result;
	struct fs_pool_result *pr = &r->fleet.pools[pool];
	struct fs_hist *h = &r->itl_hist;
	fs_ns horizon_ns = rec->sc->sim.horizon_ns, warmup_ns = rec->sc->sim.warmup_ns;
	fs_ns t_ns = begin_ns, bin_lo = rec->bin_lo_ns, bin_hi = rec->bin_hi_ns;
	size_t bin = rec->bin_idx, hb = 0, i, warm_from = k;
	double h_min = h->min, h_max = h->max, i_min = rec->itl_min, i_max = rec->itl_max;
	uint64_t count = (uint64_t)n_seqs, itl_steps = 0, h_count = 0;
	int64_t s1 = 0, dur_sum = 0, warm_sum = 0;
	fs_ns itl_lo = INT64_MAX, itl_hi = 0;   /* the ITL gaps' least and largest */
	struct fx_acc s2 = { 0, 0, 0 };      /* Σ d² in ns² (d < 2^31: one word) */
	struct seg g;

	area->ok = false;
	rec->pool_peak_flops[pool] = peak_flops_per_s;       /* MODEL: S8 */
	rec->pool_peak_bytes[pool] = peak_bytes_per_s;

	if (lin != NULL && count > 0 && k > 0 && begin_ns >= warmup_ns && begin_ns < horizon_ns) {
		/* the usual call: every iteration begins in one bin, after the
		 * warm-up, and ends with an ITL gap: grouped by equal durations */
		struct fs__run_sums sum;
		fs_ns last_begin;

		fs__rec_sum_run(k, dur_ns, kv_blocks, rec->wide, &sum);
		dur_sum = sum.dur;
		last_begin = begin_ns + dur_sum - dur_ns[k - 1];
		bin = fs__recorder_bin_at(rec, begin_ns);
		if (last_begin < rec->bin_hi_ns && last_begin < horizon_ns && sum.or_d > 0 &&
		    k <= 1024 && sum.or_d < ((fs_ns)1 << 31) && sum.or_kv >= 0 &&
		    sum.or_kv < ((int64_t)1 << 22)) {
			group_run(rec, k, dur_ns, &sum, count, hint, &s2, &itl_lo, &itl_hi);
			area->ok = true;
			area->block_ns = sum.kv_d;
			area->first_blocks = kv_blocks[0];
			area->dur_ns = dur_sum;
			add_work(rec, pool, n_seqs, bin, true, (int64_t)k,
			         series_fx(lin->flops0, lin->flops_step, 0, (int64_t)k),
			         series_fx(lin->bytes0, lin->bytes_step, 0, (int64_t)k),
			         (fs__i128)sum.kv_d * 256, dur_sum);
			itl_steps = k;
			s1 = dur_sum;
			warm_sum = dur_sum;
			warm_from = 0;
			t_ns = begin_ns + dur_sum;
			k = 0;                     /* the loop below has nothing left */
		} else {
			dur_sum = 0;
			bin_lo = rec->bin_lo_ns;
			bin_hi = rec->bin_hi_ns;
		}
	}
	if (k > 0)                         /* iteration by iteration */
		g = (struct seg){ .bin = SIZE_MAX };
	for (i = 0; i < k; i++) {
		fs_ns d = dur_ns[i], end_ns = t_ns + d;
		double dur = (double)d;
		size_t b = SIZE_MAX;
		bool warm = t_ns >= warmup_ns;
		int64_t kv = kv_blocks[i];

		if (t_ns < horizon_ns) {
			if (t_ns < bin_lo || t_ns >= bin_hi) {
				bin = fs__recorder_bin_at(rec, t_ns);
				bin_lo = rec->bin_lo_ns;
				bin_hi = rec->bin_hi_ns;
			}
			b = bin;
		}
		if (b != g.bin || warm != g.warm) {
			seg_flush(rec, pool, n_seqs, lin, &g);
			g.bin = b;
			g.warm = warm;
			g.i0 = i;
		}
		g.steps++;
		if (lin == NULL) {
			fx_add(&g.flops, flops[i]);
			fx_add(&g.bytes, bytes[i]);
		}
		/* (double)kv · dur is the exact integer kv·d below 2^53; its
		 * fixed point is kv·d·2^8 */
		if (kv >= 0 && kv < ((int64_t)1 << 22) && d < ((fs_ns)1 << 31)) {
			if (__builtin_add_overflow(g.kv_int.lo, (uint64_t)kv * (uint64_t)d,
			                           &g.kv_int.lo))
				g.kv_int.wraps++;
		} else {
			fx_add(&g.kv_block_ns, (double)kv * dur);
		}
		if (b != SIZE_MAX)
			g.busy_ns += d;
		dur_sum += d;
		if (warm) {
			if (warm_from == k)
				warm_from = i;
			warm_sum += d;
		}
		if (end_ns >= warmup_ns && count > 0) {           /* the ITL, at the end */
			/* d >= 1: a positive gap, bucketed through the hint */
			size_t nb = dur >= hint->lo && dur < hint->hi ? hint->bucket :
			            fs__recorder_itl_bucket(rec, dur, hint);

			if (nb != hb) {
				if (h_count > 0)
					h->buckets[hb] += h_count;
				h_count = 0;
				hb = nb;
			}
			h_count += count;
			itl_lo = d < itl_lo ? d : itl_lo;
			itl_hi = d > itl_hi ? d : itl_hi;
			itl_steps++;
			s1 += d;
			if (d < ((fs_ns)1 << 31)) {
				uint64_t dd = (uint64_t)d * (uint64_t)d;

				if (__builtin_add_overflow(s2.lo, dd, &s2.lo))
					s2.wraps++;
			} else {
				s2.big += (fs__i128)d * (fs__i128)d;
			}
		}
		t_ns = end_ns;
	}
	if (k > 0)
		seg_flush(rec, pool, n_seqs, lin, &g);
	if (h_count > 0)
		h->buckets[hb] += h_count;
	/* the gaps' extremes, as comparing each gap in turn would find them
	 * (whole numbers below 2^53 order as their doubles) */
	if (itl_steps > 0) {
		double lo = (double)itl_lo, hi = (double)itl_hi;

		if (!(lo >= h_min))
			h_min = lo;
		if (!(hi <= h_max))
			h_max = hi;
		if (!(lo >= i_min))
			i_min = lo;
		if (!(hi <= i_max))
			i_max = hi;
	}
	/* the busy times: doubles, with the bits of adding in order (warm
	 * iterations are a suffix: their begins only grow) */
	*busy_ns = add_durs(*busy_ns, dur_ns, 0, k, dur_sum);
	pr->busy_ns = add_durs(pr->busy_ns, dur_ns, 0, k, dur_sum);
	r->engine.busy_ns = add_durs(r->engine.busy_ns, dur_ns, warm_from, k, warm_sum);
	h->min = h_min;
	h->max = h_max;
	h->n += itl_steps * count;
	rec->itl_min = i_min;
	rec->itl_max = i_max;
	rec->itl_n += itl_steps * count;
	rec->itl_s1 += (fs__i128)s1 * (fs__i128)count;
	rec->itl_s2 += fx_value(&s2) * (fs__i128)count;
	return t_ns - begin_ns;
}
