/*
 * cli_estimate_train.c — `fleetsim estimate --train METHOD`: the memory one
 * GPU needs to fine-tune a model (src/train_mem.c, docs/MODEL.md T1-T9),
 * for one GPU type and card count, or with --table for every catalogue GPU
 * on 1, 2, 4 and 8 cards.  No simulation.  Exit 2 for bad options (one that
 * does not apply to the method or to --table included) or, for a
 * single estimate, a plan that does not fit (its numbers still printed).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/catalog.h"
#include "fleetsim/scenario_hf_config.h"
#include "fleetsim/scenario.h"
#include "fleetsim/train.h"

#define GB 1e9

static const char train_help[] =
	"usage: fleetsim estimate --train full|lora|qlora (--model M | --model-config JSON)\n"
	"                         (--gpu G [--gpus N] | --table) [--shard S]\n"
	"                         [--micro-batch B] [--seq S] [--grad-accum K]\n"
	"                         [--recompute none|full] [--flash-attn yes|no]\n"
	"                         [--lora-rank R] [--lora-modules LIST]\n"
	"                         [--weights-dtype D] [--nf4-double-quant yes|no]\n"
	"                         [--kbit-fp32-cast yes|no]\n"
	"                         [--logit-bytes X] [--reserve-gb X]\n"
	"                         [--catalog FILE] [--json]\n"
	"\n"
	"Print the memory one GPU needs to fine-tune the model (docs/MODEL.md T1-T9,\n"
	"docs/BUDGET.md): weights, gradients, fp32 master weights, AdamW moments,\n"
	"what sharding gathers back, activations, a fixed reserve; the total per\n"
	"GPU against the catalogue memory (torch total_memory; GB = 1e9 bytes),\n"
	"fits or not.\n"
	"  --train METHOD     full: every parameter, mixed-precision AdamW (16 bytes\n"
	"                     per parameter before activations); lora: frozen base +\n"
	"                     rank-r adapters (16 bytes per adapter parameter);\n"
	"                     qlora: the base in 4-bit NF4 with its block constants\n"
	"  --gpu G            the GPU type; --gpus N data-parallel cards (default 1)\n"
	"  --table            every catalogue GPU on 1, 2, 4 and 8 cards instead\n"
	"                     (not with --gpu or --gpus)\n"
	"  --shard S          none (default; plain data parallel, more cards add\n"
	"                     speed, not memory), zero1 (optimizer states / N),\n"
	"                     zero2 (+ gradients / N), zero3 or fsdp (+ weights / N)\n"
	"  --micro-batch B    sequences per GPU per step (default 1)\n"
	"  --seq S            tokens per sequence, at most the model's context\n"
	"                     (default 2048, or the context when shorter)\n"
	"  --grad-accum K     micro-batches per optimizer step (default 1; changes\n"
	"                     tokens per step, not memory)\n"
	"  --recompute R      activation checkpointing: none (default) or full (each\n"
	"                     layer keeps its input only)\n"
	"  --flash-attn yes|no  yes (default): no sequence x sequence matrix is kept\n"
	"  --lora-rank R      lora, qlora: adapter rank (default 16)\n"
	"  --lora-modules L   lora, qlora: comma-separated q,k,v,o,gate,up,down,\n"
	"                     each once, or all (default)\n"
	"  --weights-dtype D  full: fp16 or bf16 (default); lora: the frozen base's\n"
	"                     dtype (bf16, fp16, fp8, int8, int4); not with qlora\n"
	"                     (NF4 always)\n"
	"  --nf4-double-quant yes|no  qlora: block constants in 8 bits (default yes)\n"
	"  --kbit-fp32-cast yes|no  qlora: embeddings, LM head and norms cast to\n"
	"                     fp32 as PEFT's prepare_model_for_kbit_training does\n"
	"                     (default yes; no for LitGPT, GPTQ bases, Unsloth;\n"
	"                     docs/MODEL.md T10)\n"
	"  --logit-bytes X    bytes the loss holds per vocabulary entry per token\n"
	"                     (default 4: fp32 logits; an unfused framework loss\n"
	"                     holds more, docs/MODEL.md T7)\n"
	"  --reserve-gb X     CUDA context and workspaces per GPU (default 1.0)\n"
	"  --catalog FILE     GPUs and models of FILE first, then the built-ins\n"
	"  --json             one JSON object on stdout\n"
	"An option that does not apply to the method (or to --table) is refused,\n"
	"not ignored.\n";

struct topts {
	const char *model, *model_config, *gpu, *catalog_path;
	int64_t gpus;
	int table, json;
	unsigned given;                          /* bit i: VALUED[i] on the line */
	struct fs_train_cfg cfg;                 /* model filled after lookup */
};

static int parse_yes_no(const char *option, const char *text, int *out)
{
	if (strcmp(text, "yes") == 0 || strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
		*out = 1;
	else if (strcmp(text, "no") == 0 || strcmp(text, "false") == 0 ||
	         strcmp(text, "0") == 0)
		*out = 0;
	else {
		fprintf(stderr, "fleetsim estimate: %s: expected yes or no, found \"%s\"\n",
		        option, text);
		return -1;
	}
	return 0;
}

static int parse_nonneg(const char *option, const char *text, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (!fs_number_syntax(text, strlen(text), false) || *end != '\0' || errno != 0 ||
	    !(v >= 0 && v <= hi)) {
		fprintf(stderr, "fleetsim estimate: %s: expected a number in [0, %g], found "
		        "\"%s\"\n", option, hi, text);
		return -1;
	}
	*out = v;
	return 0;
}

static int bad_choice(const char *option, const char *choices, const char *text)
{
	fprintf(stderr, "fleetsim estimate: %s: expected %s, found \"%s\"\n", option,
	        choices, text);
	return -1;
}

static int parse_modules(const char *option, const char *text, unsigned *out)
{
	struct fs_error err;

	if (fs_train_lora_modules_parse(text, out, &err) == 0)
		return 0;
	fprintf(stderr, "fleetsim estimate: %s: %s\n", option, err.msg);
	return -1;
}

/* One option with its value; 0, -1 after printing, or 2 when unknown. */
static int parse_option(const char *a, const char *v, struct topts *o)
{
	struct fs_train_cfg *c = &o->cfg;
	int64_t n;

	if (strcmp(a, "--train") == 0)
		return fs_train_method_parse(v, &c->method) == 0 ? 0 :
		       bad_choice(a, "full, lora or qlora", v);
	if (fs__cli_estimate_name_option(a, v, &o->model, &o->model_config, &o->gpu,
	                                 &o->catalog_path))
		return 0;
	if (strcmp(a, "--gpus") == 0)
		return fs__cli_parse_int("estimate", a, v, 1, 4096, &o->gpus);
	else if (strcmp(a, "--micro-batch") == 0)
		return fs__cli_parse_int("estimate", a, v, 1, 1000000, &c->micro_batch);
	else if (strcmp(a, "--seq") == 0)
		return fs__cli_parse_int("estimate", a, v, 1, 100000000, &c->seq_tokens);
	else if (strcmp(a, "--grad-accum") == 0)
		return fs__cli_parse_int("estimate", a, v, 1, 1000000, &c->grad_accum);
	else if (strcmp(a, "--lora-rank") == 0) {
		if (fs__cli_parse_int("estimate", a, v, 1, 65536, &n) != 0)
			return -1;
		c->lora_rank = (int)n;
	} else if (strcmp(a, "--shard") == 0)
		return fs_train_shard_parse(v, &c->shard) == 0 ? 0 :
		       bad_choice(a, "none, zero1, zero2, zero3 or fsdp", v);
	else if (strcmp(a, "--recompute") == 0)
		return fs_train_recompute_parse(v, &c->recompute) == 0 ? 0 :
		       bad_choice(a, "none or full", v);
	else if (strcmp(a, "--flash-attn") == 0)
		return parse_yes_no(a, v, &c->flash_attn);
	else if (strcmp(a, "--nf4-double-quant") == 0)
		return parse_yes_no(a, v, &c->nf4_double_quant);
	else if (strcmp(a, "--kbit-fp32-cast") == 0)
		return parse_yes_no(a, v, &c->kbit_fp32_cast);
	else if (strcmp(a, "--lora-modules") == 0)
		return parse_modules(a, v, &c->lora_modules);
	else if (strcmp(a, "--weights-dtype") == 0)
		return fs_dtype_parse(v, &c->weight_dtype) == 0 ? 0 :
		       bad_choice(a, "fp16, bf16, fp8, int8 or int4", v);
	else if (strcmp(a, "--logit-bytes") == 0)
		return parse_nonneg(a, v, 64, &c->logit_bytes);
	else if (strcmp(a, "--reserve-gb") == 0) {
		if (parse_nonneg(a, v, 1000, &c->reserve_bytes) != 0)
			return -1;
		c->reserve_bytes *= GB;
	} else
		return 2;
	return 0;
}

/* The options parse_option takes besides the name options: an option
 * missing here is refused as unknown. */
static const char *const VALUED[] = {
	"--train", "--gpus", "--micro-batch", "--seq", "--grad-accum", "--lora-rank",
	"--shard", "--recompute", "--flash-attn", "--nf4-double-quant",
	"--kbit-fp32-cast", "--lora-modules", "--weights-dtype", "--logit-bytes",
	"--reserve-gb", NULL
};

/* The index of option in VALUED, or -1. */
static int valued_index(const char *option)
{
	for (int i = 0; VALUED[i] != NULL; i++)
		if (strcmp(option, VALUED[i]) == 0)
			return i;
	return -1;
}

/* Whether the command line gave option (one of VALUED). */
static bool given(const struct topts *o, const char *option)
{
	int i = valued_index(option);

	assert(i >= 0);
	return (o->given & (1u << i)) != 0;
}

#define METHOD_BIT(m) (1u << (m))

/* The options that apply to some methods only (MODEL: T1-T3, T10): given
 * with another method they would be ignored, and the numbers would not be
 * those of the command line. */
static const struct {
	const char *option;
	unsigned methods;            /* METHOD_BIT of each method it applies to */
	const char *why;
} METHOD_ONLY[] = {
	{ "--weights-dtype", METHOD_BIT(FS_TRAIN_FULL) | METHOD_BIT(FS_TRAIN_LORA),
	  "its base is 4-bit NF4 whatever the dtype; --nf4-double-quant sets its "
	  "constants" },
	{ "--lora-rank", METHOD_BIT(FS_TRAIN_LORA) | METHOD_BIT(FS_TRAIN_QLORA),
	  "it trains every parameter, no adapters" },
	{ "--lora-modules", METHOD_BIT(FS_TRAIN_LORA) | METHOD_BIT(FS_TRAIN_QLORA),
	  "it trains every parameter, no adapters" },
	{ "--nf4-double-quant", METHOD_BIT(FS_TRAIN_QLORA),
	  "only qlora quantises the base to NF4" },
	{ "--kbit-fp32-cast", METHOD_BIT(FS_TRAIN_QLORA),
	  "only qlora casts a 4-bit base's other parameters to fp32" },
};

/* Refuse an option the chosen mode does not use: a method-only option
 * with another method, --gpu or --gpus with --table.  0 or FS_EXIT_INPUT
 * after the usage error naming both. */
static int check_applies(const struct topts *o)
{
	enum fs_train_method m = o->cfg.method;

	for (size_t i = 0; i < sizeof METHOD_ONLY / sizeof METHOD_ONLY[0]; i++)
		if (given(o, METHOD_ONLY[i].option) && !(METHOD_ONLY[i].methods & METHOD_BIT(m)))
			return fs__cli_usage_error("estimate", "%s does not apply to --train %s "
			                           "(%s); leave it out", METHOD_ONLY[i].option,
			                           fs_train_method_name(m), METHOD_ONLY[i].why);
	if (o->table && (o->gpu != NULL || given(o, "--gpus")))
		return fs__cli_usage_error("estimate", "%s does not apply with --table (it "
		                           "covers every catalogue GPU on 1, 2, 4 and 8 "
		                           "cards); give one of them", o->gpu != NULL ? "--gpu" :
		                           "--gpus");
	return 0;
}

static int parse_args(int argc, char **argv, struct topts *o)
{
	memset(o, 0, sizeof *o);
	fs_train_cfg_defaults(&o->cfg, NULL);
	o->gpus = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL, *inline_v;
		char name[32];
		int rc, k;

		if ((inline_v = fs__cli_estimate_split(a, VALUED, name, sizeof name)) != NULL) {
			a = name;
			v = inline_v;
		}
		k = valued_index(a);

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(train_help, stdout);
			return 1;
		}
		if (strcmp(a, "--json") == 0 || strcmp(a, "--table") == 0) {
			*(a[2] == 'j' ? &o->json : &o->table) = 1;
			continue;
		}
		if (fs__cli_estimate_valued(a, v, VALUED, " with --train") != 0)
			return FS_EXIT_INPUT;
		i += inline_v == NULL;           /* the value was the next word */
		rc = parse_option(a, v, o);
		if (rc == 2)
			return fs__cli_usage_error("estimate", "unknown option \"%s\" with "
			                           "--train", a);
		if (rc != 0)
			return FS_EXIT_INPUT;
		if (k >= 0)
			o->given |= 1u << k;
	}
	if ((o->model == NULL) == (o->model_config == NULL))
		return fs__cli_usage_error("estimate", "give one of --model and "
		                           "--model-config");
	if (o->gpu == NULL && !o->table)
		return fs__cli_usage_error("estimate", "--train needs --gpu G or --table");
	if (check_applies(o) != 0)
		return FS_EXIT_INPUT;
	o->cfg.n_gpus = (int)o->gpus;
	return 0;
}

/* MODEL: T5 — a training sequence is one context of the model: --seq
 * beyond its position range is refused, as serving refuses a longer
 * context; the default is cut to a shorter context.  0, or FS_EXIT_INPUT
 * after the message. */
static int resolve_seq(struct topts *o)
{
	const struct fs_model_spec *m = o->cfg.model;

	if (m->max_context_tokens <= 0 || o->cfg.seq_tokens <= m->max_context_tokens)
		return 0;
	if (!given(o, "--seq")) {
		o->cfg.seq_tokens = m->max_context_tokens;
		return 0;
	}
	fprintf(stderr, "fleetsim estimate: --seq: expected at most %" PRId64 " tokens (the "
	        "context of %s), found %" PRId64 "\n", m->max_context_tokens, m->id,
	        o->cfg.seq_tokens);
	return FS_EXIT_INPUT;
}

/* A JSON string: the model id may be a config.json path with any bytes. */
static void print_json_str(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void print_cfg_json(const struct fs_train_cfg *c, const struct fs_train_mem *p)
{
	char mods[64];

	fs_train_lora_modules_format(c->lora_modules, mods, sizeof mods);
	printf("  \"model\": ");
	print_json_str(c->model->id);
	printf(",\n  \"method\": \"%s\",\n", fs_train_method_name(c->method));
	printf("  \"params\": %.0f,\n  \"trainable_params\": %.0f,\n", p->params,
	       p->trainable_params);
	if (c->method == FS_TRAIN_QLORA)
		printf("  \"weights_dtype\": \"nf4\",\n  \"nf4_double_quant\": %s,\n"
		       "  \"kbit_fp32_cast\": %s,\n", c->nf4_double_quant ? "true" : "false",
		       c->kbit_fp32_cast ? "true" : "false");
	else
		printf("  \"weights_dtype\": \"%s\",\n", fs_dtype_name(c->weight_dtype));
	if (c->method != FS_TRAIN_FULL)
		printf("  \"lora_rank\": %d,\n  \"lora_modules\": \"%s\",\n", c->lora_rank, mods);
	printf("  \"micro_batch\": %" PRId64 ",\n  \"seq_tokens\": %" PRId64 ",\n"
	       "  \"grad_accum\": %" PRId64 ",\n", c->micro_batch, c->seq_tokens,
	       c->grad_accum);
	printf("  \"recompute\": \"%s\",\n  \"flash_attn\": %s,\n  \"shard\": \"%s\",\n",
	       fs_train_recompute_name(c->recompute), c->flash_attn ? "true" : "false",
	       fs_train_shard_name(c->shard));
	printf("  \"logit_bytes\": %.4g,\n  \"reserve_bytes\": %.0f,\n", c->logit_bytes,
	       c->reserve_bytes);
}

static void print_mem_json(const struct fs_train_mem *p, const char *indent)
{
	printf("%s\"weights_bytes\": %.0f, \"grads_bytes\": %.0f, \"master_bytes\": %.0f, "
	       "\"moments_bytes\": %.0f,\n%s\"gathered_bytes\": %.0f, "
	       "\"activation_bytes\": %.0f, \"reserve_bytes\": %.0f, "
	       "\"total_bytes\": %.0f", indent, p->weights_bytes, p->grads_bytes,
	       p->master_bytes, p->moments_bytes, indent, p->gathered_bytes,
	       p->activation_bytes, p->reserve_bytes, p->total_bytes);
}

static void print_one_text(const struct fs_train_cfg *c, const struct fs_gpu_spec *g,
                           const struct fs_train_mem *p)
{
	char mods[64];
	int fits = p->total_bytes <= g->mem_bytes;

	fs_train_lora_modules_format(c->lora_modules, mods, sizeof mods);
	printf("%s fine-tuning of %s on %d x %s (shard %s)\n", fs_train_method_name(c->method),
	       c->model->id, c->n_gpus, g->id, fs_train_shard_name(c->shard));
	printf("  parameters     %.3f B; trained %.0f", p->params / 1e9, p->trainable_params);
	if (c->method != FS_TRAIN_FULL)
		printf(" (rank %d on %s)", c->lora_rank, mods);
	printf("\n  base weights   %.4f bytes/parameter (%s)\n", p->base_bytes_per_param,
	       c->method == FS_TRAIN_QLORA ? (c->nf4_double_quant ? "NF4, double-quantised "
	                                      "constants" : "NF4") :
	       fs_dtype_name(c->weight_dtype));
	if (c->method == FS_TRAIN_QLORA)
		printf("  unquantised    embeddings, LM head, norms in %s\n",
		       c->kbit_fp32_cast ? "fp32 (PEFT's k-bit cast, T10)" : "bf16");
	printf("  micro-batch    %" PRId64 " x %" PRId64 " tokens, accumulation %" PRId64
	       ": %" PRId64 " tokens per optimizer step\n", c->micro_batch, c->seq_tokens,
	       c->grad_accum, p->tokens_per_step);
	printf("  activations    recompute %s, FlashAttention %s, %.4g logit bytes\n",
	       fs_train_recompute_name(c->recompute), c->flash_attn ? "yes" : "no",
	       c->logit_bytes);
	printf("memory per GPU (GB)\n");
	printf("  weights        %10.2f\n", p->weights_bytes / GB);
	printf("  gradients      %10.2f\n", p->grads_bytes / GB);
	printf("  fp32 master    %10.2f\n", p->master_bytes / GB);
	printf("  AdamW moments  %10.2f\n", p->moments_bytes / GB);
	printf("  gathered       %10.2f\n", p->gathered_bytes / GB);
	printf("  activations    %10.2f\n", p->activation_bytes / GB);
	printf("  reserve        %10.2f\n", p->reserve_bytes / GB);
	printf("  total          %10.2f of %.2f (total_memory, %.2f GiB)\n",
	       p->total_bytes / GB, g->mem_bytes / GB, g->mem_bytes / 1073741824.0);
	printf("fits: %s\n", fits ? "yes" : "no");
}

static void print_one_json(const struct fs_train_cfg *c, const struct fs_gpu_spec *g,
                           const struct fs_train_mem *p)
{
	printf("{\n");
	print_cfg_json(c, p);
	printf("  \"gpu\": ");
	print_json_str(g->id);
	printf(",\n  \"gpus\": %d,\n  \"mem_bytes_per_gpu\": %.0f,\n", c->n_gpus, g->mem_bytes);
	printf("  \"tokens_per_step\": %" PRId64 ",\n", p->tokens_per_step);
	print_mem_json(p, "  ");
	printf(",\n  \"fits\": %s\n}\n", p->total_bytes <= g->mem_bytes ? "true" : "false");
}

static const int CARDS[] = { 1, 2, 4, 8 };
#define N_CARDS (sizeof CARDS / sizeof CARDS[0])

/* The table over every catalogue GPU (the file's first, then built-ins). */
static int print_table(struct fs_train_cfg *c, const struct fs_catalog_file *cf, int json)
{
	size_t n_file = cf != NULL ? cf->n_gpus : 0, n = n_file + fs_catalog_n_gpus();
	struct fs_train_mem p[N_CARDS];
	struct fs_error err;

	for (size_t k = 0; k < N_CARDS; k++) {
		c->n_gpus = CARDS[k];
		if (fs_train_mem_plan(c, &p[k], &err) != 0) {
			fs_error_print(&err);
			return FS_EXIT_INPUT;
		}
	}
	if (json) {
		printf("{\n");
		print_cfg_json(c, &p[0]);
		printf("  \"cards\": [\n");
		for (size_t k = 0; k < N_CARDS; k++) {
			printf("    {\"gpus\": %d, \"tokens_per_step\": %" PRId64 ",\n", CARDS[k],
			       p[k].tokens_per_step);
			print_mem_json(&p[k], "     ");
			printf("}%s\n", k + 1 < N_CARDS ? "," : "");
		}
		printf("  ],\n  \"gpu_fit\": [\n");
	} else {
		printf("%s fine-tuning of %s, shard %s: total GB per GPU on 1, 2, 4, 8 cards\n",
		       fs_train_method_name(c->method), c->model->id,
		       fs_train_shard_name(c->shard));
		printf("  (weights+grads+master+moments+gathered / activations / reserve)\n");
		for (size_t k = 0; k < N_CARDS; k++)
			printf("  %d card%s: %.2f = %.2f + %.2f + %.2f\n", CARDS[k],
			       CARDS[k] > 1 ? "s" : " ", p[k].total_bytes / GB,
			       (p[k].total_bytes - p[k].activation_bytes - p[k].reserve_bytes) / GB,
			       p[k].activation_bytes / GB, p[k].reserve_bytes / GB);
		printf("%-16s %7s", "gpu", "mem GB");
		for (size_t k = 0; k < N_CARDS; k++)
			printf("  %d card%s    ", CARDS[k], CARDS[k] > 1 ? "s" : " ");
		printf("  fewest\n");
	}
	for (size_t i = 0; i < n; i++) {
		const struct fs_gpu_spec *g = i < n_file ? &cf->gpus[i] :
		                              fs_catalog_gpu_at(i - n_file);
		int fewest = 0;

		for (size_t k = 0; k < N_CARDS && fewest == 0; k++)
			if (p[k].total_bytes <= g->mem_bytes)
				fewest = CARDS[k];
		if (json) {
			printf("    {\"gpu\": ");
			print_json_str(g->id);
			printf(", \"mem_bytes\": %.0f, \"fits\": [", g->mem_bytes);
			for (size_t k = 0; k < N_CARDS; k++)
				printf("%s%s", k > 0 ? ", " : "",
				       p[k].total_bytes <= g->mem_bytes ? "true" : "false");
			printf("], \"fewest_gpus\": %d}%s\n", fewest, i + 1 < n ? "," : "");
			continue;
		}
		printf("%-16s %7.1f", g->id, g->mem_bytes / GB);
		for (size_t k = 0; k < N_CARDS; k++)
			printf("  %7.2f %-3s", p[k].total_bytes / GB,
			       p[k].total_bytes <= g->mem_bytes ? "yes" : "no");
		if (fewest > 0)
			printf("  %d\n", fewest);
		else
			printf("  >8\n");
	}
	if (json)
		printf("  ]\n}\n");
	return FS_EXIT_OK;
}

int fs__cli_estimate_train(int argc, char **argv)
{
	struct topts o;
	struct fs_error err;
	struct fs_catalog_file *cf = NULL;
	struct fs_model_spec own_model;
	struct fs_train_mem plan;
	const struct fs_gpu_spec *gpu = NULL;
	int rc = parse_args(argc, argv, &o);

	if (rc != 0)
		return rc == 1 ? FS_EXIT_OK : rc;
	/* cf and own_model live until the end: o.cfg points into them. */
	if (fs__cli_estimate_load_model(o.catalog_path, o.model_config, o.model, &cf,
	                                &own_model, &o.cfg.model) != 0)
		return FS_EXIT_INPUT;
	if (o.gpu != NULL)
		gpu = fs__cli_estimate_find_gpu(cf, o.gpu);
	if (o.cfg.model == NULL || (o.gpu != NULL && gpu == NULL)) {
		rc = FS_EXIT_INPUT;
	} else if (resolve_seq(&o) != 0) {
		rc = FS_EXIT_INPUT;
	} else if (o.table) {
		rc = print_table(&o.cfg, cf, o.json);
	} else if (fs_train_mem_plan(&o.cfg, &plan, &err) != 0) {
		fs__cli_estimate_print_error(&err);
		rc = FS_EXIT_INPUT;
	} else {
		if (o.json)
			print_one_json(&o.cfg, gpu, &plan);
		else
			print_one_text(&o.cfg, gpu, &plan);
		rc = FS_EXIT_OK;
		if (plan.total_bytes > gpu->mem_bytes) {
			fprintf(stderr, "fleetsim estimate: does not fit: %.2f GB per GPU "
			        "needed, %s has %.2f GB (%.2f GiB total_memory)\n",
			        plan.total_bytes / GB, gpu->id, gpu->mem_bytes / GB,
			        gpu->mem_bytes / 1073741824.0);
			rc = FS_EXIT_INPUT;
		}
	}
	fs_catalog_file_free(cf);
	fs_model_config_fini(&own_model);
	if (rc == FS_EXIT_OK && fflush(stdout) != 0) {
		fprintf(stderr, "fleetsim estimate: cannot write to standard output\n");
		return FS_EXIT_RUNTIME;
	}
	return rc;
}
