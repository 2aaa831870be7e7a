/*
 * json_pos.c — comment stripping, syntax diagnosis and the node-position index
 * (see json_pos.h).  One recursive scanner follows strict JSON (RFC 8259:
 * whitespace is space/tab/newline/CR, numbers without leading zeros, strings
 * of valid UTF-8 without raw control characters or \u0000), nesting stops at
 * CJSON_NESTING_LIMIT; given a tree it records positions, without one it
 * only looks for the first error.
 */
#include "json_pos.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"

/* ---- position index: open addressing on the node pointer ---------------- */

struct slot {
	const cJSON *node;           /* NULL: empty */
	size_t key_off;
	size_t val_off;
};

struct fs__jpos {
	struct slot *slots;
	size_t cap;                  /* power of two, >= 2 * n */
	size_t n;                    /* slots in use */
};

static size_t hash_ptr(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static void map_put(struct fs__jpos *ix, const cJSON *node, size_t key_off,
                    size_t val_off);

/* Double the table (rehashing every entry). */
static void map_grow(struct fs__jpos *ix)
{
	struct slot *old = ix->slots;
	size_t old_cap = ix->cap, i;

	ix->cap *= 2;
	ix->slots = fs_xcalloc(ix->cap, sizeof *ix->slots);
	ix->n = 0;
	for (i = 0; i < old_cap; i++)
		if (old[i].node != NULL)
			map_put(ix, old[i].node, old[i].key_off, old[i].val_off);
	free(old);
}

static void map_put(struct fs__jpos *ix, const cJSON *node, size_t key_off,
                    size_t val_off)
{
	size_t i;

	if (2 * (ix->n + 1) > ix->cap)
		map_grow(ix);
	i = hash_ptr(node, ix->cap);
	while (ix->slots[i].node != NULL && ix->slots[i].node != node)
		i = (i + 1) & (ix->cap - 1);
	if (ix->slots[i].node == NULL)
		ix->n++;
	ix->slots[i].node = node;
	ix->slots[i].key_off = key_off;
	ix->slots[i].val_off = val_off;
}

int fs__jpos_lookup(const struct fs__jpos *ix, const cJSON *node,
                    size_t *key_off, size_t *val_off)
{
	size_t i;

	*key_off = *val_off = FS__JPOS_NONE;
	if (ix == NULL || node == NULL)
		return -1;
	i = hash_ptr(node, ix->cap);
	while (ix->slots[i].node != NULL) {
		if (ix->slots[i].node == node) {
			*key_off = ix->slots[i].key_off;
			*val_off = ix->slots[i].val_off;
			return 0;
		}
		i = (i + 1) & (ix->cap - 1);
	}
	return -1;
}

void fs__jpos_free(struct fs__jpos *ix)
{
	if (ix == NULL)
		return;
	free(ix->slots);
	free(ix);
}

/* ---- the scanner ---------------------------------------------------------- */

struct scan {
	const char *s;
	size_t len;
	size_t off;
	struct fs__jpos *ix;         /* NULL: only looking for an error */
	size_t err_off;              /* FS__JPOS_NONE until an error is found */
	char msg[160];
};

static int fail(struct scan *sc, size_t off, const char *msg)
{
	if (sc->err_off == FS__JPOS_NONE) {
		sc->err_off = off;
		snprintf(sc->msg, sizeof sc->msg, "%s", msg);
	}
	return -1;
}

/* fail() for a control character: code point u, written as `as`. */
static int fail_control(struct scan *sc, size_t off, const char *as, unsigned u)
{
	char buf[sizeof sc->msg];

	snprintf(buf, sizeof buf, "control character %s (U+%04X) is not allowed in a string "
	         "(only \\t, \\n and \\r: a terminal printing it would act on it)", as, u);
	return fail(sc, off, buf);
}

/* Fail at the current offset with "MSG, found 'WORD'", quoting the word (or
 * the single byte) that stands there. */
static int fail_found(struct scan *sc, const char *msg)
{
	char buf[sizeof sc->msg];
	size_t n = 0;
	unsigned char c;

	while (sc->off + n < sc->len && n < 40) {
		c = (unsigned char)sc->s[sc->off + n];
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '_')
			break;
		n++;
	}
	if (n == 0 && sc->off < sc->len && (unsigned char)sc->s[sc->off] > 32 &&
	    (unsigned char)sc->s[sc->off] < 127)
		n = 1;
	if (n == 0 && sc->off < sc->len) {
		snprintf(buf, sizeof buf, "%s, found byte 0x%02X", msg,
		         (unsigned)(unsigned char)sc->s[sc->off]);
		return fail(sc, sc->off, buf);
	}
	snprintf(buf, sizeof buf, "%s, found '%.*s'", msg, (int)n, sc->s + sc->off);
	return fail(sc, sc->off, buf);
}

/* JSON whitespace: space, tab, newline, carriage return (comments have
 * been blanked to spaces).  Other control bytes are errors where a value or
 * a delimiter is expected. */
static void skip_ws(struct scan *sc)
{
	char buf[96];

	while (sc->off < sc->len && (sc->s[sc->off] == ' ' || sc->s[sc->off] == '\t' ||
	                             sc->s[sc->off] == '\n' || sc->s[sc->off] == '\r'))
		sc->off++;
	/* Whatever is expected next cannot start with a control byte: name it
	 * (the first error is the one kept). */
	if (sc->off < sc->len && (unsigned char)sc->s[sc->off] < 0x20) {
		snprintf(buf, sizeof buf, "control character 0x%02X outside a string "
		         "(whitespace is space, tab, newline or CR)",
		         (unsigned)(unsigned char)sc->s[sc->off]);
		(void)fail(sc, sc->off, buf);
	}
}

static bool at(const struct scan *sc, char c)
{
	return sc->off < sc->len && sc->s[sc->off] == c;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* Length of the UTF-8 sequence at s[0..avail), or 0 when it is invalid:
 * truncated, a bad continuation byte, overlong, a surrogate or above
 * U+10FFFF (RFC 3629). */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	size_t n, i;
	unsigned lo = 0x80, hi = 0xBF;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4;
	else
		return 0;                    /* 0x80-0xC1 (overlong), 0xF5-0xFF */
	if (s[0] == 0xE0)
		lo = 0xA0;                   /* overlong 3-byte form */
	else if (s[0] == 0xED)
		hi = 0x9F;                   /* UTF-16 surrogates */
	else if (s[0] == 0xF0)
		lo = 0x90;                   /* overlong 4-byte form */
	else if (s[0] == 0xF4)
		hi = 0x8F;                   /* above U+10FFFF */
	if (avail < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

static unsigned hex4(const char *s)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v = v * 16 + (unsigned)(s[i] <= '9' ? s[i] - '0' :
		                        (s[i] | 0x20) - 'a' + 10);
	return v;
}

/* A control character other than tab, newline and carriage return (C0,
 * DEL and C1): names and labels reach terminals, which act on these. */
static bool is_terminal_control(unsigned u)
{
	return (u < 0x20 && u != '\t' && u != '\n' && u != '\r') || (u >= 0x7F && u <= 0x9F);
}

/* A \uXXXX escape at sc->off (hex digits checked): refuses \u0000, the
 * other control characters but tab, newline and carriage return, and
 * unpaired surrogates; advances past it (and its low half). */
static int scan_u_escape(struct scan *sc)
{
	unsigned u = hex4(sc->s + sc->off + 2), lo;
	size_t at_off = sc->off;

	if (u == 0)
		return fail(sc, at_off, "\\u0000 is not allowed in a string");
	if (is_terminal_control(u))
		return fail_control(sc, at_off, "escape", u);
	sc->off += 6;
	if (u >= 0xDC00 && u <= 0xDFFF)
		return fail(sc, at_off, "unpaired UTF-16 surrogate escape in string");
	if (u < 0xD800 || u > 0xDBFF)
		return 0;
	if (sc->off + 6 > sc->len || sc->s[sc->off] != '\\' || sc->s[sc->off + 1] != 'u' ||
	    !is_hex(sc->s[sc->off + 2]) || !is_hex(sc->s[sc->off + 3]) ||
	    !is_hex(sc->s[sc->off + 4]) || !is_hex(sc->s[sc->off + 5]))
		return fail(sc, at_off, "unpaired UTF-16 surrogate escape in string");
	lo = hex4(sc->s + sc->off + 2);
	if (lo < 0xDC00 || lo > 0xDFFF)
		return fail(sc, at_off, "unpaired UTF-16 surrogate escape in string");
	sc->off += 6;
	return 0;
}

/* A string (strict JSON text: valid UTF-8, no raw control characters, no
 * \u0000).  A string that runs into the end of its line is reported at its
 * opening quote, where the missing quote belongs. */
static int scan_string(struct scan *sc)
{
	size_t start = sc->off++, n;
	unsigned char c;

	while (sc->off < sc->len && sc->s[sc->off] != '"') {
		c = (unsigned char)sc->s[sc->off];
		if (c == '\n' || c == '\r')
			return fail(sc, start, "unterminated string (a string ends "
			            "on its line; write a newline as \\n)");
		if (c < 0x20)
			return fail(sc, sc->off, "raw control character in string "
			            "(write a tab as \\t, a newline as \\n)");
		if (c >= 0x80) {
			n = utf8_len((const unsigned char *)sc->s + sc->off,
			             sc->len - sc->off);
			if (n == 0)
				return fail(sc, sc->off, "invalid UTF-8 in string");
			if (c == 0xC2 && is_terminal_control((unsigned char)sc->s[sc->off + 1]))
				return fail_control(sc, sc->off, "in UTF-8",
				                    (unsigned char)sc->s[sc->off + 1]);
			sc->off += n;
			continue;
		}
		if (c != '\\') {
			sc->off++;
			continue;
		}
		if (sc->off + 1 >= sc->len)
			break;
		switch (sc->s[sc->off + 1]) {
		case '"': case '\\': case '/':
		case 'n': case 'r': case 't':
			sc->off += 2;
			break;
		case 'b':
			return fail_control(sc, sc->off, "escape \\b", 0x08);
		case 'f':
			return fail_control(sc, sc->off, "escape \\f", 0x0C);
		case 'u':
			if (sc->off + 6 > sc->len || !is_hex(sc->s[sc->off + 2]) ||
			    !is_hex(sc->s[sc->off + 3]) || !is_hex(sc->s[sc->off + 4]) ||
			    !is_hex(sc->s[sc->off + 5]))
				return fail(sc, sc->off, "invalid \\u escape in string "
				            "(expected 4 hex digits)");
			if (scan_u_escape(sc) != 0)
				return -1;
			break;
		default:
			return fail(sc, sc->off, "invalid escape in string "
			            "(expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
		}
	}
	if (sc->off >= sc->len)
		return fail(sc, start, "unterminated string");
	sc->off++;
	return 0;
}

static bool is_digit(const struct scan *sc, size_t off)
{
	return off < sc->len && sc->s[off] >= '0' && sc->s[off] <= '9';
}

/* A number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int scan_number(struct scan *sc)
{
	size_t p = sc->off;

	if (p < sc->len && sc->s[p] == '-')
		p++;
	if (!is_digit(sc, p))
		return fail(sc, sc->off, "invalid number (expected a digit)");
	if (sc->s[p] == '0' && is_digit(sc, p + 1))
		return fail(sc, sc->off, "invalid number (leading zeros are not allowed)");
	while (is_digit(sc, p))
		p++;
	if (p < sc->len && sc->s[p] == '.') {
		p++;
		if (!is_digit(sc, p))
			return fail(sc, sc->off, "invalid number (expected a digit "
			            "after the decimal point)");
		while (is_digit(sc, p))
			p++;
	}
	if (p < sc->len && (sc->s[p] == 'e' || sc->s[p] == 'E')) {
		p++;
		if (p < sc->len && (sc->s[p] == '+' || sc->s[p] == '-'))
			p++;
		if (!is_digit(sc, p))
			return fail(sc, sc->off, "invalid number (expected a digit "
			            "in the exponent)");
		while (is_digit(sc, p))
			p++;
	}
	sc->off = p;
	return 0;
}

static int scan_literal(struct scan *sc, const char *word)
{
	size_t n = strlen(word);

	if (sc->len - sc->off < n || memcmp(sc->s + sc->off, word, n) != 0)
		return -1;
	sc->off += n;
	return 0;
}

static int scan_value(struct scan *sc, const cJSON *node, size_t key_off, int depth);

static void record(struct scan *sc, const cJSON *node, size_t key_off, size_t val_off)
{
	if (sc->ix != NULL && node != NULL)
		map_put(sc->ix, node, key_off, val_off);
}

/* The tree node of the next member or element of `node`: its first child
 * when `first`, else the one after `child` (NULL without a tree). */
static const cJSON *next_child(const cJSON *node, const cJSON *child, bool first)
{
	if (node == NULL)
		return NULL;
	return first ? node->child : (child != NULL ? child->next : NULL);
}

/* After an object member or array element (`what`) whose container ends
 * with `close`: 1 past a ',' (another one follows), 0 past `close`, else
 * -1 with the error. */
static int after_item(struct scan *sc, char close, const char *what)
{
	char msg[sizeof sc->msg];

	skip_ws(sc);
	if (at(sc, ',') || at(sc, close)) {
		sc->off++;
		return sc->s[sc->off - 1] == ',';
	}
	snprintf(msg, sizeof msg, "%sexpected ',' or '%c' after %s",
	         sc->off >= sc->len ? "unexpected end of input, " : "", close, what);
	return fail(sc, sc->off, msg);
}

/* The value of a member (key at key_off) or an element of `node` at
 * nesting `depth`, then what follows it, as after_item returns; *child
 * steps to its tree node. */
static int scan_item(struct scan *sc, const cJSON *node, const cJSON **child, bool first,
                     size_t key_off, int depth, char close, const char *what)
{
	*child = next_child(node, *child, first);
	if (scan_value(sc, *child, key_off, depth + 1) != 0)
		return -1;
	return after_item(sc, close, what);
}

/* Past the opening bracket at sc->off: true (and past `close`) when the
 * object or array is empty. */
static bool open_empty(struct scan *sc, char close)
{
	sc->off++;
	skip_ws(sc);
	if (!at(sc, close))
		return false;
	sc->off++;
	return true;
}

static int scan_object(struct scan *sc, const cJSON *node, int depth)
{
	const cJSON *child = NULL;
	bool first = true;
	size_t key_off;
	int rc;

	if (open_empty(sc, '}'))
		return 0;
	for (;;) {
		skip_ws(sc);
		if (!at(sc, '"')) {
			if (at(sc, '}') && !first)
				return fail(sc, sc->off, "expected a key after ',' "
				            "(trailing commas are not allowed)");
			if (sc->off >= sc->len)
				return fail(sc, sc->off, "unexpected end of input, "
				            "expected a \"key\" or '}'");
			return fail(sc, sc->off, first ?
			            "expected a \"key\" in double quotes or '}'" :
			            "expected a \"key\" in double quotes");
		}
		key_off = sc->off;
		if (scan_string(sc) != 0)
			return -1;
		skip_ws(sc);
		if (!at(sc, ':'))
			return fail(sc, sc->off, "expected ':' after object key");
		sc->off++;
		skip_ws(sc);
		rc = scan_item(sc, node, &child, first, key_off, depth, '}', "object member");
		first = false;
		if (rc <= 0)
			return rc;
	}
}

static int scan_array(struct scan *sc, const cJSON *node, int depth)
{
	const cJSON *child = NULL;
	bool first = true;
	int rc;

	if (open_empty(sc, ']'))
		return 0;
	for (;;) {
		skip_ws(sc);
		if (at(sc, ']') && !first)
			return fail(sc, sc->off, "expected a value after ',' "
			            "(trailing commas are not allowed)");
		rc = scan_item(sc, node, &child, first, FS__JPOS_NONE, depth, ']', "array element");
		first = false;
		if (rc <= 0)
			return rc;
	}
}

static int scan_value(struct scan *sc, const cJSON *node, size_t key_off, int depth)
{
	char c;

	if (depth > CJSON_NESTING_LIMIT)
		return fail(sc, sc->off, "nesting too deep");
	if (sc->off >= sc->len)
		return fail(sc, sc->off, "unexpected end of input, expected a value");
	record(sc, node, key_off, sc->off);
	c = sc->s[sc->off];
	if (c == '{')
		return scan_object(sc, node, depth);
	if (c == '[')
		return scan_array(sc, node, depth);
	if (c == '"')
		return scan_string(sc);
	if (c == '-' || (c >= '0' && c <= '9'))
		return scan_number(sc);
	if (scan_literal(sc, "true") == 0 || scan_literal(sc, "false") == 0 ||
	    scan_literal(sc, "null") == 0)
		return 0;
	if (c == '\'')
		return fail(sc, sc->off, "expected a value (strings use double quotes)");
	return fail_found(sc, "expected a value (object, array, string, number, "
	                  "true, false or null)");
}

/* Scan the whole document; returns 0 when it is valid. */
static int scan_document(struct scan *sc, const cJSON *root)
{
	if (sc->len >= 3 && memcmp(sc->s, "\xEF\xBB\xBF", 3) == 0)
		sc->off = 3;
	skip_ws(sc);
	if (scan_value(sc, root, FS__JPOS_NONE, 0) != 0)
		return -1;
	skip_ws(sc);
	if (sc->off < sc->len)
		return fail(sc, sc->off, "unexpected text after the end of the JSON value");
	return 0;
}

static size_t count_nodes(const cJSON *node)
{
	size_t n = 0;

	for (; node != NULL; node = node->next)
		n += 1 + count_nodes(node->child);
	return n;
}

struct fs__jpos *fs__jpos_build(const char *text, size_t len, const cJSON *root)
{
	struct fs__jpos *ix = fs_xmalloc(sizeof *ix);
	struct scan sc = { text, len, 0, ix, FS__JPOS_NONE, "" };
	size_t n = count_nodes(root);

	ix->cap = 16;
	while (ix->cap < 2 * n)
		ix->cap *= 2;
	ix->slots = fs_xcalloc(ix->cap, sizeof *ix->slots);
	ix->n = 0;
	(void)scan_document(&sc, root);
	return ix;
}

void fs__jpos_alias(struct fs__jpos *ix, const cJSON *node, const cJSON *src,
                    size_t key_off, size_t val_off)
{
	const cJSON *c, *sc = NULL;
	size_t k = key_off, v = val_off;

	if (src != NULL)
		(void)fs__jpos_lookup(ix, src, &k, &v);
	map_put(ix, node, k, v);
	if (src != NULL)
		sc = src->child;
	for (c = node->child; c != NULL; c = c->next) {
		if (sc != NULL) {
			fs__jpos_alias(ix, c, sc, FS__JPOS_NONE, FS__JPOS_NONE);
			sc = sc->next;
		} else {
			fs__jpos_alias(ix, c, NULL, k, v);
		}
	}
}

int fs__jpos_check_text(const char *text, size_t len, size_t *err_off,
                        char *msg, size_t msg_len)
{
	struct scan sc = { text, len, 0, NULL, FS__JPOS_NONE, "" };

	if (scan_document(&sc, NULL) == 0)
		return 0;
	snprintf(msg, msg_len, "invalid JSON: %s", sc.msg);
	*err_off = sc.err_off;
	return -1;
}

size_t fs__jpos_syntax_error(const char *text, size_t len, size_t cjson_off,
                             char *msg, size_t msg_len)
{
	struct scan sc = { text, len, 0, NULL, FS__JPOS_NONE, "" };
	char near[16];
	size_t i, n = 0;

	if (scan_document(&sc, NULL) != 0) {
		snprintf(msg, msg_len, "invalid JSON: %s", sc.msg);
		return sc.err_off;
	}
	if (cjson_off > len)
		cjson_off = len;
	for (i = cjson_off; i < len && n < 8 && text[i] != '\n'; i++)
		near[n++] = text[i];
	near[n] = '\0';
	snprintf(msg, msg_len, "invalid JSON near '%s'", near);
	return cjson_off;
}

/* ---- comments and positions ---------------------------------------------- */

int fs__jpos_strip_comments(char *text, size_t len, size_t *bad_off)
{
	size_t i = 0, start;

	while (i < len) {
		if (text[i] == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\' && i + 1 < len)
					i++;
			i++;
		} else if (text[i] == '/' && i + 1 < len && text[i + 1] == '/') {
			for (; i < len && text[i] != '\n'; i++)
				text[i] = ' ';
		} else if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
			start = i;
			text[i] = text[i + 1] = ' ';
			for (i += 2; i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'); i++)
				if (text[i] != '\n')
					text[i] = ' ';
			if (i + 1 >= len) {
				*bad_off = start;
				return -1;
			}
			text[i] = text[i + 1] = ' ';
			i += 2;
		} else {
			i++;
		}
	}
	return 0;
}

void fs__jpos_line_col(const char *text, size_t len, size_t off, int *line, int *col)
{
	size_t i, line_start = 0;
	int l = 1;

	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			l++;
			line_start = i + 1;
		}
	}
	*line = l;
	*col = (int)(off - line_start) + 1;
}
