/*
 * scenario_model_cfg.h — internal: a catalogue model entry's "config" key,
 * a Hugging Face config.json (path relative to the scenario or catalogue
 * file) that gives the model its shape.  Shared by scenario_catalog.c only.
 */
#ifndef FLEETSIM_SCENARIO_MODEL_CFG_H
#define FLEETSIM_SCENARIO_MODEL_CFG_H

#include "scenario_walk.h"

/*
 * Read node["config"] of the catalogue model entry `node` (the current path
 * names it) into *m under the id `id`: 1 loaded (every string of *m on the
 * heap, as fs_model_config_load leaves them; notes and source name the file
 * as written), 0 absent (*m untouched), -1 error (*m zeroed): not a string,
 * given together with "base" (has_base), the file missing, or a bad
 * config.json, reported at the file's own FILE:LINE:COL and key with the
 * scenario key that named it.
 */
int fs__sc_model_cfg_load(struct fs__sc *sc, const cJSON *node, const char *id,
                          bool has_base, struct fs_model_spec *m);

#endif
