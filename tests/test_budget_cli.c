/*
 * test_budget_cli.c — `fleetsim budget` end to end: every worked example
 * scenarios/budget-*.json prints its table and writes budget.json and
 * budget.csv; `fleetsim report` on the output writes the one-page budget;
 * bad plans exit 2 with file:line:col: json.path: message and write
 * nothing.  Runs ./fleetsim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleetsim/billing.h"
#include "fleetsim/catalog.h"
#include "util_test.h"

static const char *const EXAMPLES[] = {
	"scenarios/budget-lora-7b-4090.json",
	"scenarios/budget-lora-20b-2xa100.json",
	"scenarios/budget-lora-20b-8xa100.json",
	"scenarios/budget-quarter.json",
};

static void test_budget_cli_examples_print_and_write(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof EXAMPLES / sizeof EXAMPLES[0]; i++) {
		char *dir = fs_test_tmpdir(), *p, *text;
		const char *args[] = { "budget", EXAMPLES[i], "-o", dir, NULL };
		struct fs_test_run r = fs_test_run_fleetsim(args);
		cJSON *j;

		if (r.exit_code != 0)
			print_error("%s: %s\n", EXAMPLES[i], r.err);
		assert_int_equal(r.exit_code, 0);
		assert_has(r.out, "each task alone on each plan", "budget to request",
		           "peak concurrent cards");
		fs_test_run_free(&r);
		p = fs_test_path(dir, "budget.json");
		text = fs_test_read_file(p, NULL);
		assert_non_null(text);
		j = cJSON_Parse(text);
		assert_non_null(j);
		assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "tasks")) >= 1);
		assert_true(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(j, "totals"), "planned")->valuedouble > 0);
		cJSON_Delete(j);
		free(text);
		free(p);
		p = fs_test_path(dir, "budget.csv");
		text = fs_test_read_file(p, NULL);
		assert_non_null(text);
		assert_int_equal(strncmp(text, "task,type,gpu,cards,", 20), 0);
		assert_non_null(strstr(text, "\nTOTAL,"));
		free(text);
		free(p);
		fs_test_tmpdir_free(dir);
	}
}

static void test_budget_cli_quarter_figures(void **state)
{
	char *dir = fs_test_tmpdir(), *p = fs_test_path(dir, "budget.json"), *text;
	const char *args[] = { "budget", "scenarios/budget-quarter.json", "-o", dir, "-q", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	const cJSON *tasks, *t, *tot;
	double sum_months = 0;
	cJSON *j, *m;

	(void)state;
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.out, "");
	fs_test_run_free(&r);
	text = fs_test_read_file(p, NULL);
	j = cJSON_Parse(text);
	assert_non_null(j);
	tasks = cJSON_GetObjectItemCaseSensitive(j, "tasks");
	tot = cJSON_GetObjectItemCaseSensitive(j, "totals");
	/* weekly experiments from 2026-04-03 over the 91 days: 13 runs */
	t = cJSON_GetArrayItem(tasks, 3);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(t, "occurrences")->valuedouble, 13);
	assert_near(cJSON_GetObjectItemCaseSensitive(t, "card_h")->valuedouble, 13 * 64.0, 1e-9, 0);
	/* the chat service runs the whole quarter: 91 x 24 h per card */
	t = cJSON_GetArrayItem(tasks, 2);
	assert_near(cJSON_GetObjectItemCaseSensitive(t, "wall_h")->valuedouble, 91 * 24.0, 1e-9, 0);
	/* months add up to the estimate, and the plan is estimate + margin, to
	 * the rounding of each figure to 9 significant digits (OUTPUTS.md):
	 * 1e-8 relative, not 1e-9 */
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "months"))
		sum_months += cJSON_GetObjectItemCaseSensitive(m, "cost")->valuedouble;
	assert_near(sum_months, cJSON_GetObjectItemCaseSensitive(tot, "estimate")->valuedouble,
	            0, 1e-8);
	assert_near(cJSON_GetObjectItemCaseSensitive(tot, "planned")->valuedouble,
	            cJSON_GetObjectItemCaseSensitive(tot, "estimate")->valuedouble +
	            cJSON_GetObjectItemCaseSensitive(tot, "margin")->valuedouble, 0, 1e-8);
	cJSON_Delete(j);
	free(text);
	free(p);
	fs_test_tmpdir_free(dir);
}

static void test_budget_cli_report_writes_the_one_page_budget(void **state)
{
	char *dir = fs_test_tmpdir(), *p, *md;
	const char *args[] = { "budget", "scenarios/budget-quarter.json", "-o", dir, "-q", NULL };
	const char *rep[] = { "report", dir, "-q", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);

	(void)state;
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	/* no gnuplot needed: a budget has no plots */
	fs_test_fleetsim_ok(rep);
	assert_true(fs_test_exists(dir, "report.html"));
	p = fs_test_path(dir, "report.md");
	md = fs_test_read_file(p, NULL);
	assert_non_null(md);
	assert_has(md, "# Budget: quarter-2026q2", "## Cost per task (USD)",
	           "## Cost per month (USD)", "| 2026-05 |",
	           "## Cost per pricing plan (USD)", "Planning margin", "## Assumptions");
	free(md);
	free(p);
	fs_test_tmpdir_free(dir);
}

static void test_budget_cli_minimal_plan_prints_its_table(void **state)
{
	char *dir = fs_test_tmpdir(), *out = fs_test_path(dir, "o");
	/* no description, no dates, defaults everywhere */
	char *file = fs_test_write(dir, "p.json", "{\"name\": \"min\", \"tasks\": "
	                           "[{\"name\": \"e\", \"type\": \"experiment\", "
	                           "\"gpu\": \"h100\", \"card_hours\": 10}]}");
	const char *args[] = { "budget", file, "-o", out, NULL };
	struct fs_test_run r;

	(void)state;
	r = fs_test_fleetsim_expect(args, 0);
	assert_has(r.out, "budget min\n", "month 1");
	assert_true(fs_test_exists(out, "budget.json"));
	assert_true(fs_test_exists(out, "budget.csv"));
	fs_test_run_free(&r);
	free(file);
	free(out);
	fs_test_tmpdir_free(dir);
}

/* Budget a 30-day serving task `from` the run or sweep directory dir/from
 * into dir/o and check what both sources give for 2 replicas of one L40S
 * for the whole run: 2 cards, 2 x 720 card-hours, a simulated monthly cost
 * of 2 x 730 h x the on-demand price.  Returns budget.json (cJSON_Delete)
 * with *task its task. */
static cJSON *budget_serving_from(const char *dir, const char *from, const cJSON **task)
{
	const struct fs_gpu_spec *g = fs_catalog_find_gpu("l40s");
	char plan[256], *file, *out = fs_test_path(dir, "o");
	const char *args[] = { "budget", NULL, "-o", out, "-q", NULL };
	const cJSON *t;
	cJSON *j;

	snprintf(plan, sizeof plan, "{\"name\": \"from\", \"tasks\": [{\"name\": \"svc\", "
	         "\"type\": \"serving\", \"from\": \"%s\", \"duration\": \"30d\"}]}", from);
	file = fs_test_write(dir, "p.json", plan);
	args[1] = file;
	j = fs_test_fleetsim_output(args, out, "budget.json");
	*task = t = fs_test_json_at(j, "tasks[0]");
	assert_int_equal(fs_test_json_num(t, "cards"), 2);
	assert_string_equal(cJSON_GetStringValue(fs_test_json_at(t, "gpu")), "l40s");
	assert_near(fs_test_json_num(t, "card_h"), 2 * 720.0, 1e-9, 0);
	assert_near(fs_test_json_num(t, "serving.simulated_monthly_cost"),
	            2 * 730 * g->price_on_demand_usd_per_h, 1e-6, 0);
	free(file);
	free(out);
	return j;
}

static void test_budget_cli_serving_from_a_run_directory(void **state)
{
	char *dir = fs_test_tmpdir(), *run = fs_test_path(dir, "run");
	const char *run_args[] = { "run", "scenarios/quickstart.json", "-r", "2", "-o", run,
	                           "-q", NULL };
	const struct fs_gpu_spec *g = fs_catalog_find_gpu("l40s");
	const cJSON *t;
	cJSON *j;

	(void)state;
	fs_test_fleetsim_ok(run_args);
	/* quickstart: 2 replicas of 1 x L40S for the whole hour simulated */
	j = budget_serving_from(dir, "run", &t);
	/* 720 h fits one 730-h month: 2 cards x the catalogue's monthly fee */
	assert_near(fs_test_json_num(t, "plan_cost.monthly"),
	            2 * fs_billing_catalog_fee(g, FS_PRICING_MONTHLY), 1e-9, 0);
	cJSON_Delete(j);
	/* the table says the simulated figure is at the run's prices, the
	 * plans at the plan's or the catalogue's */
	{
		char *plan = fs_test_path(dir, "p.json"), *out = fs_test_path(dir, "o2");
		const char *args[] = { "budget", plan, "-o", out, NULL };
		struct fs_test_run r = fs_test_run_fleetsim(args);

		assert_int_equal(r.exit_code, 0);
		assert_non_null(strstr(r.out, "/month at the run's prices (the plans below use "
		                       "the plan's \"prices\" where given, else the catalogue's)"));
		fs_test_run_free(&r);
		free(plan);
		free(out);
	}
	free(run);
	fs_test_tmpdir_free(dir);
}

/* DIR/s.json (returned, heap): 10 minutes of 1 req/s of fixed 500/100-token
 * chat on Llama-3.1-8B under a lax SLO, with `serving` (the engine, and a
 * fleet if any: JSON members) and a grid sweep of `axis` over 3 and 2. */
static char *write_sweep(const char *dir, const char *serving, const char *axis)
{
	char text[2048];

	snprintf(text, sizeof text,
	         "{\"name\": \"tiny-sweep\", \"simulation\": {\"horizon\": \"10m\","
	         " \"warmup\": \"1m\", \"replications\": 3, \"seed\": 5},"
	         " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1},"
	         " \"classes\": [{\"name\": \"chat\", \"share\": 1,"
	         " \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 500},"
	         " \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 100},"
	         " \"slo\": {\"ttft\": \"5s\", \"tpot\": \"200ms\", \"attainment\": 0.5}}]},"
	         " %s, \"sweep\": {\"mode\": \"grid\", \"axes\": [{\"path\": \"%s\","
	         " \"values\": [3, 2]}]}}", serving, axis);
	return fs_test_write(dir, "s.json", text);
}

/* A serving task `from` a sweep directory takes best.json's point: a grid
 * of 3 and 2 replicas of Llama-3.1-8B on one L40S each, both meeting a lax
 * SLO, so the cheaper (2 replicas, point 1) is best: 2 cards for 30 days,
 * simulated monthly cost 2 x 730 h x the on-demand price. */
static void test_budget_cli_serving_from_a_sweep_directory(void **state)
{
	char *dir = fs_test_tmpdir(), *sw = fs_test_path(dir, "sw"), *sc;
	const char *sweep_args[] = { "sweep", NULL, "-o", sw, "-q", NULL };
	const cJSON *t;

	(void)state;
	sc = write_sweep(dir, "\"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	                 "\"gpu\": \"l40s\", \"tp\": 1, \"replicas\": 1}", "engine.replicas");
	sweep_args[1] = sc;
	fs_test_fleetsim_ok(sweep_args);
	cJSON_Delete(budget_serving_from(dir, "sw", &t));
	free(sw);
	free(sc);
	fs_test_tmpdir_free(dir);
}

/* The same from a sweep over a fleet pool's count, with a command-line set:
 * the point is loaded as the sweep loaded it (its input file, the set, the
 * point's count), not from the resolved scenario.json, whose min and max
 * are pinned to the base count (3) and refused count 2.  A changed input
 * file is refused by its sha256. */
static void test_budget_cli_serving_from_a_fleet_count_sweep(void **state)
{
	char *dir = fs_test_tmpdir(), *sw = fs_test_path(dir, "sw"), *sc, *in, *plan;
	char *out = fs_test_path(dir, "o2");
	const char *sweep_args[] = { "sweep", NULL, "-o", sw, "-q", "--set",
	                             "simulation.seed=6", NULL };
	const char *budget_args[] = { "budget", NULL, "-o", out, NULL };
	const cJSON *t;
	struct fs_test_run r;

	(void)state;
	sc = write_sweep(dir, "\"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	                 "\"gpu\": \"l40s\"}, \"fleet\": {\"pools\": [{\"name\": \"p\", "
	                 "\"count\": 3}]}", "fleet.pools[0].count");
	sweep_args[1] = sc;
	fs_test_fleetsim_ok(sweep_args);
	cJSON_Delete(budget_serving_from(dir, "sw", &t));

	/* the sweep's input file changed afterwards (one more line at its end:
	 * the same scenario, another sha256): refused, nothing written */
	in = fs_test_path(sw, "scenario_input.json");
	{
		char *text = fs_test_read_file(in, NULL), *more;
		size_t len = strlen(text);

		more = fs_xmalloc(len + 2);
		memcpy(more, text, len);
		memcpy(more + len, "\n", 2);
		fs_test_write_file(in, more);
		free(more);
		free(text);
	}
	plan = fs_test_path(dir, "p.json");
	budget_args[1] = plan;
	r = fs_test_run_fleetsim(budget_args);
	print_message("%s", r.err);
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "tasks[0].from: expected the sweep's own input file"));
	assert_false(fs_test_exists(dir, "o2"));
	fs_test_run_free(&r);
	free(in);
	free(plan);
	free(out);
	free(sw);
	free(sc);
	fs_test_tmpdir_free(dir);
}

/* Write `plan` to DIR/plan.json; run budget; expect exit 2, stderr starting
 * with DIR/plan.json:LINE:COL: PATH and containing `msg`, nothing written. */
static void expect_bad(const char *plan, int line, int col, const char *path,
                       const char *msg)
{
	char *dir = fs_test_tmpdir(), *file = fs_test_write(dir, "plan.json", plan);
	char *out = fs_test_path(dir, "o");
	const char *args[] = { "budget", file, "-o", out, NULL };
	char want[1024];
	struct fs_test_run r = fs_test_run_fleetsim(args);

	snprintf(want, sizeof want, "%s:%d:%d: %s: ", file, line, col, path);
	if (r.exit_code != 2 || strncmp(r.err, want, strlen(want)) != 0 ||
	    strstr(r.err, msg) == NULL)
		print_error("want \"%s...%s\", got rc %d: %s\n", want, msg, r.exit_code, r.err);
	assert_int_equal(r.exit_code, 2);
	assert_int_equal(strncmp(r.err, want, strlen(want)), 0);
	assert_non_null(strstr(r.err, msg));
	assert_false(fs_test_exists(dir, "o"));
	fs_test_run_free(&r);
	free(file);
	free(out);
	fs_test_tmpdir_free(dir);
}

static void test_budget_cli_bad_plans_exit_2_at_their_place(void **state)
{
	static const struct {
		const char *text;
		int line, col;
		const char *path, *msg;
	} cases[] = {
		{ "{\"name\": \"x\",\n \"tasks\": [{\"name\": \"a\", \"type\": \"finetune\","
		  " \"gpu\": \"a100-80g\", \"model\": \"llama-2-7b\",\n"
		  "   \"method\": \"lorra\", \"tokens\": 1e9}]}",
		  3, 14, "tasks[0].method", "unknown method \"lorra\"" },
		{ "{\"name\": \"x\",\n \"tasks\": [{\"name\": \"a\", \"type\": \"finetune\","
		  " \"gpu\": \"a100-80g\", \"model\": \"llama-2-7b\",\n"
		  "   \"method\": \"lora\", \"tokens\": 1e9, \"samples\": 5}]}",
		  3, 37, "tasks[0].samples", "not allowed with \"tokens\"" },
		{ "{\"name\": \"x\", \"tasks\": [\n {\"name\": \"a\", \"type\": \"data\","
		  " \"gpu\": \"l40s\", \"card_hours\": 1, \"epochs\": 2}]}",
		  2, 64, "tasks[0].epochs", "unknown key \"epochs\"" },
		{ "{\"name\": \"x\", \"buffer\": 1.5, \"tasks\": [{\"name\": \"a\","
		  " \"type\": \"data\", \"gpu\": \"l40s\", \"card_hours\": 1}]}",
		  1, 25, "buffer", "expected a value <= 1, found 1.5" },
		{ "{\"name\": \"x\", \"currency\": \"EUR\", \"tasks\": [\n"
		  " {\"name\": \"a\", \"type\": \"data\", \"gpu\": \"l40s\", \"card_hours\": 1}]}",
		  2, 39, "tasks[0].gpu", "no on-demand price for GPU \"l40s\" in EUR" },
		{ "{\"name\": \"x\", \"tasks\": [\n {\"name\": \"a\", \"type\": \"data\","
		  " \"gpu\": \"h101\", \"card_hours\": 1}]}",
		  2, 39, "tasks[0].gpu", "did you mean \"h100\"" },
		{ "{\"name\": \"x\", \"tasks\": [\n {\"name\": \"a\", \"type\": \"serving\","
		  " \"gpu\": \"l4\", \"model\": \"llama-3.1-8b\", \"requests_per_day\": 1000,\n"
		  "  \"prompt_tokens\": 500, \"output_tokens\": 100, \"tpot_slo_ms\": 1,"
		  " \"duration\": \"30d\"}]}",
		  2, 2, "tasks[0]", "above tpot_slo_ms 1" },
		{ "{\"name\": \"x\", \"tasks\": [\n {\"name\": \"a\", \"type\": \"data\","
		  " \"gpu\": \"l40s\", \"card_hours\": 1, \"start\": \"2026-01-05\"}]}",
		  2, 73, "tasks[0].start", "needs the plan's own \"start\" date" },
		/* a fine-tuning task's spot block (G14) is checked as a checkpoint input */
		{ "{\"name\": \"x\", \"tasks\": [\n {\"name\": \"a\", \"type\": \"finetune\","
		  " \"gpu\": \"a100-80g\", \"model\": \"llama-2-7b\", \"method\": \"lora\","
		  " \"tokens\": 1e8,\n  \"spot\": {\"checkpoint_cost\": \"6m\","
		  " \"interruptions\": {\"rate_per_h\": -1}}}]}",
		  3, 69, "tasks[0].spot.interruptions.rate_per_h", "expected a value >= 0" },
		{ "{\"name\": \"x\", \"tasks\": [\n {\"name\": \"a\", \"type\": \"finetune\","
		  " \"gpu\": \"a100-80g\", \"model\": \"llama-2-7b\", \"method\": \"lora\","
		  " \"tokens\": 1e8,\n  \"spot\": {\"checkpoint_cost\": \"6m\"}}]}",
		  3, 11, "tasks[0].spot", "missing required key \"interruptions\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_bad(cases[i].text, cases[i].line, cases[i].col, cases[i].path, cases[i].msg);
}

/* A name given twice in "lora_modules" or "plans" is refused at its second
 * place (a set would fold it away), a deadline not after the task's own
 * start at the deadline (it could only be missed; "0h" is no longer read
 * as no deadline), a QLoRA-only key with another method at the key, and a
 * training sequence longer than the model's context. */
static void test_budget_cli_repeats_and_early_deadlines_exit_2_at_their_place(void **state)
{
#define FT_TASK " {\"name\": \"a\", \"type\": \"finetune\", \"gpu\": \"a100-80g\"," \
	" \"model\": \"llama-2-7b\", \"method\": \"lora\", \"tokens\": 1e8,\n"
	static const struct {
		const char *text;
		int line, col;
		const char *path, *msg;
	} cases[] = {
		{ "{\"name\": \"x\", \"tasks\": [\n" FT_TASK
		  "  \"lora_modules\": [\"q_proj\", \"v_proj\", \"q_proj\"]}]}",
		  3, 40, "tasks[0].lora_modules[2]",
		  "expected each module once, found \"q_proj\" again (also lora_modules[0])" },
		{ "{\"name\": \"x\", \"tasks\": [\n {\"name\": \"a\", \"type\": \"data\","
		  " \"gpu\": \"l40s\", \"card_hours\": 1,\n"
		  "  \"plans\": [\"on_demand\", \"spot\", \"on_demand\"]}]}",
		  3, 34, "tasks[0].plans[2]",
		  "expected each pricing plan once, found \"on_demand\" again (also plans[0])" },
		{ "{\"name\": \"x\", \"start\": \"2026-01-01\", \"tasks\": [\n" FT_TASK
		  "  \"start\": \"2026-01-10\", \"deadline\": \"2026-01-05\"}]}",
		  3, 38, "tasks[0].deadline",
		  "expected a deadline after the task's start (\"2026-01-10\"), found "
		  "\"2026-01-05\"" },
		{ "{\"name\": \"x\", \"tasks\": [\n" FT_TASK "  \"deadline\": \"0h\"}]}",
		  3, 15, "tasks[0].deadline",
		  "expected a deadline after the task's start (the plan's start), found \"0h\"" },
		{ "{\"name\": \"x\", \"tasks\": [\n" FT_TASK "  \"kbit_fp32_cast\": false}]}",
		  3, 3, "tasks[0].kbit_fp32_cast",
		  "key \"kbit_fp32_cast\" is not allowed unless \"method\" is \"qlora\"" },
		/* a sequence beyond Llama-2-7B's 4096-token context */
		{ "{\"name\": \"x\", \"tasks\": [\n" FT_TASK "  \"seq_len\": 4097}]}",
		  3, 14, "tasks[0].seq_len",
		  "expected a sequence of at most 4096 tokens (the context of llama-2-7b), "
		  "found 4097" },
	};
#undef FT_TASK

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_bad(cases[i].text, cases[i].line, cases[i].col, cases[i].path, cases[i].msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_cli_examples_print_and_write),
		cmocka_unit_test(test_budget_cli_quarter_figures),
		cmocka_unit_test(test_budget_cli_report_writes_the_one_page_budget),
		cmocka_unit_test(test_budget_cli_bad_plans_exit_2_at_their_place),
		cmocka_unit_test(test_budget_cli_repeats_and_early_deadlines_exit_2_at_their_place),
		cmocka_unit_test(test_budget_cli_minimal_plan_prints_its_table),
		cmocka_unit_test(test_budget_cli_serving_from_a_run_directory),
		cmocka_unit_test(test_budget_cli_serving_from_a_sweep_directory),
		cmocka_unit_test(test_budget_cli_serving_from_a_fleet_count_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
