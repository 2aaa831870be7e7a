/*
 * test_headroom.c — the headroom search (headroom.h) against a closed form.
 * An M/M/1 queue with service rate mu = 10/s and the SLO "99% of requests
 * end within 1 s": its sojourn time is Exp(mu - lambda), so the SLO holds
 * while 1 - exp(-(mu - lambda) x 1 s) >= 0.99, i.e. up to
 * lambda* = mu - ln(100) / 1 s = 5.395/s; at lambda = 2/s that is a factor
 * of 2.697.  Fixed seeds, so deterministic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/headroom.h"
#include "fleetsim/scenario.h"
#include "util_test.h"

static const char MM1[] =
	"{\"name\": \"mm1-headroom\","
	" \"simulation\": {\"horizon\": \"2h\", \"warmup\": \"5m\", \"replications\": 8,"
	"                 \"seed\": 7},"
	" \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 2},"
	"   \"classes\": [{\"name\": \"jobs\", \"share\": 1,"
	"     \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
	"     \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
	"     \"slo\": {\"e2e\": \"1s\", \"attainment\": 0.99}}]},"
	" \"engine\": {\"type\": \"queue\", \"servers\": 1,"
	"            \"service\": {\"dist\": \"exponential\", \"mean\": \"100ms\"}}}";

static struct fs_scenario *load(const char *text)
{
	return fs_test_load_text(text, "mm1", ".");
}

static void test_headroom_mm1_matches_closed_form(void **state)
{
	struct fs_scenario *sc = load(MM1);
	struct fs_headroom_opts o;
	struct fs_headroom h;
	double exact = (10.0 - log(100.0)) / 2.0;    /* 2.697 */

	(void)state;
	fs_headroom_opts_init(&o, 8, 7);
	o.threads = 2;
	assert_int_equal(fs_headroom_search(sc, &o, &h), 0);
	assert_true(h.applicable);
	assert_near(h.base_rate_per_s, 2.0, 1e-12, 0);
	/* The estimate within 3% of the closed form, the interval around it,
	 * the interval no wider than +-15%, and the budget kept. */
	assert_near(h.factor, exact, 0, 0.03);
	assert_false(isnan(h.factor_lo));
	assert_true(h.factor_lo <= exact && exact <= h.factor_hi);
	assert_true(h.factor_lo <= h.factor && h.factor <= h.factor_hi);
	assert_true(h.factor_hi / h.factor_lo < 1.3);
	print_message("headroom %.4f [%.4f, %.4f] exact %.4f, %d probes\n", h.factor,
	              h.factor_lo, h.factor_hi, exact, h.n_probes);
	assert_true(h.n_probes <= o.max_probes);
	assert_false(h.above_max);
	assert_false(h.below_min);
	fs_scenario_free(sc);
}

/* The same search with 1 and 2 threads: the same probes, bit for bit. */
static void test_headroom_same_for_any_thread_count(void **state)
{
	struct fs_scenario *sc = load(MM1);
	struct fs_headroom_opts o;
	struct fs_headroom a, b;
	int i;

	(void)state;
	fs_headroom_opts_init(&o, 4, 11);
	o.max_probes = 8;
	o.threads = 1;
	fs_headroom_search(sc, &o, &a);
	o.threads = 2;
	fs_headroom_search(sc, &o, &b);
	assert_int_equal(a.n_probes, b.n_probes);
	assert_true(a.n_probes <= 8);
	for (i = 0; i < a.n_probes; i++) {
		assert_true(a.probes[i].factor == b.probes[i].factor);
		assert_int_equal(a.probes[i].verdict, b.probes[i].verdict);
		assert_memory_equal(&a.probes[i].worst_attainment, &b.probes[i].worst_attainment,
		                    sizeof(double));
	}
	assert_memory_equal(&a.factor, &b.factor, sizeof(double));
	fs_scenario_free(sc);
}

/* A fleet already failing at factor 1: the search halves down to the rate
 * it sustains (lambda* / 8 = 0.674/s is a factor of 0.337 here). */
static void test_headroom_below_one_when_overloaded(void **state)
{
	char *text = strdup(MM1);
	char *p = strstr(text, "\"rate_per_s\": 2");
	struct fs_scenario *sc;
	struct fs_headroom_opts o;
	struct fs_headroom h;

	(void)state;
	memcpy(p, "\"rate_per_s\": 8", strlen("\"rate_per_s\": 8"));
	sc = load(text);
	fs_headroom_opts_init(&o, 8, 7);
	o.threads = 2;
	fs_headroom_search(sc, &o, &h);
	assert_true(h.applicable);
	assert_near(h.factor, (10.0 - log(100.0)) / 8.0, 0, 0.03);
	assert_true(h.factor < 1);
	fs_scenario_free(sc);
	free(text);
}

/* Closed-loop users set the load: no factor to search. */
static void test_headroom_not_for_closed_loop(void **state)
{
	static const char text[] =
		"{\"name\": \"closed\","
		" \"simulation\": {\"horizon\": \"10m\", \"replications\": 2, \"seed\": 1},"
		" \"workload\": {\"classes\": [{\"name\": \"u\","
		"     \"users\": 4, \"think\": {\"dist\": \"exponential\", \"mean\": \"1s\"},"
		"     \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
		"     \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1}}]},"
		" \"engine\": {\"type\": \"queue\", \"servers\": 1,"
		"            \"service\": {\"dist\": \"exponential\", \"mean\": \"100ms\"}}}";
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_text(text, strlen(text), "closed", ".", &err);
	struct fs_headroom_opts o;
	struct fs_headroom h;

	(void)state;
	if (!sc)
		fail_msg("scenario: %s: %s", err.where, err.msg);
	fs_headroom_opts_init(&o, 2, 1);
	assert_int_equal(fs_headroom_search(sc, &o, &h), 0);
	assert_false(h.applicable);
	assert_non_null(strstr(h.why, "closed-loop"));
	assert_int_equal(h.n_probes, 0);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headroom_mm1_matches_closed_form),
		cmocka_unit_test(test_headroom_same_for_any_thread_count),
		cmocka_unit_test(test_headroom_below_one_when_overloaded),
		cmocka_unit_test(test_headroom_not_for_closed_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
