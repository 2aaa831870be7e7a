/*
 * calib_run.c — the model time of a calibration point that is a whole
 * `vllm bench latency` run (batch prompts prefilled, then decoded together
 * to output_len tokens): the sum of its engine steps, each from the step
 * model of calibrate.c (MODEL: C7).  Pure; nothing is kept between calls.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"

int64_t fs__cal_default_budget(const struct fs_model_spec *m)
{
	/* MODEL: C7 — vLLM V0 SchedulerConfig without chunked prefill. */
	return m->max_context_tokens > 2048 ? m->max_context_tokens : 2048;
}

int fs__cal_set_budget(struct fs_cal_points *ps, int64_t budget_tokens,
                       struct fs_error *err)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		const struct fs_cal_point *pt = &ps->pts[i];
		char where[200];

		if (pt->kind != FS_CAL_RUN || pt->run.input_len <= budget_tokens)
			continue;
		snprintf(where, sizeof where, "%.180s:%d", pt->where, pt->run.input_col);
		fs_error_set(err, where, "measurements.input_len",
		             "expected a prompt of at most max_num_batched_tokens = %lld "
		             "tokens (a run without chunked prefill refuses a longer one; "
		             "raise --max-num-batched-tokens), found %lld",
		             (long long)budget_tokens, (long long)pt->run.input_len);
		return -1;
	}
	for (i = 0; i < ps->n; i++)
		if (ps->pts[i].kind == FS_CAL_RUN)
			ps->pts[i].run.budget_tokens = budget_tokens;
	return 0;
}

/* MODEL: C7 — the prefill of batch × input_len tokens in steps of at most
 * the token budget, each step taking min(remaining, budget / input_len)
 * whole prompts from context 0; then output_len − 1 decode steps of all
 * batch sequences at contexts input_len + 1 … input_len + output_len − 1,
 * each step's time summed (the step is not linear in its context). */
static double run_ns(const struct fs_perf_cfg *cfg, const struct fs_cal_params *p,
                     const struct fs_cal_run *r)
{
	int64_t left = r->batch, per = r->budget_tokens / r->input_len, i;
	struct fs_step_shape s;
	double t_ns = 0;

	assert(r->batch >= 1 && r->input_len >= 1 && r->output_len >= 1);
	assert(per >= 1);
	while (left > 0) {
		int64_t k = left < per ? left : per;

		memset(&s, 0, sizeof s);
		s.n_seqs = k;
		s.prefill_tokens = k * r->input_len;
		/* Σ chunk × (context before + chunk / 2) with context 0 */
		s.prefill_attn_tokens = k * r->input_len * r->input_len / 2;
		t_ns += fs__cal_model_ns(cfg, p, &s);
		left -= k;
	}
	for (i = 1; i < r->output_len; i++) {
		memset(&s, 0, sizeof s);
		s.n_seqs = r->batch;
		s.decode_seqs = r->batch;
		s.decode_context_tokens = r->batch * (r->input_len + i);
		t_ns += fs__cal_model_ns(cfg, p, &s);
	}
	return t_ns;
}

double fs__cal_point_ns(const struct fs_perf_cfg *cfg, const struct fs_cal_params *p,
                        const struct fs_cal_point *pt)
{
	switch (pt->kind) {
	case FS_CAL_RUN:
		return run_ns(cfg, p, &pt->run);
	case FS_CAL_STEP:
		break;
	}
	return fs__cal_model_ns(cfg, p, &pt->shape);
}
