/*
 * common.h — units, the input-error record and the allocation family shared by
 * every module.  Time is int64 nanoseconds everywhere (fs_ns).  Bad input is
 * reported through a caller-owned struct fs_error (tier 2 of STYLE.md); running
 * out of memory aborts with the size (tier 3).  Nothing here holds state.
 */
#ifndef FLEETSIM_COMMON_H
#define FLEETSIM_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int64_t fs_ns;                     /* simulated time or duration, ns */

#define FS_NS_PER_US INT64_C(1000)
#define FS_NS_PER_MS INT64_C(1000000)
#define FS_NS_PER_S  INT64_C(1000000000)
#define FS_NS_MAX    INT64_MAX
/* Nanoseconds per second as a double, for conversions of doubles between
 * seconds and nanoseconds (x_s * FS_NS_PER_SECOND, x_ns / FS_NS_PER_SECOND):
 * the same value as FS_NS_PER_S, which is the integer. */
#define FS_NS_PER_SECOND 1e9
/* Nanoseconds per hour as a double, for ns -> hours divisions (x_ns /
 * FS_NS_PER_HOUR) and per-hour rates -> mean gaps in ns. */
#define FS_NS_PER_HOUR 3600e9

/* llround(x) for |x| < 2^63 (the caller checks the range), inline: the
 * truncation, then one away from zero where the dropped fraction (exact:
 * x - trunc(x) is a double) is at least a half.  The same value as llround
 * without its call, which the arrival and length draws make per request. */
static inline int64_t fs_round_half_away(double x)
{
	int64_t r = (int64_t)x;
	double f = x - (double)r;

	return r + (f >= 0.5) - (f <= -0.5);
}

/* The version: the top-level VERSION file, passed by the Makefile as
 * -DFS_VERSION; this fallback (kept equal to it, tests/test_schema.c checks)
 * serves a build without it, e.g. code including the installed headers. */
#ifndef FS_VERSION
#define FS_VERSION "0.1.0"
#endif

/* Exit codes of the fleetsim binary (DESIGN.md §2). */
enum fs_exit {
	FS_EXIT_OK = 0,
	FS_EXIT_RUNTIME = 1,   /* I/O failure, simulation failure */
	FS_EXIT_INPUT = 2      /* bad scenario, trace or command line */
};

/*
 * A bad-input report.  `where` is "file:line:col" (or just "file", or empty
 * for command-line errors), `path` the JSON path ("workload.classes[0].slo"),
 * `msg` what was expected and what was found.  Printed by fs_error_print as
 *     where: path: msg
 * leaving out empty parts.  The struct is caller-owned; functions that take one
 * fill it only when they fail.
 */
struct fs_error {
	char where[512];
	char path[256];
	char msg[1024];
};

/* Whether text[0 .. len) is a number as JSON writes one (RFC 8259: an
 * optional '-', no leading zero, no '+', no leading space, no hex, no
 * "inf"), a whole one when `integer`: command-line numbers follow the
 * grammar of scenario files. */
bool fs_number_syntax(const char *text, size_t len, bool integer);

/* Fill `err` (may be NULL: then nothing happens).  `where` or `path` may be
 * NULL or "".  Always returns -1 so callers can `return fs_error_set(...)`. */
int fs_error_set(struct fs_error *err, const char *where, const char *path,
                 const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Same, with `where` built from file, 1-based line and column (line 0 means
 * "no position": only the file name is kept). */
int fs_error_at(struct fs_error *err, const char *file, int line, int col,
                const char *path, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Format "where: path: msg" into buf (always NUL-terminated). */
void fs_error_format(const struct fs_error *err, char *buf, size_t buf_len);

/* Print "where: path: msg\n" to stderr. */
void fs_error_print(const struct fs_error *err);

/* Allocation that never returns NULL: on failure prints the size and aborts.
 * fs_xstrdup(NULL) returns NULL. */
void *fs_xmalloc(size_t n_bytes);
void *fs_xcalloc(size_t n, size_t elem_bytes);
void *fs_xrealloc(void *p, size_t n_bytes);
char *fs_xstrdup(const char *s);

/*
 * The one sanctioned way to drop const, for an API that takes a non-const
 * pointer it does not write through: POSIX exec and spawn (argv is
 * `char *const[]` for historical reasons; the strings are never modified),
 * a callback context the callee only reads, cJSON lookups.  Every caller
 * says beside the call why nothing is written.  A union rather than a cast,
 * so that -Wcast-qual keeps flagging every other cast that drops const.
 */
static inline void *fs_unconst(const void *p)
{
	union { const void *in; void *out; } u;

	u.in = p;
	return u.out;
}

/* Grow *items (of *cap elements of elem_bytes) so that at least `need` fit;
 * doubles the capacity.  Used for every growable array. */
void fs_xgrow(void **items, size_t *cap, size_t need, size_t elem_bytes);
/* fs_xgrow for an array that stays aligned to `align` (a power of two that
 * divides elem_bytes): its first `used` elements are copied over. */
void fs_xgrow_aligned(void **items, size_t *cap, size_t used, size_t need,
                      size_t elem_bytes, size_t align);

/* The whole file at path (heap, the caller frees), NUL-terminated, its
 * length without the NUL in *len (len may be NULL); NULL with errno set
 * when it cannot be opened or read. */
char *fs_read_text(const char *path, size_t *len);

/*
 * Named enums, after libuv's error map: the header that declares an enum
 * with names holds one table macro, a row per member,
 *     #define FS_PRICING_MAP(X) X(FS_PRICING_ON_DEMAND, "on_demand") ...
 * and declares the enum from it: enum fs_pricing { FS_PRICING_MAP(FS_ENUM_MEMBER) };
 * The same table generates the module's name and lookup functions
 * (FS_ENUM_FUNCS) and the scenario loader's lists of accepted names, so a
 * name is written once.  Rows are in value order; a table whose rows are in
 * another order (the order error messages and the schema list the names in)
 * gives each row its value, X(ID, VALUE, "name"), and uses the _AT helpers;
 * FS_ENUM_NAME_BY_VALUE lists such a table's names in value order.
 */
#define FS_ENUM_MEMBER(id, name) id,
#define FS_ENUM_ID(id, name) id,
#define FS_ENUM_NAME(id, name) name,
#define FS_ENUM_MEMBER_AT(id, value, name) id = value,
#define FS_ENUM_ID_AT(id, value, name) id,
#define FS_ENUM_NAME_AT(id, value, name) name,
#define FS_ENUM_NAME_BY_VALUE(id, value, name) [value] = name,

/* The index of `name` among the n names (exact, case-sensitive match), or
 * -1 when none matches or name is NULL. */
int fs_enum_index(const char *const *names, size_t n, const char *name);

/*
 * Define, in the module that owns an enum, its two functions from its table:
 *     const char *NAME_FN(TYPE v)            the name of v; `unknown` for a
 *                                            value outside the table
 *     int FROM_FN(const char *s, TYPE *out)  0 and *out set when s is a
 *                                            name of the table; -1 otherwise
 *                                            (*out untouched)
 * ID and NAME are FS_ENUM_ID and FS_ENUM_NAME, or the _AT pair.  The names
 * returned are string literals (static storage).
 */
#define FS_ENUM_FUNCS(TYPE, MAP, ID, NAME, NAME_FN, FROM_FN, unknown)           \
	static const TYPE NAME_FN##_ids[] = { MAP(ID) };                          \
	static const char *const NAME_FN##_names[] = { MAP(NAME) };               \
	const char *NAME_FN(TYPE v)                                                 \
	{                                                                           \
		for (size_t i = 0; i < sizeof NAME_FN##_ids / sizeof NAME_FN##_ids[0]; i++) \
			if (NAME_FN##_ids[i] == v)                                      \
				return NAME_FN##_names[i];                              \
		return unknown;                                                     \
	}                                                                           \
	int FROM_FN(const char *s, TYPE *out)                                       \
	{                                                                           \
		int i = fs_enum_index(NAME_FN##_names,                              \
		                      sizeof NAME_FN##_ids / sizeof NAME_FN##_ids[0], s); \
		if (i < 0)                                                          \
			return -1;                                                  \
		*out = NAME_FN##_ids[i];                                            \
		return 0;                                                           \
	}

#endif
