/*
 * json_pos.h — the text side of scenario parsing: comment stripping, precise
 * syntax-error messages, and a position index mapping every cJSON node to the
 * byte offsets of its key and value in the source text.  Offsets are the same
 * in the original and the stripped text (comments become spaces).  Private to
 * the scenario loader, the capacity-trace reader (src/capacity_load.c), the
 * Mooncake trace reader (src/trace_mooncake.c) and the calibration input
 * reader (src/calib_input.c); the index is owned by the caller
 * (fs__jpos_free).
 */
#ifndef FLEETSIM_JSON_POS_H
#define FLEETSIM_JSON_POS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Sentinel offset: "no position known". */
#define FS__JPOS_NONE ((size_t)-1)

/* Offsets from here on are not in the file: FS__JPOS_SET_BASE + i marks a
 * value given by the i-th command-line --set. */
#define FS__JPOS_SET_BASE ((size_t)1 << 60)

struct fs__jpos;

/*
 * Replace // line comments and block comments in text[0..len) by spaces,
 * keeping newlines, so that offsets are unchanged.  Text inside JSON strings
 * is left alone.  Returns 0, or -1 with *bad_off the offset of an
 * unterminated block comment's opening slash.
 */
int fs__jpos_strip_comments(char *text, size_t len, size_t *bad_off);

/*
 * Check text[0..len) (comments already blanked) against strict JSON text
 * rules, stricter than cJSON: whitespace is space, tab, newline and CR only;
 * numbers without leading zeros, "1." or ".5"; strings of valid, shortest-form
 * UTF-8 without raw control characters, \u0000 or unpaired surrogates; an
 * unterminated string is reported at its opening quote.  Returns 0, or -1
 * with *err_off the offending byte and "invalid JSON: ..." in msg.
 */
int fs__jpos_check_text(const char *text, size_t len, size_t *err_off,
                        char *msg, size_t msg_len);

/*
 * Diagnose JSON that cJSON rejected.  Scans text[0..len) with cJSON's grammar
 * and returns the offset of the first error, with a message such as
 * "expected ',' or '}' after object member" in msg.  If the scan finds no
 * error (cJSON rejected something subtler), falls back to `cjson_off` and
 * "invalid JSON near '...'".
 */
size_t fs__jpos_syntax_error(const char *text, size_t len, size_t cjson_off,
                             char *msg, size_t msg_len);

/*
 * Build the position index of `root`, parsed by cJSON from text[0..len) (the
 * stripped text).  O(len) time; one hash entry per node.  Never fails (out of
 * memory aborts); nodes it could not place have no position.
 */
struct fs__jpos *fs__jpos_build(const char *text, size_t len, const cJSON *root);
void fs__jpos_free(struct fs__jpos *ix);                 /* NULL is fine */

/* Offsets of node's key (FS__JPOS_NONE for array elements and the root) and
 * of its value's first byte.  Returns 0, or -1 when the node is unknown. */
int fs__jpos_lookup(const struct fs__jpos *ix, const cJSON *node,
                    size_t *key_off, size_t *val_off);

/* Index `node` and its descendants at the offsets of `src` and its
 * descendants (same shape: a cJSON_Duplicate of src); a node without a
 * counterpart gets src's offsets.  With src NULL, every node gets
 * (key_off, val_off).  Grows the index as needed. */
void fs__jpos_alias(struct fs__jpos *ix, const cJSON *node, const cJSON *src,
                    size_t key_off, size_t val_off);

/* 1-based line and byte column of `off` in text[0..len) (off may be len). */
void fs__jpos_line_col(const char *text, size_t len, size_t off,
                       int *line, int *col);

#endif
