/*
 * test_schema.c — the packaging surface of the binary: `fleetsim schema`
 * (docs/scenario.schema.json is its output; its enums are the loader's
 * tables; the schema and the loader agree on every shipped scenario, its
 * resolved form and broken copies, checked with python3-jsonschema, skipped
 * with a message when absent), `--version` against the VERSION file,
 * `help COMMAND` and the bash completion script.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util_test.h"
#include "../src/cli.h"
#include "../src/json_pos.h"
#include "../src/scenario_schema.h"

static cJSON *schema_of_binary(void)
{
	const char *args[] = { "schema", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	cJSON *s;

	assert_int_equal(r.exit_code, 0);
	s = cJSON_Parse(r.out);
	assert_non_null(s);
	fs_test_run_free(&r);
	return s;
}

static void test_schema_docs_file_is_the_output(void **state)
{
	const char *args[] = { "schema", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	char *doc = fs_test_read_file("docs/scenario.schema.json", NULL);

	(void)state;
	assert_int_equal(r.exit_code, 0);
	assert_non_null(doc);
	if (strcmp(doc, r.out) != 0)
		fail_msg("docs/scenario.schema.json differs from `fleetsim schema`: run "
		         "`make schema` and commit it");
	free(doc);
	fs_test_run_free(&r);
}

static void assert_enum_is(const cJSON *node, const char *const *names)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(node, "enum"), *e;
	size_t i = 0;

	assert_non_null(list);
	cJSON_ArrayForEach(e, list) {
		assert_non_null(names[i]);
		assert_string_equal(e->valuestring, names[i]);
		i++;
	}
	assert_null(names[i]);
}

static const char *const *find_table(const struct fs__sc_table *t, const char *name)
{
	for (; t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t->list;
	fail_msg("no table %s", name);
	return NULL;
}

/* The enums and key lists in the output are the loader's own tables. */
static void test_schema_enums_are_the_loader_tables(void **state)
{
	cJSON *s = schema_of_binary();
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties"), *fleet, *k;
	const cJSON *engine, *all;
	const char *const *keys;
	const char *const *root_keys = find_table(fs__sc_root_tables(), "ROOT_KEYS");
	size_t i = 0, n_types = 0;

	(void)state;
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(s, "$schema")->valuestring,
	                    "https://json-schema.org/draft/2020-12/schema");
	cJSON_ArrayForEach(k, props)
		assert_string_equal(k->string, root_keys[i++]);
	assert_null(root_keys[i]);
	fleet = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(props, "fleet"), "properties");
	assert_enum_is(cJSON_GetObjectItemCaseSensitive(fleet, "router"),
	               find_table(fs__sc_fleet_tables(), "ROUTER_NAMES"));
	assert_enum_is(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(fleet, "pools"), "items"),
			"properties"), "pricing"),
	               find_table(fs__sc_pool_tables(), "PRICING_NAMES"));
	engine = cJSON_GetObjectItemCaseSensitive(props, "engine");
	all = cJSON_GetObjectItemCaseSensitive(engine, "allOf");
	while (fs__sc_engine_type(n_types, &keys) != NULL)
		n_types++;
	assert_int_equal(n_types, 2);
	assert_int_equal(cJSON_GetArraySize(all), (int)n_types);
	cJSON_Delete(s);
}

/* `text` with its comments blanked out by the loader's own stripper,
 * written to dir/name; the path (heap). */
static char *write_stripped(const char *dir, const char *name, char *text)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	size_t bad;

	assert_non_null(path);
	sprintf(path, "%s/%s", dir, name);
	assert_int_equal(fs__jpos_strip_comments(text, strlen(text), &bad), 0);
	fs_test_write_file(path, text);
	return path;
}

static const char VALIDATOR[] =
	"import json, sys, jsonschema\n"
	"schema = json.load(open(sys.argv[1]))\n"
	"jsonschema.Draft202012Validator.check_schema(schema)\n"
	"v = jsonschema.Draft202012Validator(schema)\n"
	"for p in sys.argv[2:]:\n"
	"    errs = list(v.iter_errors(json.load(open(p))))\n"
	"    print(p, 'valid' if not errs else 'invalid: %s at %s' % (errs[0].message,\n"
	"          list(errs[0].absolute_path)))\n";

struct sample {
	char *path;                  /* stripped copy */
	int loads;                   /* 1: `fleetsim validate` accepts the original */
};

/* Replace the first `from` in text by `to` (heap result). */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	assert_non_null(at);
	out = malloc(strlen(text) + strlen(to) + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	return out;
}

static int validate_file(const char *path, char **resolved)
{
	const char *args[] = { "validate", path, NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	int ok = r.exit_code == 0;

	assert_true(r.exit_code == 0 || r.exit_code == 2);
	*resolved = ok ? strdup(r.out) : NULL;
	fs_test_run_free(&r);
	return ok;
}

/* Every shipped scenario (the .json files of scenarios/ and bench/) and its resolved
 * form validate against the schema, every file the loader refuses (the
 * budget and checkpoint plans among them) fails it, and so do copies of
 * quickstart.json with an unknown nested key and an unknown enum name. */
static void test_schema_agrees_with_loader_on_shipped_files(void **state)
{
	static const char *const dirs[] = { "scenarios", "bench" };
	const char *py_check[] = { "python3", "-c", "import jsonschema", NULL };
	struct fs_test_run r = fs_test_run_cmd(py_check);
	struct sample samples[128];
	size_t n = 0, i, n_loaded = 0, n_refused = 0;
	char *dir, *schema_path, name[512], file[600], *text, *resolved;
	const char **argv;
	struct dirent *de;
	DIR *d;

	(void)state;
	if (r.exit_code != 0) {
		fs_test_run_free(&r);
		fprintf(stderr, "python3 with the jsonschema module not found (Debian: "
		        "python3-jsonschema): skipping\n");
		skip();
	}
	fs_test_run_free(&r);
	dir = fs_test_tmpdir();
	{
		const char *args[] = { "schema", NULL };
		struct fs_test_run s = fs_test_run_fleetsim(args);

		assert_int_equal(s.exit_code, 0);
		schema_path = write_stripped(dir, "schema.json", s.out);
		fs_test_run_free(&s);
	}
	for (i = 0; i < 2; i++) {
		if ((d = opendir(dirs[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);

			if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
				continue;
			assert_true(n + 2 < sizeof samples / sizeof samples[0]);
			snprintf(file, sizeof file, "%s/%s", dirs[i], de->d_name);
			text = fs_test_read_file(file, NULL);
			assert_non_null(text);
			/* a scenario reading the shared traces loads only beside them */
			if (strstr(text, "../shared/") != NULL && access("../shared", F_OK) != 0) {
				free(text);
				continue;
			}
			snprintf(name, sizeof name, "%s_%s", dirs[i], de->d_name);
			samples[n].loads = validate_file(file, &resolved);
			samples[n++].path = write_stripped(dir, name, text);
			free(text);
			if (resolved != NULL) {
				snprintf(name, sizeof name, "resolved_%s_%s", dirs[i], de->d_name);
				samples[n].loads = 1;
				samples[n++].path = write_stripped(dir, name, resolved);
				free(resolved);
				n_loaded++;
			} else {
				n_refused++;
			}
		}
		closedir(d);
	}
	/* Broken copies: refused by the loader, so by the schema too. */
	text = fs_test_read_file("scenarios/quickstart.json", NULL);
	assert_non_null(text);
	{
		static const char *const breaks[][3] = {
			{ "\"tp\": 1,", "\"tp\": 1, \"tensor_parallel\": 2,", "bad_key.json" },
			{ "\"process\": \"poisson\"", "\"process\": \"poison\"", "bad_enum.json" },
			{ "\"quantile\": \"p99\"", "\"quantile\": \"p98\"", "bad_quantile.json" },
		};

		for (i = 0; i < 3; i++) {
			char *bad = replace(text, breaks[i][0], breaks[i][1]);

			snprintf(file, sizeof file, "%s/orig_%s", dir, breaks[i][2]);
			{
				FILE *f = fopen(file, "w");

				assert_non_null(f);
				fputs(bad, f);
				fclose(f);
			}
			samples[n].loads = validate_file(file, &resolved);
			assert_int_equal(samples[n].loads, 0);
			samples[n++].path = write_stripped(dir, breaks[i][2], bad);
			free(bad);
		}
	}
	free(text);
	assert_true(n_loaded >= 10);    /* the scenarios shipped today: 12 */
	assert_true(n_refused >= 1);    /* the budget and checkpoint plans */

	argv = calloc(n + 5, sizeof *argv);
	assert_non_null(argv);
	argv[0] = "python3";
	argv[1] = "-c";
	argv[2] = VALIDATOR;
	argv[3] = schema_path;
	for (i = 0; i < n; i++)
		argv[4 + i] = samples[i].path;
	r = fs_test_run_cmd(argv);
	if (r.exit_code != 0)
		fail_msg("validator failed: %s", r.err);
	for (i = 0; i < n; i++) {
		const char *line = strstr(r.out, samples[i].path);
		const char *verdict;

		assert_non_null(line);
		verdict = line + strlen(samples[i].path) + 1;
		if ((strncmp(verdict, "valid", 5) == 0) != samples[i].loads)
			fail_msg("%s: the loader %s it, the schema says %.200s",
			         samples[i].path, samples[i].loads ? "accepts" : "refuses",
			         verdict);
		free(samples[i].path);
	}
	fs_test_run_free(&r);
	free(argv);
	free(schema_path);
	fs_test_tmpdir_free(dir);
}

/* The version is the VERSION file's, and common.h's fallback equals it. */
static void test_version_is_the_version_file(void **state)
{
	const char *args[] = { "--version", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	char *file = fs_test_read_file("VERSION", NULL);
	char *header = fs_test_read_file("include/fleetsim/common.h", NULL);
	char want[128], *nl;

	(void)state;
	assert_non_null(file);
	assert_non_null(header);
	nl = strchr(file, '\n');
	if (nl != NULL)
		*nl = '\0';
	assert_true(strlen(file) > 0 && strlen(file) < 64);
	snprintf(want, sizeof want, "fleetsim %s\n", file);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.out, want);
	snprintf(want, sizeof want, "#define FS_VERSION \"%s\"", file);
	if (strstr(header, want) == NULL)
		fail_msg("include/fleetsim/common.h: expected the fallback %s", want);
	free(file);
	free(header);
	fs_test_run_free(&r);
}

/* `fleetsim help COMMAND` prints what `fleetsim COMMAND --help` prints,
 * for every command of the table; an unknown one exits 2. */
static void test_help_command_is_command_help(void **state)
{
	const struct fs__cli_cmd *c;
	const char *bad[] = { "help", "nosuch", NULL };
	struct fs_test_run r;
	int n = 0;

	(void)state;
	for (c = fs__cli_commands(); c->name != NULL; c++, n++) {
		const char *a[] = { "help", c->name, NULL };
		const char *b[] = { c->name, "--help", NULL };
		struct fs_test_run ra = fs_test_run_fleetsim(a), rb = fs_test_run_fleetsim(b);

		assert_int_equal(ra.exit_code, 0);
		assert_int_equal(rb.exit_code, 0);
		assert_true(strncmp(ra.out, "usage: fleetsim ", 16) == 0);
		assert_string_equal(ra.out, rb.out);
		fs_test_run_free(&ra);
		fs_test_run_free(&rb);
	}
	assert_true(n >= 11);
	r = fs_test_run_fleetsim(bad);
	assert_int_equal(r.exit_code, 2);
	assert_non_null(strstr(r.err, "unknown command \"nosuch\""));
	fs_test_run_free(&r);
}

/* What bash completes for the words `line` (the last one being completed)
 * with the script printed by `fleetsim completion bash` in `script`. */
static char *complete(const char *script, const char *line)
{
	char cmd[1024];
	const char *argv[] = { "bash", "-c", cmd, NULL };
	struct fs_test_run r;
	char *out;

	snprintf(cmd, sizeof cmd, "source '%s'; COMP_WORDS=(%s); "
	         "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _fleetsim; "
	         "echo \"${COMPREPLY[*]}\"", script, line);
	r = fs_test_run_cmd(argv);
	assert_int_equal(r.exit_code, 0);
	out = strdup(r.out);
	fs_test_run_free(&r);
	return out;
}

static void test_completion_bash_completes_commands_and_options(void **state)
{
	const char *args[] = { "completion", "bash", NULL };
	const char *zsh[] = { "completion", "zsh", NULL };
	static const struct { const char *line, *want; } cases[] = {
		{ "fleetsim sch", "schema\n" },
		{ "fleetsim run --req", "--requests-csv\n" },
		{ "fleetsim sweep --res", "--resume\n" },
		/* checkpoint's long forms, accepted like run's, are offered too */
		{ "fleetsim checkpoint --ou", "--output\n" },
		{ "fleetsim checkpoint --rep", "--replications\n" },
		{ "fleetsim checkpoint --thr", "--threads\n" },
		{ "fleetsim estimate --lora-r", "--lora-rank\n" },
		{ "fleetsim catalog mo", "models\n" },
		{ "fleetsim help bud", "budget\n" },
		{ "fleetsim run scenarios/quicks", "scenarios/quickstart.json\n" },
	};
	struct fs_test_run r;
	char *dir, *script, *got;

	(void)state;
	if (!fs_test_have_cmd("bash")) {
		fprintf(stderr, "bash not found: skipping\n");
		skip();
	}
	r = fs_test_run_fleetsim(args);
	assert_int_equal(r.exit_code, 0);
	dir = fs_test_tmpdir();
	script = malloc(strlen(dir) + 16);
	assert_non_null(script);
	sprintf(script, "%s/fleetsim.bash", dir);
	fs_test_write_file(script, r.out);
	fs_test_run_free(&r);

	/* estimate --train's options come from its own help text; a scenario
	 * argument completes *.json files and directories. */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = complete(script, cases[i].line);
		assert_string_equal(got, cases[i].want);
		free(got);
	}

	r = fs_test_run_fleetsim(zsh);
	assert_int_equal(r.exit_code, 2);
	fs_test_run_free(&r);
	free(script);
	fs_test_tmpdir_free(dir);
}

/* docs/fleetsim.1 has a section for every command and names every option
 * the completion offers (read from the commands' help texts), and its
 * header carries the version. */
static void test_man_page_covers_every_command_and_option(void **state)
{
	const char *args[] = { "completion", "bash", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	char *man = fs_test_read_file("docs/fleetsim.1", NULL);
	char *version = fs_test_read_file("VERSION", NULL);
	const struct fs__cli_cmd *c;
	char want[256], *p, *nl;
	int n_options = 0;

	(void)state;
	assert_int_equal(r.exit_code, 0);
	assert_non_null(man);
	assert_non_null(version);
	nl = strchr(version, '\n');
	if (nl != NULL)
		*nl = '\0';
	snprintf(want, sizeof want, "\"fleetsim %s\"", version);
	if (strstr(man, want) == NULL)
		fail_msg("docs/fleetsim.1: .TH does not say %s", want);
	for (c = fs__cli_commands(); c->name != NULL; c++) {
		snprintf(want, sizeof want, "\n.SS \"%s", c->name);
		if (strstr(man, want) == NULL)
			fail_msg("docs/fleetsim.1: no section for %s", c->name);
	}
	for (p = strstr(r.out, "opts=\""); p != NULL; p = strstr(p, "opts=\"")) {
		char *end = strchr(p += 6, '"'), *w = p;

		assert_non_null(end);
		while (w < end) {
			size_t len = strcspn(w, " \""), i, k = 0;

			for (i = 0; i < len && k + 3 < sizeof want; i++) {
				if (w[i] == '-')
					want[k++] = '\\';
				want[k++] = w[i];
			}
			want[k] = '\0';
			if (strcmp(want, "\\-h") != 0 && strcmp(want, "\\-\\-help") != 0 &&
			    strstr(man, want) == NULL)
				fail_msg("docs/fleetsim.1 does not name the option %.*s",
				         (int)len, w);
			n_options++;
			w += len;
			w += strspn(w, " ");
		}
	}
	assert_true(n_options > 60);
	free(man);
	free(version);
	fs_test_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_docs_file_is_the_output),
		cmocka_unit_test(test_schema_enums_are_the_loader_tables),
		cmocka_unit_test(test_schema_agrees_with_loader_on_shipped_files),
		cmocka_unit_test(test_version_is_the_version_file),
		cmocka_unit_test(test_help_command_is_command_help),
		cmocka_unit_test(test_completion_bash_completes_commands_and_options),
		cmocka_unit_test(test_man_page_covers_every_command_and_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
