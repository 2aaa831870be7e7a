/*
 * scenario_duration.c — duration strings ("90s", "1.5h", "250ms") to integer
 * nanoseconds and back (see scenario.h).  Parsing is exact: the decimal
 * number is read as integer and fraction digits and scaled in 128-bit integer
 * arithmetic, so "0.1s" is exactly 100000000 ns; results finer than 1 ns or
 * beyond INT64_MAX ns (about 292 years) are rejected, never rounded.
 */
#include "fleetsim/scenario.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

struct unit {
	const char *name;
	int64_t ns;
};

/* Largest first: fs_duration_format takes the first unit that divides. */
static const struct unit UNITS[] = {
	{ "d", INT64_C(86400) * FS_NS_PER_S },
	{ "h", INT64_C(3600) * FS_NS_PER_S },
	{ "m", INT64_C(60) * FS_NS_PER_S },
	{ "s", FS_NS_PER_S },
	{ "ms", FS_NS_PER_MS },
	{ "us", FS_NS_PER_US },
	{ "ns", 1 },
};
#define N_UNITS (sizeof UNITS / sizeof UNITS[0])

#define MAX_DIGITS 24                /* per part: 10^24 * 1d in ns fits 128 bits */

static int malformed(const char *text, char *msg, size_t msg_len)
{
	snprintf(msg, msg_len, "expected a duration such as \"90s\", \"15m\", \"2h\", "
	         "\"1d\" or a number of seconds, found \"%.60s\"", text);
	return -1;
}

/* Read a run of decimal digits: the first MAX_DIGITS into *value, the count
 * of all into *n_digits; *nonzero_tail tells whether any digit past
 * MAX_DIGITS is non-zero.  Returns the number of bytes read. */
static size_t read_digits(const char *s, u128 *value, size_t *n_digits,
                          bool *nonzero_tail)
{
	size_t n = 0;

	*value = 0;
	*nonzero_tail = false;
	for (; s[n] >= '0' && s[n] <= '9'; n++) {
		if (n < MAX_DIGITS)
			*value = *value * 10 + (u128)(s[n] - '0');
		else if (s[n] != '0')
			*nonzero_tail = true;
	}
	*n_digits = n;
	return n;
}

int fs_duration_parse_text(const char *text, fs_ns *out_ns, char *msg, size_t msg_len)
{
	const char *p = text;
	u128 whole = 0, frac = 0, pow10 = 1, total, unit_ns = 0;
	size_t n_whole = 0, n_frac = 0, i;
	bool whole_tail = false, frac_tail = false;

	/* More than MAX_DIGITS whole digits is too large whatever they are. */
	p += read_digits(p, &whole, &n_whole, &whole_tail);
	if (*p == '.') {
		p++;
		p += read_digits(p, &frac, &n_frac, &frac_tail);
	}
	if (n_whole + n_frac == 0)
		return malformed(text, msg, msg_len);
	for (i = 0; i < N_UNITS; i++)
		if (strcmp(p, UNITS[i].name) == 0)
			unit_ns = (u128)UNITS[i].ns;
	if (unit_ns == 0)
		return malformed(text, msg, msg_len);
	for (i = 0; i < n_frac && i < MAX_DIGITS; i++)
		pow10 *= 10;
	/* whole, frac < 10^24 and unit_ns < 10^14: the products fit in 128 bits. */
	if (n_whole > MAX_DIGITS || whole > (u128)INT64_MAX) {
		snprintf(msg, msg_len, "duration \"%.60s\" is too large "
		         "(at most about 292 years)", text);
		return -1;
	}
	if (frac_tail || (frac * unit_ns) % pow10 != 0) {
		snprintf(msg, msg_len, "duration \"%.60s\" is not a whole number "
		         "of nanoseconds", text);
		return -1;
	}
	total = whole * unit_ns + frac * unit_ns / pow10;
	if (total > (u128)INT64_MAX) {
		snprintf(msg, msg_len, "duration \"%.60s\" is too large "
		         "(at most about 292 years)", text);
		return -1;
	}
	*out_ns = (fs_ns)total;
	return 0;
}

void fs_duration_format(fs_ns dur_ns, char *buf, size_t buf_len)
{
	size_t i;

	if (dur_ns == 0) {
		snprintf(buf, buf_len, "0s");
		return;
	}
	for (i = 0; i < N_UNITS; i++) {
		if (dur_ns % UNITS[i].ns == 0) {
			snprintf(buf, buf_len, "%lld%s",
			         (long long)(dur_ns / UNITS[i].ns), UNITS[i].name);
			return;
		}
	}
}
