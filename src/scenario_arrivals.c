/*
 * scenario_arrivals.c — the ARRIVALS object of a scenario: process, rate,
 * diurnal cycle, schedule, spikes and trace replay, checked into a struct
 * fs_arrival_cfg.  The cfg owns its schedule, spikes and loaded trace
 * (fs__sc_arrivals_fini frees them); on error whatever was attached is left
 * for the caller's fini, so nothing leaks.
 */
#include "scenario_walk.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"
#include "fleetsim/trace.h"
#include "fleetsim/workload.h"
#include "scenario_schema.h"

static const char *const ARRIVAL_KEYS[] = {
	"process", "rate_per_s", "cv", "shape", "diurnal", "schedule", "spikes",
	"trace", NULL
};
/* The enums' names (config.h) in value order: a name's index is its value. */
static const char *const PROCESS_NAMES[] = { FS_ARRIVAL_MAP(FS_ENUM_NAME) NULL };
static const char *const DIURNAL_KEYS[] = { "peak_to_trough", "peak_hour", NULL };
static const char *const SCHEDULE_KEYS[] = { "steps", "repeat", NULL };
static const char *const STEP_KEYS[] = { "at", "rate_per_s", NULL };
static const char *const SPIKE_KEYS[] = { "at", "duration", "multiplier", NULL };
static const char *const TRACE_KEYS[] = {
	"path", "format", "time_scale", "rate_scale", "loop", "start_offset", NULL
};
static const char *const FORMAT_NAMES[] = { FS_TRACE_FORMAT_MAP(FS_ENUM_NAME) NULL };

#define MAX_LIST_ITEMS 100000        /* schedule steps, spikes */

static int load_diurnal(struct fs__sc *sc, const cJSON *node, struct fs_arrival_cfg *cfg)
{
	if (fs__sc_check_object(sc, node, DIURNAL_KEYS) != 0 ||
	    fs__sc_require(sc, node, "peak_to_trough") != 0)
		return -1;
	cfg->diurnal = true;
	cfg->diurnal_peak_hour = 14.0;
	if (fs__sc_number(sc, node, "peak_to_trough", 1.0, false, 1e6, false,
	                  &cfg->diurnal_peak_to_trough) < 0 ||
	    fs__sc_number(sc, node, "peak_hour", 0.0, false, 24.0, true,
	                  &cfg->diurnal_peak_hour) < 0)
		return -1;
	return 0;
}

/* Check that node is an array of 1..MAX_LIST_ITEMS elements. */
static int check_list(struct fs__sc *sc, const cJSON *node, bool allow_empty)
{
	int n;

	if (!cJSON_IsArray(node))
		return fs__sc_fail_at(sc, node, "expected an array, found %s",
		                      fs__sc_type_name(node));
	n = cJSON_GetArraySize(node);
	if (n == 0 && !allow_empty)
		return fs__sc_fail_at(sc, node, "expected at least one element, "
		                      "found an empty array");
	if (n > MAX_LIST_ITEMS)
		return fs__sc_fail_at(sc, node, "expected at most %d elements, found %d",
		                      MAX_LIST_ITEMS, n);
	return 0;
}

static int load_step(struct fs__sc *sc, const cJSON *step, size_t i,
                     struct fs_arrival_cfg *cfg)
{
	struct fs_rate_step *s = &cfg->schedule[i];
	char prev[40], found[64];

	if (fs__sc_check_object(sc, step, STEP_KEYS) != 0 ||
	    fs__sc_require(sc, step, "at") != 0 ||
	    fs__sc_require(sc, step, "rate_per_s") != 0 ||
	    fs__sc_duration(sc, step, "at", 0, &s->at_ns) < 0 ||
	    fs__sc_number(sc, step, "rate_per_s", 0.0, false, FS__MAX_RATE_PER_S, false,
	                  &s->rate_per_s) < 0)
		return -1;
	fs__sc_found(sc, fs__sc_get(step, "at"), found, sizeof found);
	if (i == 0 && s->at_ns != 0)
		return fs__sc_fail_member(sc, step, "at", "expected the first step "
		                          "at 0, found %s", found);
	if (i > 0 && s->at_ns <= cfg->schedule[i - 1].at_ns) {
		fs_duration_format(cfg->schedule[i - 1].at_ns, prev, sizeof prev);
		return fs__sc_fail_member(sc, step, "at", "expected steps in ascending "
		                          "order: a time after the previous step's "
		                          "\"%s\", found %s", prev, found);
	}
	return 0;
}

static int load_schedule(struct fs__sc *sc, const cJSON *node, struct fs_arrival_cfg *cfg)
{
	const cJSON *steps, *step;
	size_t saved, saved_i, i = 0;
	double max_rate = 0.0;
	char last[40];

	if (fs__sc_check_object(sc, node, SCHEDULE_KEYS) != 0 ||
	    fs__sc_require(sc, node, "steps") != 0)
		return -1;
	steps = fs__sc_get(node, "steps");
	saved = fs__sc_push_key(sc, "steps");
	if (check_list(sc, steps, false) != 0)
		return -1;
	cfg->n_schedule = (size_t)cJSON_GetArraySize(steps);
	cfg->schedule = fs_xcalloc(cfg->n_schedule, sizeof *cfg->schedule);
	cJSON_ArrayForEach(step, steps) {
		saved_i = fs__sc_push_index(sc, i);
		if (load_step(sc, step, i, cfg) != 0)
			return -1;
		if (cfg->schedule[i].rate_per_s > max_rate)
			max_rate = cfg->schedule[i].rate_per_s;
		fs__sc_pop(sc, saved_i);
		i++;
	}
	if (!(max_rate > 0.0))
		return fs__sc_fail_at(sc, steps, "expected at least one step with "
		                      "rate_per_s > 0, found only zero rates");
	fs__sc_pop(sc, saved);
	if (fs__sc_duration(sc, node, "repeat", 1, &cfg->schedule_period_ns) < 0)
		return -1;
	if (fs__sc_get(node, "repeat") != NULL &&
	    cfg->schedule_period_ns <= cfg->schedule[cfg->n_schedule - 1].at_ns) {
		fs_duration_format(cfg->schedule[cfg->n_schedule - 1].at_ns, last, sizeof last);
		return fs__sc_fail_member(sc, node, "repeat", "expected a period longer "
		                          "than the last step's \"at\" (%s)", last);
	}
	return 0;
}

static int load_spikes(struct fs__sc *sc, const cJSON *node, struct fs_arrival_cfg *cfg)
{
	const cJSON *spike;
	struct fs_spike *s;
	size_t i = 0, saved;

	if (check_list(sc, node, true) != 0)
		return -1;
	cfg->n_spikes = (size_t)cJSON_GetArraySize(node);
	cfg->spikes = fs_xcalloc(cfg->n_spikes, sizeof *cfg->spikes);
	cJSON_ArrayForEach(spike, node) {
		s = &cfg->spikes[i];
		saved = fs__sc_push_index(sc, i);
		if (fs__sc_check_object(sc, spike, SPIKE_KEYS) != 0 ||
		    fs__sc_require(sc, spike, "at") != 0 ||
		    fs__sc_require(sc, spike, "duration") != 0 ||
		    fs__sc_require(sc, spike, "multiplier") != 0 ||
		    fs__sc_duration(sc, spike, "at", 0, &s->at_ns) < 0 ||
		    fs__sc_duration(sc, spike, "duration", 1, &s->dur_ns) < 0 ||
		    fs__sc_number(sc, spike, "multiplier", 0.0, true, 1e6, false,
		                  &s->multiplier) < 0)
			return -1;
		fs__sc_pop(sc, saved);
		i++;
	}
	return 0;
}

static int load_trace(struct fs__sc *sc, const cJSON *node, struct fs_arrival_cfg *cfg)
{
	struct fs_trace_cfg *tc = &cfg->trace;
	const char *rel = NULL;
	char *full;
	int format_idx = 0;
	enum fs_trace_format format;

	tc->time_scale = 1.0;
	tc->rate_scale = 1.0;
	tc->loop = true;
	tc->start_offset_ns = 0;
	if (fs__sc_check_object(sc, node, TRACE_KEYS) != 0 ||
	    fs__sc_require(sc, node, "path") != 0 ||
	    fs__sc_require(sc, node, "format") != 0 ||
	    fs__sc_string(sc, node, "path", false, &rel) < 0 ||
	    fs__sc_enum(sc, node, "format", "trace format", FORMAT_NAMES, &format_idx) < 0 ||
	    fs__sc_number(sc, node, "time_scale", 1e-6, false, 1e6, false,
	                  &tc->time_scale) < 0 ||
	    fs__sc_number(sc, node, "rate_scale", 1e-6, false, 1e6, false,
	                  &tc->rate_scale) < 0 ||
	    fs__sc_bool(sc, node, "loop", &tc->loop) < 0 ||
	    fs__sc_duration(sc, node, "start_offset", 0, &tc->start_offset_ns) < 0)
		return -1;
	format = (enum fs_trace_format)format_idx;
	if (fs__sc_open_data(sc, node, "path", rel, "trace", &full) != 0)
		return -1;
	/* Messages name the file as it opens from the working directory; the
	 * trace keeps the path as written, so a printed scenario loads back. */
	tc->trace = fs_trace_load(full, full, format, sc->err);
	free(full);
	if (tc->trace == NULL)
		return fs__sc_data_failed(sc, node, "path");
	free(tc->trace->path);
	tc->trace->path = fs_xstrdup(rel);
	return 0;
}

/* Keys that a process does not take, checked in document order so the first
 * offending key is reported. */
static int check_process_keys(struct fs__sc *sc, const cJSON *node,
                              enum fs_arrival_kind kind, const char *process)
{
	const cJSON *child;
	const char *key;
	char reason[80];

	snprintf(reason, sizeof reason, "with process \"%s\"", process);
	for (child = node->child; child != NULL; child = child->next) {
		key = child->string;
		if (kind == FS_ARRIVAL_TRACE && strcmp(key, "process") != 0 &&
		    strcmp(key, "trace") != 0)
			return fs__sc_forbid(sc, node, key, reason);
		if (strcmp(key, "trace") == 0 && kind != FS_ARRIVAL_TRACE)
			return fs__sc_forbid(sc, node, key, "unless process is \"trace\"");
		if (strcmp(key, "cv") == 0 && kind != FS_ARRIVAL_GAMMA)
			return fs__sc_forbid(sc, node, key, "unless process is \"gamma\"");
		if (strcmp(key, "shape") == 0 && kind != FS_ARRIVAL_WEIBULL)
			return fs__sc_forbid(sc, node, key, "unless process is \"weibull\"");
	}
	return 0;
}

int fs__sc_load_arrivals(struct fs__sc *sc, const cJSON *node, struct fs_arrival_cfg *cfg)
{
	const cJSON *sched;
	int idx = 0;
	size_t saved;
	int rc;

	if (fs__sc_check_object(sc, node, ARRIVAL_KEYS) != 0 ||
	    fs__sc_require(sc, node, "process") != 0 ||
	    fs__sc_enum(sc, node, "process", "arrival process", PROCESS_NAMES, &idx) < 0)
		return -1;
	cfg->kind = (enum fs_arrival_kind)idx;
	if (check_process_keys(sc, node, cfg->kind, PROCESS_NAMES[idx]) != 0)
		return -1;
	if (cfg->kind == FS_ARRIVAL_TRACE) {
		if (fs__sc_require(sc, node, "trace") != 0)
			return -1;
		saved = fs__sc_push_key(sc, "trace");
		rc = load_trace(sc, fs__sc_get(node, "trace"), cfg);
		fs__sc_pop(sc, saved);
		return rc;
	}
	sched = fs__sc_get(node, "schedule");
	if (sched != NULL && fs__sc_get(node, "diurnal") != NULL)
		return fs__sc_fail_member_key(sc, node, "schedule", "\"schedule\" and "
		                              "\"diurnal\" cannot both be given");
	if (sched != NULL && fs__sc_forbid(sc, node, "rate_per_s",
	                                   "with a \"schedule\" (its steps give the rate)") != 0)
		return -1;
	if ((sched == NULL && fs__sc_require(sc, node, "rate_per_s") != 0) ||
	    (cfg->kind == FS_ARRIVAL_GAMMA && fs__sc_require(sc, node, "cv") != 0) ||
	    (cfg->kind == FS_ARRIVAL_WEIBULL && fs__sc_require(sc, node, "shape") != 0))
		return -1;
	if (fs__sc_number(sc, node, "rate_per_s", 0.0, true, FS__MAX_RATE_PER_S, false,
	                  &cfg->rate_per_s) < 0 ||
	    fs__sc_number(sc, node, "cv", 0.0, true, FS__MAX_CV, false, &cfg->cv) < 0 ||
	    fs__sc_number(sc, node, "shape", 0.1, false, 100.0, false,
	                  &cfg->weibull_shape) < 0)
		return -1;
	rc = 0;
	if (fs__sc_get(node, "diurnal") != NULL) {
		saved = fs__sc_push_key(sc, "diurnal");
		rc = load_diurnal(sc, fs__sc_get(node, "diurnal"), cfg);
		fs__sc_pop(sc, saved);
	}
	if (rc == 0 && sched != NULL) {
		saved = fs__sc_push_key(sc, "schedule");
		rc = load_schedule(sc, sched, cfg);
		fs__sc_pop(sc, saved);
	}
	if (rc == 0 && fs__sc_get(node, "spikes") != NULL) {
		saved = fs__sc_push_key(sc, "spikes");
		rc = load_spikes(sc, fs__sc_get(node, "spikes"), cfg);
		fs__sc_pop(sc, saved);
		if (rc == 0)
			fs_arrival_prepare(cfg);
	}
	return rc;
}

void fs__sc_arrivals_fini(struct fs_arrival_cfg *cfg)
{
	free(cfg->schedule);
	free(cfg->spikes);
	fs_arrival_fini(cfg);
	fs_trace_free(cfg->trace.trace);
	cfg->schedule = NULL;
	cfg->spikes = NULL;
	cfg->trace.trace = NULL;
	cfg->n_schedule = cfg->n_spikes = 0;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_arrivals_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(ARRIVAL_KEYS),
		FS__SC_TABLE(PROCESS_NAMES),
		FS__SC_TABLE(DIURNAL_KEYS),
		FS__SC_TABLE(SCHEDULE_KEYS),
		FS__SC_TABLE(STEP_KEYS),
		FS__SC_TABLE(SPIKE_KEYS),
		FS__SC_TABLE(TRACE_KEYS),
		FS__SC_TABLE(FORMAT_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
