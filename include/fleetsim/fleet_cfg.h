/*
 * fleet_cfg.h — the resolved fleet of a scenario: pools of LLM instances
 * (GPU type x TP, count, pricing mode, zones, cold-start model, prices,
 * billing rules, spot interruption model), the zones with their optional
 * spot-capacity traces, the router, the spot strategy and the autoscaler.
 * Written by the scenario loader only, read by every replication.  Owned by
 * struct fs_scenario (arrays and strings on the heap, freed with it).
 */
#ifndef FLEETSIM_FLEET_CFG_H
#define FLEETSIM_FLEET_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"

struct fs_llm_cfg;

/*
 * Pricing plans.  ON_DEMAND and SPOT are usage plans: each instance is billed
 * for its own life at a price per hour.  The others are commitments: `count`
 * instances are paid for the whole horizon, used or not, at a fee per
 * instance per period (MODEL: B4); instances above the commitment are billed
 * as usage at the pool's overflow price (MODEL: B6).  New plans go at the end
 * (the values index per-plan arrays in outputs).  The rows are in the order
 * the loader lists the names (its messages, the schema), so each gives its
 * value.
 */
#define FS_PRICING_MAP(X)                                                                               \
	X(FS_PRICING_ON_DEMAND, 0, "on_demand")  /* hourly rental: per-hour price while alive */        \
	X(FS_PRICING_SPOT, 1, "spot")            /* per-hour spot price (may vary), can be reclaimed */ \
	X(FS_PRICING_DAILY, 3, "daily")          /* fee per instance-day (24 h), used or not */         \
	X(FS_PRICING_WEEKLY, 4, "weekly")        /* fee per instance-week (168 h), used or not */       \
	X(FS_PRICING_MONTHLY, 2, "monthly")      /* fee per instance-month (730 h), used or not */      \
	X(FS_PRICING_YEARLY, 5, "yearly")        /* fee per instance-year (8760 h), used or not */
enum fs_pricing {
	FS_PRICING_MAP(FS_ENUM_MEMBER_AT)
	FS_PRICING__COUNT = 6        /* rows above are not in value order */
};

#define FS_DELAY_MAP(X)                                                                         \
	X(FS_DELAY_FIXED, "fixed")              /* exactly mean_ns */                           \
	X(FS_DELAY_UNIFORM, "uniform")          /* uniform on [min_ns, max_ns] */               \
	X(FS_DELAY_EXPONENTIAL, "exponential")  /* mean mean_ns */                              \
	X(FS_DELAY_LOGNORMAL, "lognormal")      /* mean mean_ns, coefficient of variation cv */
enum fs_delay_kind {
	FS_DELAY_MAP(FS_ENUM_MEMBER)
};

struct fs_delay_cfg {
	enum fs_delay_kind kind;
	fs_ns mean_ns;
	fs_ns min_ns, max_ns;
	double cv;
};

/* Piecewise-constant price: usd_per_h from at_ns on (ascending at_ns). */
struct fs_price_step {
	fs_ns at_ns;
	double usd_per_h;
};

#define FS_BILLING_GRANULARITY_MAP(X)                                            \
	X(FS_BILL_PER_SECOND, "second")  /* billed seconds, rounded up */        \
	X(FS_BILL_PER_HOUR, "hour")      /* every started hour billed in full */
enum fs_billing_granularity {
	FS_BILLING_GRANULARITY_MAP(FS_ENUM_MEMBER)
};

struct fs_billing_cfg {
	enum fs_billing_granularity granularity;
	fs_ns minimum_ns;            /* shortest billed span per instance (e.g. 60 s) */
};

#define FS_CAPACITY_FORMAT_MAP(X)                                                                      \
	X(FS_CAPACITY_SKYPILOT, "skypilot")    /* {"metadata":{"gap_seconds":G},"data":[v0,v1,...]} */ \
	X(FS_CAPACITY_SPOTSERVE, "spotserve")  /* CSV timestamp_ms,add|remove,node_id (no header) */
enum fs_capacity_format {
	FS_CAPACITY_FORMAT_MAP(FS_ENUM_MEMBER)
};

/* Spot capacity of one zone over time: piecewise constant, capacity[i] from
 * t_ns[i] on (t_ns[0] = 0), after scale and offset; loops past span_ns when
 * loop is set.  Immutable once loaded. */
struct fs_capacity_trace {
	char *path;                  /* as written */
	enum fs_capacity_format format;
	fs_ns *t_ns;
	int32_t *capacity;           /* instances that can be running at once */
	size_t n_steps;
	fs_ns span_ns;               /* length of one pass of the trace */
	bool loop;
	double scale;                /* as given in the scenario (capacity[] is
	                              * already scaled); set by the loader */
};

struct fs_zone_cfg {
	char *name;
	struct fs_capacity_trace *trace;  /* NULL: spot capacity is unlimited */
};

/* What happens to a reclaimed spot instance's requests. */
#define FS_INFLIGHT_MAP(X)                                                                  \
	X(FS_INFLIGHT_DRAIN, "drain")      /* keep serving through the notice; what is left \
	                                   * at the reclaim is re-queued elsewhere */       \
	X(FS_INFLIGHT_REQUEUE, "requeue")  /* re-queued elsewhere at the notice */          \
	X(FS_INFLIGHT_FAIL, "fail")        /* keep serving through the notice; what is left \
	                                   * at the reclaim fails */
enum fs_inflight_action {
	FS_INFLIGHT_MAP(FS_ENUM_MEMBER)
};

struct fs_spot_cfg {
	double interrupt_rate_per_h;     /* per instance (Poisson), 0 = none */
	double zone_reclaim_rate_per_h;  /* per zone: every spot instance there at once */
	fs_ns zone_outage_ns;            /* no capacity in the zone this long after one */
	fs_ns notice_ns;                 /* warning before a reclaim (AWS 120 s) */
	enum fs_inflight_action in_flight;
	fs_ns relaunch_retry_ns;         /* a launch that found no capacity retries after this */
};

#define FS_SPOT_STRATEGY_MAP(X)                                                                 \
	X(FS_STRATEGY_NONE, "none")          /* a reclaimed instance is not replaced */         \
	X(FS_STRATEGY_RELAUNCH, "relaunch")  /* replace it with spot when capacity allows */    \
	X(FS_STRATEGY_FALLBACK, "fallback")  /* relaunch spot, and run on-demand stand-ins from \
	                                     * the pool's fallback_pool while spot is short,    \
	                                     * released once the spot replacement serves */
enum fs_spot_strategy {
	FS_SPOT_STRATEGY_MAP(FS_ENUM_MEMBER)
};

struct fs_pool_cfg {
	char *name;
	struct fs_llm_cfg *llm;          /* gpu, tp, scheduler and memory of this pool (owned) */
	enum fs_pricing pricing;
	int count;                       /* instances wanted at t = 0 */
	int overprovision;               /* extra spot instances beyond count */
	int min_count, max_count;        /* bounds for the autoscaler */
	int *zones;                      /* indices into fleet zones, n_zones >= 1 */
	size_t n_zones;
	bool spread_zones;               /* place instances round-robin over zones */
	bool warm_start;                 /* the first `count` instances serve at t = 0 */
	struct fs_delay_cfg provisioning;/* request -> machine running (not billed) */
	double download_bytes_per_s;     /* weights download, bytes/s */
	double load_bytes_per_s;         /* weights from disk to GPU memory, bytes/s */
	fs_ns engine_start_ns;           /* engine start-up besides the weights */
	double price_usd_per_h;          /* per instance (all its GPUs), on-demand or spot */
	struct fs_price_step *price_steps;  /* optional time-varying price (spot) */
	size_t n_price_steps;
	double commit_fee;               /* committed plans: per instance per period of
	                                  * the plan (fs_pricing_period_ns), in the
	                                  * scenario's currency */
	double overflow_usd_per_h;       /* committed plans: per hour of an instance
	                                  * above the commitment (default on-demand) */
	struct fs_billing_cfg billing;
	struct fs_spot_cfg spot;         /* SPOT pools */
	int fallback_pool;               /* FALLBACK: on-demand pool for stand-ins, -1 none */
	char *unused_spot_json;          /* not spot in this load, though a sweep axis,
	                                  * a variant or a --set names its pricing: its
	                                  * spot-only keys (spot, overprovision,
	                                  * price_schedule, fallback_pool) as written,
	                                  * checked and unused, as one JSON object's
	                                  * text (owned); NULL when none */
};

#define FS_ROUTER_MAP(X)                                                                                          \
	X(FS_ROUTER_ROUND_ROBIN, "round_robin")                                                                   \
	X(FS_ROUTER_LEAST_OUTSTANDING, "least_outstanding")                                                       \
	X(FS_ROUTER_LEAST_KV, "least_kv")                    /* lowest fraction of KV blocks in use */            \
	X(FS_ROUTER_POWER_OF_TWO, "power_of_two")            /* two at random, the less loaded */                 \
	X(FS_ROUTER_COST_AWARE, "cost_aware")                /* cheapest instance with room, else least loaded */ \
	X(FS_ROUTER_SESSION, "session")                      /* a session's requests to its last instance */      \
	X(FS_ROUTER_PREFIX, "prefix")                        /* the longest cached prefix, else least loaded */
enum fs_router_kind {
	FS_ROUTER_MAP(FS_ENUM_MEMBER)
};

#define FS_SCALE_METRIC_MAP(X)                                                                                \
	X(FS_SCALE_QUEUE_LEN, "queue_len")          /* requests waiting per serving instance */               \
	X(FS_SCALE_KV_USE, "kv_use")                /* mean fraction of KV blocks in use */                   \
	X(FS_SCALE_BUSY, "busy")                    /* mean fraction of time an iteration is in flight */     \
	X(FS_SCALE_CONCURRENCY, "concurrency")      /* requests queued or running per serving instance */     \
	X(FS_SCALE_REQUEST_RATE, "request_rate")    /* requests routed per second per serving instance */     \
	X(FS_SCALE_CAPACITY_UTIL, "capacity_util")  /* output tokens / saturation tokens over the interval */ \
	X(FS_SCALE_TTFT_P90, "ttft_p90")            /* 90th percentile of TTFT (s) over a recent window */
enum fs_scale_metric {
	FS_SCALE_METRIC_MAP(FS_ENUM_MEMBER)
};

/* An HPA scaling policy: at most `value` instances (or `value` percent of
 * the count at the period's start) added or removed per period. */
struct fs_scale_policy {
	bool percent;
	double value;
	fs_ns period_ns;
};

#define FS_SELECT_MAP(X)                                                                 \
	X(FS_SELECT_MAX, "max")            /* the policy allowing the largest change */  \
	X(FS_SELECT_MIN, "min")            /* the policy allowing the smallest change */ \
	X(FS_SELECT_DISABLED, "disabled")  /* no change in this direction */
enum fs_select_policy {
	FS_SELECT_MAP(FS_ENUM_MEMBER)
};

#define FS_SCALE_MAX_POLICIES 4

/* One direction's HPA behaviour. */
struct fs_scale_rules {
	fs_ns window_ns;             /* stabilisation window */
	struct fs_scale_policy policies[FS_SCALE_MAX_POLICIES];
	size_t n_policies;
	enum fs_select_policy select;
};

/* Scheduled scaling: from hour-of-day at_h on, at least min_count. */
struct fs_scale_step {
	double at_h;
	int min_count;
};

struct fs_autoscale_cfg {
	bool enabled;
	int pool;                        /* the pool it scales */
	enum fs_scale_metric metric;
	double target;                   /* target value of the metric (per instance) */
	double tolerance;                /* no change while |metric/target - 1| <= this */
	fs_ns interval_ns;               /* evaluation period */
	fs_ns ttft_window_ns;            /* ttft_p90: first tokens of this long back */
	struct fs_scale_rules up, down;  /* HPA behaviour per direction */
	double activation;               /* from zero: scale to 1 when this much work waits */
	fs_ns zero_grace_ns;             /* to zero: only after this long without work */
	bool predictive;                 /* scale ahead of the known daily profile */
	struct fs_scale_step *schedule;  /* daily profile, ascending at_h; may be NULL */
	size_t n_schedule;
	double idle_busy_below;          /* idle release: busy below this ... */
	fs_ns idle_for_ns;               /* ... for this long releases one instance (0 = off) */
	double flap_launches_per_h;      /* warn above this many relaunches per hour
	                                  * (launches within an hour of a release) */
};

#define FS_CURRENCY_MAX 16           /* bytes of a currency label, NUL included */

struct fs_fleet_cfg {
	char currency[FS_CURRENCY_MAX];  /* label of every price and cost ("USD"); the
	                                  * catalogue's example prices are USD */
	bool explicit_fleet;             /* false: one warm on-demand pool built from the engine */
	struct fs_pool_cfg *pools;
	size_t n_pools;
	struct fs_zone_cfg *zones;       /* at least one ("default") */
	size_t n_zones;
	enum fs_router_kind router;
	enum fs_spot_strategy strategy;
	struct fs_autoscale_cfg autoscale;
	int *class_pool;                 /* per workload class: pinned pool or -1 */
};

/* The names of the enums above as the scenario format spells them (their
 * tables' names; "?" for a value outside the enum), and the exact lookups:
 * 0 with *out set, or -1 when no member has that name (*out untouched).
 * Defined in config_names.c. */
const char *fs_delay_kind_name(enum fs_delay_kind v);
int fs_delay_kind_from_name(const char *name, enum fs_delay_kind *out);
const char *fs_billing_granularity_name(enum fs_billing_granularity v);
int fs_billing_granularity_from_name(const char *name, enum fs_billing_granularity *out);
const char *fs_inflight_action_name(enum fs_inflight_action v);
int fs_inflight_action_from_name(const char *name, enum fs_inflight_action *out);
const char *fs_spot_strategy_name(enum fs_spot_strategy v);
int fs_spot_strategy_from_name(const char *name, enum fs_spot_strategy *out);
const char *fs_router_kind_name(enum fs_router_kind v);
int fs_router_kind_from_name(const char *name, enum fs_router_kind *out);
const char *fs_scale_metric_name(enum fs_scale_metric v);
int fs_scale_metric_from_name(const char *name, enum fs_scale_metric *out);
const char *fs_select_policy_name(enum fs_select_policy v);
int fs_select_policy_from_name(const char *name, enum fs_select_policy *out);

#endif
