/*
 * budget.h — `fleetsim budget PLAN.json`: a period's GPU tasks (fine-tuning
 * jobs, serving, data processing, experiments) turned into card-hours, a
 * schedule with its peak concurrent cards, the cheapest pricing plan per
 * task and per GPU pool, machine costs besides the GPU, and a total with the
 * planning margin (risk factor, buffer) apart from the estimate.  A loaded
 * plan owns its strings and tasks (fs_budget_plan_free); a result owns its
 * arrays (fs_budget_result_fini).  Assumptions G1-G14 in docs/MODEL.md.
 */
#ifndef FLEETSIM_BUDGET_H
#define FLEETSIM_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fleetsim/catalog.h"
#include "fleetsim/common.h"
#include "fleetsim/fleet_cfg.h"
#include "fleetsim/train.h"

#define FS_BUDGET_BUFFER_DEFAULT 0.25        /* G9: 20-30% */
#define FS_BUDGET_RISK_DEFAULT 1.3           /* G9: 1.3-1.5 */
#define FS_BUDGET_SPOT_OVERHEAD_DEFAULT 0.15 /* G7 */
#define FS_BUDGET_QLORA_FACTOR_DEFAULT 1.39  /* G2 */
#define FS_BUDGET_PEAK_TO_MEAN_DEFAULT 2.0   /* G5 */
#define FS_BUDGET_BANDWIDTH_DEFAULT 1.25e9   /* G10: 10 Gbit/s in bytes/s */
#define FS_BUDGET_MAX_CARDS 4096
#define FS_BUDGET_MAX_TASKS 1000
#define FS_BUDGET_MAX_OCCURRENCES 10000      /* of one recurring task */

#define FS_BUDGET_KIND_MAP(X)                                                                    \
	X(FS_BUDGET_FINETUNE, "finetune")      /* training FLOPs -> card-hours */                \
	X(FS_BUDGET_SERVING, "serving")        /* requests/day -> instances, or a run's fleet */ \
	X(FS_BUDGET_DATA, "data")              /* fixed card-hours (data processing) */          \
	X(FS_BUDGET_EXPERIMENT, "experiment")  /* fixed card-hours (experiments) */
enum fs_budget_kind {
	FS_BUDGET_KIND_MAP(FS_ENUM_MEMBER)
	FS_BUDGET__KIND_COUNT
};

/* The training method (enum fs_train_method) and the LoRA module bits
 * (FS_LORA_*) are train.h's, shared with the training memory model. */

struct fs_budget_train {
	enum fs_train_method method;
	double tokens_per_epoch;     /* "tokens", or samples x tokens_per_sample */
	double samples;              /* 0 when "tokens" was given */
	double tokens_per_sample;
	double epochs;
	double mfu;                  /* 0 = the GPU's catalogue MFU (P9) */
	int64_t seq_tokens;          /* tokens per sequence of a micro-batch */
	int64_t micro_batch;         /* sequences per micro-batch per card */
	int64_t grad_accum;          /* micro-batches per optimizer step */
	int lora_rank;
	unsigned lora_modules;       /* FS_LORA_* bits (train.h) */
	double dp_efficiency;        /* 0 = computed from the all-reduce (G3) */
	double qlora_factor;         /* QLoRA time / LoRA time (G2) */
	fs_ns deadline_ns;           /* from the plan's start; 0 = none */
	/* memory fit (G13, T1-T10): how each card holds the job */
	enum fs_train_shard shard;   /* over the task's cards (default none) */
	enum fs_train_recompute recompute;   /* default none */
	double logit_bytes;          /* T7 (default 4) */
	int kbit_fp32_cast;          /* QLoRA: T10 (default 1) */
	struct fs_budget_spot *spot; /* the task's spot block (owned), or NULL:
	                              * the plan's flat spot overhead (G7) */
};

/* A fine-tuning task's "spot" block (G14): the job on spot with checkpoints,
 * priced by fs_ckpt_run instead of the flat overhead.  Work, cards, prices
 * and deadline come from the task; the strings are owned. */
struct fs_budget_spot {
	double interval_h;           /* 0 = "auto" (Daly's, K4) */
	double ckpt_cost_h, restart_cost_h;
	double rate_per_h, unavailable_mean_h;   /* or a trace: */
	char *trace_path, *trace_display;
	enum fs_capacity_format trace_format;
	int trace_instances;
	double p_target;             /* a policy meets the deadline when its
	                              * P(met) is at least this (default 0.95) */
	int replications;            /* default 1000 */
	uint64_t seed;               /* default 1 */
};

struct fs_budget_serving {
	double requests_per_day;
	double prompt_tokens, output_tokens;   /* mean per request */
	double ttft_slo_ms, tpot_slo_ms;       /* 0 = no bound */
	double peak_to_mean;                   /* peak rate / daily mean (G5) */
	int tp;
	char *from_dir;              /* a run/sweep output directory, or NULL */
	double sim_monthly_cost;     /* its projected monthly cost (NAN: none) */
	int from_instances;          /* its instances (from_dir) */
};

struct fs_budget_fixed {
	double card_hours;           /* per occurrence */
	fs_ns every_ns;              /* recurrence period; 0 = once */
	int64_t count;               /* occurrences; 0 = until the period's end */
};

struct fs_budget_task {
	char *name;
	char *at;                    /* "FILE:LINE:COL" of its object, for
	                              * errors found when the plan is computed */
	enum fs_budget_kind kind;
	const struct fs_gpu_spec *gpu;         /* catalogue (borrowed) */
	const struct fs_model_spec *model;     /* catalogue or own_model */
	struct fs_model_spec own_model;        /* from a config.json (owned) */
	char *model_label;                     /* as written */
	int cards;                   /* cards at once (serving: computed) */
	fs_ns start_ns;              /* from the plan's start */
	fs_ns duration_ns;           /* wall span; 0 = computed */
	double risk_factor;          /* the plan's unless given */
	unsigned plans_allowed;      /* bit (1 << enum fs_pricing) */
	double transfer_gb;          /* moved at set-up (G10); < 0 = the weights */
	double disk_gb, object_gb, egress_gb;
	struct fs_budget_train train;
	struct fs_budget_serving serve;
	struct fs_budget_fixed fixed;
};

/* Machine costs besides the GPU, in the plan's currency. */
struct fs_budget_machine {
	double disk_per_gb_month;    /* NVMe data disk */
	double object_per_gb_month;  /* object storage: checkpoints, datasets */
	double egress_per_gb;
	double addon_per_card_h;     /* CPU / RAM add-ons per card-hour */
	double bandwidth_bytes_per_s;/* data and weights transfer (G10) */
};

/* Prices of one GPU per card: fee per period of each plan (per hour for
 * on_demand and spot); 0 = not offered. */
struct fs_budget_prices {
	const struct fs_gpu_spec *gpu;
	double fee[FS_PRICING__COUNT];
};

struct fs_budget_plan {
	char *path, *name, *description;
	char currency[16];
	int64_t start_day;           /* days since 1970-01-01, or -1 (no date) */
	fs_ns period_ns;             /* 0 = up to the last task's end */
	double buffer, risk_factor, spot_overhead;
	struct fs_budget_machine machine;
	struct fs_budget_prices *prices;       /* one per GPU the tasks use */
	size_t n_prices;
	struct fs_budget_task *tasks;
	size_t n_tasks;
};

/* One occurrence of a task on the schedule: [start_ns, end_ns) with cards. */
struct fs_budget_slot {
	fs_ns start_ns, end_ns;
	int cards;
	size_t task;
};

struct fs_budget_task_result {
	int cards;
	size_t n_occurrences;
	double setup_h;              /* transfer time per occurrence */
	double wall_h;               /* one occurrence, set-up included */
	double card_h;               /* all occurrences, set-up included */
	/* fine-tuning */
	double flops_per_token, total_flops, trainable_params, mfu;
	double one_card_h;           /* compute hours on one card */
	double step_compute_ms, allreduce_ms, dp_efficiency, speedup;
	int cards_for_deadline;      /* fewest cards meeting it; 0 none / never */
	bool late;                   /* misses its deadline */
	double mem_bytes_per_card;   /* training memory plan's total (G13) */
	double mem_activation_bytes; /* of which activations */
	/* spot with checkpoints (a spot block, G14; else spot_policy -1) */
	int spot_policy;             /* enum fs_ckpt_policy chosen, or -1 */
	double spot_interval_h;      /* the checkpoint interval used */
	double spot_cost;            /* mean cost of the chosen policy */
	double spot_completion_h;    /* its mean wall hours, set-up included */
	double spot_p95_h;           /* its 95th percentile, set-up included */
	double spot_p_met;           /* its P(deadline met) (NAN: no deadline) */
	double spot_policy_cost[3];  /* spot, on-demand, fallback: mean cost */
	double spot_policy_p_met[3]; /* and P(deadline met) (NAN: none / not run) */
	/* serving */
	double instance_rps, peak_rps, prefill_ms, decode_step_ms;
	int64_t decode_batch;
	int instances;
	/* pricing: each plan's cost of this task alone (NAN: not offered) */
	double plan_cost[FS_PRICING__COUNT];
	double break_even_share[FS_PRICING__COUNT]; /* committed plans (NAN else) */
	double used_share[FS_PRICING__COUNT];       /* of the committed hours */
	enum fs_pricing best;
	double best_cost;
	double gpu_cost;             /* its share of its pool's chosen cost */
	double machine_cost;         /* disk, object storage, egress, add-ons */
	double risk_cost;            /* (risk factor - 1) x (gpu + machine) */
};

struct fs_budget_pool_result {
	const struct fs_gpu_spec *gpu;
	int peak_cards;
	double card_h, span_h;
	double per_task_cost;        /* each task on its own cheapest plan */
	double plan_cost[FS_PRICING__COUNT];   /* committed: best count + on-demand
	                                        * overflow; usage: all tasks on it */
	int plan_commit_cards[FS_PRICING__COUNT];
	double break_even_share[FS_PRICING__COUNT];
	bool per_task_best;          /* per-task plans beat one pool commitment */
	enum fs_pricing best;        /* when !per_task_best */
	double best_cost;
};

struct fs_budget_month {
	char label[24];              /* "2026-01" or "month 1" */
	double card_h;
	double cost;                 /* estimate (gpu + machine), no margin */
};

struct fs_budget_result {
	struct fs_budget_task_result *tasks;   /* plan->n_tasks */
	struct fs_budget_slot *slots;
	size_t n_slots;
	struct fs_budget_pool_result *pools;
	size_t n_pools;
	struct fs_budget_month *months;
	size_t n_months;
	int peak_cards;              /* all GPUs together */
	fs_ns end_ns;                /* the schedule's end */
	double card_h, gpu_cost, machine_cost, estimate;
	double risk_cost, buffer_cost, margin, planned;
};

/*
 * Load and check PLAN.json (comments allowed).  Returns a heap plan
 * (fs_budget_plan_free) or NULL with err at FILE:LINE:COL and the JSON path
 * ("expected ..., found ...").
 */
struct fs_budget_plan *fs_budget_plan_load(const char *path, struct fs_error *err);
void fs_budget_plan_free(struct fs_budget_plan *plan);

/*
 * Compute the budget.  Returns 0, or -1 with err for a task that cannot be
 * planned (a model that does not fit, an SLO the GPU cannot meet), placed
 * at the plan's file and the task's path.  *res must be freed with
 * fs_budget_result_fini either way.
 */
int fs_budget_compute(const struct fs_budget_plan *plan, struct fs_budget_result *res,
                      struct fs_error *err);
void fs_budget_result_fini(struct fs_budget_result *res);

/* ---- the pieces, pure (tests and docs) ---------------------------------- */

/* Hours to move gb gigabytes (1e9 B) at bytes_per_s (G10). */
double fs_budget_transfer_h(double gb, double bytes_per_s);

/* Break-even utilisation of a commitment (G8): fee / (period_h x hourly),
 * through fs_billing_break_even_h_per_month; INFINITY without an hourly price. */
double fs_budget_break_even_share(double fee, enum fs_pricing plan, double hourly);

/* Training FLOPs per token (G1, G2): 6 N full, 4 N + 6 A LoRA (+ 2 N + 2 A
 * with full recomputation: one more forward), N the
 * active parameters (an MoE model's experts_per_token experts, not all),
 * A the adapters those active parameters carry (fs_train_lora_params with
 * the active experts only). */
double fs_budget_flops_per_token(const struct fs_model_spec *m,
                                 const struct fs_budget_train *t);

/* Data-parallel efficiency on `cards` cards (G3): compute time of a step /
 * (compute + ring all-reduce of trainable x 2 B over the GPU's link).  Also
 * gives the step's compute and all-reduce times (ms; may be NULL). */
double fs_budget_dp_efficiency(const struct fs_gpu_spec *gpu, const struct fs_model_spec *m,
                               const struct fs_budget_train *t, int cards,
                               double *compute_ms, double *allreduce_ms);

/* Most cards in use at once among slots[0..n) (G6): a time sweep in which a
 * slot ending at t frees its cards before one starting at t takes them. */
int fs_budget_peak_cards(const struct fs_budget_slot *slots, size_t n);

/* The planning margin of an estimate (G9): *risk_cost = (risk_factor - 1) x
 * estimate, *buffer_cost = buffer x (estimate + risk); returns the budget to
 * request, estimate + risk + buffer (1.625 x the estimate with the
 * defaults).  Either out pointer may be NULL. */
double fs_budget_planned(double estimate, double risk_factor, double buffer,
                         double *risk_cost, double *buffer_cost);

/* ---- outputs (budget_out.c) --------------------------------------------- */

/* The console table. */
void fs_budget_print(const struct fs_budget_plan *plan, const struct fs_budget_result *res,
                     FILE *out);
/* budget.json and budget.csv texts (heap, caller frees). */
char *fs_budget_json(const struct fs_budget_plan *plan, const struct fs_budget_result *res);
char *fs_budget_csv(const struct fs_budget_plan *plan, const struct fs_budget_result *res);

/* "finetune", "serving", "data", "experiment". */
const char *fs_budget_kind_name(enum fs_budget_kind k);
/* The kind named `name` (exact) into *out: 0, or -1 when none (*out untouched). */
int fs_budget_kind_from_name(const char *name, enum fs_budget_kind *out);

#endif
