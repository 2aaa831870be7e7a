/*
 * test_enum_names.c — the named enums generated from their tables
 * (FS_ENUM_FUNCS, common.h): the enum values that outputs and per-plan
 * arrays index by stay what they were, every name looks itself up again,
 * a name from another table or in another case does not, and a value
 * outside an enum gets the module's placeholder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fleetsim/billing.h"
#include "fleetsim/budget.h"
#include "fleetsim/capacity.h"
#include "fleetsim/ckpt.h"
#include "fleetsim/config.h"
#include "fleetsim/fleet_cfg.h"
#include "fleetsim/llm_engine.h"
#include "fleetsim/objective.h"
#include "fleetsim/perf.h"
#include "fleetsim/perf_points.h"
#include "fleetsim/result.h"
#include "fleetsim/trace.h"
#include "fleetsim/train.h"
#include "util_test.h"

/* The numbers before the tables: pricing and latency rows are listed out of
 * value order, so their values are spelt in the tables; pin them. */
static void test_enum_names_values_are_unchanged(void **state)
{
	(void)state;
	assert_int_equal(FS_PRICING_ON_DEMAND, 0);
	assert_int_equal(FS_PRICING_SPOT, 1);
	assert_int_equal(FS_PRICING_MONTHLY, 2);
	assert_int_equal(FS_PRICING_DAILY, 3);
	assert_int_equal(FS_PRICING_WEEKLY, 4);
	assert_int_equal(FS_PRICING_YEARLY, 5);
	assert_int_equal(FS_PRICING__COUNT, 6);
	assert_int_equal(FS_LAT_QUEUE, 0);
	assert_int_equal(FS_LAT_TTFT, 1);
	assert_int_equal(FS_LAT_TPOT, 2);
	assert_int_equal(FS_LAT_E2E, 3);
	assert_int_equal(FS_LAT__COUNT, 4);
	assert_int_equal(FS_QTY_P99, 4);
	assert_int_equal(FS_QTY__COUNT, 5);
	assert_int_equal(FS_LLM_ACCEPTED, 0);
	assert_int_equal(FS_LLM_REJECT_PREEMPTED_TOO_OFTEN, 4);
	assert_int_equal(FS_DTYPE_INT4, 4);
	assert_int_equal(FS_ROUTER_PREFIX, 6);
	assert_int_equal(FS_SCALE_TTFT_P90, 6);
	assert_int_equal(FS_BUDGET__KIND_COUNT, 4);
}

static void test_enum_names_pricing_round_trips(void **state)
{
	enum fs_pricing p = FS_PRICING_SPOT;

	(void)state;
	assert_string_equal(fs_pricing_name(FS_PRICING_MONTHLY), "monthly");
	assert_string_equal(fs_pricing_name(FS_PRICING_DAILY), "daily");
	for (int v = 0; v < FS_PRICING__COUNT; v++) {
		assert_int_equal(fs_pricing_from_name(fs_pricing_name((enum fs_pricing)v), &p), 0);
		assert_int_equal(p, v);
	}
	assert_string_equal(fs_pricing_name(FS_PRICING__COUNT), "?");
	p = FS_PRICING_SPOT;
	assert_int_equal(fs_pricing_from_name("Monthly", &p), -1);
	assert_int_equal(fs_pricing_from_name("on-demand", &p), -1);
	assert_int_equal(fs_pricing_from_name(NULL, &p), -1);
	assert_int_equal(p, FS_PRICING_SPOT);                /* untouched */
}

static void test_enum_names_latency_and_quantity_round_trip(void **state)
{
	enum fs_latency l = FS_LAT_E2E;
	enum fs_quantity q = FS_QTY_MEAN;

	(void)state;
	assert_string_equal(fs_latency_name(FS_LAT_QUEUE), "queue_ms");
	assert_string_equal(fs_latency_name(FS_LAT_TTFT), "ttft_ms");
	assert_lookup(fs_latency_from_name, "queue_ms", l, FS_LAT_QUEUE);
	assert_int_equal(fs_latency_from_name("itl_ms", &l), -1);
	assert_string_equal(fs_latency_name(FS_LAT__COUNT), "?");
	assert_string_equal(fs_quantity_name(FS_QTY_P95), "p95");
	assert_lookup(fs_quantity_from_name, "p90", q, FS_QTY_P90);
	assert_int_equal(fs_quantity_from_name("median", &q), -1);
}

static void test_enum_names_each_table_looks_its_names_up(void **state)
{
	enum fs_router_kind r;
	enum fs_spot_strategy st;
	enum fs_arrival_kind a;
	enum fs_length_kind len;
	enum fs_trace_format tf;
	enum fs_capacity_format cf;
	enum fs_dtype d;
	enum fs_llm_reject rj;
	enum fs_objective_metric om;
	enum fs_budget_kind bk;
	enum fs_ckpt_policy cp;
	enum fs_point_kind pk;
	enum fs_train_shard sh;

	(void)state;
	assert_lookup(fs_router_kind_from_name, "least_kv", r, FS_ROUTER_LEAST_KV);
	assert_string_equal(fs_router_kind_name(FS_ROUTER_POWER_OF_TWO), "power_of_two");
	assert_lookup(fs_spot_strategy_from_name, "fallback", st, FS_STRATEGY_FALLBACK);
	assert_lookup(fs_arrival_kind_from_name, "weibull", a, FS_ARRIVAL_WEIBULL);
	assert_lookup(fs_length_kind_from_name, "zipf", len, FS_LENGTH_ZIPF);
	assert_lookup(fs_trace_format_from_name, "mooncake", tf, FS_TRACE_MOONCAKE);
	assert_lookup(fs_capacity_format_parse, "spotserve", cf, FS_CAPACITY_SPOTSERVE);
	assert_lookup(fs_dtype_from_name, "int4", d, FS_DTYPE_INT4);
	assert_int_equal(fs_dtype_from_name("float16", &d), -1);   /* parse's alias only */
	assert_lookup(fs_dtype_parse, "float16", d, FS_DTYPE_FP16);
	assert_lookup(fs_llm_reject_from_name, "kv_too_small", rj, FS_LLM_REJECT_KV_TOO_SMALL);
	assert_string_equal(fs_llm_reject_name((enum fs_llm_reject)99), "unknown");
	assert_lookup(fs_objective_from_name, "cost_per_1m_output_tokens", om,
	              FS_OBJ_USD_PER_1M_TOKENS);
	assert_int_equal(fs_objective_from_name("total_usd", &om), -1);  /* loader alias */
	assert_lookup(fs_budget_kind_from_name, "experiment", bk, FS_BUDGET_EXPERIMENT);
	assert_lookup(fs_ckpt_policy_from_name, "spot_fallback", cp, FS_CKPT_SPOT_FALLBACK);
	assert_lookup(fs_point_kind_from_name, "attn_decode", pk, FS_POINT_ATTN_DECODE);
	assert_lookup(fs_train_shard_from_name, "zero2", sh, FS_SHARD_ZERO2);
	assert_int_equal(fs_train_shard_from_name("fsdp", &sh), -1);   /* parse's alias only */
	assert_string_equal(fs_train_method_name(FS_TRAIN_QLORA), "qlora");
	assert_string_equal(fs_llm_scheduler_name(FS_LLM_SCHED_PREFILL_FIRST), "prefill_first");
	assert_string_equal(fs_scale_metric_name(FS_SCALE_CAPACITY_UTIL), "capacity_util");
	assert_string_equal(fs_billing_granularity_name(FS_BILL_PER_HOUR), "hour");
}

/* fs_enum_index: exact, first match, NULL and unknown are -1. */
static void test_enum_names_index_is_exact(void **state)
{
	static const char *const names[] = { "a", "bb", "a" };

	(void)state;
	assert_int_equal(fs_enum_index(names, 3, "bb"), 1);
	assert_int_equal(fs_enum_index(names, 3, "a"), 0);
	assert_int_equal(fs_enum_index(names, 3, "b"), -1);
	assert_int_equal(fs_enum_index(names, 3, "BB"), -1);
	assert_int_equal(fs_enum_index(names, 3, NULL), -1);
	assert_int_equal(fs_enum_index(names, 1, "bb"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enum_names_values_are_unchanged),
		cmocka_unit_test(test_enum_names_pricing_round_trips),
		cmocka_unit_test(test_enum_names_latency_and_quantity_round_trip),
		cmocka_unit_test(test_enum_names_each_table_looks_its_names_up),
		cmocka_unit_test(test_enum_names_index_is_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
