/*
 * result.h — what one replication leaves behind: per-class latency
 * histograms and moments (requests arriving after warm-up only), counts,
 * time series over the whole horizon, and the verdict.  Produced by the
 * world, owned by the caller, freed with fs_rep_result_free.  Index
 * n_classes of `cls` is the merge of all classes ("all").
 */
#ifndef FLEETSIM_RESULT_H
#define FLEETSIM_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/metrics.h"

struct fs__row_spool;

/* Latency metrics every class records (histograms in ns). */
#define FS_LATENCY_MAP(X)                                                                              \
	X(FS_LAT_TTFT, 1, "ttft_ms")    /* arrival -> first token (queue engine: service start) */     \
	X(FS_LAT_TPOT, 2, "tpot_ms")    /* (e2e - ttft) / (output tokens - 1), outputs > 1 only */     \
	X(FS_LAT_E2E, 3, "e2e_ms")      /* arrival -> completion */                                    \
	X(FS_LAT_QUEUE, 0, "queue_ms")  /* arrival -> first scheduled (queue engine: service start) */
enum fs_latency {
	FS_LATENCY_MAP(FS_ENUM_MEMBER_AT)
	FS_LAT__COUNT = 4            /* rows above are not in value order */
};

/* The figures read from a latency's replications: the mean, then quantiles. */
#define FS_QUANTITY_MAP(X)                                                      \
	X(FS_QTY_MEAN, "mean")                                                  \
	X(FS_QTY_P50, "p50")                                                    \
	X(FS_QTY_P90, "p90")                                                    \
	X(FS_QTY_P95, "p95")                                                    \
	X(FS_QTY_P99, "p99")
enum fs_quantity {
	FS_QUANTITY_MAP(FS_ENUM_MEMBER)
	FS_QTY__COUNT
};

/* Name of a latency metric as used in outputs: "queue_ms", "ttft_ms",
 * "tpot_ms", "e2e_ms"; "?" for a value outside the enum (stats.c). */
const char *fs_latency_name(enum fs_latency k);
/* Name of a quantity: "mean", "p50", "p90", "p95", "p99"; "?" outside. */
const char *fs_quantity_name(enum fs_quantity q);

/* The latency metric or quantity named `name` (exact) into *out: 0, or -1
 * when no member has that name (*out untouched). */
int fs_latency_from_name(const char *name, enum fs_latency *out);
int fs_quantity_from_name(const char *name, enum fs_quantity *out);

struct fs_class_result {
	struct fs_hist lat_hist[FS_LAT__COUNT];      /* completed requests, ns */
	struct fs_moments lat_moments[FS_LAT__COUNT];/* same requests, ns */
	uint64_t arrived;            /* after warm-up */
	uint64_t completed;          /* of those, completed (with a drain, E5,
	                              * after the horizon too) */
	uint64_t in_flight;          /* of those, still in the system at the end */
	uint64_t failed;             /* of those, refused or dropped by the engine */
	uint64_t slo_met;            /* completed and within every SLO target */
	int64_t output_tokens;       /* output tokens of completed requests */
	uint64_t completed_in_window;        /* requests that ended inside [warm-up,
	                                      * horizon), whenever they arrived: the
	                                      * measured window's (MODEL: E5, S6) */
	int64_t output_tokens_in_window;     /* their output tokens */
};

/* One row of the per-request log (replication 0 only). */
struct fs_request_row {
	uint64_t id;
	uint32_t class_idx;
	bool counted;                /* arrived after warm-up */
	bool completed;
	bool failed;                 /* refused or dropped by the engine */
	fs_ns arrival_ns;
	fs_ns start_ns;              /* -1 if never started */
	fs_ns first_token_ns;        /* -1 if none yet */
	fs_ns end_ns;                /* -1 if not completed */
	int64_t prompt_tokens;
	int64_t output_tokens;
	uint64_t session_id;         /* 0: not in a session */
	uint32_t turn;               /* 0-based turn within its session */
};

/* Engine totals over steps that began after warm-up (LLM engine only). */
struct fs_engine_totals {
	uint64_t steps;
	uint64_t preemptions;
	int64_t sum_batch_seqs;             /* Σ sequences per step */
	int64_t tokens_generated;           /* output tokens sampled */
	int64_t prefill_tokens;             /* prompt (and recomputed) tokens processed */
	double busy_ns;                     /* Σ step durations over replicas */
	double flops;                       /* Σ modelled FLOPs */
	double bytes;                       /* Σ modelled HBM bytes */
	/* Prefix-cache lookups of admissions in those steps (MODEL: V22; all
	 * 0 without caching): first admissions' tokens and full blocks, the
	 * cached ones found, and cached tokens of every admission. */
	int64_t prefix_query_tokens, prefix_hit_tokens;
	int64_t prefix_query_blocks, prefix_hit_blocks;
	int64_t prefix_saved_tokens;
};

/* Availability of a pool or of the whole fleet (MODEL: F15, F16): the
 * window runs from the later of the warm-up and the first time the serving
 * instances reached the wanted count, to the end of the run (all the
 * measured span when that count was never reached). */
struct fs_availability {
	double window_ns;                   /* length of the window */
	double short_ns;                    /* of it, fewer serving than wanted */
	double down_ns;                     /* of it, none serving while wanted > 0 */
	int64_t min_serving;                /* fewest serving over it (-1: empty window) */
};

/* Money and capacity of one pool over the whole horizon (LLM engine). */
struct fs_pool_result {
	double usd;                         /* billed: usage, or commitment + overflow */
	double commit_usd;                  /* committed plans: the commitment, used or not */
	double overflow_usd;                /* committed plans: instances above it */
	double overflow_ns;                 /* Σ billed span of those overflow instances */
	double *level_ns;                   /* level_ns[k]: time with exactly k instances
	                                     * billed, k < n_levels (MODEL: B8) */
	size_t n_levels;
	double idle_usd;                    /* share of usd paid with no iteration in flight */
	double lost_usd;                    /* paid for cold starts of replacements and for
	                                     * work lost to reclaims */
	double alive_ns;                    /* Σ life of instances, from the end of
	                                     * provisioning to gone (MODEL: F2) */
	double billed_ns;                   /* Σ billed span: each usage-billed
	                                     * instance's life rounded up, at least
	                                     * the minimum (B1, B2); a committed
	                                     * instance's life (MODEL: B5) */
	double serving_ns;                  /* Σ time instances could serve */
	double serving_measured_ns;         /* of it, after the warm-up
	                                     * (MODEL: S1, S7) */
	double busy_ns;                     /* Σ iteration time */
	double flops, bytes;                /* modelled work of those iterations */
	double kv_block_ns;                 /* Σ KV blocks in use x time */
	int64_t kv_blocks_per_instance;
	uint64_t launches;                  /* instances requested */
	uint64_t failed_launches;           /* launch attempts that found no spot capacity */
	uint64_t reclaims;                  /* spot instances reclaimed */
	uint64_t peak_alive;                /* most instances alive at once */
	double output_tokens;               /* output tokens its iterations sampled */
	double sat_output_tokens_per_s;     /* saturation throughput of one instance
	                                     * (MODEL: S16), stamped after the run; 0
	                                     * when unknown */
	double sat_requests_per_s;          /* the same in completed requests/s */
	struct fs_availability avail;       /* serving vs wanted (stand-ins count for
	                                     * the spot pool they stand in for) */
	uint64_t reclaim_requeued;          /* requests moved off this pool's reclaimed
	                                     * instances (delayed), whole horizon */
	uint64_t reclaim_failed;            /* requests failed by its reclaims */
	/* The autoscaler, for its pool (all 0 for the others): */
	double scale_at_max_ns;             /* time its decision was the pool's max */
	double scale_at_min_ns;             /* time its decision was the lower bound */
	double scale_looked_ns;             /* time covered by its evaluations */
	uint64_t scale_events;              /* evaluations that changed the count */
	uint64_t scale_relaunches;          /* the autoscaler's launches within an
	                                     * hour after it released one
	                                     * (flapping; not replacements) */
	uint64_t stranded_requests;         /* requests left queued at the end with no
	                                     * instance serving or starting */
	uint64_t idle_releases;             /* instances released by idle release
	                                     * (their own busy below the bound, A5) */
};

struct fs_fleet_result {
	size_t n_pools;
	struct fs_pool_result *pools;       /* n_pools entries */
	uint64_t requeued;                  /* requests moved off a reclaimed instance */
	int64_t recomputed_tokens;          /* tokens computed again because of that */
	uint64_t all_completed;             /* completions over the whole horizon */
	int64_t all_output_tokens;          /* their output tokens */
	struct fs_availability avail;       /* the fleet as one pool: Σ serving vs Σ wanted */
};

struct fs_rep_result {
	uint64_t replication;
	size_t n_classes;
	struct fs_class_result *cls;        /* n_classes + 1 entries ("all" last) */
	struct fs_tseries queue_len;        /* requests waiting */
	struct fs_tseries busy;             /* busy servers (LLM: replicas in a step) */
	struct fs_tseries kv_used;          /* LLM: fraction of serving KV blocks in use */
	double *bin_arrivals;               /* requests arriving in each time-series bin */
	double *bin_reclaims;               /* LLM: spot reclaims in each bin */
	double *bin_flops, *bin_flops_cap;  /* LLM: modelled FLOPs of the iterations
	                                     * starting in each bin, and their time x
	                                     * peak FLOP/s (for achieved MFU) */
	double *bin_bytes, *bin_bytes_cap;  /* the same for HBM bytes (MBU) */
	struct fs_tseries *pool_serving;    /* LLM: serving instances of each pool */
	double *bin_pool_output_tokens;     /* LLM: output tokens sampled by iterations
	                                     * starting in each bin, per pool:
	                                     * [pool * n_bins + bin] */
	int servers;                        /* queue engine capacity, for busy fraction */
	bool llm;                           /* LLM engine: token metrics exist */
	struct fs_hist itl_hist;            /* LLM: inter-token latency, ns */
	struct fs_moments itl_moments;
	struct fs_engine_totals engine;
	struct fs_fleet_result fleet;       /* LLM engine: cost and capacity per pool */
	fs_ns measured_ns;                  /* horizon - warm-up, or stop - warm-up
	                                     * (0 at least) when stopped early */
	fs_ns end_ns;                       /* time the world stopped */
	bool stopped_early;                 /* max_in_system exceeded */
	uint64_t events;                    /* events processed */
	uint64_t run_steps;                 /* of those, LLM iterations recorded
	                                       inside fast-path runs (MODEL: V24) */
	struct fs_request_row *rows;        /* NULL unless recorded in memory */
	size_t n_rows;                      /* rows recorded (in `rows` or spooled) */
	struct fs__row_spool *row_spool;    /* past 65,536 rows: all of them in id
	                                       order in a temporary file, streamed
	                                       as they became ready, and rows is
	                                       NULL (recorder.h); NULL: in `rows` */
	struct fs_tseries *pool_desired;    /* LLM: the autoscaler's desired count of
	                                     * each pool (its pool only; others stay 0) */
	bool has_desired;                   /* an autoscaler fed pool_desired */
};

void fs_rep_result_free(struct fs_rep_result *r);    /* NULL is fine */

#endif
