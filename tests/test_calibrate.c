/*
 * test_calibrate.c — fleetsim calibrate: parameters recovered from step
 * times the model itself generates with 3% noise, the override loading back
 * into `fleetsim estimate --catalog`, bad measurement files (exit 2 at
 * file:line:col, every value outside its documented range, duplicate
 * columns, rows longer than the header), the example vllm bench serve
 * results of tests/data, whole `vllm bench latency` runs (a hand-summed run,
 * the published PR 3240 series of docs/data), and -o and unknown options
 * refused before any work.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/calibrate.h"
#include "fleetsim/catalog.h"
#include "fleetsim/rng.h"
#include "util_test.h"

/* Known parameters, all different from the h100 catalogue entry. */
#define TRUE_MFU 0.55
#define TRUE_MBU 0.66
#define TRUE_ITER_NS 2500000
#define TRUE_SEQ_NS 60000
#define NOISE 0.03

/* The model every measurement here is of (its context: 131072 tokens). */
static const struct fs_model_spec *llama_8b(void)
{
	return fs_catalog_find_model("llama-3.1-8b");
}

static void setup_cfg(struct fs_perf_cfg *cfg)
{
	fs_perf_cfg_defaults(cfg, fs_catalog_find_gpu("h100"),
	                     fs_catalog_find_model("llama-3.1-8b"));
}

/* Write synthetic measurements; returns the number of rows. */
static int write_synthetic(const char *path)
{
	static const int prompts[] = { 128, 512, 1024, 2048, 4096 };
	static const int batches[] = { 1, 8, 32, 64, 128, 256 };
	static const int ctxs[] = { 512, 2048 };
	struct fs_perf_cfg cfg;
	struct fs_rng *rng = fs_rng_alloc(20250601, 0, FS_STREAM_ARRIVALS, 0);
	FILE *f = fopen(path, "w");
	size_t i, j;
	int n = 0;

	assert_non_null(f);
	setup_cfg(&cfg);
	cfg.mfu = TRUE_MFU;
	cfg.mbu = TRUE_MBU;
	cfg.iteration_overhead_ns = TRUE_ITER_NS;
	cfg.per_seq_overhead_ns = TRUE_SEQ_NS;
	fprintf(f, "# synthetic\nms,batch,prefill_tokens,decode_tokens,context\n");
	for (i = 0; i < 5 + 12; i++) {
		/* Box-Muller: a standard normal for 3% log-normal noise. */
		double z = sqrt(-2 * log(fs_rng_uniform_pos(rng))) *
		           cos(2 * M_PI * fs_rng_uniform(rng));
		double noise = exp(NOISE * z), ms;

		if (i < 5) {
			ms = (double)fs_perf_prefill_ns(&cfg, prompts[i]) / 1e6 * noise;
			fprintf(f, "%.6f,1,%d,0,0\n", ms, prompts[i]);
		} else {
			j = i - 5;
			ms = (double)fs_perf_decode_ns(&cfg, batches[j % 6], ctxs[j / 6]) / 1e6 *
			     noise;
			fprintf(f, "%.6f,%d,0,%d,%d\n", ms, batches[j % 6], batches[j % 6],
			        ctxs[j / 6]);
		}
		n++;
	}
	fclose(f);
	fs_rng_free(rng);
	return n;
}

static void recovers_known_parameters_within_the_noise(void **state)
{
	char *dir = fs_test_tmpdir(), path[512];
	struct fs_cal_points ps = { 0 };
	struct fs_cal_result res;
	struct fs_error err;
	struct fs_perf_cfg cfg;
	const double truth[FS_CAL_N] = { TRUE_MFU, TRUE_MBU, TRUE_ITER_NS, TRUE_SEQ_NS };
	int j, n;

	(void)state;
	snprintf(path, sizeof path, "%s/steps.csv", dir);
	n = write_synthetic(path);
	assert_int_equal(fs__cal_read_file(path, llama_8b(), &ps, &err), 0);
	assert_int_equal((int)ps.n, n);
	setup_cfg(&cfg);
	assert_int_equal(fs__cal_fit(&cfg, &ps, &res, &err), 0);
	assert_int_equal(res.n_fitted, FS_CAL_N);
	for (j = 0; j < FS_CAL_N; j++) {
		/* Tolerance from the noise: 4 standard errors, which the fit
		 * derives from the 3% scatter of its residuals; each must pin
		 * its term to 25% or better. */
		assert_true(res.stderr_v[j] > 0);
		assert_true(res.stderr_v[j] <= 0.25 * truth[j]);
		assert_true(fabs(res.after.v[j] - truth[j]) <= 4 * res.stderr_v[j]);
	}
	fs__cal_result_fini(&res);
	free(ps.pts);
	fs_test_tmpdir_free(dir);
}

static void override_loads_back_into_estimate(void **state)
{
	char *dir = fs_test_tmpdir(), csv[512], out[512], want[64];
	struct fs_cal_points ps = { 0 };
	struct fs_cal_result res;
	struct fs_error err;
	struct fs_perf_cfg cfg;
	struct fs_test_run r;

	(void)state;
	snprintf(csv, sizeof csv, "%s/steps.csv", dir);
	snprintf(out, sizeof out, "%s/h100_fit.json", dir);
	write_synthetic(csv);
	{
		const char *args[] = { "calibrate", csv, "--model", "llama-3.1-8b", "--gpu",
		                       "h100", "-o", out, NULL };

		r = fs_test_run_fleetsim(args);
		assert_int_equal(r.exit_code, 0);
		assert_non_null(strstr(r.out, "5-fold cross-validation"));
		fs_test_run_free(&r);
	}
	/* The fitted model's decode step, computed here from the same fit. */
	if (fs__cal_read_file(csv, llama_8b(), &ps, &err) < 0)
		fs_error_print(&err);
	assert_int_equal((int)ps.n, 17);
	setup_cfg(&cfg);
	assert_int_equal(fs__cal_fit(&cfg, &ps, &res, &err), 0);
	cfg.mfu = res.after.v[FS_CAL_MFU];
	cfg.mbu = res.after.v[FS_CAL_MBU];
	cfg.iteration_overhead_ns = (fs_ns)llround(res.after.v[FS_CAL_ITER]);
	cfg.per_seq_overhead_ns = (fs_ns)llround(res.after.v[FS_CAL_SEQ]);
	snprintf(want, sizeof want, " %.3f ms  (batch 32, context 2048",
	         (double)fs_perf_decode_ns(&cfg, 32, 2048) / 1e6);
	{
		const char *args[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "h100",
		                       "--catalog", out, NULL };

		r = fs_test_run_fleetsim(args);
		assert_int_equal(r.exit_code, 0);
		assert_non_null(strstr(r.out, want));
		fs_test_run_free(&r);
	}
	fs__cal_result_fini(&res);
	free(ps.pts);
	fs_test_tmpdir_free(dir);
}

/* Calibrate with the file `name` holding text, and -o: exit 2 with
 * file + where_suffix on stderr, nothing on stdout (no fit) and no
 * override written. */
static void expect_bad_file(const char *name, const char *text, const char *where_suffix)
{
	char *dir = fs_test_tmpdir(), path[512], out[512], where[1200];
	struct fs_test_run r;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(out, sizeof out, "%s/fit.json", dir);
	fs_test_write_file(path, text);
	{
		const char *args[] = { "calibrate", path, "--model", "llama-3.1-8b", "--gpu",
		                       "h100", "-o", out, NULL };

		r = fs_test_fleetsim_expect(args, 2);
	}
	snprintf(where, sizeof where, "%s%s", path, where_suffix);
	if (strstr(r.err, where) == NULL)
		print_error("expected \"%s\" in stderr: %s\n", where, r.err);
	assert_non_null(strstr(r.err, where));
	assert_string_equal(r.out, "");
	assert_false(fs_test_exists(dir, "fit.json"));
	fs_test_run_free(&r);
	fs_test_tmpdir_free(dir);
}

static void expect_bad(const char *text, const char *where_suffix)
{
	expect_bad_file("m.csv", text, where_suffix);
}

static void bad_measurements_exit_2_at_their_place(void **state)
{
	(void)state;
	expect_bad("batch,prefill_tokens,decode_tokens,ms\n1,128,0,30\n", ":1:1: header");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n1,128,0,0,30\n"
	           "\n8,0,8,1024,fast\n", ":4:12: measurements.ms");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n1,128,0,0,30\n",
	           ":1:1: measurements: expected at least 2 points");
}

static double median_of(const char *out, const char *label)
{
	const char *p = strstr(out, label);

	assert_non_null(p);
	return strtod(p + strlen(label), NULL);
}

static void vllm_bench_results_reduce_the_error(void **state)
{
	const char *args[] = { "calibrate", "tests/data/calibrate/synthetic_vllm_bench_c1.json",
	                       "tests/data/calibrate/synthetic_vllm_bench_c8.json",
	                       "tests/data/calibrate/synthetic_vllm_bench_c32.json", "--model",
	                       "llama-3.1-8b", "--gpu", "h100", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	double before, after;

	(void)state;
	assert_int_equal(r.exit_code, 0);
	/* 3 TPOT points and the concurrency-1 TTFT point. */
	assert_non_null(strstr(r.out, ": 4 points"));
	before = median_of(r.out, "  catalogue ");
	after = median_of(r.out, "  fitted ");
	assert_true(after < before / 2);
	fs_test_run_free(&r);
}

/* The rms column (second percentage) of the error row `label`. */
static double rms_of(const char *out, const char *label)
{
	const char *p = strstr(out, label);
	char *end;

	assert_non_null(p);
	strtod(p + strlen(label), &end);
	assert_true(*end == '%');
	return strtod(end + 1, NULL);
}

/* A published result (docs/data/nm-vllm-a10g-tp4-llama-2-7b-sharegpt.json:
 * nm-vllm's benchmark_serving on 4 x A10G at TP 4, Llama-2-7b-chat,
 * ShareGPT at 0.5, 1 and 2.5 requests/s; mean lengths from its throughputs)
 * is read, and the fit lowers the rms relative error it minimises against
 * the catalogue's defaults, whatever those defaults are. */
static void published_vllm_result_fit_beats_the_catalogue(void **state)
{
	const char *args[] = { "calibrate",
	                       "docs/data/nm-vllm-a10g-tp4-llama-2-7b-sharegpt.json",
	                       "--model", "llama-2-7b", "--gpu", "a10g", "--tp", "4", NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);
	double before, after;

	(void)state;
	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	/* three runs, each above concurrency 1.5: one TPOT point each */
	assert_non_null(strstr(r.out, ": 3 points"));
	before = rms_of(r.out, "  catalogue ");
	after = rms_of(r.out, "  fitted ");
	assert_true(after < before);
	assert_true(after < 100.0);          /* sanity: within a factor of two */
	fs_test_run_free(&r);
}

/* MODEL: C7 — a whole run is its prefill steps (budget 250 tokens: 2
 * prompts of 100, then 1) and output_len − 1 = 3 decode steps of 3
 * sequences at contexts 101, 102, 103, each the step model's time. */
static void whole_run_is_the_sum_of_its_steps(void **state)
{
	char *dir = fs_test_tmpdir(), path[512];
	struct fs_cal_points ps = { 0 };
	struct fs_cal_params p;
	struct fs_perf_cfg cfg;
	struct fs_step_shape s[5];
	struct fs_error err;
	double hand_ns = 0, got_ns;
	int i;

	(void)state;
	snprintf(path, sizeof path, "%s/runs.csv", dir);
	fs_test_write_file(path, "# tiny\nlatency_ms,output_len,input_len,batch\n12.5,4,100,3\n");
	assert_int_equal(fs__cal_read_file(path, llama_8b(), &ps, &err), 0);
	assert_int_equal((int)ps.n, 1);
	assert_int_equal(ps.pts[0].kind, FS_CAL_RUN);
	assert_int_equal((int)ps.pts[0].run.batch, 3);
	assert_int_equal((int)ps.pts[0].run.input_len, 100);
	assert_int_equal((int)ps.pts[0].run.output_len, 4);
	assert_near(ps.pts[0].measured_ns, 12.5e6, 1e-6, 0);
	/* a prompt longer than the budget is refused at its column */
	assert_int_equal(fs__cal_set_budget(&ps, 99, &err), -1);
	assert_non_null(strstr(err.where, "runs.csv:3:8"));
	assert_int_equal(fs__cal_set_budget(&ps, 250, &err), 0);

	setup_cfg(&cfg);
	p.v[FS_CAL_MFU] = 0.5;
	p.v[FS_CAL_MBU] = 0.6;
	p.v[FS_CAL_ITER] = 1e6;
	p.v[FS_CAL_SEQ] = 2e4;
	memset(s, 0, sizeof s);
	s[0].prefill_tokens = 200;                   /* 2 prompts of 100 */
	s[0].prefill_attn_tokens = 2 * 100 * 50;
	s[0].n_seqs = 2;
	s[1].prefill_tokens = 100;                   /* the third */
	s[1].prefill_attn_tokens = 100 * 50;
	s[1].n_seqs = 1;
	for (i = 2; i < 5; i++) {
		s[i].decode_seqs = 3;
		s[i].n_seqs = 3;
		s[i].decode_context_tokens = 3 * (100 + (i - 1));
	}
	for (i = 0; i < 5; i++)
		hand_ns += fs__cal_model_ns(&cfg, &p, &s[i]);
	got_ns = fs__cal_point_ns(&cfg, &p, &ps.pts[0]);
	assert_near(got_ns, hand_ns, 0, 1e-12);
	/* the overheads count once per step: 5 steps, 2 + 1 + 3 × 3 sequences */
	p.v[FS_CAL_ITER] += 1e6;
	p.v[FS_CAL_SEQ] += 1e3;
	assert_near(fs__cal_point_ns(&cfg, &p, &ps.pts[0]) - got_ns, 5e6 + 12e3, 1e-3, 0);
	/* with a budget for all three prompts: one prefill step of 300 */
	assert_int_equal(fs__cal_set_budget(&ps, 300, &err), 0);
	p.v[FS_CAL_ITER] -= 1e6;
	p.v[FS_CAL_SEQ] -= 1e3;
	s[0].prefill_tokens = 300;
	s[0].prefill_attn_tokens = 3 * 100 * 50;
	s[0].n_seqs = 3;
	hand_ns = 0;
	for (i = 0; i < 5; i++)
		if (i != 1)
			hand_ns += fs__cal_model_ns(&cfg, &p, &s[i]);
	assert_near(fs__cal_point_ns(&cfg, &p, &ps.pts[0]), hand_ns, 0, 1e-12);
	free(ps.pts);
	fs_test_tmpdir_free(dir);
}

/* The published series of vllm-project/vllm PR 3240 (Mixtral-8x7B, A100
 * TP 2, benchmark_latency at batch 1..64): calibrating lowers both the
 * median and the rms error against the catalogue, whatever its defaults. */
static void published_latency_runs_fit_beats_the_catalogue(void **state)
{
	const char *args[] = { "calibrate",
	                       "docs/data/vllm-pr3240-mixtral-a100-tp2-latency.csv",
	                       "--model", "mixtral-8x7b", "--gpu", "a100-80g", "--tp", "2",
	                       NULL };
	struct fs_test_run r = fs_test_run_fleetsim(args);

	(void)state;
	if (r.exit_code != 0)
		print_error("stderr: %s\n", r.err);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, ": 7 points"));
	assert_true(median_of(r.out, "  fitted ") < median_of(r.out, "  catalogue "));
	assert_true(rms_of(r.out, "  fitted ") < rms_of(r.out, "  catalogue "));
	fs_test_run_free(&r);
}

static void bad_whole_run_rows_exit_2_at_their_place(void **state)
{
	(void)state;
	expect_bad("batch,input_len,output_len,latency_ms\n1,1000,50,845\n1,1000,0,900\n",
	           ":3:8: measurements.output_len: expected a whole number from 1 to ");
	expect_bad("# runs\nbatch,input_len,output_len,latency_ms\n0,1000,50,845\n",
	           ":3:1: measurements.batch");
	expect_bad("batch,input_len,output_len,latency_ms\n2,1000,50,-3\n",
	           ":2:11: measurements.latency_ms");
	expect_bad("batch,input_len,output_len,latency_ms\n2,1000,50\n",
	           ":2:10: measurements.latency_ms");
	/* longer than the default budget of llama-3.1-8b (its context) */
	expect_bad("batch,input_len,output_len,latency_ms\n1,1000,50,845\n"
	           "2,9000000,50,900\n", ":3:3: measurements.input_len");
}

/* Single requests measured alone (MODEL: C8), as a CSV and as the detail
 * arrays of a vllm bench serve result: each request is a batch-1 prefill
 * and a batch-1 decode point; noise-free requests generated by the model
 * with known terms give those terms back. */
static void single_requests_give_back_the_terms(void **state)
{
	static const int prompts[] = { 64, 256, 512, 1024, 2048, 4096 };
	static const int outputs[] = { 128, 256, 64, 512, 100, 300 };
	char *dir = fs_test_tmpdir(), csv[512], json[512];
	struct fs_cal_points a = { 0 }, b = { 0 };
	struct fs_cal_result res;
	struct fs_perf_cfg truth, cfg;
	struct fs_error err;
	FILE *f, *g;
	size_t i;

	(void)state;
	setup_cfg(&truth);
	truth.mfu = TRUE_MFU;
	truth.mbu = TRUE_MBU;
	truth.iteration_overhead_ns = TRUE_ITER_NS;
	truth.per_seq_overhead_ns = TRUE_SEQ_NS;
	snprintf(csv, sizeof csv, "%s/requests.csv", dir);
	snprintf(json, sizeof json, "%s/detail.json", dir);
	f = fopen(csv, "w");
	g = fopen(json, "w");
	assert_non_null(f);
	assert_non_null(g);
	fputs("prompt_tokens,output_tokens,ttft_ms,tpot_ms\n", f);
	fputs("{\"median_tpot_ms\": 9, \"median_ttft_ms\": 30, \"mean_ttft_ms\": 30, "
	      "\"mean_tpot_ms\": 9, \"request_throughput\": 1, \"completed\": 6, "
	      "\"total_input_tokens\": 7000, \"total_output_tokens\": 1300, "
	      "\"max_concurrency\": 1", g);
	{
		char in_s[256] = "", out_s[256] = "", ttft_s[512] = "", itl_s[1024] = "";

		for (i = 0; i < 6; i++) {
			double ttft = (double)fs_perf_prefill_ns(&truth, prompts[i]) / 1e6;
			double tpot = (double)fs_perf_decode_ns(&truth, 1, prompts[i] +
			                                        outputs[i] / 2) / 1e6;
			const char *sep = i ? ", " : "";

			fprintf(f, "%d,%d,%.9f,%.9f\n", prompts[i], outputs[i], ttft, tpot);
			snprintf(in_s + strlen(in_s), sizeof in_s - strlen(in_s), "%s%d", sep,
			         prompts[i]);
			snprintf(out_s + strlen(out_s), sizeof out_s - strlen(out_s), "%s%d", sep,
			         outputs[i]);
			snprintf(ttft_s + strlen(ttft_s), sizeof ttft_s - strlen(ttft_s), "%s%.12f",
			         sep, ttft / 1e3);
			snprintf(itl_s + strlen(itl_s), sizeof itl_s - strlen(itl_s),
			         "%s[%.12f, %.12f]", sep, tpot / 1e3, tpot / 1e3);
		}
		fprintf(g, ", \"input_lens\": [%s], \"output_lens\": [%s], \"ttfts\": [%s], "
		        "\"itls\": [%s]}\n", in_s, out_s, ttft_s, itl_s);
	}
	fclose(f);
	fclose(g);
	assert_int_equal(fs__cal_read_file(csv, llama_8b(), &a, &err), 0);
	assert_int_equal((int)a.n, 12);
	assert_int_equal(fs__cal_read_file(json, llama_8b(), &b, &err), 0);
	assert_int_equal((int)b.n, 12);
	for (i = 0; i < a.n; i++)          /* the same points either way */
		assert_true(fabs(a.pts[i].measured_ns / b.pts[i].measured_ns - 1) < 1e-6);
	setup_cfg(&cfg);
	assert_int_equal(fs__cal_fit(&cfg, &a, &res, &err), 0);
	/* at batch 1 the per-sequence cost is the per-step one (C3): three
	 * terms, and the step's fixed cost is their sum */
	assert_int_equal(res.n_fitted, 3);
	assert_int_equal(res.fitted[FS_CAL_SEQ], 0);
	assert_near(res.after.v[FS_CAL_MFU], TRUE_MFU, 0, 0.01);
	assert_near(res.after.v[FS_CAL_MBU], TRUE_MBU, 0, 0.01);
	assert_near(res.after.v[FS_CAL_ITER] + res.after.v[FS_CAL_SEQ],
	            TRUE_ITER_NS + TRUE_SEQ_NS, 0, 0.01);
	fs__cal_result_fini(&res);
	free(a.pts);
	free(b.pts);
	fs_test_tmpdir_free(dir);
	/* a request without a positive TTFT is refused at its cell */
	expect_bad("prompt_tokens,output_tokens,ttft_ms\n128,10,0\n",
	           ":2:8: measurements.ttft_ms");
}

/* Token counts are bounded by the model's context (llama-3.1-8b: 131072)
 * and every message states the whole range, not only its lower end. */
static void csv_values_outside_their_range_state_it(void **state)
{
	(void)state;
	/* 2^31 output tokens: above the context, not "below 1" */
	expect_bad("batch,input_len,output_len,latency_ms\n1,1000,50,845\n"
	           "1,1000,2147483648,900\n", ":3:8: measurements.output_len: expected a "
	           "whole number from 1 to 130072 (input_len + output_len within the "
	           "131072-token context of llama-3.1-8b), found \"2147483648\"");
	expect_bad("batch,input_len,output_len,latency_ms\n1,131072,1,900\n",
	           ":2:3: measurements.input_len: expected a whole number from 1 to 131071");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n1,128,0,0,30\n"
	           "8,0,8,99999999999,9\n", ":3:7: measurements.context: expected a "
	           "number from 0 to 131072");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n1,128,0,0,30\n"
	           "0,0,8,999,9\n", ":3:1: measurements.batch: expected a whole number "
	           "from 1 to 65536 (sequences in one step), found \"0\"");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n8,0,9,999,9\n",
	           ":2:5: measurements.decode_tokens: expected a whole number from 0 to 8");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n2,262145,0,0,9\n",
	           ":2:3: measurements.prefill_tokens: expected a whole number from 0 to "
	           "262144");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n1,0,0,0,9\n",
	           ":2:3: measurements.prefill_tokens: expected a whole number >= 1 when "
	           "decode_tokens is 0");
	expect_bad("prompt_tokens,output_tokens,ttft_ms\n128,131000,10\n",
	           ":2:5: measurements.output_tokens: expected a whole number from 1 to "
	           "130944");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n1,128,0,0,1e10\n",
	           ":2:11: measurements.ms: expected a number > 0 and <= 1000000000");
}

/* A column named twice, or a row longer or shorter than the header, is
 * refused at its place instead of the last copy winning. */
static void csv_duplicate_columns_and_extra_fields_are_refused(void **state)
{
	(void)state;
	expect_bad("batch,batch,prefill_tokens,decode_tokens,context,ms\n1,5,128,0,0,30\n",
	           ":1:7: header: expected each column name once, found \"batch\" again "
	           "(first at column 1)");
	expect_bad("batch,prefill_tokens,decode_tokens,context,ms\n1,128,0,0,30,7,7\n",
	           ":2:14: measurements: expected 5 fields, as the header has, found 7");
	expect_bad("batch,input_len,output_len,latency_ms,note\n1,1000,50,845\n",
	           ":2:14: measurements: expected 5 fields, as the header has, found 4");
}

/* The keys of a vllm bench serve result, one a line from line 2 (so key i's
 * value is at line i + 2, column strlen(key) + 7), with their values. */
static const char *const SERVE_KEYS[][2] = {
	{ "completed", "200" }, { "total_input_tokens", "204800" },
	{ "total_output_tokens", "25600" }, { "request_throughput", "0.11" },
	{ "median_ttft_ms", "52.3" }, { "mean_ttft_ms", "52.3" },
	{ "median_tpot_ms", "8.1" }, { "mean_tpot_ms", "8.1" },
	{ "max_concurrency", "1" },
};
#define N_SERVE_KEYS (sizeof SERVE_KEYS / sizeof SERVE_KEYS[0])

/* The result with key's value replaced by value (NULL: key left out). */
static void serve_text(const char *key, const char *value, char *buf, size_t len)
{
	size_t i, used = (size_t)snprintf(buf, len, "{\n");

	for (i = 0; i < N_SERVE_KEYS; i++) {
		int mine = strcmp(SERVE_KEYS[i][0], key) == 0;

		if (mine && value == NULL)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s  \"%s\": %s",
		                         used > 2 ? ",\n" : "", SERVE_KEYS[i][0],
		                         mine ? value : SERVE_KEYS[i][1]);
	}
	snprintf(buf + used, len - used, "\n}\n");
}

/* The result with key = value exits 2 at the value, the key's path and msg. */
static void expect_bad_serve(const char *key, const char *value, const char *msg)
{
	char text[1024], where[600];
	size_t i;

	for (i = 0; i < N_SERVE_KEYS && strcmp(SERVE_KEYS[i][0], key) != 0; i++)
		;
	assert_true(i < N_SERVE_KEYS);
	serve_text(key, value, text, sizeof text);
	if (value == NULL)                     /* a missing key: at the object */
		snprintf(where, sizeof where, ":1:1: %s: %s", key, msg);
	else
		snprintf(where, sizeof where, ":%zu:%zu: %s: %s", i + 2, strlen(key) + 7,
		         key, msg);
	expect_bad_file("serve.json", text, where);
}

/* Every key of a vllm bench serve result is checked against its range:
 * whole counts, finite times, mean lengths within the model's context, a
 * max_concurrency that is a whole number of sequences; the error names the
 * key at its line and column, and nothing is written. */
static void serve_values_outside_their_range_exit_2_at_their_key(void **state)
{
	static const char *const bad_conc[] = { "-1", "0", "\"abc\"", "1e308", "100000",
	                                        "1.5", "true" };
	char msg[200];
	size_t i;

	(void)state;
	expect_bad_serve("total_input_tokens", "1e308", "expected a whole number from 0 "
	                 "to 9007199254740992 (tokens of all successful requests), found "
	                 "1e308");
	expect_bad_serve("median_tpot_ms", "1e308", "expected a number from 0 to "
	                 "1000000000 (ms; 0 when no request had two tokens), found 1e308");
	expect_bad_serve("completed", "0.5", "expected a whole number from 1 to "
	                 "9007199254740992 (successful requests), found 0.5");
	expect_bad_serve("total_input_tokens", "0", "expected total_input_tokens / "
	                 "completed, the mean per request, to be a number from 1 to 131072 "
	                 "(prompt tokens, at most the context of llama-3.1-8b), found 0 / "
	                 "200 = 0");
	/* 200 prompts of 1024 as one of 204800: longer than the context */
	expect_bad_file("serve.json", "{\"completed\": 1, \"total_input_tokens\": 204800, "
	                "\"total_output_tokens\": 128, \"request_throughput\": 0.11, "
	                "\"median_ttft_ms\": 52.3, \"mean_ttft_ms\": 52.3, "
	                "\"median_tpot_ms\": 8.1, \"mean_tpot_ms\": 8.1}",
	                ":1:40: total_input_tokens: expected total_input_tokens / completed, "
	                "the mean per request, to be a number from 1 to 131072");
	expect_bad_serve("total_output_tokens", "26214400", "expected total_output_tokens "
	                 "/ completed, the mean per request, to be a number from 0 to "
	                 "130048");
	expect_bad_serve("request_throughput", "0", "expected a number > 0 and <= "
	                 "1000000000 (requests per second), found 0");
	expect_bad_serve("median_ttft_ms", NULL, "expected a number > 0 and <= "
	                 "1000000000 (ms), found none");
	for (i = 0; i < sizeof bad_conc / sizeof bad_conc[0]; i++) {
		snprintf(msg, sizeof msg, "expected a whole number from 1 to 65536 (sequences "
		         "decoding together; null or absent: estimated by Little's law), "
		         "found %s", bad_conc[i]);
		expect_bad_serve("max_concurrency", bad_conc[i], msg);
	}
}

/* What vllm bench serve writes when a run set no --max-concurrency, null,
 * is read as an absent key: the concurrency from Little's law (here 0.12,
 * so the same two points as max_concurrency 1). */
static void serve_max_concurrency_null_is_estimated(void **state)
{
	char *dir = fs_test_tmpdir(), text[1024], *path;
	struct fs_cal_points ps = { 0 };
	struct fs_error err;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		serve_text("max_concurrency", i == 0 ? "null" : NULL, text, sizeof text);
		path = fs_test_write(dir, "serve.json", text);
		assert_int_equal(fs__cal_read_file(path, llama_8b(), &ps, &err), 0);
		free(path);
	}
	assert_int_equal((int)ps.n, 4);
	for (i = 0; i < 2; i++) {
		assert_int_equal((int)ps.pts[i].shape.n_seqs, 1);
		assert_int_equal((int)ps.pts[i + 2].shape.n_seqs, 1);
		assert_near(ps.pts[i].measured_ns, ps.pts[i + 2].measured_ns, 0, 0);
	}
	free(ps.pts);
	fs_test_tmpdir_free(dir);
}

/* In an array of results the path names the element; a bad per-request
 * entry of --save-detailed's arrays is refused at its index; a failed read
 * leaves the points read before it as they were. */
static void serve_array_and_detail_errors_name_their_element(void **state)
{
	static const char *const good =
		"\"median_tpot_ms\": 9, \"median_ttft_ms\": 30, \"mean_ttft_ms\": 30, "
		"\"mean_tpot_ms\": 9, \"request_throughput\": 1, \"completed\": 2, "
		"\"total_input_tokens\": 200, \"total_output_tokens\": 20";
	char *dir = fs_test_tmpdir(), text[2048], *path;
	struct fs_cal_points ps = { 0 };
	struct fs_error err;

	(void)state;
	snprintf(text, sizeof text, "[{%s, \"max_concurrency\": 4},\n {%s, "
	         "\"max_concurrency\": 0}]\n", good, good);
	path = fs_test_write(dir, "series.json", text);
	assert_int_equal(fs__cal_read_file(path, llama_8b(), &ps, &err), -1);
	assert_string_equal(err.path, "[1].max_concurrency");
	assert_non_null(strstr(err.where, "series.json:2:"));
	assert_int_equal((int)ps.n, 0);        /* [0]'s point dropped again */
	free(path);
	snprintf(text, sizeof text, "{%s, \"max_concurrency\": 1, \"input_lens\": [100, "
	         "1e308], \"output_lens\": [10, 10], \"ttfts\": [0.03, 0.03], "
	         "\"itls\": [[0.009], [0.009]]}\n", good);
	path = fs_test_write(dir, "detail.json", text);
	assert_int_equal(fs__cal_read_file(path, llama_8b(), &ps, &err), -1);
	assert_string_equal(err.path, "input_lens[1]");
	assert_non_null(strstr(err.msg, "expected a whole number from 1 to 131072"));
	assert_int_equal((int)ps.n, 0);
	free(path);
	free(ps.pts);
	fs_test_tmpdir_free(dir);
}

/* -o is checked before any work (nothing printed, exit 2): a missing
 * directory, a directory given as the file; an unknown option says so
 * wherever it stands, in calibrate and in estimate alike. */
static void output_and_options_checked_before_any_work(void **state)
{
	char *dir = fs_test_tmpdir(), missing[512];
	const char *data = "tests/data/calibrate/synthetic_vllm_bench_c1.json";
	const char *const *cases[4];
	const char *const want[4] = {
		"fleetsim calibrate: output: ",
		"expected an output file, found a directory of that name",
		"fleetsim calibrate: unknown option \"--bogus\"",
		"fleetsim estimate: unknown option \"--bogus\"",
	};
	size_t i;

	(void)state;
	snprintf(missing, sizeof missing, "%s/no/fit.json", dir);
	{
		const char *a0[] = { "calibrate", data, "--model", "llama-3.1-8b", "--gpu",
		                     "h100", "-o", missing, NULL };
		const char *a1[] = { "calibrate", data, "--model", "llama-3.1-8b", "--gpu",
		                     "h100", "-o", dir, NULL };
		const char *a2[] = { "calibrate", data, "--model", "llama-3.1-8b", "--gpu",
		                     "h100", "--bogus", NULL };
		const char *a3[] = { "estimate", "--model", "llama-3.1-8b", "--gpu", "h100",
		                     "--bogus", NULL };

		cases[0] = a0;
		cases[1] = a1;
		cases[2] = a2;
		cases[3] = a3;
		for (i = 0; i < 4; i++) {
			struct fs_test_run r = fs_test_fleetsim_expect(cases[i], 2);

			assert_non_null(strstr(r.err, want[i]));
			assert_string_equal(r.out, "");
			fs_test_run_free(&r);
		}
	}
	assert_false(fs_test_exists(dir, "no"));
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recovers_known_parameters_within_the_noise),
		cmocka_unit_test(override_loads_back_into_estimate),
		cmocka_unit_test(bad_measurements_exit_2_at_their_place),
		cmocka_unit_test(vllm_bench_results_reduce_the_error),
		cmocka_unit_test(single_requests_give_back_the_terms),
		cmocka_unit_test(published_vllm_result_fit_beats_the_catalogue),
		cmocka_unit_test(whole_run_is_the_sum_of_its_steps),
		cmocka_unit_test(published_latency_runs_fit_beats_the_catalogue),
		cmocka_unit_test(bad_whole_run_rows_exit_2_at_their_place),
		cmocka_unit_test(csv_values_outside_their_range_state_it),
		cmocka_unit_test(csv_duplicate_columns_and_extra_fields_are_refused),
		cmocka_unit_test(serve_values_outside_their_range_exit_2_at_their_key),
		cmocka_unit_test(serve_max_concurrency_null_is_estimated),
		cmocka_unit_test(serve_array_and_detail_errors_name_their_element),
		cmocka_unit_test(output_and_options_checked_before_any_work),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
