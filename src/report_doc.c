/*
 * report_doc.c — the report's document model: headings, paragraphs, list
 * items, images and tables appended in order, for the HTML and Markdown
 * renderers to walk.  The text is stored raw; the renderers escape it.  The
 * report owns every block and string (fs__report_fini frees them).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

static struct fs__block *new_block(struct fs__report *r, enum fs__block_kind kind)
{
	struct fs__block *b;

	fs_xgrow((void **)&r->blocks, &r->cap_blocks, r->n_blocks + 1, sizeof *r->blocks);
	b = &r->blocks[r->n_blocks++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	return b;
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *s;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return fs_xstrdup("");
	s = fs_xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

void fs__doc_heading(struct fs__report *r, int level, const char *fmt, ...)
{
	struct fs__block *b = new_block(r, FS__BLK_HEADING);
	va_list ap;

	b->level = level;
	va_start(ap, fmt);
	b->text = vformat(fmt, ap);
	va_end(ap);
}

void fs__doc_para(struct fs__report *r, const char *fmt, ...)
{
	struct fs__block *b = new_block(r, FS__BLK_PARA);
	va_list ap;

	va_start(ap, fmt);
	b->text = vformat(fmt, ap);
	va_end(ap);
}

void fs__doc_item(struct fs__report *r, const char *fmt, ...)
{
	struct fs__block *b = new_block(r, FS__BLK_ITEM);
	va_list ap;

	va_start(ap, fmt);
	b->text = vformat(fmt, ap);
	va_end(ap);
}

void fs__doc_image(struct fs__report *r, const char *name, const char *caption)
{
	struct fs__block *b = new_block(r, FS__BLK_IMAGE);

	b->image = fs_xstrdup(name);
	b->text = fs_xstrdup(caption);
}

struct fs__block *fs__doc_table(struct fs__report *r, size_t n_cols)
{
	struct fs__block *b = new_block(r, FS__BLK_TABLE);

	b->n_cols = n_cols;
	return b;
}

void fs__doc_row(struct fs__block *t, const char *const *cells)
{
	size_t k;

	t->cells = fs_xrealloc(t->cells, (t->n_rows + 1) * t->n_cols * sizeof *t->cells);
	for (k = 0; k < t->n_cols; k++)
		t->cells[t->n_rows * t->n_cols + k] = fs_xstrdup(cells[k] ? cells[k] : "");
	t->n_rows++;
}
