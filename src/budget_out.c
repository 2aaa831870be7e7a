/*
 * budget_out.c — the budget's outputs: the console table, budget.json (every
 * figure, the inputs that made it and the assumptions) and budget.csv (one
 * row per task, then the totals).  The table shows money in the plan's
 * currency with two decimals and hours with two; budget.csv carries every
 * figure with 9 significant digits and quotes names by the one CSV rule,
 * budget.json the same 9 digits (docs/OUTPUTS.md).  The texts are heap,
 * owned by the caller.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "budget_internal.h"
#include "civil_date.h"
#include "fleetsim/billing.h"
#include "fleetsim/escape.h"
#include "fleetsim/out_format.h"

/* In enum fs_pricing order. */
static const char *const PLAN_KEYS[] = {
	"on_demand", "spot", "monthly", "daily", "weekly", "yearly"
};
/* Column order of tables: usage plans, then commitments by period. */
static const enum fs_pricing ORDER[] = {
	FS_PRICING_ON_DEMAND, FS_PRICING_SPOT, FS_PRICING_DAILY, FS_PRICING_WEEKLY,
	FS_PRICING_MONTHLY, FS_PRICING_YEARLY
};
#define N_ORDER (sizeof ORDER / sizeof ORDER[0])

FS_ENUM_FUNCS(enum fs_budget_kind, FS_BUDGET_KIND_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_budget_kind_name, fs_budget_kind_from_name, "?")

const char *fs__budget_plan_word(enum fs_pricing p)
{
	switch (p) {
	case FS_PRICING_ON_DEMAND: return "on demand";
	case FS_PRICING_SPOT:      return "spot";
	case FS_PRICING_DAILY:     return "daily";
	case FS_PRICING_WEEKLY:    return "weekly";
	case FS_PRICING_MONTHLY:   return "monthly";
	case FS_PRICING_YEARLY:    return "yearly";
	case FS_PRICING__COUNT:    break;
	}
	return "?";
}

/* "14d", "36h", "2026-01-15" (with a start date, whole days). */
static const char *when(const struct fs_budget_plan *plan, fs_ns t_ns, char *buf, size_t len)
{
	int64_t s = t_ns / FS_NS_PER_S;
	int y, m, d;

	if (plan->start_day >= 0 && s % 86400 == 0) {
		fs__civil_date(plan->start_day + s / 86400, &y, &m, &d);
		snprintf(buf, len, "%04d-%02d-%02d", y, m, d);
	} else if (s % 86400 == 0) {
		snprintf(buf, len, "%lldd", (long long)(s / 86400));
	} else {
		snprintf(buf, len, "%.1fh", (double)s / 3600);
	}
	return buf;
}

/* The spot block's policies (G14), one line each, the chosen one marked. */
static void print_spot(const struct fs_budget_task *t, const struct fs_budget_task_result *r,
                       FILE *out)
{
	static const char *const NAMES[] = { "spot only", "on-demand only",
	                                     "spot + on-demand fallback" };
	const struct fs_budget_spot *s = t->train.spot;

	fprintf(out, "    on spot with checkpoints every %.2f h%s (checkpoint %.2f h, restart "
	        "%.2f h; %s):\n", r->spot_interval_h, s->interval_h > 0 ? "" : " (Daly)",
	        s->ckpt_cost_h, s->restart_cost_h, s->trace_path != NULL ? "trace" :
	        "Poisson interruptions");
	for (int k = 0; k < 3; k++) {
		if (isnan(r->spot_policy_cost[k]))
			continue;
		fprintf(out, "      %-26s %12.2f", NAMES[k], r->spot_policy_cost[k]);
		if (!isnan(r->spot_policy_p_met[k]))
			fprintf(out, "  P(deadline met) %.3f", r->spot_policy_p_met[k]);
		fprintf(out, "%s\n", k == r->spot_policy ? "  <- chosen" : "");
	}
	fprintf(out, "      chosen: mean %.1f h, p95 %.1f h wall, set-up included (%d "
	        "replications; target P(met) %.2f)\n", r->spot_completion_h, r->spot_p95_h,
	        s->replications, s->p_target);
}

static void print_training(const struct fs_budget_plan *plan,
                           const struct fs_budget_result *res, FILE *out)
{
	for (size_t i = 0; i < plan->n_tasks; i++) {
		const struct fs_budget_task *t = &plan->tasks[i];
		const struct fs_budget_task_result *r = &res->tasks[i];
		const struct fs_budget_train *tr = &t->train;
		double c2, a2, e2;

		if (t->kind != FS_BUDGET_FINETUNE)
			continue;
		fprintf(out, "  %s: %s %s, %.4g tokens x %.4g epochs", t->name, t->model->id,
		        fs_train_method_name(tr->method), tr->tokens_per_epoch, tr->epochs);
		if (tr->samples > 0)
			fprintf(out, " (%.0f samples x %.0f tokens)", tr->samples,
			        tr->tokens_per_sample);
		fprintf(out, "\n    %.3g FLOP/token (%s), trainable %.4g params; MFU %.2f of "
		        "%.1f TFLOP/s%s -> %.1f h on one card\n", r->flops_per_token,
		        tr->recompute == FS_RECOMPUTE_FULL ?
		        (tr->method == FS_TRAIN_FULL ? "8N, recompute" : "6N + 8A, recompute") :
		        (tr->method == FS_TRAIN_FULL ? "6N" : "4N + 6A"), r->trainable_params,
		        r->mfu, t->gpu->fp16_flops_per_s / 1e12,
		        tr->method == FS_TRAIN_QLORA ? ", x qlora factor" : "", r->one_card_h);
		fprintf(out, "    %d card%s: step %.0f ms compute + %.1f ms all-reduce -> data-"
		        "parallel efficiency %.1f%%, speed-up %.2fx; wall %.1f h incl. set-up "
		        "%.2f h\n", r->cards, r->cards > 1 ? "s" : "", r->step_compute_ms,
		        r->allreduce_ms, 100 * r->dp_efficiency, r->speedup, r->wall_h, r->setup_h);
		if (r->cards > 1)
			fprintf(out, "    %d cards finish %.1f%% sooner than one (%.1f%% if scaling "
			        "were free)\n", r->cards, 100 * (1 - 1 / r->speedup),
			        100 * (1 - 1.0 / r->cards));
		else {
			e2 = fs_budget_dp_efficiency(t->gpu, t->model, tr, 2, &c2, &a2);
			fprintf(out, "    2 cards would finish %.1f%% sooner (efficiency %.1f%%; "
			        "all-reduce %.1f ms per step)\n", 100 * (1 - 1 / (2 * e2)), 100 * e2, a2);
		}
		fprintf(out, "    memory %.2f GB per card of %.2f (activations %.2f; recompute "
		        "%s, shard %s%s): fits\n", r->mem_bytes_per_card / 1e9,
		        t->gpu->mem_bytes / 1e9, r->mem_activation_bytes / 1e9,
		        fs_train_recompute_name(tr->recompute), fs_train_shard_name(tr->shard),
		        tr->method == FS_TRAIN_QLORA && tr->kbit_fp32_cast ?
		        ", fp32 cast of the unquantised" : "");
		if (r->spot_policy >= 0)
			print_spot(t, r, out);
		if (tr->deadline_ns > 0) {
			char w[32];

			fprintf(out, "    deadline %s: %s", when(plan, tr->deadline_ns, w, sizeof w),
			        r->late ? "MISSED" : "met");
			if (r->cards_for_deadline > 0)
				fprintf(out, " (%d card%s would meet it)", r->cards_for_deadline,
				        r->cards_for_deadline > 1 ? "s" : "");
			fprintf(out, "\n");
		}
	}
}

static void print_serving(const struct fs_budget_plan *plan,
                          const struct fs_budget_result *res, FILE *out)
{
	char b[32];

	for (size_t i = 0; i < plan->n_tasks; i++) {
		const struct fs_budget_task *t = &plan->tasks[i];
		const struct fs_budget_task_result *r = &res->tasks[i];
		const struct fs_budget_serving *s = &t->serve;

		if (t->kind != FS_BUDGET_SERVING)
			continue;
		if (s->from_dir != NULL) {
			/* MODEL: G5 — the simulated figure is at the run's own prices;
			 * the plans below price the cards at the plan's (or the
			 * catalogue's), which may differ: say so */
			fprintf(out, "  %s: from %s: %d instance%s of %d x %s; simulated %s %s/month "
			        "at the run's prices (the plans below use the plan's \"prices\" "
			        "where given, else the catalogue's)\n",
			        t->name, s->from_dir, r->instances, r->instances == 1 ? "" : "s",
			        s->tp, t->gpu->id,
			        fs_out_money(b, sizeof b, s->sim_monthly_cost), plan->currency);
			continue;
		}
		fprintf(out, "  %s: %s on %d x %s: prefill %.1f ms (%.0f tokens), decode batch "
		        "%lld at %.1f ms/step -> %.2f req/s per instance\n", t->name, t->model->id,
		        s->tp, t->gpu->id, r->prefill_ms, s->prompt_tokens,
		        (long long)r->decode_batch, r->decode_step_ms, r->instance_rps);
		fprintf(out, "    peak %.2f req/s (%.0f/day x peak-to-mean %.2f) -> %d instance%s, "
		        "%d card%s\n", r->peak_rps, s->requests_per_day, s->peak_to_mean,
		        r->instances, r->instances == 1 ? "" : "s", r->cards,
		        r->cards == 1 ? "" : "s");
	}
}

static void print_pricing(const struct fs_budget_plan *plan,
                          const struct fs_budget_result *res, FILE *out)
{
	char b[32];
	size_t k;

	fprintf(out, "\neach task alone on each plan (%s; * = cheapest allowed)\n  %-18s",
	        plan->currency, "task");
	for (k = 0; k < N_ORDER; k++)
		fprintf(out, " %11s", fs__budget_plan_word(ORDER[k]));
	fprintf(out, "\n");
	for (size_t i = 0; i < plan->n_tasks; i++) {
		const struct fs_budget_task_result *r = &res->tasks[i];

		fprintf(out, "  %-18.18s", plan->tasks[i].name);
		for (k = 0; k < N_ORDER; k++)
			fprintf(out, " %10s%c",
			        fs_out_money(b, sizeof b, r->plan_cost[ORDER[k]]),
			        r->best == ORDER[k] ? '*' : ' ');
		fprintf(out, "\n");
	}
	fprintf(out, "\npools (tasks on one GPU type: each task on its cheapest plan, or K cards "
	        "committed\nover the pool's span with the rest on demand; K in brackets)\n");
	for (size_t p = 0; p < res->n_pools; p++) {
		const struct fs_budget_pool_result *pool = &res->pools[p];

		fprintf(out, "  %s: peak %d cards, %.1f card-h over %.1f h; per task %s", pool->gpu->id,
		        pool->peak_cards, pool->card_h, pool->span_h,
		        fs_out_money(b, sizeof b, pool->per_task_cost));
		for (k = 0; k < N_ORDER; k++) {
			if (isnan(pool->plan_cost[ORDER[k]]))
				continue;
			fprintf(out, "; %s %s", fs__budget_plan_word(ORDER[k]),
			        fs_out_money(b, sizeof b, pool->plan_cost[ORDER[k]]));
			if (fs_pricing_committed(ORDER[k]))
				fprintf(out, " [%d]", pool->plan_commit_cards[ORDER[k]]);
		}
		fprintf(out, "\n    cheapest: %s, %s %s\n", pool->per_task_best ? "per task" :
		        fs__budget_plan_word(pool->best),
		        fs_out_money(b, sizeof b, pool->best_cost),
		        plan->currency);
		fprintf(out, "    break-even use (fee / (period h x on-demand price)):");
		for (k = 0; k < N_ORDER; k++)
			if (!isnan(pool->break_even_share[ORDER[k]]))
				fprintf(out, " %s %.0f%%", fs__budget_plan_word(ORDER[k]),
				        100 * pool->break_even_share[ORDER[k]]);
		fprintf(out, "\n");
	}
}

void fs_budget_print(const struct fs_budget_plan *plan, const struct fs_budget_result *res,
                     FILE *out)
{
	char b[32], w[32];

	fprintf(out, "budget %s%s%s\n", plan->name, plan->description[0] ? ": " : "",
	        plan->description);
	fprintf(out, "currency %s; buffer %.0f%%, risk factor %.2f; spot overhead %.0f%%; "
	        "transfer at %.3g Gbit/s (%.2f TB/h)\n", plan->currency, 100 * plan->buffer,
	        plan->risk_factor, 100 * plan->spot_overhead,
	        plan->machine.bandwidth_bytes_per_s * 8 / 1e9,
	        plan->machine.bandwidth_bytes_per_s * 3600 / 1e12);
	fprintf(out, "\n  %-18s %-10s %-13s %5s %10s %9s %4s %9s %-9s %11s\n", "task", "type",
	        "gpu", "cards", "start", "wall h", "runs", "card-h", "plan", "cost");
	for (size_t i = 0; i < plan->n_tasks; i++) {
		const struct fs_budget_task *t = &plan->tasks[i];
		const struct fs_budget_task_result *r = &res->tasks[i];

		fprintf(out, "  %-18.18s %-10s %-13.13s %5d %10s %9.1f %4zu %9.1f %-9s %11s\n",
		        t->name, fs_budget_kind_name(t->kind), t->gpu->id, r->cards,
		        when(plan, t->start_ns, w, sizeof w), r->wall_h, r->n_occurrences,
		        r->card_h, fs__budget_plan_word(r->best),
		        fs_out_money(b, sizeof b, r->gpu_cost));
	}
	fprintf(out, "\nfine-tuning\n");
	print_training(plan, res, out);
	fprintf(out, "serving\n");
	print_serving(plan, res, out);
	print_pricing(plan, res, out);
	fprintf(out, "\nmonths (estimate, no margin)\n");
	for (size_t m = 0; m < res->n_months; m++)
		fprintf(out, "  %-9s %10.1f card-h %12s %s\n", res->months[m].label,
		        res->months[m].card_h, fs_out_money(b, sizeof b, res->months[m].cost),
		        plan->currency);
	fprintf(out, "\ntotals (%s)\n", plan->currency);
	fprintf(out, "  card-hours                %12.1f\n", res->card_h);
	fprintf(out, "  peak concurrent cards     %12d\n", res->peak_cards);
	fprintf(out, "  GPU                       %12s\n",
	        fs_out_money(b, sizeof b, res->gpu_cost));
	fprintf(out, "  machine (disk, storage,   %12s\n",
	        fs_out_money(b, sizeof b, res->machine_cost));
	fprintf(out, "    egress, add-ons)\n");
	fprintf(out, "  estimate                  %12s\n",
	        fs_out_money(b, sizeof b, res->estimate));
	fprintf(out, "  risk allowance            %12s\n",
	        fs_out_money(b, sizeof b, res->risk_cost));
	fprintf(out, "  buffer %3.0f%%               %12s\n", 100 * plan->buffer,
	        fs_out_money(b, sizeof b, res->buffer_cost));
	fprintf(out, "  planning margin           %12s\n",
	        fs_out_money(b, sizeof b, res->margin));
	fprintf(out, "  budget to request         %12s\n",
	        fs_out_money(b, sizeof b, res->planned));
}

/* A figure of budget.json: 9 significant digits, null when not finite
 * (the one output format, docs/OUTPUTS.md). */
static void add_num(cJSON *o, const char *key, double v)
{
	fs_json_add_num(o, key, v);
}

static cJSON *plans_json(const double *v)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t k = 0; k < N_ORDER; k++)
		add_num(o, PLAN_KEYS[ORDER[k]], v[ORDER[k]]);
	return o;
}

/* The spot block's result: each policy's mean cost and P(met), the choice. */
static cJSON *spot_json(const struct fs_budget_task_result *r)
{
	static const char *const KEYS[] = { "spot", "on_demand", "spot_fallback" };
	cJSON *o = cJSON_CreateObject(), *pol = cJSON_AddObjectToObject(o, "policies");

	add_num(o, "interval_h", r->spot_interval_h);
	for (int k = 0; k < 3; k++) {
		cJSON *x;

		if (isnan(r->spot_policy_cost[k]))
			continue;
		x = cJSON_AddObjectToObject(pol, KEYS[k]);
		add_num(x, "cost", r->spot_policy_cost[k]);
		add_num(x, "p_deadline_met", r->spot_policy_p_met[k]);
	}
	cJSON_AddStringToObject(o, "chosen", KEYS[r->spot_policy]);
	add_num(o, "cost", r->spot_cost);
	add_num(o, "completion_h", r->spot_completion_h);
	add_num(o, "completion_p95_h", r->spot_p95_h);
	add_num(o, "p_deadline_met", r->spot_p_met);
	return o;
}

static cJSON *task_json(const struct fs_budget_plan *plan, const struct fs_budget_result *res,
                        size_t i)
{
	const struct fs_budget_task *t = &plan->tasks[i];
	const struct fs_budget_task_result *r = &res->tasks[i];
	cJSON *o = cJSON_CreateObject(), *x;

	cJSON_AddStringToObject(o, "name", t->name);
	cJSON_AddStringToObject(o, "type", fs_budget_kind_name(t->kind));
	cJSON_AddStringToObject(o, "gpu", t->gpu->id);
	if (t->model != NULL)
		cJSON_AddStringToObject(o, "model", t->model->id);
	cJSON_AddNumberToObject(o, "cards", r->cards);
	add_num(o, "start_h", (double)t->start_ns / (double)FS__BUDGET_NS_PER_H);
	add_num(o, "wall_h", r->wall_h);
	add_num(o, "setup_h", r->setup_h);
	cJSON_AddNumberToObject(o, "occurrences", (double)r->n_occurrences);
	add_num(o, "card_h", r->card_h);
	add_num(o, "risk_factor", t->risk_factor);
	if (t->kind == FS_BUDGET_FINETUNE) {
		x = cJSON_AddObjectToObject(o, "training");
		cJSON_AddStringToObject(x, "method", fs_train_method_name(t->train.method));
		add_num(x, "tokens", t->train.tokens_per_epoch * t->train.epochs);
		add_num(x, "flops_per_token", r->flops_per_token);
		add_num(x, "total_flops", r->total_flops);
		add_num(x, "trainable_params", r->trainable_params);
		add_num(x, "mfu", r->mfu);
		add_num(x, "one_card_h", r->one_card_h);
		add_num(x, "step_compute_ms", r->step_compute_ms);
		add_num(x, "allreduce_ms", r->allreduce_ms);
		add_num(x, "dp_efficiency", r->dp_efficiency);
		add_num(x, "speedup", r->speedup);
		add_num(x, "sooner_than_one_card", 1 - 1 / r->speedup);
		add_num(x, "memory_gb_per_card", r->mem_bytes_per_card / 1e9);
		add_num(x, "activation_gb_per_card", r->mem_activation_bytes / 1e9);
		cJSON_AddBoolToObject(x, "fits", r->mem_bytes_per_card <= t->gpu->mem_bytes);
		cJSON_AddStringToObject(x, "recompute", fs_train_recompute_name(t->train.recompute));
		cJSON_AddStringToObject(x, "shard", fs_train_shard_name(t->train.shard));
		if (r->spot_policy >= 0)
			cJSON_AddItemToObject(x, "spot", spot_json(r));
		if (t->train.deadline_ns > 0) {
			add_num(x, "deadline_h", (double)t->train.deadline_ns /
			        (double)FS__BUDGET_NS_PER_H);
			cJSON_AddBoolToObject(x, "late", r->late);
			cJSON_AddNumberToObject(x, "cards_for_deadline", r->cards_for_deadline);
		}
	} else if (t->kind == FS_BUDGET_SERVING) {
		x = cJSON_AddObjectToObject(o, "serving");
		cJSON_AddNumberToObject(x, "instances", r->instances);
		cJSON_AddNumberToObject(x, "tp", t->serve.tp);
		if (t->serve.from_dir != NULL) {
			cJSON_AddStringToObject(x, "from", t->serve.from_dir);
			add_num(x, "simulated_monthly_cost", t->serve.sim_monthly_cost);
		} else {
			add_num(x, "requests_per_day", t->serve.requests_per_day);
			add_num(x, "peak_rps", r->peak_rps);
			add_num(x, "instance_rps", r->instance_rps);
			add_num(x, "prefill_ms", r->prefill_ms);
			cJSON_AddNumberToObject(x, "decode_batch", (double)r->decode_batch);
			add_num(x, "decode_step_ms", r->decode_step_ms);
		}
	}
	cJSON_AddItemToObject(o, "plan_cost", plans_json(r->plan_cost));
	cJSON_AddItemToObject(o, "used_share", plans_json(r->used_share));
	cJSON_AddItemToObject(o, "break_even_share", plans_json(r->break_even_share));
	cJSON_AddStringToObject(o, "cheapest_plan", PLAN_KEYS[r->best]);
	add_num(o, "cheapest_plan_cost", r->best_cost);
	add_num(o, "gpu_cost", r->gpu_cost);
	add_num(o, "machine_cost", r->machine_cost);
	add_num(o, "risk_cost", r->risk_cost);
	return o;
}

static cJSON *pool_json(const struct fs_budget_pool_result *p)
{
	cJSON *o = cJSON_CreateObject(), *k = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "gpu", p->gpu->id);
	cJSON_AddNumberToObject(o, "peak_cards", p->peak_cards);
	add_num(o, "card_h", p->card_h);
	add_num(o, "span_h", p->span_h);
	add_num(o, "per_task_cost", p->per_task_cost);
	cJSON_AddItemToObject(o, "plan_cost", plans_json(p->plan_cost));
	for (size_t i = 0; i < N_ORDER; i++)
		if (fs_pricing_committed(ORDER[i]) && !isnan(p->plan_cost[ORDER[i]]))
			cJSON_AddNumberToObject(k, PLAN_KEYS[ORDER[i]], p->plan_commit_cards[ORDER[i]]);
	cJSON_AddItemToObject(o, "committed_cards", k);
	cJSON_AddItemToObject(o, "break_even_share", plans_json(p->break_even_share));
	cJSON_AddStringToObject(o, "cheapest", p->per_task_best ? "per_task" : PLAN_KEYS[p->best]);
	add_num(o, "cost", p->best_cost);
	return o;
}

char *fs_budget_json(const struct fs_budget_plan *plan, const struct fs_budget_result *res)
{
	cJSON *root = cJSON_CreateObject(), *a, *o;
	char *text;

	cJSON_AddStringToObject(root, "kind", "budget");
	cJSON_AddStringToObject(root, "name", plan->name);
	cJSON_AddStringToObject(root, "description", plan->description);
	cJSON_AddStringToObject(root, "plan", plan->path);
	cJSON_AddStringToObject(root, "currency", plan->currency);
	if (plan->start_day >= 0) {
		char w[32];

		cJSON_AddStringToObject(root, "start", when(plan, 0, w, sizeof w));
	}
	o = cJSON_AddObjectToObject(root, "assumptions");
	add_num(o, "buffer", plan->buffer);
	add_num(o, "risk_factor", plan->risk_factor);
	add_num(o, "spot_overhead", plan->spot_overhead);
	add_num(o, "bandwidth_gbit_per_s", plan->machine.bandwidth_bytes_per_s * 8 / 1e9);
	add_num(o, "transfer_tb_per_h", plan->machine.bandwidth_bytes_per_s * 3600 / 1e12);
	add_num(o, "hours_per_month", FS_HOURS_PER_MONTH);
	a = cJSON_AddArrayToObject(root, "prices");
	for (size_t i = 0; i < plan->n_prices; i++) {
		cJSON *p = plans_json(plan->prices[i].fee);

		cJSON_AddStringToObject(p, "gpu", plan->prices[i].gpu->id);
		cJSON_AddItemToArray(a, p);
	}
	a = cJSON_AddArrayToObject(root, "tasks");
	for (size_t i = 0; i < plan->n_tasks; i++)
		cJSON_AddItemToArray(a, task_json(plan, res, i));
	a = cJSON_AddArrayToObject(root, "pools");
	for (size_t i = 0; i < res->n_pools; i++)
		cJSON_AddItemToArray(a, pool_json(&res->pools[i]));
	a = cJSON_AddArrayToObject(root, "months");
	for (size_t i = 0; i < res->n_months; i++) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "month", res->months[i].label);
		add_num(m, "card_h", res->months[i].card_h);
		add_num(m, "cost", res->months[i].cost);
		cJSON_AddItemToArray(a, m);
	}
	o = cJSON_AddObjectToObject(root, "totals");
	add_num(o, "card_h", res->card_h);
	cJSON_AddNumberToObject(o, "peak_cards", res->peak_cards);
	add_num(o, "gpu_cost", res->gpu_cost);
	add_num(o, "machine_cost", res->machine_cost);
	add_num(o, "estimate", res->estimate);
	add_num(o, "risk_cost", res->risk_cost);
	add_num(o, "buffer_cost", res->buffer_cost);
	add_num(o, "margin", res->margin);
	add_num(o, "planned", res->planned);
	text = fs_json_text(root, FS_JSON_PRETTY | FS_JSON_NEWLINE);
	cJSON_Delete(root);
	return text;
}

char *fs_budget_csv(const struct fs_budget_plan *plan, const struct fs_budget_result *res)
{
	struct fs_sbuf b;

	fs_sbuf_init(&b);
	fs_sbuf_puts(&b, "task,type,gpu,cards,start_h,wall_h,occurrences,card_h,"
	             "cheapest_plan,gpu_cost,machine_cost,risk_cost");
	for (size_t k = 0; k < N_ORDER; k++)
		fs_sbuf_printf(&b, ",cost_%s", PLAN_KEYS[ORDER[k]]);
	fs_sbuf_puts(&b, ",currency\n");
	for (size_t i = 0; i < plan->n_tasks; i++) {
		const struct fs_budget_task *t = &plan->tasks[i];
		const struct fs_budget_task_result *r = &res->tasks[i];

		fs_sbuf_csv(&b, t->name, 0);
		fs_sbuf_puts(&b, ",");
		fs_sbuf_csv(&b, fs_budget_kind_name(t->kind), 0);
		fs_sbuf_puts(&b, ",");
		fs_sbuf_csv(&b, t->gpu->id, 0);
		fs_sbuf_printf(&b, ",%d", r->cards);
		fs_sbuf_csv_num(&b, (double)t->start_ns / (double)FS__BUDGET_NS_PER_H);
		fs_sbuf_csv_num(&b, r->wall_h);
		fs_sbuf_printf(&b, ",%zu", r->n_occurrences);
		fs_sbuf_csv_num(&b, r->card_h);
		fs_sbuf_printf(&b, ",%s", PLAN_KEYS[r->best]);
		fs_sbuf_csv_num(&b, r->gpu_cost);
		fs_sbuf_csv_num(&b, r->machine_cost);
		fs_sbuf_csv_num(&b, r->risk_cost);
		for (size_t k = 0; k < N_ORDER; k++)
			fs_sbuf_csv_num(&b, r->plan_cost[ORDER[k]]);
		fs_sbuf_puts(&b, ",");
		fs_sbuf_csv(&b, plan->currency, 0);
		fs_sbuf_puts(&b, "\n");
	}
	fs_sbuf_printf(&b, "TOTAL,,,%d,,,", res->peak_cards);
	fs_sbuf_csv_num(&b, res->card_h);
	fs_sbuf_puts(&b, ",");
	fs_sbuf_csv_num(&b, res->gpu_cost);
	fs_sbuf_csv_num(&b, res->machine_cost);
	fs_sbuf_csv_num(&b, res->risk_cost);
	fs_sbuf_puts(&b, ",,,,,,,");
	fs_sbuf_csv(&b, plan->currency, 0);
	fs_sbuf_puts(&b, "\n");
	return b.s;
}
