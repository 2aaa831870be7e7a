/*
 * out_format.c — the number format of the output files and JSON printing
 * (see out_format.h).  "%.9g" is read back with strtod so that a JSON value
 * and a CSV cell of the same figure name the same double.  Holds no state.
 */
#include "fleetsim/out_format.h"
#include "fleetsim/common.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define NUM_FMT "%." STR(FS_OUT_DIGITS) "g"

const char *fs_out_num(char *buf, double x)
{
	if (isfinite(x))
		snprintf(buf, FS_OUT_NUM_LEN, NUM_FMT, x);
	else
		buf[0] = '\0';
	return buf;
}

const char *fs_out_money(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", x);
	return buf;
}

double fs_out_round(double x)
{
	char buf[FS_OUT_NUM_LEN];

	if (!isfinite(x))
		return x;
	return strtod(fs_out_num(buf, x), NULL);
}

void fs_csv_put_num(FILE *f, double x)
{
	char buf[FS_OUT_NUM_LEN];

	fputc(',', f);
	fputs(fs_out_num(buf, x), f);
}

void fs_sbuf_csv_num(struct fs_sbuf *b, double x)
{
	char buf[FS_OUT_NUM_LEN];

	fs_sbuf_puts(b, ",");
	fs_sbuf_puts(b, fs_out_num(buf, x));
}

struct cJSON *fs_json_num(double x)
{
	if (!isfinite(x))
		return cJSON_CreateNull();
	return cJSON_CreateNumber(fs_out_round(x));
}

void fs_json_add_num(struct cJSON *o, const char *key, double x)
{
	cJSON_AddItemToObject(o, key, fs_json_num(x));
}

char *fs_json_text(const struct cJSON *root, int flags)
{
	char *text = (flags & FS_JSON_PRETTY) ? cJSON_Print(root) :
	             cJSON_PrintUnformatted(root);
	char *out;
	size_t n;

	if (text == NULL) {
		fprintf(stderr, "fleetsim: out of memory printing JSON\n");
		abort();
	}
	n = strlen(text);
	out = fs_xmalloc(n + 2);
	memcpy(out, text, n);
	if (flags & FS_JSON_NEWLINE)
		out[n++] = '\n';
	out[n] = '\0';
	cJSON_free(text);
	return out;
}
