/*
 * scenario_workload.c — the "workload" section: the optional shared arrival
 * process, and the classes with their share, own arrivals, LENGTH
 * distributions, SLO and priority.  Shares of the classes that use the shared
 * process are normalised to sum to 1.  The cfg owns its classes, names,
 * arrival data and length tables; fs__sc_workload_fini frees them.
 */
#include "scenario_walk.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/trace.h"
#include "fleetsim/workload.h"
#include "scenario_schema.h"

#define MAX_CLASSES 64

static const char *const WORKLOAD_KEYS[] = { "arrivals", "classes", NULL };
static const char *const CLASS_KEYS[] = {
	"name", "share", "arrivals", "prompt_tokens", "output_tokens", "slo",
	"priority", "users", "think", "session", NULL
};
static const char *const SLO_KEYS[] = { "ttft", "tpot", "e2e", "attainment", NULL };
static const char *const LENGTH_KEYS[] = {
	"dist", "tokens", "min", "max", "median", "sigma", "s", "n", "path",
	"column", NULL
};
/* The enum's names (config.h) in value order: a name's index is its value. */
static const char *const DIST_NAMES[] = { FS_LENGTH_MAP(FS_ENUM_NAME) NULL };
/* Keys each dist takes besides "dist", "min" and "max" (NULL-terminated). */
static const char *const *const DIST_KEYS[] = {
	(const char *const[]){ "tokens", NULL },
	(const char *const[]){ NULL },
	(const char *const[]){ "median", "sigma", NULL },
	(const char *const[]){ "s", "n", NULL },
	(const char *const[]){ "path", "column", NULL },
	(const char *const[]){ NULL },
};

static bool dist_takes(int dist, const char *key)
{
	const char *const *k;

	if (strcmp(key, "dist") == 0 || strcmp(key, "min") == 0 ||
	    strcmp(key, "max") == 0)
		return true;
	for (k = DIST_KEYS[dist]; *k != NULL; k++)
		if (strcmp(*k, key) == 0)
			return true;
	return false;
}

static int load_empirical(struct fs__sc *sc, const cJSON *node, struct fs_length_cfg *cfg)
{
	const char *rel = NULL, *column = NULL;
	char *full;
	int rc;

	if (fs__sc_require(sc, node, "path") != 0 ||
	    fs__sc_string(sc, node, "path", false, &rel) < 0 ||
	    fs__sc_string(sc, node, "column", false, &column) < 0)
		return -1;
	if (fs__sc_open_data(sc, node, "path", rel, "empirical file", &full) != 0)
		return -1;
	rc = fs_empirical_load(full, full, column, &cfg->empirical, &cfg->n_empirical,
	                       sc->err);
	free(full);
	if (rc != 0)
		return fs__sc_data_failed(sc, node, "path");
	cfg->empirical_path = fs_xstrdup(rel);
	cfg->empirical_column = fs_xstrdup(column);
	return 0;
}

/* A LENGTH object; `from_trace` tells whether the class's arrivals are a
 * trace (the only case where "dist": "trace" is allowed). */
static int load_length(struct fs__sc *sc, const cJSON *node, bool from_trace,
                       struct fs_length_cfg *cfg)
{
	const cJSON *child;
	int dist = 0;
	char reason[64], msg[256];
	int64_t tokens = 0, n = 0;

	if (fs__sc_check_object(sc, node, LENGTH_KEYS) != 0 ||
	    fs__sc_require(sc, node, "dist") != 0 ||
	    fs__sc_enum(sc, node, "dist", "length distribution", DIST_NAMES, &dist) < 0)
		return -1;
	cfg->kind = (enum fs_length_kind)dist;
	snprintf(reason, sizeof reason, "with dist \"%s\"", DIST_NAMES[dist]);
	for (child = node->child; child != NULL; child = child->next)
		if (!dist_takes(dist, child->string))
			return fs__sc_forbid(sc, node, child->string, reason);
	if (cfg->kind == FS_LENGTH_TRACE && !from_trace)
		return fs__sc_fail_member(sc, node, "dist", "dist \"trace\" needs the "
		                          "class's arrivals to be a trace");
	if (cfg->kind == FS_LENGTH_UNIFORM &&
	    (fs__sc_require(sc, node, "min") != 0 || fs__sc_require(sc, node, "max") != 0))
		return -1;
	cfg->min_tokens = 1;
	cfg->max_tokens = FS__MAX_LENGTH_TOKENS;
	if (fs__sc_int(sc, node, "min", 1, INT32_MAX, &cfg->min_tokens) < 0 ||
	    fs__sc_int(sc, node, "max", cfg->min_tokens, INT32_MAX, &cfg->max_tokens) < 0)
		return -1;
	/* MODEL: W17 — min <= max holds for the default max too: a min above
	 * it would clamp every draw to one value (and print a max the
	 * resolved form could not load back). */
	if (fs__sc_get(node, "max") == NULL && cfg->min_tokens > cfg->max_tokens) {
		char found[64];

		fs__sc_found(sc, fs__sc_get(node, "min"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "min", "expected a value <= %lld (the "
		                          "default \"max\"; give \"max\" to raise it), "
		                          "found %s", (long long)cfg->max_tokens, found);
	}
	switch (cfg->kind) {
	case FS_LENGTH_FIXED:
		if (fs__sc_require(sc, node, "tokens") != 0 ||
		    fs__sc_int(sc, node, "tokens", cfg->min_tokens, cfg->max_tokens, &tokens) < 0)
			return -1;
		cfg->fixed_tokens = tokens;
		return 0;
	case FS_LENGTH_UNIFORM:
	case FS_LENGTH_TRACE:
		return 0;
	case FS_LENGTH_LOGNORMAL:
		if (fs__sc_require(sc, node, "median") != 0 ||
		    fs__sc_require(sc, node, "sigma") != 0 ||
		    fs__sc_number(sc, node, "median", 0.0, true, INFINITY, false,
		                  &cfg->median_tokens) < 0 ||
		    fs__sc_number(sc, node, "sigma", 0.0, true, 10.0, false,
		                  &cfg->sigma) < 0)
			return -1;
		return fs_length_prepare(cfg, msg, sizeof msg);    /* cannot fail */
	case FS_LENGTH_ZIPF:
		if (fs__sc_require(sc, node, "s") != 0 || fs__sc_require(sc, node, "n") != 0 ||
		    fs__sc_number(sc, node, "s", 0.0, true, 100.0, false, &cfg->zipf_s) < 0 ||
		    fs__sc_int(sc, node, "n", 1, 1000000, &n) < 0)
			return -1;
		cfg->zipf_n = n;
		if (fs_length_prepare(cfg, msg, sizeof msg) != 0)
			return fs__sc_fail_at(sc, node, "%s", msg);
		return 0;
	case FS_LENGTH_EMPIRICAL:
		return load_empirical(sc, node, cfg);
	}
	return fs__sc_fail_at(sc, node, "internal error: unhandled length kind");
}

int fs__sc_load_length(struct fs__sc *sc, const cJSON *node, bool from_trace,
                       struct fs_length_cfg *cfg)
{
	return load_length(sc, node, from_trace, cfg);
}

static int load_slo(struct fs__sc *sc, const cJSON *node, struct fs_slo_cfg *slo)
{
	if (fs__sc_check_object(sc, node, SLO_KEYS) != 0 ||
	    fs__sc_duration(sc, node, "ttft", 1, &slo->ttft_ns) < 0 ||
	    fs__sc_duration(sc, node, "tpot", 1, &slo->tpot_ns) < 0 ||
	    fs__sc_duration(sc, node, "e2e", 1, &slo->e2e_ns) < 0 ||
	    fs__sc_number(sc, node, "attainment", 0.0, false, 1.0, false,
	                  &slo->attainment) < 0)
		return -1;
	return 0;
}

/* Run load(sc, obj[key], ...) with the path extended by key. */
#define SUB(sc, obj, key, call)                                         \
	do {                                                            \
		size_t saved_ = fs__sc_push_key((sc), (key));           \
		const cJSON *sub_ = fs__sc_get((obj), (key));           \
		int rc_ = (call);                                       \
		(void)sub_;                                             \
		fs__sc_pop((sc), saved_);                               \
		if (rc_ != 0)                                           \
			return -1;                                      \
	} while (0)

static int load_class(struct fs__sc *sc, const cJSON *node,
                      const struct fs_workload_cfg *wl, struct fs_class_cfg *cl)
{
	const char *name = NULL;
	int64_t priority = 0;
	bool from_trace, users;

	if (fs__sc_check_object(sc, node, CLASS_KEYS) != 0 ||
	    fs__sc_require(sc, node, "name") != 0 ||
	    fs__sc_string(sc, node, "name", false, &name) < 0)
		return -1;
	cl->name = fs_xstrdup(name);
	if (fs__sc_load_closed(sc, node, cl) != 0)
		return -1;
	users = cl->closed != NULL && cl->closed->has_users;
	cl->own_arrivals = fs__sc_get(node, "arrivals") != NULL;
	if (cl->own_arrivals && fs__sc_forbid(sc, node, "share",
	                                      "when the class has its own \"arrivals\"") != 0)
		return -1;
	if (!cl->own_arrivals && !users && !wl->has_shared_arrivals) {
		if (fs__sc_get(node, "share") != NULL)
			return fs__sc_fail_member_key(sc, node, "share", "key \"share\" "
			                              "needs a shared workload.arrivals "
			                              "process to split");
		return fs__sc_fail_at(sc, node, "missing required key \"arrivals\" "
		                      "(there is no workload.arrivals to share)");
	}
	if (!cl->own_arrivals && !users && (fs__sc_require(sc, node, "share") != 0 ||
	    fs__sc_number(sc, node, "share", 0.0, false, INFINITY, false, &cl->share) < 0))
		return -1;
	if (cl->own_arrivals)
		SUB(sc, node, "arrivals", fs__sc_load_arrivals(sc, sub_, &cl->arrivals));
	from_trace = users ? false : cl->own_arrivals ? cl->arrivals.kind == FS_ARRIVAL_TRACE :
	             wl->arrivals.kind == FS_ARRIVAL_TRACE;
	cl->prompt.kind = cl->output.kind = FS_LENGTH_TRACE;
	cl->prompt.min_tokens = cl->output.min_tokens = 1;
	cl->prompt.max_tokens = cl->output.max_tokens = FS__MAX_LENGTH_TOKENS;
	if (!from_trace && (fs__sc_require(sc, node, "prompt_tokens") != 0 ||
	                    fs__sc_require(sc, node, "output_tokens") != 0))
		return -1;
	if (fs__sc_get(node, "prompt_tokens") != NULL)
		SUB(sc, node, "prompt_tokens", load_length(sc, sub_, from_trace, &cl->prompt));
	if (fs__sc_get(node, "output_tokens") != NULL)
		SUB(sc, node, "output_tokens", load_length(sc, sub_, from_trace, &cl->output));
	cl->slo.attainment = 0.99;
	if (fs__sc_get(node, "slo") != NULL)
		SUB(sc, node, "slo", load_slo(sc, sub_, &cl->slo));
	if (fs__sc_int(sc, node, "priority", -1000, 1000, &priority) < 0)
		return -1;
	cl->priority = (int)priority;
	return fs__sc_check_closed(sc, node, cl);
}

/* Closed-loop users drive the class: it takes no share (MODEL: U1). */
static bool class_has_users(const struct fs_class_cfg *cl)
{
	return cl->closed != NULL && cl->closed->has_users;
}

/* Shares of the sharing classes must sum > 0; normalise them to 1 (a sum
 * already within rounding of 1 is kept, so printed shares load back equal). */
static int normalise_shares(struct fs__sc *sc, const cJSON *classes,
                            struct fs_workload_cfg *wl)
{
	double sum = 0.0;
	size_t i, n_sharing = 0;

	for (i = 0; i < wl->n_classes; i++) {
		if (!wl->classes[i].own_arrivals && !class_has_users(&wl->classes[i])) {
			sum += wl->classes[i].share;
			n_sharing++;
		}
	}
	if (wl->has_shared_arrivals && n_sharing == 0)
		return fs__sc_fail_at(sc, classes, "no class uses workload.arrivals: "
		                      "give at least one class a \"share\" instead of "
		                      "its own \"arrivals\"");
	if (n_sharing > 0 && !(sum > 0.0))
		return fs__sc_fail_at(sc, classes, "the shares of the classes using "
		                      "workload.arrivals sum to 0; at least one must be > 0");
	if (fabs(sum - 1.0) <= 4.0 * DBL_EPSILON * (double)n_sharing)
		return 0;
	for (i = 0; i < wl->n_classes; i++)
		if (!wl->classes[i].own_arrivals && !class_has_users(&wl->classes[i]))
			wl->classes[i].share /= sum;
	return 0;
}

int fs__sc_load_workload(struct fs__sc *sc, const cJSON *node, struct fs_workload_cfg *wl)
{
	const cJSON *classes, *cls;
	size_t saved, saved_i, i = 0, j;
	int n;

	if (fs__sc_check_object(sc, node, WORKLOAD_KEYS) != 0 ||
	    fs__sc_require(sc, node, "classes") != 0)
		return -1;
	if (fs__sc_get(node, "arrivals") != NULL) {
		wl->has_shared_arrivals = true;
		SUB(sc, node, "arrivals", fs__sc_load_arrivals(sc, sub_, &wl->arrivals));
	}
	classes = fs__sc_get(node, "classes");
	saved = fs__sc_push_key(sc, "classes");
	if (fs__sc_check_array(sc, classes, 1, MAX_CLASSES, "classes") != 0)
		return -1;
	n = cJSON_GetArraySize(classes);
	wl->classes = fs_xcalloc((size_t)n, sizeof *wl->classes);
	wl->n_classes = (size_t)n;
	cJSON_ArrayForEach(cls, classes) {
		saved_i = fs__sc_push_index(sc, i);
		if (load_class(sc, cls, wl, &wl->classes[i]) != 0)
			return -1;
		for (j = 0; j < i; j++)
			if (strcmp(wl->classes[j].name, wl->classes[i].name) == 0)
				return fs__sc_fail_member(sc, cls, "name", "duplicate class "
				                          "name \"%s\" (also workload."
				                          "classes[%zu])", wl->classes[i].name, j);
		fs__sc_pop(sc, saved_i);
		i++;
	}
	if (normalise_shares(sc, classes, wl) != 0)
		return -1;
	fs__sc_pop(sc, saved);
	return 0;
}

void fs__sc_workload_fini(struct fs_workload_cfg *wl)
{
	size_t i;

	fs__sc_arrivals_fini(&wl->arrivals);
	for (i = 0; i < wl->n_classes; i++) {
		free(wl->classes[i].name);
		fs__sc_arrivals_fini(&wl->classes[i].arrivals);
		fs_length_fini(&wl->classes[i].prompt);
		fs_length_fini(&wl->classes[i].output);
		fs__sc_closed_fini(&wl->classes[i]);
	}
	free(wl->classes);
	wl->classes = NULL;
	wl->n_classes = 0;
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_workload_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(WORKLOAD_KEYS),
		FS__SC_TABLE(CLASS_KEYS),
		FS__SC_TABLE(SLO_KEYS),
		FS__SC_TABLE(LENGTH_KEYS),
		FS__SC_TABLE(DIST_NAMES),
		{ NULL, NULL }
	};

	return tables;
}

const char *const *fs__sc_length_dist_keys(size_t dist)
{
	return dist < sizeof DIST_KEYS / sizeof DIST_KEYS[0] ? DIST_KEYS[dist] : NULL;
}
