/*
 * scenario_hf_config.h — a model described by a Hugging Face `config.json`
 * (transformers' PretrainedConfig and its Llama/Mistral/Mixtral/Qwen2
 * subclasses) turned into a struct fs_model_spec, so an open model can be
 * simulated without a catalogue entry.  The filled spec owns its strings.
 */
#ifndef FLEETSIM_SCENARIO_HF_CONFIG_H
#define FLEETSIM_SCENARIO_HF_CONFIG_H

#include "fleetsim/catalog.h"
#include "fleetsim/common.h"

/* Read the config.json at `path` into *m: shape, vocabulary, context, MoE
 * experts, and the parameter counts computed from them (docs/CATALOG.md,
 * "Models from a Hugging Face config.json").  `id` names the model (NULL:
 * the path).  Returns 0 with every string of *m on the heap (free with
 * fs_model_config_fini), or -1 with err at FILE:LINE:COL and the JSON key
 * (a missing or bad field, or a shape the catalogue cannot represent:
 * multi-head latent attention, shared experts, dense layers among MoE
 * ones); *m is then zeroed. */
int fs_model_config_load(const char *path, const char *id, struct fs_model_spec *m,
                         struct fs_error *err);

/* Free the strings of a spec filled by fs_model_config_load and zero it;
 * a zeroed spec is fine. */
void fs_model_config_fini(struct fs_model_spec *m);

#endif
