/*
 * capacity.h — spot capacity of a zone over time, from a replayed trace:
 * SkyPilot spot-traces JSON ({"metadata":{"gap_seconds":G},"data":[...]},
 * one value per G seconds) or SpotServe's add/remove CSV
 * (timestamp_ms,add|remove,node_id).  Loaded whole into an immutable
 * struct fs_capacity_trace (fleet_cfg.h); queries are pure.  Malformed files
 * fail with file:line:col and what was expected.
 */
#ifndef FLEETSIM_CAPACITY_H
#define FLEETSIM_CAPACITY_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/fleet_cfg.h"

/* Load a trace; `scale` multiplies every capacity (a 0/1 probe trace times
 * N is "N instances or none"), rounding to the nearest integer.  Returns a
 * heap trace (fs_capacity_trace_free) or NULL with err. */
struct fs_capacity_trace *fs_capacity_trace_load(const char *path,
                                                 const char *display_path,
                                                 enum fs_capacity_format format,
                                                 double scale, bool loop,
                                                 struct fs_error *err);
void fs_capacity_trace_free(struct fs_capacity_trace *t);

/* "skypilot" / "spotserve"; -1 when unknown (*out untouched).  _parse is
 * the older name of _from_name. */
int fs_capacity_format_parse(const char *name, enum fs_capacity_format *out);
int fs_capacity_format_from_name(const char *name, enum fs_capacity_format *out);
const char *fs_capacity_format_name(enum fs_capacity_format f);

/* Capacity at t_ns (after the end: the last value, or the looped value). */
int32_t fs_capacity_at(const struct fs_capacity_trace *t, fs_ns t_ns);

/* The first time > t_ns at which the capacity changes; FS_NS_MAX if never. */
fs_ns fs_capacity_next_change(const struct fs_capacity_trace *t, fs_ns t_ns);

/* Fraction of time with capacity >= 1 over one pass of the trace. */
double fs_capacity_available_fraction(const struct fs_capacity_trace *t);

/*
 * An interruption-frequency band as AWS Spot Advisor states it ("<5%",
 * "5-10%", "10-15%", "15-20%", ">20%": share of instances interrupted per
 * month) to a per-instance Poisson rate per hour, at the band's midpoint
 * (>20%: 25%): rate = -ln(1 - p) / 730 h.  Returns -1 for an unknown band.
 */
double fs_spot_band_rate_per_h(const char *band);

#endif
