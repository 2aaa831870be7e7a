/*
 * scenario_variant.c — "variants" and command-line sets, applied to the
 * parsed tree before the walk.  A set is (JSON path, value): objects on the
 * way are created for missing keys, array indices must exist, the value
 * replaces or adds the last key (null removes it).  Patched nodes are indexed at the offsets
 * of the values they were copied from, so the walk reports a bad value where
 * the variant wrote it (a command-line value: as "--set PATH=VALUE").
 * The root keys "variants", "sweep" and "objective" belong to the base
 * document: a set cannot set them, a variant or sweep point drops them
 * (command-line sets keep the base's).  Variant names must map to distinct
 * output directories; fs_scenario_check_all loads everything up front.
 */
#include "scenario_walk.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"
#include "suggest.h"
#include "scenario_schema.h"

#define MAX_VARIANTS 256
#define MAX_STEPS 32
#define MAX_DIR_NAME 200
#define PATH_EXAMPLE "expected a path such as \"fleet.pools[0].count\""

static const char *const VARIANT_KEYS[] = { "name", "set", NULL };

struct step {
	char key[128];               /* for an index: its digits as written */
	long index;                  /* -1 for a key; LONG_MAX past it */
};

/* Split "a.b[2].c" into steps; -1 on a syntax error. */
static int parse_path(const char *path, struct step *steps, size_t *n)
{
	const char *p = path;
	size_t k;
	char *end;

	*n = 0;
	while (*p != '\0') {
		if (*n == MAX_STEPS)
			return -1;
		if (*p == '[') {
			if (!isdigit((unsigned char)p[1]))
				return -1;
			steps[*n].index = strtol(p + 1, &end, 10);
			if (*end != ']' || (size_t)(end - p - 1) >= sizeof steps[*n].key)
				return -1;
			/* the digits as written: an index past LONG_MAX shows as
			 * given, not as the value strtol saturates to */
			memcpy(steps[*n].key, p + 1, (size_t)(end - p - 1));
			steps[*n].key[end - p - 1] = '\0';
			p = end + 1;
		} else {
			if (*p == '.') {
				if (*n == 0)
					return -1;
				p++;
			}
			for (k = 0; p[k] != '\0' && p[k] != '.' && p[k] != '['; k++)
				if (p[k] == ']')
					return -1;
			if (k == 0 || k >= sizeof steps[*n].key)
				return -1;
			memcpy(steps[*n].key, p, k);
			steps[*n].key[k] = '\0';
			steps[*n].index = -1;
			p += k;
		}
		if (*p != '\0' && *p != '.' && *p != '[')
			return -1;
		(*n)++;
	}
	return *n > 0 ? 0 : -1;
}

long fs__sc_pool_key_index(const char *path, size_t path_len, const char *key)
{
	struct step steps[MAX_STEPS];
	char buf[256];
	size_t n;

	if (path_len >= sizeof buf)
		return -1;
	memcpy(buf, path, path_len);
	buf[path_len] = '\0';
	if (parse_path(buf, steps, &n) != 0 || n != 4 ||
	    steps[0].index >= 0 || strcmp(steps[0].key, "fleet") != 0 ||
	    steps[1].index >= 0 || strcmp(steps[1].key, "pools") != 0 ||
	    steps[2].index < 0 ||
	    steps[3].index >= 0 || strcmp(steps[3].key, key) != 0)
		return -1;
	return steps[2].index;
}

/* "variants", "sweep" and "objective": root keys that only the base
 * document's walk reads (a variant or a set drops them). */
static const char *const BASE_ONLY_KEYS[] = { "variants", "sweep", "objective", NULL };

static bool base_only_key(const char *key)
{
	size_t i;

	for (i = 0; BASE_ONLY_KEYS[i] != NULL; i++)
		if (strcmp(key, BASE_ONLY_KEYS[i]) == 0)
			return true;
	return false;
}

/* "fleet.pools[0]" for steps[0..n), "the top level" for n = 0. */
static void prefix(const struct step *steps, size_t n, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	if (n == 0) {
		snprintf(buf, len, "the top level");
		return;
	}
	for (i = 0; i < n && used < len; i++) {
		if (steps[i].index >= 0)
			used += (size_t)snprintf(buf + used, len - used, "[%s]", steps[i].key);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
			                         i == 0 ? "" : ".", steps[i].key);
	}
}

/* Set `path` in root to `value` (taken over, also on failure).  Objects made
 * on the way and the value's nodes are indexed: at src's offsets when src is
 * given, else at (key_off, val_off).  -1 with msg on failure. */
static int set_path(cJSON *root, struct fs__jpos *pos, const char *path, cJSON *value,
                    const cJSON *src, size_t key_off, size_t val_off,
                    char *msg, size_t msg_len)
{
	struct step steps[MAX_STEPS];
	const char *keys[64];
	cJSON *cur = root, *child, *made;
	char where[256];
	const char *near;
	size_t n, i, nk;
	int size;

	if (parse_path(path, steps, &n) != 0) {
		snprintf(msg, msg_len, PATH_EXAMPLE);
		goto fail;
	}
	if (steps[0].index < 0 && base_only_key(steps[0].key)) {
		snprintf(msg, msg_len, "cannot set \"%s\": it is read from the base "
		         "document only", steps[0].key);
		goto fail;
	}
	if (value->string != NULL && !(value->type & cJSON_StringIsConst))
		cJSON_free(value->string);
	value->string = NULL;
	value->type &= ~cJSON_StringIsConst;
	for (i = 0; i < n; i++) {
		prefix(steps, i, where, sizeof where);
		if (steps[i].index >= 0) {
			if (!cJSON_IsArray(cur)) {
				snprintf(msg, msg_len, "%s is %s, not an array", where,
				         fs__sc_type_name(cur));
				goto fail;
			}
			size = cJSON_GetArraySize(cur);
			if (steps[i].index >= size) {
				snprintf(msg, msg_len, "index %s is out of range: %s has %d "
				         "element%s", steps[i].key, where, size,
				         size == 1 ? "" : "s");
				goto fail;
			}
			if (i + 1 == n) {
				cJSON_ReplaceItemInArray(cur, (int)steps[i].index, value);
				break;
			}
			cur = cJSON_GetArrayItem(cur, (int)steps[i].index);
			continue;
		}
		if (!cJSON_IsObject(cur)) {
			snprintf(msg, msg_len, "%s is %s, not an object", where,
			         fs__sc_type_name(cur));
			goto fail;
		}
		child = cJSON_GetObjectItemCaseSensitive(cur, steps[i].key);
		if (i + 1 == n && cJSON_IsNull(value)) {
			/* null removes the key: the default applies again */
			cJSON_DeleteItemFromObjectCaseSensitive(cur, steps[i].key);
			cJSON_Delete(value);
			return 0;
		}
		if (i + 1 == n) {
			if (child != NULL)
				cJSON_ReplaceItemInObjectCaseSensitive(cur, steps[i].key, value);
			else
				cJSON_AddItemToObject(cur, steps[i].key, value);
			break;
		}
		if (child == NULL && steps[i + 1].index >= 0) {
			nk = 0;
			for (child = cur->child; child != NULL && nk + 1 < 64; child = child->next)
				keys[nk++] = child->string;
			keys[nk] = NULL;
			near = fs__suggest_nearest(steps[i].key, keys);
			if (near != NULL)
				snprintf(msg, msg_len, "no key \"%.100s\" at %.200s; did "
				         "you mean \"%.100s\"?", steps[i].key, where, near);
			else
				snprintf(msg, msg_len, "no key \"%.100s\" at %.200s",
				         steps[i].key, where);
			goto fail;
		}
		if (child == NULL) {
			made = cJSON_AddObjectToObject(cur, steps[i].key);
			fs__jpos_alias(pos, made, NULL, key_off, val_off);
			child = made;
		}
		cur = child;
	}
	fs__jpos_alias(pos, value, src, key_off, val_off);
	return 0;
fail:
	cJSON_Delete(value);
	return -1;
}

/* Delete "sweep" and "objective" from doc (every copy of a duplicated key:
 * only the base document's walk reports duplicates). */
static void drop_study(cJSON *doc)
{
	while (cJSON_GetObjectItemCaseSensitive(doc, "sweep") != NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "sweep");
	while (cJSON_GetObjectItemCaseSensitive(doc, "objective") != NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "objective");
}

static void drop_base_only(cJSON *doc)
{
	while (cJSON_GetObjectItemCaseSensitive(doc, "variants") != NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "variants");
	drop_study(doc);
}

cJSON *fs__sc_base_copy(const cJSON *root)
{
	cJSON *copy = cJSON_Duplicate(root, 1);

	if (copy == NULL) {
		fprintf(stderr, "fleetsim: out of memory copying the scenario\n");
		abort();
	}
	drop_base_only(copy);
	return copy;
}

int fs__sc_try_set(cJSON *doc, struct fs__jpos *pos, const char *path,
                   const cJSON *value, char *msg, size_t msg_len)
{
	size_t koff = FS__JPOS_NONE, voff = FS__JPOS_NONE;
	cJSON *dup = cJSON_Duplicate(value, 1);

	if (dup == NULL) {
		fprintf(stderr, "fleetsim: out of memory copying a value\n");
		abort();
	}
	fs__jpos_lookup(pos, value, &koff, &voff);
	return set_path(doc, pos, path, dup, value, koff, voff, msg, msg_len);
}

/* ---- "variants" in the file --------------------------------------------------------- */

/* Apply variant node `v`'s sets to root; errors at the set's key. */
static int apply_sets(struct fs__sc *sc, cJSON *root, struct fs__jpos *pos, const cJSON *v)
{
	const cJSON *set = fs__sc_get(v, "set"), *e;
	size_t koff, voff, saved;
	char msg[512], quoted[200];

	if (set == NULL)
		return 0;
	for (e = set->child; e != NULL; e = e->next) {
		fs__jpos_lookup(pos, e, &koff, &voff);
		if (set_path(root, pos, e->string, cJSON_Duplicate(e, 1), e, koff, voff,
		             msg, sizeof msg) != 0) {
			snprintf(quoted, sizeof quoted, "\"%.190s\"", e->string);
			saved = fs__sc_push_key(sc, "set");
			fs__sc_push_key(sc, quoted);
			fs__sc_fail_at_key(sc, e, "%s", msg);
			fs__sc_pop(sc, saved);
			return -1;
		}
	}
	return 0;
}

/* Names as directories: `fleetsim run` writes variant NAME into
 * DIR/<fs_scenario_variant_dir(NAME)>/, so two names that map to one
 * directory, or one that maps to the base's "base", would overwrite each
 * other.  Error at v's "name". */
static int check_dir(struct fs__sc *sc, const cJSON *node, const cJSON *v, const char *name)
{
	char dir[MAX_DIR_NAME + 2], other[MAX_DIR_NAME + 2];
	const cJSON *prev;
	size_t j = 0;

	if (strlen(name) > MAX_DIR_NAME)
		return fs__sc_fail_member(sc, v, "name", "expected a name of at most %d "
		                          "bytes (it names an output directory), found %zu",
		                          MAX_DIR_NAME, strlen(name));
	fs_scenario_variant_dir(name, dir, sizeof dir);
	if (strcmp(name, "base") == 0 || strcmp(dir, "base") == 0)
		return fs__sc_fail_member(sc, v, "name", "expected a name other than "
		                          "\"base\" (the base scenario's directory), found "
		                          "\"%s\"", name);
	for (prev = node->child; prev != v; prev = prev->next, j++) {
		fs_scenario_variant_dir(fs__sc_get(prev, "name")->valuestring, other,
		                        sizeof other);
		if (strcmp(dir, other) == 0)
			return fs__sc_fail_member(sc, v, "name", "expected a name whose output "
			                          "directory differs from every other variant's, "
			                          "found \"%s\", which maps to \"%s\" like "
			                          "variants[%zu] \"%s\"", name, dir, j,
			                          fs__sc_get(prev, "name")->valuestring);
	}
	return 0;
}

/* See scenario.h. */
void fs_scenario_variant_dir(const char *name, char *buf, size_t len)
{
	size_t i;

	if (len == 0)
		return;
	for (i = 0; name[i] != '\0' && i + 1 < len; i++) {
		char c = name[i];

		buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		         (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ? c : '_';
	}
	buf[i] = '\0';
	if (buf[0] == '.')
		buf[0] = '_';
}

int fs__sc_check_variants(struct fs__sc *sc, const cJSON *root, const cJSON *node)
{
	const cJSON *v, *prev;
	const char *name;
	size_t i = 0, j, saved_i;
	cJSON *copy;
	int n, rc;

	if (!cJSON_IsArray(node))
		return fs__sc_fail_at(sc, node, "expected an array, found %s",
		                      fs__sc_type_name(node));
	n = cJSON_GetArraySize(node);
	if (n > MAX_VARIANTS)
		return fs__sc_fail_at(sc, node, "expected at most %d variants, found %d",
		                      MAX_VARIANTS, n);
	cJSON_ArrayForEach(v, node) {
		saved_i = fs__sc_push_index(sc, i);
		if (fs__sc_check_object(sc, v, VARIANT_KEYS) != 0 ||
		    fs__sc_require(sc, v, "name") != 0 ||
		    fs__sc_string(sc, v, "name", false, &name) < 0)
			return -1;
		j = 0;
		for (prev = node->child; prev != v; prev = prev->next, j++)
			if (strcmp(fs__sc_get(prev, "name")->valuestring, name) == 0)
				return fs__sc_fail_member(sc, v, "name", "duplicate variant "
				                          "name \"%s\" (also variants[%zu])",
				                          name, j);
		if (check_dir(sc, node, v, name) != 0)
			return -1;
		if (fs__sc_get(v, "set") != NULL && !cJSON_IsObject(fs__sc_get(v, "set")))
			return fs__sc_fail_member(sc, v, "set", "expected an object of "
			                          "\"json.path\": value, found %s",
			                          fs__sc_type_name(fs__sc_get(v, "set")));
		/* Paths must resolve in the base document: try them on a copy
		 * (its new nodes land in sc's position table, harmlessly: every
		 * node made later is indexed again when it is made). */
		copy = fs__sc_base_copy(root);
		rc = apply_sets(sc, copy, sc->pos, v);
		cJSON_Delete(copy);
		if (rc != 0)
			return -1;
		fs__sc_pop(sc, saved_i);
		i++;
	}
	return 0;
}

static int apply_named(struct fs__sc *sc, cJSON *root, struct fs__jpos *pos,
                       const cJSON *variants, const char *variant)
{
	const char *names[MAX_VARIANTS + 1], *near;
	const cJSON *v, *name;
	size_t n = 0, saved;
	char list[512];
	int rc;

	saved = fs__sc_push_key(sc, "variants");
	if (variants == NULL) {
		fs__sc_pop(sc, saved);
		return fs_error_set(sc->err, sc->file, NULL, "unknown variant \"%.60s\": the "
		                    "scenario defines no \"variants\"", variant);
	}
	if (fs__sc_check_variants(sc, root, variants) != 0)
		return -1;
	cJSON_ArrayForEach(v, variants) {
		name = fs__sc_get(v, "name");
		if (strcmp(name->valuestring, variant) == 0) {
			fs__sc_push_index(sc, n);
			rc = apply_sets(sc, root, pos, v);
			fs__sc_pop(sc, saved);
			return rc;
		}
		names[n++] = name->valuestring;
	}
	names[n] = NULL;
	fs__suggest_join(names, ", ", list, sizeof list);
	near = fs__suggest_nearest(variant, names);
	if (near != NULL)
		return fs__sc_fail_at(sc, variants, "unknown variant \"%.60s\"; did you "
		                      "mean \"%s\"?", variant, near);
	return fs__sc_fail_at(sc, variants, "unknown variant \"%.60s\"; expected one of: "
	                      "%s", variant, list);
}

/* ---- command-line sets ---------------------------------------------------------------- */

/* A set's text as it may be echoed in a message: every byte that is a
 * control character or not ASCII becomes '?' (the text may be what the
 * strict rules refused). */
static void set_where(const char *text, char *where, size_t where_len)
{
	size_t n = (size_t)snprintf(where, where_len, "--set %s", text);

	if (n >= where_len)
		n = where_len - 1;
	for (size_t k = 0; k < n; k++) {
		unsigned char c = (unsigned char)where[k];

		if (c < 0x20 || c >= 0x7f)
			where[k] = '?';
	}
}

/* Is the error at byte `off` of a set's value a bare word at its start
 * (prefill_first for "prefill_first")? */
static bool bare_word(const char *value, size_t off)
{
	return off == 0 && isalpha((unsigned char)value[0]);
}

/* The strict text rules of files (fs__jpos_check_text) on a set: its path,
 * checked as the JSON string it names, and its value.  0 or -1 with err. */
static int check_set_text(struct fs__sc *sc, const char *text, const char *eq,
                          const char *where)
{
	size_t path_len = (size_t)(eq - text), vlen = strlen(eq + 1), off, k, n = 0;
	char msg[256], *quoted = fs_xmalloc(2 * path_len + 3);
	int rc;

	quoted[n++] = '"';
	for (k = 0; k < path_len; k++) {
		if (text[k] == '"' || text[k] == '\\')
			quoted[n++] = '\\';
		quoted[n++] = text[k];
	}
	quoted[n++] = '"';
	quoted[n] = '\0';
	rc = fs__jpos_check_text(quoted, n, &off, msg, sizeof msg);
	free(quoted);
	if (rc != 0)
		return fs_error_set(sc->err, where, NULL, "expected a path of valid "
		                    "UTF-8 text without control characters; %s", msg);
	if (fs__jpos_check_text(eq + 1, vlen, &off, msg, sizeof msg) != 0)
		return fs_error_set(sc->err, where, NULL, "value byte %zu: %s%s%.*s%s", off + 1,
		                    msg, bare_word(eq + 1, off) ? " (a string is written in "
		                    "quotes: --set '" : "", bare_word(eq + 1, off) ?
		                    (int)path_len : 0, text, bare_word(eq + 1, off) ?
		                    "=\"...\"')" : "");
	return 0;
}

static int apply_cli_set(struct fs__sc *sc, cJSON *root, struct fs__jpos *pos,
                         const char *text, size_t i)
{
	const char *eq = strchr(text, '='), *end = NULL;
	char where[600], msg[512], *path;
	cJSON *value;
	int rc;

	set_where(text, where, sizeof where);
	if (eq == NULL || eq == text)
		return fs_error_set(sc->err, where, NULL, "expected PATH=VALUE, such as "
		                    "'fleet.pools[0].count=4' or 'fleet.strategy=\"relaunch\"'");
	if (check_set_text(sc, text, eq, where) != 0)
		return -1;
	value = cJSON_ParseWithOpts(eq + 1, &end, 1);
	if (value == NULL)
		return fs_error_set(sc->err, where, NULL, "expected a JSON value");
	path = fs_xmalloc((size_t)(eq - text) + 1);
	memcpy(path, text, (size_t)(eq - text));
	path[eq - text] = '\0';
	rc = set_path(root, pos, path, value, NULL, FS__JPOS_SET_BASE + i,
	              FS__JPOS_SET_BASE + i, msg, sizeof msg);
	free(path);
	if (rc != 0)
		return fs_error_set(sc->err, where, NULL, "%s", msg);
	return 0;
}

/* A sweep point is the base with the command-line sets, then
 * each axis's value at the point, in axis order.  Each value is copied from
 * the file's own "sweep" node (a "range" value is made at its "range"), so
 * the walk reports a bad value at its place in the file; a path that no
 * longer resolves (an earlier axis changed the document) fails at the
 * value. */
static int apply_point(struct fs__sc *sc, cJSON *root, struct fs__jpos *pos,
                       const cJSON *sweep)
{
	const struct fs_sweep_cfg *cfg = sc->point_sweep;
	const cJSON *axes = fs__sc_get(sweep, "axes"), *axis;
	size_t coords[16], a, saved, koff, voff;
	char msg[512];

	if (cfg->n_axes > 16 || !cJSON_IsArray(axes) ||
	    (size_t)cJSON_GetArraySize(axes) != cfg->n_axes)
		return fs_error_set(sc->err, sc->file, "sweep", "the sweep section changed "
		                    "since it was loaded");
	fs_sweep_point_coords(cfg, sc->point, coords);
	saved = fs__sc_push_key(sc, "sweep");
	fs__sc_push_key(sc, "axes");
	for (a = 0, axis = axes->child; a < cfg->n_axes; a++, axis = axis->next) {
		const cJSON *values = fs__sc_get(axis, "values");
		const cJSON *src = cJSON_IsArray(values) ?
		                   cJSON_GetArrayItem(values, (int)coords[a]) : NULL;
		size_t saved_a = fs__sc_push_index(sc, a);
		int rc;

		if (src != NULL) {
			fs__sc_push_key(sc, "values");
			fs__sc_push_index(sc, coords[a]);
			rc = fs__sc_try_set(root, pos, cfg->axes[a].path, src, msg, sizeof msg);
		} else {
			cJSON *value = cJSON_Parse(cfg->axes[a].values[coords[a]]);

			/* At "from" or "to" when it is one of them, else at "range". */
			src = fs__sc_get(axis, "range");
			fs__sc_push_key(sc, "range");
			if (coords[a] == 0 && fs__sc_get(src, "from") != NULL)
				src = fs__sc_get(src, "from");
			else if (coords[a] + 1 == cfg->axes[a].n_values &&
			         fs__sc_get(src, "to") != NULL)
				src = fs__sc_get(src, "to");
			koff = voff = FS__JPOS_NONE;
			fs__jpos_lookup(pos, src != NULL ? src : axis, &koff, &voff);
			if (value == NULL) {
				fprintf(stderr, "fleetsim: out of memory parsing a sweep value\n");
				abort();
			}
			rc = set_path(root, pos, cfg->axes[a].path, value, NULL, koff, voff,
			              msg, sizeof msg);
		}
		if (rc != 0)
			return fs__sc_fail_at(sc, src != NULL ? src : axis, "%s (point %zu)", msg,
			                      sc->point);
		fs__sc_pop(sc, saved_a);
	}
	fs__sc_pop(sc, saved);
	return 0;
}

int fs__sc_apply_variant(struct fs__sc *sc, cJSON *root, struct fs__jpos *pos,
                         const char *variant, const char *const *sets, size_t n_sets)
{
	cJSON *variants, *sweep = NULL;
	size_t i;
	int rc = 0;

	if (variant == NULL && n_sets == 0 && sc->point_sweep == NULL)
		return 0;
	if (!cJSON_IsObject(root))
		return 0;                /* the walk reports it */
	variants = cJSON_DetachItemFromObjectCaseSensitive(root, "variants");
	if (sc->point_sweep != NULL)
		sweep = cJSON_DetachItemFromObjectCaseSensitive(root, "sweep");
	if (variant != NULL || sc->point_sweep != NULL)
		drop_study(root);        /* a variant or sweep point is no study */
	if (variant != NULL && apply_named(sc, root, pos, variants, variant) != 0)
		rc = -1;
	for (i = 0; i < n_sets && rc == 0; i++)
		if (apply_cli_set(sc, root, pos, sets[i], i) != 0)
			rc = -1;
	if (rc == 0 && sc->point_sweep != NULL)
		rc = apply_point(sc, root, pos, sweep);
	cJSON_Delete(variants);
	cJSON_Delete(sweep);
	return rc;
}

/* ---- everything up front ---------------------------------------------------------- */

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_variant_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(VARIANT_KEYS),
		{ NULL, NULL }
	};

	return tables;
}
