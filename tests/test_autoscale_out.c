/*
 * test_autoscale_out.c — the autoscaler's warnings and figures leave the
 * run: `fleetsim run` of a scenario with variants prints each variant's
 * scale warnings on stderr (there is no table then), and summary.json
 * holds the figures behind them for the scaled pool, each a CI over the
 * replications.  Runs ./fleetsim on a scenario written to a fresh folder.
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

#include "util_test.h"

/* 20 req/s on one L40S pool of 1..6 for 40 minutes: on `busy` (target
 * 0.85) the pool goes to 6 and stays there (busy is ~1 whenever one
 * request runs); the `conc` variant scales on concurrency instead. */
static const char scenario_text[] =
	"{\"name\": \"v\", \"simulation\": {\"horizon\": \"40m\", \"warmup\": \"0s\", "
	"\"replications\": 2, \"seed\": 11},\n"
	" \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 20},\n"
	"  \"classes\": [{\"name\": \"chat\", \"share\": 1,\n"
	"   \"prompt_tokens\": {\"dist\": \"lognormal\", \"median\": 300, \"sigma\": 0.5, "
	"\"max\": 4000},\n"
	"   \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 100, \"sigma\": 0.5, "
	"\"max\": 1000}}]},\n"
	" \"engine\": {\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\"},\n"
	" \"fleet\": {\"pools\": [{\"name\": \"od\", \"count\": 1, \"min\": 1, \"max\": 6}],\n"
	"  \"autoscale\": {\"pool\": \"od\", \"metric\": \"busy\", \"target\": 0.85}},\n"
	" \"variants\": [{\"name\": \"busy\", \"set\": {}},\n"
	"  {\"name\": \"conc\", \"set\": {\"fleet.autoscale.metric\": \"concurrency\", "
	"\"fleet.autoscale.target\": 24}},\n"
	"  {\"name\": \"fixed\", \"set\": {\"fleet.autoscale\": null}},\n"
	"  {\"name\": \"rare\", \"set\": {\"simulation.replications\": 128, "
	"\"simulation.horizon\": \"10m\", "
	"\"fleet.autoscale\": null, \"fleet.strategy\": \"relaunch\", "
	"\"fleet.zones\": [{\"name\": \"z\"}], \"fleet.pools\": [{\"name\": \"sp\", "
	"\"pricing\": \"spot\", \"count\": 2, \"spot\": {\"interruption_rate_per_month\": 0, "
	"\"zone_reclaims_per_day\": 9, \"notice\": \"0s\"}}]}}]}\n";

/* How many times `needle` occurs in `text`. */
static int occurrences(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)) != NULL; text++)
		n++;
	return n;
}

/* Whether one of summary's warnings contains `text`. */
static bool has_warning(const cJSON *summary, const char *text)
{
	const cJSON *w;

	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(summary, "warnings"))
		if (cJSON_IsString(w) && strstr(w->valuestring, text) != NULL)
			return true;
	return false;
}

/* A variant's warnings on stderr are its summary.json's, every one of
 * them, in order. */
static void assert_stderr_warnings(const char *err, const char *variant, const cJSON *summary)
{
	const cJSON *w;
	const char *at = err;
	char line[1024];

	snprintf(line, sizeof line, "fleetsim run: %s: warning: ", variant);
	assert_int_equal(occurrences(err, line),
	                 cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(summary, "warnings")));
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(summary, "warnings")) {
		snprintf(line, sizeof line, "fleetsim run: %s: warning: %s\n", variant,
		         cJSON_GetStringValue(w));
		at = strstr(at, line);
		assert_non_null(at);
	}
}

/* Write the scenario into dir and run every variant into dir/out. */
static struct fs_test_run run_variants(const char *dir)
{
	char *file = fs_test_path(dir, "v.json"), *out = fs_test_path(dir, "out");
	const char *args[] = { "run", file, "-o", out, NULL };
	FILE *f = fopen(file, "w");
	struct fs_test_run r;

	assert_non_null(f);
	fputs(scenario_text, f);
	fclose(f);
	r = fs_test_run_fleetsim(args);
	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	free(file);
	free(out);
	return r;
}

static cJSON *summary_of(const char *dir, const char *variant)
{
	char path[512];
	char *text;
	cJSON *j;

	snprintf(path, sizeof path, "%s/out/%s/summary.json", dir, variant);
	text = fs_test_read_file(path, NULL);
	assert_non_null(text);
	j = cJSON_Parse(text);
	assert_non_null(j);
	free(text);
	return j;
}

static double ci_value(const cJSON *pool, const char *key)
{
	const cJSON *ci = cJSON_GetObjectItemCaseSensitive(pool, key);

	assert_non_null(ci);
	return cJSON_GetObjectItemCaseSensitive(ci, "value")->valuedouble;
}

/*
 * One run of the variants checks both: stderr names the busy variant
 * (and base, which is the same) as sat at max, not conc or fixed; the busy
 * summary's autoscale block says so with figures: 6 launches (the first at
 * t = 0 and five up to max, never released) in 40 minutes = 9 per hour in
 * every replication, no relaunch, nothing stranded, at max more than half
 * of the looks; the fixed fleet has no autoscale block.  Each variant's
 * stderr carries exactly its summary.json's warnings, of every kind: the
 * `rare` spot fleet has a spot-risk and a skewness warning.  Its 128
 * replications of 10 minutes see a zone reclaim in about 6% of them
 * (0.0625 expected each): a few replications stand out, so some figures
 * are always skewed (with 0 reclaims in all 128 at odds of 1 in 3,000;
 * seeds 1-9 and 11 all warn, of 4 to 10 figures).  With 8 replications of 40
 * minutes, as before, whether any warned was a coin toss.
 */
static void test_autoscale_out_variant_warnings_and_summary_figures(void **state)
{
	char *dir = fs_test_tmpdir();
	struct fs_test_run r = run_variants(dir);
	cJSON *busy = summary_of(dir, "busy"), *conc = summary_of(dir, "conc");
	cJSON *fixed = summary_of(dir, "fixed"), *rare = summary_of(dir, "rare");
	const cJSON *pool, *launches;

	(void)state;
	print_message("stderr: %s\n", r.err);
	assert_non_null(strstr(r.err, "fleetsim run: busy: warning: pool od: the autoscaler "
	                              "sat at max (6)"));
	assert_non_null(strstr(r.err, "fleetsim run: base: warning: pool od: the autoscaler "
	                              "sat at max (6)"));
	assert_null(strstr(r.err, "conc: warning"));
	assert_null(strstr(r.err, "fixed: warning"));
	/* every kind of warning reaches stderr: the spot pool's, and the
	 * skewness one of its few reclaims */
	assert_stderr_warnings(r.err, "busy", busy);
	assert_stderr_warnings(r.err, "conc", conc);
	assert_stderr_warnings(r.err, "fixed", fixed);
	assert_stderr_warnings(r.err, "rare", rare);
	assert_has(r.err, "rare: warning: pool sp: too short to see spot risk",
	           "figures are skewed across replications");
	assert_true(has_warning(rare, "figures are skewed across replications"));

	pool = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(busy, "autoscale"), "od");
	assert_non_null(pool);
	launches = cJSON_GetObjectItemCaseSensitive(pool, "launches_per_hour");
	assert_near(ci_value(pool, "launches_per_hour"), 6 / (40.0 / 60), 1e-9, 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(launches, "exact")));
	assert_true(ci_value(pool, "share_at_max") > 0.5);
	assert_near(ci_value(pool, "share_at_lower_bound"), 0, 0, 0);
	assert_near(ci_value(pool, "relaunches_within_1h_of_scale_in_per_hour"), 0, 0, 0);
	assert_near(ci_value(pool, "stranded_requests_at_end"), 0, 0, 0);
	assert_near(ci_value(pool, "idle_releases"), 0, 0, 0);
	pool = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(conc, "autoscale"), "od");
	assert_non_null(pool);
	assert_true(ci_value(pool, "share_at_max") < 0.5);
	assert_null(cJSON_GetObjectItemCaseSensitive(fixed, "autoscale"));
	cJSON_Delete(busy);
	cJSON_Delete(conc);
	cJSON_Delete(fixed);
	cJSON_Delete(rare);
	fs_test_run_free(&r);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_autoscale_out_variant_warnings_and_summary_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
