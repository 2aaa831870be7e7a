/*
 * cli_common.c — strict option-value parsing shared by the subcommands, and
 * the options, operand and output directory that `run` and `checkpoint`
 * set up the same way.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fleetsim/common.h"

int fs__cli_parse_int(const char *cmd, const char *option, const char *text,
                      int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (!fs_number_syntax(text, strlen(text), true) || *end != '\0' ||
	    errno == ERANGE || v < lo || v > hi) {
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
	if (!fs_number_syntax(text, (size_t)(end - text), false))
		end = fs_unconst(text);        /* as if nothing were read */
	if (end != text && *end == '%' && end[1] == '\0') {
		v /= 100.0;
		end++;
	}
	if (text[0] == '\0' || end == text || *end != '\0' || errno == ERANGE ||
	    !(v > 0 && v < 1)) {
		fprintf(stderr, "fleetsim %s: %s: expected a fraction such as \"2%%\" or "
		        "\"0.02\" (between 0 and 1), found \"%s\"\n", cmd, option, text);
		return -1;
	}
	*out = v;
	return 0;
}

int fs__cli_getopt(int argc, char **argv, const char *shortopts,
                   const struct option *longopts)
{
	int li = -1, c = getopt_long(argc, argv, shortopts, longopts, &li);
	int at;
	const char *name;
	size_t n;

	if (c == -1 || li < 0)
		return c;
	/* the option's own word: before its value when that came separately */
	at = optarg != NULL && optind >= 2 && argv[optind - 1] == optarg ? optind - 2
	                                                                 : optind - 1;
	name = argv[at] + 2;
	n = strcspn(name, "=");
	if (strncmp(argv[at], "--", 2) == 0 && n == strlen(longopts[li].name) &&
	    strncmp(name, longopts[li].name, n) == 0)
		return c;
	optind = at + 1;
	return '?';
}

const char *fs__cli_split_long(const char *word, const char *const *valued, char *name,
                               size_t len)
{
	const char *eq = strncmp(word, "--", 2) == 0 ? strchr(word, '=') : NULL;
	size_t n = eq != NULL ? (size_t)(eq - word) : 0, i;

	if (eq == NULL || n >= len)
		return NULL;
	for (i = 0; valued[i] != NULL; i++)
		if (strlen(valued[i]) == n && strncmp(word, valued[i], n) == 0) {
			memcpy(name, word, n);
			name[n] = '\0';
			return eq + 1;
		}
	return NULL;
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

char *fs__cli_out_dir(const char *out_dir, const char *path)
{
	return out_dir != NULL ? fs_xstrdup(out_dir) : fs__cli_default_out_dir(path);
}

void fs__cli_run_opts_begin(struct fs__cli_run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = -1;
	optind = 1;
	opterr = 0;
}

int fs__cli_run_option(const char *cmd, int c, int64_t max_reps, char **argv,
                       struct fs__cli_run_opts *o)
{
	switch (c) {
	case 'o':
		o->out_dir = optarg;
		return 0;
	case 'r':
		return fs__cli_parse_int(cmd, "-r", optarg, 1, max_reps, &o->replications)
		       ? FS_EXIT_INPUT : 0;
	case 'j':
		return fs__cli_parse_int(cmd, "-j", optarg, 1, 1024, &o->threads)
		       ? FS_EXIT_INPUT : 0;
	case FS__CLI_OPT_SEED:
		/* 2^53: every seed a JSON number holds exactly */
		return fs__cli_parse_int(cmd, "--seed", optarg, 0, INT64_C(9007199254740992),
		                         &o->seed) ? FS_EXIT_INPUT : 0;
	case ':':
		return fs__cli_usage_error(cmd, "option \"%s\" needs a value",
		                           argv[optind - 1]);
	default:
		return fs__cli_usage_error(cmd, "unknown option \"%s\"", argv[optind - 1]);
	}
}

int fs__cli_one_operand(const char *cmd, int argc, char **argv, const char *missing,
                        const char *second, const char **path)
{
	if (optind >= argc)
		return fs__cli_usage_error(cmd, "%s", missing);
	if (optind + 1 < argc)
		return fs__cli_usage_error(cmd, "%s\"%s\"", second, argv[optind + 1]);
	*path = argv[optind];
	return 0;
}

int fs__cli_check_own_dir(const char *cmd, const char *dir, struct fs_error *err)
{
	static const struct {
		const char *cmd, *file;
	} marks[] = {
		{ "run", "summary.json" }, { "run", "comparison.json" },
		{ "sweep", "sweep.json" }, { "budget", "budget.json" },
		{ "checkpoint", "checkpoint.json" },
	};
	size_t i, n = strlen(dir) + 24;
	char *path = fs_xmalloc(n);
	struct stat st;
	int rc = 0;

	for (i = 0; i < sizeof marks / sizeof marks[0] && rc == 0; i++) {
		if (strcmp(marks[i].cmd, cmd) == 0)
			continue;
		snprintf(path, n, "%s/%s", dir, marks[i].file);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc = fs_error_set(err, dir, NULL, "expected a new directory or one that "
			                  "fleetsim %s wrote, found the output of fleetsim %s "
			                  "(%s): the two would mix; choose another -o", cmd,
			                  marks[i].cmd, marks[i].file);
	}
	free(path);
	return rc;
}
