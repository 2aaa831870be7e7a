/*
 * scenario_walk.c — the strict-walk context and typed readers (see
 * scenario_walk.h).  Every message names what was expected and what was
 * found, quoting the value as written in the file.  Integers are read from
 * valuedouble and range-checked here (cJSON's valueint saturates).
 */
#include "scenario_walk.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleetsim/scenario.h"
#include "suggest.h"

#define DURATION_EXPECTED "expected a duration such as \"90s\", \"15m\", \"2h\", " \
                          "\"1d\" or a number of seconds"

/* ---- path ------------------------------------------------------------------ */

size_t fs__sc_push_key(struct fs__sc *sc, const char *key)
{
	size_t saved = sc->path_len;
	int n = snprintf(sc->path + sc->path_len, sizeof sc->path - sc->path_len,
	                 "%s%s", sc->path_len == 0 ? "" : ".", key);

	if (n > 0)
		sc->path_len += (size_t)n;
	if (sc->path_len >= sizeof sc->path)
		sc->path_len = sizeof sc->path - 1;
	return saved;
}

size_t fs__sc_push_index(struct fs__sc *sc, size_t i)
{
	size_t saved = sc->path_len;
	int n = snprintf(sc->path + sc->path_len, sizeof sc->path - sc->path_len,
	                 "[%zu]", i);

	if (n > 0)
		sc->path_len += (size_t)n;
	if (sc->path_len >= sizeof sc->path)
		sc->path_len = sizeof sc->path - 1;
	return saved;
}

void fs__sc_pop(struct fs__sc *sc, size_t saved_len)
{
	sc->path_len = saved_len;
	sc->path[saved_len] = '\0';
}

void fs__sc_path_save(const struct fs__sc *sc, struct fs__sc_saved_path *saved)
{
	memcpy(saved->path, sc->path, sizeof saved->path);
	saved->len = sc->path_len;
}

void fs__sc_path_restore(struct fs__sc *sc, const struct fs__sc_saved_path *saved)
{
	memcpy(sc->path, saved->path, sizeof sc->path);
	sc->path_len = saved->len;
}

void fs__sc_path_set(struct fs__sc *sc, const char *path)
{
	snprintf(sc->path, sizeof sc->path, "%s", path);
	sc->path_len = strlen(sc->path);
}

/* ---- errors ------------------------------------------------------------------- */

static int vfail_off(struct fs__sc *sc, size_t off, const char *fmt, va_list ap)
{
	char msg[sizeof sc->err->msg];
	int line = 0, col = 0;

	sc->n_failures++;
	if (sc->err == NULL)
		return -1;
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (off != FS__JPOS_NONE && off >= FS__JPOS_SET_BASE &&
	    off - FS__JPOS_SET_BASE < sc->n_set_texts) {
		/* a value from the command line: name the --set it came from */
		char where[sizeof sc->err->where];

		snprintf(where, sizeof where, "--set %s",
		         sc->set_texts[off - FS__JPOS_SET_BASE]);
		return fs_error_set(sc->err, where, sc->path_len == 0 ? "$" : sc->path,
		                    "%s", msg);
	}
	if (off != FS__JPOS_NONE && off <= sc->text_len)
		fs__jpos_line_col(sc->text, sc->text_len, off, &line, &col);
	return fs_error_at(sc->err, sc->file, line, col,
	                   sc->path_len == 0 ? "$" : sc->path, "%s", msg);
}

static size_t value_off(const struct fs__sc *sc, const cJSON *node)
{
	size_t key_off, val_off;

	fs__jpos_lookup(sc->pos, node, &key_off, &val_off);
	return val_off;
}

static size_t key_off_of(const struct fs__sc *sc, const cJSON *node)
{
	size_t key_off, val_off;

	fs__jpos_lookup(sc->pos, node, &key_off, &val_off);
	return key_off != FS__JPOS_NONE ? key_off : val_off;
}

char *fs__sc_place(const struct fs__sc *sc, const cJSON *node)
{
	size_t n = strlen(sc->file) + 32;
	char *at = fs_xmalloc(n);
	int line, col;

	fs__jpos_line_col(sc->text, sc->text_len, value_off(sc, node), &line, &col);
	snprintf(at, n, "%s:%d:%d", sc->file, line, col);
	return at;
}

int fs__sc_fail_at(struct fs__sc *sc, const cJSON *node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_off(sc, value_off(sc, node), fmt, ap);
	va_end(ap);
	return -1;
}

int fs__sc_fail_at_key(struct fs__sc *sc, const cJSON *node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_off(sc, key_off_of(sc, node), fmt, ap);
	va_end(ap);
	return -1;
}

/* At obj[key]'s key (at_key) or value, or at obj when it lacks key, with
 * the path extended by key. */
static void vfail_member(struct fs__sc *sc, const cJSON *obj, const char *key, bool at_key,
                         const char *fmt, va_list ap)
{
	const cJSON *node = fs__sc_get(obj, key);
	size_t saved = fs__sc_push_key(sc, key);

	vfail_off(sc, node == NULL ? value_off(sc, obj) :
	              at_key ? key_off_of(sc, node) : value_off(sc, node), fmt, ap);
	fs__sc_pop(sc, saved);
}

int fs__sc_fail_member(struct fs__sc *sc, const cJSON *obj, const char *key,
                       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_member(sc, obj, key, false, fmt, ap);
	va_end(ap);
	return -1;
}

int fs__sc_fail_member_key(struct fs__sc *sc, const cJSON *obj, const char *key,
                           const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_member(sc, obj, key, true, fmt, ap);
	va_end(ap);
	return -1;
}

const char *fs__sc_type_name(const cJSON *node)
{
	if (cJSON_IsString(node))
		return "a string";
	if (cJSON_IsNumber(node))
		return "a number";
	if (cJSON_IsObject(node))
		return "an object";
	if (cJSON_IsArray(node))
		return "an array";
	if (cJSON_IsBool(node))
		return "a boolean";
	return "null";
}

/* The text of command-line set i's value when it is the number `node` as
 * written ("1e400", "9007199254740993": what a double cannot show), else
 * NULL. */
static const char *set_number_text(const struct fs__sc *sc, size_t off, const cJSON *node)
{
	const char *eq;

	if (!cJSON_IsNumber(node) || off == FS__JPOS_NONE || off < FS__JPOS_SET_BASE ||
	    off - FS__JPOS_SET_BASE >= sc->n_set_texts)
		return NULL;
	eq = strchr(sc->set_texts[off - FS__JPOS_SET_BASE], '=');
	return eq != NULL && fs_number_syntax(eq + 1, strlen(eq + 1), false) ? eq + 1 : NULL;
}

void fs__sc_found(const struct fs__sc *sc, const cJSON *node, char *buf, size_t buf_len)
{
	size_t off = value_off(sc, node), n = 0, max = 40;
	const char *s;

	if (cJSON_IsObject(node) || cJSON_IsArray(node) || cJSON_IsNull(node)) {
		snprintf(buf, buf_len, "%s", fs__sc_type_name(node));
		return;
	}
	if (off == FS__JPOS_NONE || off >= sc->text_len) {
		if (set_number_text(sc, off, node) != NULL)
			snprintf(buf, buf_len, "%.40s", set_number_text(sc, off, node));
		else if (cJSON_IsNumber(node))
			fs__sc_format_number(node->valuedouble, buf, buf_len);
		else if (cJSON_IsString(node))
			snprintf(buf, buf_len, "\"%.40s\"", node->valuestring);
		else
			snprintf(buf, buf_len, "%s", cJSON_IsTrue(node) ? "true" : "false");
		return;
	}
	s = sc->text + off;
	if (cJSON_IsString(node)) {
		for (n = 1; off + n < sc->text_len && s[n] != '"' && n < max; n++)
			if (s[n] == '\\' && off + n + 1 < sc->text_len)
				n++;
		if (off + n < sc->text_len && s[n] == '"')
			snprintf(buf, buf_len, "%.*s", (int)n + 1, s);
		else
			snprintf(buf, buf_len, "%.*s...\"", (int)n, s);
		return;
	}
	while (off + n < sc->text_len && n < max && s[n] != '\0' &&
	       strchr("0123456789+-.eEtruefals", s[n]) != NULL)
		n++;
	snprintf(buf, buf_len, "%.*s", (int)n, s);
}

/* ---- structure ----------------------------------------------------------------- */

const cJSON *fs__sc_get(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static bool in_list(const char *word, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(word, *list) == 0)
			return true;
	return false;
}

int fs__sc_check_object(struct fs__sc *sc, const cJSON *node, const char *const *keys)
{
	const cJSON *child, *prev;
	const char *near;
	char list[512];
	size_t saved, koff, voff;
	int line, col;

	if (!cJSON_IsObject(node))
		return fs__sc_fail_at(sc, node, "expected an object, found %s",
		                      fs__sc_type_name(node));
	for (child = node->child; child != NULL; child = child->next) {
		saved = fs__sc_push_key(sc, child->string);
		if (!in_list(child->string, keys)) {
			near = fs__suggest_nearest(child->string, keys);
			fs__suggest_join(keys, ", ", list, sizeof list);
			if (near != NULL)
				fs__sc_fail_at_key(sc, child, "unknown key \"%s\"; did you "
				                   "mean \"%s\"?", child->string, near);
			else
				fs__sc_fail_at_key(sc, child, "unknown key \"%s\"; expected "
				                   "one of: %s", child->string, list);
			fs__sc_pop(sc, saved);
			return -1;
		}
		for (prev = node->child; prev != child; prev = prev->next) {
			if (strcmp(prev->string, child->string) != 0)
				continue;
			fs__jpos_lookup(sc->pos, prev, &koff, &voff);
			fs__jpos_line_col(sc->text, sc->text_len, koff, &line, &col);
			fs__sc_fail_at_key(sc, child, "duplicate key \"%s\" (first given "
			                   "at line %d)", child->string, line);
			fs__sc_pop(sc, saved);
			return -1;
		}
		fs__sc_pop(sc, saved);
	}
	return 0;
}

int fs__sc_require(struct fs__sc *sc, const cJSON *obj, const char *key)
{
	if (fs__sc_get(obj, key) != NULL)
		return 0;
	return fs__sc_fail_at(sc, obj, "missing required key \"%s\"", key);
}

int fs__sc_forbid(struct fs__sc *sc, const cJSON *obj, const char *key,
                  const char *reason)
{
	if (fs__sc_get(obj, key) == NULL)
		return 0;
	return fs__sc_fail_member_key(sc, obj, key, "key \"%s\" is not allowed %s",
	                              key, reason);
}

int fs__sc_check_array(struct fs__sc *sc, const cJSON *node, int min, int max,
                       const char *what)
{
	int n;

	if (!cJSON_IsArray(node))
		return fs__sc_fail_at(sc, node, "expected an array, found %s",
		                      fs__sc_type_name(node));
	n = cJSON_GetArraySize(node);
	if (n == 0 && min > 0)
		return fs__sc_fail_at(sc, node, "expected %d to %d %s, found an empty array",
		                      min, max, what);
	if (n < min || n > max)
		return fs__sc_fail_at(sc, node, "expected %d to %d %s, found %d", min, max,
		                      what, n);
	return 0;
}

/* ---- typed readers ----------------------------------------------------------------- */

static int type_error(struct fs__sc *sc, const cJSON *obj, const char *key,
                      const char *expected, const cJSON *node)
{
	return fs__sc_fail_member(sc, obj, key, "expected %s, found %s", expected,
	                          fs__sc_type_name(node));
}

static int range_error(struct fs__sc *sc, const cJSON *obj, const char *key,
                       const char *op, const char *bound)
{
	char found[64];

	fs__sc_found(sc, fs__sc_get(obj, key), found, sizeof found);
	return fs__sc_fail_member(sc, obj, key, "expected a value %s %s, found %s",
	                          op, bound, found);
}

int fs__sc_number(struct fs__sc *sc, const cJSON *obj, const char *key,
                  double lo, bool lo_open, double hi, bool hi_open, double *out)
{
	const cJSON *node = fs__sc_get(obj, key);
	char found[64], bound[32];
	double v;

	if (node == NULL)
		return 0;
	if (!cJSON_IsNumber(node))
		return type_error(sc, obj, key, "a number", node);
	v = node->valuedouble;
	if (!isfinite(v)) {
		fs__sc_found(sc, node, found, sizeof found);
		return fs__sc_fail_member(sc, obj, key, "expected a finite number, "
		                          "found %s", found);
	}
	if (v < lo || (lo_open && v == lo)) {
		fs__sc_format_number(lo, bound, sizeof bound);
		return range_error(sc, obj, key, lo_open ? ">" : ">=", bound);
	}
	if (v > hi || (hi_open && v == hi)) {
		fs__sc_format_number(hi, bound, sizeof bound);
		return range_error(sc, obj, key, hi_open ? "<" : "<=", bound);
	}
	*out = v;
	return 1;
}

int fs__sc_int(struct fs__sc *sc, const cJSON *obj, const char *key,
               int64_t lo, int64_t hi, int64_t *out)
{
	const cJSON *node = fs__sc_get(obj, key);
	char found[64], bound[32];
	double v;

	if (node == NULL)
		return 0;
	if (!cJSON_IsNumber(node))
		return type_error(sc, obj, key, "an integer", node);
	v = node->valuedouble;
	if (!isfinite(v) || v != floor(v)) {
		fs__sc_found(sc, node, found, sizeof found);
		return fs__sc_fail_member(sc, obj, key, "expected an integer, found %s",
		                          found);
	}
	if (v < (double)lo) {
		snprintf(bound, sizeof bound, "%lld", (long long)lo);
		return range_error(sc, obj, key, ">=", bound);
	}
	if (v > (double)hi) {
		snprintf(bound, sizeof bound, "%lld", (long long)hi);
		return range_error(sc, obj, key, "<=", bound);
	}
	*out = (int64_t)v;
	return 1;
}

int fs__sc_duration(struct fs__sc *sc, const cJSON *obj, const char *key,
                    fs_ns min_ns, fs_ns *out)
{
	const cJSON *node = fs__sc_get(obj, key);
	char found[64], msg[256], bound[40];
	fs_ns v;

	if (node == NULL)
		return 0;
	if (cJSON_IsString(node)) {
		if (fs_duration_parse_text(node->valuestring, &v, msg, sizeof msg) != 0)
			return fs__sc_fail_member(sc, obj, key, "%s", msg);
	} else if (cJSON_IsNumber(node)) {
		fs__sc_found(sc, node, found, sizeof found);
		if (!isfinite(node->valuedouble) || node->valuedouble < 0)
			return fs__sc_fail_member(sc, obj, key, DURATION_EXPECTED
			                          ", found %s", found);
		if (node->valuedouble * FS_NS_PER_SECOND >= 9.2e18)
			return fs__sc_fail_member(sc, obj, key, "duration %s is too large "
			                          "(at most about 292 years)", found);
		v = (fs_ns)llround(node->valuedouble * FS_NS_PER_SECOND);
	} else {
		return fs__sc_fail_member(sc, obj, key, DURATION_EXPECTED ", found %s",
		                          fs__sc_type_name(node));
	}
	if (v < min_ns) {
		fs__sc_found(sc, node, found, sizeof found);
		if (min_ns == 1)
			snprintf(bound, sizeof bound, "> 0");
		else {
			snprintf(bound, sizeof bound, ">= ");
			fs_duration_format(min_ns, bound + 3, sizeof bound - 3);
		}
		return fs__sc_fail_member(sc, obj, key, "expected a duration %s, found %s",
		                          bound, found);
	}
	*out = v;
	return 1;
}

int fs__sc_string(struct fs__sc *sc, const cJSON *obj, const char *key,
                  bool allow_empty, const char **out)
{
	const cJSON *node = fs__sc_get(obj, key);

	if (node == NULL)
		return 0;
	if (!cJSON_IsString(node))
		return type_error(sc, obj, key, "a string", node);
	if (!allow_empty && node->valuestring[0] == '\0')
		return fs__sc_fail_member(sc, obj, key, "expected a non-empty string, "
		                          "found \"\"");
	*out = node->valuestring;
	return 1;
}

int fs__sc_bool(struct fs__sc *sc, const cJSON *obj, const char *key, bool *out)
{
	const cJSON *node = fs__sc_get(obj, key);

	if (node == NULL)
		return 0;
	if (!cJSON_IsBool(node))
		return type_error(sc, obj, key, "true or false", node);
	*out = cJSON_IsTrue(node);
	return 1;
}

int fs__sc_enum(struct fs__sc *sc, const cJSON *obj, const char *key,
                const char *what, const char *const *names, int *out)
{
	const cJSON *node = fs__sc_get(obj, key);
	const char *near;
	char list[256];
	int i;

	if (node == NULL)
		return 0;
	if (!cJSON_IsString(node))
		return type_error(sc, obj, key, "a string", node);
	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(names[i], node->valuestring) == 0) {
			*out = i;
			return 1;
		}
	}
	fs__suggest_join(names, ", ", list, sizeof list);
	near = fs__suggest_nearest(node->valuestring, names);
	if (near != NULL)
		return fs__sc_fail_member(sc, obj, key, "unknown %s \"%.60s\"; expected "
		                          "one of %s (did you mean \"%s\"?)", what,
		                          node->valuestring, list, near);
	return fs__sc_fail_member(sc, obj, key, "unknown %s \"%.60s\"; expected one "
	                          "of %s", what, node->valuestring, list);
}

/* ---- data files ------------------------------------------------------------------ */

char *fs__sc_resolve_path(const struct fs__sc *sc, const char *rel)
{
	size_t n;
	char *full;

	if (rel[0] == '/' || sc->base_dir == NULL || sc->base_dir[0] == '\0' ||
	    strcmp(sc->base_dir, ".") == 0)
		return fs_xstrdup(rel);
	n = strlen(sc->base_dir) + 1 + strlen(rel) + 1;
	full = fs_xmalloc(n);
	snprintf(full, n, "%s/%s", sc->base_dir, rel);
	return full;
}

int fs__sc_find_name_at(struct fs__sc *sc, const cJSON *node, const char *what,
                        const char *const *names, size_t n, int *out)
{
	const char **list;
	const char *near;
	size_t i, m = 0;

	if (!cJSON_IsString(node))
		return fs__sc_fail_at(sc, node, "expected a string, found %s",
		                      fs__sc_type_name(node));
	for (i = 0; i < n; i++) {
		if (names[i] != NULL && strcmp(names[i], node->valuestring) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	list = fs_xcalloc(n + 1, sizeof *list);
	for (i = 0; i < n; i++)
		if (names[i] != NULL)
			list[m++] = names[i];
	near = fs__suggest_nearest(node->valuestring, list);
	free(list);
	if (near != NULL)
		return fs__sc_fail_at(sc, node, "unknown %s \"%.60s\"; did you mean "
		                      "\"%s\"?", what, node->valuestring, near);
	return fs__sc_fail_at(sc, node, "unknown %s \"%.60s\"", what, node->valuestring);
}

int fs__sc_find_name(struct fs__sc *sc, const cJSON *obj, const char *key,
                     const char *what, const char *const *names, size_t n, int *out)
{
	size_t saved = fs__sc_push_key(sc, key);
	int rc = fs__sc_find_name_at(sc, fs__sc_get(obj, key), what, names, n, out);

	fs__sc_pop(sc, saved);
	return rc;
}

/* ---- data files ------------------------------------------------------------ */

int fs__sc_open_data(struct fs__sc *sc, const cJSON *obj, const char *key,
                     const char *rel, const char *what, char **full_out)
{
	char *full = fs__sc_resolve_path(sc, rel);
	struct stat st;
	FILE *f;
	int e;

	*full_out = NULL;
	if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
		free(full);
		return fs__sc_fail_member(sc, obj, key, "cannot open %s \"%s\": it is a "
		                          "directory; expected a file", what, rel);
	}
	f = fopen(full, "rb");
	if (f == NULL) {
		e = errno;
		free(full);
		return fs__sc_fail_member(sc, obj, key, "cannot open %s \"%s\": %s", what,
		                          rel, strerror(e));
	}
	fclose(f);
	*full_out = full;
	return 0;
}

int fs__sc_data_failed(struct fs__sc *sc, const cJSON *obj, const char *key)
{
	const cJSON *node = fs__sc_get(obj, key);
	size_t off = value_off(sc, node != NULL ? node : obj), saved, n;
	char named[sizeof sc->err->where + 32];
	int line = 0, col = 0;

	sc->n_failures++;
	if (sc->err == NULL)
		return -1;
	if (off != FS__JPOS_NONE && off >= FS__JPOS_SET_BASE &&
	    off - FS__JPOS_SET_BASE < sc->n_set_texts) {
		snprintf(named, sizeof named, "--set %s",
		         sc->set_texts[off - FS__JPOS_SET_BASE]);
	} else {
		if (off != FS__JPOS_NONE && off <= sc->text_len)
			fs__jpos_line_col(sc->text, sc->text_len, off, &line, &col);
		snprintf(named, sizeof named, "%s:%d:%d", sc->file, line, col);
	}
	saved = fs__sc_push_key(sc, key);
	n = strlen(sc->err->msg);
	if (sc->err->path[0] == '\0') {
		/* a text file: the scenario key stands where a path would */
		snprintf(sc->err->path, sizeof sc->err->path, "%s", sc->path);
		snprintf(sc->err->msg + n, sizeof sc->err->msg - n,
		         " (in the file named at %s)", named);
	} else {
		/* a JSON file: its own path stays; the key goes in the message */
		snprintf(sc->err->msg + n, sizeof sc->err->msg - n,
		         " (in the file named by %s at %s)", sc->path, named);
	}
	fs__sc_pop(sc, saved);
	return -1;
}

int fs__sc_member(struct fs__sc *sc, const cJSON *obj, const char *key,
                  int (*load)(struct fs__sc *sc, const cJSON *node, void *ctx), void *ctx)
{
	const cJSON *sub = fs__sc_get(obj, key);
	size_t saved;
	int rc;

	if (sub == NULL)
		return 0;
	saved = fs__sc_push_key(sc, key);
	rc = load(sc, sub, ctx);
	fs__sc_pop(sc, saved);
	return rc;
}
