/*
 * config.h — the resolved, immutable scenario.  The scenario loader is the only
 * writer; after fs_scenario_load returns, every replication reads it without
 * locks.  All durations are fs_ns, all rates per second, all lengths tokens.
 * Loaded traces and empirical samples live here too, so that replications share
 * one read-only copy.  Owned by struct fs_scenario (scenario.h).
 */
#ifndef FLEETSIM_CONFIG_H
#define FLEETSIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "fleetsim/block_hash.h"
#include "fleetsim/common.h"
#include "fleetsim/llm_engine.h"
#include "fleetsim/perf.h"

/* ---- arrivals --------------------------------------------------------- */

#define FS_ARRIVAL_MAP(X)                                                                      \
	X(FS_ARRIVAL_POISSON, "poisson")  /* exponential inter-arrivals */                     \
	X(FS_ARRIVAL_GAMMA, "gamma")      /* Gamma renewal with coefficient of variation cv */ \
	X(FS_ARRIVAL_WEIBULL, "weibull")  /* Weibull renewal with shape k */                   \
	X(FS_ARRIVAL_TRACE, "trace")      /* replay of a loaded trace */
enum fs_arrival_kind {
	FS_ARRIVAL_MAP(FS_ENUM_MEMBER)
};

#define FS_TRACE_FORMAT_MAP(X)                                                                     \
	X(FS_TRACE_AZURE, "azure")        /* TIMESTAMP,ContextTokens,GeneratedTokens */            \
	X(FS_TRACE_VIDUR, "vidur")        /* arrived_at,num_prefill_tokens,num_decode_tokens */    \
	X(FS_TRACE_MOONCAKE, "mooncake")  /* JSONL: timestamp (ms), input_length, output_length */
enum fs_trace_format {
	FS_TRACE_FORMAT_MAP(FS_ENUM_MEMBER)
};

/* One request of a loaded trace, time relative to the trace's first request. */
struct fs_trace_row {
	fs_ns t_ns;
	int64_t prompt_tokens;
	int64_t output_tokens;
	struct fs_block_hashes hashes;   /* Mooncake hash_ids: ids point into the
	                                  * trace's hash_ids (none: n_units 0) */
	size_t hash_off;                 /* index of its first id in hash_ids */
};

/* Tokens per Mooncake hash_ids entry (FAST'25 traces, README there). */
#define FS_MOONCAKE_HASH_BLOCK_TOKENS 512

/* A loaded trace: rows sorted by t_ns, first at 0.  Immutable once loaded. */
struct fs_trace {
	char *path;                  /* as written in the scenario */
	enum fs_trace_format format;
	struct fs_trace_row *rows;
	size_t n_rows;
	fs_ns span_ns;               /* t of last row - t of first row */
	fs_ns loop_gap_ns;           /* gap inserted between loops: mean gap */
	uint64_t *hash_ids;          /* every row's block ids, row after row */
	size_t n_hash_ids;
};

struct fs_trace_cfg {
	struct fs_trace *trace;      /* loaded at scenario load time */
	double time_scale;           /* multiply trace times by this (default 1) */
	double rate_scale;           /* divide trace times by this (default 1) */
	bool loop;                   /* restart after the end (default true) */
	fs_ns start_offset_ns;       /* skip this much of the trace first */
};

/* Piecewise-constant rate schedule: rate_per_s[i] from at_ns[i] on. */
struct fs_rate_step {
	fs_ns at_ns;
	double rate_per_s;
};

struct fs_spike {
	fs_ns at_ns;
	fs_ns dur_ns;
	double multiplier;           /* rate multiplied by this while active */
};

/* One step of the spikes' combined factor: from at_ns on (to the next step)
 * the rate is multiplied by `factor`, the product of the active spikes'
 * multipliers. */
struct fs_spike_step {
	fs_ns at_ns;
	double factor;
};

struct fs_arrival_cfg {
	enum fs_arrival_kind kind;
	double rate_per_s;           /* mean rate (daily mean when diurnal) */
	double cv;                   /* GAMMA: coefficient of variation, > 0 */
	double weibull_shape;        /* WEIBULL: shape k > 0 */

	bool diurnal;                /* sinusoidal daily modulation */
	double diurnal_peak_to_trough;   /* ratio >= 1 */
	double diurnal_peak_hour;        /* 0 <= h < 24, in simulated clock */

	struct fs_rate_step *schedule;   /* NULL or n_schedule steps, at_ns ascending */
	size_t n_schedule;
	fs_ns schedule_period_ns;        /* 0: no repeat; else repeat every period */

	struct fs_spike *spikes;
	size_t n_spikes;
	/* The spikes as a step function, built by fs_arrival_prepare (1 before
	 * the first step), so that a rate costs O(log n_spikes), not
	 * O(n_spikes); owned, freed by fs_arrival_fini. */
	struct fs_spike_step *spike_steps;
	size_t n_spike_steps;
	double spike_factor_max;     /* largest factor of any step, and 1 */

	struct fs_trace_cfg trace;   /* TRACE only */
};

/* ---- lengths ------------------------------------------------------------ */

#define FS_LENGTH_MAP(X)                                                                          \
	X(FS_LENGTH_FIXED, "fixed")                                                               \
	X(FS_LENGTH_UNIFORM, "uniform")      /* integers in [min, max] */                         \
	X(FS_LENGTH_LOGNORMAL, "lognormal")  /* median, sigma (of the underlying normal) */       \
	X(FS_LENGTH_ZIPF, "zipf")            /* P(k) ~ k^-s on 1..zipf_n, then shifted/clamped */ \
	X(FS_LENGTH_EMPIRICAL, "empirical")  /* uniform choice among loaded values */             \
	X(FS_LENGTH_TRACE, "trace")          /* taken from the class's trace rows */
enum fs_length_kind {
	FS_LENGTH_MAP(FS_ENUM_MEMBER)
};

struct fs_length_cfg {
	enum fs_length_kind kind;
	int64_t fixed_tokens;        /* FIXED */
	double median_tokens;        /* LOGNORMAL */
	double sigma;                /* LOGNORMAL */
	double log_median;           /* LOGNORMAL: log(log_median_of), kept by
	                              * fs_length_prepare for the draws */
	double log_median_of;        /* the median it is the log of (0: none) */
	double zipf_s;               /* ZIPF exponent, > 0 */
	int64_t zipf_n;              /* ZIPF support size */
	double *zipf_cdf;            /* ZIPF: cumulative probabilities, zipf_n entries */
	int64_t *empirical;          /* EMPIRICAL values, n_empirical entries */
	size_t n_empirical;
	char *empirical_path;        /* EMPIRICAL: source file as written */
	char *empirical_column;      /* EMPIRICAL: CSV column name, or NULL */
	int64_t min_tokens;          /* clamp, >= 1 for prompts, >= 1 for outputs */
	int64_t max_tokens;          /* clamp */
};

/* ---- classes ------------------------------------------------------------ */

struct fs_slo_cfg {
	fs_ns ttft_ns;               /* 0 = no target */
	fs_ns tpot_ns;               /* 0 = no target */
	fs_ns e2e_ns;                /* 0 = no target */
	double attainment;           /* fraction of requests that must meet all targets */
};

struct fs_class_cfg {
	char *name;
	double share;                /* share of the shared arrival stream, >= 0 */
	bool own_arrivals;           /* true: `arrivals` below drives this class alone */
	struct fs_arrival_cfg arrivals;
	struct fs_length_cfg prompt;
	struct fs_length_cfg output;
	struct fs_slo_cfg slo;
	int priority;                /* lower value = served first (vLLM convention) */
	struct fs_closed_cfg *closed;/* closed-loop users and/or sessions, NULL:
	                              * an open class (owned; MODEL: U1-U9) */
};

struct fs_workload_cfg {
	bool has_shared_arrivals;    /* a workload-level arrival process exists */
	struct fs_arrival_cfg arrivals;
	struct fs_class_cfg *classes;
	size_t n_classes;
};

/* ---- engine ------------------------------------------------------------- */

enum fs_engine_kind {
	FS_ENGINE_QUEUE,             /* c parallel servers, service-time distribution */
	FS_ENGINE_VLLM               /* LLM replicas with vLLM-style continuous batching */
};

#define FS_SERVICE_MAP(X)                                                       \
	X(FS_SERVICE_FIXED, "fixed")                                            \
	X(FS_SERVICE_EXPONENTIAL, "exponential")                                \
	X(FS_SERVICE_LOGNORMAL, "lognormal")      /* mean and cv */
enum fs_service_kind {
	FS_SERVICE_MAP(FS_ENUM_MEMBER)
};

#define FS_DISCIPLINE_MAP(X)                                                        \
	X(FS_DISCIPLINE_FCFS, "fcfs")                                               \
	X(FS_DISCIPLINE_PRIORITY, "priority")  /* by class priority, FCFS within */
enum fs_queue_discipline {
	FS_DISCIPLINE_MAP(FS_ENUM_MEMBER)
};

struct fs_service_cfg {
	enum fs_service_kind kind;
	fs_ns mean_ns;
	double cv;                   /* LOGNORMAL: coefficient of variation */
};

/* ---- closed-loop users and sessions (MODEL: U1-U9) ------------------------ */

/* Piecewise-constant user count: users[i] from at_ns[i] on. */
struct fs_users_step {
	fs_ns at_ns;
	int64_t users;
};

/*
 * A class driven by users who wait for each response (`users`), and/or made
 * of multi-turn sessions (`session`).  Think times use the service-time
 * vocabulary (a mean of 0 is benchmark mode: no think time).  Without
 * users, sessions start at the class's open arrivals.
 */
struct fs_closed_cfg {
	bool has_users;              /* closed loop: users replace arrivals */
	int64_t users;               /* constant count (no schedule), >= 0 */
	struct fs_users_step *schedule;  /* NULL or n_schedule steps, ascending */
	size_t n_schedule;
	fs_ns schedule_period_ns;    /* 0: the last step holds */
	int64_t users_max;           /* most users at any time */
	struct fs_service_cfg think; /* after a response (users: between sessions) */
	bool sessions;               /* multi-turn conversations */
	struct fs_length_cfg turns;  /* turns per session, >= 1 */
	struct fs_service_cfg turn_think;  /* between the turns of a session */
};

/*
 * VLLM: `replicas` identical replicas (one GPU type x TP degree serving one
 * model each) behind a least-outstanding-requests router.  perf.gpu and
 * perf.model point into the built-in catalogue or into the scenario's own
 * catalogue entries (struct fs_scenario owns those).  `mem` is the memory plan
 * resolved at load time; sched.kv_blocks = usable blocks (mem.kv_blocks less
 * vLLM's null block).
 */
struct fs_llm_cfg {
	int replicas;                        /* >= 1 */
	struct fs_perf_cfg perf;             /* step-time and memory model */
	struct fs_llm_engine_cfg sched;      /* scheduler settings */
	struct fs_mem_plan mem;              /* resolved memory plan */
	char *step_table_path;               /* as written, NULL when none */
	struct fs_step_table *step_table;    /* owned; perf.table points here */
};

struct fs_engine_cfg {
	enum fs_engine_kind kind;
	int servers;                 /* QUEUE: c >= 1 */
	struct fs_service_cfg service;
	enum fs_queue_discipline discipline;
	struct fs_llm_cfg llm;       /* VLLM */
};

/* ---- simulation ----------------------------------------------------------- */

struct fs_sim_cfg {
	fs_ns horizon_ns;            /* arrivals stop and the world ends here */
	fs_ns warmup_ns;             /* requests arriving before this are not counted */
	fs_ns sample_interval_ns;    /* time-series grid */
	double start_hour;           /* clock hour at t = 0 (for diurnal), 0..24 */
	uint64_t seed;
	int replications;
	int64_t max_in_system;       /* beyond this the replication stops: unstable */
	bool drain;                  /* run past the horizon until every request in
	                              * the system ended, for at most another
	                              * horizon (MODEL: E5) */
};

/* The names of the enums above as the scenario format spells them (their
 * tables' names; "?" for a value outside the enum), and the exact lookups:
 * 0 with *out set, or -1 when no member has that name (*out untouched).
 * Defined in config_names.c. */
const char *fs_arrival_kind_name(enum fs_arrival_kind v);
int fs_arrival_kind_from_name(const char *name, enum fs_arrival_kind *out);
const char *fs_length_kind_name(enum fs_length_kind v);
int fs_length_kind_from_name(const char *name, enum fs_length_kind *out);
const char *fs_service_kind_name(enum fs_service_kind v);
int fs_service_kind_from_name(const char *name, enum fs_service_kind *out);
const char *fs_queue_discipline_name(enum fs_queue_discipline v);
int fs_queue_discipline_from_name(const char *name, enum fs_queue_discipline *out);

#endif
