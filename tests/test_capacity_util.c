/*
 * test_capacity_util.c — capacity utilisation (MODEL: S16-S19) from whole
 * simulated runs: it tracks offered load / the saturation throughput
 * measured on an overloaded fleet from 10% to 90% load; an over-sized
 * quickstart fleet (8 L40S instead of 2) shows a quarter of the use and an
 * unused-capacity cost that is most of its bill while its busy fraction
 * stays near 1; an hour without traffic is one idle episode costing what a
 * hand computation says; the saturation figure does not depend on the seed.
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

#include <cjson/cJSON.h>

#include "fleetsim/world_capacity_util.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "util_test.h"

/* Llama-3.1-8B on `replicas` L40S, chat traffic from the "arrivals" object
 * `arrivals_json`, one class, `horizon` long, `reps` replications. */
static struct fs_scenario *chat_scenario(const char *arrivals_json, const char *horizon,
                                         const char *warmup, int reps,
                                         const char *fleet_json)
{
	char text[8192];

	snprintf(text, sizeof text,
	         "{\"simulation\": {\"horizon\": \"%s\", \"warmup\": \"%s\", "
	         "\"sample_interval\": \"1m\", \"replications\": %d, \"seed\": 11},\n"
	         " \"workload\": {\"arrivals\": %s,\n"
	         "  \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
	         FS_TEST_CHAT_LENGTHS "}]},\n"
	         " \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", "
	         "\"gpu\": \"l40s\"%s}%s%s}\n",
	         horizon, warmup, reps, arrivals_json, fleet_json ? "" : ", \"replicas\": 2",
	         fleet_json ? ",\n \"fleet\": " : "", fleet_json ? fleet_json : "");
	return fs_test_load_text(text, "test.json", ".");
}

static struct fs_scenario *poisson_scenario(double rate_per_s, const char *horizon,
                                            const char *warmup, int reps)
{
	char arrivals[128];

	snprintf(arrivals, sizeof arrivals, "{\"process\": \"poisson\", \"rate_per_s\": %.9g}",
	         rate_per_s);
	return chat_scenario(arrivals, horizon, warmup, reps, NULL);
}

/* Completed requests per second of an overloaded 2-instance fleet over
 * [warm-up, horizon) of 4 replications: about 70,000 completions, a
 * sampling error near 1%. */
#define MEASURED_REPS 4
static double measured_saturation_rps(void)
{
	struct fs_scenario *sc = poisson_scenario(60, "20m", "3m", MEASURED_REPS);
	struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
	double n = 0, span_s = 0;
	int k;

	for (k = 0; k < MEASURED_REPS; k++) {
		const struct fs_rep_result *r = res[k];
		const struct fs_class_result *all = &r->cls[r->n_classes];

		/* Overloaded: far more arrived than completed. */
		assert_true(all->in_flight > 1000);
		assert_true(r->measured_ns == sc->sim.horizon_ns - sc->sim.warmup_ns);
		n += (double)all->completed_in_window;
		span_s += (double)r->measured_ns * 1e-9;
	}
	fs_replicate_free(res, sc->sim.replications);
	fs_scenario_free(sc);
	return n / span_s;
}

static void test_capacity_util_tracks_offered_load_over_measured_saturation(void **state)
{
	static const double loads[] = { 0.1, 0.3, 0.5, 0.7, 0.9 };
	double x_meas = measured_saturation_rps();
	size_t k;

	(void)state;
	assert_true(x_meas > 2 && x_meas < 100);
	for (k = 0; k < sizeof loads / sizeof loads[0]; k++) {
		struct fs_scenario *sc = poisson_scenario(loads[k] * x_meas, "20m", "0s", 2);
		struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
		struct fs_summary *s = fs_summary_build(sc, res, 2, sc->sim.seed);

		/* The closed-loop saturation agrees with the overloaded fleet
		 * within three of their combined sampling errors (MODEL S16:
		 * about 2.5% for the closed loop's 2,000 completions; over
		 * closed-loop seeds 1-16 this mix's X_sat spans 8.44-9.10 req/s,
		 * standard deviation 2.2%; about 1% for the fleet's): 8%. */
		assert_near(2 * s->pools[0].saturation_rps, x_meas, 0, 0.08);
		printf("load %.1f: capacity utilisation %.4f, busy fraction %.4f (saturation "
		       "measured %.3f req/s, closed loop %.3f)\n", loads[k],
		       s->pools[0].capacity_util.value, s->pools[0].busy_fraction.value, x_meas,
		       2 * s->pools[0].saturation_rps);
		assert_near(s->pools[0].capacity_util.value, loads[k], 0, 0.10);
		assert_near(s->capacity_util.value, s->pools[0].capacity_util.value, 1e-12, 0);
		fs_summary_free(s);
		fs_replicate_free(res, 2);
		fs_scenario_free(sc);
	}
}

/* The quickstart with `replicas` replicas, 3 replications. */
static struct fs_summary *quickstart(const char *replicas_set, struct fs_scenario **sc_out)
{
	const char *sets[2] = { replicas_set, "simulation.replications=3" };
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_variant("scenarios/quickstart.json", NULL,
	                                                  sets, 2, &err);
	struct fs_rep_result **res;
	struct fs_summary *s;

	if (sc == NULL)
		fs_error_print(&err);
	assert_non_null(sc);
	res = fs_test_replicate(sc, 2, false);
	s = fs_summary_build(sc, res, 3, sc->sim.seed);
	fs_replicate_free(res, 3);
	*sc_out = sc;
	return s;
}

static void test_capacity_util_oversized_quickstart_shows_a_quarter_and_unused_cost(void **state)
{
	struct fs_scenario *sc2, *sc8;
	struct fs_summary *s2 = quickstart("engine.replicas=2", &sc2);
	struct fs_summary *s8 = quickstart("engine.replicas=8", &sc8);
	double price = sc8->fleet.pools[0].price_usd_per_h;
	double hours = (double)sc8->sim.horizon_ns / 3600e9;

	(void)state;
	printf("2 x L40S: capacity utilisation %.4f, busy %.4f; 8 x L40S: %.4f, busy %.4f, "
	       "unused %.3f of %.3f USD\n", s2->capacity_util.value, s2->busy_fraction.value,
	       s8->capacity_util.value, s8->busy_fraction.value,
	       s8->cost.unused_capacity_usd.value, s8->cost.total_usd.value);
	/* Same traffic over four times the instances: a quarter of the use. */
	assert_near(s8->capacity_util.value, s2->capacity_util.value / 4, 0, 0.15);
	/* ... while every instance still has an iteration in flight nearly always. */
	assert_true(s8->busy_fraction.value > 0.9);
	assert_true(s8->capacity_util.value < 0.2);
	/* The bill by hand: 8 instances x price x 1 h; unused = bill x (1 - use),
	 * most of the bill. */
	assert_near(s8->cost.total_usd.value, 8 * price * hours, 1e-9, 0);
	assert_near(s8->cost.unused_capacity_usd.value,
	            8 * price * hours * (1 - s8->capacity_util.value), 1e-9, 1e-9);
	assert_near(s8->pools[0].unused_capacity_usd.value, s8->cost.unused_capacity_usd.value,
	            1e-12, 0);
	assert_true(s8->cost.unused_capacity_usd.value > 0.75 * s8->cost.total_usd.value);
	/* The idle part of the bill (no iteration in flight) misses nearly all of it. */
	assert_true(s8->cost.idle_usd.value < 0.05 * s8->cost.unused_capacity_usd.value);
	fs_summary_free(s2);
	fs_summary_free(s8);
	fs_scenario_free(sc2);
	fs_scenario_free(sc8);
}

static void test_capacity_util_hour_without_traffic_is_one_idle_episode(void **state)
{
	/* 4 requests/s, none from 1 h to 2 h, 4 again to 3 h; 2 warm on-demand
	 * L40S at 2 USD/h, billed per second. */
	struct fs_scenario *sc = chat_scenario(
		"{\"process\": \"poisson\", \"schedule\": {\"steps\": [{\"at\": \"0s\", "
		"\"rate_per_s\": 4}, {\"at\": \"1h\", \"rate_per_s\": 0}, {\"at\": \"2h\", "
		"\"rate_per_s\": 4}]}}", "3h", "0s", 2,
		"{\"pools\": [{\"name\": \"base\", \"count\": 2, \"price_usd_per_h\": 2.0}]}");
	struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
	struct fs_summary *s = fs_summary_build(sc, res, 2, sc->sim.seed);
	char *dir = fs_test_tmpdir(), path[512], *csv;
	struct fs_error err;
	int r;

	(void)state;
	for (r = 0; r < 2; r++) {
		struct fs_idle_episodes ep;

		fs_capacity_util_idle(res[r], 0, &ep);
		printf("replication %d: %g episode(s), %g h, %g instance-h, %g USD\n", r,
		       ep.count, ep.hours, ep.instance_hours, ep.usd);
		/* By hand: the bins of the quiet hour, [60 min, 120 min), are idle
		 * (what was in flight at 1 h ends within the first minute); both
		 * instances serve throughout, so 1 h, 2 instance-hours, and at the
		 * pool's bill per instance-hour (12 USD / 6 h = 2 USD/h) 4 USD. */
		assert_near(ep.count, 1, 0, 0);
		assert_near(ep.hours, 1.0, 1e-9, 0);
		assert_near(ep.instance_hours, 2.0, 1e-9, 0);
		assert_near(ep.usd, 4.0, 1e-9, 0);
		assert_true(fs_capacity_util_bin(res[r], 0, 90) == 0);
		assert_true(fs_capacity_util_bin(res[r], SIZE_MAX, 30) > FS_IDLE_UTIL_BELOW);
		assert_true(fs_capacity_util_bin(res[r], SIZE_MAX, 150) > FS_IDLE_UTIL_BELOW);
	}
	assert_near(s->cost.total_usd.value, 12.0, 1e-9, 0);
	assert_near(s->pools[0].idle_episodes.value, 1, 0, 0);
	assert_near(s->cost.idle_episode_hours.value, 1.0, 1e-9, 0);
	assert_near(s->cost.idle_episode_usd.value, 4.0, 1e-9, 0);
	/* The whole horizon: two busy hours out of three. */
	assert_true(s->capacity_util.value > 0.1 && s->capacity_util.value < 0.5);

	/* The outputs carry the figures. */
	snprintf(path, sizeof path, "%s/timeseries.csv", dir);
	assert_int_equal(fs_timeseries_write_csv(res, 2, sc, path, &err), 0);
	csv = fs_test_read_file(path, NULL);
	assert_non_null(strstr(csv, ",capacity_util,capacity_util_ci_lo,capacity_util_ci_hi,"
	                            "capacity_util_base,"));
	free(csv);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	assert_int_equal(fs_summary_write_json(s, sc, path, &err), 0);
	csv = fs_test_read_file(path, NULL);
	assert_has(csv, "\"capacity_utilization\"", "\"unused_capacity\"",
	           "\"idle_episodes\"");
	free(csv);
	fs_test_tmpdir_free(dir);
	fs_summary_free(s);
	fs_replicate_free(res, 2);
	fs_scenario_free(sc);
}

/*
 * MODEL: S19 — an episode is priced at the pool's bill per billed
 * instance-hour.  One warm on-demand L40S at 2 USD/h billed per started
 * hour, no traffic, 90 minutes: billed 2 h = 4 USD; the whole run is one
 * idle episode of 1.5 instance-hours, at 4 USD / 2 billed hours = 2 USD
 * each: 3 USD (the half hour the rounding adds is paid but in no episode).
 */
static void test_capacity_util_idle_episode_at_the_billed_rate(void **state)
{
	struct fs_scenario *sc = chat_scenario(
		"{\"process\": \"poisson\", \"rate_per_s\": 1e-6}", "90m", "0s", 2,
		"{\"pools\": [{\"name\": \"od\", \"count\": 1, \"price_per_h\": 2.0, "
		"\"billing\": {\"granularity\": \"hour\"}}]}");
	struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
	struct fs_summary *s = fs_summary_build(sc, res, 2, sc->sim.seed);
	int r;

	(void)state;
	for (r = 0; r < 2; r++) {
		struct fs_idle_episodes ep;

		assert_int_equal(res[r]->cls[res[r]->n_classes].arrived, 0);
		fs_capacity_util_idle(res[r], 0, &ep);
		print_message("replication %d: %g episode(s), %g h, %g instance-h, %g USD\n", r,
		              ep.count, ep.hours, ep.instance_hours, ep.usd);
		assert_near(ep.count, 1, 0, 0);
		assert_near(ep.instance_hours, 1.5, 1e-9, 0);
		assert_near(ep.usd, 3.0, 1e-9, 0);
	}
	assert_near(s->cost.total_usd.value, 4.0, 1e-9, 0);
	assert_near(s->pools[0].instance_hours.value, 2.0, 1e-9, 0);
	assert_near(s->cost.idle_episode_usd.value, 3.0, 1e-9, 0);
	fs_summary_free(s);
	fs_replicate_free(res, 2);
	fs_scenario_free(sc);
}

static void test_capacity_util_saturation_is_deterministic_and_seed_free(void **state)
{
	struct fs_scenario *a = poisson_scenario(4, "10m", "0s", 1);
	struct fs_scenario *b = poisson_scenario(4, "10m", "0s", 1);
	struct fs_saturation sa, sb, sc2;

	(void)state;
	b->sim.seed = 999;
	assert_int_equal(fs_capacity_util_saturation(a, 0, &sa), 0);
	assert_int_equal(fs_capacity_util_saturation(b, 0, &sb), 0);
	assert_int_equal(fs_capacity_util_saturation(a, 0, &sc2), 0);
	assert_true(sa.output_tokens_per_s == sb.output_tokens_per_s);
	assert_true(sa.output_tokens_per_s == sc2.output_tokens_per_s);
	assert_true(sa.completed >= 2000);
	/* Tokens per request at saturation: the mix's mean output, about
	 * 150 x exp(0.8^2 / 2) = 207 for this lognormal (clamp at 2000 aside). */
	assert_near(sa.output_tokens_per_s / sa.requests_per_s, 207, 0, 0.08);
	fs_scenario_free(a);
	fs_scenario_free(b);
}

/* Pools that differ only in pricing (bench/day.json: on demand and spot of
 * each GPU) share one closed loop; a pool whose step-time model differs in
 * one figure gets its own; every pool's figure is the one computed alone. */
static void test_capacity_util_fleet_shares_a_loop_only_between_equal_pools(void **state)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load("bench/day.json", &err);
	struct fs_saturation *sat, alone;
	size_t p;

	(void)state;
	assert_non_null(sc);
	assert_int_equal(sc->fleet.n_pools, 6);
	sc->fleet.pools[3].llm->perf.mbu = 0.61;   /* a100-spot: its own memory efficiency */
	sat = fs_capacity_util_saturate_fleet(sc);
	assert_non_null(sat);
	for (p = 0; p < 6; p++) {
		assert_int_equal(fs_capacity_util_saturation(sc, p, &alone), 0);
		assert_true(sat[p].output_tokens_per_s == alone.output_tokens_per_s);
		assert_true(sat[p].requests_per_s == alone.requests_per_s);
		assert_int_equal(sat[p].steps, alone.steps);
	}
	assert_true(sat[0].output_tokens_per_s == sat[1].output_tokens_per_s);  /* h100 */
	assert_true(sat[4].output_tokens_per_s == sat[5].output_tokens_per_s);  /* l40s */
	assert_true(sat[2].output_tokens_per_s != sat[3].output_tokens_per_s);
	assert_true(sat[0].output_tokens_per_s != sat[2].output_tokens_per_s);
	free(sat);
	fs_scenario_free(sc);
}

/* utilization.kv_use and utilization.pools.NAME.kv_use of the summary.json
 * written for s, read back. */
static void written_kv_use(const struct fs_summary *s, const struct fs_scenario *sc,
                           double *fleet, double *pool_a)
{
	char *dir = fs_test_tmpdir();
	char *path = fs_test_path(dir, "summary.json");
	struct fs_error err;
	cJSON *doc, *u;

	assert_int_equal(fs_summary_write_json(s, sc, path, &err), 0);
	doc = fs_test_read_json(NULL, path);
	u = cJSON_GetObjectItem(doc, "utilization");
	*fleet = cJSON_GetObjectItem(cJSON_GetObjectItem(u, "kv_use"), "value")->valuedouble;
	u = cJSON_GetObjectItem(cJSON_GetObjectItem(u, "pools"), "a");
	*pool_a = cJSON_GetObjectItem(cJSON_GetObjectItem(u, "kv_use"), "value")->valuedouble;
	cJSON_Delete(doc);
	free(path);
	fs_test_tmpdir_free(dir);
}

/* summary.json's utilization block: the fleet's KV use is its pools' KV use
 * pooled over the same span (MODEL: S7, S17), Σ KV block-time in use / Σ KV
 * block-time of the serving instances, warm-up included like the busy
 * fraction, MFU and capacity utilisation beside it.  It was the engine's
 * figure after the warm-up, so a one-pool fleet whose warm-up was busier
 * than the rest printed 0.45 for the fleet beside 0.71 for its only pool.
 * One pool, then two of different KV sizes (L40S, H100); a busy first half
 * hour that is also the warm-up. */
static void test_capacity_util_fleet_kv_use_pools_the_pools_over_their_span(void **state)
{
	static const char *fleets[] = {
		"{\"pools\": [{\"name\": \"a\", \"count\": 1}]}",
		"{\"router\": \"round_robin\", \"pools\": [{\"name\": \"a\", \"count\": 1},"
		" {\"name\": \"b\", \"gpu\": \"h100\", \"count\": 1}]}",
	};
	const char *arrivals = "{\"process\": \"poisson\", \"schedule\": {\"steps\": ["
	                       "{\"at\": \"0h\", \"rate_per_s\": 6}, "
	                       "{\"at\": \"30m\", \"rate_per_s\": 0.2}]}}";
	size_t k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct fs_scenario *sc = chat_scenario(arrivals, "1h", "30m", 3, fleets[k]);
		struct fs_rep_result **res = fs_test_replicate(sc, 2, false);
		struct fs_summary *s = fs_summary_build(sc, res, 3, sc->sim.seed);
		double by_hand = 0, fleet, pool_a;
		int r;
		size_t p;

		for (r = 0; r < 3; r++) {
			double used = 0, held = 0;

			for (p = 0; p < res[r]->fleet.n_pools; p++) {
				const struct fs_pool_result *pr = &res[r]->fleet.pools[p];

				used += pr->kv_block_ns;
				held += pr->serving_ns * (double)pr->kv_blocks_per_instance;
			}
			by_hand += used / held / 3;
		}
		written_kv_use(s, sc, &fleet, &pool_a);
		printf("%zu pool(s): fleet KV use %.4f (by hand %.4f), pool a %.4f, "
		       "engine after warm-up %.4f\n", k + 1, fleet, by_hand, pool_a,
		       s->kv_use.value);
		assert_near(fleet, by_hand, 1e-8, 1e-8);
		if (k == 0)
			assert_near(fleet, pool_a, 1e-8, 1e-8);
		/* The warm-up was the busy part: the engine's figure after it
		 * (engine.kv_use, S7) is another quantity, and smaller. */
		assert_true(s->kv_use.value < 0.9 * fleet);
		fs_replicate_free(res, 3);
		fs_summary_free(s);
		fs_scenario_free(sc);
	}
}

/* Seconds in [from_ns, to_ns) during which some request of r's rows was in
 * service (started, not yet ended or still in flight at to_ns): on one
 * replica, the time an iteration was in flight (continuous batching runs
 * iterations back to back while a request is running). */
static double service_union_s(const struct fs_rep_result *r, fs_ns from_ns, fs_ns to_ns)
{
	fs_ns *lo = calloc(r->n_rows + 1, sizeof *lo), *hi = calloc(r->n_rows + 1, sizeof *hi);
	size_t i, j, n = 0;
	double sum_ns = 0;
	fs_ns cur_lo = 0, cur_hi = -1;

	assert_non_null(lo);
	assert_non_null(hi);
	for (i = 0; i < r->n_rows; i++) {
		const struct fs_request_row *row = &r->rows[i];
		fs_ns a = row->start_ns, b = row->end_ns >= 0 ? row->end_ns : to_ns;

		if (a < 0)
			continue;
		a = a > from_ns ? a : from_ns;
		b = b < to_ns ? b : to_ns;
		if (b <= a)
			continue;
		/* insertion by start time (a few hundred spans) */
		for (j = n; j > 0 && lo[j - 1] > a; j--) {
			lo[j] = lo[j - 1];
			hi[j] = hi[j - 1];
		}
		lo[j] = a;
		hi[j] = b;
		n++;
	}
	for (i = 0; i < n; i++) {
		if (lo[i] > cur_hi) {
			if (cur_hi > cur_lo)
				sum_ns += (double)(cur_hi - cur_lo);
			cur_lo = lo[i];
			cur_hi = hi[i];
		} else if (hi[i] > cur_hi) {
			cur_hi = hi[i];
		}
	}
	if (cur_hi > cur_lo)
		sum_ns += (double)(cur_hi - cur_lo);
	free(lo);
	free(hi);
	return sum_ns / 1e9;
}

/* system.busy_fraction of an LLM run covers [warm-up, end) (MODEL: S1, S7),
 * as the queue engine's does; the utilization block's busy fraction is the
 * pools' over their whole serving time (S17).  One L40S, a busy warm-up
 * (3 req/s for 30 min) and a quiet measured half hour (0.02 req/s): the
 * system figure is the share of that half hour with a request in service,
 * counted by hand from the per-request rows (0.20); it was the whole hour's
 * 0.60. */
static void test_capacity_util_system_busy_fraction_is_after_the_warm_up(void **state)
{
	const char *arrivals = "{\"process\": \"poisson\", \"schedule\": {\"steps\": ["
	                       "{\"at\": \"0h\", \"rate_per_s\": 3}, "
	                       "{\"at\": \"30m\", \"rate_per_s\": 0.02}]}}";
	struct fs_scenario *sc = chat_scenario(arrivals, "1h", "30m", 1,
	                                       "{\"pools\": [{\"name\": \"a\", \"count\": 1}]}");
	struct fs_rep_result **res = fs_test_replicate(sc, 2, true);
	struct fs_summary *s = fs_summary_build(sc, res, 1, sc->sim.seed);
	const struct fs_pool_result *pr = &res[0]->fleet.pools[0];
	double measured_s = (double)(sc->sim.horizon_ns - sc->sim.warmup_ns) / 1e9;
	double by_hand = service_union_s(res[0], sc->sim.warmup_ns, sc->sim.horizon_ns) /
	                 measured_s;

	(void)state;
	assert_non_null(res[0]->rows);
	printf("system busy %.4f (by hand %.4f); pool over the whole span %.4f\n",
	       s->busy_fraction.value, by_hand, s->pools[0].busy_fraction.value);
	assert_near(s->busy_fraction.value, by_hand, 1e-3, 0);
	assert_near(s->pools[0].busy_fraction.value, pr->busy_ns / pr->serving_ns, 1e-9, 1e-9);
	assert_near(s->fleet_busy_fraction.value, s->pools[0].busy_fraction.value, 1e-9, 1e-9);
	assert_true(s->pools[0].busy_fraction.value > 2 * s->busy_fraction.value);
	fs_replicate_free(res, 1);
	fs_summary_free(s);
	fs_scenario_free(sc);

	/* With a drain (MODEL: E5) the step totals run to its end, and so does
	 * the serving time they are divided by: an overloaded replica that
	 * drains a backlog for minutes after the horizon is busy all along,
	 * never twice over. */
	sc = chat_scenario("{\"process\": \"poisson\", \"rate_per_s\": 20}", "2m", "30s", 1,
	                   "{\"pools\": [{\"name\": \"a\", \"count\": 1}]}");
	sc->sim.drain = true;
	res = fs_test_replicate(sc, 2, true);
	s = fs_summary_build(sc, res, 1, sc->sim.seed);
	by_hand = service_union_s(res[0], sc->sim.warmup_ns, res[0]->end_ns) /
	          ((double)(res[0]->end_ns - sc->sim.warmup_ns) / 1e9);
	printf("drained: system busy %.4f (by hand %.4f), run ended at %.0f s\n",
	       s->busy_fraction.value, by_hand, (double)res[0]->end_ns / 1e9);
	assert_true(res[0]->end_ns > 2 * sc->sim.horizon_ns * 3 / 4);
	assert_near(s->busy_fraction.value, by_hand, 1e-3, 0);
	fs_replicate_free(res, 1);
	fs_summary_free(s);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_util_tracks_offered_load_over_measured_saturation),
		cmocka_unit_test(test_capacity_util_oversized_quickstart_shows_a_quarter_and_unused_cost),
		cmocka_unit_test(test_capacity_util_hour_without_traffic_is_one_idle_episode),
		cmocka_unit_test(test_capacity_util_idle_episode_at_the_billed_rate),
		cmocka_unit_test(test_capacity_util_saturation_is_deterministic_and_seed_free),
		cmocka_unit_test(test_capacity_util_fleet_shares_a_loop_only_between_equal_pools),
		cmocka_unit_test(test_capacity_util_fleet_kv_use_pools_the_pools_over_their_span),
		cmocka_unit_test(test_capacity_util_system_busy_fraction_is_after_the_warm_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
