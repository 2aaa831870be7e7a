/*
 * scenario_hf_config.c — a Hugging Face config.json read into a struct
 * fs_model_spec.  Unknown keys are ignored (configs carry many unrelated
 * ones); a null counts as absent.  Keys that mean a shape the spec cannot
 * hold (latent attention, shared experts, mixed dense/MoE layers) are
 * refused at their position.  The filled spec owns its five strings.
 */
#include "scenario_walk.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario_hf_config.h"

#define MAX_DIM INT64_C(1000000)           /* any width or count */
#define MAX_VOCAB INT64_C(100000000)
#define MAX_CONTEXT INT64_C(1073741824)
#define SOURCE "Hugging Face config.json"

/* obj[key] as a positive integer in [1, hi]; a null counts as absent. */
static int opt_int(struct fs__sc *sc, const cJSON *obj, const char *key, int64_t hi,
                   int *out)
{
	const cJSON *v = fs__sc_get(obj, key);
	int64_t iv = 0;
	int rc;

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	rc = fs__sc_int(sc, obj, key, 1, hi, &iv);
	if (rc == 1)
		*out = (int)iv;
	return rc;
}

/* A required positive integer: `missing required key` at the root. */
static int req_int(struct fs__sc *sc, const cJSON *obj, const char *key, int64_t hi,
                   int *out)
{
	int rc = opt_int(sc, obj, key, hi, out);

	if (rc == 0)
		return fs__sc_fail_at(sc, obj, "missing required key \"%s\"", key);
	return rc < 0 ? -1 : 0;
}

/* A key whose non-zero, non-null, non-empty value means a shape the spec
 * cannot hold: refused at its value with `why`. */
static int refuse(struct fs__sc *sc, const cJSON *obj, const char *key, const char *why)
{
	const cJSON *v = fs__sc_get(obj, key);
	char found[64];

	if (v == NULL || cJSON_IsNull(v) || cJSON_IsFalse(v) ||
	    (cJSON_IsNumber(v) && v->valuedouble == 0) ||
	    (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0))
		return 0;
	fs__sc_found(sc, v, found, sizeof found);
	return fs__sc_fail_member(sc, obj, key, "%s is not representable in the "
	                          "catalogue's model (expected absent, null or 0, "
	                          "found %s)", why, found);
}

/* The expert fields: Mixtral's num_local_experts, Qwen-MoE's num_experts,
 * DeepSeek's n_routed_experts; num_experts_per_tok; the per-expert width
 * moe_intermediate_size where given (Qwen-MoE, DeepSeek), else
 * intermediate_size (Mixtral). */
static int load_experts(struct fs__sc *sc, const cJSON *root, struct fs_model_spec *m)
{
	static const char *const NAMES[] = { "num_local_experts", "num_experts",
	                                     "n_routed_experts" };
	const char *from = NULL;
	int moe_ffn = 0, rc;

	for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
		int n = 0;

		rc = opt_int(sc, root, NAMES[i], MAX_DIM, &n);
		if (rc < 0)
			return -1;
		if (rc == 1 && from != NULL && n != m->experts)
			return fs__sc_fail_member(sc, root, NAMES[i], "expected the same "
			                          "count as \"%s\" (%d), found %d", from,
			                          m->experts, n);
		if (rc == 1) {
			m->experts = n;
			from = NAMES[i];
		}
	}
	if (opt_int(sc, root, "num_experts_per_tok", MAX_DIM, &m->experts_per_token) < 0 ||
	    opt_int(sc, root, "moe_intermediate_size", MAX_DIM, &moe_ffn) < 0)
		return -1;
	if (m->experts == 1)
		m->experts_per_token = 1;   /* dense: a stray top-k means nothing */
	if (m->experts_per_token > m->experts)
		return fs__sc_fail_member(sc, root, "num_experts_per_tok", "expected at "
		                          "most the expert count (%d), found %d",
		                          m->experts, m->experts_per_token);
	if (m->experts > 1 && moe_ffn > 0)
		m->ffn = moe_ffn;
	if (refuse(sc, root, "n_shared_experts", "a shared expert") != 0 ||
	    refuse(sc, root, "shared_expert_intermediate_size", "a shared expert") != 0 ||
	    refuse(sc, root, "first_k_dense_replace", "dense layers before MoE ones") != 0 ||
	    refuse(sc, root, "mlp_only_layers", "dense layers among MoE ones") != 0 ||
	    refuse(sc, root, "kv_lora_rank", "multi-head latent attention") != 0 ||
	    refuse(sc, root, "q_lora_rank", "multi-head latent attention") != 0)
		return -1;
	if (m->experts > 1) {
		int step = 1;

		if (opt_int(sc, root, "decoder_sparse_step", MAX_DIM, &step) < 0)
			return -1;
		if (step != 1)
			return fs__sc_fail_member(sc, root, "decoder_sparse_step",
			                          "dense layers among MoE ones are not "
			                          "representable in the catalogue's model "
			                          "(expected 1, found %d)", step);
	}
	return 0;
}

/* Parameter counts as the catalogue's are defined (docs/CATALOG.md): token
 * embedding plus an LM head unless tied; per layer Q, K, V, O (with the QKV
 * bias of Qwen2 or attention_bias), three gated-FFN matrices per expert, the
 * router, two RMSNorm vectors; a final norm.  Active: top-k experts. */
static void count_params(struct fs_model_spec *m, bool tied, bool qkv_bias)
{
	double h = m->hidden, hd = m->head_dim, q = (double)m->heads * hd,
	       kv = (double)m->kv_heads * hd;
	double embed = (double)m->vocab * h * (tied ? 1 : 2);
	double attn = 2 * h * q + 2 * h * kv + (qkv_bias ? q + 2 * kv : 0);
	double expert = 3 * h * m->ffn;
	double router = m->experts > 1 ? h * m->experts : 0;
	double shared = attn + router + 2 * h;

	m->params = m->layers * (shared + m->experts * expert) + embed + h;
	m->active_params = m->layers * (shared + m->experts_per_token * expert) + embed + h;
}

static int load_root(struct fs__sc *sc, const cJSON *root, struct fs_model_spec *m,
                     char *notes, size_t notes_len)
{
	const char *type = NULL, *dtype = NULL;
	bool tied = false, bias = false;
	const cJSON *v;

	if (!cJSON_IsObject(root))
		return fs__sc_fail_at(sc, root, "expected an object, found %s",
		                      fs__sc_type_name(root));
	if (fs__sc_get(root, "num_hidden_layers") == NULL &&
	    fs__sc_get(root, "text_config") != NULL)
		return fs__sc_fail_member_key(sc, root, "text_config", "a multimodal "
		                              "config: give the text model's own config");
	m->experts = 1;
	m->experts_per_token = 1;
	if (req_int(sc, root, "num_hidden_layers", MAX_DIM, &m->layers) != 0 ||
	    req_int(sc, root, "hidden_size", MAX_DIM, &m->hidden) != 0 ||
	    req_int(sc, root, "num_attention_heads", MAX_DIM, &m->heads) != 0 ||
	    req_int(sc, root, "vocab_size", MAX_VOCAB, &m->vocab) != 0 ||
	    opt_int(sc, root, "intermediate_size", MAX_DIM, &m->ffn) < 0)
		return -1;
	m->kv_heads = m->heads;    /* transformers: num_key_value_heads defaults to heads */
	if (opt_int(sc, root, "num_key_value_heads", MAX_DIM, &m->kv_heads) < 0)
		return -1;
	if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
		return fs__sc_fail_member(sc, root, "num_key_value_heads", "expected a "
		                          "divisor of num_attention_heads (%d), found %d",
		                          m->heads, m->kv_heads);
	if (opt_int(sc, root, "head_dim", MAX_DIM, &m->head_dim) < 0)
		return -1;
	if (m->head_dim == 0) {
		if (m->hidden % m->heads != 0)
			return fs__sc_fail_member(sc, root, "num_attention_heads", "expected "
			                          "a divisor of hidden_size (%d) when "
			                          "head_dim is not given, found %d",
			                          m->hidden, m->heads);
		m->head_dim = m->hidden / m->heads;
	}
	{
		int ctx = 0;

		if (req_int(sc, root, "max_position_embeddings", MAX_CONTEXT, &ctx) != 0)
			return -1;
		m->max_context_tokens = ctx;
	}
	if (load_experts(sc, root, m) != 0)
		return -1;
	if (m->ffn == 0)
		return fs__sc_fail_at(sc, root, "missing required key \"%s\"",
		                      m->experts > 1 ? "moe_intermediate_size" :
		                      "intermediate_size");
	v = fs__sc_get(root, "tie_word_embeddings");
	if (v != NULL && !cJSON_IsNull(v) && fs__sc_bool(sc, root, "tie_word_embeddings",
	                                                 &tied) < 0)
		return -1;
	v = fs__sc_get(root, "attention_bias");
	if (v != NULL && !cJSON_IsNull(v) && fs__sc_bool(sc, root, "attention_bias",
	                                                 &bias) < 0)
		return -1;
	if (fs__sc_string(sc, root, "model_type", false, &type) < 0)
		return -1;
	/* Qwen2 and Qwen2-MoE always carry a QKV bias (no config key says so). */
	if (type != NULL && (strcmp(type, "qwen2") == 0 || strcmp(type, "qwen2_moe") == 0))
		bias = true;
	v = fs__sc_get(root, "torch_dtype") != NULL ? fs__sc_get(root, "torch_dtype") :
	    fs__sc_get(root, "dtype");
	if (v != NULL && !cJSON_IsNull(v) &&
	    fs__sc_string(sc, root, v->string, false, &dtype) < 0)
		return -1;
	count_params(m, tied, bias);   /* MODEL: P1 */
	snprintf(notes, notes_len, "from %s%s%s; checkpoint dtype %s%s%s",
	         SOURCE, type != NULL ? ", model_type " : "", type != NULL ? type : "",
	         dtype != NULL ? dtype : "not given", tied ? "; tied embeddings" : "",
	         bias ? "; QKV bias" : "");
	return 0;
}

/* What fs__sc_load_file's walk fills: the spec and its notes. */
struct load_ctx {
	struct fs_model_spec *m;
	char notes[256];
};

static int load_file_root(struct fs__sc *sc, const cJSON *root, void *ctx)
{
	struct load_ctx *c = ctx;

	return load_root(sc, root, c->m, c->notes, sizeof c->notes);
}

int fs_model_config_load(const char *path, const char *id, struct fs_model_spec *m,
                         struct fs_error *err)
{
	struct load_ctx c = { .m = m };

	memset(m, 0, sizeof *m);
	if (fs__sc_load_file(path, "model config", load_file_root, &c, err) != 0) {
		memset(m, 0, sizeof *m);
		return -1;
	}
	m->id = fs_xstrdup(id != NULL ? id : path);
	m->aliases = fs_xstrdup("");
	m->display_name = fs_xstrdup(m->id);
	m->source = fs_xstrdup(path);
	m->notes = fs_xstrdup(c.notes);
	return 0;
}

void fs_model_config_fini(struct fs_model_spec *m)
{
	const char **s[] = { &m->id, &m->aliases, &m->display_name, &m->source,
	                     &m->notes };

	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		free((char *)(uintptr_t)*s[i]);
	memset(m, 0, sizeof *m);
}
