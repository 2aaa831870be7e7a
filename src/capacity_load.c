/*
 * capacity_load.c — the spot-capacity trace readers (see capacity.h):
 * SkyPilot spot-traces JSON through cJSON, with syntax and value errors
 * (a key given twice among them) placed at file:line:col by the JSON
 * position index of json_pos.c, and
 * SpotServe add/remove CSV through the trace line reader.  Both build
 * compressed steps (no two neighbours equal) after scaling.  On any error
 * everything read so far is freed and nothing is returned.
 */
#include "fleetsim/capacity.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json_dup.h"
#include "json_pos.h"
#include "text_lines.h"

/* Largest SkyPilot tick and SpotServe timestamp taken: ~31.7 years. */
#define MAX_SPAN_NS (INT64_C(1000000000) * FS_NS_PER_S)

/* Growable compressed steps. */
struct steps {
	fs_ns *t_ns;
	int32_t *capacity;
	size_t n;
	size_t cap_t, cap_c;         /* allocated elements of each array */
	double scale;
};

/* Append capacity `raw` x scale from t_ns on (t_ns >= the last step's).  A
 * step at the same time replaces the last; an unchanged value adds nothing.
 * Returns -1 when the scaled value does not fit in int32.  MODEL: C3 */
static int steps_push(struct steps *s, fs_ns t_ns, double raw)
{
	double v = round(raw * s->scale);
	int32_t c;

	if (!(v <= (double)INT32_MAX))
		return -1;
	c = (int32_t)v;
	if (s->n > 0 && s->t_ns[s->n - 1] == t_ns) {
		s->capacity[s->n - 1] = c;
		if (s->n >= 2 && s->capacity[s->n - 2] == c)
			s->n--;
		return 0;
	}
	if (s->n > 0 && s->capacity[s->n - 1] == c)
		return 0;
	fs_xgrow((void **)&s->t_ns, &s->cap_t, s->n + 1, sizeof *s->t_ns);
	fs_xgrow((void **)&s->capacity, &s->cap_c, s->n + 1, sizeof *s->capacity);
	s->t_ns[s->n] = t_ns;
	s->capacity[s->n] = c;
	s->n++;
	return 0;
}

static void steps_fini(struct steps *s)
{
	free(s->t_ns);
	free(s->capacity);
	s->t_ns = NULL;
	s->capacity = NULL;
	s->n = s->cap_t = s->cap_c = 0;
}

/* ---- SkyPilot JSON ------------------------------------------------------- */

/* What a JSON reader needs to place its errors. */
struct jctx {
	const char *text;
	size_t len;
	const char *display;
	struct fs__jpos *pos;
	struct fs_error *err;
};

/* Fail at node's value (or its key when at_key and it has one) with a JSON
 * path; node NULL: at the start of the file.  Returns -1. */
static int jfail(const struct jctx *c, const cJSON *node, int at_key, const char *path,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int jfail(const struct jctx *c, const cJSON *node, int at_key, const char *path,
                 const char *fmt, ...)
{
	size_t key_off = FS__JPOS_NONE, val_off = FS__JPOS_NONE, off;
	int line = 1, col = 1;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (node != NULL)
		fs__jpos_lookup(c->pos, node, &key_off, &val_off);
	off = at_key && key_off != FS__JPOS_NONE ? key_off : val_off;
	if (off != FS__JPOS_NONE)
		fs__jpos_line_col(c->text, c->len, off, &line, &col);
	return fs_error_at(c->err, c->display, line, col, path, "%s", msg);
}

/* A short description of a JSON value for "found ..." messages. */
static void describe(const cJSON *v, char *buf, size_t buf_len)
{
	if (cJSON_IsNumber(v))
		snprintf(buf, buf_len, "%.15g", v->valuedouble);
	else if (cJSON_IsString(v))
		snprintf(buf, buf_len, "a string");
	else if (cJSON_IsArray(v))
		snprintf(buf, buf_len, "an array");
	else if (cJSON_IsObject(v))
		snprintf(buf, buf_len, "an object");
	else if (cJSON_IsBool(v))
		snprintf(buf, buf_len, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else
		snprintf(buf, buf_len, "null");
}

/* The whole file, NUL-terminated, in a heap buffer; NULL with err. */
static char *read_all(const char *path, const char *display, size_t *len,
                      struct fs_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (f == NULL) {
		fs_error_at(err, display, 0, 0, "", "cannot open: %s", strerror(errno));
		return NULL;
	}
	do {
		fs_xgrow((void **)&buf, &cap, n + 65536 + 1, 1);
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		fs_error_at(err, display, 0, 0, "", "read error: %s", strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* A key given twice in obj (at `path`, "" for the root) is an error at its
 * second place: cJSON keeps both members, and a lookup would take the first
 * without a word. */
static int no_dup_keys(const struct jctx *c, const cJSON *obj, const char *path)
{
	const cJSON *first = NULL, *dup = fs__json_dup_key(obj, &first);
	size_t key_off, val_off;
	char dup_path[128];
	int line = 1, col = 1;

	if (dup == NULL)
		return 0;
	if (fs__jpos_lookup(c->pos, first, &key_off, &val_off) == 0)
		fs__jpos_line_col(c->text, c->len, key_off, &line, &col);
	snprintf(dup_path, sizeof dup_path, "%s%s%.60s", path, *path != '\0' ? "." : "",
	         dup->string);
	return jfail(c, dup, 1, dup_path, "duplicate key \"%.60s\" (first given at line %d, "
	             "column %d)", dup->string, line, col);
}

/* gap_seconds from metadata: a positive number of seconds.  MODEL: C1 */
static int read_gap(const struct jctx *c, const cJSON *root, fs_ns *gap_ns)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
	const cJSON *gap;
	char found[64];

	if (meta == NULL)
		return jfail(c, root, 0, "metadata",
		             "missing; expected {\"gap_seconds\": G}, the seconds between samples");
	if (!cJSON_IsObject(meta)) {
		describe(meta, found, sizeof found);
		return jfail(c, meta, 0, "metadata",
		             "expected an object {\"gap_seconds\": G}, found %s", found);
	}
	if (no_dup_keys(c, meta, "metadata"))
		return -1;
	gap = cJSON_GetObjectItemCaseSensitive(meta, "gap_seconds");
	if (gap == NULL)
		return jfail(c, meta, 0, "metadata.gap_seconds",
		             "missing; expected the seconds between samples (a number > 0)");
	if (!cJSON_IsNumber(gap) || !isfinite(gap->valuedouble) || !(gap->valuedouble > 0) ||
	    gap->valuedouble * FS_NS_PER_SECOND > (double)MAX_SPAN_NS) {
		describe(gap, found, sizeof found);
		return jfail(c, gap, 0, "metadata.gap_seconds",
		             "expected a number of seconds > 0 (and below 1e9), found %s", found);
	}
	*gap_ns = (fs_ns)llround(gap->valuedouble * FS_NS_PER_SECOND);
	if (*gap_ns < 1)
		return jfail(c, gap, 0, "metadata.gap_seconds",
		             "expected at least 1 ns between samples, found %.15g s",
		             gap->valuedouble);
	return 0;
}

/* data: one non-negative integer capacity per tick of gap_ns.  MODEL: C1 */
static int read_data(const struct jctx *c, const cJSON *root, fs_ns gap_ns,
                     struct steps *s, fs_ns *span_ns)
{
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(root, "data");
	const cJSON *v;
	char found[64], path[64];
	size_t i = 0;

	if (data == NULL)
		return jfail(c, root, 0, "data",
		             "missing; expected an array of capacities, one per gap_seconds");
	if (!cJSON_IsArray(data)) {
		describe(data, found, sizeof found);
		return jfail(c, data, 0, "data", "expected an array of capacities, found %s", found);
	}
	if (data->child == NULL)
		return jfail(c, data, 0, "data",
		             "expected at least one capacity, found an empty array");
	for (v = data->child; v != NULL; v = v->next, i++) {
		double x = v->valuedouble;

		snprintf(path, sizeof path, "data[%zu]", i);
		if (!cJSON_IsNumber(v) || !isfinite(x) || x < 0 || x != floor(x) ||
		    x > (double)INT32_MAX) {
			describe(v, found, sizeof found);
			return jfail(c, v, 0, path,
			             "expected a capacity: an integer >= 0, found %s", found);
		}
		if ((fs_ns)i > MAX_SPAN_NS / gap_ns)
			return jfail(c, v, 0, path, "the trace is longer than 1e9 s");
		if (steps_push(s, (fs_ns)i * gap_ns, x))
			return jfail(c, v, 0, path, "capacity %.0f x scale %g is above 2^31 - 1",
			             x, s->scale);
	}
	*span_ns = (fs_ns)i * gap_ns;
	return 0;
}

static int read_skypilot(const char *path, const char *display, struct steps *s,
                         fs_ns *span_ns, struct fs_error *err)
{
	struct jctx c = {.display = display, .err = err};
	const char *parse_end = NULL, *nul;
	char *text;
	cJSON *root;
	fs_ns gap_ns = 0;
	int rc = -1, line, col;

	text = read_all(path, display, &c.len, err);
	if (text == NULL)
		return -1;
	c.text = text;
	nul = memchr(text, '\0', c.len);
	if (nul != NULL) {
		fs__jpos_line_col(text, c.len, (size_t)(nul - text), &line, &col);
		fs_error_at(err, display, line, col, "", "invalid JSON: a NUL byte");
		free(text);
		return -1;
	}
	{
		char msg[256];
		size_t off;

		if (fs__jpos_check_text(text, c.len, &off, msg, sizeof msg) != 0) {
			fs__jpos_line_col(text, c.len, off, &line, &col);
			fs_error_at(err, display, line, col, "", "%s", msg);
			free(text);
			return -1;
		}
	}
	root = cJSON_ParseWithLengthOpts(text, c.len + 1, &parse_end, 1);
	if (root == NULL) {
		char msg[256];
		size_t off = parse_end != NULL ? (size_t)(parse_end - text) : 0;

		off = fs__jpos_syntax_error(text, c.len, off, msg, sizeof msg);
		fs__jpos_line_col(text, c.len, off, &line, &col);
		fs_error_at(err, display, line, col, "", "%s", msg);
		free(text);
		return -1;
	}
	c.pos = fs__jpos_build(text, c.len, root);
	if (!cJSON_IsObject(root)) {
		char found[64];

		describe(root, found, sizeof found);
		jfail(&c, root, 0, "", "expected an object {\"metadata\": {\"gap_seconds\": G}, "
		      "\"data\": [...]}, found %s", found);
	} else if (no_dup_keys(&c, root, "") == 0 && read_gap(&c, root, &gap_ns) == 0 &&
	           read_data(&c, root, gap_ns, s, span_ns) == 0) {
		rc = 0;
	}
	fs__jpos_free(c.pos);
	cJSON_Delete(root);
	free(text);
	return rc;
}

/* ---- SpotServe CSV ------------------------------------------------------- */

/* A node that is up: its id and the line that added it. */
struct node {
	char *id;
	int line_no;
};

struct nodes {
	struct node *items;
	size_t n, cap;
};

/* Index of the node with this id, or -1.  Linear: O(nodes up). */
static long node_find(const struct nodes *ns, const char *id, size_t id_len)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strlen(ns->items[i].id) == id_len && memcmp(ns->items[i].id, id, id_len) == 0)
			return (long)i;
	return -1;
}

static void nodes_fini(struct nodes *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->items[i].id);
	free(ns->items);
}

/* One event line after the fields are split and the time is checked. */
static int apply_event(struct fs__lines *in, const struct fs__csv *csv, struct nodes *ns,
                       struct fs_error *err)
{
	const struct fs__csv_field *op = &csv->fields[1], *id = &csv->fields[2];
	char q[64];
	long k;

	if (id->len == 0)
		return fs_error_at(err, in->display, in->line_no, id->col, "",
		                   "expected a node id, found an empty field");
	k = node_find(ns, id->s, id->len);
	fs__quote(id->s, id->len, q, sizeof q);
	if (op->len == 3 && memcmp(op->s, "add", 3) == 0) {
		char *copy;

		if (k >= 0)
			return fs_error_at(err, in->display, in->line_no, id->col, "",
			                   "node %s is already up (added at line %d)", q,
			                   ns->items[k].line_no);
		copy = fs_xmalloc(id->len + 1);
		memcpy(copy, id->s, id->len);
		copy[id->len] = '\0';
		fs_xgrow((void **)&ns->items, &ns->cap, ns->n + 1, sizeof *ns->items);
		ns->items[ns->n].id = copy;
		ns->items[ns->n].line_no = in->line_no;
		ns->n++;
		return 0;
	}
	if (op->len == 6 && memcmp(op->s, "remove", 6) == 0) {
		if (k < 0)
			return fs_error_at(err, in->display, in->line_no, id->col, "",
			                   "cannot remove node %s: it is not up (never added, "
			                   "or removed already)", q);
		free(ns->items[k].id);
		ns->items[k] = ns->items[--ns->n];
		return 0;
	}
	fs__quote(op->s, op->len, q, sizeof q);
	return fs_error_at(err, in->display, in->line_no, op->col, "",
	                   "expected \"add\" or \"remove\", found %s", q);
}

/* Lines timestamp_ms,add|remove,node_id in time order; capacity = nodes up,
 * 0 before the first event, one step per distinct timestamp.  MODEL: C2 */
static int read_spotserve(const char *path, const char *display, struct steps *s,
                          fs_ns *span_ns, struct fs_error *err)
{
	struct fs__lines in;
	struct fs__csv csv = {0};
	struct nodes ns = {0};
	int64_t prev_ms = -1;
	int got, rc = -1, prev_line = 0;

	if (fs__lines_open(&in, path, display, err))
		return -1;
	steps_push(s, 0, 0.0);
	while ((got = fs__lines_next(&in, err)) == 1) {
		const struct fs__csv_field *f;
		int64_t ms;
		char q[64];

		if (fs__is_blank(in.line))
			continue;
		fs__csv_split(&csv, in.line);
		if (csv.n != 3) {
			fs_error_at(err, display, in.line_no,
			            csv.n > 3 ? csv.fields[3].col : (int)in.len + 1, "",
			            "expected 3 fields timestamp_ms,add|remove,node_id, found %zu",
			            csv.n);
			goto out;
		}
		f = &csv.fields[0];
		if (fs__parse_count(f->s, f->len, &ms) || ms > MAX_SPAN_NS / FS_NS_PER_MS) {
			fs__quote(f->s, f->len, q, sizeof q);
			fs_error_at(err, display, in.line_no, f->col, "",
			            "expected a time in milliseconds (an integer >= 0, below 1e12), "
			            "found %s", q);
			goto out;
		}
		if (ms < prev_ms) {
			fs_error_at(err, display, in.line_no, f->col, "",
			            "expected events in time order, found %lld ms after %lld ms "
			            "(line %d)", (long long)ms, (long long)prev_ms, prev_line);
			goto out;
		}
		if (prev_ms >= 0 && ms != prev_ms &&
		    steps_push(s, prev_ms * FS_NS_PER_MS, (double)ns.n))
			goto too_big;
		if (apply_event(&in, &csv, &ns, err))
			goto out;
		prev_ms = ms;
		prev_line = in.line_no;
	}
	if (got < 0)
		goto out;
	if (prev_ms < 0) {
		fs_error_at(err, display, 0, 0, "",
		            "expected events timestamp_ms,add|remove,node_id, found none");
		goto out;
	}
	if (steps_push(s, prev_ms * FS_NS_PER_MS, (double)ns.n))
		goto too_big;
	*span_ns = prev_ms * FS_NS_PER_MS;   /* MODEL: C2 */
	rc = 0;
	goto out;
too_big:
	fs_error_at(err, display, in.line_no, 1, "",
	            "%zu nodes x scale %g is above 2^31 - 1", ns.n, s->scale);
out:
	nodes_fini(&ns);
	fs__csv_fini(&csv);
	fs__lines_close(&in);
	return rc;
}

/* ---- entry point --------------------------------------------------------- */

/*
 * Load a capacity trace (see capacity.h).  path is opened, display_path
 * (path when NULL) names it in messages and in t->path.  scale: finite,
 * >= 0.  Returns a heap trace owned by the caller (fs_capacity_trace_free),
 * or NULL with err and nothing allocated.
 */
struct fs_capacity_trace *fs_capacity_trace_load(const char *path,
                                                 const char *display_path,
                                                 enum fs_capacity_format format,
                                                 double scale, bool loop,
                                                 struct fs_error *err)
{
	struct steps s = {.scale = scale};
	struct fs_capacity_trace *t;
	fs_ns span_ns = 0;
	int rc = -1;

	if (display_path == NULL)
		display_path = path;
	if (!isfinite(scale) || !(scale >= 0)) {
		fs_error_at(err, display_path, 0, 0, "",
		            "expected a capacity scale >= 0, found %g", scale);
		return NULL;
	}
	switch (format) {
	case FS_CAPACITY_SKYPILOT:
		rc = read_skypilot(path, display_path, &s, &span_ns, err);
		break;
	case FS_CAPACITY_SPOTSERVE:
		rc = read_spotserve(path, display_path, &s, &span_ns, err);
		break;
	default:
		rc = fs_error_at(err, display_path, 0, 0, "",
		                 "unknown capacity trace format %d", (int)format);
		break;
	}
	if (rc != 0) {
		steps_fini(&s);
		return NULL;
	}
	t = fs_xcalloc(1, sizeof *t);
	t->path = fs_xstrdup(display_path);
	t->format = format;
	t->t_ns = s.t_ns;
	t->capacity = s.capacity;
	t->n_steps = s.n;
	t->span_ns = span_ns;
	t->loop = loop;
	return t;
}
