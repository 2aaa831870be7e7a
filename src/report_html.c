/*
 * report_html.c — render the report's document model as one self-contained
 * HTML file (DIR/report.html, atomic): inline CSS with a print style, the
 * PNG plots embedded as base64 data: URIs (no external file, script or
 * font), links to the SVGs beside it.  Every piece of text goes through
 * fs_sbuf_html.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "fleetsim/outfile.h"
#include "report_internal.h"

static const char css[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
	"max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}"
	"h1{border-bottom:2px solid #1f77b4;padding-bottom:.2em}"
	"h2{margin-top:1.8em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:.8em 0;font-size:.92em}"
	"th,td{border:1px solid #ccc;padding:.3em .6em;text-align:right;vertical-align:top}"
	"th{background:#f2f5f9}td:first-child,th:first-child{text-align:left}"
	"figure{margin:1.2em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}"
	"figcaption{font-size:.9em;color:#444}"
	".rec{background:#eef7ee;border-left:4px solid #2ca02c;padding:.2em 1em}"
	"@media print{body{max-width:none;margin:0;font-size:10pt}"
	"h2{page-break-after:avoid}figure,table{page-break-inside:avoid}"
	"a{color:inherit;text-decoration:none}}";

static void base64(struct fs_sbuf *b, const unsigned char *d, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;
	char q[5];

	q[4] = '\0';
	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16;

		if (i + 1 < n)
			v |= (unsigned)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		q[0] = tab[(v >> 18) & 63];
		q[1] = tab[(v >> 12) & 63];
		q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? tab[v & 63] : '=';
		fs_sbuf_puts(b, q);
	}
}

static int embed_png(struct fs_sbuf *b, const struct fs__report *r, const char *name,
                     struct fs_error *err)
{
	char path[4096];
	FILE *f;
	unsigned char *data = NULL;
	size_t len = 0, cap = 0, n;

	snprintf(path, sizeof path, "%s/%s.png", r->plot_set->stage, name);
	f = fopen(path, "rb");
	if (!f)
		return fs_error_set(err, path, NULL, "cannot read: %s", strerror(errno));
	do {
		fs_xgrow((void **)&data, &cap, len + 65536, 1);
		n = fread(data + len, 1, 65536, f);
		len += n;
	} while (n == 65536);
	fclose(f);
	fs_sbuf_puts(b, "data:image/png;base64,");
	base64(b, data, len);
	free(data);
	return 0;
}

int fs__report_write_html(const struct fs__report *r, const char *path,
                          struct fs_error *err)
{
	struct fs_sbuf b;
	size_t i, row, k;
	int rc = 0, in_list = 0;
	const char *title = r->n_blocks && r->blocks[0].kind == FS__BLK_HEADING
	                    ? r->blocks[0].text : "fleetsim report";

	fs_sbuf_init(&b);
	fs_sbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	             "<title>");
	fs_sbuf_html(&b, title);
	fs_sbuf_printf(&b, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
	for (i = 0; i < r->n_blocks && rc == 0; i++) {
		const struct fs__block *blk = &r->blocks[i];

		if (blk->kind != FS__BLK_ITEM && in_list) {
			fs_sbuf_puts(&b, "</ul>\n");
			in_list = 0;
		}
		switch (blk->kind) {
		case FS__BLK_HEADING:
			fs_sbuf_printf(&b, "<h%d>", blk->level);
			fs_sbuf_html(&b, blk->text);
			fs_sbuf_printf(&b, "</h%d>\n", blk->level);
			break;
		case FS__BLK_PARA:
			fs_sbuf_puts(&b, "<p>");
			fs_sbuf_html(&b, blk->text);
			fs_sbuf_puts(&b, "</p>\n");
			break;
		case FS__BLK_ITEM:
			if (!in_list)
				fs_sbuf_puts(&b, "<ul>\n");
			in_list = 1;
			fs_sbuf_puts(&b, "<li>");
			fs_sbuf_html(&b, blk->text);
			fs_sbuf_puts(&b, "</li>\n");
			break;
		case FS__BLK_IMAGE:
			fs_sbuf_puts(&b, "<figure><img alt=\"");
			fs_sbuf_html(&b, blk->image);
			fs_sbuf_puts(&b, " plot\" src=\"");
			rc = embed_png(&b, r, blk->image, err);
			fs_sbuf_puts(&b, "\"><figcaption>");
			fs_sbuf_html(&b, blk->text);
			fs_sbuf_puts(&b, " <a href=\"plots/");
			fs_sbuf_html(&b, blk->image);
			fs_sbuf_puts(&b, ".svg\">(SVG)</a></figcaption></figure>\n");
			break;
		case FS__BLK_TABLE:
			fs_sbuf_puts(&b, "<table>\n");
			for (row = 0; row < blk->n_rows; row++) {
				const char *cell = row ? "td" : "th";

				fs_sbuf_puts(&b, "<tr>");
				for (k = 0; k < blk->n_cols; k++) {
					fs_sbuf_printf(&b, "<%s>", cell);
					fs_sbuf_html(&b, blk->cells[row * blk->n_cols + k]);
					fs_sbuf_printf(&b, "</%s>", cell);
				}
				fs_sbuf_puts(&b, "</tr>\n");
			}
			fs_sbuf_puts(&b, "</table>\n");
			break;
		}
	}
	if (in_list)
		fs_sbuf_puts(&b, "</ul>\n");
	fs_sbuf_puts(&b, "</body>\n</html>\n");
	if (rc == 0)
		rc = fs_outfile_write(path, fs_sbuf_str(&b), b.len, err);
	fs_sbuf_fini(&b);
	return rc;
}
