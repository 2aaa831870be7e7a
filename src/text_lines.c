/*
 * text_lines.c — line reading, CSV splitting and strict number parsing for the
 * trace and empirical readers (see text_lines.h).  The reader owns its
 * line buffer; CSV fields point into the caller's line and stay valid until
 * the next line is read.  CSV quoting is minimal: one pair of surrounding
 * double quotes is trimmed, commas inside quotes are not supported.
 */
#include "text_lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

int fs__lines_open(struct fs__lines *r, const char *path, const char *display,
                   struct fs_error *err)
{
	struct stat st;

	memset(r, 0, sizeof *r);
	r->display = display;
	r->f = fopen(path, "r");
	if (r->f == NULL)
		return fs_error_at(err, display, 0, 0, "", "cannot open: %s",
		                   strerror(errno));
	if (fstat(fileno(r->f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(r->f);
		r->f = NULL;
		return fs_error_at(err, display, 0, 0, "", "cannot open: it is a "
		                   "directory; expected a file");
	}
	return 0;
}

int fs__lines_next(struct fs__lines *r, struct fs_error *err)
{
	ssize_t got;

	errno = 0;
	got = getline(&r->line, &r->cap, r->f);
	if (got < 0) {
		if (ferror(r->f))
			return fs_error_at(err, r->display, r->line_no + 1, 1, "",
			                   "read error: %s", strerror(errno));
		return 0;
	}
	r->line_no++;
	r->len = (size_t)got;
	while (r->len > 0 && (r->line[r->len - 1] == '\n' || r->line[r->len - 1] == '\r'))
		r->line[--r->len] = '\0';
	if (r->line_no == 1 && r->len >= 3 && memcmp(r->line, "\xEF\xBB\xBF", 3) == 0) {
		memmove(r->line, r->line + 3, r->len - 2);
		r->len -= 3;
	}
	return 1;
}

void fs__lines_close(struct fs__lines *r)
{
	if (r->f != NULL)
		fclose(r->f);
	r->f = NULL;
	free(r->line);
	r->line = NULL;
	r->cap = 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

void fs__csv_split(struct fs__csv *c, const char *line)
{
	const char *p = line;

	c->n = 0;
	for (;;) {
		const char *end = strchr(p, ',');
		const char *stop = end != NULL ? end : p + strlen(p);
		const char *s = p;
		struct fs__csv_field *fld;

		while (s < stop && is_space(*s))
			s++;
		while (stop > s && is_space(stop[-1]))
			stop--;
		if (stop - s >= 2 && *s == '"' && stop[-1] == '"') {
			s++;
			stop--;
		}
		fs_xgrow((void **)&c->fields, &c->cap, c->n + 1, sizeof *c->fields);
		fld = &c->fields[c->n++];
		fld->s = s;
		fld->len = (size_t)(stop - s);
		fld->col = (int)(s - line) + 1;
		if (end == NULL)
			break;
		p = end + 1;
	}
}

int fs__csv_find(const struct fs__csv *c, const char *name)
{
	size_t name_len = strlen(name);

	for (size_t i = 0; i < c->n; i++)
		if (c->fields[i].len == name_len &&
		    memcmp(c->fields[i].s, name, name_len) == 0)
			return (int)i;
	return -1;
}

void fs__csv_fini(struct fs__csv *c)
{
	free(c->fields);
	c->fields = NULL;
	c->n = c->cap = 0;
}

int fs__is_blank(const char *line)
{
	for (; *line != '\0'; line++)
		if (!is_space(*line))
			return 0;
	return 1;
}

int fs__parse_count(const char *s, size_t len, int64_t *out)
{
	const int64_t limit = INT64_C(1000000000000000);
	int64_t v = 0;
	size_t i = 0;

	if (len > 0 && s[0] == '+')
		i++;
	if (i == len || s[i] < '0' || s[i] > '9')
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (s[i] - '0');
		if (v > limit)
			return -1;
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] == '0'; i++)
			;
	}
	if (i != len)
		return -1;
	*out = v;
	return 0;
}

void fs__quote(const char *s, size_t len, char *buf, size_t buf_len)
{
	const size_t max_shown = 40;

	if (len == 0) {
		snprintf(buf, buf_len, "an empty field");
		return;
	}
	if (len > max_shown)
		snprintf(buf, buf_len, "\"%.*s...\"", (int)max_shown, s);
	else
		snprintf(buf, buf_len, "\"%.*s\"", (int)len, s);
}
