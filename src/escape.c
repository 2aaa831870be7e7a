/*
 * escape.c — a growable text buffer and the escapers for gnuplot, HTML,
 * Markdown and spreadsheet-safe CSV cells (see escape.h).  Escaping works byte by byte: UTF-8 multi-byte
 * sequences pass through untouched, since none of their bytes is ASCII.
 */
#include "fleetsim/escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"

void fs_sbuf_init(struct fs_sbuf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
}

void fs_sbuf_fini(struct fs_sbuf *b)
{
	free(b->s);
	fs_sbuf_init(b);
}

static void reserve(struct fs_sbuf *b, size_t extra)
{
	fs_xgrow((void **)&b->s, &b->cap, b->len + extra + 1, 1);
}

static void putc_sb(struct fs_sbuf *b, char c)
{
	reserve(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void fs_sbuf_puts(struct fs_sbuf *b, const char *s)
{
	size_t n = strlen(s);

	reserve(b, n);
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void fs_sbuf_printf(struct fs_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *fs_sbuf_str(const struct fs_sbuf *b)
{
	return b->s ? b->s : "";
}

static int is_ctrl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void fs_sbuf_html(struct fs_sbuf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fs_sbuf_puts(b, "&amp;"); break;
		case '<': fs_sbuf_puts(b, "&lt;"); break;
		case '>': fs_sbuf_puts(b, "&gt;"); break;
		case '"': fs_sbuf_puts(b, "&quot;"); break;
		case '\'': fs_sbuf_puts(b, "&#39;"); break;
		case '`': fs_sbuf_puts(b, "&#96;"); break;
		default:
			if (!is_ctrl(c) || c == '\t' || c == '\n')
				putc_sb(b, (char)c);
		}
	}
}

void fs_sbuf_gp(struct fs_sbuf *b, const char *s)
{
	putc_sb(b, '\'');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'')
			fs_sbuf_puts(b, "''");
		else if (is_ctrl(c))
			putc_sb(b, ' ');
		else
			putc_sb(b, (char)c);
	}
	putc_sb(b, '\'');
}

void fs_sbuf_md(struct fs_sbuf *b, const char *s)
{
	static const char special[] = "\\`*_[]<>|#!&~{}";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (is_ctrl(c)) {
			putc_sb(b, ' ');
			continue;
		}
		if (strchr(special, (int)c))
			putc_sb(b, '\\');
		putc_sb(b, (char)c);
	}
}

/* First characters a spreadsheet reads as the start of a formula (OWASP
 * "CSV injection"), plus the single quote that marks a guarded cell. */
static int guard_char(char c)
{
	return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' ||
	       c == '\r' || c == '\'';
}

int fs_csv_needs_guard(const char *s)
{
	return s != NULL && guard_char(s[0]);
}

/* RFC 4180 needs quotes around a field with a comma, a quote, CR or LF;
 * a leading or trailing space is quoted too, since many readers trim it. */
static int needs_quotes(const char *s)
{
	size_t n = strlen(s);

	return strpbrk(s, ",\"\r\n") != NULL ||
	       (n > 0 && (s[0] == ' ' || s[n - 1] == ' '));
}

void fs_sbuf_csv(struct fs_sbuf *b, const char *s, int flags)
{
	int guard = !(flags & FS_CSV_VALUE) && fs_csv_needs_guard(s);

	if (s == NULL)
		s = "";
	if (!guard && !(flags & FS_CSV_QUOTE) && !needs_quotes(s)) {
		fs_sbuf_puts(b, s);
		return;
	}
	putc_sb(b, '"');
	if (guard)
		putc_sb(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '"')
			putc_sb(b, '"');
		putc_sb(b, *s);
	}
	putc_sb(b, '"');
}

void fs_csv_put(FILE *f, const char *s, int flags)
{
	struct fs_sbuf b;

	fs_sbuf_init(&b);
	fs_sbuf_csv(&b, s, flags);
	fputs(fs_sbuf_str(&b), f);
	fs_sbuf_fini(&b);
}

char *fs_csv_unguard(char *s)
{
	if (s[0] == '\'' && guard_char(s[1]))
		memmove(s, s + 1, strlen(s));
	return s;
}

static char *take(struct fs_sbuf *b)
{
	char *s = b->s ? b->s : fs_xstrdup("");

	fs_sbuf_init(b);
	return s;
}

char *fs_escape_html(const char *s)
{
	struct fs_sbuf b;

	fs_sbuf_init(&b);
	fs_sbuf_html(&b, s);
	return take(&b);
}

char *fs_escape_gnuplot(const char *s)
{
	struct fs_sbuf b;

	fs_sbuf_init(&b);
	fs_sbuf_gp(&b, s);
	return take(&b);
}

char *fs_escape_md(const char *s)
{
	struct fs_sbuf b;

	fs_sbuf_init(&b);
	fs_sbuf_md(&b, s);
	return take(&b);
}
