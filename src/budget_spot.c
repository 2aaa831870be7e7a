/*
 * budget_spot.c — a fine-tuning task's "spot" block (G14): the job run on
 * spot with checkpoints, priced by the checkpoint simulation (fs_ckpt_run)
 * under each deadline policy, the cheapest policy meeting the task's
 * deadline chosen.  The block and its trace strings belong to the task
 * (fs__budget_spot_free); the figures go into the task's result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "budget_internal.h"
#include "ckpt_internal.h"
#include "fleetsim/ckpt.h"

#define H_NS FS__BUDGET_NS_PER_H

static const char *const SPOT_KEYS[] = {
	"interval", "checkpoint_cost", "restart_cost", "interruptions", "p_target",
	"replications", "seed", NULL
};

void fs__budget_spot_free(struct fs_budget_spot *s)
{
	if (s == NULL)
		return;
	free(s->trace_path);
	free(s->trace_display);
	free(s);
}

int fs__budget_load_spot(struct fs__sc *sc, const cJSON *task, struct fs_budget_train *tr)
{
	const cJSON *node = fs__sc_get(task, "spot"), *iv;
	struct fs_budget_spot *s;
	struct fs_ckpt_interrupts in;
	size_t saved;
	int64_t v;
	int rc;

	if (node == NULL)
		return 0;
	if (!cJSON_IsObject(node))
		return fs__sc_fail_member(sc, task, "spot", "expected an object {\"interval\", "
		                          "\"checkpoint_cost\", \"restart_cost\", "
		                          "\"interruptions\"}, found %s", fs__sc_type_name(node));
	s = fs_xcalloc(1, sizeof *s);
	tr->spot = s;                   /* owned by the task from here on */
	s->p_target = 0.95;             /* P(deadline met) wanted: not a CI level */
	s->replications = 1000;
	s->seed = 1;
	saved = fs__sc_push_key(sc, "spot");
	if (fs__sc_check_object(sc, node, SPOT_KEYS) != 0)
		return -1;
	iv = fs__sc_get(node, "interval");
	if (!(cJSON_IsString(iv) && strcmp(iv->valuestring, "auto") == 0) &&
	    fs__ckpt_hours(sc, node, "interval", 1, &s->interval_h) < 0)
		return -1;
	if (fs__sc_require(sc, node, "checkpoint_cost") != 0 ||
	    fs__ckpt_hours(sc, node, "checkpoint_cost", 0, &s->ckpt_cost_h) < 0 ||
	    fs__ckpt_hours(sc, node, "restart_cost", 0, &s->restart_cost_h) < 0)
		return -1;
	if (s->ckpt_cost_h == 0 && s->interval_h == 0)
		return fs__sc_fail_member(sc, node, "checkpoint_cost", "expected a checkpoint "
		                          "cost > 0 when the interval is \"auto\" (Daly's "
		                          "interval is 0 for free checkpoints), found 0");
	memset(&in, 0, sizeof in);
	if (fs__ckpt_load_interruptions(sc, node, &in, &s->trace_path, &s->trace_display) != 0)
		return -1;
	s->rate_per_h = in.rate_per_h;
	s->unavailable_mean_h = in.unavailable_mean_h;
	s->trace_format = in.trace_format;
	s->trace_instances = in.trace_instances;
	if (fs__sc_number(sc, node, "p_target", 0, false, 1, false, &s->p_target) < 0)
		return -1;
	rc = fs__sc_int(sc, node, "replications", 1, 1000000, &v);
	if (rc < 0)
		return -1;
	if (rc == 1)
		s->replications = (int)v;
	rc = fs__sc_int(sc, node, "seed", 0, FS__MAX_INT_JSON, &v);
	if (rc < 0)
		return -1;
	if (rc == 1)
		s->seed = (uint64_t)v;
	fs__sc_pop(sc, saved);
	return 0;
}

int fs__budget_spot(const struct fs_budget_plan *plan, size_t i,
                    struct fs_budget_task_result *r, struct fs_error *err)
{
	static const enum fs_ckpt_policy POLICIES[] = {
		FS_CKPT_SPOT_ONLY, FS_CKPT_ON_DEMAND_ONLY, FS_CKPT_SPOT_FALLBACK
	};
	const struct fs_budget_task *t = &plan->tasks[i];
	const struct fs_budget_spot *s = t->train.spot;
	const struct fs_budget_prices *p = fs__budget_prices(plan, t->gpu);
	struct fs_ckpt_result *cr = fs_xcalloc(1, sizeof *cr);
	struct fs_ckpt_cfg c;
	double start_fee[3];
	int best = -1, n = 3;

	memset(&c, 0, sizeof c);
	c.work_h = r->wall_h - r->setup_h;          /* MODEL: G14 */
	c.cards = r->cards;
	c.interval_h = s->interval_h;
	c.ckpt_cost_h = s->ckpt_cost_h;
	c.restart_cost_h = s->restart_cost_h;
	c.spot_price_per_h = p->fee[FS_PRICING_SPOT];
	c.on_demand_price_per_h = p->fee[FS_PRICING_ON_DEMAND];
	c.spot.rate_per_h = s->rate_per_h;
	c.spot.unavailable_mean_h = s->unavailable_mean_h;
	c.spot.trace_path = s->trace_path;
	c.spot.trace_display = s->trace_display;
	c.spot.trace_format = s->trace_format;
	c.spot.trace_instances = s->trace_instances;
	c.replications = s->replications;
	c.seed = s->seed;
	start_fee[0] = start_fee[2] = c.spot_price_per_h;
	start_fee[1] = c.on_demand_price_per_h;
	if (t->train.deadline_ns > 0) {
		/* the wall-clock left after the set-up, measured from the start */
		c.deadline_h = (double)(t->train.deadline_ns - t->start_ns) / (double)H_NS -
		               r->setup_h;
		if (!(c.deadline_h > 0))
			c.deadline_h = 1e-9;
	} else {
		n = 2;                      /* the fallback needs a deadline */
	}
	for (int k = 0; k < 3; k++)
		r->spot_policy_cost[k] = r->spot_policy_p_met[k] = NAN;
	for (int k = 0; k < n; k++) {
		double cost, met;

		c.policy = POLICIES[k];
		if (fs_ckpt_run(&c, cr, err) != 0) {
			free(cr);
			return -1;
		}
		/* MODEL: G14 — the set-up runs once, billed at the policy's
		 * starting price; the checkpoint simulation prices the rest. */
		cost = cr->cost.value + r->setup_h * r->cards * start_fee[k];
		met = cr->p_deadline_met.value;
		r->spot_policy_cost[k] = cost;
		r->spot_policy_p_met[k] = met;
		if (k == 0)
			r->spot_interval_h = cr->interval_h;
		/* the cheapest policy meeting the deadline with P(met) >= the
		 * target; when none does, the one most likely to meet it */
		if (best < 0) {
			best = k;
		} else {
			bool ok = isnan(met) || met >= s->p_target;
			bool best_ok = isnan(r->spot_policy_p_met[best]) ||
			               r->spot_policy_p_met[best] >= s->p_target;

			if ((ok && !best_ok) || (ok == best_ok && ok && cost < r->spot_policy_cost[best]) ||
			    (!ok && !best_ok && met > r->spot_policy_p_met[best]))
				best = k;
		}
		if (k == best) {
			r->spot_completion_h = cr->completion_h.value + r->setup_h;
			r->spot_p95_h = cr->completion_p95_h + r->setup_h;
		}
	}
	free(cr);
	r->spot_policy = (int)POLICIES[best];
	r->spot_cost = r->spot_policy_cost[best];
	r->spot_p_met = r->spot_policy_p_met[best];
	return 0;
}
