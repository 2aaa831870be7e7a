/*
 * empirical.c — loads token counts for an EMPIRICAL length distribution: a
 * list with one integer per line, or one named column of a CSV file with a
 * header (e.g. ContextTokens of an Azure trace).  Values must be >= 1; on any
 * error nothing is returned.  The caller owns the returned array.
 */
#include "fleetsim/trace.h"

#include <stdlib.h>
#include <string.h>

#include "text_lines.h"

/* Append one value after checking it; returns -1 with err filled. */
static int add_value(const struct fs__lines *in, int col, const char *s, size_t len,
                     const char *what, int64_t **vals, size_t *n, size_t *cap,
                     struct fs_error *err)
{
	int64_t v;

	if (fs__parse_count(s, len, &v) || v < 1) {
		char found[64];

		fs__quote(s, len, found, sizeof found);
		return fs_error_at(err, in->display, in->line_no, col, "",
		                   "expected a positive integer token count%s%s, found %s",
		                   what[0] != '\0' ? " in column " : "", what, found);
	}
	fs_xgrow((void **)vals, cap, *n + 1, sizeof **vals);
	(*vals)[(*n)++] = v;
	return 0;
}

/* One number per line; blank lines and lines starting with '#' skipped. */
static int read_list(struct fs__lines *in, int64_t **vals, size_t *n, size_t *cap,
                     struct fs_error *err)
{
	int got;

	while ((got = fs__lines_next(in, err)) == 1) {
		const char *s = in->line;
		size_t len;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#')
			continue;
		len = strlen(s);
		while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (add_value(in, (int)(s - in->line) + 1, s, len, "", vals, n, cap, err))
			return -1;
	}
	return got;
}

/* A CSV file with a header; values from the column named `column`. */
static int read_column(struct fs__lines *in, const char *column, int64_t **vals,
                       size_t *n, size_t *cap, struct fs_error *err)
{
	struct fs__csv csv = {0};
	int got, idx = -1, rc = -1;

	while ((got = fs__lines_next(in, err)) == 1 && fs__is_blank(in->line))
		;
	if (got <= 0) {
		rc = got < 0 ? -1 : 0;
		goto out;
	}
	fs__csv_split(&csv, in->line);
	idx = fs__csv_find(&csv, column);
	if (idx < 0) {
		fs_error_at(err, in->display, in->line_no, 1, "",
		            "missing column %s in the header", column);
		goto out;
	}
	while ((got = fs__lines_next(in, err)) == 1) {
		const struct fs__csv_field *f;

		if (fs__is_blank(in->line))
			continue;
		fs__csv_split(&csv, in->line);
		if ((size_t)idx >= csv.n) {
			fs_error_at(err, in->display, in->line_no, (int)in->len + 1, "",
			            "expected a value in column %s, found the end of the line",
			            column);
			goto out;
		}
		f = &csv.fields[idx];
		if (add_value(in, f->col, f->s, f->len, column, vals, n, cap, err))
			goto out;
	}
	rc = got < 0 ? -1 : 0;
out:
	fs__csv_fini(&csv);
	return rc;
}

int fs_empirical_load(const char *path, const char *display_path,
                      const char *column, int64_t **values, size_t *n_values,
                      struct fs_error *err)
{
	struct fs__lines in;
	int64_t *vals = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (display_path == NULL)
		display_path = path;
	if (fs__lines_open(&in, path, display_path, err))
		return -1;
	rc = column != NULL ? read_column(&in, column, &vals, &n, &cap, err)
	                    : read_list(&in, &vals, &n, &cap, err);
	fs__lines_close(&in);
	if (rc == 0 && n == 0)
		rc = fs_error_at(err, display_path, 0, 0, "",
		                 "no token counts found (expected %s)",
		                 column != NULL ? "rows after the header" : "one integer per line");
	if (rc != 0) {
		free(vals);
		return -1;
	}
	*values = vals;
	*n_values = n;
	return 0;
}
