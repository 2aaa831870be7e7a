/*
 * common.c — the error record, the aborting allocators and reading a whole
 * file (see common.h).
 */
#include "fleetsim/common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_str(char *dst, size_t dst_len, const char *src)
{
	if (src == NULL)
		src = "";
	snprintf(dst, dst_len, "%s", src);
}

static void set_msg(struct fs_error *err, const char *fmt, va_list ap)
{
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

int fs_error_set(struct fs_error *err, const char *where, const char *path,
                 const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	copy_str(err->where, sizeof err->where, where);
	copy_str(err->path, sizeof err->path, path);
	va_start(ap, fmt);
	set_msg(err, fmt, ap);
	va_end(ap);
	return -1;
}

int fs_error_at(struct fs_error *err, const char *file, int line, int col,
                const char *path, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	if (file == NULL)
		file = "";
	if (line > 0)
		snprintf(err->where, sizeof err->where, "%s:%d:%d", file, line, col);
	else
		copy_str(err->where, sizeof err->where, file);
	copy_str(err->path, sizeof err->path, path);
	va_start(ap, fmt);
	set_msg(err, fmt, ap);
	va_end(ap);
	return -1;
}

void fs_error_format(const struct fs_error *err, char *buf, size_t buf_len)
{
	size_t used = 0;

	if (buf_len == 0)
		return;
	buf[0] = '\0';
	if (err->where[0] != '\0')
		used += (size_t)snprintf(buf + used, buf_len - used, "%s: ", err->where);
	if (used < buf_len && err->path[0] != '\0')
		used += (size_t)snprintf(buf + used, buf_len - used, "%s: ", err->path);
	if (used < buf_len)
		snprintf(buf + used, buf_len - used, "%s", err->msg);
}

void fs_error_print(const struct fs_error *err)
{
	char buf[2048];

	fs_error_format(err, buf, sizeof buf);
	fprintf(stderr, "%s\n", buf);
}

static void out_of_memory(size_t n_bytes)
{
	fprintf(stderr, "fleetsim: out of memory allocating %zu bytes\n", n_bytes);
	abort();
}

void *fs_xmalloc(size_t n_bytes)
{
	void *p = malloc(n_bytes == 0 ? 1 : n_bytes);

	if (p == NULL)
		out_of_memory(n_bytes);
	return p;
}

void *fs_xcalloc(size_t n, size_t elem_bytes)
{
	void *p = calloc(n == 0 ? 1 : n, elem_bytes == 0 ? 1 : elem_bytes);

	if (p == NULL)
		out_of_memory(n * elem_bytes);
	return p;
}

void *fs_xrealloc(void *p, size_t n_bytes)
{
	void *q = realloc(p, n_bytes == 0 ? 1 : n_bytes);

	if (q == NULL)
		out_of_memory(n_bytes);
	return q;
}

char *fs_xstrdup(const char *s)
{
	size_t n;
	char *copy;

	if (s == NULL)
		return NULL;
	n = strlen(s) + 1;
	copy = fs_xmalloc(n);
	memcpy(copy, s, n);
	return copy;
}

/* The capacity fs_xgrow and fs_xgrow_aligned grow to: doubling from 16. */
static size_t grown_cap(size_t cap, size_t need)
{
	size_t new_cap = cap == 0 ? 16 : cap;

	while (new_cap < need)
		new_cap *= 2;
	return new_cap;
}

void fs_xgrow(void **items, size_t *cap, size_t need, size_t elem_bytes)
{
	size_t new_cap;

	if (need <= *cap)
		return;
	new_cap = grown_cap(*cap, need);
	*items = fs_xrealloc(*items, new_cap * elem_bytes);
	*cap = new_cap;
}

void fs_xgrow_aligned(void **items, size_t *cap, size_t used, size_t need,
                      size_t elem_bytes, size_t align)
{
	size_t new_cap;
	void *p;

	if (need <= *cap)
		return;
	new_cap = grown_cap(*cap, need);
	p = aligned_alloc(align, new_cap * elem_bytes);
	if (p == NULL)
		out_of_memory(new_cap * elem_bytes);
	if (used > 0)
		memcpy(p, *items, used * elem_bytes);
	free(*items);
	*items = p;
	*cap = new_cap;
}

int fs_enum_index(const char *const *names, size_t n, const char *name)
{
	if (name == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

char *fs_read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, used = 0, got;
	int bad, saved;

	if (f == NULL)
		return NULL;
	do {
		fs_xgrow((void **)&buf, &cap, used + 65536 + 1, 1);
		got = fread(buf + used, 1, cap - used - 1, f);
		used += got;
	} while (got > 0);
	bad = ferror(f);
	saved = errno;
	fclose(f);
	if (bad) {
		free(buf);
		errno = saved != 0 ? saved : EIO;
		return NULL;
	}
	buf[used] = '\0';
	if (len != NULL)
		*len = used;
	return buf;
}

bool fs_number_syntax(const char *text, size_t len, bool integer)
{
	size_t i = 0, digits;

	if (i < len && text[i] == '-')
		i++;
	for (digits = 0; i < len && text[i] >= '0' && text[i] <= '9'; i++)
		digits++;
	if (digits == 0 || (digits > 1 && text[i - digits] == '0'))
		return false;                  /* no digit, or a leading zero */
	if (integer)
		return i == len;
	if (i < len && text[i] == '.') {
		for (i++, digits = 0; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			digits++;
		if (digits == 0)
			return false;
	}
	if (i < len && (text[i] == 'e' || text[i] == 'E')) {
		i++;
		if (i < len && (text[i] == '+' || text[i] == '-'))
			i++;
		for (digits = 0; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			digits++;
		if (digits == 0)
			return false;
	}
	return i == len;
}
