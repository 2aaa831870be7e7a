/*
 * cli_estimate.c — `fleetsim estimate`: the memory plan and step times of one
 * replica (model × GPU × TP) from the perf model, as a table or as JSON.
 * No simulation: a pure function of the options.  Exit 2 for unknown names,
 * bad options (a context or prompt beyond the model's context included), or
 * a model that does not fit (the numbers on stderr).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/billing.h"
#include "fleetsim/catalog.h"
#include "fleetsim/llm_engine.h"
#include "fleetsim/scenario_hf_config.h"
#include "fleetsim/perf.h"
#include "fleetsim/scenario.h"
#include "suggest.h"

#define GB 1e9

static const char estimate_help[] =
	"usage: fleetsim estimate (--model M | --model-config JSON) --gpu G [--tp N]\n"
	"                         [--prompt P] [--batch B]\n"
	"                         [--context C] [--weights-dtype D] [--kv-dtype D]\n"
	"                         [--gpu-mem-util U] [--kv-blocks N] [--step-table CSV]\n"
	"                         [--catalog FILE] [--json]\n"
	"\n"
	"Print the memory plan of one replica (weights, activation reserve, KV blocks)\n"
	"and its step times from the roofline model (docs/MODEL.md, docs/VALIDATION.md):\n"
	"  --model-config JSON  the model from a Hugging Face config.json instead of\n"
	"                     --model (layers, widths, heads, vocabulary, experts;\n"
	"                     docs/CATALOG.md)\n"
	"  --tp N             tensor-parallel degree (default 1)\n"
	"  --prompt P         prompt tokens for the prefill time at batch 1, below the\n"
	"                     model's context (default 512)\n"
	"  --batch B          decode batch (default 32)\n"
	"  --context C        context tokens per sequence, at most the model's\n"
	"                     context (default 2048, or the context when shorter)\n"
	"  --weights-dtype D  fp16, bf16 (default), fp8, int8, int4\n"
	"  --kv-dtype D       fp16, bf16 (default), fp8, int8 (no int4 KV cache)\n"
	"  --gpu-mem-util U   fraction of GPU memory to use (default 0.90)\n"
	"  --kv-blocks N      pin the KV block count instead of deriving it\n"
	"  --step-table CSV   use a measured step table for the step times\n"
	"  --catalog FILE     GPUs and models of FILE first, then the built-ins\n"
	"                     ({\"gpus\": [...], \"models\": [...]}, docs/SCENARIO.md)\n"
	"  --json             one JSON object on stdout\n"
	"  --train METHOD     fine-tuning memory instead (full, lora, qlora): see\n"
	"                     'fleetsim estimate --train full --help'\n"
	"The output ends with the instance's catalogue price on every pricing plan\n"
	"(hourly, spot, daily, weekly, monthly, yearly; dated USD examples) and the\n"
	"use above which each commitment beats on-demand rental (break-even).\n"
	"Peak decode throughput is at the largest batch whose KV fits at context C,\n"
	"capped at vLLM's default max_num_seqs: 1024 sequences on a GPU with at least\n"
	"70 GiB that is not an A100, else 256 (as `fleetsim run`).  Models and GPUs:\n"
	"fleetsim catalog.\n";

struct opts {
	const char *model, *model_config, *gpu, *table_path, *catalog_path;
	int64_t tp, prompt_tokens, batch, context_tokens, kv_blocks;
	enum fs_dtype weight_dtype, kv_dtype;
	double gpu_mem_util;
	int json;
};

static int parse_util(const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (!fs_number_syntax(text, strlen(text), false) || *end != '\0' || errno != 0 ||
	    !(v > 0 && v <= 1)) {
		fprintf(stderr, "fleetsim estimate: --gpu-mem-util: expected a number in "
		        "(0, 1], found \"%s\"\n", text);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_dtype(const char *option, const char *text, enum fs_dtype *out)
{
	if (fs_dtype_parse(text, out) == 0)
		return 0;
	fprintf(stderr, "fleetsim estimate: %s: expected fp16, bf16, fp8, int8 or int4, "
	        "found \"%s\"\n", option, text);
	return -1;
}

/* A KV-cache dtype: the weights-only int4 is refused as a scenario's
 * engine.kv_dtype is, in the same words (vLLM has no 4-bit KV cache). */
static int parse_kv_dtype(const char *option, const char *text, enum fs_dtype *out)
{
	static const char *const NAMES[] = { FS_KV_DTYPE_MAP(FS_ENUM_NAME) NULL };
	static const enum fs_dtype KV[] = { FS_KV_DTYPE_MAP(FS_ENUM_ID) };
	enum fs_dtype d;
	const char *near;
	char list[64];

	if (fs_dtype_parse(text, &d) == 0)
		for (size_t i = 0; i < sizeof KV / sizeof KV[0]; i++)
			if (d == KV[i]) {
				*out = d;
				return 0;
			}
	fs__suggest_join(NAMES, ", ", list, sizeof list);
	near = fs__suggest_nearest(text, NAMES);
	fprintf(stderr, "fleetsim estimate: %s: unknown KV-cache dtype \"%s\"; expected one "
	        "of %s", option, text, list);
	if (near != NULL)
		fprintf(stderr, " (did you mean \"%s\"?)", near);
	fputc('\n', stderr);
	return -1;
}

/* The options below that take a value, besides the name options: an
 * option missing here is refused as unknown. */
static const char *const VALUED[] = {
	"--step-table", "--tp", "--prompt", "--batch", "--context", "--kv-blocks",
	"--weights-dtype", "--kv-dtype", "--gpu-mem-util", NULL
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->tp = 1;
	o->batch = 32;                       /* prompt and context: resolve_lengths */
	o->weight_dtype = FS_DTYPE_BF16;
	o->kv_dtype = FS_DTYPE_BF16;
	o->gpu_mem_util = 0.90;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL, *inline_v;
		char name[32];
		int rc = 0;

		if ((inline_v = fs__cli_estimate_split(a, VALUED, name, sizeof name)) != NULL) {
			a = name;
			v = inline_v;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(estimate_help, stdout);
			return 1;
		}
		if (strcmp(a, "--json") == 0) {
			o->json = 1;
			continue;
		}
		if (fs__cli_estimate_valued(a, v, VALUED, "") != 0)
			return FS_EXIT_INPUT;
		i += inline_v == NULL;           /* the value was the next word */
		if (fs__cli_estimate_name_option(a, v, &o->model, &o->model_config, &o->gpu,
		                                 &o->catalog_path))
			continue;
		if (strcmp(a, "--step-table") == 0)
			o->table_path = v;
		else if (strcmp(a, "--tp") == 0)
			rc = fs__cli_parse_int("estimate", a, v, 1, 64, &o->tp);
		else if (strcmp(a, "--prompt") == 0)
			rc = fs__cli_parse_int("estimate", a, v, 1, INT64_C(10000000), &o->prompt_tokens);
		else if (strcmp(a, "--batch") == 0)
			rc = fs__cli_parse_int("estimate", a, v, 1, INT64_C(1000000), &o->batch);
		else if (strcmp(a, "--context") == 0)
			rc = fs__cli_parse_int("estimate", a, v, 1, INT64_C(100000000), &o->context_tokens);
		else if (strcmp(a, "--kv-blocks") == 0)
			rc = fs__cli_parse_int("estimate", a, v, 1, INT64_C(1000000000000), &o->kv_blocks);
		else if (strcmp(a, "--weights-dtype") == 0)
			rc = parse_dtype(a, v, &o->weight_dtype);
		else if (strcmp(a, "--kv-dtype") == 0)
			rc = parse_kv_dtype(a, v, &o->kv_dtype);
		else if (strcmp(a, "--gpu-mem-util") == 0)
			rc = parse_util(v, &o->gpu_mem_util);
		else
			return fs__cli_usage_error("estimate", "unknown option \"%s\"", a);
		if (rc != 0)
			return FS_EXIT_INPUT;
	}
	if ((o->model == NULL) == (o->model_config == NULL))
		return fs__cli_usage_error("estimate", "give one of --model and "
		                           "--model-config");
	if (o->gpu == NULL)
		return fs__cli_usage_error("estimate", "--gpu is required");
	return 0;
}

#define PROMPT_TOKENS_DEFAULT 512
#define CONTEXT_TOKENS_DEFAULT 2048

/* MODEL: V10 — the model's context bounds one sequence: a context beyond
 * it is refused, and a prompt must leave one output token (vLLM refuses a
 * longer request); the defaults are cut to a shorter context.  0, or
 * FS_EXIT_INPUT after the message. */
static int resolve_lengths(struct opts *o, const struct fs_model_spec *m)
{
	int64_t ctx = m->max_context_tokens > 1 ? m->max_context_tokens : INT64_MAX;

	if (o->context_tokens == 0)
		o->context_tokens = ctx < CONTEXT_TOKENS_DEFAULT ? ctx : CONTEXT_TOKENS_DEFAULT;
	if (o->prompt_tokens == 0)
		o->prompt_tokens = ctx - 1 < PROMPT_TOKENS_DEFAULT ? ctx - 1 : PROMPT_TOKENS_DEFAULT;
	if (o->context_tokens > ctx) {
		fprintf(stderr, "fleetsim estimate: --context: expected at most %" PRId64
		        " tokens (the context of %s), found %" PRId64 "\n", ctx, m->id,
		        o->context_tokens);
		return FS_EXIT_INPUT;
	}
	if (o->prompt_tokens > ctx - 1) {
		fprintf(stderr, "fleetsim estimate: --prompt: expected at most %" PRId64
		        " tokens (a prompt and one output token within the %" PRId64
		        "-token context of %s), found %" PRId64 "\n", ctx - 1, ctx, m->id,
		        o->prompt_tokens);
		return FS_EXIT_INPUT;
	}
	return 0;
}

/* Results beyond the memory plan. */
struct estimate {
	int64_t max_seqs, peak_batch;
	double prefill_ms, decode_ms, decode_tokens_per_s, peak_tokens_per_s;
	double decode_flops, decode_bytes;
};

static void compute(const struct fs_perf_cfg *cfg, const struct opts *o,
                    const struct fs_mem_plan *plan, struct estimate *r)
{
	memset(r, 0, sizeof *r);
	r->max_seqs = fs_perf_max_seqs_at_context(plan, cfg->block_tokens, o->context_tokens);
	r->prefill_ms = (double)fs_perf_prefill_ns(cfg, o->prompt_tokens) / 1e6;
	r->decode_ms = (double)fs_perf_decode_ns(cfg, o->batch, o->context_tokens) / 1e6;
	r->decode_tokens_per_s = (double)o->batch / (r->decode_ms / 1e3);
	/* Decode throughput grows with the batch (P20): its peak is at the
	 * largest batch that fits, capped at max_num_seqs. */
	r->peak_batch = r->max_seqs < cfg->max_seqs ? r->max_seqs : cfg->max_seqs;
	if (r->peak_batch > 0)
		r->peak_tokens_per_s = (double)r->peak_batch /
		                       ((double)fs_perf_decode_ns(cfg, r->peak_batch,
		                                                  o->context_tokens) /
		                        FS_NS_PER_SECOND);
}

/* The order plans are listed in. */
static const enum fs_pricing PLANS[] = {
	FS_PRICING_ON_DEMAND, FS_PRICING_SPOT, FS_PRICING_DAILY, FS_PRICING_WEEKLY,
	FS_PRICING_MONTHLY, FS_PRICING_YEARLY
};
#define N_PLANS (sizeof PLANS / sizeof PLANS[0])

/* MODEL: B7, B8 — one instance's catalogue fee on plan k, its hours, and the
 * break-even of a commitment against on-demand (NAN for the usage plans or
 * without a price). */
static void plan_figures(const struct fs_perf_cfg *cfg, enum fs_pricing plan, double *fee,
                         double *period_h, double *break_even_h)
{
	double od = fs_billing_catalog_fee(cfg->gpu, FS_PRICING_ON_DEMAND) * cfg->tp;

	*fee = fs_billing_catalog_fee(cfg->gpu, plan) * cfg->tp;
	*period_h = (double)fs_pricing_period_ns(plan) / FS_NS_PER_HOUR;
	*break_even_h = fs_pricing_committed(plan) && *fee > 0 && od > 0 ?
		fs_billing_break_even_h_per_month(*fee, fs_pricing_period_ns(plan), od) : NAN;
}

static void print_plans_json(const struct fs_perf_cfg *cfg)
{
	size_t k;

	printf("  \"prices\": {\"currency\": \"USD\", \"date\": \"%s\", \"plans\": [\n",
	       cfg->gpu->price_date != NULL ? cfg->gpu->price_date : "");
	for (k = 0; k < N_PLANS; k++) {
		double fee, period_h, be_h;

		plan_figures(cfg, PLANS[k], &fee, &period_h, &be_h);
		printf("    {\"plan\": \"%s\", \"fee_per_period\": %.4f, \"period_h\": %.0f, "
		       "\"per_hour_equivalent\": %.4f", fs_pricing_name(PLANS[k]), fee,
		       period_h, fee / period_h);
		if (isfinite(be_h))
			printf(", \"break_even_hours_per_month\": %.2f, \"break_even_share\": %.4f",
			       be_h, be_h / FS_HOURS_PER_MONTH);
		printf("}%s\n", k + 1 < N_PLANS ? "," : "");
	}
	printf("  ]},\n");
}

static void print_plans_text(const struct fs_perf_cfg *cfg)
{
	const char *date = cfg->gpu->price_date;
	size_t k;

	printf("pricing plans of one instance (%d x %s; catalogue examples, USD%s%s)\n",
	       cfg->tp, cfg->gpu->id, date != NULL && *date != '\0' ? ", " : "",
	       date != NULL ? date : "");
	for (k = 0; k < N_PLANS; k++) {
		double fee, period_h, be_h;

		plan_figures(cfg, PLANS[k], &fee, &period_h, &be_h);
		if (!(fee > 0)) {
			printf("  %-20s no catalogue price\n", fs_pricing_label(PLANS[k]));
			continue;
		}
		printf("  %-20s %10.2f per %-6s (%.3f/h)", fs_pricing_label(PLANS[k]), fee,
		       period_h == 1 ? "hour" : period_h == 24 ? "day" : period_h == 168 ?
		       "week" : period_h == 8760 ? "year" : "month", fee / period_h);
		if (isfinite(be_h))
			printf("  beats on demand above %.0f h/month (%.0f%% use)%s", be_h,
			       100 * be_h / FS_HOURS_PER_MONTH,
			       be_h > FS_HOURS_PER_MONTH ? ": never" : "");
		printf("\n");
	}
}

static void print_json(const struct fs_perf_cfg *cfg, const struct opts *o,
                       const struct fs_mem_plan *p, const struct estimate *r)
{
	printf("{\n");
	printf("  \"model\": \"%s\",\n  \"gpu\": \"%s\",\n  \"tp\": %d,\n",
	       cfg->model->id, cfg->gpu->id, cfg->tp);
	printf("  \"weights_dtype\": \"%s\",\n  \"kv_dtype\": \"%s\",\n",
	       fs_dtype_name(cfg->weight_dtype), fs_dtype_name(cfg->kv_dtype));
	printf("  \"gpu_mem_util\": %.4f,\n", cfg->gpu_mem_util);
	printf("  \"mem_bytes_per_gpu\": %.0f,\n", cfg->gpu->mem_bytes);
	printf("  \"usable_bytes_per_gpu\": %.0f,\n", p->usable_bytes_per_gpu);
	printf("  \"weights_bytes\": %.0f,\n", p->weights_bytes_per_gpu * cfg->tp);
	printf("  \"weights_bytes_per_gpu\": %.0f,\n", p->weights_bytes_per_gpu);
	printf("  \"activation_bytes_per_gpu\": %.0f,\n", p->activation_bytes_per_gpu);
	printf("  \"kv_pool_bytes_per_gpu\": %.0f,\n", p->kv_pool_bytes_per_gpu);
	printf("  \"needed_bytes_per_gpu\": %.0f,\n", p->needed_bytes_per_gpu);
	printf("  \"kv_bytes_per_token\": %.0f,\n", p->kv_bytes_per_token);
	printf("  \"kv_bytes_per_token_per_gpu\": %.0f,\n", p->kv_bytes_per_token_per_gpu);
	printf("  \"block_tokens\": %d,\n", cfg->block_tokens);
	printf("  \"kv_blocks\": %" PRId64 ",\n", p->fits ? p->kv_blocks : 0);
	printf("  \"kv_tokens\": %" PRId64 ",\n",
	       p->fits ? p->kv_blocks * cfg->block_tokens : 0);
	printf("  \"context_tokens\": %" PRId64 ",\n", o->context_tokens);
	if (p->fits) {
		printf("  \"max_seqs_at_context\": %" PRId64 ",\n", r->max_seqs);
		printf("  \"prompt_tokens\": %" PRId64 ",\n", o->prompt_tokens);
		printf("  \"prefill_ms\": %.4f,\n", r->prefill_ms);
		printf("  \"batch\": %" PRId64 ",\n", o->batch);
		printf("  \"batch_fits_kv\": %s,\n", o->batch <= r->max_seqs ? "true" : "false");
		printf("  \"decode_step_ms\": %.4f,\n", r->decode_ms);
		printf("  \"decode_tokens_per_s\": %.2f,\n", r->decode_tokens_per_s);
		printf("  \"peak_decode_batch\": %" PRId64 ",\n", r->peak_batch);
		printf("  \"peak_decode_tokens_per_s\": %.2f,\n", r->peak_tokens_per_s);
		printf("  \"step_model\": \"%s\",\n", cfg->table != NULL ? "table" : "roofline");
	} else {
		printf("  \"max_seqs_at_context\": 0,\n");
	}
	print_plans_json(cfg);
	printf("  \"fits\": %s\n}\n", p->fits ? "true" : "false");
}

static void print_text(const struct fs_perf_cfg *cfg, const struct opts *o,
                       const struct fs_mem_plan *p, const struct estimate *r)
{
	printf("%s on %s, tp %d (weights %s, KV %s)\n", cfg->model->id, cfg->gpu->id,
	       cfg->tp, fs_dtype_name(cfg->weight_dtype), fs_dtype_name(cfg->kv_dtype));
	printf("memory per GPU\n");
	printf("  usable              %8.2f GB  (total_memory %.2f GB = %.2f GiB x "
	       "gpu_mem_util %.2f)\n", p->usable_bytes_per_gpu / GB,
	       cfg->gpu->mem_bytes / GB, cfg->gpu->mem_bytes / 1073741824.0,
	       cfg->gpu_mem_util);
	printf("  weights             %8.2f GB  (%.2f GB whole model)\n",
	       p->weights_bytes_per_gpu / GB, p->weights_bytes_per_gpu * cfg->tp / GB);
	printf("  activation reserve  %8.2f GB\n", p->activation_bytes_per_gpu / GB);
	printf("  KV pool             %8.2f GB\n", p->kv_pool_bytes_per_gpu / GB);
	printf("KV cache\n");
	printf("  bytes per token     %.0f (replica), %.0f per GPU\n",
	       p->kv_bytes_per_token, p->kv_bytes_per_token_per_gpu);
	printf("  blocks              %" PRId64 " of %d tokens (%" PRId64 " tokens)\n",
	       p->kv_blocks, cfg->block_tokens, p->kv_blocks * cfg->block_tokens);
	printf("  max sequences       %" PRId64 " at context %" PRId64 "\n",
	       r->max_seqs, o->context_tokens);
	printf("step time (%s)\n", cfg->table != NULL ? "measured table" : "roofline");
	printf("  prefill             %10.3f ms  (%" PRId64 " tokens, batch 1)\n",
	       r->prefill_ms, o->prompt_tokens);
	printf("  decode step         %10.3f ms  (batch %" PRId64 ", context %" PRId64
	       ": %.0f tokens/s%s)\n", r->decode_ms, o->batch, o->context_tokens,
	       r->decode_tokens_per_s, o->batch <= r->max_seqs ? "" : "; batch exceeds KV");
	printf("  peak decode         %10.0f tokens/s at batch %" PRId64 "\n",
	       r->peak_tokens_per_s, r->peak_batch);
	print_plans_text(cfg);
	printf("fits: yes\n");
}

/* "unknown KIND "NAME"" with the catalogue's suggestion, to stderr. */
static void print_unknown(const char *kind, const char *name, const char *suggestion)
{
	if (suggestion != NULL)
		fprintf(stderr, "fleetsim estimate: unknown %s \"%s\"; did you mean \"%s\"?\n",
		        kind, name, suggestion);
	else
		fprintf(stderr, "fleetsim estimate: unknown %s \"%s\"; see 'fleetsim "
		        "catalog'\n", kind, name);
}

const struct fs_gpu_spec *fs__cli_estimate_find_gpu(const struct fs_catalog_file *cf,
                                                   const char *name)
{
	const struct fs_gpu_spec *g = fs_catalog_file_find_gpu(cf, name);

	if (g == NULL)
		print_unknown("GPU", name, fs_catalog_file_suggest_gpu(cf, name));
	return g;
}

const struct fs_model_spec *fs__cli_estimate_find_model(const struct fs_catalog_file *cf,
                                                       const char *name)
{
	const struct fs_model_spec *m = fs_catalog_file_find_model(cf, name);

	if (m == NULL)
		print_unknown("model", name, fs_catalog_file_suggest_model(cf, name));
	return m;
}

/* The options that name things, shared with --train. */
static const char *const NAME_OPTIONS[] = { "--model", "--model-config", "--gpu",
                                            "--catalog", NULL };

/* Whether option is one of names (NULL-terminated). */
static int is_one_of(const char *option, const char *const *names)
{
	for (size_t i = 0; names[i] != NULL; i++)
		if (strcmp(option, names[i]) == 0)
			return 1;
	return 0;
}

int fs__cli_estimate_valued(const char *option, const char *value,
                            const char *const *known, const char *mode)
{
	if (option[0] != '-' || option[1] != '-')
		return fs__cli_usage_error("estimate", "unexpected argument \"%s\"", option);
	/* unknown first: a misspelt last option is not "missing its value" */
	if (!is_one_of(option, NAME_OPTIONS) && !is_one_of(option, known))
		return fs__cli_usage_error("estimate", "unknown option \"%s\"%s", option, mode);
	if (value == NULL)
		return fs__cli_usage_error("estimate", "option \"%s\" needs a value", option);
	return 0;
}

const char *fs__cli_estimate_split(const char *word, const char *const *known, char *name,
                                   size_t len)
{
	const char *v = fs__cli_split_long(word, NAME_OPTIONS, name, len);

	return v != NULL ? v : fs__cli_split_long(word, known, name, len);
}

int fs__cli_estimate_name_option(const char *option, const char *value, const char **model,
                                 const char **model_config, const char **gpu,
                                 const char **catalog_path)
{
	const char **slot[] = { model, model_config, gpu, catalog_path };

	for (size_t i = 0; NAME_OPTIONS[i] != NULL; i++)
		if (strcmp(option, NAME_OPTIONS[i]) == 0) {
			*slot[i] = value;
			return 1;
		}
	return 0;
}

int fs__cli_estimate_load_model(const char *catalog_path, const char *model_config,
                                const char *model_name, struct fs_catalog_file **cf,
                                struct fs_model_spec *own,
                                const struct fs_model_spec **model)
{
	struct fs_error err;

	*cf = NULL;
	*model = NULL;
	memset(own, 0, sizeof *own);
	if (catalog_path != NULL) {
		*cf = fs_catalog_file_load(catalog_path, &err);
		if (*cf == NULL) {
			fs_error_print(&err);
			return FS_EXIT_INPUT;
		}
	}
	if (model_config == NULL) {
		*model = fs__cli_estimate_find_model(*cf, model_name);
		return 0;
	}
	if (fs_model_config_load(model_config, NULL, own, &err) != 0) {
		fs_error_print(&err);
		fs_catalog_file_free(*cf);
		*cf = NULL;
		return FS_EXIT_INPUT;
	}
	*model = own;
	return 0;
}

void fs__cli_estimate_print_error(const struct fs_error *err)
{
	char buf[2048];

	fs_error_format(err, buf, sizeof buf);
	fprintf(stderr, "fleetsim estimate: %s\n", buf);
}

int fs__cli_estimate(int argc, char **argv)
{
	struct opts o;
	struct fs_perf_cfg cfg;
	struct fs_mem_plan plan;
	struct fs_error err;
	struct fs_step_table *table = NULL;
	struct fs_catalog_file *cf = NULL;
	struct fs_model_spec own_model;
	struct estimate r;
	const struct fs_gpu_spec *gpu;
	const struct fs_model_spec *model;
	int rc;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--train") == 0 || strncmp(argv[i], "--train=", 8) == 0)
			return fs__cli_estimate_train(argc, argv);
	rc = parse_args(argc, argv, &o);
	memset(&r, 0, sizeof r);
	if (rc != 0)
		return rc == 1 ? FS_EXIT_OK : rc;
	/* cf and own_model live until the end: cfg points into them. */
	if (fs__cli_estimate_load_model(o.catalog_path, o.model_config, o.model, &cf,
	                                &own_model, &model) != 0)
		return FS_EXIT_INPUT;
	gpu = fs__cli_estimate_find_gpu(cf, o.gpu);
	if (model == NULL || gpu == NULL || resolve_lengths(&o, model) != 0) {
		fs_catalog_file_free(cf);
		fs_model_config_fini(&own_model);
		return FS_EXIT_INPUT;
	}
	fs_perf_cfg_defaults(&cfg, gpu, model);
	cfg.tp = (int)o.tp;
	cfg.weight_dtype = o.weight_dtype;
	cfg.kv_dtype = o.kv_dtype;
	cfg.gpu_mem_util = o.gpu_mem_util;
	cfg.kv_blocks_pinned = o.kv_blocks;
	/* MODEL: V17, P6, P20 — the engine's own defaults (the token budget and
	 * the sequence cap), so the activation reserve, the KV blocks and the
	 * peak-decode cap are what `fleetsim run` would use. */
	cfg.max_batched_tokens = fs_llm_default_max_num_batched_tokens(gpu);
	cfg.max_seqs = fs_llm_default_max_num_seqs(gpu, cfg.max_batched_tokens);
	if (o.table_path != NULL) {
		table = fs_step_table_load(o.table_path, o.table_path, &err);
		if (table == NULL) {
			fs_error_print(&err);
			fs_catalog_file_free(cf);
			fs_model_config_fini(&own_model);
			return FS_EXIT_INPUT;
		}
		cfg.table = table;
	}
	if (fs_perf_plan_memory(&cfg, &plan, &err) != 0) {
		fs__cli_estimate_print_error(&err);
		/* A configuration that is valid but too big still gets its numbers
		 * in --json mode, with fits false. */
		if (o.json && fs_perf_cfg_check(&cfg, NULL) == 0)
			print_json(&cfg, &o, &plan, &r);
		fs_step_table_free(table);
		fs_catalog_file_free(cf);
		fs_model_config_fini(&own_model);
		return FS_EXIT_INPUT;
	}
	compute(&cfg, &o, &plan, &r);
	if (o.json)
		print_json(&cfg, &o, &plan, &r);
	else
		print_text(&cfg, &o, &plan, &r);
	fs_step_table_free(table);
	fs_catalog_file_free(cf);
	fs_model_config_fini(&own_model);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "fleetsim estimate: cannot write to standard output\n");
		return FS_EXIT_RUNTIME;
	}
	return FS_EXIT_OK;
}
