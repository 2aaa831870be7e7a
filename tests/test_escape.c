/*
 * test_escape.c — the escapers that keep scenario strings out of gnuplot's,
 * HTML's and Markdown's syntax (escape.h), and the growable buffer.  One
 * test runs gnuplot on hostile titles and checks nothing was executed; it
 * skips with a message when gnuplot is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleetsim/escape.h"
#include "fleetsim/gnuplot.h"
#include "util_test.h"

static void check_html(const char *in, const char *want)
{
	char *out = fs_escape_html(in);

	assert_string_equal(out, want);
	free(out);
}

static void check_gp(const char *in, const char *want)
{
	char *out = fs_escape_gnuplot(in);

	assert_string_equal(out, want);
	free(out);
}

static void test_escape_html_entities(void **state)
{
	(void)state;
	check_html("a\"b", "a&quot;b");
	check_html("it's", "it&#39;s");
	check_html("`x`", "&#96;x&#96;");
	check_html("<script>alert(1)</script>",
	           "&lt;script&gt;alert(1)&lt;/script&gt;");
	check_html("A&B &amp;", "A&amp;B &amp;amp;");
	check_html("tab\tnl\nbell\a", "tab\tnl\nbell");
	check_html("", "");
	check_html("h\xc3\xa9", "h\xc3\xa9");   /* UTF-8 passes through */
}

static void test_escape_gnuplot_literals(void **state)
{
	(void)state;
	check_gp("plain", "'plain'");
	check_gp("it's", "'it''s'");
	check_gp("''", "''''''");
	check_gp("back\\slash\\", "'back\\slash\\'");   /* literal in '...' */
	check_gp("two\nlines\r", "'two lines '");
	check_gp("$(touch x)", "'$(touch x)'");
	check_gp("system(\"touch x\")", "'system(\"touch x\")'");
	check_gp("`touch x`", "'`touch x`'");
	check_gp("@macro ^{up}_{down} &{sp}", "'@macro ^{up}_{down} &{sp}'");
	check_gp("", "''");
}

static void test_escape_md_punctuation(void **state)
{
	char *out;

	(void)state;
	out = fs_escape_md("a|b *c* _d_ [e](f) <g> `h` #i \\j");
	assert_string_equal(out, "a\\|b \\*c\\* \\_d\\_ \\[e\\](f) \\<g\\> \\`h\\` \\#i \\\\j");
	free(out);
	out = fs_escape_md("x\ny");
	assert_string_equal(out, "x y");
	free(out);
}

static void test_escape_sbuf_grows(void **state)
{
	struct fs_sbuf b;
	int i;

	(void)state;
	fs_sbuf_init(&b);
	assert_string_equal(fs_sbuf_str(&b), "");
	for (i = 0; i < 1000; i++)
		fs_sbuf_printf(&b, "%d,", i);
	assert_int_equal(b.len, strlen(b.s));
	assert_non_null(strstr(b.s, ",999,"));
	fs_sbuf_fini(&b);
	fs_sbuf_fini(&b);   /* idempotent */
}

/* gnuplot itself must treat escaped titles as text: nothing runs, nothing
 * is created, and the script parses. */
static void test_escape_gnuplot_runs_nothing(void **state)
{
	static const char *const hostile[] = {
		"$(touch pwned1)", "`touch pwned2`", "system(\"touch pwned3\")",
		"it's \\' ; system('touch pwned4') ; '", "@x", "new\nline set output 'pwned5'",
		"^{a}_{b}&{c}~{d}", NULL
	};
	char exe[4096], path[4200];
	char *dir;
	struct fs_sbuf b;
	struct fs_error err;
	struct stat st;
	int i;

	(void)state;
	if (fs_gnuplot_find(exe, sizeof exe) != 0) {
		fprintf(stderr, "gnuplot not in PATH (package gnuplot-nox): skipping\n");
		skip();
	}
	dir = fs_test_tmpdir();
	fs_sbuf_init(&b);
	fs_sbuf_puts(&b, "x = 1\nset terminal svg noenhanced\nset output 'out.svg'\nset title ");
	fs_sbuf_gp(&b, hostile[0]);
	fs_sbuf_puts(&b, " noenhanced\nplot ");
	for (i = 0; hostile[i]; i++) {
		fs_sbuf_printf(&b, "%sx title ", i ? ", " : "");
		fs_sbuf_gp(&b, hostile[i]);
	}
	fs_sbuf_puts(&b, "\n");
	snprintf(path, sizeof path, "%s/t.gp", dir);
	fs_test_write_file(path, b.s);
	fs_sbuf_fini(&b);
	if (fs_gnuplot_run(exe, dir, "t.gp", &err) != 0)
		fail_msg("gnuplot failed: %s", err.msg);
	for (i = 1; i <= 5; i++) {
		snprintf(path, sizeof path, "%s/pwned%d", dir, i);
		assert_int_not_equal(stat(path, &st), 0);
	}
	snprintf(path, sizeof path, "%s/out.svg", dir);
	assert_int_equal(stat(path, &st), 0);
	fs_test_tmpdir_free(dir);
}

static void test_escape_gnuplot_error_carries_stderr(void **state)
{
	char exe[4096], path[4200];
	char *dir;
	struct fs_error err;

	(void)state;
	if (fs_gnuplot_find(exe, sizeof exe) != 0) {
		fprintf(stderr, "gnuplot not in PATH (package gnuplot-nox): skipping\n");
		skip();
	}
	dir = fs_test_tmpdir();
	snprintf(path, sizeof path, "%s/bad.gp", dir);
	fs_test_write_file(path, "plot no_such_function(x)\n");
	memset(&err, 0, sizeof err);
	assert_int_equal(fs_gnuplot_run(exe, dir, "bad.gp", &err), -1);
	assert_has(err.msg, "exited with status", "line 1");
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_html_entities),
		cmocka_unit_test(test_escape_gnuplot_literals),
		cmocka_unit_test(test_escape_md_punctuation),
		cmocka_unit_test(test_escape_sbuf_grows),
		cmocka_unit_test(test_escape_gnuplot_runs_nothing),
		cmocka_unit_test(test_escape_gnuplot_error_carries_stderr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
