/*
 * trace_mooncake.c — the Mooncake JSONL request-trace reader (see
 * trace_internal.h): one JSON object per line, parsed by cJSON after the
 * strict text check of json_pos.c, so that a second object, trailing text
 * or a missing comma is an error at its line:column rather than read past.
 * Only top-level keys are read; a key given twice is refused.  Positions are
 * looked up only for a line that fails.  MODEL: W14, W15, V23.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json_dup.h"
#include "json_pos.h"
#include "trace_internal.h"

/* The keys of a Mooncake line that are read; others are ignored. */
enum mc_key { MC_TIMESTAMP, MC_INPUT, MC_OUTPUT, MC_HASH_IDS, MC_N_KEYS };

static const char *const mc_names[MC_N_KEYS] = {
	"timestamp", "input_length", "output_length", "hash_ids"};

/* Largest token count or block id taken, as fs__parse_count's: 10^15, far
 * below 2^53, so every integer up to it is exact in a double. */
#define MC_MAX_COUNT 1e15

/* Byte offset in the current line of node's key (at_key) or value, or
 * FS__JPOS_NONE, from the line's position index: O(line) and a table of
 * every node, built for a line that fails only. */
static size_t mc_offset(const struct fs__trace_loader *ld, const cJSON *root,
                        const cJSON *node, int at_key)
{
	struct fs__jpos *pos = fs__jpos_build(ld->in.line, ld->in.len, root);
	size_t key_off, val_off;

	fs__jpos_lookup(pos, node, &key_off, &val_off);
	fs__jpos_free(pos);
	return at_key ? key_off : val_off;
}

#define MC_WS " \t\r\n"

/* Offset just past the JSON string that opens at s[i]. */
static size_t mc_skip_string(const char *s, size_t i)
{
	for (i++; s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i + 1;
}

/* Offset just past the JSON value that starts at s[i]. */
static size_t mc_skip_value(const char *s, size_t i)
{
	int depth = 0;

	if (s[i] == '"')
		return mc_skip_string(s, i);
	if (s[i] != '{' && s[i] != '[')
		return i + strcspn(s + i, ",}]" MC_WS);
	do {
		if (s[i] == '"') {
			i = mc_skip_string(s, i);
			continue;
		}
		if (s[i] == '{' || s[i] == '[')
			depth++;
		else if (s[i] == '}' || s[i] == ']')
			depth--;
		i++;
	} while (depth > 0);
	return i;
}

/* Offset of the value of `member`, a member of root, in the line that root
 * was parsed from (strict JSON, so every step below lands on a token): the
 * members are walked in file order beside the text, skipping each value.
 * O(bytes before the value), next to nothing for a timestamp written first,
 * as Mooncake's are; the position index costs a scan of the line and a
 * table of every node (most of them hash_ids). */
static size_t mc_value_offset(const char *s, const cJSON *root, const cJSON *member)
{
	size_t i = strspn(s, MC_WS) + 1;        /* past '{' */

	for (const cJSON *c = root->child; c != NULL; c = c->next) {
		i += strspn(s + i, MC_WS);
		i = mc_skip_string(s, i);          /* the key */
		i += strspn(s + i, MC_WS) + 1;     /* past ':' */
		i += strspn(s + i, MC_WS);
		if (c == member)
			return i;
		i = mc_skip_value(s, i);
		i += strspn(s + i, MC_WS) + 1;     /* past ',' */
	}
	return FS__JPOS_NONE;
}

static int mc_col(size_t off)
{
	return off == FS__JPOS_NONE ? 1 : (int)off + 1;
}

/* Length of the JSON number written at s (already checked as JSON). */
static size_t mc_number_len(const char *s)
{
	return strspn(s, "-+0123456789.eE");
}

/* Fail at value v: "expected WHAT, found V", V a number as written or the
 * kind of value. */
static int mc_bad_value(struct fs__trace_loader *ld, const cJSON *root, const cJSON *v,
                        const char *what)
{
	size_t off = mc_offset(ld, root, v, 0);
	char found[64];

	if (cJSON_IsNumber(v) && off != FS__JPOS_NONE)
		fs__quote(ld->in.line + off, mc_number_len(ld->in.line + off), found,
		          sizeof found);
	else if (cJSON_IsString(v))
		snprintf(found, sizeof found, "a string");
	else if (cJSON_IsArray(v))
		snprintf(found, sizeof found, "an array");
	else if (cJSON_IsObject(v))
		snprintf(found, sizeof found, "an object");
	else if (cJSON_IsBool(v))
		snprintf(found, sizeof found, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else
		snprintf(found, sizeof found, "null");
	return fs_error_at(ld->err, ld->in.display, ld->in.line_no, mc_col(off), "",
	                   "expected %s, found %s", what, found);
}

/* A whole token count or block id, 0 ... 10^15: cJSON's double is exact
 * there.  4, 4.0 and 4e0 are the same integer, as in the scenario. */
static int mc_count(const cJSON *v, int64_t *out)
{
	double x = v->valuedouble;

	if (!cJSON_IsNumber(v) || !(x >= 0 && x <= MC_MAX_COUNT) || x != floor(x))
		return -1;
	*out = (int64_t)x;
	return 0;
}

/* "timestamp": milliseconds >= 0, below 100 years, converted exactly from
 * the number as written (cJSON's double is not exact to the nanosecond).
 * MODEL: W14 */
static int mc_time(struct fs__trace_loader *ld, const cJSON *root, const cJSON *v,
                   int64_t *t_ns)
{
	char what[128];
	const char *s;
	size_t off;

	off = cJSON_IsNumber(v) ? mc_value_offset(ld->in.line, root, v) : FS__JPOS_NONE;
	if (off != FS__JPOS_NONE) {
		s = ld->in.line + off;
		if (fs__trace_parse_time_units(s, mc_number_len(s), FS_NS_PER_MS, t_ns) == 0 &&
		    *t_ns >= 0 && *t_ns < FS_TRACE_MAX_SPAN_NS)
			return 0;
	}
	snprintf(what, sizeof what, "a time in milliseconds >= 0 and below 100 years "
	         "(%lld ms) for \"timestamp\"", (long long)(FS_TRACE_MAX_SPAN_S * 1000));
	return mc_bad_value(ld, root, v, what);
}

/* "hash_ids": a list of block ids >= 0 into ld->hash_ids for the row just
 * added.  MODEL: V23 */
static int mc_hash_ids(struct fs__trace_loader *ld, const cJSON *root, const cJSON *list)
{
	struct fs_trace_row *r = &ld->rows[ld->n_rows - 1];
	const cJSON *v;
	int64_t id;

	if (!cJSON_IsArray(list))
		return mc_bad_value(ld, root, list, "a list of block ids for \"hash_ids\"");
	r->hash_off = ld->n_hash_ids;
	for (v = list->child; v != NULL; v = v->next) {
		if (mc_count(v, &id))
			return mc_bad_value(ld, root, v,
			                    "a block id (integer >= 0) in \"hash_ids\"");
		fs_xgrow((void **)&ld->hash_ids, &ld->cap_hash_ids, ld->n_hash_ids + 1,
		         sizeof *ld->hash_ids);
		ld->hash_ids[ld->n_hash_ids++] = (uint64_t)id;
	}
	if (ld->n_hash_ids - r->hash_off > UINT32_MAX)
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
		                   mc_col(mc_offset(ld, root, list, 0)), "",
		                   "too many hash_ids in one request");
	r->hashes.n_units = (uint32_t)(ld->n_hash_ids - r->hash_off);
	r->hashes.unit_tokens = FS_MOONCAKE_HASH_BLOCK_TOKENS;
	return 0;
}

/* The members of root that are read, into m[] (all NULL on entry).  A key
 * given twice is an error at its second place (cJSON keeps both, and a
 * lookup would take the first without a word), a missing one at the
 * line's '{'. */
static int mc_members(struct fs__trace_loader *ld, const cJSON *root, int brace_col,
                      const cJSON *m[MC_N_KEYS])
{
	const cJSON *c, *first = NULL, *dup = fs__json_dup_key(root, &first);

	if (dup != NULL)
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
		                   mc_col(mc_offset(ld, root, dup, 1)), "",
		                   "duplicate key \"%.60s\" (first given at column %d)",
		                   dup->string, mc_col(mc_offset(ld, root, first, 1)));
	/* Top-level members only: a nested {"input_length": ...} is not one. */
	for (c = root->child; c != NULL; c = c->next)
		for (int k = 0; k < MC_N_KEYS; k++)
			if (strcmp(c->string, mc_names[k]) == 0)
				m[k] = c;
	for (int k = 0; k < MC_HASH_IDS; k++)
		if (m[k] == NULL)
			return fs_error_at(ld->err, ld->in.display, ld->in.line_no, brace_col, "",
			                   "missing key \"%s\" (a mooncake trace needs timestamp, "
			                   "input_length, output_length)", mc_names[k]);
	return 0;
}

/* One parsed line to one row.  MODEL: W14, W15 */
static int mc_row(struct fs__trace_loader *ld, const cJSON *root, int brace_col)
{
	const cJSON *m[MC_N_KEYS] = {NULL};
	int64_t t_ns, tok[2];
	int col[2] = {1, 1};
	char what[64];

	if (mc_members(ld, root, brace_col, m) || mc_time(ld, root, m[MC_TIMESTAMP], &t_ns))
		return -1;
	for (int k = 0; k < 2; k++)
		if (mc_count(m[MC_INPUT + k], &tok[k])) {
			snprintf(what, sizeof what, "an integer token count for \"%s\"",
			         mc_names[MC_INPUT + k]);
			return mc_bad_value(ld, root, m[MC_INPUT + k], what);
		}
	/* fs__trace_add_row refuses a prompt below 1 token at its column,
	 * looked up only then (an output below 0 is no count: refused above). */
	if (tok[0] < 1)
		col[0] = mc_col(mc_offset(ld, root, m[MC_INPUT], 0));
	if (fs__trace_add_row(ld, t_ns, tok[0], tok[1], col[0], col[1], mc_names))
		return -1;
	return m[MC_HASH_IDS] != NULL ? mc_hash_ids(ld, root, m[MC_HASH_IDS]) : 0;
}

/* One line: strict JSON text (fs__jpos_check_text: the scenario's rules),
 * then one object parsed by cJSON to the end of the line, so that a second
 * object or trailing text is an error rather than ignored. */
static int mc_line(struct fs__trace_loader *ld, const char *brace)
{
	const char *end = NULL;
	char msg[256];
	size_t off;
	cJSON *root;
	int rc;

	if (fs__jpos_check_text(ld->in.line, ld->in.len, &off, msg, sizeof msg) != 0)
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no, mc_col(off), "",
		                   "%s", msg);
	root = cJSON_ParseWithLengthOpts(ld->in.line, ld->in.len + 1, &end, 1);
	if (root == NULL) {
		off = fs__jpos_syntax_error(ld->in.line, ld->in.len,
		                            end != NULL ? (size_t)(end - ld->in.line) : 0,
		                            msg, sizeof msg);
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no, mc_col(off), "",
		                   "%s", msg);
	}
	rc = mc_row(ld, root, (int)(brace - ld->in.line) + 1);
	cJSON_Delete(root);
	return rc;
}

/* Mooncake JSONL: one object per line, {"timestamp": ms, "input_length": n,
 * "output_length": n, "hash_ids": [...] (optional)}; other keys ignored. */
int fs__trace_read_mooncake(struct fs__trace_loader *ld)
{
	int got;

	while ((got = fs__lines_next(&ld->in, ld->err)) == 1) {
		const char *first = ld->in.line;

		while (*first == ' ' || *first == '\t')
			first++;
		if (*first == '\0' && first == ld->in.line + ld->in.len)
			continue;
		if (*first != '{' && *first > ' ' && *first < 0x7f)
			return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
			                   (int)(first - ld->in.line) + 1, "",
			                   "expected a JSON object per line, found '%c'", *first);
		if (*first != '{')
			return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
			                   (int)(first - ld->in.line) + 1, "",
			                   "expected a JSON object per line, found byte 0x%02X",
			                   (unsigned)(unsigned char)*first);
		if (mc_line(ld, first))
			return -1;
	}
	return got < 0 ? -1 : 0;
}
