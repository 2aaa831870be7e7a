/*
 * scenario_text.c — from bytes to a parsed document, for scenarios and
 * catalogue files alike: reading a file whole (at most 64 MiB), stripping
 * comments, checking strict JSON text rules (UTF-8, control characters,
 * numbers), parsing with cJSON and indexing node positions, with text-level
 * errors (NUL bytes, unterminated comments, syntax) reported at their
 * line:column.  The caller owns the returned tree, buffer and index;
 * fs__sc_load_file runs a whole read-parse-walk and frees them itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_pos.h"
#include "scenario_walk.h"

#define MAX_SCENARIO_BYTES (64u << 20)

/* Report a text-level error (comment, syntax) at byte offset `off`. */
static void text_error(const char *text, size_t len, const char *file, size_t off,
                       const char *msg, struct fs_error *err)
{
	int line, col;

	fs__jpos_line_col(text, len, off, &line, &col);
	fs_error_at(err, file, line, col, "$", "%s", msg);
}

cJSON *fs__sc_parse(const char *text, size_t text_len, const char *file,
                    char **buf_out, struct fs__jpos **pos_out, struct fs_error *err)
{
	const char *parse_end = NULL, *nul;
	char *buf, msg[256];
	cJSON *root = NULL;
	size_t off;

	buf = fs_xmalloc(text_len + 1);
	memcpy(buf, text, text_len);
	buf[text_len] = '\0';
	nul = memchr(buf, '\0', text_len);
	if (nul != NULL) {
		text_error(buf, text_len, file, (size_t)(nul - buf),
		           "invalid JSON: unexpected NUL byte", err);
		goto fail;
	}
	if (fs__jpos_strip_comments(buf, text_len, &off) != 0) {
		text_error(text, text_len, file, off, "unterminated /* comment", err);
		goto fail;
	}
	if (fs__jpos_check_text(buf, text_len, &off, msg, sizeof msg) != 0) {
		text_error(buf, text_len, file, off, msg, err);
		goto fail;
	}
	root = cJSON_ParseWithLengthOpts(buf, text_len + 1, &parse_end, 1);
	if (root == NULL) {
		off = parse_end != NULL ? (size_t)(parse_end - buf) : 0;
		off = fs__jpos_syntax_error(buf, text_len, off, msg, sizeof msg);
		text_error(buf, text_len, file, off, msg, err);
		goto fail;
	}
	*pos_out = fs__jpos_build(buf, text_len, root);
	*buf_out = buf;
	return root;
fail:
	free(buf);
	*buf_out = NULL;
	*pos_out = NULL;
	return NULL;
}

char *fs__sc_read_file(const char *path, const char *what, size_t *len,
                       struct fs_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, used = 0, got;

	if (f == NULL) {
		fs_error_at(err, path, 0, 0, NULL, "cannot open %s: %s", what,
		            strerror(errno));
		return NULL;
	}
	do {
		if (used + 4096 > cap) {
			cap = cap == 0 ? 16384 : cap * 2;
			buf = fs_xrealloc(buf, cap);
		}
		got = fread(buf + used, 1, cap - used, f);
		used += got;
	} while (got > 0 && used <= MAX_SCENARIO_BYTES);
	if (ferror(f) || used > MAX_SCENARIO_BYTES) {
		if (ferror(f))
			fs_error_at(err, path, 0, 0, NULL, "cannot read %s: %s", what,
			            strerror(errno));
		else
			fs_error_at(err, path, 0, 0, NULL, "%s is larger than 64 MiB", what);
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*len = used;
	return buf;
}

char *fs__sc_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (slash == NULL)
		return fs_xstrdup(".");
	dir = fs_xstrdup(path);
	dir[slash == path ? 1 : (size_t)(slash - path)] = '\0';
	return dir;
}

int fs__sc_load_text(const char *text, size_t len, const char *path,
                     int (*load)(struct fs__sc *sc, const cJSON *root, void *ctx),
                     void *ctx, struct fs_error *err)
{
	struct fs__jpos *pos = NULL;
	struct fs__sc sc;
	char *buf = NULL, *dir;
	cJSON *root;
	int rc = -1;

	root = fs__sc_parse(text, len, path, &buf, &pos, err);
	if (root != NULL) {
		dir = fs__sc_dir_of(path);
		memset(&sc, 0, sizeof sc);
		sc.file = path;
		sc.text = buf;
		sc.text_len = len;
		sc.pos = pos;
		sc.base_dir = dir;
		sc.err = err;
		rc = load(&sc, root, ctx) != 0 || sc.n_failures > 0 ? -1 : 0;
		free(dir);
	}
	cJSON_Delete(root);
	fs__jpos_free(pos);
	free(buf);
	return rc;
}

int fs__sc_load_file(const char *path, const char *what,
                     int (*load)(struct fs__sc *sc, const cJSON *root, void *ctx),
                     void *ctx, struct fs_error *err)
{
	size_t len = 0;
	char *text = fs__sc_read_file(path, what, &len, err);
	int rc;

	if (text == NULL)
		return -1;
	rc = fs__sc_load_text(text, len, path, load, ctx, err);
	free(text);
	return rc;
}
