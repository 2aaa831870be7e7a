/*
 * scenario_schema.h — internal: the scenario loader's own key tables (the
 * keys an object takes) and name tables (the names an enum key takes),
 * exported read-only for `fleetsim schema` (src/cli_schema.c).  Each
 * scenario*.c file with tables returns them from one function as a list
 * ending in { NULL, NULL }; every list is the loader's static NULL-terminated
 * array itself, never a copy, so the schema cannot drift from the loader.
 */
#ifndef FLEETSIM_SCENARIO_SCHEMA_H
#define FLEETSIM_SCENARIO_SCHEMA_H

#include <stddef.h>

/* One table: its identifier in the defining file, and its entries. */
struct fs__sc_table {
	const char *name;            /* e.g. "POOL_KEYS" */
	const char *const *list;     /* NULL-terminated; static storage */
};

/* { "NAME", NAME }: the table's identifier spelt by the compiler. */
#define FS__SC_TABLE(array) { #array, array }

const struct fs__sc_table *fs__sc_root_tables(void);       /* scenario.c */
const struct fs__sc_table *fs__sc_arrivals_tables(void);   /* scenario_arrivals.c */
const struct fs__sc_table *fs__sc_catalog_tables(void);    /* scenario_catalog.c */
const struct fs__sc_table *fs__sc_efficiency_tables(void); /* scenario_efficiency.c */
const struct fs__sc_table *fs__sc_engine_tables(void);     /* scenario_engine.c */
const struct fs__sc_table *fs__sc_fleet_tables(void);      /* scenario_fleet.c */
const struct fs__sc_table *fs__sc_llm_tables(void);        /* scenario_llm.c */
const struct fs__sc_table *fs__sc_objective_tables(void);  /* scenario_objective.c */
const struct fs__sc_table *fs__sc_pool_tables(void);       /* scenario_pool.c */
const struct fs__sc_table *fs__sc_scale_tables(void);      /* scenario_scale.c */
const struct fs__sc_table *fs__sc_spot_tables(void);       /* scenario_spot.c */
const struct fs__sc_table *fs__sc_sweep_tables(void);      /* scenario_sweep.c */
const struct fs__sc_table *fs__sc_users_tables(void);      /* scenario_users.c */
const struct fs__sc_table *fs__sc_variant_tables(void);    /* scenario_variant.c */
const struct fs__sc_table *fs__sc_workload_tables(void);   /* scenario_workload.c */

/* Engine type i (0-based) of the loader's engine table: its "type" name,
 * with *keys set to the keys that type takes; NULL past the last type. */
const char *fs__sc_engine_type(size_t i, const char *const **keys);

/* The keys length distribution `dist` (an index into the workload's
 * "DIST_NAMES" table) takes besides "dist", "min" and "max"; NULL when
 * dist is out of range. */
const char *const *fs__sc_length_dist_keys(size_t dist);

#endif
