/*
 * trace.c — request-trace readers: Azure LLM 2023 CSV, Vidur/Splitwise CSV
 * and Mooncake JSONL, into an immutable struct fs_trace (see trace.h).  Times
 * are parsed to integer nanoseconds exactly (no floating point for decimal
 * timestamps), rows are sorted stably by time and shifted so the first is at
 * t = 0.  On any error everything read so far is freed.  MODEL: W14-W16.
 */
#include "fleetsim/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "civil_date.h"
#include "text_lines.h"

/* Column names of the CSV formats, in the order timestamp, prompt, output. */
static const char *const azure_cols[3] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
static const char *const vidur_cols[3] = {
	"arrived_at", "num_prefill_tokens", "num_decode_tokens"};

/* Growable rows plus what is needed to report errors. */
struct loader {
	struct fs__lines in;
	struct fs_error *err;
	struct fs_trace_row *rows;
	size_t n_rows;
	size_t cap;
	uint64_t *hash_ids;          /* Mooncake hash_ids of all rows */
	size_t n_hash_ids, cap_hash_ids;
};


FS_ENUM_FUNCS(enum fs_trace_format, FS_TRACE_FORMAT_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_trace_format_name, fs_trace_format_from_name, "?")

int fs_trace_format_parse(const char *name, enum fs_trace_format *out)
{
	return fs_trace_format_from_name(name, out);
}

/* ---- number parsing ------------------------------------------------------ */

/* Read exactly `n` digits at *p into *v; advances *p. */
static int take_digits(const char **p, const char *end, int n, int64_t *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (*p >= end || **p < '0' || **p > '9')
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

/* Fraction digits after a '.', scaled to nanoseconds of the unit.  More
 * than 9 digits: an error when `strict`, else the rest is truncated (a
 * sub-nanosecond difference; Python writes floats with up to 17 digits). */
static int take_fraction_ns(const char **p, const char *end, int strict, int64_t *ns)
{
	int n = 0;

	*ns = 0;
	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++) {
		if (++n > 9) {
			if (strict)
				return -1;
			continue;
		}
		*ns = *ns * 10 + (**p - '0');
	}
	for (int i = n; i < 9; i++)
		*ns *= 10;
	return 0;
}

/* "YYYY-MM-DD HH:MM:SS[.fffffffff]" (or 'T' between date and time) to
 * seconds since the epoch plus nanoseconds; no time zone (only differences
 * between rows matter). */
static int parse_datetime(const char *s, size_t len, int64_t *sec, int64_t *ns)
{
	static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	const char *p = s, *end = s + len;
	int64_t y, mo, d, h, mi, se;

	if (take_digits(&p, end, 4, &y) || p >= end || *p++ != '-' ||
	    take_digits(&p, end, 2, &mo) || p >= end || *p++ != '-' ||
	    take_digits(&p, end, 2, &d) || p >= end || (*p != ' ' && *p != 'T') ||
	    (p++, take_digits(&p, end, 2, &h)) || p >= end || *p++ != ':' ||
	    take_digits(&p, end, 2, &mi) || p >= end || *p++ != ':' ||
	    take_digits(&p, end, 2, &se))
		return -1;
	*ns = 0;
	if (p < end && *p == '.') {
		p++;
		if (take_fraction_ns(&p, end, 1, ns))
			return -1;
	}
	if (p != end || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    h > 23 || mi > 59 || se > 59)
		return -1;
	*sec = fs__civil_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

/* A decimal number of `unit_ns` units ("12", "-0.25", "1.5e-3") to ns, for
 * units of whole milliseconds or seconds.  Plain decimals are converted
 * exactly (to the nanosecond); exponent notation goes through strtod. */
static int parse_time_units(const char *s, size_t len, int64_t unit_ns, int64_t *out)
{
	const char *p = s, *end = s + len;
	int neg = 0, any = 0;
	int64_t whole = 0, frac = 0;     /* frac: fraction of a unit, in 1e-9 */

	if (len == 0)
		return -1;
	if (memchr(s, 'e', len) != NULL || memchr(s, 'E', len) != NULL) {
		char buf[64], *stop;
		double v;

		if (len >= sizeof buf)
			return -1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		v = strtod(buf, &stop) * (double)unit_ns;
		if (*stop != '\0' || !isfinite(v) || fabs(v) > 9.0e18)
			return -1;
		*out = llround(v);
		return 0;
	}
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; p < end && *p >= '0' && *p <= '9'; p++, any = 1) {
		whole = whole * 10 + (*p - '0');
		if (whole > INT64_MAX / unit_ns - 1)
			return -1;
	}
	if (p < end && *p == '.') {
		const char *f = ++p;

		take_fraction_ns(&p, end, 0, &frac);
		any = any || p > f;
	}
	if (!any || p != end)
		return -1;
	/* unit_ns is a multiple of 1e6, so frac * unit_ns / 1e9 rounds exactly. */
	*out = whole * unit_ns + (frac * (unit_ns / FS_NS_PER_MS) + 500) / 1000;
	if (neg)
		*out = -*out;
	return 0;
}

/* ---- rows -------------------------------------------------------------- */

static int bad_count(struct loader *ld, const struct fs__csv_field *f,
                     const char *column)
{
	char found[64];

	fs__quote(f->s, f->len, found, sizeof found);
	return fs_error_at(ld->err, ld->in.display, ld->in.line_no, f->col, "",
	                   "expected an integer token count in column %s, found %s",
	                   column, found);
}

/* Append a row after checking its token counts.  MODEL: W15 */
static int add_row(struct loader *ld, int64_t t_ns, int64_t prompt, int64_t output,
                   int col_prompt, int col_output, const char *const names[3])
{
	struct fs_trace_row *r;

	if (prompt < 1)
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no, col_prompt, "",
		                   "expected a prompt length >= 1 token in %s, found %lld",
		                   names[1], (long long)prompt);
	if (output < 0)
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no, col_output, "",
		                   "expected an output length >= 0 tokens in %s, found %lld",
		                   names[2], (long long)output);
	fs_xgrow((void **)&ld->rows, &ld->cap, ld->n_rows + 1, sizeof *ld->rows);
	r = &ld->rows[ld->n_rows++];
	r->t_ns = t_ns;
	r->prompt_tokens = prompt;
	r->output_tokens = output > 0 ? output : 1;   /* MODEL: W15 */
	memset(&r->hashes, 0, sizeof r->hashes);
	r->hash_off = 0;
	return 0;
}

/* Azure and Vidur: header row, then one request per line. */
static int read_csv(struct loader *ld, enum fs_trace_format format)
{
	const char *const *names = format == FS_TRACE_AZURE ? azure_cols : vidur_cols;
	struct fs__csv csv = {0};
	int idx[3], got, rc = -1;
	int64_t base_sec = 0, base_ns = 0, lo_sec = 0, hi_sec = 0;
	int have_base = 0;

	while ((got = fs__lines_next(&ld->in, ld->err)) == 1 && fs__is_blank(ld->in.line))
		;
	if (got < 0)
		return -1;
	if (got == 0)
		return fs_error_at(ld->err, ld->in.display, 0, 0, "",
		                   "empty file: expected a header with columns %s,%s,%s",
		                   names[0], names[1], names[2]);
	fs__csv_split(&csv, ld->in.line);
	for (int k = 0; k < 3; k++) {
		idx[k] = fs__csv_find(&csv, names[k]);
		if (idx[k] < 0) {
			fs_error_at(ld->err, ld->in.display, ld->in.line_no, 1, "",
			            "missing column %s in the header (the %s format needs %s,%s,%s)",
			            names[k], fs_trace_format_name(format),
			            names[0], names[1], names[2]);
			goto out;
		}
	}
	while ((got = fs__lines_next(&ld->in, ld->err)) == 1) {
		const struct fs__csv_field *f[3];
		int64_t t_ns, tok[2];

		if (fs__is_blank(ld->in.line))
			continue;
		fs__csv_split(&csv, ld->in.line);
		for (int k = 0; k < 3; k++) {
			if ((size_t)idx[k] >= csv.n) {
				fs_error_at(ld->err, ld->in.display, ld->in.line_no,
				            (int)ld->in.len + 1, "",
				            "expected a value in column %s, found the end of the line",
				            names[k]);
				goto out;
			}
			f[k] = &csv.fields[idx[k]];
		}
		if (format == FS_TRACE_AZURE) {
			int64_t sec, ns;

			if (parse_datetime(f[0]->s, f[0]->len, &sec, &ns)) {
				char found[64];

				fs__quote(f[0]->s, f[0]->len, found, sizeof found);
				fs_error_at(ld->err, ld->in.display, ld->in.line_no, f[0]->col, "",
				            "expected a timestamp like 2023-11-16 18:17:03.9799600 "
				            "in column %s, found %s", names[0], found);
				goto out;
			}
			if (!have_base) {
				base_sec = lo_sec = hi_sec = sec;
				base_ns = ns;
				have_base = 1;
			}
			/* Relative to the first row, so dates far from 1970 cannot
			 * overflow, and all of them within FS_TRACE_MAX_SPAN_S, so
			 * that neither the rows' differences once shifted to the
			 * earliest nor a replay period can (MODEL: W14). */
			lo_sec = sec < lo_sec ? sec : lo_sec;
			hi_sec = sec > hi_sec ? sec : hi_sec;
			if (hi_sec - lo_sec >= FS_TRACE_MAX_SPAN_S) {
				fs_error_at(ld->err, ld->in.display, ld->in.line_no, f[0]->col, "",
				            "timestamp 100 years or more from another row's (a "
				            "trace's times must lie within 100 years)");
				goto out;
			}
			t_ns = (sec - base_sec) * FS_NS_PER_S + (ns - base_ns);
		} else if (parse_time_units(f[0]->s, f[0]->len, FS_NS_PER_S, &t_ns) ||
		           t_ns < 0 || t_ns >= FS_TRACE_MAX_SPAN_NS) {
			char found[64];

			/* MODEL: W14 — arrival times are offsets >= 0, as Azure's
			 * dates are never before the epoch of the trace, and
			 * within the longest span. */
			fs__quote(f[0]->s, f[0]->len, found, sizeof found);
			fs_error_at(ld->err, ld->in.display, ld->in.line_no, f[0]->col, "",
			            "expected a time in seconds >= 0 and below 100 years "
			            "(%lld s) in column %s, found %s",
			            (long long)FS_TRACE_MAX_SPAN_S, names[0], found);
			goto out;
		}
		for (int k = 1; k < 3; k++)
			if (fs__parse_count(f[k]->s, f[k]->len, &tok[k - 1])) {
				bad_count(ld, f[k], names[k]);
				goto out;
			}
		if (add_row(ld, t_ns, tok[0], tok[1], f[1]->col, f[2]->col, names))
			goto out;
	}
	rc = got < 0 ? -1 : 0;
out:
	fs__csv_fini(&csv);
	return rc;
}

/* Find `"key"` then ':' in a JSON line and return the start of its value
 * (whitespace skipped), or NULL.  A key is only recognised when a colon
 * follows it, so the same text inside a string value is not taken. */
static const char *json_value(const char *line, const char *key)
{
	size_t key_len = strlen(key);
	const char *p = line;

	while ((p = strchr(p, '"')) != NULL) {
		const char *q = p + 1;

		if (strncmp(q, key, key_len) == 0 && q[key_len] == '"') {
			q += key_len + 1;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == ':') {
				q++;
				while (*q == ' ' || *q == '\t')
					q++;
				return q;
			}
		}
		p = q;
	}
	return NULL;
}

/* Length of a JSON number token at s. */
static size_t number_len(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0' && strchr("+-0123456789.eE", s[n]) != NULL)
		n++;
	return n;
}

/* Parse `"hash_ids": [id, ...]` at v (the value's start) into ld->hash_ids
 * for the row just added.  MODEL: V23 */
static int read_hash_ids(struct loader *ld, const char *v)
{
	const char *p = v;
	struct fs_trace_row *r = &ld->rows[ld->n_rows - 1];

	if (*p != '[')
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
		                   (int)(p - ld->in.line) + 1, "",
		                   "expected a list of block ids for \"hash_ids\", found '%c'",
		                   *p != '\0' ? *p : ' ');
	r->hash_off = ld->n_hash_ids;
	p++;
	for (;;) {
		size_t len;
		int64_t id;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ']' && ld->n_hash_ids == r->hash_off)
			break;
		len = number_len(p);
		if (fs__parse_count(p, len, &id)) {
			char found[64];

			fs__quote(p, len > 0 ? len : strcspn(p, ",]}"), found, sizeof found);
			return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
			                   (int)(p - ld->in.line) + 1, "", "expected a block id "
			                   "(integer >= 0) in \"hash_ids\", found %s", found);
		}
		fs_xgrow((void **)&ld->hash_ids, &ld->cap_hash_ids, ld->n_hash_ids + 1,
		         sizeof *ld->hash_ids);
		ld->hash_ids[ld->n_hash_ids++] = (uint64_t)id;
		p += len;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == ']')
			break;
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
		                   (int)(p - ld->in.line) + 1, "",
		                   "expected ',' or ']' in \"hash_ids\", found %s",
		                   *p != '\0' ? "another character" : "the end of the line");
	}
	if (ld->n_hash_ids - r->hash_off > UINT32_MAX)
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no, 1, "",
		                   "too many hash_ids in one request");
	r->hashes.n_units = (uint32_t)(ld->n_hash_ids - r->hash_off);
	r->hashes.unit_tokens = FS_MOONCAKE_HASH_BLOCK_TOKENS;
	return 0;
}

/* Mooncake JSONL: {"timestamp": ms, "input_length": n, "output_length": n,
 * "hash_ids": [...] (optional)} */
static int read_mooncake(struct loader *ld)
{
	static const char *const names[3] = {"timestamp", "input_length", "output_length"};
	int got;

	while ((got = fs__lines_next(&ld->in, ld->err)) == 1) {
		const char *v[3];
		size_t len[3];
		int col[3];
		int64_t t_ns, tok[2];
		const char *first = ld->in.line, *hv;

		while (*first == ' ' || *first == '\t')
			first++;
		if (*first == '\0')
			continue;
		if (*first != '{')
			return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
			                   (int)(first - ld->in.line) + 1, "",
			                   "expected a JSON object per line, found '%c'", *first);
		for (int k = 0; k < 3; k++) {
			v[k] = json_value(ld->in.line, names[k]);
			if (v[k] == NULL)
				return fs_error_at(ld->err, ld->in.display, ld->in.line_no, 1, "",
				                   "missing key \"%s\" (a mooncake trace needs "
				                   "timestamp, input_length, output_length)", names[k]);
			len[k] = number_len(v[k]);
			col[k] = (int)(v[k] - ld->in.line) + 1;
		}
		if (parse_time_units(v[0], len[0], FS_NS_PER_MS, &t_ns) || t_ns < 0 ||
		    t_ns >= FS_TRACE_MAX_SPAN_NS) {
			char found[64];

			fs__quote(v[0], len[0] > 0 ? len[0] : strcspn(v[0], ",}"), found,
			          sizeof found);
			return fs_error_at(ld->err, ld->in.display, ld->in.line_no, col[0], "",
			                   "expected a time in milliseconds >= 0 and below 100 "
			                   "years (%lld ms) for \"timestamp\", found %s",
			                   (long long)(FS_TRACE_MAX_SPAN_S * 1000), found);
		}
		for (int k = 1; k < 3; k++)
			if (fs__parse_count(v[k], len[k], &tok[k - 1])) {
				char found[64];

				fs__quote(v[k], len[k] > 0 ? len[k] : strcspn(v[k], ",}"), found,
				          sizeof found);
				return fs_error_at(ld->err, ld->in.display, ld->in.line_no, col[k],
				                   "", "expected an integer token count for \"%s\", "
				                   "found %s", names[k], found);
			}
		if (add_row(ld, t_ns, tok[0], tok[1], col[1], col[2], names))
			return -1;
		hv = json_value(ld->in.line, "hash_ids");
		if (hv != NULL && read_hash_ids(ld, hv))
			return -1;
	}
	return got < 0 ? -1 : 0;
}

/* ---- sorting and finishing ------------------------------------------------ */

/* Stable bottom-up merge sort by t_ns; O(n log n), one n-row buffer. */
static void sort_rows(struct fs_trace_row *rows, size_t n)
{
	struct fs_trace_row *tmp, *src = rows, *dst;
	size_t i;

	for (i = 1; i < n && rows[i - 1].t_ns <= rows[i].t_ns; i++)
		;
	if (i >= n)
		return;               /* already sorted: the common case */
	tmp = fs_xmalloc(n * sizeof *tmp);
	dst = tmp;
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t a = lo, b = mid, k = lo;

			while (a < mid && b < hi)
				dst[k++] = src[b].t_ns < src[a].t_ns ? src[b++] : src[a++];
			while (a < mid)
				dst[k++] = src[a++];
			while (b < hi)
				dst[k++] = src[b++];
		}
		struct fs_trace_row *swap = src;
		src = dst;
		dst = swap;
	}
	if (src != rows)
		memcpy(rows, src, n * sizeof *rows);
	free(tmp);
}

struct fs_trace *fs_trace_load(const char *path, const char *display_path,
                               enum fs_trace_format format, struct fs_error *err)
{
	struct loader ld = {.err = err};
	struct fs_trace *t;
	int rc;

	if (display_path == NULL)
		display_path = path;
	if (fs__lines_open(&ld.in, path, display_path, err))
		return NULL;
	switch (format) {
	case FS_TRACE_AZURE:
	case FS_TRACE_VIDUR:
		rc = read_csv(&ld, format);
		break;
	case FS_TRACE_MOONCAKE:
		rc = read_mooncake(&ld);
		break;
	default:
		rc = fs_error_at(err, display_path, 0, 0, "", "unknown trace format %d",
		                 (int)format);
		break;
	}
	fs__lines_close(&ld.in);
	if (rc == 0 && ld.n_rows == 0)
		rc = fs_error_at(err, display_path, 0, 0, "",
		                 "the %s trace has no requests", fs_trace_format_name(format));
	if (rc != 0) {
		free(ld.rows);
		free(ld.hash_ids);
		return NULL;
	}
	sort_rows(ld.rows, ld.n_rows);         /* MODEL: W14 */
	for (size_t i = 1; i < ld.n_rows; i++)
		ld.rows[i].t_ns -= ld.rows[0].t_ns;
	ld.rows[0].t_ns = 0;

	t = fs_xcalloc(1, sizeof *t);
	t->path = fs_xstrdup(display_path);
	t->format = format;
	t->rows = ld.rows;
	t->n_rows = ld.n_rows;
	t->span_ns = ld.rows[ld.n_rows - 1].t_ns;
	t->hash_ids = ld.hash_ids;
	t->n_hash_ids = ld.n_hash_ids;
	/* MODEL: V23 — ids are the trace's own: salted by its name so two
	 * traces' ids never share a block. */
	for (size_t i = 0; i < ld.n_rows; i++)
		if (ld.rows[i].hashes.n_units > 0) {
			ld.rows[i].hashes.ids = ld.hash_ids + ld.rows[i].hash_off;
			ld.rows[i].hashes.salt = fs_block_hash_salt(display_path);
		}
	/* MODEL: W16 — loops are separated by the mean gap, 1 s if undefined. */
	t->loop_gap_ns = ld.n_rows > 1 ? t->span_ns / (int64_t)(ld.n_rows - 1) : 0;
	if (t->loop_gap_ns <= 0)
		t->loop_gap_ns = FS_NS_PER_S;
	return t;
}

void fs_trace_free(struct fs_trace *t)
{
	if (t == NULL)
		return;
	free(t->path);
	free(t->rows);
	free(t->hash_ids);
	free(t);
}
