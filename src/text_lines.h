/*
 * text_lines.h — helpers shared by the trace readers (trace.c) and the
 * empirical length reader (empirical.c): a line reader over getline that
 * counts lines and strips CR/LF, a CSV field splitter that records 1-based
 * columns for error messages, and strict integer parsing.  Not public: only
 * src/trace*.c, src/empirical.c, src/perf_table.c and src/capacity_load.c
 * include it.
 */
#ifndef FLEETSIM_TEXT_LINES_H
#define FLEETSIM_TEXT_LINES_H

#include <stdint.h>
#include <stdio.h>

#include "fleetsim/common.h"

/* Reads a file line by line; `line` is NUL-terminated without its newline. */
struct fs__lines {
	FILE *f;
	const char *display;         /* name used in messages (borrowed) */
	char *line;                  /* current line (owned, reused) */
	size_t cap;                  /* bytes allocated for line */
	size_t len;                  /* strlen(line) */
	int line_no;                 /* 1-based number of the current line */
};

/* One field of a CSV line: not NUL-terminated, whitespace and one level of
 * double quotes trimmed; `col` is the 1-based byte column of its start. */
struct fs__csv_field {
	const char *s;
	size_t len;
	int col;
};

struct fs__csv {
	struct fs__csv_field *fields;
	size_t n;
	size_t cap;
};

/* Open `path` for reading; on failure fills err ("display: cannot open: ..."). */
int fs__lines_open(struct fs__lines *r, const char *path, const char *display,
                   struct fs_error *err);

/* Next line: 1 when one was read, 0 at end of file, -1 (err filled) on a read
 * error.  A UTF-8 byte-order mark at the start of the file is skipped. */
int fs__lines_next(struct fs__lines *r, struct fs_error *err);

/* Close the file and free the line buffer; safe to call twice. */
void fs__lines_close(struct fs__lines *r);

/* Split `line` at commas into c->fields (no embedded commas in quotes). */
void fs__csv_split(struct fs__csv *c, const char *line);

/* Index of the field equal to `name`, or -1. */
int fs__csv_find(const struct fs__csv *c, const char *name);

void fs__csv_fini(struct fs__csv *c);

/* True when the line holds only whitespace. */
int fs__is_blank(const char *line);

/* Parse a non-negative integer written as digits, optionally followed by a
 * fraction of zeros ("12", "12.0").  Returns 0, or -1 if it is not one or is
 * above 10^15. */
int fs__parse_count(const char *s, size_t len, int64_t *out);

/* Write `s` (len bytes) quoted for a message: "abc", at most ~40 chars, or
 * "an empty field" when len is 0. */
void fs__quote(const char *s, size_t len, char *buf, size_t buf_len);

#endif
