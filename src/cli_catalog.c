/*
 * cli_catalog.c — `fleetsim catalog [gpus|models] [--catalog FILE] [--json]`:
 * print the GPU and model tables (built-ins, with a --catalog file's entries
 * replacing those of the same id and the others appended) as readable text,
 * or as JSON (keys carry their units) with sources and notes.  Reads the
 * catalogue only; all JSON nodes and lists are owned here and freed before
 * returning.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/billing.h"
#include "fleetsim/catalog.h"
#include "fleetsim/out_format.h"
#include "fleetsim/scenario.h"
#include "suggest.h"

static const char catalog_help[] =
	"usage: fleetsim catalog [gpus|models] [--catalog FILE] [--json]\n"
	"\n"
	"List the built-in GPUs (memory, bandwidth, dense FP16/BF16 and FP8 tensor\n"
	"TFLOPS, interconnect, TDP, example prices) and models (shape, parameters,\n"
	"context, KV-cache bytes per token).  With no argument, both tables.\n"
	"Prices are dated examples in USD per GPU, not quotes: override them in the\n"
	"scenario.  --json prints every field with units, sources and notes.\n"
	"--catalog FILE adds the GPUs and models of FILE ({\"gpus\": [...],\n"
	"\"models\": [...]}, docs/SCENARIO.md), replacing built-ins of the same id.\n"
	"Sources and caveats: docs/CATALOG.md.\n";

enum which { WHICH_BOTH, WHICH_GPUS, WHICH_MODELS };

/* The GPUs to show: every built-in (or cf's entry of the same id), then
 * cf's other entries.  Heap array of borrowed pointers; *n set. */
static const struct fs_gpu_spec **gpu_list(const struct fs_catalog_file *cf, size_t *n)
{
	size_t nb = fs_catalog_n_gpus(), nu = cf != NULL ? cf->n_gpus : 0, i, k = 0;
	const struct fs_gpu_spec **list = fs_xmalloc((nb + nu + 1) * sizeof *list);
	const struct fs_gpu_spec *b;

	for (i = 0; i < nb; i++)
		list[k++] = fs_catalog_file_find_gpu(cf, fs_catalog_gpu_at(i)->id);
	for (i = 0; i < nu; i++) {
		b = fs_catalog_find_gpu(cf->gpus[i].id);
		if (b == NULL || strcmp(b->id, cf->gpus[i].id) != 0)
			list[k++] = &cf->gpus[i];
	}
	*n = k;
	return list;
}

static const struct fs_model_spec **model_list(const struct fs_catalog_file *cf,
                                               size_t *n)
{
	size_t nb = fs_catalog_n_models(), nu = cf != NULL ? cf->n_models : 0, i, k = 0;
	const struct fs_model_spec **list = fs_xmalloc((nb + nu + 1) * sizeof *list);
	const struct fs_model_spec *b;

	for (i = 0; i < nb; i++)
		list[k++] = fs_catalog_file_find_model(cf, fs_catalog_model_at(i)->id);
	for (i = 0; i < nu; i++) {
		b = fs_catalog_find_model(cf->models[i].id);
		if (b == NULL || strcmp(b->id, cf->models[i].id) != 0)
			list[k++] = &cf->models[i];
	}
	*n = k;
	return list;
}

/* "-" for a missing (zero) figure, else the number with `decimals`. */
static void put_num(char *buf, size_t len, double x, int decimals)
{
	if (x == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", decimals, x);
}

static void print_gpus(const struct fs_catalog_file *cf, FILE *f)
{
	size_t i, n;
	const struct fs_gpu_spec **list = gpu_list(cf, &n), *g;
	char fp8[16], tdp[16], od[16], spot[16], month[16];

	fprintf(f, "%-14s %6s %7s %7s %7s %7s  %-24s %5s %6s %6s %7s  %s\n",
	        "gpu", "mem GB", "mem GiB", "BW GB/s", "FP16 TF", "FP8 TF", "interconnect",
	        "TDP W", "OD $/h", "spot", "$/month", "price date");
	for (i = 0; i < n; i++) {
		g = list[i];
		put_num(fp8, sizeof fp8, g->fp8_flops_per_s / 1e12, 1);
		put_num(tdp, sizeof tdp, g->tdp_w, 0);
		put_num(od, sizeof od, g->price_on_demand_usd_per_h, 2);
		put_num(spot, sizeof spot, g->price_spot_usd_per_h, 2);
		put_num(month, sizeof month, g->price_monthly_usd, 0);
		fprintf(f, "%-14s %6.1f %7.2f %7.0f %7.1f %7s  %-24s %5s %6s %6s %7s  %s\n",
		        g->id, g->mem_bytes / 1e9, g->mem_bytes / 1073741824.0,
		        g->mem_bw_bytes_per_s / 1e9,
		        g->fp16_flops_per_s / 1e12, fp8, g->interconnect, tdp, od, spot,
		        month, g->price_date[0] != '\0' ? g->price_date : "-");
	}
	free(list);
	fputs("mem: what vLLM sees (torch total_memory; marketing GB where no\n"
	      "measurement was found, docs/MODEL.md P0), in GB (1e9) and GiB (2^30).\n"
	      "TFLOPS dense.  Prices: dated examples, USD per GPU (\"-\": no anchor);\n"
	      "$/month derived from on-demand; daily, weekly and yearly plans too\n"
	      "(--json \"price_plans_usd\"; docs/MODEL.md B7).  Sources and caveats:\n"
	      "--json or docs/CATALOG.md.\n", f);
}

static void print_models(const struct fs_catalog_file *cf, FILE *f)
{
	size_t i, n;
	const struct fs_model_spec **list = model_list(cf, &n), *m;
	char heads[24];

	fprintf(f, "%-15s %6s %6s %8s %6s %6s %8s %8s %8s %10s\n",
	        "model", "layers", "hidden", "heads/kv", "FFN", "vocab",
	        "params B", "active B", "max ctx", "KV KiB/tok");
	for (i = 0; i < n; i++) {
		m = list[i];
		snprintf(heads, sizeof heads, "%d/%d", m->heads, m->kv_heads);
		fprintf(f, "%-15s %6d %6d %8s %6d %6d %8.2f %8.2f %8lld %10.0f\n",
		        m->id, m->layers, m->hidden, heads, m->ffn, m->vocab,
		        m->params / 1e9, m->active_params / 1e9,
		        (long long)m->max_context_tokens,
		        (double)fs_catalog_kv_bytes_per_token(m, 2) / 1024.0);
	}
	free(list);
	fputs("KV KiB/tok: K and V over all layers in bf16.  FFN is per expert for "
	      "MoE.\n", f);
}

/* Rounded to 9 significant digits (fs_json_num), so derived figures such
 * as 0.6 x 730 x price print cleanly. */
static void add_num(cJSON *o, const char *key, double x)
{
	cJSON_AddItemToObject(o, key, fs_json_num(x));
}

static void add_str(cJSON *o, const char *key, const char *s)
{
	cJSON_AddItemToObject(o, key, cJSON_CreateString(s));
}

static cJSON *alias_array(const char *aliases)
{
	cJSON *a = cJSON_CreateArray();
	const char *p = aliases, *comma;
	char buf[256];
	size_t len;

	while (*p != '\0') {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		snprintf(buf, sizeof buf, "%.*s", (int)len, p);
		cJSON_AddItemToArray(a, cJSON_CreateString(buf));
		p += len + (comma != NULL);
	}
	return a;
}

static cJSON *gpu_json(const struct fs_gpu_spec *g)
{
	cJSON *o = cJSON_CreateObject(), *plans;
	int k;

	add_str(o, "id", g->id);
	cJSON_AddItemToObject(o, "aliases", alias_array(g->aliases));
	add_str(o, "display_name", g->display_name);
	add_num(o, "mem_bytes", g->mem_bytes);
	add_num(o, "mem_bw_bytes_per_s", g->mem_bw_bytes_per_s);
	add_num(o, "fp16_flops_per_s", g->fp16_flops_per_s);
	add_num(o, "fp8_flops_per_s", g->fp8_flops_per_s);
	add_num(o, "int8_ops_per_s", g->int8_ops_per_s);
	add_num(o, "link_bytes_per_s", g->link_bytes_per_s);
	add_str(o, "interconnect", g->interconnect);
	add_num(o, "tdp_w", g->tdp_w);
	add_num(o, "mfu", g->mfu);
	add_num(o, "mbu", g->mbu);
	/* the effective values (P9, P13): the GPU's own or the shared default */
	add_num(o, "mfu_8bit", g->mfu_8bit > 0 ? g->mfu_8bit
	                       : g->mfu * FS_GPU_MFU_8BIT_RATIO_DEFAULT);
	add_num(o, "attn_eff", g->attn_eff > 0 ? g->attn_eff : FS_GPU_ATTN_EFF_DEFAULT);
	add_num(o, "iteration_overhead_ns", (double)g->iteration_overhead_ns);
	add_num(o, "per_seq_overhead_ns", (double)g->per_seq_overhead_ns);
	add_num(o, "layer_overhead_ns", (double)g->layer_overhead_ns);
	add_num(o, "allreduce_latency_ns", (double)g->allreduce_latency_ns);
	add_num(o, "price_on_demand_usd_per_h", g->price_on_demand_usd_per_h);
	add_num(o, "price_spot_usd_per_h", g->price_spot_usd_per_h);
	add_num(o, "price_monthly_usd", g->price_monthly_usd);
	/* MODEL: B7 — every plan's fee per period, per GPU */
	plans = cJSON_AddObjectToObject(o, "price_plans_usd");
	for (k = 0; k < FS_PRICING__COUNT; k++)
		add_num(plans, fs_pricing_name((enum fs_pricing)k),
		        fs_billing_catalog_fee(g, (enum fs_pricing)k));
	add_str(o, "price_date", g->price_date);
	add_str(o, "price_source", g->price_source);
	add_str(o, "spec_source", g->spec_source);
	add_str(o, "notes", g->notes);
	return o;
}

static cJSON *model_json(const struct fs_model_spec *m)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "id", m->id);
	cJSON_AddItemToObject(o, "aliases", alias_array(m->aliases));
	add_str(o, "display_name", m->display_name);
	add_num(o, "layers", m->layers);
	add_num(o, "hidden", m->hidden);
	add_num(o, "heads", m->heads);
	add_num(o, "kv_heads", m->kv_heads);
	add_num(o, "head_dim", m->head_dim);
	add_num(o, "ffn", m->ffn);
	add_num(o, "vocab", m->vocab);
	add_num(o, "experts", m->experts);
	add_num(o, "experts_per_token", m->experts_per_token);
	add_num(o, "params", m->params);
	add_num(o, "active_params", m->active_params);
	add_num(o, "max_context_tokens", (double)m->max_context_tokens);
	add_num(o, "kv_bytes_per_token_bf16", (double)fs_catalog_kv_bytes_per_token(m, 2));
	add_str(o, "source", m->source);
	add_str(o, "notes", m->notes);
	return o;
}

static cJSON *gpus_json(const struct fs_catalog_file *cf)
{
	cJSON *a = cJSON_CreateArray();
	size_t i, n;
	const struct fs_gpu_spec **list = gpu_list(cf, &n);

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, gpu_json(list[i]));
	free(list);
	return a;
}

static cJSON *models_json(const struct fs_catalog_file *cf)
{
	cJSON *a = cJSON_CreateArray();
	size_t i, n;
	const struct fs_model_spec **list = model_list(cf, &n);

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, model_json(list[i]));
	free(list);
	return a;
}

/* Print the JSON for `which`: an array for one table, an object
 * {"gpus": [...], "models": [...]} for both.  0 on success. */
static int print_json(enum which which, const struct fs_catalog_file *cf, FILE *f)
{
	cJSON *root;
	char *text;
	int rc;

	if (which == WHICH_GPUS) {
		root = gpus_json(cf);
	} else if (which == WHICH_MODELS) {
		root = models_json(cf);
	} else {
		root = cJSON_CreateObject();
		cJSON_AddItemToObject(root, "gpus", gpus_json(cf));
		cJSON_AddItemToObject(root, "models", models_json(cf));
	}
	text = fs_json_text(root, FS_JSON_PRETTY | FS_JSON_NEWLINE);
	cJSON_Delete(root);
	rc = fputs(text, f) < 0 ? -1 : 0;
	free(text);
	return rc;
}

int fs__cli_catalog(int argc, char **argv)
{
	static const char *const tables[] = { "gpus", "models", NULL };
	enum which which = WHICH_BOTH;
	int i, json = 0, have_table = 0, rc = 0;
	const char *hint, *catalog_path = NULL;
	struct fs_catalog_file *cf = NULL;
	struct fs_error err;

	for (i = 1; i < argc; i++) {
		static const char *const valued[] = { "--catalog", NULL };
		char name[16];
		const char *inline_v = fs__cli_split_long(argv[i], valued, name, sizeof name);

		if (inline_v != NULL) {          /* --catalog=FILE */
			catalog_path = inline_v;
			continue;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(catalog_help, stdout);
			return FS_EXIT_OK;
		}
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
			continue;
		}
		if (strcmp(argv[i], "--catalog") == 0) {
			if (i + 1 >= argc)
				return fs__cli_usage_error("catalog", "option \"--catalog\" needs "
				                           "a value");
			catalog_path = argv[++i];
			continue;
		}
		if (argv[i][0] == '-')
			return fs__cli_usage_error("catalog", "unknown option \"%s\"", argv[i]);
		if (have_table)
			return fs__cli_usage_error("catalog", "expected one table, found a "
			                           "second: \"%s\"", argv[i]);
		if (strcmp(argv[i], "gpus") == 0) {
			which = WHICH_GPUS;
		} else if (strcmp(argv[i], "models") == 0) {
			which = WHICH_MODELS;
		} else {
			hint = fs__suggest_nearest(argv[i], tables);
			return fs__cli_usage_error("catalog", "expected \"gpus\" or \"models\", "
			                           "found \"%s\"%s%s%s", argv[i],
			                           hint != NULL ? " (did you mean \"" : "",
			                           hint != NULL ? hint : "",
			                           hint != NULL ? "\"?)" : "");
		}
		have_table = 1;
	}
	if (catalog_path != NULL) {
		cf = fs_catalog_file_load(catalog_path, &err);
		if (cf == NULL) {
			fs_error_print(&err);
			return FS_EXIT_INPUT;
		}
	}
	if (json) {
		rc = print_json(which, cf, stdout);
	} else {
		if (which != WHICH_MODELS)
			print_gpus(cf, stdout);
		if (which == WHICH_BOTH)
			fputc('\n', stdout);
		if (which != WHICH_GPUS)
			print_models(cf, stdout);
	}
	fs_catalog_file_free(cf);
	if (rc != 0 || fflush(stdout) != 0) {
		fprintf(stderr, "fleetsim catalog: cannot write to standard output\n");
		return FS_EXIT_RUNTIME;
	}
	return FS_EXIT_OK;
}
