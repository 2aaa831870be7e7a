/*
 * scenario_cfg.h — the resolved scenario, struct fs_scenario, without the
 * loader's functions: what the world, the replications, the summary and the
 * objective read.  The loader (scenario.h) fills it; a struct fs_scenario
 * owns everything it points to and fs_scenario_free (scenario.h) frees it.
 */
#ifndef FLEETSIM_SCENARIO_CFG_H
#define FLEETSIM_SCENARIO_CFG_H

#include <stddef.h>

#include "fleetsim/catalog.h"
#include "fleetsim/config.h"
#include "fleetsim/fleet_cfg.h"
#include "fleetsim/scenario_sweep_cfg.h"

/*
 * GPUs and models defined by a scenario's "catalog" section or by a
 * `--catalog FILE`, shadowing or extending the built-in catalogue.  Owns its
 * arrays and every string in them (ids, names, aliases, sources, notes).
 */
struct fs_catalog_file {
	struct fs_gpu_spec *gpus;    /* n_gpus entries, ids unique */
	char **gpu_bases;            /* [i]: "base" as written, or NULL */
	size_t n_gpus;
	struct fs_model_spec *models;
	char **model_bases;
	size_t n_models;
};

struct fs_scenario {
	char *path;                  /* file as given */
	char *name;                  /* "name" key, default: file stem */
	char *description;           /* may be "" */
	char sha256_hex[65];         /* of the file's bytes */
	struct fs_sim_cfg sim;
	struct fs_workload_cfg workload;
	struct fs_engine_cfg engine;
	struct fs_catalog_file catalog;  /* the "catalog" section; engine.llm.perf
	                                  * may point into it */
	struct fs_fleet_cfg fleet;       /* VLLM engine: pools, zones, router, spot,
	                                  * autoscaling (implicit single pool when the
	                                  * scenario has no "fleet") */
	char *variant;                   /* the variant loaded, NULL for the base */
	struct fs_sweep_cfg sweep;       /* the "sweep" section (base document) */
	struct fs_objective_cfg objective;  /* the "objective" section */
};

#endif
