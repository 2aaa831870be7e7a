/*
 * common.h — units, the input-error record and the allocation family shared by
 * every module.  Time is int64 nanoseconds everywhere (fs_ns).  Bad input is
 * reported through a caller-owned struct fs_error (tier 2 of STYLE.md); running
 * out of memory aborts with the size (tier 3).  Nothing here holds state.
 */
#ifndef FLEETSIM_COMMON_H
#define FLEETSIM_COMMON_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t fs_ns;                     /* simulated time or duration, ns */

#define FS_NS_PER_US INT64_C(1000)
#define FS_NS_PER_MS INT64_C(1000000)
#define FS_NS_PER_S  INT64_C(1000000000)
#define FS_NS_MAX    INT64_MAX

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

#endif
