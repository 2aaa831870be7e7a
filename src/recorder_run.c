/*
 * recorder_run.c — recording a fast-path run of LLM decode iterations at
 * once (MODEL: V24): what fs__recorder_llm_step and fs__recorder_itl do
 * for each iteration, with the exact sums gathered in locals and added to
 * the recorder once per time bin and once per call.  Every sum is exact
 * (integers, or fixed point per term), so the grouping gives the same bits
 * as the one-by-one path; the doubles that are not exact sums (busy times)
 * are added per iteration in the same order.
 */
#include "recorder.h"

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
	struct fx_acc flops, bytes, kv_block_ns, flops_cap, bytes_cap;
};

static void seg_flush(struct fs_recorder *rec, size_t pool, int64_t n_seqs, struct seg *g)
{
	struct fs_rep_result *r = rec->result;
	struct fs_engine_totals *t = &r->engine;
	struct fs__rec_pool_fx *p = &rec->pool_fx[pool];
	fs__i128 flops, bytes;

	if (g->steps == 0)
		return;
	flops = fx_value(&g->flops);
	bytes = fx_value(&g->bytes);
	p->flops += flops;
	p->bytes += bytes;
	p->kv_block_ns += fx_value(&g->kv_block_ns);
	/* MODEL: S17 — output tokens sampled, for capacity utilisation */
	r->fleet.pools[pool].output_tokens += (double)(n_seqs * g->steps);
	if (g->bin != SIZE_MAX) {
		fs__i128 *fx = &rec->bin_fx[4 * g->bin];

		fx[0] += flops;
		fx[1] += fx_value(&g->flops_cap);
		fx[2] += bytes;
		fx[3] += fx_value(&g->bytes_cap);
		r->bin_pool_output_tokens[pool * r->queue_len.n_bins + g->bin] +=
			(double)(n_seqs * g->steps);
	}
	if (g->warm) {
		t->steps += (uint64_t)g->steps;
		t->sum_batch_seqs += n_seqs * g->steps;
		t->tokens_generated += n_seqs * g->steps;
		rec->flops_fx += flops;
		rec->bytes_fx += bytes;
	}
	memset(g, 0, sizeof *g);
}

fs_ns fs__recorder_llm_run(struct fs_recorder *rec, size_t pool, fs_ns begin_ns, size_t k,
                           const fs_ns *dur_ns, const double *flops, const double *bytes,
                           const int64_t *kv_blocks, int64_t n_seqs,
                           double peak_flops_per_s, double peak_bytes_per_s,
                           struct fs__hist_hint *hint, double *busy_ns)
{
	struct fs_rep_result *r = rec->result;
	struct fs_pool_result *pr = &r->fleet.pools[pool];
	struct fs_hist *h = &r->itl_hist;
	fs_ns horizon_ns = rec->sc->sim.horizon_ns, warmup_ns = rec->sc->sim.warmup_ns;
	fs_ns t_ns = begin_ns, bin_lo = rec->bin_lo_ns, bin_hi = rec->bin_hi_ns;
	size_t bin = rec->bin_idx, hb = 0, i;
	/* the busy times are doubles added one iteration at a time, in order */
	double inst_busy = *busy_ns, pool_busy = pr->busy_ns, eng_busy = r->engine.busy_ns;
	double h_min = h->min, h_max = h->max, i_min = rec->itl_min, i_max = rec->itl_max;
	uint64_t count = (uint64_t)n_seqs, itl_steps = 0, h_count = 0;
	int64_t s1 = 0;
	struct fx_acc s2 = { 0, 0, 0 };      /* Σ d² in ns² (d < 2^31: one word) */
	struct seg g = { .bin = SIZE_MAX };

	for (i = 0; i < k; i++) {
		fs_ns d = dur_ns[i], end_ns = t_ns + d;
		double dur = (double)d;
		size_t b = SIZE_MAX;
		bool warm = t_ns >= warmup_ns;

		if (t_ns < horizon_ns) {
			if (t_ns < bin_lo || t_ns >= bin_hi) {
				bin = fs__recorder_bin_at(rec, t_ns);
				bin_lo = rec->bin_lo_ns;
				bin_hi = rec->bin_hi_ns;
			}
			b = bin;
		}
		if (b != g.bin || warm != g.warm) {
			seg_flush(rec, pool, n_seqs, &g);
			g.bin = b;
			g.warm = warm;
		}
		g.steps++;
		fx_add(&g.flops, flops[i]);
		fx_add(&g.bytes, bytes[i]);
		fx_add(&g.kv_block_ns, (double)kv_blocks[i] * dur);
		if (b != SIZE_MAX) {
			double dur_s = dur * 1e-9;

			fx_add(&g.flops_cap, dur_s * peak_flops_per_s);
			fx_add(&g.bytes_cap, dur_s * peak_bytes_per_s);
		}
		inst_busy += dur;
		pool_busy += dur;
		if (warm)
			eng_busy += dur;
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
			if (!(dur >= h_min))
				h_min = dur;
			if (!(dur <= h_max))
				h_max = dur;
			if (!(dur >= i_min))
				i_min = dur;
			if (!(dur <= i_max))
				i_max = dur;
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
	seg_flush(rec, pool, n_seqs, &g);
	if (h_count > 0)
		h->buckets[hb] += h_count;
	*busy_ns = inst_busy;
	pr->busy_ns = pool_busy;
	r->engine.busy_ns = eng_busy;
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
