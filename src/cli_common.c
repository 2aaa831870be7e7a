/*
 * cli_common.c — strict option-value parsing shared by the subcommands.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/common.h"

int fs__cli_parse_int(const char *cmd, const char *option, const char *text,
                      int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (text[0] == '\0' || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
		fprintf(stderr, "fleetsim %s: %s: expected an integer from %" PRId64
		        " to %" PRId64 ", found \"%s\"\n", cmd, option, lo, hi, text);
		return -1;
	}
	*out = v;
	return 0;
}

int fs__cli_parse_fraction(const char *cmd, const char *option, const char *text,
                           double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end != text && *end == '%' && end[1] == '\0') {
		v /= 100.0;
		end++;
	}
	if (text[0] == '\0' || *end != '\0' || errno == ERANGE || !(v > 0 && v < 1)) {
		fprintf(stderr, "fleetsim %s: %s: expected a fraction such as \"2%%\" or "
		        "\"0.02\" (between 0 and 1), found \"%s\"\n", cmd, option, text);
		return -1;
	}
	*out = v;
	return 0;
}

int fs__cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fleetsim %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fleetsim %s --help'.\n", cmd);
	return FS_EXIT_INPUT;
}

/* out/<file stem>: the stem is the file name without directory and extension. */
char *fs__cli_default_out_dir(const char *scenario_path)
{
	const char *base = strrchr(scenario_path, '/');
	const char *dot;
	size_t stem_len;
	char *dir;

	base = base == NULL ? scenario_path : base + 1;
	dot = strrchr(base, '.');
	stem_len = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
	dir = fs_xmalloc(stem_len + 5);
	memcpy(dir, "out/", 4);
	memcpy(dir + 4, base, stem_len);
	dir[4 + stem_len] = '\0';
	return dir;
}
