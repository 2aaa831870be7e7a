/*
 * trace.c — request-trace readers: Azure LLM 2023 CSV and Vidur/Splitwise
 * CSV here, Mooncake JSONL in trace_mooncake.c, into an immutable struct
 * fs_trace (see trace.h).  Times are parsed to integer nanoseconds exactly
 * (no floating point for decimal timestamps), rows are sorted stably by time
 * and shifted so the first is at t = 0.  On any error everything read so far
 * is freed.  MODEL: W14-W16.
 */
#include "fleetsim/trace.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "civil_date.h"
#include "text_lines.h"
#include "trace_internal.h"

/* Column names of the CSV formats, in the order timestamp, prompt, output. */
static const char *const azure_cols[3] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
static const char *const vidur_cols[3] = {
	"arrived_at", "num_prefill_tokens", "num_decode_tokens"};

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

/* Days in month mo (1-12) of year y, proleptic Gregorian. */
static int64_t month_days(int64_t y, int64_t mo)
{
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return mdays[mo - 1] + (mo == 2 && leap ? 1 : 0);
}

/* "YYYY-MM-DD HH:MM:SS[.fffffffff]" (or 'T' between date and time) to
 * seconds since the epoch plus nanoseconds; no time zone (only differences
 * between rows matter).  A date that does not exist (February 29 of a
 * common year, April 31) is refused, not moved to the next month. */
static int parse_datetime(const char *s, size_t len, int64_t *sec, int64_t *ns)
{
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
	if (p != end || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) ||
	    h > 23 || mi > 59 || se > 59)
		return -1;
	*sec = fs__civil_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

int fs__trace_parse_time_units(const char *s, size_t len, int64_t unit_ns, int64_t *out)
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
	/* MODEL: W14 — digits below 1 ns are truncated: frac * unit_ns / 1e9,
	 * unit_ns a multiple of 1e6, in integers. */
	*out = whole * unit_ns + frac * (unit_ns / FS_NS_PER_MS) / 1000;
	if (neg)
		*out = -*out;
	return 0;
}

/* ---- rows -------------------------------------------------------------- */

static int bad_count(struct fs__trace_loader *ld, const struct fs__csv_field *f,
                     const char *column)
{
	char found[64];

	fs__quote(f->s, f->len, found, sizeof found);
	return fs_error_at(ld->err, ld->in.display, ld->in.line_no, f->col, "",
	                   "expected an integer token count in column %s, found %s",
	                   column, found);
}

/* A token count field: digits, as fs__parse_count takes them ("12",
 * "12.0"), but without its '+': a count has no sign.  -1 with the error. */
static int take_count(struct fs__trace_loader *ld, const struct fs__csv_field *f,
                      const char *column, int64_t *out)
{
	if (f->len > 0 && f->s[0] >= '0' && f->s[0] <= '9' &&
	    fs__parse_count(f->s, f->len, out) == 0)
		return 0;
	return bad_count(ld, f, column);
}

/* Whether field f had spaces around its value, which fs__csv_split trims
 * along with one pair of quotes: the raw field, from the comma before f to
 * the comma after it (in *raw, *raw_len), is neither f nor f in quotes.  A
 * trace writer puts nothing around a value, so spaces there mean a hand
 * edit or another format, refused rather than guessed at. */
static int is_padded(const char *line, const struct fs__csv_field *f, const char **raw,
                     size_t *raw_len)
{
	const char *a = f->s, *b = f->s + f->len;

	while (a > line && a[-1] != ',')
		a--;
	while (*b != '\0' && *b != ',')
		b++;
	*raw = a;
	*raw_len = (size_t)(b - a);
	if (a == f->s && b == f->s + f->len)
		return 0;
	return !(a + 1 == f->s && b == f->s + f->len + 1 && *a == '"' && b[-1] == '"');
}

/* The field at idx of a row (column `column`): present, and without spaces
 * around it.  -1 with the error. */
static int take_field(struct fs__trace_loader *ld, const struct fs__csv *csv, int idx,
                      const char *column, const struct fs__csv_field **f)
{
	const char *raw;
	size_t raw_len;
	char found[64];

	if ((size_t)idx >= csv->n)
		return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
		                   (int)ld->in.len + 1, "",
		                   "expected a value in column %s, found the end of the line",
		                   column);
	*f = &csv->fields[idx];
	if (!is_padded(ld->in.line, *f, &raw, &raw_len))
		return 0;
	fs__quote(raw, raw_len, found, sizeof found);
	return fs_error_at(ld->err, ld->in.display, ld->in.line_no,
	                   (int)(raw - ld->in.line) + 1, "", "expected a value without "
	                   "spaces around it in column %s, found %s", column, found);
}

int fs__trace_add_row(struct fs__trace_loader *ld, int64_t t_ns, int64_t prompt,
                      int64_t output, int col_prompt, int col_output,
                      const char *const names[3])
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
static int read_csv(struct fs__trace_loader *ld, enum fs_trace_format format)
{
	const char *const *names = format == FS_TRACE_AZURE ? azure_cols : vidur_cols;
	struct fs__csv csv = {0};
	size_t n_header;
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
	n_header = csv.n;
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
		/* A field past the header's would be read as nothing, though it
		 * may be the rest of a value split at a stray comma. */
		if (csv.n > n_header) {
			fs_error_at(ld->err, ld->in.display, ld->in.line_no,
			            csv.fields[n_header].col, "", "expected %zu fields as in "
			            "the header, found %zu", n_header, csv.n);
			goto out;
		}
		for (int k = 0; k < 3; k++)
			if (take_field(ld, &csv, idx[k], names[k], &f[k]))
				goto out;
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
		} else if (fs__trace_parse_time_units(f[0]->s, f[0]->len, FS_NS_PER_S, &t_ns) ||
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
			if (take_count(ld, f[k], names[k], &tok[k - 1]))
				goto out;
		if (fs__trace_add_row(ld, t_ns, tok[0], tok[1], f[1]->col, f[2]->col, names))
			goto out;
	}
	rc = got < 0 ? -1 : 0;
out:
	fs__csv_fini(&csv);
	return rc;
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
	struct fs__trace_loader ld = {.err = err};
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
		rc = fs__trace_read_mooncake(&ld);
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
