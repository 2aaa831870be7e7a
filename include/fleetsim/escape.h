/*
 * escape.h — building text that carries untrusted strings (names of
 * classes, pools, variants, sweep labels) into gnuplot scripts, HTML and
 * Markdown, and CSV cells guarded against spreadsheet formulas.  A growable
 * buffer (struct fs_sbuf) plus one appender per target language; nothing
 * from a scenario or an output directory may reach those languages except
 * through these.  The buffer owns its bytes; release with
 * fs_sbuf_fini.  The fs_escape_* convenience forms return heap strings that
 * the caller frees.
 */
#ifndef FLEETSIM_ESCAPE_H
#define FLEETSIM_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

struct fs_sbuf {
	char *s;                     /* NUL-terminated text (NULL until first append) */
	size_t len;                  /* bytes before the NUL */
	size_t cap;                  /* bytes allocated */
};

void fs_sbuf_init(struct fs_sbuf *b);
void fs_sbuf_fini(struct fs_sbuf *b);
/* Append raw (trusted) text. */
void fs_sbuf_puts(struct fs_sbuf *b, const char *s);
void fs_sbuf_printf(struct fs_sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The text so far ("" when empty); valid until the next append. */
const char *fs_sbuf_str(const struct fs_sbuf *b);

/* Append s HTML-escaped: & < > " ' ` become entities, control characters
 * other than tab and newline are dropped.  Safe in element content and in
 * quoted attribute values. */
void fs_sbuf_html(struct fs_sbuf *b, const char *s);

/* Append s as one complete gnuplot single-quoted string literal, quotes
 * included.  In such a literal gnuplot expands nothing (no backslash escapes,
 * no `command` substitution, no @macro); a ' is written ''.  Newlines and
 * other control characters become spaces, since a newline would end the
 * command.  Enhanced-text markup (^ _ @ & { }) is NOT neutralised here: every
 * label or title carrying such a literal must be given `noenhanced` (the
 * report's terminals are also set noenhanced). */
void fs_sbuf_gp(struct fs_sbuf *b, const char *s);

/* Append s for Markdown text: ASCII punctuation with meaning in Markdown or
 * HTML (\ ` * _ [ ] < > | # ! & ~ { }) is backslash-escaped;
 * parentheses and quotes need none once brackets are escaped, newlines
 * and control characters become spaces.  Safe in paragraphs and table cells. */
void fs_sbuf_md(struct fs_sbuf *b, const char *s);

/* CSV cells (RFC 4180) that are safe to open in a spreadsheet: the one
 * quoting rule of every CSV output (docs/OUTPUTS.md).  A cell is quoted
 * when it holds , " CR or LF or starts or ends with a space, or when flags
 * has FS_CSV_QUOTE (columns of names are quoted always); quotes inside are
 * doubled.  A name that a spreadsheet would read as a formula, one starting
 * with = + - @, a tab or a carriage return, is guarded as OWASP recommends:
 * written quoted with a single quote in front ("'=1+2").  A cell starting
 * with a single quote is guarded the same way, so that fs_csv_unguard gives
 * every name back exactly (a spreadsheet shows such a cell without its
 * first quote, i.e. as the name).  FS_CSV_VALUE marks a cell that is a
 * value, not a name (the JSON text of a sweep axis value such as -1 or
 * [1,2]): quoted by the same rule, never guarded.  Figures are written with
 * fs_csv_put_num (out_format.h), never through these. */
enum {
	FS_CSV_QUOTE = 1,            /* quote even when the rule does not ask */
	FS_CSV_VALUE = 2             /* a value, not a name: no formula guard */
};
int fs_csv_needs_guard(const char *s);
void fs_sbuf_csv(struct fs_sbuf *b, const char *s, int flags);
void fs_csv_put(FILE *f, const char *s, int flags);

/* Undo the guard on a cell read back from a quoted CSV field (in place):
 * a leading single quote before = + - @ tab CR or ' is dropped.  Returns s. */
char *fs_csv_unguard(char *s);

/* Heap-string forms of the three escapers (caller frees). */
char *fs_escape_html(const char *s);
char *fs_escape_gnuplot(const char *s);
char *fs_escape_md(const char *s);

#endif
