/*
 * out_format.h — the one number format of the output files and the one way
 * a JSON document becomes text (docs/OUTPUTS.md).  A figure in a CSV cell or
 * a JSON value is written with FS_OUT_DIGITS significant digits; one that is
 * not finite is an empty CSV cell or a JSON null.  Text from fs_json_text
 * is the caller's (free).  Base layer, so that every writer may call it;
 * the atomic file writes are in outfile.h, the CSV quoting in escape.h.
 */
#ifndef FLEETSIM_OUT_FORMAT_H
#define FLEETSIM_OUT_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "fleetsim/escape.h"

struct cJSON;

/* Significant digits of every figure in summary.json, the other JSON
 * outputs and every CSV file ("%.9g"; docs/DETERMINISM.md D6). */
#define FS_OUT_DIGITS 9

/* Buffer size that holds any figure fs_out_num writes. */
#define FS_OUT_NUM_LEN 32

/* Write x into buf (FS_OUT_NUM_LEN bytes) with FS_OUT_DIGITS significant
 * digits, printf's %g form ("0.333333333", "1.5e+12", "42"); "" when x is
 * NAN or infinite.  Returns buf. */
const char *fs_out_num(char *buf, double x);

/* A money figure for a table or a text report: x with two decimals
 * ("12.50"), "-" when x is NAN.  Returns buf (len bytes). */
const char *fs_out_money(char *buf, size_t len, double x);

/* x rounded to FS_OUT_DIGITS significant digits: the double that reading
 * fs_out_num's text back gives.  NAN and infinities are returned as they
 * are. */
double fs_out_round(double x);

/* Append a separator and then x as a CSV cell (",0.333333333"; "," alone
 * for NAN or an infinity), to a stream or to a buffer. */
void fs_csv_put_num(FILE *f, double x);
void fs_sbuf_csv_num(struct fs_sbuf *b, double x);

/* x as a JSON value: a number rounded by fs_out_round (cJSON then prints
 * the shortest text that reads back as that double), or null when x is not
 * finite.  The caller owns the item (add it to an object or array).
 * fs_json_add_num adds it to object o under key. */
struct cJSON *fs_json_num(double x);
void fs_json_add_num(struct cJSON *o, const char *key, double x);

/* Flags of fs_json_text. */
enum {
	FS_JSON_PRETTY = 1,          /* cJSON_Print's indented form (else one line) */
	FS_JSON_NEWLINE = 2          /* end the text with '\n' */
};

/* root as JSON text (NUL-terminated; the caller frees it).  Out of memory
 * aborts with a message: this is the one place a JSON output is printed, so
 * the one place that can run out printing one. */
char *fs_json_text(const struct cJSON *root, int flags);

#endif
