/*
 * budget_plan.c — the budget of a whole plan: the schedule of every task's
 * occurrences, the peak concurrent cards (a time sweep), the cheapest
 * pricing plan of each task alone and of each GPU pool (a commitment of K
 * cards over the pool's span with on-demand overflow, K scanned), machine
 * costs, months, and the planning margin kept apart from the estimate.
 * Deterministic: tasks, pools and months in plan order.  G6-G12.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget_internal.h"
#include "civil_date.h"
#include "fleetsim/billing.h"

const struct fs_budget_prices *fs__budget_prices(const struct fs_budget_plan *plan,
                                                 const struct fs_gpu_spec *gpu)
{
	for (size_t i = 0; i < plan->n_prices; i++)
		if (plan->prices[i].gpu == gpu)
			return &plan->prices[i];
	return NULL;
}

/* One edge of a slot for the sweep. */
struct edge {
	fs_ns t_ns;
	int delta;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->delta < y->delta ? -1 : x->delta > y->delta;   /* ends first */
}

/* The edges of the slots on gpu (NULL: all), sorted; *n their count. */
static struct edge *edges_of(const struct fs_budget_plan *plan,
                             const struct fs_budget_slot *slots, size_t n_slots,
                             const struct fs_gpu_spec *gpu, size_t *n)
{
	struct edge *e = fs_xcalloc(2 * n_slots + 1, sizeof *e);

	*n = 0;
	for (size_t i = 0; i < n_slots; i++) {
		if (gpu != NULL && plan->tasks[slots[i].task].gpu != gpu)
			continue;
		e[(*n)++] = (struct edge){ slots[i].start_ns, slots[i].cards };
		e[(*n)++] = (struct edge){ slots[i].end_ns, -slots[i].cards };
	}
	qsort(e, *n, sizeof *e, edge_cmp);
	return e;
}

int fs_budget_peak_cards(const struct fs_budget_slot *slots, size_t n)
{
	struct edge *e = fs_xcalloc(2 * n + 1, sizeof *e);
	int cur = 0, peak = 0;

	for (size_t i = 0; i < n; i++) {
		e[2 * i] = (struct edge){ slots[i].start_ns, slots[i].cards };
		e[2 * i + 1] = (struct edge){ slots[i].end_ns, -slots[i].cards };
	}
	qsort(e, 2 * n, sizeof *e, edge_cmp);
	for (size_t i = 0; i < 2 * n; i++) {               /* MODEL: G6 */
		cur += e[i].delta;
		if (cur > peak)
			peak = cur;
	}
	free(e);
	return peak;
}

/* Card-hours above k cards along the sorted edges. */
static double overflow_card_h(const struct edge *e, size_t n, int k)
{
	double h = 0;
	int cur = 0;

	for (size_t i = 0; i + 1 < n; i++) {
		cur += e[i].delta;
		if (cur > k)
			h += (double)(cur - k) * (double)(e[i + 1].t_ns - e[i].t_ns) /
			     (double)FS__BUDGET_NS_PER_H;
	}
	return h;
}

/* The occurrences of every task (fixed tasks may recur). */
static void build_slots(const struct fs_budget_plan *plan, struct fs_budget_result *res)
{
	size_t cap = 0;

	for (size_t i = 0; i < plan->n_tasks; i++) {
		const struct fs_budget_task *t = &plan->tasks[i];
		struct fs_budget_task_result *r = &res->tasks[i];
		fs_ns wall_ns = (fs_ns)llround(r->wall_h * (double)FS__BUDGET_NS_PER_H);
		size_t n = 1;

		if (t->fixed.every_ns > 0) {
			n = (size_t)t->fixed.count;
			if (n == 0)            /* until the period's end (checked > start) */
				n = (size_t)((plan->period_ns - t->start_ns - 1) / t->fixed.every_ns) + 1;
		}
		r->n_occurrences = n;
		r->card_h *= (double)n;
		for (size_t k = 0; k < n; k++) {
			fs_ns s = t->start_ns + (fs_ns)k * t->fixed.every_ns;

			fs_xgrow((void **)&res->slots, &cap, res->n_slots + 1, sizeof *res->slots);
			res->slots[res->n_slots++] = (struct fs_budget_slot){
				s, s + (wall_ns > 0 ? wall_ns : 1), r->cards, i };
			if (s + wall_ns > res->end_ns)
				res->end_ns = s + wall_ns;
		}
	}
}

/* First start and last end of task i's slots. */
static void task_span(const struct fs_budget_result *res, size_t i, fs_ns *a, fs_ns *b)
{
	*a = FS_NS_MAX;
	*b = 0;
	for (size_t k = 0; k < res->n_slots; k++) {
		if (res->slots[k].task != i)
			continue;
		if (res->slots[k].start_ns < *a)
			*a = res->slots[k].start_ns;
		if (res->slots[k].end_ns > *b)
			*b = res->slots[k].end_ns;
	}
}

/* MODEL: G7, G8 — each plan's cost of task i alone. */
static void price_task(const struct fs_budget_plan *plan, struct fs_budget_result *res,
                       size_t i)
{
	const struct fs_budget_task *t = &plan->tasks[i];
	struct fs_budget_task_result *r = &res->tasks[i];
	const struct fs_budget_prices *p = fs__budget_prices(plan, t->gpu);
	double od = p->fee[FS_PRICING_ON_DEMAND], span_h;
	fs_ns a, b;

	task_span(res, i, &a, &b);
	span_h = (double)(b - a) / (double)FS__BUDGET_NS_PER_H;
	r->best_cost = INFINITY;
	r->best = FS_PRICING_ON_DEMAND;
	for (int k = 0; k < FS_PRICING__COUNT; k++) {
		enum fs_pricing pl = (enum fs_pricing)k;
		double fee = p->fee[k], per_h = (double)fs_pricing_period_ns(pl) /
		                                (double)FS__BUDGET_NS_PER_H;

		r->plan_cost[k] = r->break_even_share[k] = r->used_share[k] = NAN;
		if (!(fee > 0))
			continue;
		if (pl == FS_PRICING_ON_DEMAND) {
			r->plan_cost[k] = r->card_h * fee;
		} else if (pl == FS_PRICING_SPOT) {
			/* MODEL: G7, G14 — the flat overhead unless the task
			 * carries a spot block, then its simulated policy cost */
			r->plan_cost[k] = r->spot_policy >= 0 ? r->spot_cost :
			                  r->card_h * (1 + plan->spot_overhead) * fee;
		} else {
			/* whole periods: over the task's span, or per occurrence */
			double periods = ceil(span_h / per_h - 1e-9);
			double each = (double)r->n_occurrences * ceil(r->wall_h / per_h - 1e-9);

			if (each < periods)
				periods = each;
			r->plan_cost[k] = r->cards * periods * fee;
			r->used_share[k] = r->card_h / (r->cards * periods * per_h);
			r->break_even_share[k] = fs_budget_break_even_share(fee, pl, od);
		}
		if ((t->plans_allowed & (1u << k)) && r->plan_cost[k] < r->best_cost) {
			r->best_cost = r->plan_cost[k];
			r->best = pl;
		}
	}
}

/* MODEL: G8 — a pool (the tasks on one GPU): every task on its own
 * cheapest plan, everything on one usage plan, or K cards committed over
 * the pool's span on plan k with the rest on demand, K in [0, peak]. */
static void price_pool(const struct fs_budget_plan *plan, struct fs_budget_result *res,
                       struct fs_budget_pool_result *pool)
{
	const struct fs_budget_prices *p = fs__budget_prices(plan, pool->gpu);
	double od = p->fee[FS_PRICING_ON_DEMAND];
	fs_ns a = FS_NS_MAX, b = 0;
	unsigned allowed = (1u << FS_PRICING__COUNT) - 1;
	double spot_sum = 0;            /* each task's spot cost (NAN: no fee) */
	size_t n_e;
	struct edge *e = edges_of(plan, res->slots, res->n_slots, pool->gpu, &n_e);

	for (size_t i = 0; i < plan->n_tasks; i++) {
		fs_ns x, y;

		if (plan->tasks[i].gpu != pool->gpu)
			continue;
		allowed &= plan->tasks[i].plans_allowed;
		spot_sum += res->tasks[i].plan_cost[FS_PRICING_SPOT];
		pool->card_h += res->tasks[i].card_h;
		pool->per_task_cost += res->tasks[i].best_cost;
		task_span(res, i, &x, &y);
		a = x < a ? x : a;
		b = y > b ? y : b;
	}
	pool->span_h = (double)(b - a) / (double)FS__BUDGET_NS_PER_H;
	pool->peak_cards = 0;
	for (size_t i = 0, cur = 0; i < n_e; i++) {
		cur = (size_t)((long)cur + e[i].delta);
		if ((int)cur > pool->peak_cards)
			pool->peak_cards = (int)cur;
	}
	pool->per_task_best = true;
	pool->best_cost = pool->per_task_cost;
	pool->best = FS_PRICING_ON_DEMAND;
	for (int k = 0; k < FS_PRICING__COUNT; k++) {
		enum fs_pricing pl = (enum fs_pricing)k;
		double fee = p->fee[k], per_h = (double)fs_pricing_period_ns(pl) /
		                                (double)FS__BUDGET_NS_PER_H;
		double periods = ceil(pool->span_h / per_h - 1e-9);

		pool->plan_cost[k] = pool->break_even_share[k] = NAN;
		pool->plan_commit_cards[k] = 0;
		if (!(fee > 0) || !(allowed & (1u << k)))
			continue;
		if (pl == FS_PRICING_ON_DEMAND)
			pool->plan_cost[k] = pool->card_h * fee;
		else if (pl == FS_PRICING_SPOT)
			pool->plan_cost[k] = spot_sum;          /* MODEL: G7, G14 */
		else {
			pool->break_even_share[k] = fs_budget_break_even_share(fee, pl, od);
			for (int kc = 1; kc <= pool->peak_cards; kc++) {
				double over = overflow_card_h(e, n_e, kc), c;

				if (over > 0 && !(allowed & (1u << FS_PRICING_ON_DEMAND)))
					continue;
				c = kc * periods * fee + over * od;
				if (!(c >= pool->plan_cost[k])) {
					pool->plan_cost[k] = c;
					pool->plan_commit_cards[k] = kc;
				}
			}
		}
		if (pool->plan_cost[k] < pool->best_cost) {
			pool->best_cost = pool->plan_cost[k];
			pool->best = pl;
			pool->per_task_best = false;
		}
	}
	free(e);
}

/* MODEL: G11 — disk while the task runs, object storage over its span,
 * egress per occurrence, add-ons per card-hour. */
static double machine_cost(const struct fs_budget_plan *plan,
                           const struct fs_budget_result *res, size_t i)
{
	const struct fs_budget_task *t = &plan->tasks[i];
	const struct fs_budget_task_result *r = &res->tasks[i];
	const struct fs_budget_machine *m = &plan->machine;
	fs_ns a, b;

	task_span(res, i, &a, &b);
	return t->disk_gb * m->disk_per_gb_month * r->wall_h * (double)r->n_occurrences /
	       FS_HOURS_PER_MONTH +
	       t->object_gb * m->object_per_gb_month * (double)(b - a) /
	       (double)FS__BUDGET_NS_PER_H / FS_HOURS_PER_MONTH +
	       t->egress_gb * m->egress_per_gb * (double)r->n_occurrences +
	       r->card_h * m->addon_per_card_h;
}

/* Month boundaries from the plan's start up to end_ns: calendar months
 * with a start date, else 730-hour months.  MODEL: G12 */
static void build_months(const struct fs_budget_plan *plan, struct fs_budget_result *res,
                         fs_ns end_ns, fs_ns **bounds)
{
	size_t cap = 0, cap_b = 0, n = 0;
	fs_ns t = 0;
	int y = 0, m = 0, d = 0, k = 1;

	if (plan->start_day >= 0)
		fs__civil_date(plan->start_day, &y, &m, &d);
	*bounds = NULL;
	while (t < end_ns) {
		fs_ns next;

		fs_xgrow((void **)&res->months, &cap, n + 1, sizeof *res->months);
		fs_xgrow((void **)bounds, &cap_b, n + 2, sizeof **bounds);
		memset(&res->months[n], 0, sizeof res->months[n]);
		(*bounds)[n] = t;
		if (plan->start_day >= 0) {
			int64_t first;
			char date[32];

			snprintf(res->months[n].label, sizeof res->months[n].label, "%04d-%02d",
			         y, m);
			m = m == 12 ? 1 : m + 1;
			y += m == 1;
			snprintf(date, sizeof date, "%04d-%02d-01", y, m);
			fs__budget_parse_date(date, &first);
			next = (first - plan->start_day) * 86400 * FS_NS_PER_S;
		} else {
			snprintf(res->months[n].label, sizeof res->months[n].label, "month %d", k++);
			next = t + (fs_ns)(FS_HOURS_PER_MONTH * 3600) * FS_NS_PER_S;
		}
		t = next;
		n++;
	}
	if (*bounds != NULL)
		(*bounds)[n] = t;
	res->n_months = n;
}

static void spread_months(const struct fs_budget_plan *plan, struct fs_budget_result *res)
{
	fs_ns *bounds, end = plan->period_ns > res->end_ns ? plan->period_ns : res->end_ns;

	build_months(plan, res, end, &bounds);
	for (size_t s = 0; s < res->n_slots; s++) {
		const struct fs_budget_slot *sl = &res->slots[s];
		const struct fs_budget_task_result *r = &res->tasks[sl->task];
		double rate = r->card_h > 0 ? (r->gpu_cost + r->machine_cost) / r->card_h : 0;

		for (size_t m = 0; m < res->n_months; m++) {
			fs_ns lo = sl->start_ns > bounds[m] ? sl->start_ns : bounds[m];
			fs_ns hi = sl->end_ns < bounds[m + 1] ? sl->end_ns : bounds[m + 1];
			double ch;

			if (hi <= lo)
				continue;
			ch = sl->cards * (double)(hi - lo) / (double)FS__BUDGET_NS_PER_H;
			res->months[m].card_h += ch;
			res->months[m].cost += ch * rate;
		}
	}
	free(bounds);
}

/* MODEL: G9 — the buffer covers the estimate and the risk allowance. */
static double buffer_cost(double estimate, double risk_cost, double buffer)
{
	return buffer * (estimate + risk_cost);
}

double fs_budget_planned(double estimate, double risk_factor, double buffer,
                         double *risk_cost, double *buffer_cost_out)
{
	double risk = (risk_factor - 1) * estimate;   /* MODEL: G9 */
	double buf = buffer_cost(estimate, risk, buffer);

	if (risk_cost)
		*risk_cost = risk;
	if (buffer_cost_out)
		*buffer_cost_out = buf;
	return estimate + risk + buf;
}

/* Where task i's errors are reported: its object's place in the plan, or
 * the plan's file for a task not loaded from one. */
static const char *task_at(const struct fs_budget_plan *plan, size_t i)
{
	return plan->tasks[i].at != NULL ? plan->tasks[i].at : plan->path;
}

int fs_budget_compute(const struct fs_budget_plan *plan, struct fs_budget_result *res,
                      struct fs_error *err)
{
	char path[64];

	memset(res, 0, sizeof *res);
	res->tasks = fs_xcalloc(plan->n_tasks, sizeof *res->tasks);
	for (size_t i = 0; i < plan->n_tasks; i++) {
		struct fs_budget_task_result *r = &res->tasks[i];

		if (fs__budget_task_figures(plan, i, r, err) != 0) {
			snprintf(path, sizeof path, "tasks[%zu]", i);
			snprintf(err->where, sizeof err->where, "%s", task_at(plan, i));
			snprintf(err->path, sizeof err->path, "%s", path);
			return -1;
		}
		r->spot_policy = -1;
		if (plan->tasks[i].kind == FS_BUDGET_FINETUNE && plan->tasks[i].train.spot != NULL &&
		    fs__budget_spot(plan, i, r, err) != 0) {
			snprintf(path, sizeof path, "tasks[%zu].spot", i);
			snprintf(err->where, sizeof err->where, "%s", task_at(plan, i));
			snprintf(err->path, sizeof err->path, "%s", path);
			return -1;
		}
	}
	build_slots(plan, res);
	res->peak_cards = fs_budget_peak_cards(res->slots, res->n_slots);
	for (size_t i = 0; i < plan->n_tasks; i++) {
		price_task(plan, res, i);
		if (!isfinite(res->tasks[i].best_cost)) {
			snprintf(path, sizeof path, "tasks[%zu].plans", i);
			return fs_error_set(err, task_at(plan, i), path, "no allowed pricing plan has a "
			                    "price for GPU %s", plan->tasks[i].gpu->id);
		}
	}
	res->pools = fs_xcalloc(plan->n_prices + 1, sizeof *res->pools);
	for (size_t i = 0; i < plan->n_tasks; i++) {
		size_t k;

		for (k = 0; k < res->n_pools; k++)
			if (res->pools[k].gpu == plan->tasks[i].gpu)
				break;
		if (k == res->n_pools) {
			res->pools[res->n_pools].gpu = plan->tasks[i].gpu;
			price_pool(plan, res, &res->pools[res->n_pools++]);
		}
	}
	for (size_t i = 0; i < plan->n_tasks; i++) {
		struct fs_budget_task_result *r = &res->tasks[i];
		const struct fs_budget_pool_result *pool = res->pools;

		while (pool->gpu != plan->tasks[i].gpu)
			pool++;
		/* MODEL: G8 — a pool's cost is shared by card-hours */
		r->gpu_cost = pool->per_task_best ? r->best_cost :
		              pool->best_cost * r->card_h / pool->card_h;
		r->machine_cost = machine_cost(plan, res, i);
		fs_budget_planned(r->gpu_cost + r->machine_cost, plan->tasks[i].risk_factor, 0,
		                  &r->risk_cost, NULL);
		res->card_h += r->card_h;
		res->gpu_cost += r->gpu_cost;
		res->machine_cost += r->machine_cost;
		res->risk_cost += r->risk_cost;                /* MODEL: G9 */
	}
	res->estimate = res->gpu_cost + res->machine_cost;
	res->buffer_cost = buffer_cost(res->estimate, res->risk_cost, plan->buffer);   /* MODEL: G9 */
	res->margin = res->risk_cost + res->buffer_cost;
	res->planned = res->estimate + res->margin;
	spread_months(plan, res);
	return 0;
}

void fs_budget_result_fini(struct fs_budget_result *res)
{
	free(res->tasks);
	free(res->slots);
	free(res->pools);
	free(res->months);
	memset(res, 0, sizeof *res);
}

