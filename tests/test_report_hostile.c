/*
 * test_report_hostile.c — names hostile to every output format, end to end:
 * tests/data/hostile.json puts `"`, `'`, a backquote, `$(touch x)`,
 * `system("touch x")` and `<script>alert(1)</script>` into the scenario
 * name, the description and the class, pool and zone names.  `fleetsim run
 * --requests-csv` must keep them exact in summary.json and RFC 4180-quoted
 * in requests.csv; `fleetsim report` must write its plots, carry them
 * HTML-escaped in report.html (never a raw script tag, there or in an SVG
 * plot) and recognisably in report.md, and run none of them.
 *
 * "Runs none of them": every fleetsim call runs with a shim directory first
 * in $PATH whose `touch` logs its working directory and arguments (then
 * runs the real touch), so a shell or gnuplot that executed `touch x`
 * anywhere is caught; besides, no file `x` may appear in the repository
 * root, its plots/, the run directory, its plots/, /tmp or $HOME.
 * The report half skips, passing, until `fleetsim report --help` works.
 * Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "util_test.h"

#define SCENARIO "tests/data/hostile.json"

/* The strings of tests/data/hostile.json, as the loader returns them. */
static const char SC_NAME[] =
	"hostile \"dq\" 'sq' `bq` $(touch x) system(\"touch x\") <script>alert(1)</script>";
static const char SC_DESC[] =
	"desc \"dq\" 'sq' `bq` $(touch x) system(\"touch x\") <script>alert(1)</script> & done";
static const char *const CLASS_NAMES[] = {
	"chat \"dq\" 'sq' `bq`, $(touch x)",
	"code system(\"touch x\") <script>alert(1)</script>",
	NULL
};
/* The same class names as RFC 4180 fields (quoted, quotes doubled). */
static const char *const CLASS_CSV[] = {
	"\"chat \"\"dq\"\" 'sq' `bq`, $(touch x)\"",
	"\"code system(\"\"touch x\"\") <script>alert(1)</script>\"",
	NULL
};
static const char *const OTHER_NAMES[] = {     /* pools and the zone */
	"pool \"dq\" 'sq' `bq` $(touch x)",
	"pool system(\"touch x\") <script>alert(1)</script>",
	"zone `bq` $(touch x) <script>alert(1)</script>",
	NULL
};
#define RAW_SCRIPT "<script>alert(1)</script>"

/* ---- no `touch x` anywhere ---------------------------------------------- */

/* What a path looked like: absent, or present with this inode and mtime
 * (a pre-existing directory x still shows a touch through its mtime). */
struct x_probe {
	char *path;
	int exists;
	struct stat st;
};

#define MAX_PROBES 8

struct watch {
	char *shim_dir;                  /* holds the logging `touch` */
	char *log_path;                  /* shim_dir/touch.log */
	char *old_path;                  /* $PATH before, restored by unwatch */
	struct x_probe probes[MAX_PROBES];
	size_t n_probes;
};

static void probe_take(struct x_probe *p)
{
	p->exists = lstat(p->path, &p->st) == 0;
}

static void watch_add(struct watch *w, const char *dir)
{
	assert_true(w->n_probes < MAX_PROBES);
	w->probes[w->n_probes].path = fs_test_path(dir, "x");
	probe_take(&w->probes[w->n_probes]);
	w->n_probes++;
}

/* Put the logging `touch` first in $PATH and record every x probe: the
 * repository root and its plots/, RUN_DIR and RUN_DIR/plots, /tmp, $HOME. */
static void watch_start(struct watch *w, const char *run_dir)
{
	const char *path = getenv("PATH"), *home = getenv("HOME");
	char *shim, *run_plots, *new_path;
	FILE *f;
	size_t n;

	memset(w, 0, sizeof *w);
	w->shim_dir = fs_test_tmpdir();
	w->log_path = fs_test_path(w->shim_dir, "touch.log");
	shim = fs_test_path(w->shim_dir, "touch");
	f = fopen(shim, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n"
	           "printf 'touch %%s (in %%s)\\n' \"$*\" \"$PWD\" >> '%s'\n"
	           "exec /usr/bin/env PATH=/usr/bin:/bin touch \"$@\"\n", w->log_path);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(shim, 0755), 0);
	free(shim);

	w->old_path = strdup(path != NULL ? path : "/usr/bin:/bin");
	n = strlen(w->shim_dir) + strlen(w->old_path) + 2;
	new_path = malloc(n);
	assert_non_null(new_path);
	snprintf(new_path, n, "%s:%s", w->shim_dir, w->old_path);
	setenv("PATH", new_path, 1);
	free(new_path);

	watch_add(w, ".");
	watch_add(w, "plots");
	watch_add(w, run_dir);
	run_plots = fs_test_path(run_dir, "plots");
	watch_add(w, run_plots);
	free(run_plots);
	watch_add(w, "/tmp");
	if (home != NULL && home[0] == '/')
		watch_add(w, home);
}

/* Restore $PATH and fail if the shim ran or any probe changed. */
static void watch_check(struct watch *w)
{
	char *log = fs_test_read_file(w->log_path, NULL);
	int changed = 0;
	size_t i;

	setenv("PATH", w->old_path, 1);
	if (log != NULL)
		print_error("a hostile name was executed:\n%s", log);
	for (i = 0; i < w->n_probes; i++) {
		struct x_probe after = { w->probes[i].path, 0, { 0 } };

		probe_take(&after);
		if (after.exists != w->probes[i].exists ||
		    (after.exists &&
		     (after.st.st_ino != w->probes[i].st.st_ino ||
		      after.st.st_mtim.tv_sec != w->probes[i].st.st_mtim.tv_sec ||
		      after.st.st_mtim.tv_nsec != w->probes[i].st.st_mtim.tv_nsec))) {
			print_error("%s was %s by the run\n", after.path,
			            w->probes[i].exists ? "touched" : "created");
			changed = 1;
		}
	}
	assert_null(log);
	assert_int_equal(changed, 0);
	for (i = 0; i < w->n_probes; i++)
		free(w->probes[i].path);
	free(w->old_path);
	free(w->log_path);
	fs_test_tmpdir_free(w->shim_dir);
}

/* ---- escaped-string matching ------------------------------------------- */

/* Length of the encoding of character c at s, or 0.  HTML: `<` and `&` must
 * be character references; `>`, quotes and the backquote may be raw or
 * references.  Markdown (md != 0) also allows a raw `<`/`&` and a
 * backslash escape of any ASCII punctuation. */
static size_t match_char(const char *s, char c, int md)
{
	static const struct { char c; const char *refs[4]; } REFS[] = {
		{ '<',  { "&lt;", "&#60;", "&#x3c;", NULL } },
		{ '>',  { "&gt;", "&#62;", "&#x3e;", NULL } },
		{ '&',  { "&amp;", "&#38;", "&#x26;", NULL } },
		{ '"',  { "&quot;", "&#34;", "&#x22;", NULL } },
		{ '\'', { "&#39;", "&#x27;", "&apos;", NULL } },
		{ '`',  { "&#96;", "&#x60;", "&grave;", NULL } },
	};
	size_t i, j;

	for (i = 0; i < sizeof REFS / sizeof REFS[0]; i++) {
		if (REFS[i].c != c)
			continue;
		for (j = 0; j < 4 && REFS[i].refs[j] != NULL; j++) {
			size_t n = strlen(REFS[i].refs[j]);

			if (strncasecmp(s, REFS[i].refs[j], n) == 0)
				return n;
		}
		if (!md && (c == '<' || c == '&'))
			return 0;
	}
	if (md && s[0] == '\\' && s[1] == c && ispunct((unsigned char)c))
		return 2;
	return s[0] == c ? 1 : 0;
}

/* 1 if hay holds needle in some accepted encoding (see match_char). */
static int contains_escaped(const char *hay, const char *needle, int md)
{
	const char *h, *s;
	const char *n;
	size_t k;

	for (h = hay; *h != '\0'; h++) {
		for (s = h, n = needle; *n != '\0'; n++, s += k) {
			k = match_char(s, *n, md);
			if (k == 0)
				break;
		}
		if (*n == '\0')
			return 1;
	}
	return 0;
}

static int contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay != '\0'; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

/* ---- CSV --------------------------------------------------------------- */

/* Parse one RFC 4180 record starting at *p into fields (heap strings, at
 * most max); advances *p past the line end.  Returns the field count, or -1
 * on a malformed quoted field. */
static int csv_record(const char **p, char **fields, int max)
{
	const char *s = *p;
	int n = 0;

	for (;;) {
		size_t cap = strlen(s) + 1, len = 0;
		char *f = malloc(cap);

		assert_non_null(f);
		if (*s == '"') {
			for (s++; ; s++) {
				if (*s == '\0') {
					free(f);
					return -1;
				}
				if (*s == '"' && s[1] == '"')
					f[len++] = *s++;
				else if (*s == '"')
					break;
				else
					f[len++] = *s;
			}
			s++;
		} else {
			while (*s != ',' && *s != '\n' && *s != '\r' && *s != '\0')
				f[len++] = *s++;
		}
		f[len] = '\0';
		if (n < max)
			fields[n] = f;
		else
			free(f);
		n++;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\r')
			s++;
		if (*s == '\n')
			s++;
		else if (*s != '\0') {
			*p = s;
			return -1;
		}
		break;
	}
	*p = s;
	return n;
}

static void free_fields(char **fields, int n, int max)
{
	int i;

	for (i = 0; i < n && i < max; i++)
		free(fields[i]);
}

/* ---- the tests ----------------------------------------------------------- */

/* `fleetsim run SCENARIO -o DIR --requests-csv -q` under the watch. */
static void run_hostile(const char *dir)
{
	const char *args[] = { "run", SCENARIO, "-o", dir, "--requests-csv", "-q", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);

	if (r.exit_code != 0)
		print_error("fleetsim run %s: exit %d\n%s\n", SCENARIO, r.exit_code, r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
}

static void test_report_hostile_names_survive_run_outputs(void **state)
{
	char *dir = fs_test_tmpdir();
	char *summary_path = fs_test_path(dir, "summary.json");
	char *csv_path = fs_test_path(dir, "requests.csv");
	char *summary, *csv;
	const char *p;
	char *fields[16];
	int n_header, n, class_col = -1, i, rows = 0;
	int seen[2] = { 0, 0 };
	struct watch w;
	cJSON *root, *scenario;

	(void)state;
	watch_start(&w, dir);
	run_hostile(dir);
	watch_check(&w);

	/* summary.json: valid JSON, the name exact after a round trip. */
	summary = fs_test_read_file(summary_path, NULL);
	assert_non_null(summary);
	root = cJSON_Parse(summary);
	assert_non_null(root);
	scenario = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(root, "provenance"), "scenario");
	assert_true(cJSON_IsString(scenario));
	assert_string_equal(scenario->valuestring, SC_NAME);
	cJSON_Delete(root);

	/* requests.csv: the exact quoted fields, and every record parses to the
	 * header's width with a class that is one of the two names. */
	csv = fs_test_read_file(csv_path, NULL);
	assert_non_null(csv);
	for (i = 0; CLASS_CSV[i] != NULL; i++)
		if (strstr(csv, CLASS_CSV[i]) == NULL) {
			print_error("requests.csv lacks the field %s\n", CLASS_CSV[i]);
			fail();
		}
	p = csv;
	n_header = csv_record(&p, fields, 16);
	assert_true(n_header > 1 && n_header <= 16);
	for (i = 0; i < n_header; i++)
		if (strcmp(fields[i], "class") == 0)
			class_col = i;
	free_fields(fields, n_header, 16);
	assert_true(class_col >= 0);
	while (*p != '\0') {
		n = csv_record(&p, fields, 16);
		if (n != n_header)
			print_error("requests.csv record %d: %d fields, header has %d\n",
			            rows + 1, n, n_header);
		assert_int_equal(n, n_header);
		if (strcmp(fields[class_col], CLASS_NAMES[0]) == 0)
			seen[0] = 1;
		else if (strcmp(fields[class_col], CLASS_NAMES[1]) == 0)
			seen[1] = 1;
		else {
			print_error("requests.csv record %d: unknown class [%s]\n", rows + 1,
			            fields[class_col]);
			fail();
		}
		free_fields(fields, n, 16);
		rows++;
	}
	assert_true(rows > 100);
	assert_true(seen[0] && seen[1]);

	free(csv);
	free(summary);
	free(csv_path);
	free(summary_path);
	fs_test_tmpdir_free(dir);
}

/* Every .png/.svg under DIR/plots: at least one, none empty, no SVG with a
 * raw script tag. */
static void check_plots(const char *dir)
{
	char *plots = fs_test_path(dir, "plots");
	DIR *d = opendir(plots);
	struct dirent *e;
	struct stat st;
	int n = 0;

	if (d == NULL)
		print_error("no plots directory %s\n", plots);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		int is_png = len > 4 && strcmp(e->d_name + len - 4, ".png") == 0;
		int is_svg = len > 4 && strcmp(e->d_name + len - 4, ".svg") == 0;
		char *f;

		if (!is_png && !is_svg)
			continue;
		f = fs_test_path(plots, e->d_name);
		assert_int_equal(stat(f, &st), 0);
		if (st.st_size == 0)
			print_error("empty plot %s\n", f);
		assert_true(st.st_size > 0);
		if (is_svg) {
			char *text = fs_test_read_file(f, NULL);

			assert_non_null(text);
			if (contains_nocase(text, RAW_SCRIPT))
				print_error("%s holds a raw %s\n", f, RAW_SCRIPT);
			assert_false(contains_nocase(text, RAW_SCRIPT));
			free(text);
		}
		free(f);
		n++;
	}
	closedir(d);
	printf("plots: %d files in %s\n", n, plots);
	if (n == 0)
		print_error("no .png or .svg in %s\n", plots);
	assert_true(n > 0);
	free(plots);
}

/* Fails unless TEXT (a report file, FILE for messages) holds S escaped. */
static void require_escaped(const char *text, const char *file, const char *s, int md)
{
	if (!contains_escaped(text, s, md)) {
		print_error("%s lacks %s, %s-escaped\n", file, s, md ? "Markdown" : "HTML");
		fail();
	}
}

static void test_report_hostile_names_are_escaped_and_never_run(void **state)
{
	char *dir, *html_path, *md_path, *html, *md;
	const char *report_args[3] = { "report", NULL, NULL };
	struct watch w;
	size_t i;

	(void)state;
	fs_test_need_report();
	dir = fs_test_tmpdir();
	report_args[1] = dir;
	watch_start(&w, dir);
	run_hostile(dir);
	fs_test_fleetsim_ok(report_args);
	watch_check(&w);

	check_plots(dir);

	html_path = fs_test_path(dir, "report.html");
	html = fs_test_read_file(html_path, NULL);
	if (html == NULL)
		print_error("no %s\n", html_path);
	assert_non_null(html);
	if (contains_nocase(html, RAW_SCRIPT))
		print_error("report.html holds a raw %s\n", RAW_SCRIPT);
	assert_false(contains_nocase(html, RAW_SCRIPT));
	require_escaped(html, "report.html", SC_NAME, 0);
	for (i = 0; CLASS_NAMES[i] != NULL; i++)
		require_escaped(html, "report.html", CLASS_NAMES[i], 0);
	/* Shown or not as the report chooses; escaped when shown (a raw script
	 * tag was ruled out above). */
	if (!contains_escaped(html, SC_DESC, 0))
		printf("note: report.html does not show the description\n");
	for (i = 0; OTHER_NAMES[i] != NULL; i++)
		if (!contains_escaped(html, OTHER_NAMES[i], 0))
			printf("note: report.html does not show [%s]\n", OTHER_NAMES[i]);

	md_path = fs_test_path(dir, "report.md");
	md = fs_test_read_file(md_path, NULL);
	if (md == NULL)
		print_error("no %s\n", md_path);
	assert_non_null(md);
	require_escaped(md, "report.md", SC_NAME, 1);
	for (i = 0; CLASS_NAMES[i] != NULL; i++)
		require_escaped(md, "report.md", CLASS_NAMES[i], 1);
	if (strstr(md, RAW_SCRIPT) != NULL)
		printf("note: report.md holds a raw %s (safe only inside a code span)\n",
		       RAW_SCRIPT);

	free(md);
	free(md_path);
	free(html);
	free(html_path);
	fs_test_tmpdir_free(dir);
}

static void test_report_hostile_escape_matcher_accepts_only_escaped_text(void **state)
{
	(void)state;
	assert_true(contains_escaped("a &lt;b&gt; &amp; &quot;c&#39; `d`", "<b> & \"c' `d`", 0));
	assert_true(contains_escaped("x &#60;b> &#x26; \"", "<b> & \"", 0));
	assert_false(contains_escaped("<b>", "<b>", 0));
	assert_false(contains_escaped("a & b", "a & b", 0));
	assert_true(contains_escaped("\\<b\\> \\`c\\`", "<b> `c`", 1));
	assert_true(contains_escaped("<b> `c`", "<b> `c`", 1));
	assert_false(contains_escaped("&lt;b", "<c", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_hostile_escape_matcher_accepts_only_escaped_text),
		cmocka_unit_test(test_report_hostile_names_survive_run_outputs),
		cmocka_unit_test(test_report_hostile_names_are_escaped_and_never_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
