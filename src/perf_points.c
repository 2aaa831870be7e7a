/*
 * perf_points.c — published step-time measurements (docs/data/step_points.csv)
 * read into points, and the step-time model's prediction of each: the kernel
 * group, whole step or collective the point measured.  Used by the
 * validation test and the fit program (tools/fit_step.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/perf_points.h"

FS_ENUM_FUNCS(enum fs_point_kind, FS_POINT_KIND_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_point_kind_name, fs_point_kind_from_name, "?")

/* The columns a points file must have, in the order of `col` below. */
enum col { C_ID, C_SOURCE, C_SET, C_GPU, C_MODEL, C_TP, C_WDT, C_KVDT, C_KIND,
           C_TOKENS, C_BATCH, C_CONTEXT, C_BYTES, C_MS, N_COLS };
static const char *const COL_NAMES[N_COLS] = {
	"id", "source", "set", "gpu", "model", "tp", "weight_dtype", "kv_dtype", "kind",
	"tokens", "batch", "context", "bytes", "measured_ms",
};

#define MAX_FIELDS 32

struct row {
	char *field[MAX_FIELDS];
	int col[MAX_FIELDS];          /* 1-based column of each field */
	int n;
};

/* Split `line` in place at commas (no quoting: fields hold no commas). */
static void split(char *line, struct row *r)
{
	char *p = line;

	r->n = 0;
	while (r->n < MAX_FIELDS) {
		char *comma = strchr(p, ',');

		r->field[r->n] = p;
		r->col[r->n] = (int)(p - line) + 1;
		r->n++;
		if (comma == NULL)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	for (int i = 0; i < r->n; i++) {
		char *f = r->field[i], *end = f + strlen(f);

		while (end > f && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
			*--end = '\0';
		while (*f == ' ')
			f++;
		r->field[i] = f;
	}
}

struct ctx {
	const char *display;
	int line;
	struct fs_error *err;
	const struct row *r;
	const int *at;                /* field index of each column */
};

static int bad(const struct ctx *c, enum col k, const char *expected)
{
	const struct row *r = c->r;
	int i = c->at[k];

	return fs_error_at(c->err, c->display, c->line, r->col[i], COL_NAMES[k],
	                   "expected %s, found \"%s\"", expected, r->field[i]);
}

static const char *text(const struct ctx *c, enum col k)
{
	return c->r->field[c->at[k]];
}

static int number(const struct ctx *c, enum col k, double lo, double hi, double *out)
{
	const char *s = text(c, k);
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !(v >= lo && v <= hi))
		return bad(c, k, "a number in range");
	*out = v;
	return 0;
}

static int integer(const struct ctx *c, enum col k, double lo, double hi, int64_t *out)
{
	double v = 0;             /* set by number() on success */

	if (number(c, k, lo, hi, &v) < 0)
		return -1;
	if (v != floor(v))
		return bad(c, k, "a whole number");
	*out = (int64_t)v;
	return 0;
}

static int parse_row(const struct ctx *c, struct fs_perf_point *pt)
{
	double ms, bytes;
	int64_t tp;

	memset(pt, 0, sizeof *pt);
	pt->line = c->line;
	snprintf(pt->id, sizeof pt->id, "%s", text(c, C_ID));
	snprintf(pt->source, sizeof pt->source, "%s", text(c, C_SOURCE));
	if (strcmp(text(c, C_SET), "fit") == 0)
		pt->validation = false;
	else if (strcmp(text(c, C_SET), "validation") == 0)
		pt->validation = true;
	else if (strcmp(text(c, C_SET), "other") == 0)
		pt->other = true;
	else
		return bad(c, C_SET, "\"fit\", \"validation\" or \"other\"");
	pt->gpu = fs_catalog_find_gpu(text(c, C_GPU));
	if (pt->gpu == NULL)
		return bad(c, C_GPU, "a catalogue GPU id");
	pt->model = fs_catalog_find_model(text(c, C_MODEL));
	if (fs_point_kind_from_name(text(c, C_KIND), &pt->kind) != 0)
		return bad(c, C_KIND, "gemm, elementwise, attn_prefill, attn_decode, "
		           "allreduce, prefill or decode");
	/* An all-reduce depends on the GPU, TP and size only: "-" for model. */
	if (pt->model == NULL && !(pt->kind == FS_POINT_ALLREDUCE &&
	                           strcmp(text(c, C_MODEL), "-") == 0))
		return bad(c, C_MODEL, "a catalogue model id (\"-\" for an allreduce)");
	if (integer(c, C_TP, 1, 64, &tp) < 0)
		return -1;
	pt->tp = (int)tp;
	if (fs_dtype_parse(text(c, C_WDT), &pt->weight_dtype) < 0)
		return bad(c, C_WDT, "fp16, bf16, fp8, int8 or int4");
	if (fs_dtype_parse(text(c, C_KVDT), &pt->kv_dtype) < 0)
		return bad(c, C_KVDT, "fp16, bf16, fp8 or int8");
	if (integer(c, C_TOKENS, 0, 1e7, &pt->tokens) < 0 ||
	    integer(c, C_BATCH, 0, 1e6, &pt->batch) < 0 ||
	    integer(c, C_CONTEXT, 0, 1e7, &pt->context) < 0 ||
	    number(c, C_BYTES, 0, 1e12, &bytes) < 0 ||
	    number(c, C_MS, 1e-6, 3.6e6, &ms) < 0)
		return -1;
	pt->bytes = bytes;
	pt->measured_ms = ms;
	if (pt->model != NULL) {
		struct fs_perf_cfg cfg;
		struct fs_error why;

		fs_perf_point_cfg(pt, &cfg);
		if (fs_perf_cfg_check(&cfg, &why) < 0)
			return fs_error_at(c->err, c->display, c->line, c->r->col[c->at[C_TP]],
			                   COL_NAMES[C_TP], "%s", why.msg);
	}
	return 0;
}

static int map_header(const struct row *r, int *at, const char *display, int line,
                      struct fs_error *err)
{
	for (int k = 0; k < N_COLS; k++) {
		at[k] = -1;
		for (int i = 0; i < r->n; i++)
			if (strcmp(r->field[i], COL_NAMES[k]) == 0)
				at[k] = i;
		if (at[k] < 0)
			return fs_error_at(err, display, line, 1, "", "header: expected a "
			                   "column \"%s\", found none", COL_NAMES[k]);
	}
	return 0;
}

int fs_perf_points_load(const char *path, const char *display_path,
                        struct fs_perf_point **out, size_t *n, struct fs_error *err)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int at[N_COLS], line_no = 0, have_header = 0;
	struct fs_perf_point *pts = NULL;
	size_t cap = 0, len = 0;

	if (f == NULL)
		return fs_error_set(err, display_path, "", "cannot open: %s", strerror(errno));
	while (fgets(line, sizeof line, f) != NULL) {
		struct row r;
		struct ctx c = { display_path, ++line_no, err, &r, at };

		if (line[0] == '#' || line[0] == '\n' || line[0] == '\r')
			continue;
		split(line, &r);
		if (!have_header) {
			if (map_header(&r, at, display_path, line_no, err) < 0)
				goto fail;
			have_header = 1;
			continue;
		}
		for (int k = 0; k < N_COLS; k++)
			if (at[k] >= r.n) {
				fs_error_at(err, display_path, line_no, 1, "", "expected %d "
				            "fields, found %d", N_COLS, r.n);
				goto fail;
			}
		fs_xgrow((void **)&pts, &cap, len + 1, sizeof *pts);
		if (parse_row(&c, &pts[len]) < 0)
			goto fail;
		len++;
	}
	fclose(f);
	if (len == 0) {
		free(pts);
		return fs_error_set(err, display_path, "", "expected a header and at least "
		                    "one point, found none");
	}
	*out = pts;
	*n = len;
	return 0;
fail:
	fclose(f);
	free(pts);
	return -1;
}

void fs_perf_point_cfg(const struct fs_perf_point *pt, struct fs_perf_cfg *cfg)
{
	fs_perf_cfg_defaults(cfg, pt->gpu, pt->model);
	cfg->tp = pt->tp;
	cfg->weight_dtype = pt->weight_dtype;
	cfg->kv_dtype = pt->kv_dtype;
}

double fs_perf_point_predict_ms(const struct fs_perf_point *pt,
                                const struct fs_perf_cfg *cfg)
{
	struct fs_step_shape s = { 0 };
	struct fs_step_cost cost;

	switch (pt->kind) {
	case FS_POINT_GEMM:
		return fs_perf_gemm_ns(cfg, pt->tokens) / 1e6;
	case FS_POINT_ALLREDUCE:
		return fs_perf_allreduce_ns(cfg, pt->bytes) / 1e6;
	case FS_POINT_PREFILL:
		return (double)fs_perf_prefill_ns(cfg, pt->tokens) / 1e6;
	case FS_POINT_DECODE:
		return (double)fs_perf_decode_ns(cfg, pt->batch, pt->context) / 1e6;
	case FS_POINT_ELEMENTWISE:
		s.prefill_tokens = pt->tokens;
		s.n_seqs = 1;
		fs_perf_step_cost(cfg, &s, &cost);
		return cost.elementwise_ns / 1e6;
	case FS_POINT_ATTN_PREFILL:
		s.prefill_tokens = pt->tokens;
		s.prefill_attn_tokens = pt->tokens * pt->tokens / 2;
		s.n_seqs = 1;
		fs_perf_step_cost(cfg, &s, &cost);
		return cost.attn_ns / 1e6;
	case FS_POINT_ATTN_DECODE:
		s.decode_seqs = pt->batch;
		s.decode_context_tokens = pt->batch * pt->context;
		s.n_seqs = pt->batch;
		fs_perf_step_cost(cfg, &s, &cost);
		return cost.attn_ns / 1e6;
	}
	return 0;
}

const char *fs_perf_point_regime(const struct fs_perf_point *pt)
{
	if (pt->kind == FS_POINT_PREFILL)
		return pt->tokens <= 256 ? "prefill<=256" : "prefill>256";
	if (pt->kind == FS_POINT_DECODE)
		return pt->batch <= 1 ? "decode b1" : pt->batch <= 64 ? "decode b2-64"
		                                                    : "decode b>64";
	return fs_point_kind_name(pt->kind);
}
