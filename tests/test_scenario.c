/*
 * test_scenario.c — loading good scenarios (src/scenario.c, scenario_text.c,
 * scenario_walk.c, scenario_workload.c, scenario_arrivals.c): every default,
 * every section and distribution, relative data paths, share normalisation,
 * error positions, and the SHA-256 of the file against the FIPS 180-2
 * vectors.  Bad scenarios have their own suite (test_bad_scenarios.c).
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
#include "../src/sha256.h"

/* ---- defaults and fields ------------------------------------------------------ */

static void test_scenario_minimal_file_gets_every_default(void **state)
{
	struct fs_scenario *sc = load_file_ok(MINIMAL);
	const struct fs_class_cfg *c;

	(void)state;
	assert_string_equal(sc->path, MINIMAL);
	assert_string_equal(sc->name, "scenario_minimal");
	assert_string_equal(sc->description, "");
	assert_int_equal(strlen(sc->sha256_hex), 64);
	assert_int_equal(sc->sim.horizon_ns, 3600 * FS_NS_PER_S);
	assert_int_equal(sc->sim.warmup_ns, 0);
	assert_int_equal(sc->sim.sample_interval_ns, 36 * FS_NS_PER_S);
	assert_near(sc->sim.start_hour, 0.0, 0.0, 0.0);
	assert_int_equal(sc->sim.seed, 1);
	assert_int_equal(sc->sim.replications, 8);
	assert_int_equal(sc->sim.max_in_system, 1000000);
	assert_false(sc->workload.has_shared_arrivals);
	assert_int_equal(sc->workload.n_classes, 1);
	c = &sc->workload.classes[0];
	assert_string_equal(c->name, "chat");
	assert_true(c->own_arrivals);
	assert_int_equal(c->arrivals.kind, FS_ARRIVAL_POISSON);
	assert_near(c->arrivals.rate_per_s, 2.0, 0.0, 0.0);
	assert_false(c->arrivals.diurnal);
	assert_int_equal(c->arrivals.n_schedule, 0);
	assert_int_equal(c->arrivals.n_spikes, 0);
	assert_int_equal(c->prompt.kind, FS_LENGTH_FIXED);
	assert_int_equal(c->prompt.fixed_tokens, 100);
	assert_int_equal(c->prompt.min_tokens, 1);
	assert_int_equal(c->prompt.max_tokens, 1048576);
	assert_int_equal(c->output.fixed_tokens, 20);
	assert_int_equal(c->slo.ttft_ns, 0);
	assert_int_equal(c->slo.tpot_ns, 0);
	assert_int_equal(c->slo.e2e_ns, 0);
	assert_near(c->slo.attainment, 0.99, 0.0, 0.0);
	assert_int_equal(c->priority, 0);
	assert_int_equal(sc->engine.kind, FS_ENGINE_QUEUE);
	assert_int_equal(sc->engine.servers, 1);
	assert_int_equal(sc->engine.service.kind, FS_SERVICE_EXPONENTIAL);
	assert_int_equal(sc->engine.service.mean_ns, 200 * FS_NS_PER_MS);
	assert_int_equal(sc->engine.discipline, FS_DISCIPLINE_FCFS);
	fs_scenario_free(sc);
}

static void test_scenario_full_file_fills_every_field(void **state)
{
	struct fs_scenario *sc = load_file_ok(FULL);
	const struct fs_workload_cfg *w = &sc->workload;
	const struct fs_class_cfg *chat, *batch, *burst, *replay;

	(void)state;
	assert_string_equal(sc->name, "full");
	assert_string_equal(sc->description, "a // not a comment /* nor this */ \"quoted\"");
	assert_int_equal(sc->sim.horizon_ns, 2 * 86400 * FS_NS_PER_S);
	assert_int_equal(sc->sim.warmup_ns, 1800 * FS_NS_PER_S);
	assert_int_equal(sc->sim.sample_interval_ns, 60 * FS_NS_PER_S);
	assert_near(sc->sim.start_hour, 6.5, 0.0, 0.0);
	assert_true(sc->sim.seed == UINT64_C(9007199254740992));
	assert_int_equal(sc->sim.replications, 3);
	assert_int_equal(sc->sim.max_in_system, 5000);

	assert_true(w->has_shared_arrivals);
	assert_int_equal(w->arrivals.kind, FS_ARRIVAL_GAMMA);
	assert_near(w->arrivals.rate_per_s, 12.5, 0.0, 0.0);
	assert_near(w->arrivals.cv, 2.0, 0.0, 0.0);
	assert_true(w->arrivals.diurnal);
	assert_near(w->arrivals.diurnal_peak_to_trough, 4.0, 0.0, 0.0);
	assert_near(w->arrivals.diurnal_peak_hour, 14.0, 0.0, 0.0);
	assert_int_equal(w->arrivals.n_spikes, 1);
	assert_int_equal(w->arrivals.spikes[0].at_ns, 3600 * FS_NS_PER_S);
	assert_int_equal(w->arrivals.spikes[0].dur_ns, 600 * FS_NS_PER_S);
	assert_near(w->arrivals.spikes[0].multiplier, 3.0, 0.0, 0.0);
	assert_int_equal(w->n_classes, 5);

	chat = &w->classes[0];
	assert_false(chat->own_arrivals);
	assert_near(chat->share, 0.75, 0.0, 0.0);           /* 3 / (3 + 1) */
	assert_int_equal(chat->prompt.kind, FS_LENGTH_LOGNORMAL);
	assert_near(chat->prompt.median_tokens, 512.0, 0.0, 0.0);
	assert_near(chat->prompt.sigma, 0.9, 0.0, 0.0);
	assert_int_equal(chat->prompt.max_tokens, 8192);
	assert_int_equal(chat->output.kind, FS_LENGTH_ZIPF);
	assert_int_equal(chat->output.zipf_n, 1000);
	assert_near(chat->output.zipf_s, 1.2, 0.0, 0.0);
	assert_non_null(chat->output.zipf_cdf);
	assert_near(chat->output.zipf_cdf[999], 1.0, 0.0, 0.0);
	assert_int_equal(chat->slo.ttft_ns, 2 * FS_NS_PER_S);
	assert_int_equal(chat->slo.tpot_ns, 100 * FS_NS_PER_MS);
	assert_int_equal(chat->slo.e2e_ns, 30 * FS_NS_PER_S);
	assert_near(chat->slo.attainment, 0.95, 0.0, 0.0);
	assert_int_equal(chat->priority, -5);

	batch = &w->classes[1];
	assert_near(batch->share, 0.25, 0.0, 0.0);
	assert_int_equal(batch->prompt.kind, FS_LENGTH_UNIFORM);
	assert_int_equal(batch->prompt.min_tokens, 10);
	assert_int_equal(batch->prompt.max_tokens, 100);
	assert_int_equal(batch->output.kind, FS_LENGTH_EMPIRICAL);
	assert_string_equal(batch->output.empirical_path, "scenario_lengths.txt");
	assert_int_equal(batch->output.n_empirical, 4);
	assert_int_equal(batch->output.empirical[3], 2048);
	assert_null(batch->output.empirical_column);

	burst = &w->classes[2];
	assert_true(burst->own_arrivals);
	assert_near(burst->share, 0.0, 0.0, 0.0);
	assert_int_equal(burst->arrivals.kind, FS_ARRIVAL_WEIBULL);
	assert_near(burst->arrivals.weibull_shape, 0.7, 0.0, 0.0);
	assert_int_equal(burst->arrivals.n_schedule, 3);
	assert_int_equal(burst->arrivals.schedule[1].at_ns, 8 * 3600 * FS_NS_PER_S);
	assert_near(burst->arrivals.schedule[1].rate_per_s, 5.5, 0.0, 0.0);
	assert_int_equal(burst->arrivals.schedule_period_ns, 86400 * FS_NS_PER_S);
	assert_int_equal(burst->prompt.kind, FS_LENGTH_EMPIRICAL);
	assert_string_equal(burst->prompt.empirical_column, "tokens");
	assert_int_equal(burst->prompt.n_empirical, 3);
	assert_int_equal(burst->prompt.empirical[1], 400);
	assert_int_equal(burst->output.min_tokens, 8);
	assert_int_equal(burst->output.max_tokens, 64);

	replay = &w->classes[3];
	assert_int_equal(replay->arrivals.kind, FS_ARRIVAL_TRACE);
	assert_non_null(replay->arrivals.trace.trace);
	assert_string_equal(replay->arrivals.trace.trace->path, "scenario_azure.csv");
	assert_int_equal(replay->arrivals.trace.trace->n_rows, 4);
	assert_near(replay->arrivals.trace.time_scale, 0.5, 0.0, 0.0);
	assert_near(replay->arrivals.trace.rate_scale, 2.0, 0.0, 0.0);
	assert_false(replay->arrivals.trace.loop);
	assert_int_equal(replay->arrivals.trace.start_offset_ns, FS_NS_PER_S);
	assert_int_equal(replay->prompt.kind, FS_LENGTH_TRACE);   /* from the trace */
	assert_int_equal(replay->output.kind, FS_LENGTH_FIXED);   /* overridden */

	assert_int_equal(sc->engine.servers, 16);
	assert_int_equal(sc->engine.discipline, FS_DISCIPLINE_PRIORITY);
	assert_int_equal(sc->engine.service.kind, FS_SERVICE_LOGNORMAL);
	assert_int_equal(sc->engine.service.mean_ns, 1500 * FS_NS_PER_MS);
	assert_near(sc->engine.service.cv, 0.5, 0.0, 0.0);
	fs_scenario_free(sc);
}

static void test_scenario_sample_interval_default_is_a_hundredth_of_horizon(void **state)
{
	static const struct { const char *horizon; fs_ns want_ns; } cases[] = {
		{ "\"1h\"", 36 * FS_NS_PER_S },       /* 36 s exactly */
		{ "\"2d\"", 1728 * FS_NS_PER_S },
		{ "\"150s\"", 2 * FS_NS_PER_S },      /* 1.5 s rounds to 2 s */
		{ "\"10s\"", FS_NS_PER_S },           /* 0.1 s: at least 1 s */
		{ "0.5", 500 * FS_NS_PER_MS },        /* at most the horizon */
	};
	char text[1024];
	struct fs_scenario *sc;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(text, sizeof text, "{\"simulation\": {\"horizon\": %s}, "
		         "\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, " ENGINE "}",
		         cases[i].horizon);
		sc = load_ok(text);
		assert_int_equal(sc->sim.sample_interval_ns, cases[i].want_ns);
		fs_scenario_free(sc);
	}
}

static void test_scenario_shares_that_sum_to_one_are_kept_exactly(void **state)
{
	struct fs_scenario *sc = load_ok(
		"{\"simulation\": {\"horizon\": 10}, \"workload\": {"
		"\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1},"
		"\"classes\": [{\"name\": \"a\", \"share\": 0.1,"
		" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
		" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1}},"
		"{\"name\": \"b\", \"share\": 0.2,"
		" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
		" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1}},"
		"{\"name\": \"c\", \"share\": 0.7,"
		" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 1},"
		" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 1}}]}, " ENGINE "}");

	(void)state;
	assert_true(sc->workload.classes[0].share == 0.1);
	assert_true(sc->workload.classes[1].share == 0.2);
	assert_true(sc->workload.classes[2].share == 0.7);
	fs_scenario_free(sc);
}

static void test_scenario_durations_accept_numbers_of_seconds(void **state)
{
	struct fs_scenario *sc = load_ok(
		"{\"simulation\": {\"horizon\": 90.5, \"warmup\": 0.1}, "
		"\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, " ENGINE "}");

	(void)state;
	assert_int_equal(sc->sim.horizon_ns, 90500 * FS_NS_PER_MS);
	assert_int_equal(sc->sim.warmup_ns, 100 * FS_NS_PER_MS);
	assert_int_equal(sc->engine.service.mean_ns, FS_NS_PER_S);
	fs_scenario_free(sc);
}

static void test_scenario_name_defaults_to_the_file_stem(void **state)
{
	const char *text = "{\"simulation\": {\"horizon\": 10}, "
	                   "\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, " ENGINE "}";
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_text(text, strlen(text),
	                                               "some/dir/my.run.json", ".", &err);

	(void)state;
	assert_non_null(sc);
	assert_string_equal(sc->name, "my.run");
	fs_scenario_free(sc);
}

/* ---- errors ------------------------------------------------------------------------- */

static void test_scenario_error_position_counts_lines_and_byte_columns(void **state)
{
	const char *text =
		"// header comment\n"
		"{ /* a block\n"
		"     comment */ \"simulation\": {\n"
		"\t\"horizon\": \"1h\", \"seeed\": 3\n"
		"}}\n";
	struct fs_error err;

	(void)state;
	assert_null(load_str(text, &err));
	assert_string_equal(err.where, "t.json:4:19");    /* the tab is one byte */
	assert_string_equal(err.path, "simulation.seeed");
	assert_string_equal(err.msg, "unknown key \"seeed\"; did you mean \"seed\"?");
}

static void test_scenario_failed_load_returns_null_and_fills_the_error(void **state)
{
	struct fs_error err;
	char buf[2048];

	(void)state;
	assert_null(fs_scenario_load("tests/data/no_such_scenario.json", &err));
	fs_error_format(&err, buf, sizeof buf);
	assert_string_equal(buf, "tests/data/no_such_scenario.json: cannot open "
	                    "scenario: No such file or directory");
	/* A NULL error record is allowed. */
	assert_null(fs_scenario_load("tests/data/no_such_scenario.json", NULL));
	assert_null(load_str("{", NULL));
	assert_null(load_str("{\"simulation\": 1}", NULL));
}

static void test_scenario_rejects_nul_bytes(void **state)
{
	const char text[] = "{\"name\": \"a\0b\"}";
	struct fs_error err;

	(void)state;
	assert_null(fs_scenario_load_text(text, sizeof text - 1, "t.json", ".", &err));
	assert_string_equal(err.where, "t.json:1:12");
	assert_string_equal(err.msg, "invalid JSON: unexpected NUL byte");
}

/* ---- SHA-256 ------------------------------------------------------------------------------ */

static void test_scenario_sha256_matches_fips_180_2_vectors(void **state)
{
	char hex[65];
	const char *msg448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	(void)state;
	/* FIPS 180-2, appendix B.1 */
	fs__sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* FIPS 180-2, appendix B.2: the 448-bit message (two padded blocks) */
	fs__sha256_hex(msg448, strlen(msg448), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* The empty message (NIST example values) */
	fs__sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_scenario_sha256_of_a_million_a(void **state)
{
	char *buf = malloc(1000000), hex[65];

	(void)state;
	assert_non_null(buf);
	memset(buf, 'a', 1000000);
	/* FIPS 180-2, appendix B.3 */
	fs__sha256_hex(buf, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(buf);
}

static void test_scenario_hash_is_of_the_file_bytes(void **state)
{
	struct fs_scenario *sc = load_file_ok(FULL);
	size_t len = 0;
	char *text = fs_test_read_file(FULL, &len), hex[65];

	(void)state;
	assert_non_null(text);
	fs__sha256_hex(text, len, hex);
	assert_string_equal(sc->sha256_hex, hex);
	free(text);
	fs_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_minimal_file_gets_every_default),
		cmocka_unit_test(test_scenario_full_file_fills_every_field),
		cmocka_unit_test(test_scenario_sample_interval_default_is_a_hundredth_of_horizon),
		cmocka_unit_test(test_scenario_shares_that_sum_to_one_are_kept_exactly),
		cmocka_unit_test(test_scenario_durations_accept_numbers_of_seconds),
		cmocka_unit_test(test_scenario_name_defaults_to_the_file_stem),
		cmocka_unit_test(test_scenario_error_position_counts_lines_and_byte_columns),
		cmocka_unit_test(test_scenario_failed_load_returns_null_and_fills_the_error),
		cmocka_unit_test(test_scenario_rejects_nul_bytes),
		cmocka_unit_test(test_scenario_sha256_matches_fips_180_2_vectors),
		cmocka_unit_test(test_scenario_sha256_of_a_million_a),
		cmocka_unit_test(test_scenario_hash_is_of_the_file_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
