/*
 * report_md.c — render the report's document model as Markdown
 * (DIR/report.md, atomic).  Every piece of text goes through fs_sbuf_md;
 * images are referenced as plots/<name>.png beside the file.
 */
#include <stdio.h>

#include "fleetsim/escape.h"
#include "fleetsim/outfile.h"
#include "report_internal.h"

int fs__report_write_md(const struct fs__report *r, const char *path,
                        struct fs_error *err)
{
	struct fs_sbuf b;
	size_t i, row, k;
	int rc;

	fs_sbuf_init(&b);
	for (i = 0; i < r->n_blocks; i++) {
		const struct fs__block *blk = &r->blocks[i];
		int next_item = i + 1 < r->n_blocks && r->blocks[i + 1].kind == FS__BLK_ITEM;

		switch (blk->kind) {
		case FS__BLK_HEADING:
			fs_sbuf_printf(&b, "%.*s ", blk->level, "####");
			fs_sbuf_md(&b, blk->text);
			fs_sbuf_puts(&b, "\n\n");
			break;
		case FS__BLK_PARA:
			fs_sbuf_md(&b, blk->text);
			fs_sbuf_puts(&b, "\n\n");
			break;
		case FS__BLK_ITEM:
			fs_sbuf_puts(&b, "- ");
			fs_sbuf_md(&b, blk->text);
			fs_sbuf_puts(&b, next_item ? "\n" : "\n\n");
			break;
		case FS__BLK_IMAGE:
			/* Plot names are fixed identifiers, never user text. */
			fs_sbuf_puts(&b, "![");
			fs_sbuf_md(&b, blk->image);
			fs_sbuf_printf(&b, "](plots/%s.png)\n\n*", blk->image);
			fs_sbuf_md(&b, blk->text);
			fs_sbuf_printf(&b, "* (vector: [plots/%s.svg](plots/%s.svg))\n\n",
			               blk->image, blk->image);
			break;
		case FS__BLK_TABLE:
			for (row = 0; row < blk->n_rows; row++) {
				fs_sbuf_puts(&b, "|");
				for (k = 0; k < blk->n_cols; k++) {
					fs_sbuf_puts(&b, " ");
					fs_sbuf_md(&b, blk->cells[row * blk->n_cols + k]);
					fs_sbuf_puts(&b, " |");
				}
				fs_sbuf_puts(&b, "\n");
				if (row == 0) {
					fs_sbuf_puts(&b, "|");
					for (k = 0; k < blk->n_cols; k++)
						fs_sbuf_puts(&b, k ? "---:|" : "---|");
					fs_sbuf_puts(&b, "\n");
				}
			}
			fs_sbuf_puts(&b, "\n");
			break;
		}
	}
	rc = fs_outfile_write(path, fs_sbuf_str(&b), b.len, err);
	fs_sbuf_fini(&b);
	return rc;
}
