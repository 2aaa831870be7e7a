/*
 * recorder.h — internal: turns one world's request lifecycle into a
 * struct fs_rep_result (histograms, counts, SLO attainment, time series,
 * optional per-request rows).  Owned by the world; the result it builds is
 * handed over by fs__recorder_finish.
 */
#ifndef FLEETSIM_RECORDER_H
#define FLEETSIM_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/result.h"
#include "fleetsim/scenario.h"
#include "fleetsim/workload.h"

struct fs_recorder {
	const struct fs_scenario *sc;
	struct fs_rep_result *result;        /* being built; NULL once handed over */
	bool record_rows;
	size_t cap_rows;
};

void fs__recorder_init(struct fs_recorder *rec, const struct fs_scenario *sc,
                       uint64_t replication, bool record_rows, int servers);
void fs__recorder_fini(struct fs_recorder *rec);

void fs__recorder_arrival(struct fs_recorder *rec, const struct fs_request *req);

/* A request completed: service (or prefill) started at start_ns, its first
 * token at first_token_ns, and it ended at end_ns. */
void fs__recorder_completion(struct fs_recorder *rec, const struct fs_request *req,
                             fs_ns start_ns, fs_ns first_token_ns, fs_ns end_ns);

/* At the end: a request still in the system (start_ns -1 if waiting). */
void fs__recorder_in_flight(struct fs_recorder *rec, const struct fs_request *req,
                            fs_ns start_ns);

/* Queue length and busy servers changed (or may have) at t_ns. */
void fs__recorder_levels(struct fs_recorder *rec, fs_ns t_ns, uint64_t waiting,
                         int busy);

/* Close the time series at end_ns, merge classes into "all", sort rows by id;
 * returns the result (caller owns it). */
struct fs_rep_result *fs__recorder_finish(struct fs_recorder *rec, fs_ns end_ns);

#endif
