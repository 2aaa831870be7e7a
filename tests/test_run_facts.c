/*
 * test_run_facts.c — a run directory carries its own GPU facts: the
 * self-contained scenario.json (fs_scenario_print_self_contained) writes
 * every GPU used as a complete catalogue entry that loads back bit for bit,
 * a run of DIR/scenario.json gives the same summary.json, the run follows
 * the facts in that file rather than the binary's, and `fleetsim report`
 * states the run's facts (the binary's, said so, for an older directory).
 * The report tests need gnuplot and skip with a message when it is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fleetsim/catalog.h"
#include "fleetsim/scenario.h"
#include "util_scenario.h"
#include "util_test.h"

#define QUICKSTART "scenarios/quickstart.json"

/* A one-layer model that fits on every GPU, and one class. */
#define TINY_MODEL \
	"{\"id\": \"tiny\", \"layers\": 1, \"hidden\": 64, \"heads\": 1, \"kv_heads\": 1," \
	" \"ffn\": 64, \"vocab\": 100, \"params_b\": 0.001, \"max_context\": 4096}"
#define DOC_FMT \
	"{\"name\": \"facts\", \"simulation\": {\"horizon\": \"1m\", \"replications\": 2}," \
	" \"workload\": {\"arrivals\": {\"process\": \"poisson\", \"rate_per_s\": 1}," \
	" \"classes\": [{\"name\": \"c\", \"share\": 1," \
	" \"prompt_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}," \
	" \"output_tokens\": {\"dist\": \"fixed\", \"tokens\": 10}}]}," \
	" \"catalog\": {\"gpus\": [%s], \"models\": [" TINY_MODEL "]}," \
	" \"engine\": {\"type\": \"vllm\", \"model\": \"tiny\", \"gpu\": \"%s\"}}"

static void same_double(double a, double b, const char *what, const char *id)
{
	if (memcmp(&a, &b, sizeof a) != 0)
		fail_msg("%s: %s %.17g written and read back as %.17g", id, what, a, b);
}

static void same_string(const char *a, const char *b, const char *what, const char *id)
{
	if (strcmp(a, b) != 0)
		fail_msg("%s: %s \"%s\" read back as \"%s\"", id, what, a, b);
}

/* Every field of b equals a's, doubles bit for bit. */
static void assert_gpu_same(const struct fs_gpu_spec *a, const struct fs_gpu_spec *b)
{
	const char *id = a->id;

	same_string(a->id, b->id, "id", id);
	same_string(a->aliases, b->aliases, "aliases", id);
	same_string(a->display_name, b->display_name, "display_name", id);
	same_double(a->mem_bytes, b->mem_bytes, "mem_bytes", id);
	same_double(a->mem_bw_bytes_per_s, b->mem_bw_bytes_per_s, "mem_bw_bytes_per_s", id);
	same_double(a->fp16_flops_per_s, b->fp16_flops_per_s, "fp16_flops_per_s", id);
	same_double(a->fp8_flops_per_s, b->fp8_flops_per_s, "fp8_flops_per_s", id);
	same_double(a->int8_ops_per_s, b->int8_ops_per_s, "int8_ops_per_s", id);
	same_double(a->link_bytes_per_s, b->link_bytes_per_s, "link_bytes_per_s", id);
	same_string(a->interconnect, b->interconnect, "interconnect", id);
	same_double(a->tdp_w, b->tdp_w, "tdp_w", id);
	same_double(a->mfu, b->mfu, "mfu", id);
	same_double(a->mbu, b->mbu, "mbu", id);
	same_double(a->mfu_8bit, b->mfu_8bit, "mfu_8bit", id);
	same_double(a->attn_eff, b->attn_eff, "attn_eff", id);
	assert_int_equal(a->iteration_overhead_ns, b->iteration_overhead_ns);
	assert_int_equal(a->per_seq_overhead_ns, b->per_seq_overhead_ns);
	assert_int_equal(a->layer_overhead_ns, b->layer_overhead_ns);
	assert_int_equal(a->allreduce_latency_ns, b->allreduce_latency_ns);
	same_double(a->price_on_demand_usd_per_h, b->price_on_demand_usd_per_h,
	            "price_on_demand_usd_per_h", id);
	same_double(a->price_spot_usd_per_h, b->price_spot_usd_per_h, "price_spot_usd_per_h", id);
	same_double(a->price_monthly_usd, b->price_monthly_usd, "price_monthly_usd", id);
	same_string(a->price_date, b->price_date, "price_date", id);
	same_string(a->price_source, b->price_source, "price_source", id);
	same_string(a->spec_source, b->spec_source, "spec_source", id);
	same_string(a->notes, b->notes, "notes", id);
}

/* Print sc self-contained and load the text back (caller frees both). */
static struct fs_scenario *reload(const struct fs_scenario *sc, char **text)
{
	*text = print_to_string_with(sc, fs_scenario_print_self_contained);
	return fs_test_load_text(*text, "scenario.json", "tests/data");
}

/* Each built-in GPU, used by a scenario, is written complete and reads back
 * as the same entry, bit for bit — and as an entry of the file, not the
 * built-in: the reloaded scenario no longer depends on the catalogue. */
static void test_run_facts_every_builtin_gpu_reads_back_bitwise(void **state)
{
	char doc[4096], *text;
	struct fs_scenario *a, *b;
	const struct fs_gpu_spec *g, *got;
	size_t i;

	(void)state;
	assert_true(fs_catalog_n_gpus() > 10);
	for (i = 0; i < fs_catalog_n_gpus(); i++) {
		g = fs_catalog_gpu_at(i);
		snprintf(doc, sizeof doc, DOC_FMT, "", g->id);
		if (!(g->price_on_demand_usd_per_h > 0)) {
			/* no catalogue price: an engine-only scenario is refused, so a
			 * fleet prices it */
			doc[strlen(doc) - 1] = '\0';
			strcat(doc, ", \"fleet\": {\"pools\": [{\"name\": \"p\", \"count\": 1, "
			       "\"price_per_h\": 1}]}}");
		}
		a = fs_test_load_text(doc, "t.json", "tests/data");
		assert_ptr_equal(a->engine.llm.perf.gpu, g);
		b = reload(a, &text);
		assert_null(strstr(text, "\"base\""));
		assert_int_equal(b->catalog.n_gpus, 1);
		got = b->engine.llm.perf.gpu;
		assert_ptr_equal(got, &b->catalog.gpus[0]);
		assert_gpu_same(g, got);
		/* the built-in's aliases still name it */
		if (*g->aliases != '\0') {
			char alias[128];

			snprintf(alias, sizeof alias, "%.*s", (int)strcspn(g->aliases, ","),
			         g->aliases);
			assert_ptr_equal(fs_scenario_find_gpu(b, alias), got);
		}
		free(text);
		fs_scenario_free(a);
		fs_scenario_free(b);
	}
}

/* A scenario GPU with "base" and overrides (numbers that do not survive
 * a naive x / 1e9 x 1e9) is written without its base and reads back the
 * same; the used built-in beside it (a sweep axis value) is added. */
static void test_run_facts_base_override_reads_back_without_its_base(void **state)
{
	char doc[8192], *text, *text2;
	struct fs_scenario *a, *b, *c;
	const struct fs_gpu_spec *mine;

	(void)state;
	snprintf(doc, sizeof doc, DOC_FMT,
	         "{\"id\": \"my-h100\", \"base\": \"h100\", \"mfu\": 0.61, \"mem_gb\": 80.3,"
	         " \"fp16_tflops\": 1000.7, \"mem_bw_gbps\": 3350.1,"
	         " \"price_on_demand_usd_per_h\": 3.3333333333333335, \"notes\": \"mine\","
	         " \"price_source\": \"a quote\", \"aliases\": \"mine,my-gpu\"}",
	         "MY-GPU");
	/* a sweep over the engine's gpu adds a built-in, named by an alias */
	strcpy(strrchr(doc, '}'), ", \"sweep\": {\"axes\": [{\"path\": \"engine.gpu\","
	       " \"values\": [\"my-h100\", \"A100\"]}]}}");
	a = fs_test_load_text(doc, "t.json", "tests/data");
	mine = &a->catalog.gpus[0];
	assert_ptr_equal(a->engine.llm.perf.gpu, mine);
	same_string("a quote", mine->price_source, "price_source", "my-h100");
	same_string(fs_catalog_find_gpu("h100")->spec_source, mine->spec_source,
	            "spec_source", "my-h100");
	b = reload(a, &text);
	assert_null(strstr(text, "\"base\""));
	assert_int_equal(b->catalog.n_gpus, 2);
	assert_gpu_same(mine, &b->catalog.gpus[0]);
	assert_ptr_equal(b->engine.llm.perf.gpu, &b->catalog.gpus[0]);
	assert_gpu_same(fs_catalog_find_gpu("a100"), &b->catalog.gpus[1]);
	assert_ptr_equal(fs_scenario_find_gpu(b, "A100"), &b->catalog.gpus[1]);
	/* a fixed point: the reloaded scenario prints the same bytes */
	c = reload(b, &text2);
	assert_string_equal(text, text2);
	free(text);
	free(text2);
	fs_scenario_free(a);
	fs_scenario_free(b);
	fs_scenario_free(c);
}

/* A scenario in another currency prices every pool itself: its record
 * writes the GPU's specs and sources but not the catalogue's USD prices,
 * and the reloaded pools keep their own prices. */
static void test_run_facts_other_currency_records_no_usd_prices(void **state)
{
	char *doc = fs_test_read_file("tests/data/currency_cny.json", NULL);
	struct fs_scenario *a, *b;
	const struct fs_gpu_spec *l40s = fs_catalog_find_gpu("l40s"), *got;
	char *text;
	size_t i;

	(void)state;
	assert_non_null(doc);
	a = fs_test_load_text(doc, "cny.json", "tests/data");
	b = reload(a, &text);
	assert_non_null(strstr(text, "\"spec_source\""));
	assert_null(strstr(text, "usd"));
	assert_null(strstr(text, "USD"));
	got = b->engine.llm.perf.gpu;
	assert_ptr_equal(got, &b->catalog.gpus[0]);
	same_double(l40s->mem_bytes, got->mem_bytes, "mem_bytes", "l40s");
	same_double(l40s->mfu, got->mfu, "mfu", "l40s");
	same_string(l40s->spec_source, got->spec_source, "spec_source", "l40s");
	assert_true(got->price_on_demand_usd_per_h == 0);
	assert_int_equal(a->fleet.n_pools, b->fleet.n_pools);
	for (i = 0; i < a->fleet.n_pools; i++)
		same_double(a->fleet.pools[i].price_usd_per_h, b->fleet.pools[i].price_usd_per_h,
		            "pool price", a->fleet.pools[i].name);
	free(doc);
	free(text);
	fs_scenario_free(a);
	fs_scenario_free(b);
}

/* summary.json without its provenance.scenario_sha256 line (the hash of
 * the input file's bytes, which differ by construction). */
static char *summary_without_sha(const char *dir)
{
	char *text = fs_test_read_out(dir, "summary.json"), *p, *end;

	p = strstr(text, "\"scenario_sha256\"");
	assert_non_null(p);
	end = strchr(p, '\n');
	assert_non_null(end);
	memmove(p, end + 1, strlen(end + 1) + 1);
	return text;
}

/* Run `scenario` (with the sets, NULL-terminated, may be empty, then the
 * options opts, NULL-terminated, may be empty) into base/a, then
 * base/a/scenario.json into base/b and base/b/scenario.json into base/c,
 * without options: the three record the same scenario, b and c give the
 * same summary.json byte for byte and a the same apart from the input's
 * hash. */
static void rerun_matches(const char *base, const char *scenario, const char *const *sets,
                          const char *const *opts)
{
	char a[512], b[512], c[512], in_b[600], in_c[600], *sa, *sb;
	const char *args[16] = { "run", scenario, "-q", "-o", a };
	const char *run_b[] = { "run", in_b, "-q", "-o", b, NULL };
	const char *run_c[] = { "run", in_c, "-q", "-o", c, NULL };
	const char *const files[] = { "scenario.json", "summary.json", NULL };
	const char *const scen[] = { "scenario.json", NULL };
	size_t n = 5;

	snprintf(a, sizeof a, "%s/a", base);
	snprintf(b, sizeof b, "%s/b", base);
	snprintf(c, sizeof c, "%s/c", base);
	for (; *sets != NULL && n < 14; sets++) {
		args[n++] = "--set";
		args[n++] = *sets;
	}
	for (; *opts != NULL && n < 15; opts++)
		args[n++] = *opts;
	args[n] = NULL;
	snprintf(in_b, sizeof in_b, "%s/scenario.json", a);
	snprintf(in_c, sizeof in_c, "%s/scenario.json", b);
	fs_test_fleetsim_ok(args);
	fs_test_fleetsim_ok(run_b);
	fs_test_fleetsim_ok(run_c);
	fs_test_assert_same_files(a, b, scen);
	fs_test_assert_same_files(b, c, files);
	sa = summary_without_sha(a);
	sb = summary_without_sha(b);
	assert_true(strlen(sa) > 2000);      /* a whole summary */
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
}

/* A shipped scenario, and the same with its GPU replaced by a scenario
 * entry with "base": running DIR/scenario.json reproduces summary.json. */
static void test_run_facts_rerun_of_scenario_json_gives_the_same_summary(void **state)
{
	char *dir = fs_test_tmpdir(), base[512];
	const char *none[] = { NULL };
	const char *override[] = {
		"catalog={\"gpus\": [{\"id\": \"my-l40s\", \"base\": \"l40s\", \"mfu\": 0.6,"
		" \"mem_gb\": 47.3, \"price_on_demand_usd_per_h\": 1.1}]}",
		"engine.gpu=\"my-l40s\"", "simulation.replications=4", NULL
	};

	(void)state;
	snprintf(base, sizeof base, "%s/shipped", dir);
	rerun_matches(base, QUICKSTART, none, none);
	snprintf(base, sizeof base, "%s/override", dir);
	rerun_matches(base, QUICKSTART, override, none);
	fs_test_tmpdir_free(dir);
}

/* -r and --seed are part of the scenario as run: DIR/scenario.json holds
 * them, so running it again gives the same summary (and the report's
 * headroom search, which loads it, runs on the run's seed). */
static void test_run_facts_rerun_of_scenario_json_keeps_seed_and_replications(void **state)
{
	char *dir = fs_test_tmpdir(), *sc;
	const char *short_run[] = { "simulation.horizon=\"10m\"", "simulation.warmup=\"1m\"",
	                            NULL };
	const char *opts[] = { "-r", "3", "--seed", "777", NULL };

	(void)state;
	rerun_matches(dir, QUICKSTART, short_run, opts);
	sc = fs_test_read_at(dir, "a/scenario.json");
	assert_has(sc, "\"seed\":\t777,", "\"replications\":\t3,");
	free(sc);
	fs_test_tmpdir_free(dir);
}

/* The catalog.gpus entry of a run's scenario.json with id `id`. */
static cJSON *entry_of(cJSON *sc, const char *id)
{
	cJSON *g;

	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(
	                   cJSON_GetObjectItemCaseSensitive(sc, "catalog"), "gpus"))
		if (strcmp(cJSON_GetObjectItemCaseSensitive(g, "id")->valuestring, id) == 0)
			return g;
	fail_msg("scenario.json has no catalog.gpus entry \"%s\"", id);
	return NULL;
}

static void set_member(cJSON *o, const char *key, cJSON *v)
{
	assert_true(cJSON_ReplaceItemInObjectCaseSensitive(o, key, v));
}

static void write_json(const char *dir, const char *file, const cJSON *root)
{
	char *text = cJSON_Print(root);
	char *path = fs_test_write(dir, file, text);

	free(path);
	free(text);
}

/* The run follows its scenario.json: quickstart's 2 x L40S on demand for
 * the 1-hour horizon cost 2 x 1.40 = 2.80 USD; with the l40s entry's
 * on-demand price edited to 2.50 the rerun costs 2 x 2.50 x 1 h = 5.00. */
static void test_run_facts_the_run_follows_its_scenario_json(void **state)
{
	char *dir = fs_test_tmpdir(), a[512], b[512], in[600];
	const char *run_a[] = { "run", QUICKSTART, "-q", "-o", a, NULL };
	const char *run_b[] = { "run", in, "-q", "-o", b, NULL };
	cJSON *sc, *sa, *sb;

	(void)state;
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	snprintf(in, sizeof in, "%s/edited.json", dir);
	sa = fs_test_fleetsim_output(run_a, a, "summary.json");
	assert_near(fs_test_json_num(sa, "cost.total.value"), 2 * 1.40 * 1.0, 1e-12, 0);
	sc = fs_test_read_json(a, "scenario.json");
	set_member(entry_of(sc, "l40s"), "price_on_demand_usd_per_h", cJSON_CreateNumber(2.5));
	write_json(dir, "edited.json", sc);
	sb = fs_test_fleetsim_output(run_b, b, "summary.json");
	assert_near(fs_test_json_num(sb, "cost.total.value"), 2 * 2.50 * 1.0, 1e-12, 0);
	/* the latencies do not depend on the price */
	assert_near(fs_test_json_num(sb, "metrics.all.ttft_ms.p99.value"),
	            fs_test_json_num(sa, "metrics.all.ttft_ms.p99.value"), 0, 0);
	cJSON_Delete(sc);
	cJSON_Delete(sa);
	cJSON_Delete(sb);
	fs_test_tmpdir_free(dir);
}

static void need_gnuplot(void)
{
	fs_test_need_report();
	if (!fs_test_have_cmd("gnuplot")) {
		fprintf(stderr, "gnuplot not in PATH (package gnuplot-nox): skipping\n");
		skip();
	}
}

/* The report states the GPU facts of the run's scenario.json (here edited
 * to differ from the catalogue), and for a directory whose scenario.json
 * predates them, the binary's catalogue, saying so. */
static void test_run_facts_report_states_the_runs_gpu_facts(void **state)
{
	char *dir = fs_test_tmpdir(), a[512], *md;
	const char *run_a[] = { "run", QUICKSTART, "-q", "-o", a, "--set",
	                        "simulation.replications=4", NULL };
	const char *report[] = { "report", a, "-q", NULL };
	cJSON *sc, *g;

	(void)state;
	need_gnuplot();
	snprintf(a, sizeof a, "%s/a", dir);
	fs_test_fleetsim_ok(run_a);
	sc = fs_test_read_json(a, "scenario.json");
	g = entry_of(sc, "l40s");
	set_member(g, "price_on_demand_usd_per_h", cJSON_CreateNumber(9.25));
	set_member(g, "price_date", cJSON_CreateString("1999-12"));
	set_member(g, "price_source", cJSON_CreateString("a quote seen by the run"));
	set_member(g, "notes", cJSON_CreateString("a note of the run"));
	write_json(a, "scenario.json", sc);
	fs_test_fleetsim_ok(report);
	md = fs_test_read_out(a, "report.md");
	assert_has(md, "on-demand USD 9.25/h");
	assert_has(md, "as of 1999-12; prices: a quote seen by the run;");
	assert_has(md, "Notes: a note of the run");
	assert_null(strstr(md, "USD 1.40/h"));
	assert_null(strstr(md, "was written before"));
	/* its notes no longer say "uncalibrated": not flagged */
	assert_null(strstr(md, "l40s: the catalogue says"));
	free(md);

	/* an older directory: no catalogue in scenario.json */
	cJSON_DeleteItemFromObjectCaseSensitive(sc, "catalog");
	write_json(a, "scenario.json", sc);
	fs_test_fleetsim_ok(report);
	md = fs_test_read_out(a, "report.md");
	assert_has(md, "This run directory was written before runs recorded their GPUs' "
	           "facts in scenario.json");
	assert_has(md, "NVIDIA L40S (l40s): on-demand USD 1.40/h");
	assert_has(md, "l40s: the catalogue says its efficiencies are uncalibrated");
	free(md);
	cJSON_Delete(sc);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_facts_every_builtin_gpu_reads_back_bitwise),
		cmocka_unit_test(test_run_facts_base_override_reads_back_without_its_base),
		cmocka_unit_test(test_run_facts_other_currency_records_no_usd_prices),
		cmocka_unit_test(test_run_facts_rerun_of_scenario_json_gives_the_same_summary),
		cmocka_unit_test(test_run_facts_rerun_of_scenario_json_keeps_seed_and_replications),
		cmocka_unit_test(test_run_facts_the_run_follows_its_scenario_json),
		cmocka_unit_test(test_run_facts_report_states_the_runs_gpu_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
