/*
 * ckpt.h — a training job on interruptible (spot) GPUs with periodic
 * checkpoints, simulated by Monte Carlo: completion time and cost
 * distributions, the Young/Daly interval beside the simulated best one, and
 * deadline policies (spot only, on-demand only, spot with an on-demand
 * fallback when the deadline is at risk).  Deterministic per seed for any
 * thread count.  Configs and results are plain caller-owned structs.
 */
#ifndef FLEETSIM_CKPT_H
#define FLEETSIM_CKPT_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/fleet_cfg.h"
#include "fleetsim/stats.h"

#define FS_CKPT_POLICY_MAP(X)                                                                     \
	X(FS_CKPT_SPOT_ONLY, "spot")               /* run on spot, wait out every interruption */ \
	X(FS_CKPT_ON_DEMAND_ONLY, "on_demand")     /* never interrupted */                        \
	X(FS_CKPT_SPOT_FALLBACK, "spot_fallback")  /* spot until the deadline is at risk, then    \
	                                           * on-demand to the end (MODEL: K6) */
enum fs_ckpt_policy {
	FS_CKPT_POLICY_MAP(FS_ENUM_MEMBER)
};

/* How interruptions arrive on spot: a Poisson rate, or a replayed
 * availability trace when trace_path is set. */
struct fs_ckpt_interrupts {
	double rate_per_h;          /* interruptions of the job per hour it runs
	                             * on spot (computing or checkpointing); with
	                             * n instances reclaimed independently at r
	                             * each, n r.  0 = none */
	double unavailable_mean_h;  /* mean wait before spot capacity returns
	                             * (exponential; 0 = at once) */
	const char *trace_path;     /* or: an availability trace (NULL = rate) */
	const char *trace_display;  /* its name in messages (NULL = trace_path) */
	enum fs_capacity_format trace_format;
	int trace_instances;        /* instances the job needs at once from the
	                             * trace (>= 1; 0 means 1) */
};

struct fs_ckpt_cfg {
	double work_h;              /* hours of useful work at full speed on
	                             * `cards` cards (> 0) */
	int cards;                  /* cards the job runs on together (each bills) */
	double interval_h;          /* checkpoint interval tau, hours of work
	                             * between checkpoints (0 = Daly's interval
	                             * for the interruption rate, K4) */
	double ckpt_cost_h;         /* time to write one checkpoint, delta */
	double restart_cost_h;      /* time to restart from a checkpoint, R */
	double deadline_h;          /* wall-clock deadline (0 = none; the
	                             * fallback policy needs one) */
	enum fs_ckpt_policy policy;
	double spot_price_per_h;    /* per card-hour, any currency */
	double on_demand_price_per_h; /* per card-hour */
	struct fs_ckpt_interrupts spot;
	int replications;           /* >= 1 */
	uint64_t seed;
	int threads;                /* OpenMP threads (0 = one per processor) */
	int scan_points;            /* intervals in the scan for the simulated
	                             * best interval (0 = no scan; at most
	                             * FS_CKPT_MAX_SCAN) */
	double level;               /* confidence level (0 = 0.95) */
};

#define FS_CKPT_MAX_SCAN 201

/* One interval of the scan: spot only, no deadline, common random numbers. */
struct fs_ckpt_scan_point {
	double interval_h;
	struct fs_ci completion_h;  /* mean wall-clock hours */
	double expected_h;          /* closed form (K5; Poisson only, else NAN) */
};

struct fs_ckpt_result {
	double interval_h;          /* the tau used (cfg's or Daly's) */
	int segments;               /* checkpoints the job writes, ceil(W / tau) */
	struct fs_ci completion_h;  /* wall-clock hours to finish */
	double completion_p50_h, completion_p95_h; /* empirical quantiles */
	struct fs_ci cost;          /* money, all cards */
	double cost_p95;
	struct fs_ci p_deadline_met;/* Wilson; NAN value without a deadline */
	struct fs_ci interruptions; /* per replication */
	struct fs_ci on_demand_h;   /* wall hours on on-demand (fallback) */
	struct fs_ci lost_h;        /* work and checkpoint time thrown away */
	double expected_h;          /* closed-form mean completion (K5): spot
	                             * only with Poisson interruptions; else NAN */
	double mtbi_h;              /* mean time between interruptions while
	                             * running, M = 1/rate (trace: uptime / drops
	                             * over one pass); INFINITY when none */
	double young_h;             /* sqrt(2 delta M) (K4) */
	double daly_h;              /* Daly's higher-order interval (K4) */
	double renewal_opt_h;       /* the interval minimising K5 (Poisson) */
	/* The scan (scan_points > 0 and interruptions possible; else n_scan 0
	 * and the rest NAN). */
	int n_scan;
	struct fs_ckpt_scan_point scan[FS_CKPT_MAX_SCAN];
	double best_interval_h;     /* interval minimising the mean completion,
	                             * refined between grid points (K7) */
	struct fs_ci best_interval_ci; /* sectioning interval of it (K7) */
	struct fs_ci best_completion_h; /* at the best grid point */
};

/* The policy's name ("spot", "on_demand", "spot_fallback"). */
const char *fs_ckpt_policy_name(enum fs_ckpt_policy p);
/* The policy named `name` (exact) into *out: 0, or -1 when none (*out untouched). */
int fs_ckpt_policy_from_name(const char *name, enum fs_ckpt_policy *out);

/*
 * Simulate cfg: cfg->replications independent runs of the job under
 * cfg->policy, aggregated in replication order, and, when cfg->scan_points
 * > 0, the interval scan (spot only, no deadline).  Returns 0 with *res
 * filled, or -1 with err set (a value out of range, an unreadable trace, a
 * trace that never holds the instances, a job that cannot finish within
 * 10^6 interruptions) and *res untouched.  O(replications x (segments +
 * interruptions)) per policy, times scan_points for the scan.
 */
int fs_ckpt_run(const struct fs_ckpt_cfg *cfg, struct fs_ckpt_result *res,
                struct fs_error *err);

/* The intervals of K4 for checkpoint cost delta_h and mean time between
 * interruptions mtbi_h: Young's sqrt(2 delta M), and Daly's
 * sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9] - delta
 * (M when delta >= 2M).  INFINITY when mtbi_h is. */
double fs_ckpt_young_h(double delta_h, double mtbi_h);
double fs_ckpt_daly_h(double delta_h, double mtbi_h);

/* The closed-form mean completion time (K5) of work_h in segments of
 * interval_h, each followed by a checkpoint of delta_h, under Poisson
 * interruptions at rate_per_h with an unavailable period of mean unavail_h
 * and a restart of restart_h after each: the sum over segments of
 * (e^{rate (w_i + delta)} - 1) (1 / rate + unavail + R); at rate 0 the sum
 * of w_i + delta. */
double fs_ckpt_expected_h(double work_h, double interval_h, double delta_h,
                          double restart_h, double rate_per_h, double unavail_h);

/* The interval minimising K5 per unit of work (independent of R and the
 * unavailable period): the root of (1 - x) e^{x + d} = 1 with x = rate tau,
 * d = rate delta.  INFINITY at rate 0. */
double fs_ckpt_renewal_opt_h(double delta_h, double rate_per_h);

#endif
