/*
 * trace.h — readers for request traces and empirical length files.  Each
 * reader loads a whole file into an immutable struct fs_trace (rows sorted by
 * time, first request at t = 0) or an array of token counts.  Malformed input
 * fails with -1/NULL and an fs_error naming file:line:col, what was expected
 * and what was found; nothing is returned half-built.  Callers own the result.
 */
#ifndef FLEETSIM_TRACE_H
#define FLEETSIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/config.h"

/* The longest span a trace may cover: 100 years of 365.25 days.  A replay
 * period (span + loop gap, at most twice the span) then fits an fs_ns.
 * MODEL: W14. */
#define FS_TRACE_MAX_SPAN_S INT64_C(3155760000)
#define FS_TRACE_MAX_SPAN_NS (FS_TRACE_MAX_SPAN_S * FS_NS_PER_S)

/* Load `path` in `format`.  `display_path` is the name used in messages and
 * stored in the trace (as the user wrote it).  Returns NULL on error. */
struct fs_trace *fs_trace_load(const char *path, const char *display_path,
                               enum fs_trace_format format, struct fs_error *err);
void fs_trace_free(struct fs_trace *t);

/* Parse a format name ("azure", "vidur", "mooncake"); -1 if unknown (*out
 * untouched).  _parse is the older name of _from_name. */
int fs_trace_format_parse(const char *name, enum fs_trace_format *out);
int fs_trace_format_from_name(const char *name, enum fs_trace_format *out);
const char *fs_trace_format_name(enum fs_trace_format f);

/*
 * Load positive integer token counts for an empirical length distribution.
 * A file with one number per line (blank lines and # comments skipped), or,
 * when `column` is non-NULL, a CSV file with a header row and that column.
 * On success *values (caller frees) holds *n_values >= 1 entries.
 */
int fs_empirical_load(const char *path, const char *display_path,
                      const char *column, int64_t **values, size_t *n_values,
                      struct fs_error *err);

#endif
