/*
 * scenario_scale.h — the "fleet.autoscale" section (scenario_scale.c):
 * defaults, loading with located errors, and printing for `validate`.
 * The schedule array belongs to the fleet config (freed with it).
 */
#ifndef FLEETSIM_SCENARIO_SCALE_H
#define FLEETSIM_SCENARIO_SCALE_H

#include "scenario_walk.h"

#include "fleetsim/scenario_cfg.h"

/* Reset as to the defaults (disabled; HPA defaults for every key). */
void fs__sc_autoscale_defaults(struct fs_autoscale_cfg *as);

/* Load fleet.autoscale (node) into fleet->autoscale; 0, or -1 with sc's
 * error set.  The pools must be loaded. */
int fs__sc_load_autoscale(struct fs__sc *sc, const cJSON *node, struct fs_fleet_cfg *fleet);

/* Add the resolved "autoscale" object to fl. */
void fs__sc_print_autoscale(const struct fs_scenario *s, cJSON *fl);

#endif
