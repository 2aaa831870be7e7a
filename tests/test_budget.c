/*
 * test_budget.c — the budget's pieces against hand computations, and the
 * same figures read back from budget.json of whole `fleetsim budget` runs:
 * break-even utilisation = fee / (period hours x hourly price); 10 Gbit/s
 * moves 4.5 TB an hour; card-hours of a full fine-tuning = 6 N T / (MFU x
 * peak); peak concurrency of overlapping tasks; the data-parallel speed-up
 * of 2 cards from the gradient all-reduce.  Runs ./fleetsim.
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

#include "fleetsim/billing.h"
#include "fleetsim/budget.h"
#include "fleetsim/catalog.h"
#include "util_test.h"

/* Figures read back from budget.json carry 9 significant digits
 * (docs/OUTPUTS.md): compared within twice that rounding. */
#define JSON_REL 2e-8

static const cJSON *task_at(const cJSON *j, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "tasks"), i);
}

static void test_budget_break_even_is_fee_over_period_hours_times_hourly(void **state)
{
	char *dir = fs_test_tmpdir();
	cJSON *j;
	const cJSON *pool;

	(void)state;
	/* 1000 a month against 2 an hour: 1000 / (730 x 2) = 0.68493 */
	assert_near(fs_budget_break_even_share(1000, FS_PRICING_MONTHLY, 2.0),
	            1000.0 / (730.0 * 2.0), 1e-12, 0);
	assert_near(fs_budget_break_even_share(300, FS_PRICING_WEEKLY, 2.5),
	            300.0 / (168.0 * 2.5), 1e-12, 0);
	assert_near(fs_budget_break_even_share(40, FS_PRICING_DAILY, 2.0), 40.0 / 48.0, 1e-12, 0);
	assert_true(isinf(fs_budget_break_even_share(40, FS_PRICING_DAILY, 0)));
	/* the same figure out of a whole run, with the plan's own prices */
	j = fs_test_budget_json(dir,
		"{\"name\": \"be\", \"currency\": \"EUR\",\n"
		" \"prices\": {\"a100-80g\": {\"on_demand\": 2.0, \"monthly\": 1000,"
		" \"weekly\": 300, \"daily\": 40}},\n"
		" \"tasks\": [{\"name\": \"x\", \"type\": \"experiment\", \"gpu\": \"a100-80g\","
		" \"card_hours\": 100}]}");
	pool = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "pools"), 0);
	assert_near(fs_test_json_num(pool, "break_even_share.monthly"),
	            1000.0 / (730.0 * 2.0), 1e-9, JSON_REL);
	assert_near(fs_test_json_num(pool, "break_even_share.weekly"),
	            300.0 / (168.0 * 2.0), 1e-9, JSON_REL);
	/* 100 h on demand = 200; one week = 300; 5 days = 200: on demand (the
	 * first at equal cost) is the cheapest */
	assert_near(fs_test_json_num(task_at(j, 0), "plan_cost.on_demand"), 200.0, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "plan_cost.daily"), 200.0, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "plan_cost.weekly"), 300.0, 1e-9, JSON_REL);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(task_at(j, 0), "plan_cost"), "spot")));
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

static void test_budget_ten_gbit_moves_4_5_tb_an_hour(void **state)
{
	char *dir = fs_test_tmpdir();
	cJSON *j;

	(void)state;
	/* 10 Gbit/s = 1.25 GB/s = 4500 GB/h, not 7 TB/h */
	assert_near(fs_budget_transfer_h(4500, 10e9 / 8), 1.0, 1e-12, 0);
	assert_near(fs_budget_transfer_h(7000, 10e9 / 8), 7000.0 / 4500.0, 1e-12, 0);
	/* a task moving 9 TB at 10 Gbit/s sets up for 2 h on each of its cards */
	j = fs_test_budget_json(dir,
		"{\"name\": \"tx\", \"machine\": {\"bandwidth_gbit_per_s\": 10},\n"
		" \"tasks\": [{\"name\": \"d\", \"type\": \"data\", \"gpu\": \"l40s\","
		" \"cards\": 2, \"card_hours\": 10, \"transfer_gb\": 9000}]}");
	assert_near(fs_test_json_num(j, "assumptions.transfer_tb_per_h"), 4.5, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "setup_h"), 2.0, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "wall_h"), 5.0 + 2.0, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "card_h"), 2 * 7.0, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

static void test_budget_full_finetune_card_hours_are_6NT_over_mfu_peak(void **state)
{
	const struct fs_model_spec *m = fs_catalog_find_model("llama-2-7b");
	const struct fs_gpu_spec *g = fs_catalog_find_gpu("h200");
	char *dir = fs_test_tmpdir();
	double want_h;
	cJSON *j;

	(void)state;
	assert_non_null(m);
	assert_non_null(g);
	/* 1e9 tokens x 2 epochs at MFU 0.5 on 989.4 TFLOP/s, no set-up
	 * transfer (an H200: its 141 GB hold the 16 B per parameter of T1) */
	want_h = 6.0 * m->params * 2e9 / (0.5 * g->fp16_flops_per_s) / 3600.0;
	j = fs_test_budget_json(dir,
		"{\"name\": \"ft\", \"tasks\": [{\"name\": \"full\","
		" \"type\": \"finetune\", \"gpu\": \"h200\", \"model\": \"llama-2-7b\","
		" \"method\": \"full\", \"tokens\": 1e9, \"epochs\": 2, \"mfu\": 0.5,"
		" \"transfer_gb\": 0}]}");
	assert_near(fs_test_json_num(task_at(j, 0), "card_h"), want_h, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "training.flops_per_token"),
	            6.0 * m->params, 1e-9, JSON_REL);
	/* about 6 x 6.74e9 x 2e9 / 494.7e12 / 3600 = 45.4 h */
	assert_true(want_h > 45 && want_h < 46);
	/* its on-demand cost is those hours at the catalogue's price */
	assert_near(fs_test_json_num(task_at(j, 0), "plan_cost.on_demand"),
	            want_h * g->price_on_demand_usd_per_h, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

/* G13: the same job on one A100-80G needs 6.74e9 x 16 = 107.8 GB of model
 * states before activations: refused (exit 2) with the numbers; the memory
 * plan of a job that fits is in budget.json. */
static void test_budget_finetune_that_does_not_fit_is_refused(void **state)
{
	char *dir = fs_test_tmpdir(), path[512], out[512];
	const char *args[] = { "budget", path, "-o", out, "-q", NULL };
	struct fs_test_run r;
	cJSON *j;

	(void)state;
	snprintf(path, sizeof path, "%s/plan.json", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	fs_test_write_file(path, "{\"name\": \"ft\", \"tasks\": [{\"name\": \"full\", \"type\": \"finetune\","
	      " \"gpu\": \"a100-80g\", \"model\": \"llama-2-7b\", \"method\": \"full\","
	      " \"tokens\": 1e9, \"transfer_gb\": 0}]}");
	r = fs_test_run_fleetsim(args);
	assert_int_equal(r.exit_code, 2);
	/* at the task's object in the plan: line 1, column 26 */
	{
		char want[600];

		snprintf(want, sizeof want, "%s:1:26: tasks[0]: does not fit", path);
		assert_non_null(strstr(r.err, want));
	}
	assert_non_null(strstr(r.err, "optimizer 80.88"));      /* 6.74e9 x 12 B */
	fs_test_run_free(&r);
	/* LoRA rank 16 on q,k,v,o of Llama-2-7B, 1 x 2048 tokens, fits: weights
	 * 13.48 GB + the 16.78M adapters x 16 B + activations + 1 GB */
	j = fs_test_budget_json(dir,
		"{\"name\": \"ft\", \"tasks\": [{\"name\": \"lora\","
		" \"type\": \"finetune\", \"gpu\": \"a100-80g\", \"model\": \"llama-2-7b\","
		" \"method\": \"lora\", \"tokens\": 1e9, \"transfer_gb\": 0}]}");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(task_at(j, 0), "training"), "fits")));
	assert_near(fs_test_json_num(task_at(j, 0), "training.memory_gb_per_card"),
	            13.48 + 16777216 * 16 / 1e9 +
	            fs_test_json_num(task_at(j, 0), "training.activation_gb_per_card") + 1.0,
	            1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

/* G14, by hand: with no interruptions (rate 0) the job on spot runs its
 * work W plus ceil(W / tau) checkpoints of delta and nothing else, so spot
 * costs cards x spot price x (W + n delta), on-demand the same hours at the
 * on-demand price, the fallback never falls back; spot is chosen, and it
 * replaces the flat spot overhead for this task only. */
static void test_budget_spot_block_at_rate_0_is_work_plus_checkpoints(void **state)
{
	const struct fs_gpu_spec *g = fs_catalog_find_gpu("a100-80g");
	char *dir = fs_test_tmpdir();
	const cJSON *sp, *t0, *t1;
	double w_h, n, want;
	cJSON *j;

	(void)state;
	j = fs_test_budget_json(dir,
		"{\"name\": \"spot\", \"tasks\": ["
		"{\"name\": \"ckpt\", \"type\": \"finetune\", \"gpu\": \"a100-80g\","
		" \"cards\": 2, \"model\": \"llama-2-7b\", \"method\": \"lora\","
		" \"tokens\": 2e8, \"mfu\": 0.4, \"transfer_gb\": 0, \"deadline\": \"30d\","
		" \"spot\": {\"interval\": \"1h\", \"checkpoint_cost\": \"6m\","
		" \"restart_cost\": \"15m\", \"interruptions\": {\"rate_per_h\": 0},"
		" \"replications\": 50}},"
		"{\"name\": \"flat\", \"type\": \"finetune\", \"gpu\": \"a100-80g\","
		" \"cards\": 2, \"model\": \"llama-2-7b\", \"method\": \"lora\","
		" \"tokens\": 2e8, \"mfu\": 0.4, \"transfer_gb\": 0}]}");
	t0 = task_at(j, 0);
	t1 = task_at(j, 1);
	w_h = fs_test_json_num(t0, "wall_h");
	assert_true(w_h > 2 && w_h < 50);
	n = ceil(w_h / 1.0);
	want = 2 * g->price_spot_usd_per_h * (w_h + n * 0.1);
	sp = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t0, "training"),
	                                      "spot");
	assert_non_null(sp);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sp, "chosen")),
	                    "spot");
	assert_near(fs_test_json_num(sp, "cost"), want, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(sp, "completion_h"), w_h + n * 0.1, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(sp, "p_deadline_met"), 1.0, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(sp, "policies.on_demand.cost"),
	            2 * g->price_on_demand_usd_per_h * (w_h + n * 0.1), 1e-9, JSON_REL);
	assert_near(fs_test_json_num(sp, "policies.spot_fallback.cost"), want, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(t0, "plan_cost.spot"), want, 1e-9, JSON_REL);
	/* the task without a block keeps the plan's flat 15% */
	assert_near(fs_test_json_num(t1, "plan_cost.spot"),
	            fs_test_json_num(t1, "card_h") * 1.15 * g->price_spot_usd_per_h, 1e-9,
	            JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

static void test_budget_lora_flops_are_4N_plus_adapters(void **state)
{
	const struct fs_model_spec *m = fs_catalog_find_model("llama-2-7b");
	struct fs_budget_train t;
	double a;

	(void)state;
	memset(&t, 0, sizeof t);
	t.method = FS_TRAIN_LORA;
	t.lora_rank = 8;
	t.lora_modules = FS_LORA_Q | FS_LORA_V;
	/* Llama-2-7B: 32 layers, hidden 4096, 32 heads x 128, no GQA: q and v
	 * are 4096 x 4096, so r (4096 + 4096) each: 32 x 8 x 16384 = 4,194,304 */
	a = fs_train_lora_params(m, FS_LORA_Q | FS_LORA_V, 8);
	assert_near(a, 4194304.0, 0, 0);
	assert_near(fs_budget_flops_per_token(m, &t), 4.0 * m->params + 6.0 * a, 0, 1e-15);
	t.method = FS_TRAIN_FULL;
	assert_near(fs_budget_flops_per_token(m, &t), 6.0 * m->params, 0, 1e-15);
}

/* gpt-oss-20b (MoE, 32 experts, top-4): the FLOPs of a token use the
 * active parameters and the adapters of its 4 routed experts, while all
 * 32 experts' adapters train.  h 2880, q 64 x 64 = 4096, kv 8 x 64 = 512,
 * f 2880, 24 layers, rank 16, all seven modules: attention r (h+q + 2(h+kv)
 * + q+h) = 16 x 20736 per layer, one expert's MLP 16 x 3 (h + f) = 16 x
 * 17280: active 24 x 16 x (20736 + 4 x 17280) = 34,504,704, all
 * 24 x 16 x (20736 + 32 x 17280) = 220,299,264. */
static void test_budget_moe_flops_use_active_params_and_adapters(void **state)
{
	const struct fs_model_spec *m = fs_catalog_find_model("gpt-oss-20b");
	struct fs_budget_train t;

	(void)state;
	assert_non_null(m);
	memset(&t, 0, sizeof t);
	t.method = FS_TRAIN_LORA;
	t.lora_rank = 16;
	t.lora_modules = FS_LORA_ALL;
	assert_near(fs_train_lora_params(m, FS_LORA_ALL, 16), 220299264.0, 0, 0);
	assert_near(fs_budget_flops_per_token(m, &t), 4.0 * 4.19e9 + 6.0 * 34504704.0, 0,
	            1e-15);
	t.method = FS_TRAIN_FULL;
	assert_near(fs_budget_flops_per_token(m, &t), 6.0 * 4.19e9, 0, 1e-15);
}

static void test_budget_peak_counts_overlaps_only(void **state)
{
	const fs_ns h = INT64_C(3600) * FS_NS_PER_S;
	const struct fs_budget_slot slots[] = {
		{ 0, 10 * h, 2, 0 }, { 5 * h, 15 * h, 3, 1 }, { 10 * h, 20 * h, 4, 2 },
	};
	char *dir = fs_test_tmpdir();
	cJSON *j;

	(void)state;
	/* [10, 15): 3 + 4; the first ends at 10 before the third starts */
	assert_int_equal(fs_budget_peak_cards(slots, 3), 7);
	assert_int_equal(fs_budget_peak_cards(slots, 1), 2);
	assert_int_equal(fs_budget_peak_cards(slots, 2), 5);
	/* the same schedule in a plan: fixed tasks of card_hours / cards hours */
	j = fs_test_budget_json(dir,
		"{\"name\": \"peak\", \"tasks\": [\n"
		" {\"name\": \"a\", \"type\": \"data\", \"gpu\": \"l40s\", \"cards\": 2,"
		" \"card_hours\": 20, \"transfer_gb\": 0},\n"
		" {\"name\": \"b\", \"type\": \"experiment\", \"gpu\": \"l40s\", \"cards\": 3,"
		" \"card_hours\": 30, \"start\": \"5h\", \"transfer_gb\": 0},\n"
		" {\"name\": \"c\", \"type\": \"experiment\", \"gpu\": \"a100-80g\","
		" \"cards\": 4, \"card_hours\": 40, \"start\": \"10h\", \"transfer_gb\": 0}]}");
	assert_near(fs_test_json_num(j, "totals.peak_cards"), 7, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(j, "totals.card_h"), 90, 1e-9, JSON_REL);
	/* per GPU: l40s 2 + 3 over [5, 10); a100 4 */
	assert_near(fs_test_json_num(j, "pools[0].peak_cards"), 5, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

static void test_budget_two_cards_speed_up_from_the_allreduce(void **state)
{
	const struct fs_model_spec *m = fs_catalog_find_model("llama-2-7b");
	const struct fs_gpu_spec *g = fs_catalog_find_gpu("a100-80g");
	struct fs_budget_train t;
	double c_s, ar_s, eff, ms_c, ms_a;
	char *dir = fs_test_tmpdir();
	cJSON *j;

	(void)state;
	memset(&t, 0, sizeof t);
	t.method = FS_TRAIN_FULL;
	t.mfu = 0.5;
	t.micro_batch = 1;
	t.seq_tokens = 2048;
	t.grad_accum = 1;
	/* a step: 2048 tokens x 6N FLOPs at 0.5 x peak; the ring all-reduce of
	 * N x 2 B of bf16 gradients over 2 cards moves 2 (2-1)/2 x 2N bytes */
	c_s = 2048 * 6.0 * m->params / (0.5 * g->fp16_flops_per_s);
	ar_s = 2.0 * 1 / 2 * (2.0 * m->params) / g->link_bytes_per_s +
	       (double)g->allreduce_latency_ns / 1e9;
	eff = fs_budget_dp_efficiency(g, m, &t, 2, &ms_c, &ms_a);
	assert_near(ms_c, c_s * 1e3, 0, 1e-12);
	assert_near(ms_a, ar_s * 1e3, 0, 1e-12);
	assert_near(eff, c_s / (c_s + ar_s), 0, 1e-12);
	assert_true(eff < 0.95 && eff > 0.5);    /* not free: tens of ms per step */
	assert_near(fs_budget_dp_efficiency(g, m, &t, 1, NULL, NULL), 1.0, 0, 0);
	/* the whole run: 2 cards finish 1 - 1 / (2 eff) sooner than one */
	j = fs_test_budget_json(dir,
		"{\"name\": \"dp\", \"tasks\": [{\"name\": \"full\","
		" \"type\": \"finetune\", \"gpu\": \"a100-80g\", \"cards\": 2,"
		" \"model\": \"llama-2-7b\", \"method\": \"full\", \"tokens\": 1e8,"
		" \"mfu\": 0.5, \"seq_len\": 2048, \"transfer_gb\": 0,"
		" \"shard\": \"zero2\"}]}");
	assert_near(fs_test_json_num(task_at(j, 0), "training.speedup"), 2 * eff, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "training.sooner_than_one_card"),
	            1 - 1 / (2 * eff), 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "wall_h"),
	            fs_test_json_num(task_at(j, 0), "training.one_card_h") / (2 * eff), 1e-9,
	            JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 0), "card_h"),
	            fs_test_json_num(task_at(j, 0), "training.one_card_h") / eff, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

static void test_budget_margin_is_apart_from_the_estimate(void **state)
{
	char *dir = fs_test_tmpdir();
	cJSON *j;
	double est;

	(void)state;
	/* 100 card-h on demand at 2 = 200; disk 1000 GB x 0.1 / month over 100
	 * h = 13.6986; risk 1.5 -> 0.5 x 213.6986; buffer 20% of both */
	j = fs_test_budget_json(dir,
		"{\"name\": \"m\", \"currency\": \"EUR\", \"buffer\": 0.2,"
		" \"risk_factor\": 1.5, \"prices\": {\"l40s\": {\"on_demand\": 2}},\n"
		" \"machine\": {\"disk_per_gb_month\": 0.1},\n"
		" \"tasks\": [{\"name\": \"x\", \"type\": \"data\", \"gpu\": \"l40s\","
		" \"card_hours\": 100, \"disk_gb\": 1000}]}");
	est = 200 + 1000 * 0.1 * 100 / 730.0;
	assert_near(fs_test_json_num(j, "totals.estimate"), est, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(j, "totals.risk_cost"), 0.5 * est, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(j, "totals.buffer_cost"), 0.2 * 1.5 * est, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(j, "totals.planned"), 1.2 * 1.5 * est, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(j, "totals.margin"), (1.2 * 1.5 - 1) * est, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

static void test_budget_pool_commits_the_base_and_pays_peaks_on_demand(void **state)
{
	char *dir = fs_test_tmpdir();
	cJSON *j;
	const cJSON *pool;

	(void)state;
	/* 2 cards for 400 h, then 2 cards for 330 h (together a whole 730-h
	 * month), and 2 more for 100 h: alone each pays on demand (1600 + 1320
	 * + 400 = 3320, a month of 2 cards costs 2000 each); the pool commits 2
	 * monthly (2000) + the 200 card-h above them on demand (400) = 2400 */
	j = fs_test_budget_json(dir,
		"{\"name\": \"pool\", \"currency\": \"EUR\","
		" \"prices\": {\"a100-80g\": {\"on_demand\": 2, \"monthly\": 1000}},\n"
		" \"tasks\": [{\"name\": \"a\", \"type\": \"experiment\","
		" \"gpu\": \"a100-80g\", \"cards\": 2, \"card_hours\": 800},\n"
		" {\"name\": \"b\", \"type\": \"experiment\", \"gpu\": \"a100-80g\","
		" \"cards\": 2, \"card_hours\": 660, \"start\": \"400h\"},\n"
		" {\"name\": \"peak\", \"type\": \"experiment\", \"gpu\": \"a100-80g\","
		" \"cards\": 2, \"card_hours\": 200, \"start\": \"10h\"}]}");
	assert_near(fs_test_json_num(task_at(j, 0), "cheapest_plan_cost"), 1600, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(task_at(j, 1), "plan_cost.monthly"), 2000, 1e-9, JSON_REL);
	pool = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "pools"), 0);
	assert_near(fs_test_json_num(pool, "plan_cost.monthly"), 2400, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(pool, "committed_cards.monthly"), 2, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(pool, "plan_cost.on_demand"), 3320, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(pool, "cost"), 2400, 1e-9, JSON_REL);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pool,
	                    "cheapest")), "monthly");
	assert_near(fs_test_json_num(pool, "per_task_cost"), 3320, 1e-9, JSON_REL);
	assert_near(fs_test_json_num(j, "totals.gpu_cost"), 2400, 1e-9, JSON_REL);
	/* shared by card-hours: a has 800 of 1660 */
	assert_near(fs_test_json_num(task_at(j, 0), "gpu_cost"),
	            2400 * 800 / 1660.0, 1e-9, JSON_REL);
	cJSON_Delete(j);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_break_even_is_fee_over_period_hours_times_hourly),
		cmocka_unit_test(test_budget_ten_gbit_moves_4_5_tb_an_hour),
		cmocka_unit_test(test_budget_full_finetune_card_hours_are_6NT_over_mfu_peak),
		cmocka_unit_test(test_budget_finetune_that_does_not_fit_is_refused),
		cmocka_unit_test(test_budget_spot_block_at_rate_0_is_work_plus_checkpoints),
		cmocka_unit_test(test_budget_lora_flops_are_4N_plus_adapters),
		cmocka_unit_test(test_budget_moe_flops_use_active_params_and_adapters),
		cmocka_unit_test(test_budget_peak_counts_overlaps_only),
		cmocka_unit_test(test_budget_two_cards_speed_up_from_the_allreduce),
		cmocka_unit_test(test_budget_margin_is_apart_from_the_estimate),
		cmocka_unit_test(test_budget_pool_commits_the_base_and_pays_peaks_on_demand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
