/*
 * test_scenario_fleet.c — the "fleet" section and variants (src/
 * scenario_fleet.c, scenario_pool.c, scenario_spot.c, scenario_scale.c,
 * scenario_variant.c): the implicit pool, pool GPUs and defaults, every pool
 * key, spot defaults, the autoscaler and class pins, variants and --set.
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

#include "fleetsim/capacity.h"
#include "fleetsim/result.h"
#include "fleetsim/catalog.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "fleetsim/trace.h"
#include "util_test.h"
#include "util_scenario.h"

/* ---- fleets and variants ------------------------------------------------------------ */

#define FLEET_DOC(engine_extra, fleet) \
	"{\"simulation\": {\"horizon\": \"1h\"}, \"workload\": {\"classes\": [" \
	SIMPLE_CLASS "]}, \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\"" \
	engine_extra "}, \"fleet\": " fleet "}"

static void test_scenario_fleet_implicit_pool_is_built_from_the_engine(void **state)
{
	struct fs_scenario *sc = load_file_ok(VLLM), *q;
	const struct fs_fleet_cfg *f = &sc->fleet;
	const struct fs_pool_cfg *p;

	(void)state;
	assert_false(f->explicit_fleet);
	assert_int_equal(f->n_zones, 1);
	assert_string_equal(f->zones[0].name, "default");
	assert_null(f->zones[0].trace);
	assert_int_equal(f->n_pools, 1);
	p = &f->pools[0];
	assert_string_equal(p->name, "l40s");
	assert_int_equal(p->pricing, FS_PRICING_ON_DEMAND);
	assert_int_equal(p->count, 3);
	assert_int_equal(p->min_count, 3);
	assert_int_equal(p->max_count, 3);
	assert_true(p->warm_start);
	assert_int_equal(p->n_zones, 1);
	assert_int_equal(p->zones[0], 0);
	/* the scenario catalogue's l40s at $0.99 per GPU-hour, TP 2 */
	assert_near(p->price_usd_per_h, 1.98, 1e-12, 0);
	assert_int_equal(p->billing.granularity, FS_BILL_PER_SECOND);
	assert_int_equal(p->billing.minimum_ns, 60 * FS_NS_PER_S);
	assert_int_equal(p->llm->sched.kv_blocks, sc->engine.llm.sched.kv_blocks);
	assert_ptr_equal(p->llm->perf.table, sc->engine.llm.perf.table);
	assert_null(p->llm->step_table);
	assert_int_equal(p->fallback_pool, -1);
	assert_int_equal(f->router, FS_ROUTER_LEAST_OUTSTANDING);
	assert_int_equal(f->strategy, FS_STRATEGY_NONE);
	assert_false(f->autoscale.enabled);
	assert_int_equal(f->autoscale.pool, -1);
	assert_int_equal(f->class_pool[0], -1);
	assert_null(sc->variant);
	/* a printed implicit fleet stays implicit */
	{
		char *text = print_to_string(sc);

		assert_null(strstr(text, "\"fleet\""));
		free(text);
	}
	q = load_file_ok(MINIMAL);
	assert_int_equal(q->fleet.n_pools, 0);
	fs_scenario_free(q);
	fs_scenario_free(sc);
}

static void test_scenario_fleet_pools_get_their_gpus_defaults_and_memory(void **state)
{
	struct fs_scenario *sc = load_file_ok(FLEET);
	const struct fs_fleet_cfg *f = &sc->fleet;
	const struct fs_llm_cfg *h100, *l40s, *a100;

	(void)state;
	assert_true(f->explicit_fleet);
	assert_int_equal(f->n_pools, 3);
	h100 = f->pools[0].llm;
	l40s = f->pools[1].llm;
	a100 = f->pools[2].llm;
	assert_string_equal(h100->perf.gpu->id, "h100");
	assert_string_equal(l40s->perf.gpu->id, "l40s");
	assert_int_equal(a100->perf.tp, 2);
	/* V17: H100 is big, L40S and A100 are not */
	assert_int_equal(h100->sched.max_num_seqs, 1024);
	assert_int_equal(h100->sched.max_num_batched_tokens, 8192);
	assert_int_equal(l40s->sched.max_num_seqs, 256);
	assert_int_equal(l40s->sched.max_num_batched_tokens, 2048);
	assert_int_equal(a100->sched.max_num_batched_tokens, 2048);
	/* the engine's max_model_len reaches every pool */
	assert_int_equal(l40s->sched.max_model_len, 8192);
	assert_int_equal(a100->sched.max_model_len, 8192);
	assert_true(h100->mem.kv_blocks > l40s->mem.kv_blocks);
	assert_true(a100->mem.kv_blocks > h100->mem.kv_blocks);
	assert_int_equal(l40s->sched.kv_blocks, l40s->mem.kv_blocks - 1);
	/* the engine's llm is pool 0's; replicas count every pool */
	assert_string_equal(sc->engine.llm.perf.gpu->id, "h100");
	assert_int_equal(sc->engine.llm.sched.kv_blocks, h100->sched.kv_blocks);
	assert_int_equal(sc->engine.llm.replicas, 4);
	fs_scenario_free(sc);
}

static void test_scenario_fleet_pool_keys_reach_the_config(void **state)
{
	struct fs_scenario *sc = load_file_ok(FLEET);
	const struct fs_fleet_cfg *f = &sc->fleet;
	const struct fs_pool_cfg *od = &f->pools[0], *spot = &f->pools[1], *res = &f->pools[2];
	const struct fs_gpu_spec *l40s = fs_catalog_find_gpu("l40s");

	(void)state;
	assert_int_equal(f->router, FS_ROUTER_COST_AWARE);
	assert_int_equal(f->strategy, FS_STRATEGY_FALLBACK);
	assert_int_equal(f->n_zones, 2);
	assert_non_null(f->zones[0].trace);
	assert_false(f->zones[0].trace->loop);
	assert_true(f->zones[0].trace->scale == 3);
	assert_int_equal(f->zones[0].trace->capacity[f->zones[0].trace->n_steps - 1] >= 0, 1);
	assert_int_equal(od->n_zones, 1);
	assert_int_equal(od->zones[0], 1);
	assert_false(od->warm_start);
	assert_int_equal(od->provisioning.kind, FS_DELAY_UNIFORM);
	assert_int_equal(od->provisioning.min_ns, 60 * FS_NS_PER_S);
	assert_int_equal(od->provisioning.max_ns, 120 * FS_NS_PER_S);
	assert_true(od->download_bytes_per_s == 1.25e9);
	assert_true(od->load_bytes_per_s == 3e9);
	assert_int_equal(od->engine_start_ns, 45 * FS_NS_PER_S);
	assert_int_equal(od->billing.granularity, FS_BILL_PER_HOUR);
	assert_int_equal(od->billing.minimum_ns, 3600 * FS_NS_PER_S);
	assert_true(od->price_usd_per_h == fs_catalog_find_gpu("h100")->price_on_demand_usd_per_h);
	assert_int_equal(spot->pricing, FS_PRICING_SPOT);
	assert_int_equal(spot->overprovision, 1);
	assert_false(spot->spread_zones);
	assert_int_equal(spot->n_zones, 2);
	assert_true(spot->price_usd_per_h == l40s->price_spot_usd_per_h);
	assert_int_equal(spot->n_price_steps, 2);
	assert_int_equal(spot->price_steps[1].at_ns, 3600 * FS_NS_PER_S);
	assert_true(spot->price_steps[1].usd_per_h == 1.1);
	/* band ">20%" -> the capacity module's rate; 2 reclaims a day */
	assert_true(spot->spot.interrupt_rate_per_h == fs_spot_band_rate_per_h(">20%"));
	assert_true(spot->spot.zone_reclaim_rate_per_h == 2.0 / 24.0);
	assert_int_equal(spot->spot.zone_outage_ns, 20 * 60 * FS_NS_PER_S);
	assert_int_equal(spot->spot.notice_ns, 30 * FS_NS_PER_S);
	assert_int_equal(spot->spot.in_flight, FS_INFLIGHT_DRAIN);
	assert_int_equal(spot->spot.relaunch_retry_ns, 120 * FS_NS_PER_S);
	assert_int_equal(spot->fallback_pool, 0);
	assert_int_equal(res->pricing, FS_PRICING_MONTHLY);
	assert_true(res->commit_fee == 2500);
	assert_true(res->price_usd_per_h == 0);
	assert_int_equal(res->provisioning.kind, FS_DELAY_EXPONENTIAL);
	fs_scenario_free(sc);
}

static void test_scenario_fleet_spot_pool_defaults(void **state)
{
	struct fs_scenario *sc = load_ok(FLEET_DOC(", \"gpu\": \"l40s\", \"tp\": 2",
		"{\"pools\": [{\"name\": \"s\", \"pricing\": \"spot\", \"count\": 2}]}"));
	const struct fs_pool_cfg *p = &sc->fleet.pools[0];
	const struct fs_gpu_spec *g = fs_catalog_find_gpu("l40s");

	(void)state;
	assert_int_equal(p->llm->perf.tp, 2);
	assert_true(p->price_usd_per_h == g->price_spot_usd_per_h * 2);
	assert_true(p->spot.interrupt_rate_per_h == fs_spot_band_rate_per_h("5-10%"));
	assert_true(p->spot.zone_reclaim_rate_per_h == 0);
	assert_int_equal(p->spot.zone_outage_ns, 30 * 60 * FS_NS_PER_S);
	assert_int_equal(p->spot.notice_ns, 120 * FS_NS_PER_S);
	assert_int_equal(p->spot.in_flight, FS_INFLIGHT_REQUEUE);
	assert_int_equal(p->spot.relaunch_retry_ns, 60 * FS_NS_PER_S);
	assert_int_equal(p->overprovision, 0);
	assert_int_equal(p->min_count, 2);
	assert_int_equal(p->max_count, 2);
	assert_true(p->spread_zones);
	assert_true(p->warm_start);
	assert_int_equal(p->provisioning.kind, FS_DELAY_LOGNORMAL);
	assert_int_equal(p->provisioning.mean_ns, 90 * FS_NS_PER_S);
	assert_true(p->provisioning.cv == 0.5);
	assert_true(p->download_bytes_per_s == 0.5e9);
	assert_true(p->load_bytes_per_s == 2e9);
	assert_int_equal(p->engine_start_ns, 30 * FS_NS_PER_S);
	assert_int_equal(sc->fleet.n_zones, 1);
	assert_string_equal(sc->fleet.zones[0].name, "default");
	assert_int_equal(sc->fleet.router, FS_ROUTER_LEAST_OUTSTANDING);
	fs_scenario_free(sc);

	/* a monthly share of 10% -> -ln(0.9) / 730 per hour, and it prints back */
	sc = load_ok(FLEET_DOC(", \"gpu\": \"l40s\"",
		"{\"pools\": [{\"name\": \"s\", \"pricing\": \"spot\", \"count\": 1, "
		"\"spot\": {\"interruption_rate_per_month\": 0.1, "
		"\"zone_reclaims_per_day\": 0.7}}]}"));
	assert_near(sc->fleet.pools[0].spot.interrupt_rate_per_h, -log(0.9) / 730.0, 0, 1e-12);
	{
		char *text = print_to_string(sc);
		struct fs_scenario *back = load_ok(text);

		assert_true(back->fleet.pools[0].spot.interrupt_rate_per_h ==
		            sc->fleet.pools[0].spot.interrupt_rate_per_h);
		assert_true(back->fleet.pools[0].spot.zone_reclaim_rate_per_h ==
		            sc->fleet.pools[0].spot.zone_reclaim_rate_per_h);
		fs_scenario_free(back);
		free(text);
	}
	fs_scenario_free(sc);
}

static void test_scenario_fleet_autoscale_and_class_pins(void **state)
{
	struct fs_scenario *sc = load_file_ok(FLEET), *d;
	const struct fs_autoscale_cfg *as = &sc->fleet.autoscale;

	(void)state;
	assert_true(as->enabled);
	assert_int_equal(as->pool, 0);
	assert_int_equal(as->metric, FS_SCALE_KV_USE);
	assert_true(as->target == 0.7);
	assert_true(as->tolerance == 0.2);
	assert_int_equal(as->interval_ns, 15 * FS_NS_PER_S);
	assert_int_equal(as->up.window_ns, 120 * FS_NS_PER_S);
	assert_int_equal(as->up.n_policies, 2);          /* the upstream defaults */
	assert_int_equal(as->down.window_ns, 600 * FS_NS_PER_S);
	assert_int_equal(as->down.select, FS_SELECT_MIN);
	assert_int_equal(as->down.n_policies, 2);
	assert_false(as->down.policies[0].percent);
	assert_true(as->down.policies[0].value == 1);
	assert_int_equal(as->down.policies[0].period_ns, 60 * FS_NS_PER_S);
	assert_true(as->down.policies[1].percent);
	assert_true(as->down.policies[1].value == 50);
	assert_int_equal(as->n_schedule, 2);
	assert_true(as->schedule[1].at_h == 9.5);
	assert_int_equal(as->schedule[1].min_count, 2);
	assert_true(as->idle_busy_below == 0.05);
	assert_int_equal(as->idle_for_ns, 20 * 60 * FS_NS_PER_S);
	assert_int_equal(sc->fleet.class_pool[0], -1);
	assert_int_equal(sc->fleet.class_pool[1], 2);
	fs_scenario_free(sc);

	d = load_ok(FLEET_DOC(", \"gpu\": \"l40s\"",
		"{\"pools\": [{\"name\": \"p\", \"count\": 1, \"max\": 3}], "
		"\"autoscale\": {\"pool\": \"p\", \"target\": 4}}"));
	as = &d->fleet.autoscale;
	/* HPA defaults: tolerance 0.1, sync period 15 s, scale up with no
	 * window by max(4 instances, 100%) per 15 s, scale down after a 300 s
	 * window by 100% per 15 s; KEDA-like zero after 300 s without work. */
	assert_int_equal(as->metric, FS_SCALE_CONCURRENCY);
	assert_true(as->tolerance == 0.1);
	assert_int_equal(as->interval_ns, 15 * FS_NS_PER_S);
	assert_int_equal(as->up.window_ns, 0);
	assert_int_equal(as->up.n_policies, 2);
	assert_true(as->up.policies[0].value == 4 && !as->up.policies[0].percent);
	assert_true(as->up.policies[1].value == 100 && as->up.policies[1].percent);
	assert_int_equal(as->up.select, FS_SELECT_MAX);
	assert_int_equal(as->down.window_ns, 300 * FS_NS_PER_S);
	assert_int_equal(as->down.n_policies, 1);
	assert_true(as->down.policies[0].value == 100 && as->down.policies[0].percent);
	assert_true(as->activation == 1);
	assert_int_equal(as->zero_grace_ns, 300 * FS_NS_PER_S);
	assert_true(as->idle_busy_below == 0.1);
	assert_int_equal(as->idle_for_ns, 30 * 60 * FS_NS_PER_S);
	fs_scenario_free(d);
}

static void expect_variant_error(const char *variant, const char *const *sets, size_t n,
                                 const char *want)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_variant(FLEET, variant, sets, n, &err);
	char got[2048];

	if (sc != NULL) {
		fs_scenario_free(sc);
		fail_msg("variant %s loaded without error",
		         variant != NULL ? variant : "(none)");
	}
	fs_error_format(&err, got, sizeof got);
	assert_string_equal(got, want);
}

static void test_scenario_variants_list_load_and_command_line_sets(void **state)
{
	struct fs_scenario *base = load_file_ok(FLEET), *v;
	const char *sets[] = { "fleet.pools[0].count=3", "fleet.router=\"least_kv\"",
	                       "workload.arrivals.rate_per_s=7.5" };
	const char *bad_json[] = { "fleet.pools[0].count=abc" };
	const char *bad_path[] = { "fleet.pols[0].count=4" };
	const char *bad_value[] = { "fleet.pools[0].count=-2" };
	struct fs_error err;
	char **names = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(fs_scenario_list_variants(FLEET, &names, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "relaunch");
	assert_string_equal(names[1], "more-spot");
	assert_string_equal(names[2], "bad-count");
	fs_scenario_variants_free(names, n);
	assert_int_equal(fs_scenario_list_variants(MINIMAL, &names, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(names);

	v = fs_scenario_load_variant(FLEET, "more-spot", NULL, 0, &err);
	assert_non_null(v);
	assert_string_equal(v->variant, "more-spot");
	assert_string_equal(v->name, base->name);
	assert_string_equal(v->sha256_hex, base->sha256_hex);
	assert_int_equal(v->fleet.pools[1].count, 4);
	assert_int_equal(v->fleet.pools[1].spot.notice_ns, 120 * FS_NS_PER_S);
	assert_int_equal(v->fleet.pools[0].llm->sched.max_num_seqs, 128);
	assert_int_equal(v->fleet.pools[2].llm->sched.max_num_seqs, 128);
	fs_scenario_free(v);

	/* null removes a key: the relaunch variant drops the fallback pool */
	v = fs_scenario_load_variant(FLEET, "relaunch", sets, 3, &err);
	assert_non_null(v);
	assert_int_equal(v->fleet.strategy, FS_STRATEGY_RELAUNCH);
	assert_int_equal(v->fleet.pools[1].fallback_pool, -1);
	assert_int_equal(v->fleet.pools[0].count, 3);
	assert_int_equal(v->fleet.router, FS_ROUTER_LEAST_KV);
	assert_true(v->workload.arrivals.rate_per_s == 7.5);
	fs_scenario_free(v);

	expect_variant_error("bad-count", NULL, 0, FLEET ":60:59: fleet.pools[0].count: "
	                     "expected a value >= 0, found -1");
	expect_variant_error("more-spots", NULL, 0, FLEET ":54:14: variants: unknown "
	                     "variant \"more-spots\"; did you mean \"more-spot\"?");
	expect_variant_error(NULL, bad_json, 1, "--set fleet.pools[0].count=abc: "
	                     "value byte 1: invalid JSON: expected a value (object, array, "
	                     "string, number, true, false or null), found 'abc' (a string "
	                     "is written in quotes: --set 'fleet.pools[0].count=\"...\"')");
	expect_variant_error(NULL, bad_path, 1, "--set fleet.pols[0].count=4: no key "
	                     "\"pols\" at fleet; did you mean \"pools\"?");
	expect_variant_error(NULL, bad_value, 1, "--set fleet.pools[0].count=-2: "
	                     "fleet.pools[0].count: expected a value >= 0, found -2");
	fs_scenario_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_fleet_implicit_pool_is_built_from_the_engine),
		cmocka_unit_test(test_scenario_fleet_pools_get_their_gpus_defaults_and_memory),
		cmocka_unit_test(test_scenario_fleet_pool_keys_reach_the_config),
		cmocka_unit_test(test_scenario_fleet_spot_pool_defaults),
		cmocka_unit_test(test_scenario_fleet_autoscale_and_class_pins),
		cmocka_unit_test(test_scenario_variants_list_load_and_command_line_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
