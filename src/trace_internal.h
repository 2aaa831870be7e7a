/*
 * trace_internal.h — what the request-trace readers share: the loader that
 * grows the rows and places errors, row appending and exact decimal times
 * (trace.c), and the Mooncake JSONL reader (trace_mooncake.c).  Private to
 * src/trace*.c.  The loader owns its rows and ids until fs_trace_load hands
 * them to the trace, or frees them on an error.
 */
#ifndef FLEETSIM_TRACE_INTERNAL_H
#define FLEETSIM_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fleetsim/trace.h"
#include "text_lines.h"

/* Growable rows plus what is needed to report errors. */
struct fs__trace_loader {
	struct fs__lines in;
	struct fs_error *err;
	struct fs_trace_row *rows;
	size_t n_rows;
	size_t cap;
	uint64_t *hash_ids;          /* Mooncake hash_ids of all rows */
	size_t n_hash_ids, cap_hash_ids;
};

/* A decimal number of `unit_ns` units ("12", "-0.25", "1.5e-3") to ns, for
 * units of whole milliseconds or seconds.  Plain decimals are converted
 * exactly (to the nanosecond); exponent notation goes through strtod.
 * Returns 0, or -1 when s[0..len) is not such a number or overflows. */
int fs__trace_parse_time_units(const char *s, size_t len, int64_t unit_ns, int64_t *out);

/* Append a row after checking its token counts (prompt >= 1, output >= 0,
 * a 0 output read as 1); an error names the current line, the column
 * col_prompt or col_output and the column names[1] or names[2].  Returns 0
 * or -1.  MODEL: W15 */
int fs__trace_add_row(struct fs__trace_loader *ld, int64_t t_ns, int64_t prompt,
                      int64_t output, int col_prompt, int col_output,
                      const char *const names[3]);

/* Read a Mooncake JSONL trace from ld->in into ld's rows and hash_ids.
 * Returns 0, or -1 with ld->err. */
int fs__trace_read_mooncake(struct fs__trace_loader *ld);

#endif
