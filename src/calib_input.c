/*
 * calib_input.c — readers of the CSV measurements `fleetsim calibrate` fits:
 * measured step times, whole `vllm bench latency` runs or single requests
 * (the header decides), each row checked against the ranges of
 * docs/CALIBRATE.md and turned into points with a measured time (MODEL:
 * C5, C7, C8); the file-type dispatch (JSON goes to calib_vllm.c).  Bad
 * input is reported at file:line:col; nothing is kept between calls.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "fleetsim/catalog.h"
#include "scenario_walk.h"

enum { C_BATCH, C_PREFILL, C_DECODE, C_CTX, C_MS, N_COLS };
static const char *const COLS[N_COLS] = {
	"batch", "prefill_tokens", "decode_tokens", "context", "ms"
};

/* The whole-run form (MODEL: C7): a header with latency_ms selects it. */
enum { R_BATCH, R_INPUT, R_OUTPUT, R_MS, N_RUN_COLS };
static const char *const RUN_COLS[N_RUN_COLS] = {
	"batch", "input_len", "output_len", "latency_ms"
};

/* The per-request form (MODEL: C8): a header with ttft_ms selects it;
 * tpot_ms is optional (0 or absent: no decode point). */
enum { Q_PROMPT, Q_OUTPUT, Q_TTFT, Q_TPOT, N_REQ_COLS };
static const char *const REQ_COLS[N_REQ_COLS] = {
	"prompt_tokens", "output_tokens", "ttft_ms", "tpot_ms"
};

enum { MAX_FORM_COLS = 5, MAX_CELLS = 32 };

/* One data row, its cells in the order of its form's column names. */
struct csv_row {
	const char *file;
	int line;
	const char *const *names;          /* the form's column names */
	char *cell[MAX_FORM_COLS];         /* NULL: an optional column left out */
	int col[MAX_FORM_COLS];            /* 1-based columns of the cells */
	const struct fs_model_spec *model; /* its context bounds token counts */
};

static int fail(struct fs_error *err, const char *file, int line, int col,
                const char *path, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int fail(struct fs_error *err, const char *file, int line, int col,
                const char *path, const char *fmt, ...)
{
	char where[300], msg[600];
	va_list ap;

	snprintf(where, sizeof where, "%s:%d:%d", file, line, col);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fs_error_set(err, where, path, "%s", msg);
	return -1;
}

int fs__cal_range_ok(const struct fs_cal_range *r, double v)
{
	return isfinite(v) && (r->lo_open ? v > r->lo : v >= r->lo) && v <= r->hi &&
	       (!r->whole || v == floor(v));
}

void fs__cal_range_text(const struct fs_cal_range *r, char *buf, size_t len)
{
	int n;

	if (r->whole)
		n = snprintf(buf, len, "a whole number from %.0f to %.0f", r->lo, r->hi);
	else if (isinf(r->hi))
		n = snprintf(buf, len, "a finite number %s %.15g", r->lo_open ? ">" : ">=",
		             r->lo);
	else if (r->lo_open)
		n = snprintf(buf, len, "a number > %.15g and <= %.15g", r->lo, r->hi);
	else
		n = snprintf(buf, len, "a number from %.15g to %.15g", r->lo, r->hi);
	if (r->why[0] != '\0' && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (%s)", r->why);
}

/* The whole numbers lo..hi; the caller sets why when the bound needs saying. */
static struct fs_cal_range whole_range(double lo, double hi)
{
	struct fs_cal_range r = { .lo = lo, .hi = hi, .whole = 1 };

	return r;
}

/* The numbers [lo, hi], or (lo, hi] with lo_open; why as whole_range's. */
static struct fs_cal_range num_range(double lo, int lo_open, double hi)
{
	struct fs_cal_range r = { .lo = lo, .hi = hi, .lo_open = lo_open };

	return r;
}

/* Cell i of row as a number in r; -1 with err at the cell otherwise. */
static int read_cell(const struct csv_row *row, int i, const struct fs_cal_range *r,
                     double *out, struct fs_error *err)
{
	char *end = NULL, path[64], want[300];

	*out = strtod(row->cell[i], &end);
	if (end != row->cell[i] && *end == '\0' && fs__cal_range_ok(r, *out))
		return 0;
	snprintf(path, sizeof path, "measurements.%s", row->names[i]);
	fs__cal_range_text(r, want, sizeof want);
	return fail(err, row->file, row->line, row->col[i], path,
	            "expected %s, found \"%s\"", want, row->cell[i]);
}

/* A sequence's prompt and output tokens: the prompt 1 .. context - 1 (one
 * output token must fit), the output 1 .. context - prompt. */
static int read_prompt_output(const struct csv_row *row, int i_prompt, int i_output,
                              double *prompt, double *output, struct fs_error *err)
{
	const struct fs_model_spec *m = row->model;
	double ctx = (double)m->max_context_tokens;
	struct fs_cal_range r = whole_range(1, ctx - 1);

	snprintf(r.why, sizeof r.why, "a prompt and one output token within the "
	         "%lld-token context of %s", (long long)m->max_context_tokens, m->id);
	if (read_cell(row, i_prompt, &r, prompt, err) < 0)
		return -1;
	r = whole_range(1, ctx - *prompt);
	snprintf(r.why, sizeof r.why, "%s + %s within the %lld-token context of %s",
	         row->names[i_prompt], row->names[i_output],
	         (long long)m->max_context_tokens, m->id);
	return read_cell(row, i_output, &r, output, err);
}

/* A measured time in ms: > 0 (or >= 0 with zero_ok) and at most FS__CAL_MAX_MS. */
static int read_ms(const struct csv_row *row, int i, int zero_ok, double *out,
                   struct fs_error *err)
{
	struct fs_cal_range r = num_range(0, !zero_ok, FS__CAL_MAX_MS);

	snprintf(r.why, sizeof r.why, "milliseconds");
	return read_cell(row, i, &r, out, err);
}

/* Split line (modified in place) at commas; cells and their 1-based columns. */
static int split(char *line, char **cell, int *col, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *end = strchr(p, ',');

		while (*p == ' ' || *p == '\t')
			p++;
		if (n < max) {
			cell[n] = p;
			col[n] = (int)(p - line) + 1;
		}
		n++;
		if (end == NULL)
			break;
		*end = '\0';
		p = end + 1;
	}
	for (int i = 0; i < n && i < max; i++) {
		size_t l = strlen(cell[i]);

		while (l > 0 && isspace((unsigned char)cell[i][l - 1]))
			cell[i][--l] = '\0';
	}
	return n;
}

/* MODEL: C5 — a CSV row is one step: `batch` sequences, of which
 * `decode_tokens` decode one token each with `context` tokens of context on
 * average and the other batch − decode_tokens share `prefill_tokens` new
 * prompt tokens equally, each from context 0. */
static void row_shape(const double v[N_COLS], struct fs_step_shape *s)
{
	int64_t b = (int64_t)v[C_BATCH], d = (int64_t)v[C_DECODE], np = b - d;

	memset(s, 0, sizeof *s);
	s->n_seqs = b;
	s->decode_seqs = d;
	s->decode_context_tokens = (int64_t)llround((double)d * v[C_CTX]);
	s->prefill_tokens = (int64_t)v[C_PREFILL];
	if (s->prefill_tokens > 0) {
		double len = v[C_PREFILL] / (double)np;

		s->prefill_attn_tokens = (int64_t)llround((double)np * len * len / 2.0);
	}
}

/* The step row's counts: batch, then decode_tokens <= batch, then
 * prefill_tokens of at most the context per prefilling sequence, not 0
 * when nothing decodes (a step does some work). */
static int read_step_counts(const struct csv_row *row, double v[N_COLS],
                            struct fs_error *err)
{
	const struct fs_model_spec *m = row->model;
	struct fs_cal_range r = whole_range(1, FS__CAL_MAX_SEQS);
	double np;

	snprintf(r.why, sizeof r.why, "sequences in one step");
	if (read_cell(row, C_BATCH, &r, &v[C_BATCH], err) < 0)
		return -1;
	r = whole_range(0, v[C_BATCH]);
	snprintf(r.why, sizeof r.why, "decoding sequences, at most batch");
	if (read_cell(row, C_DECODE, &r, &v[C_DECODE], err) < 0)
		return -1;
	np = v[C_BATCH] - v[C_DECODE];
	r = whole_range(0, np * (double)m->max_context_tokens);
	if (np == 0)
		snprintf(r.why, sizeof r.why, "no sequence prefills: batch - decode_tokens "
		         "= 0");
	else
		snprintf(r.why, sizeof r.why, "at most %lld, the context of %s, per "
		         "prefilling sequence; batch - decode_tokens = %.0f of them",
		         (long long)m->max_context_tokens, m->id, np);
	if (read_cell(row, C_PREFILL, &r, &v[C_PREFILL], err) < 0)
		return -1;
	if (v[C_PREFILL] == 0 && v[C_DECODE] == 0)
		return fail(err, row->file, row->line, row->col[C_PREFILL],
		            "measurements.prefill_tokens", "expected a whole number >= 1 "
		            "when decode_tokens is 0 (a step does some work), found \"%s\"",
		            row->cell[C_PREFILL]);
	return 0;
}

/* One step row (cells in order COLS) as a point. */
static int step_row(const struct csv_row *row, struct fs_cal_points *ps,
                    struct fs_error *err)
{
	const struct fs_model_spec *m = row->model;
	struct fs_cal_range r = num_range(0, 0, (double)m->max_context_tokens);
	struct fs_cal_point pt;
	double v[N_COLS];

	snprintf(r.why, sizeof r.why, "mean context tokens of a decoding sequence, at "
	         "most the context of %s", m->id);
	if (read_step_counts(row, v, err) < 0 ||
	    read_cell(row, C_CTX, &r, &v[C_CTX], err) < 0 ||
	    read_ms(row, C_MS, 0, &v[C_MS], err) < 0)
		return -1;
	memset(&pt, 0, sizeof pt);
	row_shape(v, &pt.shape);
	pt.measured_ns = v[C_MS] * 1e6;
	snprintf(pt.where, sizeof pt.where, "%.140s:%d", row->file, row->line);
	fs__cal_points_push(ps, &pt);
	return 0;
}

/* One whole-run row (cells in order RUN_COLS) as a point. */
static int run_row(const struct csv_row *row, struct fs_cal_points *ps,
                   struct fs_error *err)
{
	struct fs_cal_range r = whole_range(1, FS__CAL_MAX_RUN_BATCH);
	struct fs_cal_point pt;
	double v[N_RUN_COLS];

	snprintf(r.why, sizeof r.why, "vLLM's default max_num_seqs");
	if (read_cell(row, R_BATCH, &r, &v[R_BATCH], err) < 0 ||
	    read_prompt_output(row, R_INPUT, R_OUTPUT, &v[R_INPUT], &v[R_OUTPUT], err) < 0 ||
	    read_ms(row, R_MS, 0, &v[R_MS], err) < 0)
		return -1;
	memset(&pt, 0, sizeof pt);
	pt.kind = FS_CAL_RUN;
	pt.run.batch = (int64_t)v[R_BATCH];
	pt.run.input_len = (int64_t)v[R_INPUT];
	pt.run.output_len = (int64_t)v[R_OUTPUT];
	pt.run.input_col = row->col[R_INPUT];
	pt.measured_ns = v[R_MS] * 1e6;
	snprintf(pt.where, sizeof pt.where, "%.140s:%d", row->file, row->line);
	fs__cal_points_push(ps, &pt);
	return 0;
}

void fs__cal_push_request(struct fs_cal_points *ps, double prompt, double output,
                          double ttft_ms, double tpot_ms, const char *where)
{
	struct fs_cal_point pt;

	memset(&pt, 0, sizeof pt);
	pt.shape.prefill_tokens = (int64_t)llround(prompt);
	pt.shape.prefill_attn_tokens = pt.shape.prefill_tokens * pt.shape.prefill_tokens / 2;
	pt.shape.n_seqs = 1;
	pt.measured_ns = ttft_ms * 1e6;
	snprintf(pt.where, sizeof pt.where, "%.150s ttft", where);
	fs__cal_points_push(ps, &pt);
	if (!(tpot_ms > 0) || output < 2)
		return;
	memset(&pt, 0, sizeof pt);
	pt.shape.decode_seqs = 1;
	pt.shape.n_seqs = 1;
	pt.shape.decode_context_tokens = (int64_t)llround(prompt + output / 2);
	pt.measured_ns = tpot_ms * 1e6;
	snprintf(pt.where, sizeof pt.where, "%.150s tpot", where);
	fs__cal_points_push(ps, &pt);
}

/* One per-request row (cells in order REQ_COLS; tpot may be NULL). */
static int request_row(const struct csv_row *row, struct fs_cal_points *ps,
                       struct fs_error *err)
{
	double v[N_REQ_COLS] = { 0 };
	char where[160];

	if (read_prompt_output(row, Q_PROMPT, Q_OUTPUT, &v[Q_PROMPT], &v[Q_OUTPUT], err) < 0 ||
	    read_ms(row, Q_TTFT, 0, &v[Q_TTFT], err) < 0 ||
	    (row->cell[Q_TPOT] != NULL && read_ms(row, Q_TPOT, 1, &v[Q_TPOT], err) < 0))
		return -1;
	snprintf(where, sizeof where, "%.140s:%d", row->file, row->line);
	fs__cal_push_request(ps, v[Q_PROMPT], v[Q_OUTPUT], v[Q_TTFT], v[Q_TPOT], where);
	return 0;
}

/* A CSV form: its columns, which of them may be left out (-1: none) and
 * its row reader. */
struct csv_form {
	const char *const *names;
	int n;
	int optional;
	int (*row)(const struct csv_row *row, struct fs_cal_points *ps,
	           struct fs_error *err);
};

static const struct csv_form STEP_FORM = { COLS, N_COLS, -1, step_row };
static const struct csv_form RUN_FORM = { RUN_COLS, N_RUN_COLS, -1, run_row };
static const struct csv_form REQ_FORM = { REQ_COLS, N_REQ_COLS, Q_TPOT, request_row };

/* The header (n cells): its form (a latency_ms column selects whole runs, a
 * ttft_ms column single requests, else steps), each name once, and where
 * each of the form's columns is (cell_of[i], -1 for an optional one left
 * out). */
static int read_header(const char *file, int line, char *const cell[], const int col[],
                       int n, const struct csv_form **form, int cell_of[],
                       struct fs_error *err)
{
	int i, k;

	*form = &STEP_FORM;
	for (i = 0; i < n; i++) {
		for (k = 0; k < i; k++)
			if (strcmp(cell[k], cell[i]) == 0)
				return fail(err, file, line, col[i], "header", "expected each "
				            "column name once, found \"%s\" again (first at "
				            "column %d)", cell[i], col[k]);
		if (strcmp(cell[i], "latency_ms") == 0)
			*form = &RUN_FORM;
		if (strcmp(cell[i], "ttft_ms") == 0)
			*form = &REQ_FORM;
	}
	for (i = 0; i < (*form)->n; i++) {
		cell_of[i] = -1;
		for (k = 0; k < n; k++)
			if (strcmp(cell[k], (*form)->names[i]) == 0)
				cell_of[i] = k;
		if (cell_of[i] < 0 && i != (*form)->optional)
			return fail(err, file, line, 1, "header", "expected a column \"%s\", "
			            "found none", (*form)->names[i]);
	}
	return 0;
}

/* A data row of n cells (line length len) under a header of n_header
 * columns: as many fields as the header, each of the form's present. */
static int take_row(struct csv_row *row, const struct csv_form *form, const int cell_of[],
                    char *const cell[], const int col[], int n, int n_header,
                    size_t len, struct fs_error *err)
{
	int i;

	if (n > n_header)
		return fail(err, row->file, row->line, col[n_header], "measurements",
		            "expected %d fields, as the header has, found %d", n_header, n);
	for (i = 0; i < form->n; i++) {
		int k = cell_of[i];
		char path[64];

		row->cell[i] = k < 0 ? NULL : cell[k];  /* an optional column left out */
		row->col[i] = k < 0 ? 0 : col[k];
		snprintf(path, sizeof path, "measurements.%s", form->names[i]);
		if (k >= n)
			return fail(err, row->file, row->line, (int)len + 1, path,
			            "expected a number, found %s", "end of line");
	}
	if (n < n_header)
		return fail(err, row->file, row->line, (int)len + 1, "measurements",
		            "expected %d fields, as the header has, found %d", n_header, n);
	return 0;
}

/* A CSV of steps, of whole runs when the header names latency_ms, or of
 * single requests when it names ttft_ms. */
static int read_csv(const char *path, char *text, const struct fs_model_spec *model,
                    struct fs_cal_points *ps, struct fs_error *err)
{
	const struct csv_form *form = NULL;
	int cell_of[MAX_FORM_COLS], n_header = 0;
	struct csv_row row = { .file = path, .model = model };
	char *line, *next;

	for (line = text; line != NULL; line = next) {
		char *cell[MAX_CELLS];
		int col[MAX_CELLS], n;
		size_t l;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		l = strlen(line);
		row.line++;
		if (l > 0 && line[l - 1] == '\r')
			line[--l] = '\0';
		if (l == 0 || line[0] == '#')
			continue;
		n = split(line, cell, col, MAX_CELLS);
		if (n > MAX_CELLS)
			return fail(err, path, row.line, 1, "measurements",
			            "expected at most %d columns, found %d", MAX_CELLS, n);
		if (form == NULL) {
			if (read_header(path, row.line, cell, col, n, &form, cell_of, err) < 0)
				return -1;
			row.names = form->names;
			n_header = n;
			continue;
		}
		if (take_row(&row, form, cell_of, cell, col, n, n_header, l, err) < 0 ||
		    form->row(&row, ps, err) < 0)
			return -1;
	}
	if (form == NULL)
		return fail(err, path, 1, 1, "header",
		            "expected a header naming batch, prefill_tokens, decode_tokens, "
		            "context, ms (steps), batch, input_len, output_len, latency_ms "
		            "(whole runs) or prompt_tokens, output_tokens, ttft_ms[, tpot_ms] "
		            "(single requests), found %s", "an empty file");
	return 0;
}

int fs__cal_read_file(const char *path, const struct fs_model_spec *model,
                      struct fs_cal_points *ps, struct fs_error *err)
{
	size_t len = 0, pl = strlen(path), n_before = ps->n;
	char *text = fs__sc_read_file(path, "measurements", &len, err);
	int rc;

	if (text == NULL)
		return -1;
	/* the CSV reader works on a C string: terminate the bytes read, and
	 * refuse a NUL inside them rather than stop there */
	text = fs_xrealloc(text, len + 1);
	text[len] = '\0';
	if (memchr(text, '\0', len) != NULL) {
		rc = fail(err, path, 1, 1, "measurements", "expected text, found a NUL byte");
		free(text);
		return rc;
	}
	if (pl > 5 && strcmp(path + pl - 5, ".json") == 0)
		rc = fs__cal_read_vllm(path, text, len, model, ps, err);
	else
		rc = read_csv(path, text, model, ps, err);
	free(text);
	if (rc < 0)
		ps->n = n_before;               /* a failed read adds nothing */
	return rc;
}
