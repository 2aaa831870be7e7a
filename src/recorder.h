/*
 * recorder.h — internal: turns one world's request lifecycle into a
 * struct fs_rep_result (histograms, counts, SLO attainment, time series,
 * engine totals, optional per-request rows).  Owned by the world; the result
 * it builds is handed over by fs__recorder_finish.
 */
#ifndef FLEETSIM_RECORDER_H
#define FLEETSIM_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fleetsim/llm_engine.h"
#include "fleetsim/result.h"
#include "fleetsim/scenario_cfg.h"
#include "fleetsim/workload.h"

/* An exact sum: integers, or doubles in fixed point (FS__FX_ONE units).
 * Integer addition is associative, so these sums do not depend on the order
 * in which iterations of different instances are recorded — the fast path
 * records a run of iterations at once, the reference path one by one, and
 * both must give the same bits. */
__extension__ typedef __int128 fs__i128;
#define FS__FX_ONE 256.0                     /* 2^8: a step's FLOPs stay below 2^55 */

/* A non-negative double in fixed point (truncated: a function of the term
 * alone, so sums of converted terms are exact and order-free). */
static inline fs__i128 fs__rec_fx(double x)
{
	double y = x * FS__FX_ONE, hi;

	if (y < 9.2e18)
		return (fs__i128)(int64_t)y;
	/* y >= 2^63 is a whole number: split it exactly at 2^32 (the library
	 * conversion to 128 bits is slow) */
	hi = (double)(int64_t)(y * 0x1p-32);
	return ((fs__i128)(int64_t)hi << 32) + (fs__i128)(int64_t)(y - hi * 0x1p32);
}

/* Per-pool work sums (fixed point), written to the pool results at the end. */
struct fs__rec_pool_fx {
	fs__i128 flops, bytes, kv_block_ns;
};

/* Per-request rows in id order: a row waits in a min-heap on id until every
 * lower id has its row (ids are 0, 1, 2, ... in arrival order), so the heap
 * holds only rows that overtook a request still in the system.  The first
 * FS__ROWS_IN_MEMORY rows go to result->rows; past that all of them are
 * streamed to a temporary file (unlinked, gone when closed) and rows is
 * NULL, so memory does not grow with the number of requests. */
#define FS__ROWS_IN_MEMORY 65536
struct fs__row_spool {
	FILE *f;
};

/* The next spooled row into *row (after fs__row_spool_rewind); false at the
 * end.  Rewind to the first row.  Close (NULL is fine): the file is gone. */
bool fs__row_spool_read(struct fs__row_spool *sp, struct fs_request_row *row);
void fs__row_spool_rewind(struct fs__row_spool *sp);
void fs__row_spool_close(struct fs__row_spool *sp);

struct fs_recorder {
	const struct fs_scenario *sc;
	struct fs_rep_result *result;        /* being built; NULL once handed over */
	bool record_rows;
	size_t cap_rows;
	struct fs_request_row *pend;         /* rows waiting for a lower id (heap) */
	size_t n_pend, cap_pend;
	uint64_t next_id;                    /* the id whose row goes out next */
	size_t bin_idx;                      /* bin_at's last bin and its span */
	fs_ns bin_lo_ns, bin_hi_ns;
	struct fs__row_spool *spool;         /* NULL: rows kept in result->rows */
	/* exact sums (see fs__i128), turned into the result's doubles at the end */
	fs__i128 *bin_fx;                    /* 2 per bin: flops, bytes */
	/* the capacity terms of LLM pools' steps (MODEL: S8): Σ step ns per pool
	 * and bin (a step in the bin where it begins), times the pool's peaks at
	 * the end */
	int64_t *bin_pool_busy_ns;           /* n_pools × bins */
	double *pool_peak_flops, *pool_peak_bytes;   /* n_pools, per second */
	size_t n_pools;
	fs__i128 flops_fx, bytes_fx;         /* engine totals after warm-up */
	struct fs__rec_pool_fx *pool_fx;     /* n_pools */
	uint64_t itl_n;                      /* ITL moments: count, Σ gap, Σ gap² (ns) */
	fs__i128 itl_s1, itl_s2;
	double itl_min, itl_max;
	struct fs_hist_finder buckets;       /* latencies' and gaps' histogram buckets */
	/* KV-use series (MODEL: M3): Σ blocks · ns per bin since the KV total last
	 * changed, divided by that total when it changes (or at the end) */
	fs__i128 *kv_acc;                    /* per bin */
	int64_t kv_total;                    /* blocks of the current span */
	size_t kv_bin_lo, kv_bin_hi;         /* bins touched since the last flush */
	bool kv_touched;
	bool levels_small;                   /* every level set so far times a bin
	                                      * is below 2^53 (fs__recorder_levels) */
	double level_limit;                  /* 2^53 / the bin length in ns */
	bool wide;                           /* a run's sums four steps at a time
	                                      * (AVX2; fs__rec_sum_run) */
};

/* Rows (recorder_rows.c): add one (in any id order), put every waiting one
 * out and hand the spool to the result (at the end), free what is left. */
void fs__recorder_row_add(struct fs_recorder *rec, const struct fs_request_row *row);
void fs__recorder_rows_finish(struct fs_recorder *rec);
void fs__recorder_rows_fini(struct fs_recorder *rec);

/* `servers`: queue servers (0 for the LLM engine, whose capacity changes);
 * `n_pools` LLM pools (0 for the queue engine). */
void fs__recorder_init(struct fs_recorder *rec, const struct fs_scenario *sc,
                       uint64_t replication, bool record_rows, int servers,
                       size_t n_pools);
void fs__recorder_fini(struct fs_recorder *rec);

void fs__recorder_arrival(struct fs_recorder *rec, const struct fs_request *req);

/* LLM: a spot instance was reclaimed at t_ns. */
void fs__recorder_reclaim(struct fs_recorder *rec, fs_ns t_ns);

/* LLM: pool `pool` has `serving` serving instances from t_ns on. */
void fs__recorder_pool_serving(struct fs_recorder *rec, size_t pool, fs_ns t_ns, int serving);

/* LLM: the autoscaler wants `desired` instances of pool `pool` from t_ns on. */
void fs__recorder_pool_desired(struct fs_recorder *rec, size_t pool, fs_ns t_ns, int desired);

/* LLM: an iteration of pool `pool` that began at t_ns sampled `tokens`
 * output tokens (capacity utilisation, MODEL: S17). */
void fs__recorder_pool_tokens(struct fs_recorder *rec, size_t pool, fs_ns t_ns,
                              int64_t tokens);

/* A request completed: it was first scheduled at start_ns, its first token
 * came at first_token_ns, and it ended at end_ns having produced
 * output_tokens tokens. */
void fs__recorder_completion(struct fs_recorder *rec, const struct fs_request *req,
                             fs_ns start_ns, fs_ns first_token_ns, fs_ns end_ns,
                             int64_t output_tokens);

/* The engine refused or dropped a request at t_ns (it never completes). */
void fs__recorder_failed(struct fs_recorder *rec, const struct fs_request *req,
                         fs_ns start_ns, fs_ns first_token_ns, fs_ns t_ns);

/* At the end: a request still in the system (times -1 when not reached). */
void fs__recorder_in_flight(struct fs_recorder *rec, const struct fs_request *req,
                            fs_ns start_ns, fs_ns first_token_ns);

/* A caller's last histogram bucket and its value range [lo, hi) (lo > hi:
 * none yet): the next value is looked for there first, then among cached
 * bucket edges, instead of taking a logarithm. */
struct fs__hist_hint {
	size_t bucket;
	double lo, hi;
};

/* `count` inter-token gaps of gap_ns each, observed at t_ns.  `hint` may be
 * NULL (zeroed: no range yet). */
void fs__recorder_itl(struct fs_recorder *rec, fs_ns t_ns, fs_ns gap_ns,
                      uint64_t count, struct fs__hist_hint *hint);

/* Prefix-cache lookups of a step that began at begin_ns (counted after
 * warm-up, like the other engine figures; MODEL: V22). */
void fs__recorder_prefix(struct fs_recorder *rec, fs_ns begin_ns,
                         const struct fs_llm_prefix_counts *pc);

/* Levels changed (or may have) at t_ns: requests waiting, busy servers or
 * instances with an iteration in flight. */
void fs__recorder_levels(struct fs_recorder *rec, fs_ns t_ns, uint64_t waiting,
                         int busy);

/* LLM KV-use series: `blocks` blocks were in use over [from_ns, to_ns) on
 * one instance (instances add their own spans, in any order); the serving
 * instances hold `total` blocks from t_ns on (every instance's spans must
 * be added up to t_ns before the total changes).  The series is the
 * time-average of Σ used / total. */
void fs__recorder_kv_span(struct fs_recorder *rec, fs_ns from_ns, fs_ns to_ns,
                          int64_t blocks);
/* The spans of one instance over k steps back to back: it holds *blocks
 * blocks since *since_ns; step i ends at t_ns + dur_ns[0] + ... + dur_ns[i]
 * and kv[i] blocks are in use from then on.  As fs__recorder_kv_span at
 * each change of level; *since_ns and *blocks become the last change's.
 * O(k); O(steps since the last change) with `area` (NULL: none), what
 * fs__recorder_llm_run found for these k steps with levels *blocks, kv[0],
 * ..., kv[k - 2] in use during them. */
struct fs__rec_kv_area;
void fs__recorder_kv_steps(struct fs_recorder *rec, fs_ns *since_ns, int64_t *blocks,
                           fs_ns t_ns, const fs_ns *dur_ns, const int64_t *kv, size_t k,
                           const struct fs__rec_kv_area *area);
void fs__recorder_kv_total(struct fs_recorder *rec, fs_ns t_ns, int64_t total);
/* Whether fs__recorder_kv_total(rec, ., total) would change the total. */
bool fs__recorder_kv_total_changes(const struct fs_recorder *rec, int64_t total);

/* One LLM engine step [begin_ns, end_ns) of pool `pool` with its batch
 * size, tokens, preemptions and modelled work, on an instance whose peaks
 * (all its GPUs) are peak_flops_per_s and peak_bytes_per_s: the engine
 * figures, the time bin's work and capacity, and the pool's FLOPs, bytes
 * and KV block·ns (summed exactly) and output tokens. */
void fs__recorder_llm_step(struct fs_recorder *rec, size_t pool, fs_ns begin_ns,
                           fs_ns end_ns, int64_t batch_seqs, int64_t prefill_tokens,
                           int64_t tokens_generated, uint64_t preemptions,
                           double flops, double bytes, double peak_flops_per_s,
                           double peak_bytes_per_s, double kv_block_ns);

/* A run's FLOPs and bytes as exact integers linear in the iteration:
 * iteration i does flops0 + flops_step·i FLOPs and bytes0 + bytes_step·i
 * bytes, each below 2^53 (so it is the double the step model gives). */
struct fs__rec_run_lin {
	int64_t flops0, flops_step, bytes0, bytes_step;
};

/* Σ kv_blocks[i]·dur_ns[i] (block·ns) and Σ dur_ns[i] of a run's k steps,
 * exact, when fs__recorder_llm_run's grouped pass summed them (`ok`): each
 * level is below 2^22, each step below 2^31 ns, k <= 1024.  first_blocks is
 * kv_blocks[0]. */
struct fs__rec_kv_area {
	bool ok;
	int64_t first_blocks;
	uint64_t block_ns;
	fs_ns dur_ns;
};

/* A fast-path run of k LLM decode iterations of pool `pool` back to back
 * from begin_ns (recorder_run.c): iteration i lasts dur_ns[i], does
 * flops[i] FLOPs and bytes[i] bytes (or what `lin` says when it is not
 * NULL; then flops and bytes are not read) with kv_blocks[i] KV blocks in use, and
 * each of its n_seqs sequences samples one token (a regular ITL gap of
 * dur_ns[i], bucket found from `hint`).  The same figures, bit for bit, as
 * k calls of fs__recorder_llm_step and fs__recorder_itl in order; the work
 * sums are gathered per time bin first.  Adds Σ dur_ns to *busy_ns (with
 * the bits of one addition per iteration, as the step-by-step path does) and returns the
 * run's total time; *area says what fs__recorder_kv_steps can take from
 * the pass.  O(k). */
fs_ns fs__recorder_llm_run(struct fs_recorder *rec, size_t pool, fs_ns begin_ns, size_t k,
                           const fs_ns *dur_ns, const double *flops, const double *bytes,
                           const struct fs__rec_run_lin *lin,
                           const int64_t *kv_blocks, int64_t n_seqs,
                           double peak_flops_per_s, double peak_bytes_per_s,
                           struct fs__hist_hint *hint, double *busy_ns,
                           struct fs__rec_kv_area *area);

/* Shared with recorder_run.c: the time bin of t_ns (< horizon; the last
 * one cached) and the ITL histogram bucket of gap > 0 through `hint`. */
size_t fs__recorder_bin_at(struct fs_recorder *rec, fs_ns t_ns);
size_t fs__recorder_itl_bucket(struct fs_recorder *rec, double gap,
                               struct fs__hist_hint *hint);

/* Shared with fs__recorder_finish (recorder_engine.c): the ITL moments from
 * the exact sums, and the KV-use sums of the span that ends moved into the
 * series' areas. */
void fs__recorder_itl_moments(const struct fs_recorder *rec, struct fs_moments *m);
void fs__recorder_kv_flush(struct fs_recorder *rec);

/* Close the time series at end_ns, merge classes into "all", sort rows by id;
 * returns the result (caller owns it). */
struct fs_rep_result *fs__recorder_finish(struct fs_recorder *rec, fs_ns end_ns);


/* ---- The world's counters (inline: once per event) ---------------------- */

/* One event processed; one LLM iteration recorded inside a fast-path run
 * (counted_event: it also stands for an event of the step-by-step path);
 * the runaway guard stopped the replication (MODEL: S3). */
static inline void fs__recorder_event(struct fs_recorder *rec)
{
	rec->result->events++;
}

static inline void fs__recorder_run_step(struct fs_recorder *rec, bool counted_event)
{
	if (counted_event)
		rec->result->events++;
	rec->result->run_steps++;
}

/* k steps of a fast-path run, `events` of which count as events. */
static inline void fs__recorder_run_steps(struct fs_recorder *rec, uint64_t k, uint64_t events)
{
	rec->result->events += events;
	rec->result->run_steps += k;
}

/* The event just processed ended a run's chunk whose steps a later
 * fs__recorder_run_steps counts, its last step's event among them: not
 * counted twice. */
static inline void fs__recorder_event_deferred(struct fs_recorder *rec)
{
	rec->result->events--;
}

static inline void fs__recorder_stopped_early(struct fs_recorder *rec)
{
	rec->result->stopped_early = true;
}

/* ---- The fleet (recorder_fleet.c): fs__rec_* -----------------------------
 * The world's one channel into the result's fleet figures
 * (result->fleet): one entry point per event it records, named for the
 * event.  `pool` indexes the scenario's pools; FS__REC_FLEET names the
 * fleet as a whole where a figure exists for both (availability). */
#define FS__REC_FLEET SIZE_MAX

/* An instance of `pool` was requested; `live` of the pool's instances are
 * not gone now (peak_alive keeps the most). */
void fs__rec_launch(struct fs_recorder *rec, size_t pool, int live);
/* A spot launch of `pool` found no zone with capacity. */
void fs__rec_launch_failed(struct fs_recorder *rec, size_t pool);
/* A spot instance of `pool` was reclaimed at t_ns: counted once, at the
 * reclaim (or at the notice for one not serving yet, which goes at once),
 * in the pool's count and the reclaims series (MODEL: F7). */
void fs__rec_reclaim(struct fs_recorder *rec, size_t pool, fs_ns t_ns);
/* A request was moved off a reclaimed instance of `pool` and routed again
 * (MODEL: F17); `tokens` it had computed there are computed again (F6). */
void fs__rec_reclaim_requeue(struct fs_recorder *rec, size_t pool);
void fs__rec_recompute(struct fs_recorder *rec, int64_t tokens);
/* A request was failed by a reclaim of `pool` (in_flight fail, F17). */
void fs__rec_reclaim_fail(struct fs_recorder *rec, size_t pool);
/* An instance of `pool` spent busy_ns in an iteration (ended, or abandoned
 * by a reclaim). */
void fs__rec_pool_busy(struct fs_recorder *rec, size_t pool, double busy_ns);
/* A request completed (whole horizon, warm-up included: the cost
 * denominators of MODEL F14) with output_tokens. */
void fs__rec_served(struct fs_recorder *rec, int64_t output_tokens);

/* The bill (MODEL: B8, F13, B4).  `pool` held exactly `billed` billed
 * instances for span_ns. */
void fs__rec_billed_level(struct fs_recorder *rec, size_t pool, size_t billed,
                          double span_ns);
/* One instance's life and bill at the end of the run, each part added to
 * its pool in this order (0 for a part that does not apply). */
struct fs__rec_bill {
	double alive_ns;             /* life, from the end of provisioning */
	double billed_ns;            /* billed span (B1, B2; committed: the life) */
	double serving_ns;           /* of it, able to serve */
	double serving_measured_ns;  /* of that, after the warm-up */
	double usd;                  /* usage charge (0: paid by the commitment) */
	bool overflow;               /* committed pool, above the commitment (B6) */
	double idle_usd;             /* of usd, paid with no iteration in flight */
	double lost_cold_usd;        /* of usd, a replacement's cold start */
	double lost_work_usd;        /* of usd, iterations whose tokens were lost */
};
void fs__rec_instance_bill(struct fs_recorder *rec, size_t pool,
                           const struct fs__rec_bill *b);
/* A committed pool's commitment for the run: fee_usd, of it idle_usd. */
void fs__rec_commitment(struct fs_recorder *rec, size_t pool, double fee_usd,
                        double idle_usd);
/* `pool`'s KV blocks per instance, for its KV figures. */
void fs__rec_pool_kv_blocks(struct fs_recorder *rec, size_t pool, int64_t kv_blocks);

/* Availability (MODEL: F15, F16) of `pool` or FS__REC_FLEET: start (or
 * restart, once start-up is over) an empty account; span_ns with `serving`
 * serving of `wanted`; close it at the end. */
void fs__rec_avail_restart(struct fs_recorder *rec, size_t pool);
void fs__rec_avail_span(struct fs_recorder *rec, size_t pool, double span_ns,
                        int serving, int wanted);
void fs__rec_avail_close(struct fs_recorder *rec, size_t pool);

/* The autoscaler of `pool` (MODEL: A11): one look covering interval_ns,
 * whether its decision was the pool's max or its lower bound and whether
 * it changed the count; `n` instances released idle (A5); `n` launches
 * soon after a release (flapping); `n` requests left queued at the end
 * with no instance. */
void fs__rec_scale_look(struct fs_recorder *rec, size_t pool, double interval_ns,
                        bool at_max, bool at_min, bool changed);
void fs__rec_idle_release(struct fs_recorder *rec, size_t pool, uint64_t n);
void fs__rec_scale_relaunch(struct fs_recorder *rec, size_t pool, uint64_t n);
void fs__rec_stranded(struct fs_recorder *rec, size_t pool, uint64_t n);

#endif
