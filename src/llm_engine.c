/*
 * llm_engine.c — lifecycle, arrivals, step completion and counters of the
 * LLM replica (see llm_engine.h); planning lives in llm_sched.c.  Finishing a
 * step is vllm_semantics §0 phases D–E: every request whose computed tokens
 * caught up with its tokens samples one, finished requests free their blocks
 * at once.  Per step O(running); no allocation after the first steps.
 */
#include "fleetsim/llm_engine.h"

#include <assert.h>
#include <ctype.h>
#include <string.h>

#include "llm_engine_internal.h"

_Noreturn void fs__llm_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "fleetsim: internal error at %s:%d: llm engine: %s\n",
	        file, line, what);
	abort();
}

void fs_llm_engine_cfg_default(struct fs_llm_engine_cfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->max_num_seqs = 256;
	cfg->max_num_batched_tokens = 8192;
	cfg->enable_chunked_prefill = true;
	cfg->long_prefill_token_threshold = 0;
	cfg->policy = FS_LLM_POLICY_FCFS;
	cfg->batching = FS_LLM_BATCHING_CONTINUOUS;
	cfg->kv_blocks = 0;
	cfg->block_tokens = FS_KV_BLOCK_TOKENS_DEFAULT;
	cfg->max_model_len = 32768;
	cfg->reserve_full_input = true;
	cfg->kv_watermark = 0.0;
	cfg->max_preemptions_per_request = 100;
	cfg->scheduler = FS_LLM_SCHED_CHUNKED;
	cfg->prefix_caching = true;                      /* MODEL: V22 */
	cfg->fast_path = true;                           /* MODEL: V24 */
}

/* MODEL: V17 — `vllm serve` (usage context OPENAI_API_SERVER) treats a GPU
 * with >= 70 GiB of memory whose name does not contain "a100" as big
 * (vllm_semantics §2, [V4] arg_utils._set_default_args). */
bool fs_llm_big_gpu(const struct fs_gpu_spec *gpu)
{
	char id[128];
	size_t i;

	for (i = 0; gpu->id[i] != '\0' && i + 1 < sizeof id; i++)
		id[i] = (char)tolower((unsigned char)gpu->id[i]);
	id[i] = '\0';
	return gpu->mem_bytes >= 70.0 * 1073741824.0 && strstr(id, "a100") == NULL;
}

int64_t fs_llm_default_max_num_batched_tokens(const struct fs_gpu_spec *gpu)
{
	return fs_llm_big_gpu(gpu) ? 8192 : 2048;                  /* MODEL: V17 */
}

int64_t fs_llm_default_max_num_seqs(const struct fs_gpu_spec *gpu,
                                    int64_t max_num_batched_tokens)
{
	int64_t seqs = fs_llm_big_gpu(gpu) ? 1024 : 256;           /* MODEL: V17 */

	return seqs < max_num_batched_tokens ? seqs : max_num_batched_tokens;
}

static int check_cfg(const struct fs_llm_engine_cfg *c, struct fs_error *err)
{
	if (c->max_num_seqs < 1 || c->max_num_seqs > INT32_MAX)
		return fs_error_set(err, NULL, "max_num_seqs",
		                    "expected 1..%d, got %lld", INT32_MAX,
		                    (long long)c->max_num_seqs);
	if (c->max_num_batched_tokens < 1)
		return fs_error_set(err, NULL, "max_num_batched_tokens",
		                    "expected at least 1, got %lld",
		                    (long long)c->max_num_batched_tokens);
	if (c->max_model_len < 2)
		return fs_error_set(err, NULL, "max_model_len",
		                    "expected at least 2 tokens, got %lld",
		                    (long long)c->max_model_len);
	if (c->long_prefill_token_threshold < 0)
		return fs_error_set(err, NULL, "long_prefill_token_threshold",
		                    "expected 0 (off) or more, got %lld",
		                    (long long)c->long_prefill_token_threshold);
	if (c->max_preemptions_per_request < 0)
		return fs_error_set(err, NULL, "max_preemptions_per_request",
		                    "expected 0 (no limit) or more, got %lld",
		                    (long long)c->max_preemptions_per_request);
	if (c->policy != FS_LLM_POLICY_FCFS && c->policy != FS_LLM_POLICY_PRIORITY)
		return fs_error_set(err, NULL, "policy", "unknown policy %d",
		                    (int)c->policy);
	if (c->batching != FS_LLM_BATCHING_CONTINUOUS &&
	    c->batching != FS_LLM_BATCHING_STATIC)
		return fs_error_set(err, NULL, "batching", "unknown batching %d",
		                    (int)c->batching);
	if (c->scheduler != FS_LLM_SCHED_CHUNKED &&
	    c->scheduler != FS_LLM_SCHED_PREFILL_FIRST)
		return fs_error_set(err, NULL, "scheduler", "unknown scheduler %d",
		                    (int)c->scheduler);
	if (c->scheduler == FS_LLM_SCHED_PREFILL_FIRST &&
	    c->batching == FS_LLM_BATCHING_STATIC)
		return fs_error_set(err, NULL, "scheduler", "\"prefill_first\" is a "
		                    "continuous-batching scheduler; static batching has "
		                    "its own schedule");
	return 0;
}

struct fs_llm_engine *fs_llm_engine_alloc(const struct fs_llm_engine_cfg *cfg,
                                          fs_step_cost_fn cost, void *cost_ctx,
                                          struct fs_error *err)
{
	struct fs_llm_engine *e;
	struct fs_kvcache kv;
	struct fs_llm_engine_cfg c = *cfg;
	size_t n;

	if (cost == NULL) {
		fs_error_set(err, NULL, "", "no step-cost function given");
		return NULL;
	}
	if (check_cfg(&c, err) != 0)
		return NULL;
	if (fs_kvcache_init(&kv, c.kv_blocks, c.block_tokens, c.kv_watermark, err) != 0)
		return NULL;
	if (c.scheduler == FS_LLM_SCHED_PREFILL_FIRST)
		c.enable_chunked_prefill = false;             /* MODEL: V20 */
	if (c.batching == FS_LLM_BATCHING_STATIC)
		c.prefix_caching = false;                     /* MODEL: V22 */
	if (!c.enable_chunked_prefill && c.max_num_batched_tokens < c.max_model_len)
		c.max_num_batched_tokens = c.max_model_len;   /* MODEL: V4 */
	if (c.max_num_seqs > c.max_num_batched_tokens) {
		fs_error_set(err, NULL, "max_num_seqs",
		             "max_num_seqs (%lld) must not exceed max_num_batched_tokens (%lld)",
		             (long long)c.max_num_seqs, (long long)c.max_num_batched_tokens);
		return NULL;
	}
	e = fs_xcalloc(1, sizeof *e);
	e->cfg = c;
	e->cost = cost;
	e->cost_ctx = cost_ctx;
	e->kv = kv;
	e->free_head = LLM_NONE;
	n = (size_t)c.max_num_seqs;
	e->running = fs_xmalloc(n * sizeof *e->running);
	e->rep_first = fs_xmalloc(n * sizeof *e->rep_first);
	e->rep_done = fs_xmalloc(n * sizeof *e->rep_done);
	e->rep_gaps = fs_xmalloc(n * sizeof *e->rep_gaps);
	e->last_end_ns = INT64_MIN;
	return e;
}

void fs_llm_engine_free(struct fs_llm_engine *e)
{
	if (e == NULL)
		return;
	fs_kvcache_fini(&e->kv);
	free(e->seqs);
	free(e->running);
	free(e->waiting);
	free(e->rep_first);
	free(e->rep_done);
	free(e->rep_gaps);
	free(e->rep_preempted);
	free(e->rep_started);
	free(e->spare_started);
	free(e->rep_evacuees);
	free(e->rep_rejected);
	free(e->batch_scratch);
	free(e->run.cnt);
	free(e->run.pre);
	free(e->run.last_of);
	free(e);
}

static uint32_t seq_take(struct fs_llm_engine *e)
{
	uint32_t idx;

	if (e->free_head != LLM_NONE) {
		idx = e->free_head;
		e->free_head = e->seqs[idx].next_free;
		return idx;
	}
	LLM_CHECK(e->n_seqs < LLM_NONE, "more than 2^32-1 requests in one engine");
	/* aligned: struct llm_seq's first cache line holds its hot fields */
	fs_xgrow_aligned((void **)&e->seqs, &e->cap_seqs, e->n_seqs, e->n_seqs + 1,
	                 sizeof *e->seqs, _Alignof(struct llm_seq));
	return (uint32_t)e->n_seqs++;
}

void fs__llm_seq_release(struct fs_llm_engine *e, uint32_t idx)
{
	assert(idx < e->n_seqs && e->seqs[idx].kv_blocks == 0);
	e->seqs[idx].next_free = e->free_head;
	e->free_head = idx;
}

void fs__llm_reject(struct fs_llm_engine *e, uint32_t idx,
                    enum fs_llm_reject reason)
{
	struct llm_seq *s = &e->seqs[idx];

	fs_xgrow((void **)&e->rep_rejected, &e->cap_rejected, e->n_rejected + 1,
	         sizeof *e->rep_rejected);
	e->rep_rejected[e->n_rejected].slot = s->slot;
	e->rep_rejected[e->n_rejected].reason = reason;
	e->n_rejected++;
	e->stats.rejected_by_guard++;
	fs__llm_seq_release(e, idx);
}

enum fs_llm_reject fs_llm_engine_add(struct fs_llm_engine *e, uint32_t slot,
                                     int64_t prompt_tokens, int64_t output_tokens,
                                     int priority, uint64_t arrival_seq)
{
	return fs_llm_engine_add_hashed(e, slot, prompt_tokens, output_tokens, priority,
	                                arrival_seq, NULL);
}

enum fs_llm_reject fs_llm_engine_add_hashed(struct fs_llm_engine *e, uint32_t slot,
                                            int64_t prompt_tokens,
                                            int64_t output_tokens, int priority,
                                            uint64_t arrival_seq,
                                            const struct fs_block_hashes *hashes)
{
	const struct fs_llm_engine_cfg *c = &e->cfg;
	struct llm_seq *s;
	int64_t peak_tokens;
	uint32_t idx;

	if (prompt_tokens < 1 || output_tokens < 1) {
		e->stats.rejected_at_add++;
		return FS_LLM_REJECT_BAD_LENGTHS;
	}
	if (prompt_tokens >= c->max_model_len) {            /* MODEL: V10 */
		e->stats.rejected_at_add++;
		return FS_LLM_REJECT_PROMPT_TOO_LONG;
	}
	if (output_tokens > c->max_model_len - prompt_tokens)
		output_tokens = c->max_model_len - prompt_tokens;   /* MODEL: V10 */
	/* KV is written for every token but the last sampled one (V6); a request
	 * that cannot hold that alone could never finish (MODEL: V11). */
	peak_tokens = prompt_tokens + output_tokens - 1;
	if (fs_kvcache_blocks_for_tokens(&e->kv, peak_tokens) > fs_kvcache_total(&e->kv)) {
		e->stats.rejected_at_add++;
		return FS_LLM_REJECT_KV_TOO_SMALL;
	}
	idx = seq_take(e);
	s = &e->seqs[idx];
	memset(s, 0, sizeof *s);
	s->slot = slot;
	s->priority = priority;
	s->arrival_seq = arrival_seq;
	s->prompt_tokens = prompt_tokens;
	s->output_tokens = output_tokens;
	s->last_token_ns = -1;
	s->next_free = LLM_NONE;
	if (hashes != NULL && hashes->n_units > 0 && hashes->unit_tokens > 0 &&
	    c->prefix_caching) {
		s->hashes = *hashes;
		fs_kvcache_prefix_enable(&e->kv);   /* at the first hashed request */
	}
	fs__llm_wait_push(e, idx, false);
	e->stats.added++;
	return FS_LLM_ACCEPTED;
}

void fs_llm_engine_end_step(struct fs_llm_engine *e, fs_ns now_ns,
                            struct fs_llm_report *r)
{
	size_t i, kept = 0;

	LLM_CHECK(e->in_step, "end_step without a step in flight");
	LLM_CHECK(now_ns >= e->step_begin_ns, "step ends before it began");
	fs__llm_run_close(e);
	memset(r, 0, sizeof *r);
	r->begin_ns = e->step_begin_ns;
	r->end_ns = now_ns;
	r->shape = e->shape;
	for (i = 0; i < e->n_running; i++) {
		uint32_t idx = e->running[i];

		if (e->seqs[idx].sched_tokens > 0 && fs__llm_sample_token(e, idx, now_ns, r))
			continue;
		e->running[kept++] = idx;
	}
	e->n_running = kept;
	e->in_step = false;
	fs__llm_end_report(e, now_ns, r);
}

void fs__llm_end_report(struct fs_llm_engine *e, fs_ns now_ns, struct fs_llm_report *r)
{
	e->last_end_ns = now_ns;
	e->stats.tokens_generated += r->tokens_generated;
	e->stats.busy_ns += now_ns - e->step_begin_ns;

	r->first_token = e->rep_first;
	r->done = e->rep_done;
	r->itl_gaps = e->rep_gaps;
	r->started = e->rep_started;
	r->n_started = e->n_started;
	r->preempted = e->rep_preempted;
	r->n_preempted = e->n_preempted;
	r->rejected = e->rep_rejected;
	r->n_rejected = e->n_rejected;
	r->kv_used_blocks = fs_kvcache_used(&e->kv);
	r->waiting = (int64_t)e->n_waiting;
	r->running = (int64_t)e->n_running;
	r->prefix = e->step_prefix;
	LLM_CHECK(e->stats.added ==
	          e->stats.completed + e->stats.rejected_by_guard + e->stats.evacuated +
	          e->n_waiting + e->n_running, "requests not conserved");
}

static void evacuate_one(struct fs_llm_engine *e, uint32_t idx, size_t *n)
{
	struct llm_seq *s = &e->seqs[idx];

	e->rep_evacuees[*n].slot = s->slot;
	e->rep_evacuees[*n].generated = s->generated;
	e->rep_evacuees[*n].last_token_ns = s->generated > 0 ? s->last_token_ns : -1;
	(*n)++;
	fs__llm_seq_free_blocks(e, s);
	s->sched_tokens = 0;
	fs__llm_seq_release(e, idx);
}

void fs_llm_engine_evacuate(struct fs_llm_engine *e, const struct fs_llm_evacuee **out,
                            size_t *n_out)
{
	size_t i, n = 0;

	fs__llm_run_close(e);
	fs_xgrow((void **)&e->rep_evacuees, &e->cap_evacuees,
	         e->n_running + e->n_waiting + 1, sizeof *e->rep_evacuees);
	for (i = 0; i < e->n_running; i++)
		evacuate_one(e, e->running[i], &n);
	while (e->n_waiting > 0)
		evacuate_one(e, fs__llm_wait_pop(e), &n);
	e->n_running = 0;
	e->in_step = false;
	e->stats.evacuated += n;
	fs_kvcache_prefix_flush(&e->kv);       /* the instance's memory is gone */
	LLM_CHECK(fs_kvcache_used(&e->kv) == 0, "KV blocks held after an evacuation");
	*out = e->rep_evacuees;
	*n_out = n;
}

void fs__llm_note_started(struct fs_llm_engine *e, uint32_t idx)
{
	struct llm_seq *s = &e->seqs[idx];

	if (s->admitted_once)
		return;
	s->admitted_once = true;
	fs_xgrow((void **)&e->rep_started, &e->cap_started, e->n_started + 1,
	         sizeof *e->rep_started);
	e->rep_started[e->n_started++] = s->slot;
}

void *fs_llm_engine_cost_ctx(const struct fs_llm_engine *e)
{
	return e->cost_ctx;
}

bool fs_llm_engine_in_step(const struct fs_llm_engine *e)
{
	return e->in_step;
}

int64_t fs_llm_engine_waiting(const struct fs_llm_engine *e)
{
	return (int64_t)e->n_waiting;
}

int64_t fs_llm_engine_running(const struct fs_llm_engine *e)
{
	return (int64_t)e->n_running;
}

int64_t fs_llm_engine_kv_used(const struct fs_llm_engine *e)
{
	return fs_kvcache_used(&e->kv);
}

int64_t fs_llm_engine_kv_total(const struct fs_llm_engine *e)
{
	return fs_kvcache_total(&e->kv);
}

int64_t fs_llm_engine_token_budget(const struct fs_llm_engine *e)
{
	return e->cfg.max_num_batched_tokens;
}

const struct fs_llm_engine_stats *fs_llm_engine_stats(const struct fs_llm_engine *e)
{
	return &e->stats;
}

FS_ENUM_FUNCS(enum fs_llm_reject, FS_LLM_REJECT_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_llm_reject_name, fs_llm_reject_from_name, "unknown")
