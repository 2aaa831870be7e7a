/*
 * calib_input.c — readers of the measurements `fleetsim calibrate` fits: a
 * CSV of measured step times, a CSV of whole `vllm bench latency` runs
 * (the header decides) and a `vllm bench serve` result JSON, each turned
 * into points with a measured time (MODEL: C5-C7).  Bad input is reported
 * at file:line:col; nothing is kept between calls.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "json_pos.h"
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
static int row_shape(const double v[N_COLS], struct fs_step_shape *s)
{
	int64_t b = (int64_t)v[C_BATCH], d = (int64_t)v[C_DECODE], np = b - d;

	if (d > b || (v[C_PREFILL] > 0 && np < 1) || (v[C_PREFILL] == 0 && d == 0))
		return -1;
	memset(s, 0, sizeof *s);
	s->n_seqs = b;
	s->decode_seqs = d;
	s->decode_context_tokens = (int64_t)llround((double)d * v[C_CTX]);
	s->prefill_tokens = (int64_t)v[C_PREFILL];
	if (s->prefill_tokens > 0) {
		double len = v[C_PREFILL] / (double)np;

		s->prefill_attn_tokens = (int64_t)llround((double)np * len * len / 2.0);
	}
	return 0;
}

/* One whole-run row (values v[], columns col[] of the cells in order
 * RUN_COLS) as a point; -1 with err at the offending cell. */
static int run_row(const char *path, int line_no, char *const cell[],
                   const int col[], struct fs_cal_points *ps, struct fs_error *err)
{
	double v[N_RUN_COLS];
	struct fs_cal_point pt;
	int i;

	for (i = 0; i < N_RUN_COLS; i++) {
		char *end = NULL, path_buf[64];

		snprintf(path_buf, sizeof path_buf, "measurements.%s", RUN_COLS[i]);
		v[i] = strtod(cell[i], &end);
		if (end == cell[i] || *end != '\0' || !isfinite(v[i]) || v[i] > 1e9 ||
		    (i == R_MS ? v[i] <= 0 : v[i] < 1 || v[i] != floor(v[i])) ||
		    (i == R_BATCH && v[i] > 256))
			return fail(err, path, line_no, col[i], path_buf,
			            i == R_MS ? "expected a number > 0, found \"%s\""
			            : i == R_BATCH ? "expected a whole number 1..256 (vLLM's "
			              "default max_num_seqs), found \"%s\""
			            : "expected a whole number >= 1, found \"%s\"", cell[i]);
	}
	memset(&pt, 0, sizeof pt);
	pt.kind = FS_CAL_RUN;
	pt.run.batch = (int64_t)v[R_BATCH];
	pt.run.input_len = (int64_t)v[R_INPUT];
	pt.run.output_len = (int64_t)v[R_OUTPUT];
	pt.run.input_col = col[R_INPUT];
	pt.measured_ns = v[R_MS] * 1e6;
	snprintf(pt.where, sizeof pt.where, "%.140s:%d", path, line_no);
	fs__cal_points_push(ps, &pt);
	return 0;
}

/* One step row (cells and columns in order COLS) as a point. */
static int step_row(const char *path, int line_no, char *const cell[],
                    const int col[], struct fs_cal_points *ps, struct fs_error *err)
{
	double v[N_COLS];
	struct fs_cal_point pt;
	int i;

	for (i = 0; i < N_COLS; i++) {
		char *end = NULL, path_buf[64];

		snprintf(path_buf, sizeof path_buf, "measurements.%s", COLS[i]);
		v[i] = strtod(cell[i], &end);
		if (end == cell[i] || *end != '\0' || !isfinite(v[i]) || v[i] < 0 ||
		    v[i] > 1e9 || (i == C_MS && v[i] <= 0) ||
		    (i != C_CTX && i != C_MS && v[i] != floor(v[i])) ||
		    (i == C_BATCH && v[i] < 1))
			return fail(err, path, line_no, col[i], path_buf,
			            i == C_MS ? "expected a number > 0, found \"%s\""
			            : i == C_CTX ? "expected a number >= 0, found \"%s\""
			            : "expected a whole number >= 0 (batch >= 1), "
			              "found \"%s\"", cell[i]);
	}
	memset(&pt, 0, sizeof pt);
	if (row_shape(v, &pt.shape) < 0)
		return fail(err, path, line_no, 1, "measurements",
		            "expected decode_tokens <= batch, a prefilling sequence "
		            "for prefill_tokens > 0 and some work, found %s",
		            "a row that is none of these");
	pt.measured_ns = v[C_MS] * 1e6;
	snprintf(pt.where, sizeof pt.where, "%.140s:%d", path, line_no);
	fs__cal_points_push(ps, &pt);
	return 0;
}

/* MODEL: C8 — one request measured alone (concurrency 1): its TTFT is a
 * batch-1 prefill of its prompt, its mean inter-token time a batch-1 decode
 * step at its mid-life context, prompt + output / 2. */
static void push_request(struct fs_cal_points *ps, double prompt, double output,
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
static int request_row(const char *path, int line_no, char *const cell[],
                       const int col[], struct fs_cal_points *ps, struct fs_error *err)
{
	double v[N_REQ_COLS] = { 0 };
	char where[160];
	int i;

	for (i = 0; i < N_REQ_COLS; i++) {
		char *end = NULL, path_buf[64];

		if (cell[i] == NULL)
			continue;
		snprintf(path_buf, sizeof path_buf, "measurements.%s", REQ_COLS[i]);
		v[i] = strtod(cell[i], &end);
		if (end == cell[i] || *end != '\0' || !isfinite(v[i]) || v[i] > 1e9 ||
		    (i == Q_TTFT ? v[i] <= 0 : v[i] < 0) ||
		    (i <= Q_OUTPUT && (v[i] != floor(v[i]) || v[i] < 1)))
			return fail(err, path, line_no, col[i], path_buf,
			            i == Q_TTFT ? "expected a number > 0, found \"%s\""
			            : i == Q_TPOT ? "expected a number >= 0, found \"%s\""
			            : "expected a whole number >= 1, found \"%s\"", cell[i]);
	}
	snprintf(where, sizeof where, "%.140s:%d", path, line_no);
	push_request(ps, v[Q_PROMPT], v[Q_OUTPUT], v[Q_TTFT], v[Q_TPOT], where);
	return 0;
}

/* A CSV of steps, of whole runs when the header names latency_ms, or of
 * single requests when it names ttft_ms. */
static int read_csv(const char *path, char *text, struct fs_cal_points *ps,
                    struct fs_error *err)
{
	int where_col[N_REQ_COLS + N_COLS], line_no = 0, have_header = 0, n_need = N_COLS, i;
	const char *const *need = COLS;
	char *line, *next;

	for (line = text; line != NULL; line = next) {
		char *cell[32], *row_cell[N_COLS];
		int col[32], row_col[N_COLS], n;
		int optional;
		size_t l;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		l = strlen(line);
		line_no++;
		if (l > 0 && line[l - 1] == '\r')
			line[--l] = '\0';
		if (l == 0 || line[0] == '#')
			continue;
		n = split(line, cell, col, 32);
		if (n > 32)
			return fail(err, path, line_no, 1, "measurements",
			            "expected at most 32 columns, found %s", "more");
		if (!have_header) {
			for (i = 0; i < n; i++) {
				if (strcmp(cell[i], "latency_ms") == 0) {
					need = RUN_COLS;
					n_need = N_RUN_COLS;
				}
				if (strcmp(cell[i], "ttft_ms") == 0) {
					need = REQ_COLS;
					n_need = N_REQ_COLS;
				}
			}
			for (i = 0; i < n_need; i++) {
				int k;

				where_col[i] = -1;
				for (k = 0; k < n; k++)
					if (strcmp(cell[k], need[i]) == 0)
						where_col[i] = k;
				optional = need == REQ_COLS && i == Q_TPOT;
				if (where_col[i] < 0 && !optional)
					return fail(err, path, line_no, 1, "header",
					            "expected a column \"%s\", found none", need[i]);
			}
			have_header = 1;
			continue;
		}
		for (i = 0; i < n_need; i++) {
			int k = where_col[i];
			char path_buf[64];

			if (k < 0) {                   /* an optional column left out */
				row_cell[i] = NULL;
				row_col[i] = 0;
				continue;
			}
			snprintf(path_buf, sizeof path_buf, "measurements.%s", need[i]);
			if (k >= n)
				return fail(err, path, line_no, (int)l + 1, path_buf,
				            "expected a number, found %s", "end of line");
			row_cell[i] = cell[k];
			row_col[i] = col[k];
		}
		if ((need == RUN_COLS ? run_row : need == REQ_COLS ? request_row : step_row)(
		            path, line_no, row_cell, row_col, ps, err) < 0)
			return -1;
	}
	if (!have_header)
		return fail(err, path, 1, 1, "header",
		            "expected a header naming batch, prefill_tokens, decode_tokens, "
		            "context, ms (steps), batch, input_len, output_len, latency_ms "
		            "(whole runs) or prompt_tokens, output_tokens, ttft_ms[, tpot_ms] "
		            "(single requests), found %s", "an empty file");
	return 0;
}

/* A number member of root, or NaN when absent or null; -1 when not a number. */
static int num(const cJSON *root, const char *key, double *out, const cJSON **node)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, key);

	*node = j;
	*out = NAN;
	if (j == NULL || cJSON_IsNull(j))
		return 0;
	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) || j->valuedouble < 0)
		return -1;
	*out = j->valuedouble;
	return 1;
}

/* Fail at node (or line 1 col 1 when NULL) with the JSON path prefix.key. */
static int fail_key(struct fs_error *err, const char *path, const char *buf, size_t len,
                    const struct fs__jpos *pos, const cJSON *node, const char *prefix,
                    const char *key, const char *msg)
{
	size_t k_off, v_off;
	int line = 1, col = 1;
	char p[80];

	snprintf(p, sizeof p, "%s%s", prefix, key);
	if (node != NULL && fs__jpos_lookup(pos, node, &k_off, &v_off) == 0)
		fs__jpos_line_col(buf, len, v_off, &line, &col);
	return fail(err, path, line, col, p, "%s", msg);
}

/* The per-request arrays `vllm bench serve --save-detailed` writes
 * (input_lens, output_lens, ttfts and itls, times in seconds): points
 * pushed per successful request; returns how many requests, 0 when the
 * arrays are absent or malformed (then the medians are used). */
static int read_detail(const char *path, const cJSON *root, const char *prefix,
                       struct fs_cal_points *ps)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "input_lens");
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(root, "output_lens");
	const cJSON *ttft = cJSON_GetObjectItemCaseSensitive(root, "ttfts");
	const cJSON *itls = cJSON_GetObjectItemCaseSensitive(root, "itls");
	int n, used = 0;

	if (!cJSON_IsArray(in) || !cJSON_IsArray(out) || !cJSON_IsArray(ttft))
		return 0;
	n = cJSON_GetArraySize(in);
	if (n == 0 || cJSON_GetArraySize(out) != n || cJSON_GetArraySize(ttft) != n ||
	    (cJSON_IsArray(itls) && cJSON_GetArraySize(itls) != n))
		return 0;
	for (int i = 0; i < n; i++) {
		const cJSON *pi = cJSON_GetArrayItem(in, i), *oi = cJSON_GetArrayItem(out, i);
		const cJSON *ti = cJSON_GetArrayItem(ttft, i);
		const cJSON *li = cJSON_IsArray(itls) ? cJSON_GetArrayItem(itls, i) : NULL;
		double sum_s = 0, tpot_ms = 0;
		char where[160];
		int k = 0;

		if (!cJSON_IsNumber(pi) || !cJSON_IsNumber(oi) || !cJSON_IsNumber(ti) ||
		    !(pi->valuedouble >= 1) || !(ti->valuedouble > 0))
			continue;                      /* a failed request: no timing */
		if (cJSON_IsArray(li)) {
			const cJSON *gap;

			cJSON_ArrayForEach(gap, li)
				if (cJSON_IsNumber(gap) && gap->valuedouble >= 0) {
					sum_s += gap->valuedouble;
					k++;
				}
			tpot_ms = k > 0 ? sum_s / k * 1e3 : 0;
		}
		snprintf(where, sizeof where, "%.120s:%.16s[%d]", path, prefix, i);
		push_request(ps, pi->valuedouble, oi->valuedouble, ti->valuedouble * 1e3,
		             tpot_ms, where);
		used++;
	}
	return used;
}

/* One run's result object.  Mean tokens per request come from the totals
 * (total_input_tokens / completed, as `vllm bench serve` writes them) or,
 * where a publisher kept only rates, from the throughputs (input_throughput
 * / request_throughput: both are over the same duration). */
static int read_run(const char *path, const char *buf, size_t len,
                    const struct fs__jpos *pos, const cJSON *root, const char *prefix,
                    struct fs_cal_points *ps, struct fs_error *err)
{
	static const char *const need[] = {
		"median_tpot_ms", "median_ttft_ms", "mean_ttft_ms", "mean_tpot_ms",
		"request_throughput"
	};
	static const char *const totals[] = {
		"completed", "total_input_tokens", "total_output_tokens"
	};
	static const char *const rates[] = {
		"request_throughput", "input_throughput", "output_throughput"
	};
	const char *const *mean_keys;
	double v[5], m[3], conc, in_tokens, out_tokens;
	const cJSON *node;
	size_t i;

	if (!cJSON_IsObject(root))
		return fail_key(err, path, buf, len, pos, root, prefix, "", "expected an "
		                "object (a result), found another value");
	for (i = 0; i < 5; i++) {
		int r = num(root, need[i], &v[i], &node);

		if (r == 1)
			continue;
		return fail_key(err, path, buf, len, pos, node, prefix, need[i], r == 0 ?
		                "expected a number, found none" :
		                "expected a number >= 0, found another value");
	}
	mean_keys = cJSON_GetObjectItemCaseSensitive(root, "total_input_tokens") != NULL ||
	            cJSON_GetObjectItemCaseSensitive(root, "input_throughput") == NULL ?
	            totals : rates;
	for (i = 0; i < 3; i++) {
		int r = num(root, mean_keys[i], &m[i], &node);

		if (r == 1 && (i != 0 || m[i] > 0))
			continue;
		return fail_key(err, path, buf, len, pos, node, prefix, mean_keys[i], r == 0 ?
		                "expected a number, found none" : "expected a number >= 0 "
		                "(completed, request_throughput > 0), found another value");
	}
	in_tokens = m[1] / m[0];
	out_tokens = m[2] / m[0];
	/* MODEL: C6 — the run's decode batch is its max_concurrency, or else
	 * (Little's law) request_throughput × mean end-to-end latency, with
	 * end-to-end = TTFT + TPOT × (output − 1). */
	if (num(root, "max_concurrency", &conc, &node) != 1 || conc < 1)
		conc = v[4] * (v[2] + v[3] * fmax(out_tokens - 1, 0)) / 1000.0;
	/* MODEL: C8 — a run saved with its per-request detail at concurrency
	 * below 1.5 gives one prefill and one decode point per request. */
	if (conc < 1.5 && read_detail(path, root, prefix, ps) > 0)
		return 0;
	{
		struct fs_cal_point pt;
		int64_t b = (int64_t)fmax(1, llround(conc));

		/* MODEL: C6 — median TPOT is a decode step of that batch at the mean
		 * mid-life context: input + output / 2 tokens. */
		memset(&pt, 0, sizeof pt);
		pt.shape.decode_seqs = b;
		pt.shape.n_seqs = b;
		pt.shape.decode_context_tokens =
			(int64_t)llround((double)b * (in_tokens + out_tokens / 2));
		pt.measured_ns = v[0] * 1e6;
		snprintf(pt.where, sizeof pt.where, "%.120s:%.16smedian_tpot_ms", path, prefix);
		if (pt.measured_ns > 0)
			fs__cal_points_push(ps, &pt);
		/* MODEL: C6 — at concurrency below 1.5, median TTFT is the prefill
		 * of one mean-length prompt (no queueing, no batching); above it,
		 * TTFT includes waiting and is not used. */
		if (conc < 1.5 && v[1] > 0) {
			memset(&pt, 0, sizeof pt);
			pt.shape.prefill_tokens = (int64_t)llround(in_tokens);
			pt.shape.prefill_attn_tokens =
				pt.shape.prefill_tokens * pt.shape.prefill_tokens / 2;
			pt.shape.n_seqs = 1;
			pt.measured_ns = v[1] * 1e6;
			snprintf(pt.where, sizeof pt.where, "%.120s:%.16smedian_ttft_ms", path,
			         prefix);
			fs__cal_points_push(ps, &pt);
		}
	}
	return 0;
}

/* A result object, or an array of them (one per run: a published series). */
static int read_vllm(const char *path, const char *text, size_t len,
                     struct fs_cal_points *ps, struct fs_error *err)
{
	struct fs__jpos *pos = NULL;
	char *buf = NULL, prefix[32];
	cJSON *root = fs__sc_parse(text, len, path, &buf, &pos, err), *run;
	int rc = 0;
	size_t i = 0;

	if (root == NULL)
		return -1;
	if (!cJSON_IsArray(root)) {
		rc = read_run(path, buf, len, pos, root, "", ps, err);
	} else if (cJSON_GetArraySize(root) == 0) {
		rc = fail_key(err, path, buf, len, pos, root, "", "", "expected a result "
		              "object or a non-empty array of them, found an empty array");
	} else {
		cJSON_ArrayForEach(run, root) {
			snprintf(prefix, sizeof prefix, "[%zu].", i++);
			rc = read_run(path, buf, len, pos, run, prefix, ps, err);
			if (rc != 0)
				break;
		}
	}
	cJSON_Delete(root);
	free(buf);
	fs__jpos_free(pos);
	return rc;
}

int fs__cal_read_file(const char *path, struct fs_cal_points *ps, struct fs_error *err)
{
	size_t len = 0, pl = strlen(path);
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
		rc = read_vllm(path, text, len, ps, err);
	else
		rc = read_csv(path, text, ps, err);
	free(text);
	return rc;
}
