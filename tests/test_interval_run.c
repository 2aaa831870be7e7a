/*
 * test_interval_run.c — intervals out of whole simulated runs: no latency
 * quantile of a random quantity has a zero-width interval, its point is the
 * quantile of the pooled histograms of every replication (worked here by
 * merging them by hand), and no per-bin interval of timeseries.csv goes
 * below 0 (a lightly loaded queue, where most bins are empty in most
 * replications), and the stopping rule keeps adding replications while the
 * figure it watches is too skewed to trust its interval.  Runs
 * replications in-process and ./fleetsim.
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
#include "fleetsim/scenario_cfg.h"
#include "fleetsim/summary.h"
#include "util_test.h"

#define SERVICE_MEAN_NS (10 * FS_NS_PER_MS)
#define REPS 6

static const double qty_p[FS_QTY__COUNT] = { NAN, 0.50, 0.90, 0.95, 0.99 };

/* M/M/1 at rho 0.8: every quantile of queue, TTFT and E2E (all traffic and
 * the class) has lo <= value <= hi with hi > lo, and is not "exact"; the
 * value is the pooled histogram's quantile. */
static void test_interval_run_quantiles_are_pooled_and_never_zero_width(void **state)
{
	static const enum fs_latency lats[] = { FS_LAT_QUEUE, FS_LAT_TTFT, FS_LAT_E2E };
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	struct fs_run_opts opts = { REPS, 0, 2, 11, false, NULL };
	struct fs_rep_result **res;
	struct fs_summary *s;
	size_t g, i;
	int q, r, checked = 0;

	(void)state;
	fs_test_mm1(&sc, &cls, 100.0 * 0.8, SERVICE_MEAN_NS,
	            5000 * SERVICE_MEAN_NS, 100 * SERVICE_MEAN_NS, REPS);
	res = fs_replicate_run(&sc, &opts);
	s = fs_summary_build(&sc, res, REPS, 11);
	for (g = 0; g <= 1; g++) {
		for (i = 0; i < 3; i++) {
			struct fs_hist pool;

			fs_hist_init(&pool);
			for (r = 0; r < REPS; r++)
				fs_hist_merge(&pool, &res[r]->cls[g].lat_hist[lats[i]]);
			for (q = FS_QTY_P50; q < FS_QTY__COUNT; q++) {
				const struct fs_ci *ci = &s->groups[g].lat_ms[lats[i]][q];

				assert_int_equal(ci->method, FS_CI_SECTIONING);
				assert_true(ci->ci_hi > ci->ci_lo);
				assert_true(ci->ci_lo <= ci->value && ci->value <= ci->ci_hi);
				assert_false(fs_stats_ci_exact(ci));
				assert_near(ci->value, fs_hist_quantile(&pool, qty_p[q]) / 1e6,
				            0, 1e-12);
				checked++;
			}
			fs_hist_fini(&pool);
		}
	}
	assert_int_equal(checked, 2 * 3 * 4);
	fs_summary_free(s);
	fs_replicate_free(res, REPS);
}

/* A lightly loaded M/M/1 (0.5 requests/s, 100 ms service) over 10-s bins:
 * most bins hold no queue in most replications, so the t interval of the
 * mean queue length per bin would reach below 0 wherever one replication
 * queued; every _ci_lo must be >= 0, and some bins with a positive mean
 * must show the cut (lo exactly 0). */
static void test_interval_run_timeseries_intervals_never_go_below_zero(void **state)
{
	static const char scenario[] =
		"{ \"name\": \"light\",\n"
		"  \"simulation\": { \"horizon\": \"20m\", \"warmup\": \"0s\", "
		"\"sample_interval\": \"10s\", \"replications\": 4, \"seed\": 3 },\n"
		"  \"workload\": { \"arrivals\": { \"process\": \"poisson\", "
		"\"rate_per_s\": 0.5 },\n"
		"    \"classes\": [ { \"name\": \"jobs\", \"share\": 1,\n"
		"      \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 },\n"
		"      \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 } } ] },\n"
		"  \"engine\": { \"type\": \"queue\", \"servers\": 1,\n"
		"    \"service\": { \"dist\": \"exponential\", \"mean\": \"100ms\" } } }\n";
	char *dir = fs_test_tmpdir();
	char path[512], csv[512], *text, *line, *save = NULL;
	int lo_cols[64], val_of[64], n_lo = 0, rows = 0, cut = 0, col;
	struct fs_test_run run;

	(void)state;
	snprintf(path, sizeof path, "%s/light.json", dir);
	fs_test_write_file(path, scenario);
	{
		const char *args[] = { "run", path, "-o", dir, "-q", NULL };

		run = fs_test_run_fleetsim(args);
	}
	if (run.exit_code != 0)
		print_error("stderr: %s\n", run.err);
	assert_int_equal(run.exit_code, 0);
	fs_test_run_free(&run);
	snprintf(csv, sizeof csv, "%s/timeseries.csv", dir);
	text = fs_test_read_file(csv, NULL);
	assert_non_null(text);
	line = strtok_r(text, "\n", &save);
	assert_non_null(line);
	{
		char *tok, *s2 = NULL;
		int idx = 0;

		for (tok = strtok_r(line, ",", &s2); tok != NULL;
		     tok = strtok_r(NULL, ",", &s2), idx++) {
			size_t len = strlen(tok);

			if (len > 6 && strcmp(tok + len - 6, "_ci_lo") == 0 && n_lo < 64) {
				lo_cols[n_lo] = idx;
				val_of[n_lo++] = idx - 1;        /* value, _ci_lo, _ci_hi */
			}
		}
	}
	assert_true(n_lo >= 3);
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		double v[256];
		int n = 0;
		char *p = line;

		while (n < 256) {
			v[n++] = *p == ',' || *p == '\0' ? NAN : strtod(p, NULL);
			p = strchr(p, ',');
			if (p == NULL)
				break;
			p++;
		}
		for (col = 0; col < n_lo; col++) {
			double lo = v[lo_cols[col]], val = v[val_of[col]];

			if (isnan(lo))
				continue;
			assert_true(lo >= 0.0);
			cut += lo == 0.0 && val > 0.0;
		}
		rows++;
	}
	assert_int_equal(rows, 120);
	print_message("%d bin intervals cut at 0\n", cut);
	assert_true(cut > 0);
	free(text);
	/* The summary says how its quantile intervals were made and carries
	 * the skewness check. */
	snprintf(csv, sizeof csv, "%s/summary.json", dir);
	text = fs_test_read_file(csv, NULL);
	assert_non_null(text);
	assert_has(text, "\"pooled_sectioning\"", "\"skewness_check\"");
	free(text);
	fs_test_tmpdir_free(dir);
}

/* One replication in ten at 100, the others at 1: skewness about 2.7 at
 * any multiple of 10 replications, so Cochran's rule asks for ~180. */
static double skewed_figure(const struct fs_scenario *sc, const struct fs_rep_result *r)
{
	(void)sc;
	return r->replication % 10 == 9 ? 100.0 : 1.0;
}

/* The replication index itself: symmetric, never flagged. */
static double even_figure(const struct fs_scenario *sc, const struct fs_rep_result *r)
{
	(void)sc;
	return 1000.0 + (double)r->replication;
}

/* A target of 100% half-width is met at once by both figures; the skewed
 * one keeps running, in batches of 10, up to the cap of 40; the even one
 * stops after its first 10. */
static void test_interval_run_stopping_rule_continues_while_skewed(void **state)
{
	struct fs_scenario sc;
	struct fs_class_cfg cls;
	struct fs_run_opts opts = { 10, 0, 2, 5, false, NULL };
	struct fs_rep_result **res;
	int n = 0;

	(void)state;
	fs_test_mm1(&sc, &cls, 100.0 * 0.5, SERVICE_MEAN_NS,
	            5000 * SERVICE_MEAN_NS, 100 * SERVICE_MEAN_NS, REPS);
	sc.sim.horizon_ns = 200 * SERVICE_MEAN_NS;
	sc.sim.warmup_ns = 0;
	sc.sim.sample_interval_ns = sc.sim.horizon_ns;
	res = fs_objective_run(&sc, &opts, skewed_figure, 1.0, 40, &n);
	assert_int_equal(n, 40);
	fs_replicate_free(res, n);
	res = fs_objective_run(&sc, &opts, even_figure, 1.0, 40, &n);
	assert_int_equal(n, 10);
	fs_replicate_free(res, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_run_quantiles_are_pooled_and_never_zero_width),
		cmocka_unit_test(test_interval_run_timeseries_intervals_never_go_below_zero),
		cmocka_unit_test(test_interval_run_stopping_rule_continues_while_skewed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
