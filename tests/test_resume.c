/*
 * test_resume.c — `fleetsim sweep --resume` reuses a stored point record
 * only when every input that determines its bytes matches and the record is
 * complete: records made with another seed, -r, --ci-target, --set or
 * version, and truncated records or records with missing or mistyped
 * members, are computed again (said on stderr) and the outputs are the same
 * bytes as a fresh sweep with this run's options; nothing crashes.
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

#define SCENARIO "tests/data/sweep_resume.json"

/* Run a 2-replication sweep into dir with up to three extra arguments;
 * returns the run (caller frees). */
static struct fs_test_run sweep3(const char *dir, const char *x1, const char *x2,
                                 const char *x3)
{
	const char *args[13] = { "sweep", SCENARIO, "-o", dir, "-q", "-j", "2", "-r", "2" };
	size_t n = 9;

	if (x1 != NULL)
		args[n++] = x1;
	if (x2 != NULL)
		args[n++] = x2;
	if (x3 != NULL)
		args[n++] = x3;
	args[n] = NULL;
	return fs_test_run_fleetsim(args);
}

static void sweep_ok(const char *dir, const char *x1, const char *x2, const char *x3,
                     const char *stderr_has)
{
	struct fs_test_run r = sweep3(dir, x1, x2, x3);

	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	if (stderr_has == NULL) {
		if (strstr(r.err, "not reusing") != NULL)
			print_error("stderr: %s\n", r.err);
		assert_null(strstr(r.err, "not reusing"));
	} else {
		if (strstr(r.err, stderr_has) == NULL)
			print_error("expected \"%s\" in stderr: %s\n", stderr_has, r.err);
		assert_non_null(strstr(r.err, stderr_has));
	}
	fs_test_run_free(&r);
}

/* The files every sweep writes. */
static const char *const OUTPUTS[] = { "sweep.csv", "sweep.json", "pareto.csv", "best.json",
                                       "sweep_cdf.csv", NULL };

static void assert_same_outputs(const char *a, const char *b)
{
	fs_test_assert_same_files(a, b, OUTPUTS);
}

static cJSON *read_record(const char *dir, int point)
{
	char name[64];

	snprintf(name, sizeof name, "points/%d.json", point);
	return fs_test_read_json(dir, name);
}

static void write_text(const char *dir, int point, const char *text, size_t len)
{
	char name[64], *p;
	FILE *f;

	snprintf(name, sizeof name, "points/%d.json", point);
	p = fs_test_path(dir, name);
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(p);
}

static void write_record(const char *dir, int point, cJSON *rec)
{
	char *text = cJSON_PrintUnformatted(rec);

	write_text(dir, point, text, strlen(text));
	cJSON_free(text);
	cJSON_Delete(rec);
}

/* A sweep made with `made` options, then resumed with `now` options, gives
 * the bytes of a fresh sweep with `now` and says why on stderr. */
static void check_recomputed(const char *made1, const char *made2, const char *now1,
                             const char *now2, const char *why)
{
	char *fresh = fs_test_tmpdir(), *resumed = fs_test_tmpdir();

	sweep_ok(fresh, now1, now2, NULL, NULL);
	sweep_ok(resumed, made1, made2, NULL, NULL);
	sweep_ok(resumed, now1, now2, "--resume", why);
	assert_same_outputs(fresh, resumed);
	/* Now every record matches: resuming again reuses them all. */
	sweep_ok(resumed, now1, now2, "--resume", NULL);
	assert_same_outputs(fresh, resumed);
	fs_test_tmpdir_free(fresh);
	fs_test_tmpdir_free(resumed);
}

static void test_resume_recomputes_records_of_another_seed(void **state)
{
	(void)state;
	check_recomputed("--seed", "11", "--seed", "12",
	                 "made with seed_option 11, this run has 12");
}

static void test_resume_recomputes_records_of_another_seed_than_the_scenarios(void **state)
{
	(void)state;
	check_recomputed("--seed", "11", NULL, NULL,
	                 "made with seed_option 11, this run has -1");
}

static void test_resume_recomputes_records_of_another_replication_count(void **state)
{
	(void)state;
	check_recomputed("-r", "3", NULL, NULL,
	                 "made with replications_option 3, this run has 2");
}

static void test_resume_recomputes_records_of_another_ci_target(void **state)
{
	(void)state;
	check_recomputed("--ci-target", "2%", NULL, NULL,
	                 "made with ci_target_option 0.02, this run has 0");
}

static void test_resume_recomputes_records_of_other_sets(void **state)
{
	(void)state;
	check_recomputed("--set", "simulation.horizon=\"5m\"", NULL, NULL,
	                 "made with sets [\"simulation.horizon=\\\"5m\\\"\"], this run has []");
}

/* Point 2's record made with inputs.`key` = `value` (and a wrong figure
 * that a reused record would carry into the outputs), point 1's with no
 * inputs when `drop_inputs`: --resume says why it computes them again
 * (`why`) and writes the fresh sweep's bytes. */
static void check_stale_input(const char *key, const char *value, bool drop_inputs,
                              const char *why)
{
	char *fresh = fs_test_tmpdir(), *dir = fs_test_tmpdir();
	cJSON *rec;

	sweep_ok(fresh, NULL, NULL, NULL, NULL);
	sweep_ok(dir, NULL, NULL, NULL, NULL);
	rec = read_record(dir, 2);
	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "inputs"),
	                                       key, cJSON_CreateString(value));
	cJSON_ReplaceItemInObjectCaseSensitive(rec, "objective_per_rep",
	                                       cJSON_Parse("[1, 1]"));
	write_record(dir, 2, rec);
	if (drop_inputs) {
		rec = read_record(dir, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "inputs");
		write_record(dir, 1, rec);
	}
	sweep_ok(dir, "--resume", NULL, NULL, why);
	assert_same_outputs(fresh, dir);
	fs_test_tmpdir_free(fresh);
	fs_test_tmpdir_free(dir);
}

/* A record of another version, and one from before records carried their
 * inputs, are computed again. */
static void test_resume_recomputes_records_of_another_version(void **state)
{
	(void)state;
	check_stale_input("fleetsim_version", "0.0.1", true,
	                  "made with fleetsim_version \"0.0.1\"");
}

/* A record whose draws came from another generator (an earlier build's
 * MT19937) is computed again, even of the same version: the same seed
 * gives other figures under another generator. */
static void test_resume_recomputes_records_of_another_generator(void **state)
{
	(void)state;
	check_stale_input("rng", "gsl_rng_mt19937", false, "made with rng \"gsl_rng_mt19937\"");
}

static void test_resume_recomputes_an_old_record_without_inputs(void **state)
{
	char *fresh = fs_test_tmpdir(), *dir = fs_test_tmpdir();
	cJSON *rec;

	(void)state;
	sweep_ok(fresh, NULL, NULL, NULL, NULL);
	sweep_ok(dir, NULL, NULL, NULL, NULL);
	rec = read_record(dir, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "inputs");
	write_record(dir, 1, rec);
	sweep_ok(dir, "--resume", NULL, NULL, "points/1.json: it has no \"inputs\"");
	assert_same_outputs(fresh, dir);
	fs_test_tmpdir_free(fresh);
	fs_test_tmpdir_free(dir);
}

/* Truncated and empty records: not JSON, computed again. */
static void test_resume_recomputes_truncated_records(void **state)
{
	char *fresh = fs_test_tmpdir(), *dir = fs_test_tmpdir();
	char *p, *text;
	size_t len;

	(void)state;
	sweep_ok(fresh, NULL, NULL, NULL, NULL);
	sweep_ok(dir, NULL, NULL, NULL, NULL);
	p = fs_test_path(dir, "points/1.json");
	text = fs_test_read_file(p, &len);
	assert_non_null(text);
	write_text(dir, 1, text, len / 2);
	write_text(dir, 2, "", 0);
	sweep_ok(dir, "--resume", NULL, NULL, "points/1.json: it is not valid JSON");
	assert_same_outputs(fresh, dir);
	free(text);
	free(p);
	fs_test_tmpdir_free(fresh);
	fs_test_tmpdir_free(dir);
}

/* Delete or mistype one member of record 3 (inputs intact): the resumed
 * sweep computes it again and ends with a fresh sweep's bytes. */
static void check_partial(const char *key, const char *sub, cJSON *replacement,
                          const char *why)
{
	char *fresh = fs_test_tmpdir(), *dir = fs_test_tmpdir();
	cJSON *rec, *parent;

	sweep_ok(fresh, NULL, NULL, NULL, NULL);
	sweep_ok(dir, NULL, NULL, NULL, NULL);
	rec = read_record(dir, 3);
	parent = sub != NULL ? cJSON_GetObjectItemCaseSensitive(rec, sub) : rec;
	assert_non_null(parent);
	if (replacement != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(parent, key, replacement);
	else
		cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
	write_record(dir, 3, rec);
	sweep_ok(dir, "--resume", NULL, NULL, why);
	assert_same_outputs(fresh, dir);
	fs_test_tmpdir_free(fresh);
	fs_test_tmpdir_free(dir);
}

static void test_resume_recomputes_a_record_without_label(void **state)
{
	(void)state;
	check_partial("label", NULL, NULL, "it is partial: \"label\" is missing");
}

static void test_resume_recomputes_a_record_with_a_numeric_label(void **state)
{
	(void)state;
	check_partial("label", NULL, cJSON_CreateNumber(3), "it is partial: \"label\"");
}

static void test_resume_recomputes_a_record_without_replications(void **state)
{
	(void)state;
	check_partial("replications", NULL, NULL, "it is partial: \"replications\"");
}

static void test_resume_recomputes_a_record_with_replications_as_a_string(void **state)
{
	(void)state;
	check_partial("replications", NULL, cJSON_CreateString("2"),
	              "it is partial: \"replications\"");
}

static void test_resume_recomputes_a_record_with_a_short_objective_array(void **state)
{
	(void)state;
	check_partial("objective_per_rep", NULL, cJSON_Parse("[5]"),
	              "it is partial: \"objective_per_rep\"");
}

static void test_resume_recomputes_a_record_with_string_outcomes(void **state)
{
	(void)state;
	check_partial("met_per_rep", NULL, cJSON_Parse("[\"1\", \"1\"]"),
	              "it is partial: \"met_per_rep\"");
}

static void test_resume_recomputes_a_record_without_a_figure(void **state)
{
	(void)state;
	check_partial("total_cost", "figures", NULL,
	              "it is partial: \"figures.total_cost\"");
}

static void test_resume_recomputes_a_record_without_figures(void **state)
{
	(void)state;
	check_partial("figures", NULL, NULL, "it is partial: \"figures\"");
}

static void test_resume_recomputes_a_record_with_a_bad_cdf(void **state)
{
	(void)state;
	check_partial("pareto_cdf", NULL, cJSON_Parse("[[1]]"),
	              "it is partial: \"pareto_cdf\"");
}

static void test_resume_recomputes_a_record_of_another_point(void **state)
{
	(void)state;
	check_partial("point", NULL, cJSON_CreateNumber(2), "it is partial: \"point\"");
}

static void test_resume_recomputes_a_record_without_a_decision(void **state)
{
	(void)state;
	check_partial("decision", NULL, NULL, "it is partial: \"decision\"");
}

/* Record 3 edited by hand, its shape intact: the first replication's
 * value of `key` set to v.  A cost below 0 or a met flag of 7 cannot come
 * from a simulation: the resumed sweep computes the point again and ends
 * with a fresh sweep's bytes. */
static void check_tampered(const char *key, double v, const char *why)
{
	char *fresh = fs_test_tmpdir(), *dir = fs_test_tmpdir();
	cJSON *rec;

	sweep_ok(fresh, NULL, NULL, NULL, NULL);
	sweep_ok(dir, NULL, NULL, NULL, NULL);
	rec = read_record(dir, 3);
	assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, key)) >= 1);
	cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(rec, key), 0,
	                         cJSON_CreateNumber(v));
	write_record(dir, 3, rec);
	sweep_ok(dir, "--resume", NULL, NULL, why);
	assert_same_outputs(fresh, dir);
	fs_test_tmpdir_free(fresh);
	fs_test_tmpdir_free(dir);
}

static void test_resume_recomputes_a_record_with_a_negative_cost(void **state)
{
	(void)state;
	check_tampered("objective_per_rep", -5, "\"objective_per_rep\" is missing or not "
	               "a number >= 0");
}

static void test_resume_recomputes_a_record_with_a_met_flag_of_7(void **state)
{
	(void)state;
	check_tampered("met_per_rep", 7, "\"met_per_rep\" is missing or not 0 or 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resume_recomputes_records_of_another_seed),
		cmocka_unit_test(test_resume_recomputes_a_record_with_a_negative_cost),
		cmocka_unit_test(test_resume_recomputes_a_record_with_a_met_flag_of_7),
		cmocka_unit_test(test_resume_recomputes_records_of_another_seed_than_the_scenarios),
		cmocka_unit_test(test_resume_recomputes_records_of_another_replication_count),
		cmocka_unit_test(test_resume_recomputes_records_of_another_ci_target),
		cmocka_unit_test(test_resume_recomputes_records_of_other_sets),
		cmocka_unit_test(test_resume_recomputes_records_of_another_version),
		cmocka_unit_test(test_resume_recomputes_records_of_another_generator),
		cmocka_unit_test(test_resume_recomputes_an_old_record_without_inputs),
		cmocka_unit_test(test_resume_recomputes_truncated_records),
		cmocka_unit_test(test_resume_recomputes_a_record_without_label),
		cmocka_unit_test(test_resume_recomputes_a_record_with_a_numeric_label),
		cmocka_unit_test(test_resume_recomputes_a_record_without_replications),
		cmocka_unit_test(test_resume_recomputes_a_record_with_replications_as_a_string),
		cmocka_unit_test(test_resume_recomputes_a_record_with_a_short_objective_array),
		cmocka_unit_test(test_resume_recomputes_a_record_with_string_outcomes),
		cmocka_unit_test(test_resume_recomputes_a_record_without_a_figure),
		cmocka_unit_test(test_resume_recomputes_a_record_without_figures),
		cmocka_unit_test(test_resume_recomputes_a_record_with_a_bad_cdf),
		cmocka_unit_test(test_resume_recomputes_a_record_of_another_point),
		cmocka_unit_test(test_resume_recomputes_a_record_without_a_decision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
