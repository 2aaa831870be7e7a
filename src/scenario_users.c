/*
 * scenario_users.c — a class's closed-loop keys: `users` (a count or a
 * schedule), `think` (a THINK time) and `session` (turns and the think time
 * between turns), checked into a heap struct fs_closed_cfg that the class
 * owns (fs__sc_closed_fini frees it), and their resolved JSON form.
 * MODEL: U1-U9.
 */
#include "scenario_walk.h"

#include <stdlib.h>
#include <string.h>

#include "fleetsim/workload.h"
#include "scenario_schema.h"

#define MAX_USERS 100000

static const char *const USERS_KEYS[] = { "steps", "repeat", NULL };
static const char *const STEP_KEYS[] = { "at", "users", NULL };
static const char *const SESSION_KEYS[] = { "turns", "think", NULL };
static const char *const THINK_KEYS[] = { "dist", "mean", "cv", NULL };
/* The service-time names (config.h) in value order: an index is its value. */
static const char *const THINK_NAMES[] = { FS_SERVICE_MAP(FS_ENUM_NAME) NULL };

/* obj[key] as a THINK: a duration (fixed), or {"dist", "mean", "cv"} in the
 * service-time vocabulary.  Absent: 0 (benchmark mode).  MODEL: U3 */
static int load_think(struct fs__sc *sc, const cJSON *obj, const char *key,
                      struct fs_service_cfg *t)
{
	const cJSON *node = fs__sc_get(obj, key);
	size_t saved;
	int idx = 0, rc = 0;

	t->kind = FS_SERVICE_FIXED;
	t->mean_ns = 0;
	t->cv = 0;
	if (node == NULL)
		return 0;
	if (!cJSON_IsObject(node))
		return fs__sc_duration_upto(sc, obj, key, 0, FS__MAX_SERVICE_NS,
		                            &t->mean_ns) < 0 ? -1 : 0;
	saved = fs__sc_push_key(sc, key);
	if (fs__sc_check_object(sc, node, THINK_KEYS) != 0 ||
	    fs__sc_require(sc, node, "dist") != 0 ||
	    fs__sc_enum(sc, node, "dist", "think-time distribution", THINK_NAMES, &idx) < 0)
		return -1;
	t->kind = (enum fs_service_kind)idx;
	if (t->kind != FS_SERVICE_LOGNORMAL &&
	    fs__sc_forbid(sc, node, "cv", "unless dist is \"lognormal\"") != 0)
		return -1;
	if (fs__sc_require(sc, node, "mean") != 0 ||
	    (t->kind == FS_SERVICE_LOGNORMAL && fs__sc_require(sc, node, "cv") != 0) ||
	    fs__sc_duration_upto(sc, node, "mean", t->kind == FS_SERVICE_FIXED ? 0 : 1,
	                         FS__MAX_SERVICE_NS, &t->mean_ns) < 0 ||
	    fs__sc_number(sc, node, "cv", 0.0, true, FS__MAX_CV, false, &t->cv) < 0)
		rc = -1;
	if (rc == 0)
		fs__sc_pop(sc, saved);
	return rc;
}

static int load_step(struct fs__sc *sc, const cJSON *step, size_t i,
                     struct fs_closed_cfg *cc)
{
	struct fs_users_step *s = &cc->schedule[i];
	char prev[40], found[64];

	if (fs__sc_check_object(sc, step, STEP_KEYS) != 0 ||
	    fs__sc_require(sc, step, "at") != 0 ||
	    fs__sc_require(sc, step, "users") != 0 ||
	    fs__sc_duration(sc, step, "at", 0, &s->at_ns) < 0 ||
	    fs__sc_int(sc, step, "users", 0, MAX_USERS, &s->users) < 0)
		return -1;
	fs__sc_found(sc, fs__sc_get(step, "at"), found, sizeof found);
	if (i == 0 && s->at_ns != 0)
		return fs__sc_fail_member(sc, step, "at", "expected the first step "
		                          "at 0, found %s", found);
	if (i > 0 && s->at_ns <= cc->schedule[i - 1].at_ns) {
		fs_duration_format(cc->schedule[i - 1].at_ns, prev, sizeof prev);
		return fs__sc_fail_member(sc, step, "at", "expected steps in ascending "
		                          "order: a time after the previous step's "
		                          "\"%s\", found %s", prev, found);
	}
	if (s->users > cc->users_max)
		cc->users_max = s->users;
	return 0;
}

/* "users": an integer, or a schedule {"steps": [{"at", "users"}], "repeat"}.
 * MODEL: U2 */
static int load_users(struct fs__sc *sc, const cJSON *obj, struct fs_closed_cfg *cc)
{
	const cJSON *node = fs__sc_get(obj, "users"), *steps, *step;
	size_t saved, saved_s, saved_i, i = 0;
	char last[40];
	int n;

	if (!cJSON_IsObject(node)) {
		if (fs__sc_int(sc, obj, "users", 0, MAX_USERS, &cc->users) < 0)
			return -1;
		cc->users_max = cc->users;
		return 0;
	}
	saved = fs__sc_push_key(sc, "users");
	if (fs__sc_check_object(sc, node, USERS_KEYS) != 0 ||
	    fs__sc_require(sc, node, "steps") != 0)
		return -1;
	steps = fs__sc_get(node, "steps");
	saved_s = fs__sc_push_key(sc, "steps");
	if (fs__sc_check_array(sc, steps, 1, MAX_USERS, "steps") != 0)
		return -1;
	n = cJSON_GetArraySize(steps);
	cc->n_schedule = (size_t)n;
	cc->schedule = fs_xcalloc(cc->n_schedule, sizeof *cc->schedule);
	cJSON_ArrayForEach(step, steps) {
		saved_i = fs__sc_push_index(sc, i);
		if (load_step(sc, step, i, cc) != 0)
			return -1;
		fs__sc_pop(sc, saved_i);
		i++;
	}
	fs__sc_pop(sc, saved_s);
	if (fs__sc_duration(sc, node, "repeat", 1, &cc->schedule_period_ns) < 0)
		return -1;
	if (fs__sc_get(node, "repeat") != NULL &&
	    cc->schedule_period_ns <= cc->schedule[cc->n_schedule - 1].at_ns) {
		fs_duration_format(cc->schedule[cc->n_schedule - 1].at_ns, last, sizeof last);
		return fs__sc_fail_member(sc, node, "repeat", "expected a period longer "
		                          "than the last step's \"at\" (%s)", last);
	}
	fs__sc_pop(sc, saved);
	return 0;
}

static int load_session(struct fs__sc *sc, const cJSON *node, struct fs_closed_cfg *cc)
{
	size_t saved;

	if (fs__sc_check_object(sc, node, SESSION_KEYS) != 0 ||
	    fs__sc_require(sc, node, "turns") != 0)
		return -1;
	saved = fs__sc_push_key(sc, "turns");
	if (fs__sc_load_length(sc, fs__sc_get(node, "turns"), false, &cc->turns) != 0)
		return -1;
	fs__sc_pop(sc, saved);
	if (load_think(sc, node, "think", &cc->turn_think) != 0)
		return -1;
	cc->sessions = true;
	return 0;
}

int fs__sc_load_closed(struct fs__sc *sc, const cJSON *node, struct fs_class_cfg *cl)
{
	struct fs_closed_cfg *cc;
	bool users = fs__sc_get(node, "users") != NULL;
	const cJSON *session = fs__sc_get(node, "session");
	size_t saved;

	if (!users && fs__sc_get(node, "think") != NULL)
		return fs__sc_forbid(sc, node, "think", "without \"users\" (a session's "
		                     "think time between turns is session.think)");
	if (!users && session == NULL)
		return 0;
	if (users && (fs__sc_forbid(sc, node, "arrivals", "when the class has "
	                            "\"users\" (closed loop: users replace arrivals)") != 0 ||
	              fs__sc_forbid(sc, node, "share", "when the class has \"users\"") != 0))
		return -1;
	cc = cl->closed = fs_xcalloc(1, sizeof *cc);
	cc->has_users = users;
	if (users && (load_users(sc, node, cc) != 0 ||
	              load_think(sc, node, "think", &cc->think) != 0))
		return -1;
	if (session != NULL) {
		saved = fs__sc_push_key(sc, "session");
		if (load_session(sc, session, cc) != 0)
			return -1;
		fs__sc_pop(sc, saved);
	}
	return 0;
}

/* After the lengths are loaded: a session's later turns have no trace row
 * to take lengths from.  MODEL: U4 */
int fs__sc_check_closed(struct fs__sc *sc, const cJSON *node, const struct fs_class_cfg *cl)
{
	if (cl->closed == NULL || !cl->closed->sessions)
		return 0;
	if (cl->prompt.kind == FS_LENGTH_TRACE || cl->output.kind == FS_LENGTH_TRACE)
		return fs__sc_fail_member_key(sc, node, "session", "a class with a "
		                              "\"session\" needs prompt_tokens and "
		                              "output_tokens that are not taken from a "
		                              "trace (its later turns have no trace row)");
	return 0;
}

void fs__sc_closed_fini(struct fs_class_cfg *cl)
{
	if (cl->closed == NULL)
		return;
	free(cl->closed->schedule);
	fs_length_fini(&cl->closed->turns);
	free(cl->closed);
	cl->closed = NULL;
}

static void print_think(cJSON *obj, const char *key, const struct fs_service_cfg *t)
{
	cJSON *o;

	if (t->kind == FS_SERVICE_FIXED) {
		fs__sc_print_duration(obj, key, t->mean_ns);
		return;
	}
	o = cJSON_AddObjectToObject(obj, key);
	cJSON_AddStringToObject(o, "dist", t->kind == FS_SERVICE_EXPONENTIAL ?
	                        "exponential" : "lognormal");
	fs__sc_print_duration(o, "mean", t->mean_ns);
	if (t->kind == FS_SERVICE_LOGNORMAL)
		fs__sc_print_number(o, "cv", t->cv);
}

void fs__sc_print_closed(cJSON *obj, const struct fs_class_cfg *cl)
{
	const struct fs_closed_cfg *cc = cl->closed;

	if (cc == NULL)
		return;
	if (cc->has_users) {
		if (cc->n_schedule == 0) {
			fs__sc_print_number(obj, "users", (double)cc->users);
		} else {
			cJSON *u = cJSON_AddObjectToObject(obj, "users");
			cJSON *steps = cJSON_AddArrayToObject(u, "steps");

			for (size_t i = 0; i < cc->n_schedule; i++) {
				cJSON *s = cJSON_CreateObject();

				fs__sc_print_duration(s, "at", cc->schedule[i].at_ns);
				fs__sc_print_number(s, "users", (double)cc->schedule[i].users);
				cJSON_AddItemToArray(steps, s);
			}
			if (cc->schedule_period_ns > 0)
				fs__sc_print_duration(u, "repeat", cc->schedule_period_ns);
		}
		print_think(obj, "think", &cc->think);
	}
	if (cc->sessions) {
		cJSON *s = cJSON_AddObjectToObject(obj, "session");

		fs__sc_print_length(s, "turns", &cc->turns);
		print_think(s, "think", &cc->turn_think);
	}
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_users_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(USERS_KEYS),
		FS__SC_TABLE(STEP_KEYS),
		FS__SC_TABLE(SESSION_KEYS),
		FS__SC_TABLE(THINK_KEYS),
		FS__SC_TABLE(THINK_NAMES),
		{ NULL, NULL }
	};

	return tables;
}
