/*
 * test_rep_cost.c — a replication's cost figures are computed once
 * (fs_rep_cost_figures) and the summary and the objective read the same
 * numbers: on a drained run (MODEL: E5) the bill, the span it covers and
 * the monthly projection are checked against a hand computation, and the
 * objective's monthly_cost equals summary.json's monthly figure, and the
 * console's cost header names the drain as part of the span.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/objective.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "util_test.h"

#define PRICE_PER_H 3.0
#define N_INSTANCES 2
#define N_REPS 3

/* Two warm on-demand L40S at PRICE_PER_H, loaded hard enough for 30 s that
 * requests are still in flight at the horizon; with drain they finish. */
static struct fs_scenario *drained_scenario(void)
{
	static const char text[] =
		"{\"simulation\": {\"horizon\": \"30s\", \"warmup\": \"0s\", "
		"\"replications\": 3, \"seed\": 11, \"drain\": true},\n"
		" \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 20},\n"
		"  \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
		"   \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 800},\n"
		"   \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 400},\n"
		"   \"slo\": {\"ttft\": \"2s\"}}]},\n"
		" \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\"},\n"
		" \"fleet\": {\"pools\": [{\"name\": \"od\", \"count\": 2, \"price_per_h\": 3}]},\n"
		" \"objective\": {\"minimize\": \"monthly_cost\"}}\n";
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_text(text, strlen(text), "cost.json",
	                                               "tests/data", &err);

	if (sc == NULL)
		fs_error_print(&err);
	assert_non_null(sc);
	return sc;
}

static void test_rep_cost_drained_run_matches_hand_computation(void **state)
{
	struct fs_scenario *sc = drained_scenario();
	struct fs_run_opts opts = { N_REPS, 0, 1, sc->sim.seed, false, NULL };
	struct fs_rep_result **res = fs_replicate_run(sc, &opts);
	struct fs_summary *s = fs_summary_build(sc, res, N_REPS, sc->sim.seed);
	double monthly_sum = 0;
	int r;

	(void)state;
	for (r = 0; r < N_REPS; r++) {
		struct fs_rep_cost c = fs_rep_cost_figures(sc, res[r]);
		/* Each instance is billed while alive, to the end of the drain,
		 * in whole seconds (billing.granularity "second"). */
		double billed_s = ceil((double)res[r]->end_ns / 1e9);
		double total = N_INSTANCES * PRICE_PER_H * billed_s / 3600.0;
		double span_h = (double)res[r]->end_ns / 3600e9;

		assert_true(res[r]->end_ns > sc->sim.horizon_ns);   /* the drain ran */
		assert_near(c.total_usd, total, 1e-9, 1e-12);
		assert_near(c.span_h, span_h, 0, 1e-15);
		assert_near(c.usd_per_hour, total / span_h, 0, 1e-12);
		/* MODEL: F14, E5 — per hour of the drained span x 730 h, about
		 * 2 x 3 x 730 = 4,380 (the bill rounds up to whole seconds). */
		assert_near(c.monthly_usd, total / span_h * 730.0, 0, 1e-12);
		assert_near(c.monthly_usd, N_INSTANCES * PRICE_PER_H * 730.0, 0, 0.05);
		assert_near(c.usd_per_1m_output_tokens,
		            total / ((double)res[r]->fleet.all_output_tokens / 1e6), 0, 1e-12);
		assert_near(c.usd_per_1k_requests,
		            total / ((double)res[r]->fleet.all_completed / 1e3), 0, 1e-12);
		/* The objective reads the same figure, not one over the horizon. */
		assert_true(fs_objective_value(FS_OBJ_MONTHLY_USD, sc, res[r]) == c.monthly_usd);
		assert_true(fs_objective_value(FS_OBJ_TOTAL_USD, sc, res[r]) == c.total_usd);
		assert_true(fs_objective_value(FS_OBJ_USD_PER_1M_TOKENS, sc, res[r]) ==
		            c.usd_per_1m_output_tokens);
		assert_true(s->cost.total_usd_per_rep[r] == c.total_usd);
		monthly_sum += fs_objective_value(FS_OBJ_MONTHLY_USD, sc, res[r]);
	}
	/* summary.json's monthly figure is the mean of the same numbers. */
	assert_near(s->cost.monthly_usd.value, monthly_sum / N_REPS, 0, 1e-12);
	/* The console names the span those figures cover: the drain too. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		fs_summary_print_table(s, sc, f);
		fclose(f);
		assert_non_null(strstr(buf, "cost over the simulated 30s and the drain after it"));
		free(buf);
	}
	fs_summary_free(s);
	fs_replicate_free(res, N_REPS);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rep_cost_drained_run_matches_hand_computation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
