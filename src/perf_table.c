/*
 * perf_table.c — measured step-time tables: load a CSV of prefill and decode
 * step times and interpolate a step from it (docs/MODEL.md P17–P19).
 * The table owns its arrays; it is immutable after loading, so one table may
 * be shared by every replica and thread.  Reading reuses the trace readers'
 * line and CSV helpers for file:line:col messages.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/perf.h"
#include "perf_internal.h"
#include "text_lines.h"

struct fs_step_table {
	size_t n_prefill;
	double *prefill_tokens;      /* ascending, distinct */
	double *prefill_ms;
	size_t n_batch, n_context;
	double *batch;               /* ascending, distinct */
	double *context;             /* ascending, distinct */
	double *decode_ms;           /* [i_batch * n_context + i_context] */
};

struct row {
	int is_prefill;
	int64_t tokens, batch, context;
	double step_ms;
	int line;
};

void fs_step_table_free(struct fs_step_table *t)
{
	if (t == NULL)
		return;
	free(t->prefill_tokens);
	free(t->prefill_ms);
	free(t->batch);
	free(t->context);
	free(t->decode_ms);
	free(t);
}

/* The longest measured step accepted: an hour.  MODEL: P17 */
#define MAX_STEP_MS 3.6e6
/* The longest step returned (2^61 ns, about 73 years): an extrapolation far
 * past the table is capped so that the clock cannot overflow.  MODEL: P18 */
#define MAX_STEP_NS ((fs_ns)1 << 61)

static int parse_ms(const struct fs__csv_field *f, double *out)
{
	char buf[64], *end;

	if (f->len == 0 || f->len >= sizeof buf)
		return -1;
	memcpy(buf, f->s, f->len);
	buf[f->len] = '\0';
	*out = strtod(buf, &end);
	return *end == '\0' && *out > 0 && *out <= MAX_STEP_MS ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sort and deduplicate v[0..n); returns the new count. */
static size_t unique(double *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof *v, cmp_double);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static size_t index_of(const double *v, size_t n, double x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return i;
	return n;
}

/* Parse one data line into *r; column indices in col[] (kind, tokens,
 * batch, context, step_ms). */
static int parse_row(const struct fs__lines *in, const struct fs__csv *c,
                     const int col[5], struct row *r, struct fs_error *err)
{
	static const char *const names[5] = { "kind", "tokens", "batch", "context", "step_ms" };
	const struct fs__csv_field *f = c->fields;
	int64_t *counts[3] = { &r->tokens, &r->batch, &r->context };
	char q[64];

	for (int k = 0; k < 5; k++)
		if ((size_t)col[k] >= c->n)
			return fs_error_at(err, in->display, in->line_no, (int)in->len + 1, "",
			                   "missing field \"%s\": expected %zu fields, found %zu",
			                   names[k], (size_t)col[4] + 1, c->n);
	if (f[col[0]].len == 7 && memcmp(f[col[0]].s, "prefill", 7) == 0) {
		r->is_prefill = 1;
	} else if (f[col[0]].len == 6 && memcmp(f[col[0]].s, "decode", 6) == 0) {
		r->is_prefill = 0;
	} else {
		fs__quote(f[col[0]].s, f[col[0]].len, q, sizeof q);
		return fs_error_at(err, in->display, in->line_no, f[col[0]].col, "",
		                   "kind: expected \"prefill\" or \"decode\", found %s", q);
	}
	for (int k = 0; k < 3; k++) {
		const struct fs__csv_field *g = &f[col[k + 1]];

		if (fs__parse_count(g->s, g->len, counts[k]) != 0) {
			fs__quote(g->s, g->len, q, sizeof q);
			return fs_error_at(err, in->display, in->line_no, g->col, "",
			                   "%s: expected a whole number, found %s", names[k + 1], q);
		}
	}
	if (parse_ms(&f[col[4]], &r->step_ms) != 0) {
		fs__quote(f[col[4]].s, f[col[4]].len, q, sizeof q);
		return fs_error_at(err, in->display, in->line_no, f[col[4]].col, "",
		                   "step_ms: expected a positive number of milliseconds, "
		                   "at most %.0f (an hour), found %s", MAX_STEP_MS, q);
	}
	if (r->is_prefill && (r->tokens < 1 || r->batch > 1 || r->context != 0))
		return fs_error_at(err, in->display, in->line_no, f[col[1]].col, "",
		                   "a prefill row needs tokens >= 1 at batch 1 (or 0) and "
		                   "context 0, found tokens %lld batch %lld context %lld",
		                   (long long)r->tokens, (long long)r->batch,
		                   (long long)r->context);
	if (!r->is_prefill && r->batch < 1)
		return fs_error_at(err, in->display, in->line_no, f[col[2]].col, "",
		                   "a decode row needs batch >= 1, found %lld",
		                   (long long)r->batch);
	r->line = in->line_no;
	return 0;
}

/* Build the prefill curve and the decode grid from the rows. */
static int build(struct fs_step_table *t, const struct row *rows, size_t n,
                 const char *display, struct fs_error *err)
{
	size_t n_dec = 0;

	t->prefill_tokens = fs_xcalloc(n + 1, sizeof(double));
	t->prefill_ms = fs_xcalloc(n + 1, sizeof(double));
	t->batch = fs_xcalloc(n + 1, sizeof(double));
	t->context = fs_xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		if (rows[i].is_prefill)
			continue;
		t->batch[n_dec] = (double)rows[i].batch;
		t->context[n_dec++] = (double)rows[i].context;
	}
	t->n_batch = unique(t->batch, n_dec);
	t->n_context = unique(t->context, n_dec);
	t->decode_ms = fs_xcalloc(t->n_batch * t->n_context + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		if (r->is_prefill) {
			for (size_t j = 0; j < t->n_prefill; j++)
				if (t->prefill_tokens[j] == (double)r->tokens)
					return fs_error_at(err, display, r->line, 1, "", "duplicate "
					                   "prefill row for tokens %lld", (long long)r->tokens);
			/* insertion keeps the curve sorted */
			size_t j = t->n_prefill++;
			while (j > 0 && t->prefill_tokens[j - 1] > (double)r->tokens) {
				t->prefill_tokens[j] = t->prefill_tokens[j - 1];
				t->prefill_ms[j] = t->prefill_ms[j - 1];
				j--;
			}
			t->prefill_tokens[j] = (double)r->tokens;
			t->prefill_ms[j] = r->step_ms;
		} else {
			size_t k = index_of(t->batch, t->n_batch, (double)r->batch) * t->n_context +
			           index_of(t->context, t->n_context, (double)r->context);
			if (t->decode_ms[k] > 0)
				return fs_error_at(err, display, r->line, 1, "", "duplicate decode "
				                   "row for batch %lld context %lld",
				                   (long long)r->batch, (long long)r->context);
			t->decode_ms[k] = r->step_ms;
		}
	}
	if (t->n_prefill == 0 || n_dec == 0)
		return fs_error_at(err, display, 0, 0, "", "a step table needs at least one "
		                   "prefill row and one decode row, found %zu and %zu",
		                   t->n_prefill, n_dec);
	for (size_t b = 0; b < t->n_batch; b++)
		for (size_t c = 0; c < t->n_context; c++)
			if (t->decode_ms[b * t->n_context + c] <= 0)
				return fs_error_at(err, display, 0, 0, "", "decode rows must form a "
				                   "full grid: no row for batch %.0f context %.0f",
				                   t->batch[b], t->context[c]);
	return 0;
}

struct fs_step_table *fs_step_table_load(const char *path, const char *display_path,
                                         struct fs_error *err)
{
	static const char *const names[5] = { "kind", "tokens", "batch", "context", "step_ms" };
	struct fs__lines in;
	struct fs__csv csv = { 0 };
	struct fs_step_table *t;
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	int col[5], have_header = 0, rc;
	const char *display = display_path != NULL ? display_path : path;

	if (fs__lines_open(&in, path, display, err) != 0)
		return NULL;
	t = fs_xcalloc(1, sizeof *t);
	while ((rc = fs__lines_next(&in, err)) > 0) {
		if (fs__is_blank(in.line) || in.line[strspn(in.line, " \t")] == '#')
			continue;
		fs__csv_split(&csv, in.line);
		if (!have_header) {
			for (int k = 0; k < 5; k++) {
				col[k] = fs__csv_find(&csv, names[k]);
				if (col[k] < 0) {
					rc = fs_error_at(err, display, in.line_no, 1, "", "header: "
					                 "expected columns kind,tokens,batch,context,"
					                 "step_ms; no \"%s\" column", names[k]);
					goto fail;
				}
			}
			have_header = 1;
			continue;
		}
		fs_xgrow((void **)&rows, &cap, n + 1, sizeof *rows);
		if (parse_row(&in, &csv, col, &rows[n], err) != 0) {
			rc = -1;
			goto fail;
		}
		n++;
	}
	if (rc < 0)
		goto fail;
	if (!have_header) {
		rc = fs_error_at(err, display, 0, 0, "", "empty step table: expected a "
		                 "header kind,tokens,batch,context,step_ms and rows");
		goto fail;
	}
	if (build(t, rows, n, display, err) != 0)
		goto fail;
	free(rows);
	fs__csv_fini(&csv);
	fs__lines_close(&in);
	return t;
fail:
	free(rows);
	fs__csv_fini(&csv);
	fs__lines_close(&in);
	fs_step_table_free(t);
	return NULL;
}

/* MODEL: P18 — piecewise-linear in x through (xs, ys); outside the range the
 * end segment is extended (a single point gives a constant); never below 0. */
static double interp(const double *xs, const double *ys, size_t n, double x)
{
	size_t i;
	double y;

	if (n == 1)
		return ys[0];
	for (i = 1; i < n - 1 && x > xs[i]; i++)
		;
	y = ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
	return y > 0 ? y : 0;
}

/* Bilinear over the decode grid: interpolate along context in each of the
 * two bracketing batch rows, then along batch. */
static double decode_ms(const struct fs_step_table *t, double batch, double context)
{
	double col[2], bx[2];
	size_t b0, b1;

	if (t->n_batch == 1)
		return interp(t->context, t->decode_ms, t->n_context, context);
	for (b1 = 1; b1 < t->n_batch - 1 && batch > t->batch[b1]; b1++)
		;
	b0 = b1 - 1;
	col[0] = interp(t->context, t->decode_ms + b0 * t->n_context, t->n_context, context);
	col[1] = interp(t->context, t->decode_ms + b1 * t->n_context, t->n_context, context);
	bx[0] = t->batch[b0];
	bx[1] = t->batch[b1];
	return interp(bx, col, 2, batch);
}

/* MODEL: P19 — the context-dependent part of a decode step of `batch`
 * sequences at mean context `context`: decode(batch, context) minus the same
 * batch at context 0, where the table's context segment is extended linearly
 * to 0 when that stays positive; otherwise (a single measured context, or a
 * segment that would reach 0 or below) the table's smallest context is the
 * base.  Never below 0. */
static double decode_context_ms(const struct fs_step_table *t, double batch, double context)
{
	double full = decode_ms(t, batch, context);
	double at0 = decode_ms(t, batch, 0.0);
	double base = at0 > 0 ? at0 : decode_ms(t, batch, t->context[0]);

	return full > base ? full - base : 0.0;
}

fs_ns fs_step_table_step_ns(const struct fs_step_table *t, const struct fs_step_shape *shape,
                            fs_ns iteration_overhead_ns)
{
	double pre = 0, dec = 0, total, mean_ctx;

	(void)iteration_overhead_ns;     /* each measured row includes it once */
	/* MODEL: P17 — the prefill part depends on the prompt tokens of the step
	 * only (prior context of a chunk is ignored). */
	if (shape->prefill_tokens > 0)
		pre = interp(t->prefill_tokens, t->prefill_ms, t->n_prefill,
		             (double)shape->prefill_tokens);
	if (shape->decode_seqs > 0) {
		mean_ctx = (double)shape->decode_context_tokens / (double)shape->decode_seqs;
		dec = decode_ms(t, (double)shape->decode_seqs, mean_ctx);
	}
	total = (pre + dec) * 1e6;
	/* MODEL: P19 — a mixed step streams the weights once: its decode tokens
	 * ride in the prefill pass (prefill row at prompt + decode tokens), and
	 * only the decode rows' context-dependent part (attention over the KV)
	 * is added; never less than its larger part alone. */
	if (pre > 0 && dec > 0) {
		total = (interp(t->prefill_tokens, t->prefill_ms, t->n_prefill,
		                (double)(shape->prefill_tokens + shape->decode_seqs)) +
		         decode_context_ms(t, (double)shape->decode_seqs, mean_ctx)) * 1e6;
		if (total < fmax(pre, dec) * 1e6)
			total = fmax(pre, dec) * 1e6;
	}
	if (!(total <= (double)MAX_STEP_NS))   /* MODEL: P18 — capped */
		return MAX_STEP_NS;
	return total < 1 ? 1 : (fs_ns)llround(total);
}
