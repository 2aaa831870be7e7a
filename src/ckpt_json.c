/*
 * ckpt_json.c — the JSON form of checkpointed-job results (checkpoint.json
 * of `fleetsim checkpoint`; docs/BUDGET.md): one object per policy and the
 * interval comparison.  Figures have 9 significant digits, non-finite ones
 * are null (fs_json_num).  The caller owns (cJSON_Delete) every object
 * returned.
 */
#include "ckpt_internal.h"

#include <cjson/cJSON.h>

#include "fleetsim/out_format.h"

static void ci(cJSON *o, const char *key, const struct fs_ci *c)
{
	cJSON *x = cJSON_AddObjectToObject(o, key);

	fs_json_add_num(x, "mean", c->value);
	fs_json_add_num(x, "ci_lo", c->ci_lo);
	fs_json_add_num(x, "ci_hi", c->ci_hi);
	fs_json_add_num(x, "half_width", c->half_width);
}

struct cJSON *fs__ckpt_policy_json(const struct fs_ckpt_result *r,
                                   enum fs_ckpt_policy policy)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "policy", fs_ckpt_policy_name(policy));
	fs_json_add_num(o, "interval_h", r->interval_h);
	fs_json_add_num(o, "checkpoints", r->segments);
	ci(o, "completion_h", &r->completion_h);
	fs_json_add_num(o, "completion_p50_h", r->completion_p50_h);
	fs_json_add_num(o, "completion_p95_h", r->completion_p95_h);
	fs_json_add_num(o, "expected_completion_h", r->expected_h);
	ci(o, "cost", &r->cost);
	fs_json_add_num(o, "cost_p95", r->cost_p95);
	ci(o, "p_deadline_met", &r->p_deadline_met);
	ci(o, "interruptions", &r->interruptions);
	ci(o, "on_demand_h", &r->on_demand_h);
	ci(o, "lost_h", &r->lost_h);
	return o;
}

struct cJSON *fs__ckpt_interval_json(const struct fs_ckpt_result *r)
{
	cJSON *o = cJSON_CreateObject(), *scan;

	fs_json_add_num(o, "mtbi_h", r->mtbi_h);
	fs_json_add_num(o, "young_h", r->young_h);
	fs_json_add_num(o, "daly_h", r->daly_h);
	fs_json_add_num(o, "renewal_opt_h", r->renewal_opt_h);
	fs_json_add_num(o, "best_h", r->best_interval_h);
	ci(o, "best_h_ci", &r->best_interval_ci);
	fs_json_add_num(o, "best_h_sections", (double)r->best_interval_ci.sections);
	ci(o, "best_completion_h", &r->best_completion_h);
	scan = cJSON_AddArrayToObject(o, "scan");
	for (int i = 0; i < r->n_scan; i++) {
		cJSON *p = cJSON_CreateObject();

		fs_json_add_num(p, "interval_h", r->scan[i].interval_h);
		ci(p, "completion_h", &r->scan[i].completion_h);
		fs_json_add_num(p, "expected_completion_h", r->scan[i].expected_h);
		cJSON_AddItemToArray(scan, p);
	}
	return o;
}
