/*
 * budget_internal.h — internal: shared between the budget's files (plan
 * loader budget_load*.c, the task figures budget_task.c, the schedule and
 * pricing budget_plan.c, a task's spot block budget_spot.c, the outputs
 * budget_out.c).  Loader helpers follow
 * the scenario walk's convention: 1 present, 0 absent, -1 error set.
 */
#ifndef FLEETSIM_BUDGET_INTERNAL_H
#define FLEETSIM_BUDGET_INTERNAL_H

#include "fleetsim/budget.h"
#include "fleetsim/scenario_hf_config.h"
#include "scenario_walk.h"

#define FS__BUDGET_NS_PER_H (INT64_C(3600) * FS_NS_PER_S)

/* "YYYY-MM-DD" to days since 1970-01-01; 0, or -1 when not a valid date. */
int fs__budget_parse_date(const char *text, int64_t *day);

/* obj[key] as a date (needs plan->start_day) or a duration, as ns after the
 * plan's start. */
int fs__budget_when(struct fs__sc *sc, const cJSON *obj, const char *key,
                    const struct fs_budget_plan *plan, fs_ns *out);
/* obj[key] (a string) as a catalogue GPU, or the GPU named by key itself. */
int fs__budget_gpu(struct fs__sc *sc, const cJSON *obj, const char *key,
                   const struct fs_gpu_spec **out);
int fs__budget_gpu_key(struct fs__sc *sc, const cJSON *obj, const char *key,
                       const struct fs_gpu_spec **out);
/* The prices entry of gpu, created on first use (catalogue fees in USD). */
struct fs_budget_prices *fs__budget_prices_of(struct fs_budget_plan *plan,
                                              const struct fs_gpu_spec *gpu);

/* One task object (the path names it) into *t (zeroed); budget_load_task.c. */
int fs__budget_load_task(struct fs__sc *sc, const cJSON *node, struct fs_budget_plan *plan,
                         struct fs_budget_task *t);

/* The figures of task i alone (card-hours, cards, wall time; fine-tuning
 * and serving models) into *r; budget_task.c.  0, or -1 with err. */
int fs__budget_task_figures(const struct fs_budget_plan *plan, size_t i,
                            struct fs_budget_task_result *r, struct fs_error *err);

/* A serving task's instances from the step model (G4, G5): 0, or -1 with
 * err when the model does not fit or an SLO cannot be met. */
int fs__budget_serving(const struct fs_budget_task *t, struct fs_budget_task_result *r,
                       struct fs_error *err);

/* A fine-tuning task's "spot" block into tr->spot (owned by the task even
 * on failure; budget_spot.c): 1/0/-1 as the readers, 0 when absent. */
int fs__budget_load_spot(struct fs__sc *sc, const cJSON *task, struct fs_budget_train *tr);
void fs__budget_spot_free(struct fs_budget_spot *s);

/* Price task i's spot block (G14) into r's spot_* fields: every deadline
 * policy simulated, the cheapest meeting the deadline chosen.  r holds the
 * task's figures (wall, set-up, cards).  0, or -1 with err. */
int fs__budget_spot(const struct fs_budget_plan *plan, size_t i,
                    struct fs_budget_task_result *r, struct fs_error *err);

/* The training memory config of a fine-tuning task on its cards (G13). */
void fs__budget_train_cfg(const struct fs_budget_task *t, struct fs_train_cfg *c);

/* The prices of gpu in plan (never NULL after loading). */
const struct fs_budget_prices *fs__budget_prices(const struct fs_budget_plan *plan,
                                                 const struct fs_gpu_spec *gpu);

/* "on demand", "spot", "daily", ... for tables. */
const char *fs__budget_plan_word(enum fs_pricing p);

#endif
