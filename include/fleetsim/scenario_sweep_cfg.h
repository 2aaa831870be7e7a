/*
 * scenario_sweep_cfg.h — a scenario's "sweep" and "objective" sections, resolved.
 * A sweep is axes over scenario paths; each point of the sweep is the base
 * scenario with one value per axis set (exactly like a variant's "set").
 * The objective says what to minimise and which constraints (SLO,
 * availability, redundancy) a point must meet, with what confidence.  Owned by struct fs_scenario.
 */
#ifndef FLEETSIM_SCENARIO_SWEEP_CFG_H
#define FLEETSIM_SCENARIO_SWEEP_CFG_H

#include <stdbool.h>
#include <stddef.h>

#include "fleetsim/common.h"

#define FS_SWEEP_MODE_MAP(X)                                                          \
	X(FS_SWEEP_GRID, "grid")      /* every combination of axis values */          \
	X(FS_SWEEP_ZIP, "zip")        /* the i-th value of every axis together */     \
	X(FS_SWEEP_SEARCH, "search")  /* grid over the other axes; bisection on the   \
	                              * axis marked "search" (monotone: more capacity \
	                              * never breaks a met constraint) */
enum fs_sweep_mode {
	FS_SWEEP_MODE_MAP(FS_ENUM_MEMBER)
};

struct fs_sweep_axis {
	char *path;                  /* "fleet.pools[0].count" */
	char **values;               /* JSON texts: "4", "\"spot\"", in sweep order */
	size_t n_values;
	bool search;                 /* SEARCH: the bisected axis (values ascending) */
};

#define FS_SWEEP_MAX_AXES 8           /* axes of a sweep at most */

struct fs_sweep_cfg {
	bool present;                /* the scenario has a "sweep" section */
	enum fs_sweep_mode mode;
	struct fs_sweep_axis *axes;
	size_t n_axes;
	size_t baseline;             /* point index paired differences refer to (0) */
};

#define FS_OBJECTIVE_MAP(X)                                                                                                    \
	X(FS_OBJ_TOTAL_USD, "total_cost")                         /* "total_cost": cost.total */                               \
	X(FS_OBJ_MONTHLY_USD, "monthly_cost")                     /* "monthly_cost": cost.monthly_projected */                 \
	X(FS_OBJ_USD_PER_1M_TOKENS, "cost_per_1m_output_tokens")  /* "cost_per_1m_output_tokens": cost.per_1m_output_tokens */
enum fs_objective_metric {
	FS_OBJECTIVE_MAP(FS_ENUM_MEMBER)
};

enum fs_constraint_kind {
	FS_CONSTRAINT_LATENCY,       /* latency quantile <= max_ms */
	FS_CONSTRAINT_ATTAINMENT,    /* SLO attainment >= min */
	FS_CONSTRAINT_AVAILABILITY,  /* availability of a pool or the fleet >= min
	                              * (MODEL: F15, S20) */
	FS_CONSTRAINT_MIN_SERVING    /* fewest serving instances of a pool or the
	                              * fleet over the availability window >= min */
};

/* One constraint, checked in every replication. */
struct fs_constraint {
	enum fs_constraint_kind kind;
	int class_idx;               /* -1: all traffic */
	int latency;                 /* enum fs_latency (LATENCY) */
	int quantity;                /* enum fs_quantity (LATENCY) */
	double max_ms;               /* LATENCY */
	double min;                  /* ATTAINMENT, AVAILABILITY: 0..1;
	                              * MIN_SERVING: instances */
	int pool_idx;                /* AVAILABILITY, MIN_SERVING: a pool of the base
	                              * document by position, -1: the fleet */
};

struct fs_objective_cfg {
	bool present;
	enum fs_objective_metric minimize;
	struct fs_constraint *constraints;
	size_t n_constraints;
	double confidence;           /* a point is feasible when the share of its
	                              * replications meeting every constraint is
	                              * >= this (default 0.9) */
	int pareto_latency;          /* enum fs_latency of the Pareto front (TTFT) */
	int pareto_quantity;         /* enum fs_quantity (P99) */
	int pareto_class;            /* -1: all traffic */
	double ci_target;            /* stopping rule: relative CI half-width of
	                              * the objective (0 = off) */
	int max_replications;        /* stopping rule cap */
};

#endif
