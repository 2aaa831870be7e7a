/*
 * test_duration.c — duration strings to nanoseconds and back: every unit,
 * fractions that are exact, the malformed and out-of-range inputs with their
 * messages, and the shortest-exact-unit formatting (fs_duration_*).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fleetsim/scenario.h"
#include "util_test.h"

static fs_ns parse_ok(const char *text)
{
	fs_ns v = -1;
	char msg[256] = "";

	if (fs_duration_parse_text(text, &v, msg, sizeof msg) != 0)
		fail_msg("\"%s\" did not parse: %s", text, msg);
	return v;
}

static void expect_error(const char *text, const char *want_msg)
{
	fs_ns v = 12345;
	char msg[256] = "";

	assert_int_equal(fs_duration_parse_text(text, &v, msg, sizeof msg), -1);
	assert_string_equal(msg, want_msg);
	assert_int_equal(v, 12345);           /* untouched on error */
}

static void test_duration_parses_every_unit(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("7ns"), 7);
	assert_int_equal(parse_ok("7us"), 7000);
	assert_int_equal(parse_ok("250ms"), 250 * FS_NS_PER_MS);
	assert_int_equal(parse_ok("90s"), 90 * FS_NS_PER_S);
	assert_int_equal(parse_ok("15m"), 900 * FS_NS_PER_S);
	assert_int_equal(parse_ok("2h"), 7200 * FS_NS_PER_S);
	assert_int_equal(parse_ok("1d"), 86400 * FS_NS_PER_S);
	assert_int_equal(parse_ok("0s"), 0);
}

static void test_duration_fractions_are_exact(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("1.5h"), 5400 * FS_NS_PER_S);
	assert_int_equal(parse_ok("0.1s"), 100000000);
	assert_int_equal(parse_ok(".5s"), 500000000);
	assert_int_equal(parse_ok("2.s"), 2 * FS_NS_PER_S);
	assert_int_equal(parse_ok("0.000000001s"), 1);
	assert_int_equal(parse_ok("1.000000000000000000000s"), FS_NS_PER_S);
	assert_int_equal(parse_ok("0.25us"), 250);
}

static void test_duration_rejects_malformed_text(void **state)
{
	static const char *const bad[] = {
		"", "abc", "10", "10 s", " 10s", "10s ", "-5s", "+5s", "5x", "5S",
		"1e3s", "10 parsecs", ".s", "s", "1..5s", "5sec",
	};
	char want[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(want, sizeof want, "expected a duration such as \"90s\", "
		         "\"15m\", \"2h\", \"1d\" or a number of seconds, found \"%s\"",
		         bad[i]);
		expect_error(bad[i], want);
	}
}

static void test_duration_rejects_overflow_and_sub_nanosecond(void **state)
{
	(void)state;
	/* INT64_MAX ns = 9223372036.854775807 s */
	assert_int_equal(parse_ok("9223372036854775807ns"), INT64_MAX);
	expect_error("9223372036854775808ns",
	             "duration \"9223372036854775808ns\" is too large (at most about 292 years)");
	expect_error("106752d", "duration \"106752d\" is too large (at most about 292 years)");
	expect_error("99999999999999999999999999d",
	             "duration \"99999999999999999999999999d\" is too large "
	             "(at most about 292 years)");
	expect_error("0.5ns", "duration \"0.5ns\" is not a whole number of nanoseconds");
	expect_error("1.0000000001s",
	             "duration \"1.0000000001s\" is not a whole number of nanoseconds");
}

static void expect_format(fs_ns v, const char *want)
{
	char buf[40];

	fs_duration_format(v, buf, sizeof buf);
	assert_string_equal(buf, want);
}

static void test_duration_format_uses_shortest_exact_unit(void **state)
{
	(void)state;
	expect_format(0, "0s");
	expect_format(90 * FS_NS_PER_S, "90s");
	expect_format(900 * FS_NS_PER_S, "15m");
	expect_format(7200 * FS_NS_PER_S, "2h");
	expect_format(86400 * FS_NS_PER_S, "1d");
	expect_format(5400 * FS_NS_PER_S, "90m");
	expect_format(1500 * FS_NS_PER_MS, "1500ms");
	expect_format(250 * FS_NS_PER_MS, "250ms");
	expect_format(1001, "1001ns");
	expect_format(2000, "2us");
	expect_format(INT64_MAX, "9223372036854775807ns");
}

static void test_duration_format_then_parse_round_trips(void **state)
{
	static const fs_ns values[] = {
		1, 999, 1000, 1500 * FS_NS_PER_MS, 61 * FS_NS_PER_S, 3 * 86400 * FS_NS_PER_S,
		INT64_MAX, 123456789012345,
	};
	char buf[40];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof values / sizeof values[0]; i++) {
		fs_duration_format(values[i], buf, sizeof buf);
		assert_int_equal(parse_ok(buf), values[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_parses_every_unit),
		cmocka_unit_test(test_duration_fractions_are_exact),
		cmocka_unit_test(test_duration_rejects_malformed_text),
		cmocka_unit_test(test_duration_rejects_overflow_and_sub_nanosecond),
		cmocka_unit_test(test_duration_format_uses_shortest_exact_unit),
		cmocka_unit_test(test_duration_format_then_parse_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
