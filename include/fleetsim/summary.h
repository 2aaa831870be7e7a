/*
 * summary.h — figures across replications and their output.  Every figure is
 * the mean over replications of a per-replication value (a mean latency, a
 * count, a rate) with a 95% Student-t interval: the replication/deletion
 * method (MODEL: S4), cut at 0 (shares also at 1: M6); latency quantiles are
 * read from the pooled histograms with a sectioning interval (stats.h).  Writers produce summary.json
 * (cJSON; atomically through a temporary file and rename), the console table
 * and the per-request CSV.  A summary borrows the scenario's class names.
 */
#ifndef FLEETSIM_SUMMARY_H
#define FLEETSIM_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "fleetsim/billing.h"
#include "fleetsim/common.h"
#include "fleetsim/replicate.h"
#include "fleetsim/result.h"
#include "fleetsim/scenario_cfg.h"
#include "fleetsim/stats.h"

struct fs_group_summary {
	struct fs_ci lat_ms[FS_LAT__COUNT][FS_QTY__COUNT];
	struct fs_ci itl_ms[FS_QTY__COUNT];  /* "all" only, LLM engine only */
	struct fs_ci arrived;        /* requests per replication (after warm-up) */
	struct fs_ci completed;
	struct fs_ci in_flight;      /* still in the system at the end */
	struct fs_ci failed;         /* refused or dropped by the engine */
	struct fs_ci throughput_rps; /* completed / measured seconds */
	struct fs_ci output_tokens_per_s;    /* output tokens of completed requests */
	struct fs_ci slo_attainment; /* slo_met / (completed + in_flight + failed) */
	struct fs_ci p_slo_met;      /* share of replications whose attainment met
	                              * the target (all: every class's), Wilson 95% */
	bool has_slo;
	double slo_target;           /* attainment target (NAN for "all") */
	int p_slo_met_verdict;       /* enum fs_share_verdict of p_slo_met against the
	                              * summary's p_slo_target (MODEL: M7) */
	size_t p_slo_met_needed;     /* replications that would decide it if the
	                              * observed share held; 0: none would */
};

/*
 * When a commitment beats hourly rental for one pool (MODEL: B8): the hourly
 * price it is compared with (the pool's own, or its overflow price) and the
 * commitment's fee per period (the pool's own, or the catalogue's monthly
 * fee for a pool rented by the hour).  available is false when a price is
 * missing (no catalogue figure, or a currency other than the catalogue's).
 */
struct fs_break_even {
	bool available;
	enum fs_pricing plan;                /* the commitment compared */
	double fee;                          /* per instance per period of plan */
	double hourly_price;                 /* per instance-hour */
	double hours_per_month;              /* use above which the commitment is cheaper */
	/* The pool's own use, from the run: slot_hours_per_month[k] is how long,
	 * projected to a 730-h month, at least k + 1 instances were billed at
	 * once (mean over replications): the use of its (k+1)-th instance. */
	double *slot_hours_per_month;        /* n_slots entries (owned) */
	size_t n_slots;
	int worth_committing;                /* slots used more than hours_per_month */
};

/* Availability of a pool or of the fleet (MODEL: F15, F16), each per
 * replication then a CI.  Shares are of the availability window; outage
 * minutes are that share projected to a 730-hour month. */
struct fs_avail_summary {
	struct fs_ci availability;           /* share with serving >= wanted */
	struct fs_ci outage_min_per_month;   /* serving < wanted */
	struct fs_ci down_min_per_month;     /* total outage: none serving, wanted > 0 */
	struct fs_ci min_serving;            /* fewest serving instances in the window */
};

/* A spot pool expecting fewer reclaims than this per replication is flagged
 * "too short to see spot risk" (MODEL: F18). */
#define FS_SPOT_MIN_EXPECTED_RECLAIMS 3.0

/* One pool's money and use, each per replication then a CI (over the
 * simulated span: the horizon, or up to a stop at max_in_system). */
struct fs_pool_summary {
	const char *name;                    /* borrowed from the scenario */
	struct fs_ci usd;                    /* the pool's whole bill */
	struct fs_ci commit_usd;             /* committed plans: the commitment */
	struct fs_ci overflow_usd;           /* committed plans: instances above it */
	struct fs_ci overflow_hours;         /* their billed instance-hours */
	struct fs_ci idle_usd;
	struct fs_ci lost_usd;
	struct fs_ci instance_hours;         /* billed instance-hours (MODEL: B5) */
	struct fs_ci alive_hours;            /* instance-hours alive (MODEL: F2) */
	struct fs_break_even break_even;     /* commitment vs hourly (MODEL: B8) */
	struct fs_ci busy_fraction;          /* iteration time / serving time */
	struct fs_ci kv_use;                 /* mean fraction of KV blocks in use while serving */
	struct fs_ci mfu, mbu;               /* achieved, over iteration time */
	struct fs_ci launches, failed_launches, reclaims;
	struct fs_ci capacity_util;          /* share of saturation throughput in use
	                                      * over serving time (MODEL: S17) */
	struct fs_ci unused_capacity_usd;    /* usd x (1 - capacity_util) (MODEL: S18) */
	struct fs_ci idle_episodes;          /* count per replication (MODEL: S19) */
	struct fs_ci idle_episode_hours;     /* their length, hours */
	struct fs_ci idle_episode_usd;       /* their cost */
	double saturation_rps;               /* one instance, requests/s (MODEL: S16) */
	double saturation_output_tokens_per_s;
	struct fs_avail_summary avail;       /* stand-ins count for their spot pool */
	struct fs_ci reclaim_requeued;       /* requests delayed by its reclaims (horizon) */
	struct fs_ci reclaim_failed;         /* requests failed by its reclaims (horizon) */
	double expected_reclaims;            /* per replication from the scenario's rates
	                                      * and traces (MODEL: F18); NAN: not spot */
	/* The autoscaler's pool only (0 elsewhere), MODEL: A11: */
	struct fs_ci scale_at_max;           /* share of its looks that decided max */
	struct fs_ci scale_at_min;           /* share that decided its lower bound */
	struct fs_ci relaunches_per_h;       /* launches within an hour of a scale-in,
	                                      * per simulated hour */
	struct fs_ci stranded;               /* requests queued at the end, no instance */
	struct fs_ci launches_per_h;         /* instances launched per simulated hour */
	struct fs_ci idle_releases;          /* instances released idle (MODEL: A5) */
};

/* The fleet's cost (MODEL: F13, F14), each per replication then a CI. */
struct fs_cost_summary {
	struct fs_ci total_usd;              /* over the simulated span (MODEL: F14) */
	struct fs_ci usd_per_hour;           /* total / simulated span in hours */
	struct fs_ci monthly_usd;            /* usd_per_hour x 730: a projection */
	struct fs_ci usd_per_1m_output_tokens;
	struct fs_ci usd_per_1k_requests;
	struct fs_ci idle_usd;
	struct fs_ci lost_usd;
	struct fs_ci by_pricing_usd[FS_PRICING__COUNT];  /* by plan (enum fs_pricing) */
	struct fs_ci requeued;               /* requests moved off reclaimed instances */
	struct fs_ci unused_capacity_usd;    /* Σ pools (MODEL: S18) */
	struct fs_ci idle_episodes;          /* Σ pools (MODEL: S19) */
	struct fs_ci idle_episode_hours;
	struct fs_ci idle_episode_usd;
	struct fs_ci lost_usd_monthly;       /* lost_usd / horizon hours x 730: a projection */
	double *total_usd_per_rep;           /* replications entries, replication
	                                      * order (owned by the summary) */
};

struct fs_summary {
	char currency[FS_CURRENCY_MAX];      /* of every money figure (MODEL: B9) */
	size_t n_classes;
	const char **class_names;            /* n_classes names (borrowed; the array owned) */
	struct fs_group_summary *groups;     /* n_classes + 1, "all" last */
	struct fs_ci busy_fraction;          /* busy servers (or replicas) / servers,
	                                      * over [warm-up, end) (MODEL: S1, S7) */
	struct fs_ci queue_len;              /* time-average requests waiting */
	bool llm;                            /* LLM engine: token and engine figures */
	int replicas;
	struct fs_ci kv_use;                 /* time-average fraction of KV blocks in use */
	struct fs_ci batch_size;             /* mean sequences per engine step */
	struct fs_ci preemptions;            /* per replication */
	struct fs_ci tokens_per_s;           /* output tokens sampled per second */
	struct fs_ci prefill_tokens_per_s;   /* prompt (and recomputed) tokens per second */
	struct fs_ci mfu;                    /* modelled FLOPs / (busy time x TP x peak) */
	struct fs_ci mbu;                    /* modelled bytes / (busy time x TP x bandwidth) */
	struct fs_ci capacity_util;          /* fleet: saturated work / serving time (S17) */
	struct fs_ci fleet_busy_fraction;    /* fleet: Σ pools' iteration time / their
	                                      * serving time, whole span (S17) */
	struct fs_ci fleet_kv_use;           /* fleet: Σ pools' KV block-time in use / their
	                                      * serving KV block-time, whole span like
	                                      * capacity_util (kv_use: after the warm-up) */
	size_t n_pools;
	struct fs_pool_summary *pools;       /* n_pools */
	struct fs_cost_summary cost;
	int replications;
	int unstable_replications;           /* stopped early or backlog growing */
	uint64_t seed;
	uint64_t events;                     /* over all replications */
	struct fs_avail_summary avail;       /* the fleet as one pool (LLM engine) */
	double p_slo_target;                 /* the share P(SLO met) is decided against:
	                                      * objective.confidence, else 0.9 */
	int stopped_early;                   /* replications cut at max_in_system (S3) */
	double *stopped_at_s;                /* replications entries: simulated time a
	                                      * replication stopped, NAN if it ran to
	                                      * the horizon (owned) */	/* The skewness check of the headline means (docs/STATISTICS.md):
	 * how many of them have replication values too skewed for their t
	 * interval at this R, the most skewed one, and the replications that
	 * would make every flagged interval trustworthy (0 when none). */
	int skewed_figures;
	char skew_figure[64];                /* e.g. "all.e2e_ms.mean"; "" when none */
	double skew;                         /* its sample skewness */
	size_t skew_replications_needed;
	/* Prefix caching (MODEL: V22), per replication; shown only when some
	 * request carried block hashes and caching was on (prefix_cache). */
	bool prefix_cache;
	struct fs_ci prefix_hit_rate_blocks; /* hit / queried full blocks */
	struct fs_ci prefix_hit_rate_tokens; /* hit / queried prompt tokens */
	struct fs_ci prefix_saved_tokens;    /* prefill tokens skipped */
};

/* Aggregate R results (in replication order).  Caller frees with
 * fs_summary_free. */
struct fs_summary *fs_summary_build(const struct fs_scenario *sc,
                                    struct fs_rep_result *const *results,
                                    int replications, uint64_t seed);
void fs_summary_free(struct fs_summary *s);

/* The break-even of pool pc of scenario sc (MODEL: B8). */
struct fs_break_even fs_summary_break_even(const struct fs_scenario *sc,
                                           const struct fs_pool_cfg *pc);

/* Internal to summary*.c: the fleet part of fs_summary_build. */
void fs__summary_build_fleet(struct fs_summary *s, const struct fs_scenario *sc,
                             struct fs_rep_result *const *results, int n_reps, double *buf);

/* Reclaim events pool `pool` of sc should expect in one replication
 * (MODEL: F18): per-instance rate x instances x horizon, plus the zone
 * reclaim rates of the zones it occupies x horizon, plus the drops of their
 * capacity traces below its instances within the horizon.  NAN for a pool
 * that is not spot. */
double fs_summary_expected_reclaims(const struct fs_scenario *sc, size_t pool);

/* The autoscaler's warning number `k` (0: work stranded at the end, 1: at
 * max most of the run, 2: at its lower bound most of the run, 3:
 * flapping), written to buf (summary_scale.c, MODEL: A11).  False, with
 * buf empty, when that warning does not apply.  FS_SCALE_WARNINGS kinds. */
#define FS_SCALE_WARNINGS 4
bool fs_summary_scale_warning(const struct fs_summary *s, const struct fs_scenario *sc,
                              int k, char *buf, size_t len);

/* The "too short to see spot risk" warning of pool `pool`, written to buf
 * (len bytes): true when the pool is spot and expects fewer than
 * FS_SPOT_MIN_EXPECTED_RECLAIMS reclaims per replication, else false and
 * buf is empty. */
bool fs_summary_pool_warning(const struct fs_summary *s, const struct fs_scenario *sc,
                             size_t pool, char *buf, size_t len);

/* Pool `pool`'s short-horizon billing warning (summary_bill_warn.c, MODEL:
 * B2): true, with the text in buf, when it is billed per use (on demand,
 * spot) and the horizon is under 10 of its billing units (the granularity,
 * or the minimum charge when longer); else false, buf empty. */
bool fs_summary_billing_warning(const struct fs_scenario *sc, size_t pool, char *buf,
                                size_t len);

/* The skewness warning (docs/STATISTICS.md, "Skewed replication values"),
 * written to buf (len bytes): true when some headline mean's replication
 * values are too skewed for its t interval at this R, else false and buf
 * is empty. */
bool fs_summary_skew_warning(const struct fs_summary *s, char *buf, size_t len);

/* Every warning of a summary, one at a time (summary_warnings.c), in the
 * order summary.json's "warnings" lists them: each pool's spot-risk
 * warning, each pool's billing warning, the autoscaler's, the skewness
 * one.  Start with a zeroed cursor; each call writes the next warning's
 * text to buf and its kind to *kind and returns true, or returns false
 * (buf empty) when there are no more. */
enum fs_summary_warning_kind {
	FS_WARN_SPOT_HORIZON,        /* fs_summary_pool_warning */
	FS_WARN_BILLING,             /* fs_summary_billing_warning */
	FS_WARN_SCALE,               /* fs_summary_scale_warning */
	FS_WARN_SKEW,                /* fs_summary_skew_warning */
	FS_WARN_KINDS
};
struct fs_summary_warning_cursor {
	int kind;                    /* the kind looked at next */
	size_t slot;                 /* its pool or scaler warning looked at next */
};
bool fs_summary_warning_next(const struct fs_summary *s, const struct fs_scenario *sc,
                             struct fs_summary_warning_cursor *cur,
                             enum fs_summary_warning_kind *kind, char *buf, size_t len);


/* Write DIR/summary.json.  Returns 0, or -1 with err (runtime failure). */
int fs_summary_write_json(const struct fs_summary *s, const struct fs_scenario *sc,
                          const char *path, struct fs_error *err);

/* The readable table. */
void fs_summary_print_table(const struct fs_summary *s, const struct fs_scenario *sc,
                            FILE *out);

/* DIR/timeseries.csv: per grid bin, mean over replications with 95%
 * intervals of the time-averaged queue length and busy servers (instances
 * with an iteration in flight), the arrival rate, and with a fleet the KV
 * use, spot reclaims and serving instances of each pool, and capacity
 * utilisation of the fleet and of each pool (MODEL: S17). */
int fs_timeseries_write_csv(struct fs_rep_result *const *results, int replications,
                            const struct fs_scenario *sc, const char *path,
                            struct fs_error *err);

/* DIR/latency_cdf.csv: for all traffic and each class, the empirical CDF of
 * TTFT, TPOT (LLM) and E2E pooled over every replication (one row per
 * non-empty histogram bucket: group,metric,latency_ms,cdf). */
int fs_latency_cdf_write_csv(struct fs_rep_result *const *results, int replications,
                             const struct fs_scenario *sc, const char *path,
                             struct fs_error *err);

/* One row per request of result r (which must have rows). */
int fs_requests_write_csv(const struct fs_rep_result *r, const struct fs_scenario *sc,
                          const char *path, struct fs_error *err);

/* Closed-loop runs (summary_closed.c, MODEL: U7): the group whose figures
 * are reported by concurrency, as serving benchmarks do (the one closed-loop
 * class, or n_classes for all traffic when every class is closed or there
 * are several), with *users the users of the closed-loop classes (the most
 * logged on at once under a schedule) and *scheduled whether any follows a
 * schedule.  -1 when no class has users. */
int fs_summary_closed_group(const struct fs_summary *s, const struct fs_scenario *sc,
                            int64_t *users, bool *scheduled);

/* An interval as summary.json writes it: {value, ci_lo, ci_hi} (non-finite
 * ends null), plus "exact": true for a zero-width one.  The caller owns the
 * object (cJSON_Delete). */
struct cJSON;
struct cJSON *fs_summary_ci_json(const struct fs_ci *ci);

#endif
