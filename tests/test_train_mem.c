/*
 * test_train_mem.c — fine-tuning memory (src/train_mem.c, docs/MODEL.md
 * T1-T9) against hand computations: 7B 16-bit weights, 16 bytes per
 * parameter for mixed-precision AdamW, the LoRA closed form, ZeRO sharding
 * (and the ZeRO paper's Figure 1), NF4 constants, activations with and
 * without recomputation; then `fleetsim estimate --train` end to end, with
 * the options that do not apply to the method, repeated LoRA modules and a
 * sequence beyond the model's context refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/catalog.h"
#include "fleetsim/train.h"
#include "util_test.h"

/* Llama-2-7B by hand: embeddings + LM head 2 x 32000 x 4096 plus 65 norm
 * vectors of 4096 stay 16-bit; the rest (6.74e9 - that) is the body. */
#define L2_KEEP 262410240.0
#define L2_BODY (6.74e9 - L2_KEEP)
/* Per token per layer with FlashAttention: attention 12h (h = q = kv =
 * 4096) + FFN 4h + 8 x 11008 = 153600 bytes; loss 4h + 4 x 32000. */
#define L2_LAYER 153600.0
#define L2_LOSS 144384.0

static const struct fs_model_spec *model(const char *id)
{
	const struct fs_model_spec *m = fs_catalog_find_model(id);

	assert_non_null(m);
	return m;
}

static struct fs_train_mem plan(const struct fs_train_cfg *c)
{
	struct fs_train_mem p;
	struct fs_error err;

	if (fs_train_mem_plan(c, &p, &err) != 0)
		fail_msg("plan failed: %s", err.msg);
	return p;
}

static void test_train_mem_7b_16bit_weights_are_13_5_gb(void **state)
{
	struct fs_train_cfg c;
	struct fs_train_mem p;

	(void)state;
	fs_train_cfg_defaults(&c, model("llama-2-7b"));
	c.weight_dtype = FS_DTYPE_FP16;
	p = plan(&c);
	/* "~13.5 GB" is 6.74e9 parameters x 2 bytes = 13.48e9 bytes (12.55 GiB). */
	assert_near(p.weights_bytes, 13.48e9, 1, 0);
}

static void test_train_mem_full_adamw_is_16_bytes_per_parameter(void **state)
{
	static const char *const ids[] = { "llama-2-7b", "llama-3.1-70b", "gpt-oss-20b" };

	(void)state;
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		struct fs_train_cfg c;
		struct fs_train_mem p;
		double n;

		fs_train_cfg_defaults(&c, model(ids[i]));
		p = plan(&c);
		n = p.params;
		assert_near(p.weights_bytes / n, 2, 1e-12, 0);
		assert_near(p.grads_bytes / n, 2, 1e-12, 0);
		assert_near(p.master_bytes / n, 4, 1e-12, 0);
		assert_near(p.moments_bytes / n, 8, 1e-12, 0);
		assert_near((p.weights_bytes + p.grads_bytes + p.master_bytes +
		             p.moments_bytes) / n, 16, 1e-12, 0);
		assert_near(p.trainable_params, n, 0, 0);
	}
}

static void test_train_mem_lora_count_is_the_closed_form(void **state)
{
	const struct fs_model_spec *l2 = model("llama-2-7b");
	unsigned mods;

	(void)state;
	/* 32 layers x r 8 x ((4096 + 4096) for q + (4096 + 4096) for v). */
	assert_near(fs_train_lora_params(l2, FS_LORA_Q | FS_LORA_V, 8), 4194304, 0, 0);
	/* Llama-3.1-8B, all seven maps, r 16: 32 x 16 x (8192 + 5120 + 5120 +
	 * 8192 + 3 x (4096 + 14336)) = 41,943,040 (GQA: k and v are 1024 wide). */
	assert_int_equal(fs_train_lora_modules_parse("all", &mods, NULL), 0);
	assert_near(fs_train_lora_params(model("llama-3.1-8b"), mods, 16), 41943040, 0, 0);
	/* MoE: the gate map of each of 32 experts, 24 layers, r 1, 2880 + 2880. */
	assert_near(fs_train_lora_params(model("gpt-oss-20b"), FS_LORA_GATE, 1),
	            24.0 * 32 * 5760, 0, 0);
	/* Parsing: HF names, case, and refusals. */
	assert_int_equal(fs_train_lora_modules_parse("q_proj,V", &mods, NULL), 0);
	assert_int_equal(mods, FS_LORA_Q | FS_LORA_V);
	assert_int_equal(fs_train_lora_modules_parse("q,,v", &mods, NULL), -1);
	assert_int_equal(fs_train_lora_modules_parse("q,", &mods, NULL), -1);   /* names nothing */
	assert_int_equal(fs_train_lora_modules_parse(",q", &mods, NULL), -1);
	assert_int_equal(fs_train_lora_modules_parse("qq", &mods, NULL), -1);
	assert_int_equal(fs_train_lora_modules_parse("", &mods, NULL), -1);
}

static void test_train_mem_lora_state_is_16_bytes_per_adapter(void **state)
{
	struct fs_train_cfg c;
	struct fs_train_mem p;

	(void)state;
	fs_train_cfg_defaults(&c, model("llama-2-7b"));
	c.method = FS_TRAIN_LORA;
	c.lora_rank = 8;
	c.lora_modules = FS_LORA_Q | FS_LORA_V;
	p = plan(&c);
	assert_near(p.trainable_params, 4194304, 0, 0);
	assert_near(p.weights_bytes, 6.74e9 * 2 + 4194304 * 4.0, 1, 0);
	assert_near(p.grads_bytes, 4194304 * 4.0, 0, 0);
	assert_near(p.master_bytes, 0, 0, 0);
	assert_near(p.moments_bytes, 4194304 * 8.0, 0, 0);
	/* An 8-bit frozen base: the body at 1 byte, embeddings and norms at 2. */
	c.weight_dtype = FS_DTYPE_INT8;
	p = plan(&c);
	assert_near(p.weights_bytes, L2_BODY + L2_KEEP * 2 + 4194304 * 4.0, 1, 0);
}

static void test_train_mem_qlora_nf4_with_its_constants(void **state)
{
	struct fs_train_cfg c;
	struct fs_train_mem p;

	(void)state;
	fs_train_cfg_defaults(&c, model("llama-2-7b"));
	c.method = FS_TRAIN_QLORA;
	c.lora_rank = 8;
	c.lora_modules = FS_LORA_Q | FS_LORA_V;
	c.kbit_fp32_cast = 0;          /* the unquantised parameters in bf16 */
	p = plan(&c);
	/* Double quantisation: 4 bits + 8 bits per 64 + 32 bits per 64 x 256
	 * = 0.515869140625 bytes per body weight (QLoRA §3: 0.127 bits). */
	assert_near(p.weights_bytes, L2_BODY * 0.515869140625 + L2_KEEP * 2 +
	            4194304 * 4.0, 1, 0);
	assert_near(p.weights_bytes, 3883186358.8125, 1, 0);
	/* The default (T10): PEFT's k-bit preparation holds them in fp32. */
	c.kbit_fp32_cast = 1;
	p = plan(&c);
	assert_near(p.weights_bytes, L2_BODY * 0.515869140625 + L2_KEEP * 4 +
	            4194304 * 4.0, 1, 0);
	c.kbit_fp32_cast = 0;
	c.nf4_double_quant = 0;
	p = plan(&c);
	/* One fp32 constant per 64 weights: 4.5 bits. */
	assert_near(p.weights_bytes, L2_BODY * 0.5625 + L2_KEEP * 2 + 4194304 * 4.0, 1, 0);
}

/* T10: prepare_model_for_kbit_training casts Llama-3.1-8B's embedding,
 * LM head (2 x 128256 x 4096) and 65 norm vectors of 4096 from bf16 to
 * fp32: +2 B x 1,050,939,392 = 2,101,878,784 B; the default QLoRA plan
 * holds them, a LoRA plan never does. */
static void test_train_mem_qlora_peft_fp32_cast_adds_2_bytes_per_unquantised(void **state)
{
	struct fs_train_cfg c;
	struct fs_train_mem with, without;

	(void)state;
	fs_train_cfg_defaults(&c, model("llama-3.1-8b"));
	assert_int_equal(c.kbit_fp32_cast, 1);
	c.method = FS_TRAIN_QLORA;
	with = plan(&c);
	c.kbit_fp32_cast = 0;
	without = plan(&c);
	assert_near(with.weights_bytes - without.weights_bytes, 2101878784.0, 1, 0);
	assert_near(with.total_bytes - without.total_bytes, 2101878784.0, 1, 0);
	c.method = FS_TRAIN_LORA;
	c.kbit_fp32_cast = 1;
	with = plan(&c);
	c.kbit_fp32_cast = 0;
	without = plan(&c);
	assert_near(with.total_bytes, without.total_bytes, 0, 0);
}

static void test_train_mem_zero3_over_8_divides_model_states_by_8(void **state)
{
	struct fs_train_cfg c;
	struct fs_train_mem one, eight;

	(void)state;
	fs_train_cfg_defaults(&c, model("llama-2-7b"));
	one = plan(&c);
	c.shard = FS_SHARD_ZERO3;
	c.n_gpus = 8;
	eight = plan(&c);
	assert_near(eight.weights_bytes, one.weights_bytes / 8, 1e-3, 0);
	assert_near(eight.grads_bytes, one.grads_bytes / 8, 1e-3, 0);
	assert_near(eight.master_bytes, one.master_bytes / 8, 1e-3, 0);
	assert_near(eight.moments_bytes, one.moments_bytes / 8, 1e-3, 0);
	assert_near(eight.activation_bytes, one.activation_bytes, 0, 0);
	/* Two layers' bf16 weights in flight and one layer's bf16 gradients:
	 * 6 x (6.74e9 - 262,410,240) / 32 bytes. */
	assert_near(eight.gathered_bytes, 6 * L2_BODY / 32, 1e-3, 0);
	assert_near(one.gathered_bytes, 0, 0, 0);
	/* Stage 1 divides only master + moments, stage 2 adds the gradients. */
	c.shard = FS_SHARD_ZERO1;
	eight = plan(&c);
	assert_near(eight.grads_bytes, one.grads_bytes, 0, 0);
	assert_near(eight.moments_bytes, one.moments_bytes / 8, 1e-3, 0);
	c.shard = FS_SHARD_ZERO2;
	eight = plan(&c);
	assert_near(eight.weights_bytes, one.weights_bytes, 0, 0);
	assert_near(eight.grads_bytes, one.grads_bytes / 8, 1e-3, 0);
}

/* Rajbhandari et al. 2020 (ZeRO), Figure 1: Psi = 7.5B parameters, K = 12,
 * N_d = 64: model states per GPU 120 GB baseline, 31.4 GB P_os, 16.6 GB
 * P_os+g, 1.9 GB P_os+g+p. */
static void test_train_mem_matches_the_zero_paper_figure_1(void **state)
{
	struct fs_model_spec m;
	struct fs_train_cfg c;
	static const double want_gb[] = { 120, 31.4, 16.6, 1.9 };
	static const enum fs_train_shard stage[] = { FS_SHARD_NONE, FS_SHARD_ZERO1,
	                                             FS_SHARD_ZERO2, FS_SHARD_ZERO3 };

	(void)state;
	m = *model("llama-2-7b");
	m.params = 7.5e9;
	fs_train_cfg_defaults(&c, &m);
	c.n_gpus = 64;
	for (size_t i = 0; i < 4; i++) {
		struct fs_train_mem p;

		c.shard = stage[i];
		p = plan(&c);
		assert_near((p.weights_bytes + p.grads_bytes + p.master_bytes +
		             p.moments_bytes) / 1e9, want_gb[i], 0.05, 0);
	}
}

static void test_train_mem_activations_with_and_without_recompute(void **state)
{
	struct fs_train_cfg c;

	(void)state;
	fs_train_cfg_defaults(&c, model("llama-2-7b"));
	c.seq_tokens = 2048;
	assert_near(fs_train_activation_bytes(&c), 2048 * (32 * L2_LAYER + L2_LOSS), 0, 0);
	assert_near(fs_train_activation_bytes(&c), 10362028032.0, 0, 0);
	/* Full recompute: every layer keeps its 2h input, one layer is live. */
	c.recompute = FS_RECOMPUTE_FULL;
	c.micro_batch = 2;
	c.seq_tokens = 1024;
	assert_near(fs_train_activation_bytes(&c),
	            2048 * (32 * 2 * 4096.0 + L2_LAYER + L2_LOSS), 0, 0);
	assert_near(fs_train_activation_bytes(&c), 1147142144.0, 0, 0);
	/* Without FlashAttention Korthikanti's 5as bytes per token per layer
	 * return: 2 x 1024 tokens x 32 layers x 5 x 32 heads x 1024. */
	c.recompute = FS_RECOMPUTE_NONE;
	{
		double flash = fs_train_activation_bytes(&c);

		c.flash_attn = 0;
		assert_near(fs_train_activation_bytes(&c) - flash,
		            2048.0 * 32 * 5 * 32 * 1024, 0, 0);
	}
}

static void test_train_mem_grad_accum_adds_tokens_not_memory(void **state)
{
	struct fs_train_cfg c;
	struct fs_train_mem a, b;

	(void)state;
	fs_train_cfg_defaults(&c, model("mistral-7b"));
	a = plan(&c);
	c.grad_accum = 8;
	c.n_gpus = 2;
	b = plan(&c);
	assert_near(b.total_bytes, a.total_bytes, 0, 0);
	assert_int_equal(a.tokens_per_step, 2048);
	assert_int_equal(b.tokens_per_step, 2048 * 8 * 2);
}

static void test_train_mem_refuses_bad_configs(void **state)
{
	struct fs_train_cfg c;
	struct fs_train_mem p;
	struct fs_error err;

	(void)state;
	fs_train_cfg_defaults(&c, model("llama-2-7b"));
	c.weight_dtype = FS_DTYPE_INT4;
	assert_int_equal(fs_train_mem_plan(&c, &p, &err), -1);
	assert_non_null(strstr(err.msg, "expected fp16 or bf16"));
	assert_near(p.total_bytes, 0, 0, 0);
	fs_train_cfg_defaults(&c, model("llama-2-7b"));
	c.method = FS_TRAIN_LORA;
	c.lora_modules = 0;
	assert_int_equal(fs_train_mem_plan(&c, &p, &err), -1);
	fs_train_cfg_defaults(&c, model("llama-2-7b"));
	c.micro_batch = 0;
	assert_int_equal(fs_train_mem_plan(&c, &p, &err), -1);
}

static void test_train_cli_full_zero3_on_8_a100_is_the_hand_sum(void **state)
{
	static const char *const args[] = {
		"estimate", "--train", "full", "--model", "llama-2-7b", "--gpu", "a100-80g",
		"--gpus", "8", "--shard", "zero3", "--json", NULL
	};
	cJSON *j = fs_test_fleetsim_json(args, 0);

	(void)state;
	/* 2 + 2 + 4 + 8 bytes x 6.74e9 / 8, two layers' weights and one
	 * layer's gradients gathered, 2048 tokens of activations, 1 GB. */
	assert_near(fs_test_json_num(j, "weights_bytes"), 1.685e9, 1, 0);
	assert_near(fs_test_json_num(j, "moments_bytes"), 6.74e9, 1, 0);
	assert_near(fs_test_json_num(j, "gathered_bytes"), 6 * L2_BODY / 32, 1, 0);
	assert_near(fs_test_json_num(j, "activation_bytes"), 10362028032.0, 1, 0);
	assert_near(fs_test_json_num(j, "total_bytes"), 1.685e9 * 2 + 3.37e9 + 6.74e9 +
	            6 * L2_BODY / 32 + 10362028032.0 + 1e9, 1, 0);
	assert_near(fs_test_json_num(j, "total_bytes"), 26056576112.0, 1, 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "fits")));
	cJSON_Delete(j);
}

static void test_train_cli_lora_fits_a_4090_and_full_does_not(void **state)
{
	static const char *const lora[] = {
		"estimate", "--train", "lora", "--model", "llama-2-7b", "--gpu", "rtx4090",
		"--lora-rank", "8", "--lora-modules", "q,v", "--seq", "512", "--json", NULL
	};
	static const char *const full[] = {
		"estimate", "--train", "full", "--model", "llama-2-7b", "--gpu", "rtx4090", NULL
	};
	cJSON *j = fs_test_fleetsim_json(lora, 0);
	struct fs_test_run r;

	(void)state;
	assert_near(fs_test_json_num(j, "trainable_params"), 4194304, 0, 0);
	assert_near(fs_test_json_num(j, "activation_bytes"), 512 * (32 * L2_LAYER + L2_LOSS), 1, 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "fits")));
	cJSON_Delete(j);
	r = fs_test_run_fleetsim(full);
	assert_int_equal(r.exit_code, 2);
	assert_has(r.out, "fits: no", "AdamW moments       53.92");
	assert_non_null(strstr(r.err, "does not fit"));
	fs_test_run_free(&r);
}

static void test_train_cli_table_covers_every_gpu(void **state)
{
	static const char *const args[] = {
		"estimate", "--train", "qlora", "--model", "gpt-oss-20b", "--table",
		"--shard", "zero3", "--json", NULL
	};
	cJSON *j = fs_test_fleetsim_json(args, 0), *fit, *row;
	const cJSON *cards;
	int n = 0;

	(void)state;
	fit = cJSON_GetObjectItemCaseSensitive(j, "gpu_fit");
	cards = cJSON_GetObjectItemCaseSensitive(j, "cards");
	assert_int_equal(cJSON_GetArraySize(fit), (int)fs_catalog_n_gpus());
	assert_int_equal(cJSON_GetArraySize(cards), 4);
	/* More cards never need more memory per card under ZeRO-3. */
	for (int k = 1; k < 4; k++)
		assert_true(fs_test_json_num(cJSON_GetArrayItem(cards, k), "total_bytes") <=
		            fs_test_json_num(cJSON_GetArrayItem(cards, k - 1), "total_bytes"));
	cJSON_ArrayForEach(row, fit) {
		const cJSON *fits = cJSON_GetObjectItemCaseSensitive(row, "fits");
		double mem = fs_test_json_num(row, "mem_bytes");
		int fewest = (int)fs_test_json_num(row, "fewest_gpus"), want = 0;

		for (int k = 0; k < 4 && want == 0; k++)
			if (fs_test_json_num(cJSON_GetArrayItem(cards, k), "total_bytes") <= mem)
				want = 1 << k;
		assert_int_equal(fewest, want);
		assert_int_equal(cJSON_IsTrue(cJSON_GetArrayItem(fits, 0)),
		                 fs_test_json_num(cJSON_GetArrayItem(cards, 0), "total_bytes") <= mem);
		n++;
	}
	assert_true(n >= 16);
	cJSON_Delete(j);
}

static void test_train_cli_model_config_with_an_odd_path_is_valid_json(void **state)
{
	char *dir = fs_test_tmpdir(), path[512];
	char *text = fs_test_read_file("docs/data/qwen-7b-config.json", NULL);
	const char *args[] = { "estimate", "--train", "qlora", "--model-config", path,
	                       "--gpu", "a100-80g", "--json", NULL };
	const cJSON *id;
	cJSON *j;

	(void)state;
	assert_non_null(text);
	snprintf(path, sizeof path, "%s/qwen \"7b\"\\config.json", dir);
	fs_test_write_file(path, text);
	j = fs_test_fleetsim_json(args, 0);
	id = cJSON_GetObjectItemCaseSensitive(j, "model");
	assert_true(cJSON_IsString(id));
	assert_string_equal(id->valuestring, path);
	/* Qwen-7B: 32 x (4 x 4096^2 + QKV bias 12288 + 3 x 4096 x 11008 + 2 x
	 * 4096) + 2 x 151936 x 4096 + 4096 parameters. */
	assert_near(fs_test_json_num(j, "params"), 32 * (4 * 4096.0 * 4096 + 12288 + 3 * 4096.0 * 11008 +
	                                    8192) + 2 * 151936.0 * 4096 + 4096, 0, 0);
	cJSON_Delete(j);
	free(text);
	fs_test_tmpdir_free(dir);
}

static void test_train_cli_bad_options_exit_2(void **state)
{
	static const char *const cases[][10] = {
		{ "estimate", "--train", "sgd", "--model", "llama-2-7b", "--gpu", "h100", NULL },
		{ "estimate", "--train", "full", "--model", "llama-2-7b", "--gpu", "h100",
		  "--shard", NULL },
		{ "estimate", "--train", "full", "--model", "llama-2-7b", "--shard", "zero4",
		  "--table", NULL },
		{ "estimate", "--train", "lora", "--model", "llama-2-7b", "--table",
		  "--lora-modules", "qq", NULL },
		{ "estimate", "--train", "full", "--model", "llama-2-7b", "--gpu", "h100",
		  "--weights-dtype", "int4", NULL },
		{ "estimate", "--train", "full", "--model", "llama-2-7b", NULL },
		{ "estimate", "--train", "full", "--model", "llama-2-7b", "--gpu", "h100",
		  "--tp", "2", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fs_test_run r = fs_test_run_fleetsim(cases[i]);

		if (r.exit_code != 2)
			print_error("case %zu: exit %d, stderr %s\n", i, r.exit_code, r.err);
		assert_int_equal(r.exit_code, 2);
		assert_true(strlen(r.err) > 0);
		fs_test_run_free(&r);
	}
}

/* An option the method (or --table) does not use is refused, naming the
 * option and the method, with nothing on stdout: each command here exits
 * 0 once the option is left out. */
static void test_train_cli_an_option_that_does_not_apply_exits_2(void **state)
{
#define TRAIN(method) "estimate", "--train", method, "--model", "llama-2-7b"
	static const struct {
		const char *args[14];
		const char *want;
	} cases[] = {
		{ { TRAIN("qlora"), "--gpu", "a100-80g", "--weights-dtype", "fp16", NULL },
		  "--weights-dtype does not apply to --train qlora (its base is 4-bit NF4" },
		{ { TRAIN("full"), "--gpu", "h200", "--lora-rank", "8", NULL },
		  "--lora-rank does not apply to --train full (it trains every parameter, "
		  "no adapters); leave it out\n" },
		{ { TRAIN("full"), "--lora-modules", "q,v", "--gpu", "h200", NULL },
		  "--lora-modules does not apply to --train full" },
		{ { TRAIN("lora"), "--gpu", "a100-80g", "--nf4-double-quant", "no", NULL },
		  "--nf4-double-quant does not apply to --train lora" },
		{ { TRAIN("full"), "--gpu", "h200", "--kbit-fp32-cast", "no", NULL },
		  "--kbit-fp32-cast does not apply to --train full" },
		{ { TRAIN("lora"), "--table", "--gpu", "a100-80g", NULL },
		  "--gpu does not apply with --table" },
		{ { TRAIN("lora"), "--gpus", "2", "--table", NULL },
		  "--gpus does not apply with --table" },
	};
#undef TRAIN

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fs_test_run r = fs_test_fleetsim_expect(cases[i].args, 2);

		if (strstr(r.err, cases[i].want) == NULL)
			fail_msg("case %zu: want \"%s\", got \"%s\"", i, cases[i].want, r.err);
		assert_has(r.err, "fleetsim estimate: ", "Try 'fleetsim estimate --help'.");
		assert_string_equal(r.out, "");
		fs_test_run_free(&r);
	}
}

/* --lora-modules names each map once: "q" and "q_proj" are one map, and a
 * repeat is refused at its place in the list, not folded away. */
static void test_train_cli_lora_modules_name_each_map_once(void **state)
{
	static const char *const args[] = {
		"estimate", "--train", "lora", "--model", "llama-2-7b", "--gpu", "a100-80g",
		"--lora-modules", "q,v,Q_proj", NULL
	};
	struct fs_test_run r = fs_test_fleetsim_expect(args, 2);
	struct fs_error err;
	unsigned mods = 0;

	(void)state;
	assert_string_equal(r.out, "");
	assert_has(r.err, "fleetsim estimate: --lora-modules: expected each module once, "
	           "found \"Q_proj\" again (name 3 of \"q,v,Q_proj\"; the same map as name "
	           "1)\n");
	fs_test_run_free(&r);
	assert_int_equal(fs_train_lora_modules_parse("v,up,v", &mods, &err), -1);
	assert_int_equal(mods, 0);
	assert_has(err.msg, "\"v\" again (name 3 of \"v,up,v\"; the same map as name 1)");
	assert_int_equal(fs_train_lora_modules_parse("up,q,qq", &mods, &err), -1);
	assert_has(err.msg, "found \"qq\" (name 3 of \"up,q,qq\")");
}

/* MODEL: T5 — a training sequence within the model's context: Llama-2-7B
 * has 4,096 tokens; --seq above is refused, at the limit accepted. */
static void test_train_cli_seq_beyond_the_model_context_exits_2(void **state)
{
	static const char *const over[] = {
		"estimate", "--train", "lora", "--model", "llama-2-7b", "--table", "--seq",
		"4097", NULL
	};
	static const char *const at[] = {
		"estimate", "--train", "lora", "--model", "llama-2-7b", "--table", "--seq",
		"4096", "--json", NULL
	};
	struct fs_test_run r = fs_test_fleetsim_expect(over, 2);
	cJSON *j;

	(void)state;
	assert_string_equal(r.out, "");
	assert_has(r.err, "fleetsim estimate: --seq: expected at most 4096 tokens (the "
	           "context of llama-2-7b), found 4097\n");
	fs_test_run_free(&r);
	j = fs_test_fleetsim_json(at, 0);
	assert_near(fs_test_json_num(j, "seq_tokens"), 4096, 0, 0);
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_train_mem_7b_16bit_weights_are_13_5_gb),
		cmocka_unit_test(test_train_mem_full_adamw_is_16_bytes_per_parameter),
		cmocka_unit_test(test_train_mem_lora_count_is_the_closed_form),
		cmocka_unit_test(test_train_mem_lora_state_is_16_bytes_per_adapter),
		cmocka_unit_test(test_train_mem_qlora_nf4_with_its_constants),
		cmocka_unit_test(test_train_mem_qlora_peft_fp32_cast_adds_2_bytes_per_unquantised),
		cmocka_unit_test(test_train_mem_zero3_over_8_divides_model_states_by_8),
		cmocka_unit_test(test_train_mem_matches_the_zero_paper_figure_1),
		cmocka_unit_test(test_train_mem_activations_with_and_without_recompute),
		cmocka_unit_test(test_train_mem_grad_accum_adds_tokens_not_memory),
		cmocka_unit_test(test_train_mem_refuses_bad_configs),
		cmocka_unit_test(test_train_cli_full_zero3_on_8_a100_is_the_hand_sum),
		cmocka_unit_test(test_train_cli_lora_fits_a_4090_and_full_does_not),
		cmocka_unit_test(test_train_cli_table_covers_every_gpu),
		cmocka_unit_test(test_train_cli_model_config_with_an_odd_path_is_valid_json),
		cmocka_unit_test(test_train_cli_bad_options_exit_2),
		cmocka_unit_test(test_train_cli_an_option_that_does_not_apply_exits_2),
		cmocka_unit_test(test_train_cli_lora_modules_name_each_map_once),
		cmocka_unit_test(test_train_cli_seq_beyond_the_model_context_exits_2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
