/*
 * test_autoscale_idle.c — idle release per instance in a whole run: warm
 * instances that never see work are released once their own busy fraction
 * stayed below the bound for `for`, down to the pool's floor, with the HPA
 * (scale-down disabled) not relaunching them; instance-hours and cost are
 * checked against a hand computation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "util_test.h"

#define REPS 2

/* No traffic within the 2 h horizon (the only step is after it); three warm
 * L40S instances (1.40 USD/h on demand, billed per second), 1..4, the HPA
 * on request rate with scale-down disabled, one look a minute; idle_json
 * is the "idle_release" object. */
static struct fs_scenario *scenario(const char *idle_json)
{
	char text[4096];

	snprintf(text, sizeof text,
	         "{\"simulation\": {\"horizon\": \"2h\", \"warmup\": \"0s\", "
	         "\"replications\": %d, \"seed\": 11},\n"
	         " \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"schedule\": "
	         "{\"steps\": [{\"at\": \"0s\", \"rate_per_s\": 0}, "
	         "{\"at\": \"3h\", \"rate_per_s\": 1}]}},\n"
	         "  \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
	         "   \"prompt_tokens\": {\"dist\": \"lognormal\", \"median\": 300, \"sigma\": 0.5, \"max\": 4000},\n"
	         "   \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 100, \"sigma\": 0.5, \"max\": 1000}}]},\n"
	         " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	         "\"gpu\": \"l40s\"},\n"
	         " \"fleet\": {\"pools\": [{\"name\": \"od\", \"count\": 3, \"min\": 1, "
	         "\"max\": 4}],\n"
	         "  \"autoscale\": {\"pool\": \"od\", \"metric\": \"request_rate\", "
	         "\"target\": 1, \"interval\": \"60s\", "
	         "\"scale_down\": {\"select\": \"disabled\"}, \"idle_release\": %s}}}\n",
	         REPS, idle_json);
	return fs_test_load_text(text, "test.json", "tests/data");
}

/*
 * By hand: the three serve from t = 0 (warm start) with no work, so each
 * one's busy fraction is 0 at every look and its idle stretch starts at 0.
 * The look at 1800 s finds all three idle for 30 minutes; the floor is
 * max(min 1, need ceil(3 x 0 / 1) = 0) = 1, so two go (nothing to drain)
 * and the desired count drops from 3 to 1.  The HPA then proposes 1 with
 * no metric rise, so nothing is relaunched, and the last instance stays at
 * the pool's min.  Instance-hours: 2 x 0.5 h + 1 x 2 h = 3 h, 4.20 USD;
 * without idle release 3 x 2 h = 6 h, 8.40 USD.
 */
static void test_autoscale_idle_releases_idle_instances_at_idle_for(void **state)
{
	struct fs_scenario *on = scenario("{\"busy_below\": 0.1, \"for\": \"30m\"}");
	struct fs_scenario *off = scenario("{\"for\": \"0s\"}");
	struct fs_run_opts o1 = { REPS, 0, 1, on->sim.seed, false, NULL };
	struct fs_run_opts o2 = { REPS, 0, 1, off->sim.seed, false, NULL };
	struct fs_rep_result **ron = fs_replicate_run(on, &o1), **roff = fs_replicate_run(off, &o2);

	(void)state;
	for (int r = 0; r < REPS; r++) {
		const struct fs_pool_result *p = &ron[r]->fleet.pools[0];
		const struct fs_pool_result *q = &roff[r]->fleet.pools[0];

		print_message("idle release: %.4f instance-h, %.4f USD, %llu released, "
		              "%llu launches; off: %.4f h, %.4f USD\n", p->alive_ns / 3600e9,
		              p->usd, (unsigned long long)p->idle_releases,
		              (unsigned long long)p->launches, q->alive_ns / 3600e9, q->usd);
		assert_int_equal(p->idle_releases, 2);
		assert_int_equal(p->launches, 3);
		assert_int_equal(p->scale_relaunches, 0);
		assert_near(p->alive_ns / 1e9, 2 * 1800.0 + 7200.0, 1e-6, 0);
		assert_near(p->usd, 3 * 1.40, 1e-9, 1e-9);
		assert_int_equal(q->idle_releases, 0);
		assert_near(q->alive_ns / 1e9, 3 * 7200.0, 1e-6, 0);
		assert_near(q->usd, 6 * 1.40, 1e-9, 1e-9);
	}
	fs_replicate_free(ron, REPS);
	fs_replicate_free(roff, REPS);
	fs_scenario_free(on);
	fs_scenario_free(off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_autoscale_idle_releases_idle_instances_at_idle_for),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
