/*
 * report.c — `fleetsim report DIR`: load the directory, draw the plots,
 * fill the document model and write report.html and report.md (see
 * report.h).  Also the document-model builders the content uses.  The
 * document's text is raw; the renderers escape it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
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

int fs_report_build(const char *dir, const char *gnuplot, char *html_path,
                    size_t html_len, struct fs_error *err)
{
	struct fs__report r;
	char path[4096];
	int rc = FS_EXIT_RUNTIME;

	if (fs__report_load(&r, dir, err)) {
		fs__report_fini(&r);
		return FS_EXIT_INPUT;
	}
	r.gnuplot = gnuplot;
	if (fs__report_plots(&r, err))
		goto out;
	fs__report_content(&r);
	snprintf(path, sizeof path, "%s/report.md", dir);
	if (fs__report_write_md(&r, path, err))
		goto out;
	snprintf(path, sizeof path, "%s/report.html", dir);
	if (fs__report_write_html(&r, path, err))
		goto out;
	if (html_len)
		snprintf(html_path, html_len, "%s", path);
	rc = FS_EXIT_OK;
out:
	fs__report_fini(&r);
	return rc;
}
