/*
 * test_money_pins.c — money figures that users read, each pinned from whole
 * simulated runs (or whole `fleetsim budget` runs) against a computation by
 * hand written beside it: a commitment paid over the warm-up too and its
 * idle share, overflow hours as billed (rounded up), the monthly projection
 * of what spot reclaims lost, and the budget's plan and pool prices.  Each
 * figure here is one that no other test pinned exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/catalog.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "util_test.h"

#define REPS 2
#define NS_PER_H 3600e9
/* Figures read back from budget.json carry 9 significant digits
 * (docs/OUTPUTS.md): compared within twice that rounding. */
#define JSON_REL 2e-8

/* Llama-3.1-8B chat traffic at rate_per_s for `horizon` after a `warmup`
 * with the given "fleet" object (JSON text). */
static struct fs_scenario *scenario(double rate_per_s, const char *horizon,
                                    const char *warmup, const char *fleet_json)
{
	const struct fs_test_chat c = { rate_per_s, horizon, warmup, REPS, 11, "", "",
	                                fleet_json, "money.json" };

	return fs_test_chat_fleet(&c);
}

static struct fs_rep_result **run_reps(const struct fs_scenario *sc)
{
	struct fs_run_opts opts = { REPS, 0, 1, sc->sim.seed, false, NULL };

	return fs_replicate_run(sc, &opts);
}

/*
 * MODEL: B4, F13 — a daily commitment of 2 L40S at 24 per day over a 12 h
 * horizon whose first hour is warm-up: the warm-up is paid too,
 *   commitment = 2 x 24 x 12 h / 24 h = 24 (not 2 x 24 x 11 / 24 = 22),
 *   per hour 24 / 12 = 2, projected month 2 x 730 = 1460;
 * and the idle part is the fee times the share of the committed capacity
 * (2 instances x 12 h) that ran no iteration:
 *   idle = 24 x (1 - busy_ns / (2 x 12 h)), per replication.
 */
static void test_money_commitment_paid_over_the_warmup_and_its_idle_share(void **state)
{
	struct fs_scenario *sc = scenario(0.2, "12h", "1h",
		"{\"pools\": [{\"name\": \"c\", \"count\": 2, \"pricing\": \"daily\", "
		"\"price_per_day\": 24}]}");
	struct fs_rep_result **res = run_reps(sc);
	struct fs_summary *s = fs_summary_build(sc, res, REPS, sc->sim.seed);
	double idle_sum = 0;
	int r;

	(void)state;
	for (r = 0; r < REPS; r++) {
		const struct fs_pool_result *pr = &res[r]->fleet.pools[0];
		double idle = 24.0 * (1.0 - pr->busy_ns / (2 * 12 * NS_PER_H));

		print_message("rep %d: busy %.1f s, idle %.6f (expected %.6f)\n", r,
		              pr->busy_ns / 1e9, pr->idle_usd, idle);
		assert_true(pr->busy_ns > 0);
		assert_near(pr->commit_usd, 24.0, 1e-9, 0);
		assert_near(pr->usd, 24.0, 1e-9, 0);
		assert_near(pr->idle_usd, idle, 1e-9, 0);
		idle_sum += idle;
	}
	assert_exact_ci(&s->cost.total_usd, 24.0);
	assert_exact_ci(&s->pools[0].commit_usd, 24.0);
	assert_exact_ci(&s->cost.usd_per_hour, 2.0);
	assert_exact_ci(&s->cost.monthly_usd, 1460.0);
	assert_near(s->cost.idle_usd.value, idle_sum / REPS, 1e-9, 0);
	assert_near(s->pools[0].idle_usd.value, idle_sum / REPS, 1e-9, 0);
	fs_summary_free(s);
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

/*
 * MODEL: B1, B6 — a monthly pool of 1 (730 per month) that the autoscaler
 * grows to up to 4 under load, its overflow billed per started hour at
 * 1.40/h.  Per replication: the overflow hours are the billed hours, whole
 * hours per overflow instance (each alive less than the 1 h horizon), so
 *   overflow_usd = 1.40 x overflow hours, overflow hours a whole number
 *   (= the overflow instances that started running: billing starts when
 *   the machine runs, MODEL F2, so one still provisioning at the end, at
 *   most max - 1 = 3 of them, costs nothing), commitment = 1 x 730 x 1 h /
 *   730 h = 1, and instance-hours = 1 (the committed instance, warm all
 *   hour) + overflow hours.
 */
static void test_money_overflow_hours_are_the_billed_hours(void **state)
{
	struct fs_scenario *sc = scenario(25.0, "1h", "0s",
		"{\"pools\": [{\"name\": \"m\", \"pricing\": \"monthly\", \"count\": 1, "
		"\"min\": 1, \"max\": 4, \"price_per_month\": 730, "
		"\"overflow_price_per_h\": 1.40, \"billing\": {\"granularity\": \"hour\"}}], "
		"\"autoscale\": {\"pool\": \"m\", \"metric\": \"queue_len\", \"target\": 2, "
		"\"interval\": \"30s\", \"scale_up\": {\"window\": \"1m\"}}}");
	struct fs_rep_result **res = run_reps(sc);
	struct fs_summary *s = fs_summary_build(sc, res, REPS, sc->sim.seed);
	double hours_sum = 0;
	int r;

	(void)state;
	for (r = 0; r < REPS; r++) {
		const struct fs_pool_result *pr = &res[r]->fleet.pools[0];
		double over_h = pr->overflow_ns / NS_PER_H;
		double launched_over = (double)pr->launches - 1;

		print_message("rep %d: %.0f overflow launches, %.6f overflow h, %.6f USD\n", r,
		              launched_over, over_h, pr->overflow_usd);
		assert_true(launched_over >= 1);
		assert_near(over_h, round(over_h), 1e-12, 0);
		assert_true(over_h >= 1 && over_h <= launched_over && launched_over <= over_h + 3);
		assert_near(pr->overflow_usd, 1.40 * over_h, 1e-9, 0);
		assert_near(pr->commit_usd, 1.0, 1e-12, 0);
		assert_near(pr->usd, 1.0 + 1.40 * over_h, 1e-9, 0);
		assert_near(pr->billed_ns / NS_PER_H, 1.0 + over_h, 1e-9, 0);
		hours_sum += over_h;
	}
	assert_near(s->pools[0].overflow_hours.value, hours_sum / REPS, 1e-12, 0);
	assert_near(s->pools[0].overflow_usd.value, 1.40 * hours_sum / REPS, 1e-9, 0);
	assert_near(s->pools[0].instance_hours.value, 1.0 + hours_sum / REPS, 1e-9, 0);
	fs_summary_free(s);
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

/*
 * MODEL: F12, F13 — the monthly projection of what spot reclaims lost.  One
 * warm spot instance at 0.90/h, capacity gone from 10 to 20 min, a 5-minute
 * notice, a fallback stand-in at 3.60/h per started hour, provisioning 60 s
 * and a cold start of C s, no requests: the stand-in's and the replacement's
 * cold starts are lost, C x (3.60 + 0.90) / 3600 over the 1 h span, so
 *   lost per month = C x 4.50 / 3600 x 730.
 */
static void test_money_lost_to_reclaims_projected_to_a_month(void **state)
{
	struct fs_scenario *sc = scenario(1e-6, "1h", "0s", FS_TEST_FALLBACK_FLEET);
	struct fs_rep_result **res = run_reps(sc);
	struct fs_summary *s = fs_summary_build(sc, res, REPS, sc->sim.seed);
	double cold_s = fs_test_cold_start_s(&sc->fleet.pools[1]);
	double lost = cold_s * (3.60 + 0.90) / 3600;

	(void)state;
	print_message("cold start %.3f s: lost %.6f, per month %.4f\n", cold_s,
	              s->cost.lost_usd.value, s->cost.lost_usd_monthly.value);
	assert_true(cold_s > 10 && cold_s < 600);
	assert_exact_ci(&s->cost.lost_usd, lost);
	assert_exact_ci(&s->cost.lost_usd_monthly, lost * 730);
	fs_summary_free(s);
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

/*
 * MODEL: B8 — an on-demand pool of Llama-3.1-8B on 2 L40S per instance (tp
 * 2) at the catalogue's prices: 2 x 1.40 = 2.80/h against the catalogue's
 * monthly fee for both cards, 2 x 1.40 x 0.60 x 730 = 1226.40, pays off
 * above 1226.40 / 2.80 = 438 h per month (0.60 of 730 h) — the same share
 * as one card, not half of it.
 */
static void test_money_break_even_of_a_tp2_pool_counts_both_cards(void **state)
{
	struct fs_scenario *sc = scenario(0.2, "10m", "0s",
		"{\"pools\": [{\"name\": \"od\", \"count\": 1, \"tp\": 2}]}");
	struct fs_rep_result **res = run_reps(sc);
	struct fs_summary *s = fs_summary_build(sc, res, REPS, sc->sim.seed);
	const struct fs_break_even *be = &s->pools[0].break_even;

	(void)state;
	assert_near(sc->fleet.pools[0].price_usd_per_h, 2.80, 1e-12, 0);
	assert_true(be->available);
	assert_near(be->fee, 2 * 1.40 * 0.60 * 730, 1e-9, 0);
	assert_near(be->hours_per_month, 438.0, 1e-9, 0);
	/* 10 min of 2.80/h per second: 2.80 / 6 */
	assert_exact_ci(&s->cost.total_usd, 2.80 / 6);
	fs_summary_free(s);
	fs_replicate_free(res, REPS);
	fs_scenario_free(sc);
}

static const cJSON *item(const cJSON *j, const char *array, int i)
{
	const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, array), i);

	assert_non_null(x);
	return x;
}

/*
 * MODEL: G7, G11 — a committed plan of a task pays whole periods: over the
 * task's span, or per occurrence, whichever is fewer.  At 2/h on demand,
 * 40 per day and 300 per week, 1 card:
 *   "gaps": 24 card-h every 48 h, 3 times (0-24, 48-72, 96-120 h): span
 *     120 h = 5 days, per occurrence 3 x 1 day: daily 3 x 40 = 120, weekly
 *     min(1, 3) x 300 = 300, on demand 72 x 2 = 144; machine: egress 10 GB
 *     x 0.5 per occurrence = 15, object storage 73 GB x 1 per GB-month over
 *     the 120 h span = 73 x 120 / 730 = 12, together 27;
 *   "tiled": 12 card-h every 12 h, 4 times (0-48 h, back to back): span
 *     exactly 2 days, per occurrence 4 x 1 day: daily 2 x 40 = 80 (not 3
 *     periods for a span on a period's edge), used 48 / (2 x 24) = 1;
 *   "to_end": 1 card-h every 24 h without a count, in a plan of 96 h: at
 *     0, 24, 48 and 72 h, 4 occurrences (none starts at the period's end).
 */
static void test_money_budget_committed_plans_pay_the_fewer_whole_periods(void **state)
{
	char *dir = fs_test_tmpdir();
	const cJSON *gaps, *tiled, *to_end;
	cJSON *j;

	(void)state;
	j = fs_test_budget_json(dir,
		"{\"name\": \"periods\", \"currency\": \"EUR\","
		" \"prices\": {\"l40s\": {\"on_demand\": 2, \"daily\": 40,"
		" \"weekly\": 300}},\n"
		" \"period\": \"96h\", \"machine\": {\"egress_per_gb\": 0.5,"
		" \"object_per_gb_month\": 1},\n"
		" \"tasks\": [{\"name\": \"gaps\", \"type\": \"experiment\","
		" \"gpu\": \"l40s\", \"card_hours\": 24, \"every\": \"48h\","
		" \"count\": 3, \"egress_gb\": 10, \"object_gb\": 73},\n"
		" {\"name\": \"tiled\", \"type\": \"experiment\", \"gpu\": \"l40s\","
		" \"card_hours\": 12, \"every\": \"12h\", \"count\": 4},\n"
		" {\"name\": \"to_end\", \"type\": \"experiment\", \"gpu\": \"l40s\","
		" \"card_hours\": 1, \"every\": \"24h\"}]}");
	gaps = item(j, "tasks", 0);
	tiled = item(j, "tasks", 1);
	to_end = item(j, "tasks", 2);
	assert_near(fs_test_json_num(gaps, "card_h"), 72, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(gaps, "plan_cost.daily"), 120, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(gaps, "plan_cost.weekly"), 300, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(gaps, "plan_cost.on_demand"), 144, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(gaps, "machine_cost"), 27, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(tiled, "card_h"), 48, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(tiled, "plan_cost.daily"), 80, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(tiled, "used_share.daily"), 1, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(tiled, "plan_cost.weekly"), 300, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(to_end, "occurrences"), 4, 0, 0);
	assert_near(fs_test_json_num(to_end, "card_h"), 4, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

/*
 * MODEL: G12 — months without a start date are 730 h.  2 cards busy for
 * 800 h (1600 card-h) at 2/h on demand, the only plan priced: 3200.  Month
 * 1 holds 2 x 730 = 1460 card-h, month 2 the other 2 x 70 = 140, each at
 * the task's cost per card-h (3200 / 1600 = 2): 2920 and 280.
 */
static void test_money_budget_months_are_730_hours(void **state)
{
	char *dir = fs_test_tmpdir();
	const cJSON *m1, *m2;
	cJSON *j;

	(void)state;
	j = fs_test_budget_json(dir,
		"{\"name\": \"months\", \"currency\": \"EUR\", \"buffer\": 0,"
		" \"prices\": {\"a100-80g\": {\"on_demand\": 2}},\n"
		" \"tasks\": [{\"name\": \"long\", \"type\": \"experiment\","
		" \"gpu\": \"a100-80g\", \"cards\": 2, \"card_hours\": 1600}]}");
	m1 = item(j, "months", 0);
	m2 = item(j, "months", 1);
	assert_near(fs_test_json_num(m1, "card_h"), 1460, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(m1, "cost"), 2920, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(m2, "card_h"), 140, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(m2, "cost"), 280, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(j, "totals.gpu_cost"), 3200, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

/*
 * MODEL: G8 — a pool may commit up to its peak: 2 cards for a whole 730-h
 * month at 2/h or 1000 per card-month: committing both costs 2 x 1000 =
 * 2000, one 1000 + 730 card-h x 2 = 2460; the monthly plan is 2000 with 2
 * cards committed.
 */
static void test_money_budget_pool_may_commit_its_peak(void **state)
{
	char *dir = fs_test_tmpdir();
	const cJSON *pool;
	cJSON *j;

	(void)state;
	j = fs_test_budget_json(dir,
		"{\"name\": \"peak\", \"currency\": \"EUR\","
		" \"prices\": {\"a100-80g\": {\"on_demand\": 2, \"monthly\": 1000}},\n"
		" \"tasks\": [{\"name\": \"month\", \"type\": \"experiment\","
		" \"gpu\": \"a100-80g\", \"cards\": 2, \"card_hours\": 1460}]}");
	pool = item(j, "pools", 0);
	assert_near(fs_test_json_num(pool, "peak_cards"), 2, 0, 0);
	assert_near(fs_test_json_num(pool, "plan_cost.monthly"), 2000, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(pool, "committed_cards.monthly"), 2, 0, 0);
	assert_near(fs_test_json_num(pool, "plan_cost.on_demand"), 2920, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

/*
 * MODEL: G14 — the set-up (4500 GB at 10 Gbit/s: 1 h) runs once, billed at
 * the policy's starting price: with no interruptions the job of W hours of
 * work and n = ceil(W / 1 h) checkpoints of 6 min on 2 A100-80G costs
 *   spot:          2 x spot x (W + 0.1 n) + 1 h x 2 x spot,
 *   on demand:     2 x od x (W + 0.1 n) + 1 h x 2 x od,
 *   spot fallback: as spot (it starts on spot).
 */
static void test_money_budget_spot_setup_at_the_policy_price(void **state)
{
	const struct fs_gpu_spec *g = fs_catalog_find_gpu("a100-80g");
	double spot = g->price_spot_usd_per_h, od = g->price_on_demand_usd_per_h;
	char *dir = fs_test_tmpdir();
	const cJSON *t, *sp, *pol;
	double w_h, n;
	cJSON *j;

	(void)state;
	j = fs_test_budget_json(dir,
		"{\"name\": \"setup\", \"tasks\": ["
		"{\"name\": \"ckpt\", \"type\": \"finetune\", \"gpu\": \"a100-80g\","
		" \"cards\": 2, \"model\": \"llama-2-7b\", \"method\": \"lora\","
		" \"tokens\": 2e8, \"mfu\": 0.4, \"transfer_gb\": 4500,"
		" \"deadline\": \"30d\","
		" \"spot\": {\"interval\": \"1h\", \"checkpoint_cost\": \"6m\","
		" \"restart_cost\": \"15m\", \"interruptions\": {\"rate_per_h\": 0},"
		" \"replications\": 20}}]}");
	t = item(j, "tasks", 0);
	assert_near(fs_test_json_num(t, "setup_h"), 1.0, 1e-9, JSON_REL);
	w_h = fs_test_json_num(t, "wall_h") - 1.0;
	assert_true(w_h > 2 && w_h < 50);
	n = ceil(w_h / 1.0);
	sp = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "training"),
	                                      "spot");
	pol = cJSON_GetObjectItemCaseSensitive(sp, "policies");
	assert_near(fs_test_json_num(pol, "spot.cost"), 2 * spot * (w_h + 0.1 * n) + 2 * spot,
	            1e-9, JSON_REL);
	assert_near(fs_test_json_num(pol, "on_demand.cost"), 2 * od * (w_h + 0.1 * n) + 2 * od,
	            1e-9, JSON_REL);
	assert_near(fs_test_json_num(pol, "spot_fallback.cost"),
	            2 * spot * (w_h + 0.1 * n) + 2 * spot,
	            1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_money_commitment_paid_over_the_warmup_and_its_idle_share),
		cmocka_unit_test(test_money_overflow_hours_are_the_billed_hours),
		cmocka_unit_test(test_money_lost_to_reclaims_projected_to_a_month),
		cmocka_unit_test(test_money_break_even_of_a_tp2_pool_counts_both_cards),
		cmocka_unit_test(test_money_budget_committed_plans_pay_the_fewer_whole_periods),
		cmocka_unit_test(test_money_budget_months_are_730_hours),
		cmocka_unit_test(test_money_budget_pool_may_commit_its_peak),
		cmocka_unit_test(test_money_budget_spot_setup_at_the_policy_price),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
