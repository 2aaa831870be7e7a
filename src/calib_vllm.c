/*
 * calib_vllm.c — the reader of `vllm bench serve` result JSON for `fleetsim
 * calibrate`: one result object or an array of them (a published series),
 * every key it uses checked against the ranges of docs/CALIBRATE.md, each
 * result turned into a decode point and, at concurrency 1, a prefill point
 * or one pair per request (MODEL: C6, C8).  Bad input is reported at
 * file:line:col with the key's JSON path; nothing is kept between calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "fleetsim/catalog.h"
#include "scenario_walk.h"

/* What one result's points are made from. */
struct serve_run {
	double median_tpot_ms, median_ttft_ms, mean_ttft_ms, mean_tpot_ms;
	double req_per_s;                  /* request_throughput */
	double in_tokens, out_tokens;      /* means per request */
	double conc;                       /* the decode batch (MODEL: C6) */
};

/* What every result of the file shares. */
struct serve_ctx {
	const struct fs_model_spec *model; /* its context bounds token counts */
	struct fs_cal_points *ps;
};

/* obj[key] as a number in r; -1 with the error at the key's value (or at
 * obj when it has no key) otherwise. */
static int get_num(struct fs__sc *sc, const cJSON *obj, const char *key,
                   const struct fs_cal_range *r, double *out)
{
	const cJSON *node = fs__sc_get(obj, key);
	char want[300], found[64];

	fs__cal_range_text(r, want, sizeof want);
	if (node == NULL)
		return fs__sc_fail_member(sc, obj, key, "expected %s, found none", want);
	if (cJSON_IsNumber(node) && fs__cal_range_ok(r, node->valuedouble)) {
		*out = node->valuedouble;
		return 0;
	}
	fs__sc_found(sc, node, found, sizeof found);
	return fs__sc_fail_member(sc, obj, key, "expected %s, found %s", want, found);
}

/* A range of times in ms: (0, max] or, with zero_ok, [0, max]. */
static struct fs_cal_range ms_range(int zero_ok, const char *why)
{
	struct fs_cal_range r = { .lo = 0, .lo_open = !zero_ok, .hi = FS__CAL_MAX_MS };

	snprintf(r.why, sizeof r.why, "%s", why);
	return r;
}

/* The medians and means of TTFT and TPOT and the request rate.  vLLM
 * writes a TPOT of 0 when no request produced a second token: no decode
 * point then. */
static int read_times(struct fs__sc *sc, const cJSON *obj, struct serve_run *run)
{
	struct fs_cal_range ttft = ms_range(0, "ms");
	struct fs_cal_range tpot = ms_range(1, "ms; 0 when no request had two tokens");
	struct fs_cal_range rate = { .lo = 0, .lo_open = 1, .hi = FS__CAL_MAX_REQ_PER_S };

	snprintf(rate.why, sizeof rate.why, "requests per second");
	return get_num(sc, obj, "median_tpot_ms", &tpot, &run->median_tpot_ms) < 0 ||
	       get_num(sc, obj, "median_ttft_ms", &ttft, &run->median_ttft_ms) < 0 ||
	       get_num(sc, obj, "mean_ttft_ms", &ttft, &run->mean_ttft_ms) < 0 ||
	       get_num(sc, obj, "mean_tpot_ms", &tpot, &run->mean_tpot_ms) < 0 ||
	       get_num(sc, obj, "request_throughput", &rate, &run->req_per_s) < 0 ? -1 : 0;
}

/* *mean = total / per (obj[key] over obj[per_key]) within r; -1 with the
 * error at obj[key] otherwise. */
static int mean_of(struct fs__sc *sc, const cJSON *obj, const char *key,
                   const char *per_key, double total, double per,
                   const struct fs_cal_range *r, double *mean)
{
	char want[300];

	*mean = total / per;
	if (fs__cal_range_ok(r, *mean))
		return 0;
	fs__cal_range_text(r, want, sizeof want);
	return fs__sc_fail_member(sc, obj, key, "expected %s / %s, the mean per request, "
	                          "to be %s, found %.15g / %.15g = %.6g", key, per_key,
	                          want, total, per, *mean);
}

/* The mean prompt and output tokens per request from totals[1] and
 * totals[2] over totals[0] (the keys of `names`): the prompt 1 ..
 * context, prompt + output within the context. */
static int means_of(struct fs__sc *sc, const cJSON *obj, const char *const names[3],
                    const double totals[3], const struct fs_model_spec *m,
                    struct serve_run *run)
{
	double ctx = (double)m->max_context_tokens;
	struct fs_cal_range r = { .lo = 1, .hi = ctx };

	snprintf(r.why, sizeof r.why, "prompt tokens, at most the context of %s", m->id);
	if (mean_of(sc, obj, names[1], names[0], totals[1], totals[0], &r,
	            &run->in_tokens) < 0)
		return -1;
	r.lo = 0;
	r.hi = ctx - run->in_tokens;
	snprintf(r.why, sizeof r.why, "output tokens, with the mean prompt of %.6g within "
	         "the %lld-token context of %s", run->in_tokens,
	         (long long)m->max_context_tokens, m->id);
	return mean_of(sc, obj, names[2], names[0], totals[2], totals[0], &r,
	               &run->out_tokens);
}

/* Mean tokens per request from the totals (total_input_tokens / completed,
 * as `vllm bench serve` writes them) or, where a publisher kept only rates,
 * from the throughputs (input_throughput / request_throughput: both are
 * over the same duration). */
static int read_means(struct fs__sc *sc, const cJSON *obj, const struct fs_model_spec *m,
                      struct serve_run *run)
{
	static const char *const totals[3] = {
		"completed", "total_input_tokens", "total_output_tokens"
	};
	static const char *const rates[3] = {
		"request_throughput", "input_throughput", "output_throughput"
	};
	struct fs_cal_range count = { .lo = 0, .hi = (double)FS__MAX_INT_JSON, .whole = 1 };
	struct fs_cal_range rate = { .lo = 0, .hi = INFINITY };
	double v[3];
	int i;

	if (fs__sc_get(obj, "total_input_tokens") == NULL &&
	    fs__sc_get(obj, "input_throughput") != NULL) {
		v[0] = run->req_per_s;
		snprintf(rate.why, sizeof rate.why, "tokens per second");
		for (i = 1; i < 3; i++)
			if (get_num(sc, obj, rates[i], &rate, &v[i]) < 0)
				return -1;
		return means_of(sc, obj, rates, v, m, run);
	}
	for (i = 0; i < 3; i++) {
		count.lo = i == 0;             /* at least one successful request */
		snprintf(count.why, sizeof count.why, "%s", i == 0 ? "successful requests" :
		         "tokens of all successful requests");
		if (get_num(sc, obj, totals[i], &count, &v[i]) < 0)
			return -1;
	}
	return means_of(sc, obj, totals, v, m, run);
}

/* MODEL: C6 — the run's decode batch is its max_concurrency (vLLM writes
 * null when the run set none), or else (Little's law) request_throughput ×
 * mean end-to-end latency, with end-to-end = TTFT + TPOT × (output − 1). */
static int read_conc(struct fs__sc *sc, const cJSON *obj, struct serve_run *run)
{
	const cJSON *node = fs__sc_get(obj, "max_concurrency");
	struct fs_cal_range r = { .lo = 1, .hi = FS__CAL_MAX_SEQS, .whole = 1 };

	if (node != NULL && !cJSON_IsNull(node)) {
		snprintf(r.why, sizeof r.why, "sequences decoding together; null or absent: "
		         "estimated by Little's law");
		return get_num(sc, obj, "max_concurrency", &r, &run->conc);
	}
	run->conc = run->req_per_s * (run->mean_ttft_ms + run->mean_tpot_ms *
	                              fmax(run->out_tokens - 1, 0)) / 1000.0;
	if (run->conc <= FS__CAL_MAX_SEQS)
		return 0;
	return fs__sc_fail_member(sc, obj, "request_throughput", "expected request_"
	                          "throughput x mean end-to-end latency (Little's law: "
	                          "the concurrency, as max_concurrency is absent) of at "
	                          "most %d sequences, found %.6g; give max_concurrency",
	                          FS__CAL_MAX_SEQS, run->conc);
}

/* Element i of the array obj[key] (k >= 0: element k of that element) as a
 * number in r; -1 with the error at the element otherwise. */
static int elem_num(struct fs__sc *sc, const char *key, int i, int k,
                    const cJSON *elem, const struct fs_cal_range *r, double *out)
{
	char want[300], found[64];
	size_t saved;

	if (cJSON_IsNumber(elem) && fs__cal_range_ok(r, elem->valuedouble)) {
		*out = elem->valuedouble;
		return 0;
	}
	fs__cal_range_text(r, want, sizeof want);
	fs__sc_found(sc, elem, found, sizeof found);
	saved = fs__sc_push_key(sc, key);
	fs__sc_push_index(sc, (size_t)i);
	if (k >= 0)
		fs__sc_push_index(sc, (size_t)k);
	fs__sc_fail_at(sc, elem, "expected %s, found %s", want, found);
	fs__sc_pop(sc, saved);
	return -1;
}

/* Request i's mean inter-token time in ms from its gaps (itl, an array of
 * seconds; NULL or not an array: 0, no decode point). */
static int mean_itl_ms(struct fs__sc *sc, const cJSON *itl, int i, double *tpot_ms)
{
	struct fs_cal_range r = { .lo = 0, .hi = FS__CAL_MAX_MS / 1e3 };
	const cJSON *gap;
	double sum_s = 0, g = 0;
	int k = 0;

	*tpot_ms = 0;
	if (!cJSON_IsArray(itl))
		return 0;
	snprintf(r.why, sizeof r.why, "seconds");
	cJSON_ArrayForEach(gap, itl) {
		if (elem_num(sc, "itls", i, k, gap, &r, &g) < 0)
			return -1;
		sum_s += g;
		k++;
	}
	*tpot_ms = k > 0 ? sum_s / k * 1e3 : 0;
	return 0;
}

/* Request i of the detail arrays (in, out, ttft, itls: NULL when absent),
 * a successful one (TTFT > 0: vLLM writes 0 for a failed request), as its
 * points: prompt 1 .. context, prompt + output within it. */
static int detail_request(struct fs__sc *sc, const cJSON *const arr[4], int i,
                          const struct serve_ctx *c, const char *label)
{
	const struct fs_model_spec *m = c->model;
	struct fs_cal_range ttft = { .lo = 0, .lo_open = 1, .hi = FS__CAL_MAX_MS / 1e3 };
	struct fs_cal_range in = { .lo = 1, .hi = (double)m->max_context_tokens, .whole = 1 };
	struct fs_cal_range out = { .lo = 0, .whole = 1 };
	double prompt = 0, output = 0, ttft_s = 0, tpot_ms = 0;
	char where[160];

	snprintf(ttft.why, sizeof ttft.why, "seconds");
	snprintf(in.why, sizeof in.why, "at most the context of %s", m->id);
	if (elem_num(sc, "ttfts", i, -1, cJSON_GetArrayItem(arr[2], i), &ttft, &ttft_s) < 0 ||
	    elem_num(sc, "input_lens", i, -1, cJSON_GetArrayItem(arr[0], i), &in,
	             &prompt) < 0)
		return -1;
	out.hi = in.hi - prompt;
	snprintf(out.why, sizeof out.why, "input_lens[%d] + output_lens[%d] within the "
	         "%lld-token context of %s", i, i, (long long)m->max_context_tokens, m->id);
	if (elem_num(sc, "output_lens", i, -1, cJSON_GetArrayItem(arr[1], i), &out,
	             &output) < 0 ||
	    mean_itl_ms(sc, arr[3] != NULL ? cJSON_GetArrayItem(arr[3], i) : NULL, i,
	                &tpot_ms) < 0)
		return -1;
	snprintf(where, sizeof where, "%.120s[%d]", label, i);
	fs__cal_push_request(c->ps, prompt, output, ttft_s * 1e3, tpot_ms, where);
	return 0;
}

/* MODEL: C8 — the per-request arrays `vllm bench serve --save-detailed`
 * writes (input_lens, output_lens, ttfts and itls, times in seconds):
 * points pushed per successful request, *used how many; 0 when the arrays
 * are absent or do not match in length (then the medians are used). */
static int read_detail(struct fs__sc *sc, const cJSON *obj, const struct serve_ctx *c,
                       const char *label, int *used)
{
	const cJSON *arr[4] = {
		fs__sc_get(obj, "input_lens"), fs__sc_get(obj, "output_lens"),
		fs__sc_get(obj, "ttfts"), fs__sc_get(obj, "itls")
	};
	int n, i;

	*used = 0;
	if (!cJSON_IsArray(arr[0]) || !cJSON_IsArray(arr[1]) || !cJSON_IsArray(arr[2]))
		return 0;
	n = cJSON_GetArraySize(arr[0]);
	if (!cJSON_IsArray(arr[3]))
		arr[3] = NULL;
	if (n == 0 || cJSON_GetArraySize(arr[1]) != n || cJSON_GetArraySize(arr[2]) != n ||
	    (arr[3] != NULL && cJSON_GetArraySize(arr[3]) != n))
		return 0;
	for (i = 0; i < n; i++) {
		const cJSON *t = cJSON_GetArrayItem(arr[2], i);

		if (cJSON_IsNumber(t) && t->valuedouble == 0)
			continue;                      /* a failed request: no timing */
		if (detail_request(sc, arr, i, c, label) < 0)
			return -1;
		(*used)++;
	}
	return 0;
}

/* MODEL: C6 — median TPOT is a decode step of the run's batch at the mean
 * mid-life context, input + output / 2 tokens; at concurrency below 1.5,
 * median TTFT is the prefill of one mean-length prompt (no queueing, no
 * batching); above it, TTFT includes waiting and is not used. */
static void push_medians(const struct serve_run *run, const char *label,
                         struct fs_cal_points *ps)
{
	struct fs_cal_point pt;
	int64_t b = (int64_t)fmax(1, llround(run->conc));

	memset(&pt, 0, sizeof pt);
	pt.shape.decode_seqs = b;
	pt.shape.n_seqs = b;
	pt.shape.decode_context_tokens =
		(int64_t)llround((double)b * (run->in_tokens + run->out_tokens / 2));
	pt.measured_ns = run->median_tpot_ms * 1e6;
	snprintf(pt.where, sizeof pt.where, "%.140smedian_tpot_ms", label);
	if (pt.measured_ns > 0)
		fs__cal_points_push(ps, &pt);
	if (run->conc >= 1.5)
		return;
	memset(&pt, 0, sizeof pt);
	pt.shape.prefill_tokens = (int64_t)llround(run->in_tokens);
	pt.shape.prefill_attn_tokens = pt.shape.prefill_tokens * pt.shape.prefill_tokens / 2;
	pt.shape.n_seqs = 1;
	pt.measured_ns = run->median_ttft_ms * 1e6;
	snprintf(pt.where, sizeof pt.where, "%.140smedian_ttft_ms", label);
	fs__cal_points_push(ps, &pt);
}

/* One result object at the current path: its points. */
static int read_run(struct fs__sc *sc, const cJSON *obj, const struct serve_ctx *c)
{
	struct serve_run run;
	char label[160];
	int used = 0;

	if (!cJSON_IsObject(obj))
		return fs__sc_fail_at(sc, obj, "expected an object (a result), found %s",
		                      fs__sc_type_name(obj));
	/* points are labelled file:path.key, as "[1].median_tpot_ms" */
	snprintf(label, sizeof label, "%.120s:%.30s%s", sc->file, sc->path,
	         sc->path_len > 0 ? "." : "");
	if (read_times(sc, obj, &run) < 0 || read_means(sc, obj, c->model, &run) < 0 ||
	    read_conc(sc, obj, &run) < 0)
		return -1;
	if (run.conc < 1.5 && read_detail(sc, obj, c, label, &used) < 0)
		return -1;
	if (used == 0)
		push_medians(&run, label, c->ps);
	return 0;
}

/* A result object, or a non-empty array of them (one per run). */
/* fs__sc_load_text's walk: ctx is the serve_ctx. */
static int read_root(struct fs__sc *sc, const cJSON *root, void *ctx)
{
	const struct serve_ctx *c = ctx;
	const cJSON *run;
	size_t i = 0;

	if (!cJSON_IsArray(root))
		return read_run(sc, root, c);
	if (cJSON_GetArraySize(root) == 0)
		return fs__sc_fail_at(sc, root, "expected a result object or a non-empty "
		                      "array of them, found an empty array");
	cJSON_ArrayForEach(run, root) {
		size_t saved = fs__sc_push_index(sc, i++);
		int rc = read_run(sc, run, c);

		fs__sc_pop(sc, saved);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int fs__cal_read_vllm(const char *path, const char *text, size_t len,
                      const struct fs_model_spec *model, struct fs_cal_points *ps,
                      struct fs_error *err)
{
	struct serve_ctx c = { .model = model, .ps = ps };

	return fs__sc_load_text(text, len, path, read_root, &c, err);
}
