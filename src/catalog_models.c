/*
 * catalog_models.c — the built-in model table: transformer shapes from the
 * published configs, parameter counts computed from them (gpu_facts.md §3:
 * embeddings untied, Qwen with QKV bias), each with its source key beside it
 * (keys expand in docs/CATALOG.md).  Immutable static data.  All dense
 * models here use SwiGLU, RMSNorm, RoPE and head_dim 128; gpt-oss-20b is an
 * MoE with head_dim 64.
 */
#include <assert.h>

#include "fleetsim/catalog.h"

#define LLAMA2_NOTE "Vidur pads the vocabulary to 32768 in its own configs (S56)"

static const struct fs_model_spec models[] = {
{
	.id = "llama-2-7b",
	.aliases = "meta-llama/Llama-2-7b-hf,Llama-2-7b-hf,meta-llama/Llama-2-7b-chat-hf,"
		"Llama-2-7b-chat-hf,llama-2-7b-chat,llama2-7b",
	.display_name = "Llama-2-7B",
	/* S55 TensorRT-LLM ckpt_config, S56 Vidur model_config.py */
	.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 32, .head_dim = 128,
	.ffn = 11008, .vocab = 32000, .experts = 1, .experts_per_token = 1,
	.params = 6.74e9, .active_params = 6.74e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 4096,
	.source = "S55 NVIDIA/TensorRT-LLM performance.md; S56 microsoft/vidur model_config.py",
	.notes = "MHA (kv_heads = heads); " LLAMA2_NOTE,
},
{
	.id = "llama-2-13b",
	.aliases = "meta-llama/Llama-2-13b-hf,Llama-2-13b-hf,meta-llama/Llama-2-13b-chat-hf,"
		"Llama-2-13b-chat-hf,llama-2-13b-chat,llama2-13b",
	.display_name = "Llama-2-13B",
	/* S57 Habana-LLM-Viewer models.py */
	.layers = 40, .hidden = 5120, .heads = 40, .kv_heads = 40, .head_dim = 128,
	.ffn = 13824, .vocab = 32000, .experts = 1, .experts_per_token = 1,
	.params = 13.0e9, .active_params = 13.0e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 4096,
	.source = "S57 jychen21/Habana-LLM-Viewer models.py",
	.notes = "MHA (kv_heads = heads)",
},
{
	.id = "llama-2-70b",
	.aliases = "meta-llama/Llama-2-70b-hf,Llama-2-70b-hf,meta-llama/Llama-2-70b-chat-hf,"
		"Llama-2-70b-chat-hf,llama-2-70b-chat,llama2-70b",
	.display_name = "Llama-2-70B",
	/* S55, S56 */
	.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128,
	.ffn = 28672, .vocab = 32000, .experts = 1, .experts_per_token = 1,
	.params = 69.0e9, .active_params = 69.0e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 4096,
	.source = "S55 NVIDIA/TensorRT-LLM performance.md; S56 microsoft/vidur model_config.py",
	.notes = "GQA 8 KV heads; " LLAMA2_NOTE,
},
{
	.id = "llama-3.1-8b",
	.aliases = "meta-llama/Llama-3.1-8B,meta-llama/Llama-3.1-8B-Instruct,Llama-3.1-8B,"
		"Llama-3.1-8B-Instruct,meta-llama/Meta-Llama-3.1-8B,"
		"meta-llama/Meta-Llama-3.1-8B-Instruct,Meta-Llama-3.1-8B-Instruct,llama3.1-8b",
	.display_name = "Llama-3.1-8B",
	/* S58 llama-models sku_list.py, S59 HF config copy */
	.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128,
	.ffn = 14336, .vocab = 128256, .experts = 1, .experts_per_token = 1,
	.params = 8.03e9, .active_params = 8.03e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 131072,                /* S58 */
	.source = "S58 meta-llama/llama-models sku_list.py; S59 LLM-Prof Model_Config.md",
	.notes = "ffn_dim_multiplier 1.3",
},
{
	.id = "llama-3.1-70b",
	.aliases = "meta-llama/Llama-3.1-70B,meta-llama/Llama-3.1-70B-Instruct,Llama-3.1-70B,"
		"Llama-3.1-70B-Instruct,meta-llama/Meta-Llama-3.1-70B,"
		"meta-llama/Meta-Llama-3.1-70B-Instruct,Meta-Llama-3.1-70B-Instruct,llama3.1-70b",
	.display_name = "Llama-3.1-70B",
	/* S58, S56 */
	.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128,
	.ffn = 28672, .vocab = 128256, .experts = 1, .experts_per_token = 1,
	.params = 70.6e9, .active_params = 70.6e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 131072,                /* S58 */
	.source = "S58 meta-llama/llama-models sku_list.py; S56 microsoft/vidur model_config.py",
	.notes = "ffn_dim_multiplier 1.3",
},
{
	.id = "llama-3.1-405b",
	.aliases = "meta-llama/Llama-3.1-405B,meta-llama/Llama-3.1-405B-Instruct,"
		"Llama-3.1-405B,Llama-3.1-405B-Instruct,meta-llama/Meta-Llama-3.1-405B-Instruct,"
		"llama3.1-405b",
	.display_name = "Llama-3.1-405B",
	/* S58, S60 */
	.layers = 126, .hidden = 16384, .heads = 128, .kv_heads = 8, .head_dim = 128,
	.ffn = 53248, .vocab = 128256, .experts = 1, .experts_per_token = 1,
	.params = 405.8e9, .active_params = 405.8e9, /* computed, gpu_facts §3 */
	.max_context_tokens = 131072,                /* S58 */
	.source = "S58 meta-llama/llama-models sku_list.py; S60 Llama-3.1-405B config copies",
	.notes = "ffn_dim_multiplier 1.2",
},
{
	.id = "mistral-7b",
	.aliases = "mistralai/Mistral-7B-v0.1,Mistral-7B-v0.1,mistralai/Mistral-7B-Instruct-v0.1,"
		"Mistral-7B-Instruct-v0.1,mistral-7b-v0.1",
	.display_name = "Mistral-7B (v0.1)",
	/* S61 mistral-src config, Mistral 7B paper Table 1 */
	.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128,
	.ffn = 14336, .vocab = 32000, .experts = 1, .experts_per_token = 1,
	.params = 7.24e9, .active_params = 7.24e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 8192,                  /* S61: trained context */
	.source = "S61 edadaltocg/mistral-src-finetune config.py; Mistral 7B paper Table 1",
	.notes = "v0.1: sliding-window attention 4096 (not modelled: KV grows with the "
		"full context); v0.2+ drops SWA, 32k context, rope_theta 1e6",
},
{
	.id = "mixtral-8x7b",
	.aliases = "mistralai/Mixtral-8x7B-v0.1,mistralai/Mixtral-8x7B-Instruct-v0.1,"
		"Mixtral-8x7B-v0.1,Mixtral-8x7B-Instruct-v0.1,mixtral",
	.display_name = "Mixtral-8x7B",
	/* S62 Mixtral paper Table 1 */
	.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128,
	.ffn = 14336, .vocab = 32000, .experts = 8, .experts_per_token = 2,
	.params = 46.7e9, .active_params = 12.9e9,   /* S62: total / active */
	.max_context_tokens = 32768,                 /* S62 */
	.source = "S62 Mixtral paper Table 1; apxml.com (46.7B total / 12.9B active)",
	.notes = "MoE: 8 experts of FFN 14336, top-2 routing",
},
{
	.id = "qwen2.5-7b",
	.aliases = "Qwen/Qwen2.5-7B,Qwen/Qwen2.5-7B-Instruct,Qwen2.5-7B,Qwen2.5-7B-Instruct,"
		"qwen-2.5-7b",
	.display_name = "Qwen2.5-7B",
	/* S59 HF config copy */
	.layers = 28, .hidden = 3584, .heads = 28, .kv_heads = 4, .head_dim = 128,
	.ffn = 18944, .vocab = 152064, .experts = 1, .experts_per_token = 1,
	.params = 7.62e9, .active_params = 7.62e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 131072,                /* S59: 32k native + YaRN */
	.source = "S59 citsjtu2020/LLM-Prof sglang/Model_Config.md",
	.notes = "32k native context, 131072 with YaRN; QKV bias",
},
{
	.id = "qwen2.5-14b",
	.aliases = "Qwen/Qwen2.5-14B,Qwen/Qwen2.5-14B-Instruct,Qwen2.5-14B,"
		"Qwen2.5-14B-Instruct,qwen-2.5-14b",
	.display_name = "Qwen2.5-14B",
	/* S59 */
	.layers = 48, .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128,
	.ffn = 13824, .vocab = 152064, .experts = 1, .experts_per_token = 1,
	.params = 14.8e9, .active_params = 14.8e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 131072,                /* S59 */
	.source = "S59 citsjtu2020/LLM-Prof sglang/Model_Config.md",
	.notes = "32k native context, 131072 with YaRN; QKV bias",
},
{
	.id = "qwen2.5-32b",
	.aliases = "Qwen/Qwen2.5-32B,Qwen/Qwen2.5-32B-Instruct,Qwen2.5-32B,"
		"Qwen2.5-32B-Instruct,qwen-2.5-32b",
	.display_name = "Qwen2.5-32B",
	/* S59 */
	.layers = 64, .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128,
	.ffn = 27648, .vocab = 152064, .experts = 1, .experts_per_token = 1,
	.params = 32.8e9, .active_params = 32.8e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 131072,                /* S59 */
	.source = "S59 citsjtu2020/LLM-Prof sglang/Model_Config.md",
	.notes = "32k native context, 131072 with YaRN; QKV bias",
},
{
	.id = "qwen2.5-72b",
	.aliases = "Qwen/Qwen2.5-72B,Qwen/Qwen2.5-72B-Instruct,Qwen2.5-72B,"
		"Qwen2.5-72B-Instruct,qwen-2.5-72b",
	.display_name = "Qwen2.5-72B",
	/* S63 config copies */
	.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128,
	.ffn = 29568, .vocab = 152064, .experts = 1, .experts_per_token = 1,
	.params = 72.7e9, .active_params = 72.7e9,   /* computed, gpu_facts §3 */
	.max_context_tokens = 131072,                /* S63: 32k native + YaRN x4 */
	.source = "S63 Qwen2.5-72B config copies (registry hf_config)",
	.notes = "32k native context, 131072 with YaRN x4; QKV bias",
},
{
	.id = "gpt-oss-20b",
	.aliases = "openai/gpt-oss-20b,gpt-oss-20B,gptoss-20b",
	.display_name = "gpt-oss-20b",
	/* S78 openai/gpt-oss-20b config.json copies; S79 model card */
	.layers = 24, .hidden = 2880, .heads = 64, .kv_heads = 8, .head_dim = 64,
	.ffn = 2880, .vocab = 201088, .experts = 32, .experts_per_token = 4,
	/* computed as src/scenario_hf_config.c counts (attention_bias true):
	 * 20,908,050,240 total, 4,186,539,840 active with embedding and head;
	 * S79 publishes 20.9B total, 3.6B active without the input embedding */
	.params = 20.91e9, .active_params = 4.19e9,
	.max_context_tokens = 131072,                /* S78: 4096 x YaRN 32 */
	.source = "S78 openai/gpt-oss-20b config.json (copies); S79 gpt-oss model card",
	.notes = "MoE: 32 experts of FFN 2880, top-4; head_dim 64; alternate layers use a "
		"128-token sliding window (not modelled: KV grows with the full context); "
		"released with MXFP4 expert weights (about 4.25 bits; int4 is the nearest "
		"--weights-dtype), attention, router and embeddings in bf16",
},
};

size_t fs_catalog_n_models(void)
{
	return sizeof models / sizeof models[0];
}

const struct fs_model_spec *fs_catalog_model_at(size_t i)
{
	assert(i < fs_catalog_n_models());
	return &models[i];
}

int64_t fs_catalog_kv_bytes_per_token(const struct fs_model_spec *m,
                                      int bytes_per_elem)
{
	/* S72: K and V, per layer, per KV head */
	return (int64_t)2 * m->layers * m->kv_heads * m->head_dim * bytes_per_elem;
}
