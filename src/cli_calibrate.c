/*
 * cli_calibrate.c — `fleetsim calibrate`: read measured step times or whole
 * `vllm bench latency` runs (CSV) and `vllm bench serve` results (JSON), fit the step model's efficiency and
 * overhead terms of one GPU (calibrate.c), print the errors before and after
 * with cross-validation, and write a catalogue override a scenario includes.
 */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "cli.h"
#include "fleetsim/catalog.h"
#include "fleetsim/out_format.h"
#include "fleetsim/outfile.h"
#include "fleetsim/perf.h"

static const char help_text[] =
	"usage: fleetsim calibrate MEASUREMENTS... --model M --gpu G [--tp N]\n"
	"                          [--max-num-batched-tokens N] [-o FILE]\n"
	"\n"
	"Fit the step-time model's efficiency and overhead terms of GPU G (mfu, mbu,\n"
	"iteration_overhead, per_seq_overhead: those the measurements identify; the\n"
	"others, and layer_overhead and allreduce_latency, keep their catalogue\n"
	"values) by nonlinear least squares on relative errors, serving model M at\n"
	"tensor-parallel degree N (default 1).  Prints every point's error before\n"
	"and after, the k-fold cross-validation error (k = min(5, points)), and the\n"
	"fitted terms.\n"
	"\n"
	"MEASUREMENTS: files ending in .json are `vllm bench serve` result JSON,\n"
	"one object or an array of them (mean lengths from the token totals or,\n"
	"without them, from input/output/request throughputs)\n"
	"(median TPOT -> a decode step at the run's concurrency; median TTFT at\n"
	"concurrency 1 -> a prefill of the mean input length; with --save-detailed's\n"
	"per-request arrays at concurrency 1, one prefill and one decode point per\n"
	"request); any other file is a\n"
	"CSV with the header columns batch, prefill_tokens, decode_tokens, context,\n"
	"ms (any order; '#' lines skipped): one measured step per row; or, when the\n"
	"header has latency_ms, the columns batch, input_len, output_len, latency_ms:\n"
	"one whole `vllm bench latency` run per row (its average latency), modelled\n"
	"as the prefill of batch x input_len tokens in steps of at most the token\n"
	"budget, then output_len - 1 decode steps of the batch, summed step by step;\n"
	"or, when the header has ttft_ms, the columns prompt_tokens, output_tokens,\n"
	"ttft_ms and optional tpot_ms: one request measured alone (concurrency 1)\n"
	"per row -> a batch-1 prefill and a batch-1 decode step.\n"
	"\n"
	"  --max-num-batched-tokens N\n"
	"                     the token budget of a prefill step in whole-run rows\n"
	"                     (default max(model context, 2048): vLLM V0 without\n"
	"                     chunked prefill)\n"
	"  -o FILE            write the catalogue override (a `catalog` object:\n"
	"                     {\"gpus\": [{\"id\": G, \"base\": G, ...}]}) for\n"
	"                     `fleetsim estimate --catalog FILE` or a scenario;\n"
	"                     checked before any work\n"
	"\n"
	"A value outside its range (token counts within the model's context; the\n"
	"table in docs/CALIBRATE.md, Ranges) exits 2 at its file:line:col.\n"
	"Details: docs/CALIBRATE.md.\n";

struct opts {
	const char *model, *gpu, *out;
	int64_t tp;
	int64_t budget_tokens;             /* 0 = the default rule */
	const char *files[256];
	int n_files;
};

enum { OPT_MODEL = 256, OPT_GPU, OPT_TP, OPT_BUDGET };

/* A measurements file, after those before it. */
static int add_file(struct opts *o, const char *path)
{
	if (o->n_files == 256)
		return fs__cli_usage_error("calibrate", "at most 256 files");
	o->files[o->n_files++] = path;
	return 0;
}

/* One option getopt_long returned (c, with optarg); 0, 1 after --help, or
 * FS_EXIT_INPUT after the message. */
static int take_option(int c, char **argv, struct opts *o)
{
	switch (c) {
	case 'h':
		fputs(help_text, stdout);
		return 1;
	case 1:                                /* an operand, in order */
		return add_file(o, optarg);
	case 'o':
		o->out = optarg;
		return 0;
	case OPT_MODEL:
		o->model = optarg;
		return 0;
	case OPT_GPU:
		o->gpu = optarg;
		return 0;
	case OPT_TP:
		return fs__cli_parse_int("calibrate", "--tp", optarg, 1, 64, &o->tp) < 0 ?
		       FS_EXIT_INPUT : 0;
	case OPT_BUDGET:
		return fs__cli_parse_int("calibrate", "--max-num-batched-tokens", optarg, 1,
		                         100000000, &o->budget_tokens) < 0 ? FS_EXIT_INPUT : 0;
	case ':':
		return fs__cli_usage_error("calibrate", "option \"%s\" needs a value",
		                           argv[optind - 1]);
	default:
		return fs__cli_usage_error("calibrate", "unknown option \"%s\"",
		                           argv[optind - 1]);
	}
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "tp", required_argument, NULL, OPT_TP },
		{ "max-num-batched-tokens", required_argument, NULL, OPT_BUDGET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, rc;

	memset(o, 0, sizeof *o);
	o->tp = 1;
	optind = 1;
	opterr = 0;
	/* '-' first: files come back in order (case 1) wherever they stand */
	while ((c = fs__cli_getopt(argc, argv, "-:o:h", longopts)) != -1)
		if ((rc = take_option(c, argv, o)) != 0)
			return rc;
	for (; optind < argc; optind++)        /* the files after "--" */
		if ((rc = add_file(o, argv[optind])) != 0)
			return rc;
	if (o->model == NULL || o->gpu == NULL)
		return fs__cli_usage_error("calibrate", "--model and --gpu are required");
	if (o->n_files == 0)
		return fs__cli_usage_error("calibrate", "expected a measurements file");
	return 0;
}

static double rel(double pred, double meas)
{
	return pred / meas - 1.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of |relative error| over n predictions, NaN ones skipped. */
static double median_abs(const double *pred, const struct fs_cal_points *ps)
{
	double *e = fs_xmalloc(sizeof(double) * (ps->n + 1)), m = NAN;
	size_t i, k = 0;

	for (i = 0; i < ps->n; i++)
		if (!isnan(pred[i]))
			e[k++] = fabs(rel(pred[i], ps->pts[i].measured_ns));
	if (k > 0) {
		qsort(e, k, sizeof *e, cmp_double);
		m = k % 2 ? e[k / 2] : 0.5 * (e[k / 2 - 1] + e[k / 2]);
	}
	free(e);
	return m;
}

static double rms(const double *pred, const struct fs_cal_points *ps)
{
	double s = 0;
	size_t i, k = 0;

	for (i = 0; i < ps->n; i++)
		if (!isnan(pred[i])) {
			double r = rel(pred[i], ps->pts[i].measured_ns);

			s += r * r;
			k++;
		}
	return k > 0 ? sqrt(s / (double)k) : NAN;
}

static void print_value(int j, double v)
{
	if (j == FS_CAL_MFU || j == FS_CAL_MBU)
		printf("%12.4f", v);
	else
		printf("%9.1f us", v / 1e3);
}

static void print_report(const struct opts *o, const struct fs_cal_points *ps,
                         const struct fs_cal_result *r)
{
	size_t i;
	int j;

	printf("calibration of %s serving %s at TP %lld: %zu points, %d of %d terms fitted\n\n",
	       o->gpu, o->model, (long long)o->tp, ps->n, r->n_fitted, FS_CAL_N);
	/* a whole run shows its prompt tokens in all and its batch */
	printf("%-36s %8s %5s %5s %10s %10s %8s %10s %8s %8s\n", "point", "prefill",
	       "dec", "batch", "meas_ms", "before_ms", "err", "after_ms", "err", "cv_err");
	for (i = 0; i < ps->n; i++) {
		const struct fs_cal_point *p = &ps->pts[i];
		double m = p->measured_ns;
		int run = p->kind == FS_CAL_RUN;

		printf("%-36.36s %8lld %5lld %5lld %10.3f %10.3f %+7.1f%% %10.3f %+7.1f%% ",
		       p->where,
		       (long long)(run ? p->run.batch * p->run.input_len : p->shape.prefill_tokens),
		       (long long)(run ? p->run.batch : p->shape.decode_seqs),
		       (long long)(run ? p->run.batch : p->shape.n_seqs), m / 1e6,
		       r->pred_before_ns[i] / 1e6, 100 * rel(r->pred_before_ns[i], m),
		       r->pred_after_ns[i] / 1e6, 100 * rel(r->pred_after_ns[i], m));
		if (isnan(r->cv_pred_ns[i]))
			printf("%8s\n", "-");
		else
			printf("%+7.1f%%\n", 100 * rel(r->cv_pred_ns[i], m));
	}
	printf("\nerror (|model/measured - 1|)    median    rms\n");
	printf("  catalogue                   %7.2f%% %6.2f%%\n",
	       100 * median_abs(r->pred_before_ns, ps), 100 * rms(r->pred_before_ns, ps));
	printf("  fitted                      %7.2f%% %6.2f%%\n",
	       100 * median_abs(r->pred_after_ns, ps), 100 * rms(r->pred_after_ns, ps));
	printf("  %d-fold cross-validation     %7.2f%% %6.2f%%\n\n", r->k_folds,
	       100 * median_abs(r->cv_pred_ns, ps), 100 * rms(r->cv_pred_ns, ps));
	printf("%-20s %12s %12s %12s  %s\n", "term", "catalogue", "fitted", "std.err", "");
	for (j = 0; j < FS_CAL_N; j++) {
		printf("%-20s ", fs__cal_param_name(j));
		print_value(j, r->before.v[j]);
		printf(" ");
		print_value(j, r->after.v[j]);
		printf(" ");
		print_value(j, r->stderr_v[j]);
		printf("  %s\n", r->fitted[j] ? "fitted" : "kept (not identified by the data)");
	}
	printf("%-20s kept at catalogue values\n", "layer_overhead, allreduce_latency");
}

/* "123ns": a duration the catalogue reads back. */
static void add_ns(cJSON *o, const char *key, double ns)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lldns", (long long)llround(ns));
	cJSON_AddStringToObject(o, key, buf);
}

/* The override: the GPU replaced by itself with the fitted terms. */
static int write_override(const struct opts *o, const struct fs_gpu_spec *g,
                          const struct fs_cal_points *ps, const struct fs_cal_result *r)
{
	struct fs_error err;
	cJSON *root = cJSON_CreateObject();
	cJSON *gpu = cJSON_CreateObject();
	char notes[1024];
	int rc;

	cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "gpus"), gpu);
	cJSON_AddStringToObject(gpu, "id", g->id);
	cJSON_AddStringToObject(gpu, "base", g->id);
	fs_json_add_num(gpu, "mfu", r->after.v[FS_CAL_MFU]);
	fs_json_add_num(gpu, "mbu", r->after.v[FS_CAL_MBU]);
	add_ns(gpu, "iteration_overhead", r->after.v[FS_CAL_ITER]);
	add_ns(gpu, "per_seq_overhead", r->after.v[FS_CAL_SEQ]);
	snprintf(notes, sizeof notes, "calibrated on %zu measured points of %s at TP %lld",
	         ps->n, o->model, (long long)o->tp);
	cJSON_AddStringToObject(gpu, "notes", notes);
	rc = fs_outfile_write_json(o->out, root, &err);
	cJSON_Delete(root);
	if (rc < 0) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	printf("\nwrote %s (use with --catalog %s or as a scenario's \"catalog\")\n",
	       o->out, o->out);
	return FS_EXIT_OK;
}

/* The override file -o names, checked before any work: exit 2 with the
 * path when it cannot be written (a directory, a missing or read-only
 * directory). */
static int check_output(const char *path)
{
	struct fs_error err;

	if (fs_outfile_check_path(path, &err) == 0)
		return 0;
	fputs("fleetsim calibrate: output: ", stderr);
	fs_error_print(&err);
	return FS_EXIT_INPUT;
}

int fs__cli_calibrate(int argc, char **argv)
{
	struct opts o;
	struct fs_perf_cfg cfg;
	struct fs_cal_points ps = { 0 };
	struct fs_cal_result res;
	struct fs_error err;
	const struct fs_gpu_spec *g;
	const struct fs_model_spec *m;
	int rc, i;

	rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc == 1 ? FS_EXIT_OK : rc;
	g = fs_catalog_find_gpu(o.gpu);
	m = fs_catalog_find_model(o.model);
	if (g == NULL || m == NULL)
		return fs__cli_usage_error("calibrate", "unknown %s \"%s\"; see 'fleetsim catalog'",
		                           g == NULL ? "GPU" : "model",
		                           g == NULL ? o.gpu : o.model);
	fs_perf_cfg_defaults(&cfg, g, m);
	cfg.tp = (int)o.tp;
	if (fs_perf_cfg_check(&cfg, &err) < 0) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	if (o.out != NULL && check_output(o.out) != 0)
		return FS_EXIT_INPUT;
	for (i = 0; i < o.n_files; i++)
		if (fs__cal_read_file(o.files[i], m, &ps, &err) < 0) {
			fs_error_print(&err);
			free(ps.pts);
			return FS_EXIT_INPUT;
		}
	if (fs__cal_set_budget(&ps, o.budget_tokens > 0 ? o.budget_tokens
	                       : fs__cal_default_budget(m), &err) < 0) {
		fs_error_print(&err);
		free(ps.pts);
		return FS_EXIT_INPUT;
	}
	if (fs__cal_fit(&cfg, &ps, &res, &err) < 0) {
		char where[300];

		snprintf(where, sizeof where, "%s:1:1", o.files[o.n_files - 1]);
		if (err.where[0] == '\0')
			snprintf(err.where, sizeof err.where, "%s", where);
		fs_error_print(&err);
		free(ps.pts);
		return FS_EXIT_INPUT;
	}
	print_report(&o, &ps, &res);
	rc = o.out != NULL ? write_override(&o, g, &ps, &res) : FS_EXIT_OK;
	fs__cal_result_fini(&res);
	free(ps.pts);
	return rc;
}
