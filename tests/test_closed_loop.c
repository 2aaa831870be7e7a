/*
 * test_closed_loop.c — closed-loop users and sessions (MODEL: U1-U9).
 * The machine-repairman model (N users, exponential think Z, one FCFS
 * exponential server of mean S) against exact Mean Value Analysis; benchmark
 * mode against its hand computation, and with drain nothing sent after the
 * horizon; sessions' growing prompts, user schedules and open sessions
 * through the workload API; determinism over thread counts; bad input; and
 * the concurrency sweep scenario end to end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "fleetsim/workload.h"
#include "util_test.h"

static struct fs_scenario *load(const char *text)
{
	return fs_test_load_text(text, "closed.json", ".");
}

static struct fs_summary *simulate(const struct fs_scenario *sc, int threads)
{
	struct fs_summary *s = fs_test_summarise(sc, threads);

	assert_int_equal(s->unstable_replications, 0);
	return s;
}

/* ---- the machine-repairman model against MVA ------------------------------ */

/* Exact MVA of one FCFS exponential server with N users thinking Z:
 * R(n) = S (1 + Q(n-1)), X(n) = n / (R(n) + Z), Q(n) = X(n) R(n). */
static void mva(int n_users, double s_s, double z_s, double *r_s, double *x_per_s)
{
	double q = 0, r = 0, x = 0;

	for (int n = 1; n <= n_users; n++) {
		r = s_s * (1 + q);
		x = n / (r + z_s);
		q = x * r;
	}
	*r_s = r;
	*x_per_s = x;
}

/*
 * S = 1 s, Z = 16 s (the knee N* = (S + Z) / S = 17).  Horizon 400,000 s
 * (warm-up 4,000 s) x 8 replications gives 3.2 million responses at N = 64;
 * at N <= 4, where a response takes 17 s of a user's cycle and a cycle's
 * coefficient of variation is 0.94, four times that horizon (750,000
 * responses at N = 1).  The stat check: the 95% half-widths of R and X
 * must be below 0.6% of the exact value at every N (asserted), so the 2%
 * tolerance is more than three half-widths (about eight standard errors):
 * a correct simulator fails it with negligible probability, while a bias of
 * 2% or more fails it.  Each estimate must land within 2% of MVA.  (At
 * 400,000 s, N = 1's expected half-width of X is 0.94 / sqrt(23,500) x
 * t(7) / sqrt(8) = 0.51%, and the 0.6% bound failed on 3 of 6 seeds tried.)
 */
static void check_repairman(int n_users)
{
	char text[1024];
	struct fs_scenario *sc;
	struct fs_summary *s;
	const struct fs_group_summary *g;
	double r_s, x_per_s;

	snprintf(text, sizeof text,
	         "{ \"name\": \"repairman\", \"simulation\": { \"horizon\": \"%ds\","
	         " \"warmup\": \"4000s\", \"replications\": 8, \"seed\": 20261201 },"
	         " \"workload\": { \"classes\": [ { \"name\": \"users\", \"users\": %d,"
	         " \"think\": { \"dist\": \"exponential\", \"mean\": \"16s\" },"
	         " \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 },"
	         " \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 } } ] },"
	         " \"engine\": { \"type\": \"queue\", \"servers\": 1,"
	         " \"service\": { \"dist\": \"exponential\", \"mean\": \"1s\" } } }",
	         n_users <= 4 ? 1600000 : 400000, n_users);
	sc = load(text);
	s = simulate(sc, 2);
	g = &s->groups[s->n_classes];
	mva(n_users, 1.0, 16.0, &r_s, &x_per_s);
	print_message("N=%d: R %.4f s (+-%.4f), MVA %.4f; X %.5f/s (+-%.5f), MVA %.5f\n",
	              n_users, g->lat_ms[FS_LAT_E2E][FS_QTY_MEAN].value / 1e3,
	              g->lat_ms[FS_LAT_E2E][FS_QTY_MEAN].half_width / 1e3, r_s,
	              g->throughput_rps.value, g->throughput_rps.half_width, x_per_s);
	assert_true(g->lat_ms[FS_LAT_E2E][FS_QTY_MEAN].half_width < 0.006 * r_s * 1e3);
	assert_true(g->throughput_rps.half_width < 0.006 * x_per_s);
	assert_near(g->lat_ms[FS_LAT_E2E][FS_QTY_MEAN].value, r_s * 1e3, 0.0, 0.02);
	assert_near(g->throughput_rps.value, x_per_s, 0.0, 0.02);
	/* Little's law on the server side: busy fraction = X S. */
	assert_near(s->busy_fraction.value, x_per_s * 1.0, 0.0, 0.02);
	fs_summary_free(s);
	fs_scenario_free(sc);
}

static void test_closed_loop_repairman_matches_mva(void **state)
{
	static const int n[] = { 1, 4, 16, 64 };

	(void)state;
	for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
		check_repairman(n[i]);
}

/* ---- benchmark mode: a hand computation -------------------------------------- */

/*
 * Five users, no think time, one server with a fixed 100 ms service: the
 * server never idles, and once the first round is over (the warm-up) every
 * request waits for the four requests ahead of it: E2E = 5 x 100 ms =
 * 500 ms and queue delay 400 ms exactly; 10 responses per second.
 */
static void test_closed_loop_benchmark_mode_hand_computed(void **state)
{
	struct fs_scenario *sc = load(
		"{ \"name\": \"bench\", \"simulation\": { \"horizon\": \"100s\","
		" \"warmup\": \"1s\", \"replications\": 2, \"seed\": 3 },"
		" \"workload\": { \"classes\": [ { \"name\": \"b\", \"users\": 5,"
		" \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 8 },"
		" \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 4 } } ] },"
		" \"engine\": { \"type\": \"queue\", \"servers\": 1,"
		" \"service\": { \"dist\": \"fixed\", \"mean\": \"100ms\" } } }");
	struct fs_summary *s = simulate(sc, 1);
	const struct fs_group_summary *g = &s->groups[s->n_classes];

	(void)state;
	assert_near(g->lat_ms[FS_LAT_E2E][FS_QTY_MEAN].value, 500.0, 1e-6, 0.0);
	assert_near(g->lat_ms[FS_LAT_QUEUE][FS_QTY_MEAN].value, 400.0, 1e-6, 0.0);
	/* Requests sent in [1 s, 100 s): one every 100 ms (as each response
	 * comes back), 990 in all.  The five sent from 99.5 s on, one per user,
	 * are in flight at the horizon (a response at exactly 100 s is too
	 * late, MODEL E2). */
	assert_near(g->arrived.value, 990.0, 0.0, 0.0);
	assert_near(g->completed.value, 985.0, 0.0, 0.0);
	assert_near(g->in_flight.value, 5.0, 0.0, 0.0);
	assert_near(s->busy_fraction.value, 1.0, 1e-9, 0.0);
	fs_summary_free(s);
	fs_scenario_free(sc);
}

/* The same benchmark with `drain` (MODEL E5, U1): users send nothing at or
 * after the horizon, so the five requests in flight then (sent from 99.5 s
 * on) finish one every 100 ms, at 100.0 s (just after the horizon event,
 * E2) to 100.4 s, and no response sends another: 990 sent and 990
 * completed, none left, the run over at 100.4 s.  Users that kept sending through the drain
 * would send about 5 more per 100 ms until the second horizon. */
static void test_closed_loop_drain_stops_users_at_the_horizon(void **state)
{
	struct fs_scenario *sc = load(
		"{ \"name\": \"bench\", \"simulation\": { \"horizon\": \"100s\","
		" \"warmup\": \"1s\", \"replications\": 2, \"seed\": 3, \"drain\": true },"
		" \"workload\": { \"classes\": [ { \"name\": \"b\", \"users\": 5,"
		" \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 8 },"
		" \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 4 } } ] },"
		" \"engine\": { \"type\": \"queue\", \"servers\": 1,"
		" \"service\": { \"dist\": \"fixed\", \"mean\": \"100ms\" } } }");
	struct fs_run_opts opts = { 1, 0, 1, sc->sim.seed, false, NULL };
	struct fs_rep_result **res = fs_replicate_run(sc, &opts);
	const struct fs_class_result *all = &res[0]->cls[res[0]->n_classes];

	(void)state;
	assert_int_equal(all->arrived, 990);
	assert_int_equal(all->completed, 990);
	assert_int_equal(all->in_flight, 0);
	assert_int_equal(res[0]->end_ns, 100400 * FS_NS_PER_MS);
	fs_replicate_free(res, 1);
	fs_scenario_free(sc);
}

/* ---- sessions, schedules and open sessions through the workload API -------- */

static void test_closed_loop_session_prompt_grows_by_history(void **state)
{
	struct fs_scenario *sc = load(
		"{ \"name\": \"chat\", \"simulation\": { \"horizon\": \"1h\" },"
		" \"workload\": { \"classes\": [ { \"name\": \"c\", \"users\": 1,"
		" \"think\": \"30s\","
		" \"session\": { \"turns\": { \"dist\": \"fixed\", \"tokens\": 3 },"
		" \"think\": \"5s\" },"
		" \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 100 },"
		" \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 10 } } ] },"
		" \"engine\": { \"type\": \"queue\", \"servers\": 1,"
		" \"service\": { \"dist\": \"fixed\", \"mean\": \"1s\" } } }");
	struct fs_workload *w = fs_workload_alloc(&sc->workload, &sc->sim, 1, 0);
	/* turn k's prompt = the history (k x (100 + 10)) + a new 100-token message */
	static const int64_t prompts[] = { 100, 210, 320, 100, 210 };
	static const uint32_t turns[] = { 0, 1, 2, 0, 1 };
	static const uint64_t sessions[] = { 1, 1, 1, 2, 2 };
	/* the response 1 s after each send; 5 s between turns, 30 s between
	 * sessions; the first send after one think time (30 s) */
	static const fs_ns sends_s[] = { 30, 36, 42, 73, 79 };
	struct fs_request req;
	fs_ns t;

	(void)state;
	assert_int_equal(fs_workload_n_users(w), 1);
	t = fs_workload_user_first(w, 0);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(t, sends_s[i] * FS_NS_PER_S);
		fs_workload_user_take(w, 0, t, &req);
		assert_int_equal(req.id, i);
		assert_int_equal(req.prompt_tokens, prompts[i]);
		assert_int_equal(req.output_tokens, 10);
		assert_int_equal(req.turn, turns[i]);
		assert_int_equal(req.session_id, sessions[i]);
		t = fs_workload_user_done(w, 0, t + FS_NS_PER_S, true, 10);
	}
	/* A failed turn ends the session: the next request starts a new one. */
	fs_workload_user_take(w, 0, t, &req);
	assert_int_equal(req.turn, 2);
	t = fs_workload_user_done(w, 0, t + FS_NS_PER_S, false, 0);
	fs_workload_user_take(w, 0, t, &req);
	assert_int_equal(req.session_id, 3);
	assert_int_equal(req.turn, 0);
	assert_int_equal(req.prompt_tokens, 100);
	fs_workload_free(w);
	fs_scenario_free(sc);
}

static void test_closed_loop_user_schedule_logs_users_on_and_off(void **state)
{
	struct fs_scenario *sc = load(
		"{ \"name\": \"sched\", \"simulation\": { \"horizon\": \"1000s\" },"
		" \"workload\": { \"classes\": [ { \"name\": \"c\","
		" \"users\": { \"steps\": [ { \"at\": 0, \"users\": 2 },"
		" { \"at\": \"100s\", \"users\": 4 } ], \"repeat\": \"200s\" },"
		" \"think\": \"60s\","
		" \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 },"
		" \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 } } ] },"
		" \"engine\": { \"type\": \"queue\", \"servers\": 1,"
		" \"service\": { \"dist\": \"fixed\", \"mean\": \"1s\" } } }");
	struct fs_workload *w = fs_workload_alloc(&sc->workload, &sc->sim, 1, 0);
	struct fs_request req;
	fs_ns t;

	(void)state;
	assert_int_equal(fs_workload_n_users(w), 4);
	/* Users 0 and 1 are on from 0 and send after one think time; users 2
	 * and 3 log on at 100 s and think first. */
	assert_int_equal(fs_workload_user_first(w, 0), 60 * FS_NS_PER_S);
	assert_int_equal(fs_workload_user_first(w, 1), 60 * FS_NS_PER_S);
	assert_int_equal(fs_workload_user_first(w, 2), 160 * FS_NS_PER_S);
	t = fs_workload_user_first(w, 3);
	assert_int_equal(t, 160 * FS_NS_PER_S);
	/* User 3's response at 161 s: thinking ends at 221 s, when the period
	 * has started over with 2 users; it logs on again at 300 s and thinks:
	 * 360 s. */
	fs_workload_user_take(w, 3, t, &req);
	t = fs_workload_user_done(w, 3, 161 * FS_NS_PER_S, true, 1);
	assert_int_equal(t, 360 * FS_NS_PER_S);
	/* Past the horizon: no more requests. */
	assert_int_equal(fs_workload_user_done(w, 0, 950 * FS_NS_PER_S, true, 1), FS_NS_MAX);
	fs_workload_free(w);
	fs_scenario_free(sc);
}

static void test_closed_loop_open_sessions_end_after_their_turns(void **state)
{
	struct fs_scenario *sc = load(
		"{ \"name\": \"open\", \"simulation\": { \"horizon\": \"1h\" },"
		" \"workload\": { \"classes\": [ { \"name\": \"c\","
		" \"arrivals\": { \"process\": \"poisson\", \"rate_per_s\": 0.01 },"
		" \"session\": { \"turns\": { \"dist\": \"fixed\", \"tokens\": 2 },"
		" \"think\": \"2s\" },"
		" \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 50 },"
		" \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 5 } } ] },"
		" \"engine\": { \"type\": \"queue\", \"servers\": 1,"
		" \"service\": { \"dist\": \"fixed\", \"mean\": \"1s\" } } }");
	struct fs_workload *w = fs_workload_alloc(&sc->workload, &sc->sim, 1, 0);
	struct fs_request req, req2;
	fs_ns t0 = fs_workload_first(w, 0), t1, next;
	uint32_t a, b;

	(void)state;
	assert_int_equal(fs_workload_n_users(w), 0);
	assert_true(t0 != FS_NS_MAX);
	t1 = fs_workload_take(w, 0, t0, &req);
	assert_true(t1 != FS_NS_MAX);
	a = fs_workload_taken_agent(w);
	assert_int_not_equal(a, FS_WORKLOAD_NO_AGENT);
	assert_int_equal(req.session_id, 1);
	assert_int_equal(req.turn, 0);
	assert_int_equal(req.prompt_tokens, 50);
	/* The response 1 s later; the next turn after the 2 s turn think. */
	next = fs_workload_user_done(w, a, t0 + FS_NS_PER_S, true, 5);
	assert_int_equal(next, t0 + 3 * FS_NS_PER_S);
	fs_workload_user_take(w, a, next, &req2);
	assert_int_equal(req2.session_id, 1);
	assert_int_equal(req2.turn, 1);
	assert_int_equal(req2.prompt_tokens, 50 + 5 + 50);
	/* The second turn was the last: the session ends, and the next
	 * arrival's session reuses its agent. */
	assert_int_equal(fs_workload_user_done(w, a, next + FS_NS_PER_S, true, 5), FS_NS_MAX);
	fs_workload_take(w, 0, t1, &req);
	b = fs_workload_taken_agent(w);
	assert_int_equal(b, a);
	assert_int_equal(req.session_id, 2);
	assert_int_equal(req.turn, 0);
	/* A failed first turn ends the session at once. */
	assert_int_equal(fs_workload_user_done(w, b, t1 + 1, false, 0), FS_NS_MAX);
	fs_workload_free(w);
	fs_scenario_free(sc);
}

/* ---- the world: determinism, LLM engine, bad input ---------------------------- */

static const char *const LLM_CHAT =
	"{ \"name\": \"chat-users\", \"simulation\": { \"horizon\": \"120s\","
	" \"warmup\": \"20s\", \"replications\": 3, \"seed\": 5 },"
	" \"workload\": { \"classes\": [ { \"name\": \"chat\", \"users\": 12,"
	" \"think\": { \"dist\": \"lognormal\", \"mean\": \"3s\", \"cv\": 1 },"
	" \"session\": { \"turns\": { \"dist\": \"uniform\", \"min\": 1, \"max\": 5 },"
	" \"think\": { \"dist\": \"exponential\", \"mean\": \"2s\" } },"
	" \"prompt_tokens\": { \"dist\": \"lognormal\", \"median\": 200, \"sigma\": 0.5,"
	" \"max\": 2000 },"
	" \"output_tokens\": { \"dist\": \"uniform\", \"min\": 20, \"max\": 200 } } ] },"
	" \"engine\": { \"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\","
	" \"tp\": 1, \"replicas\": 1 } }";

static void test_closed_loop_same_results_on_one_and_two_threads(void **state)
{
	struct fs_scenario *sc = load(LLM_CHAT);
	struct fs_summary *a = simulate(sc, 1), *b = simulate(sc, 2);
	const struct fs_group_summary *ga = &a->groups[a->n_classes];
	const struct fs_group_summary *gb = &b->groups[b->n_classes];

	(void)state;
	assert_true(ga->completed.value > 100);
	assert_true(ga->completed.value == gb->completed.value);
	assert_true(ga->lat_ms[FS_LAT_TTFT][FS_QTY_MEAN].value ==
	            gb->lat_ms[FS_LAT_TTFT][FS_QTY_MEAN].value);
	assert_true(ga->output_tokens_per_s.value == gb->output_tokens_per_s.value);
	/* At most 12 requests are ever in the system: each user waits. */
	assert_true(ga->in_flight.value <= 12.0);
	fs_summary_free(a);
	fs_summary_free(b);
	fs_scenario_free(sc);
}

static void expect_error(const char *text, const char *path, const char *words)
{
	struct fs_error err;
	struct fs_scenario *sc = fs_scenario_load_text(text, strlen(text), "bad.json", ".",
	                                               &err);

	assert_null(sc);
	print_message("%s: %s: %s\n", err.where, err.path, err.msg);
	assert_string_equal(err.path, path);
	assert_non_null(strstr(err.msg, words));
}

#define BAD_CLASS(extra)                                                       \
	"{ \"name\": \"bad\", \"simulation\": { \"horizon\": \"1h\" },"        \
	" \"workload\": { \"classes\": [ { \"name\": \"c\", " extra ","          \
	" \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 },"           \
	" \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 } } ] },"     \
	" \"engine\": { \"type\": \"queue\", \"servers\": 1,"                   \
	" \"service\": { \"dist\": \"fixed\", \"mean\": \"1s\" } } }"

static void test_closed_loop_bad_input_is_reported_at_its_place(void **state)
{
	(void)state;
	expect_error(BAD_CLASS("\"users\": 4, \"arrivals\": { \"process\": \"poisson\","
	                       " \"rate_per_s\": 1 }"),
	             "workload.classes[0].arrivals", "not allowed");
	expect_error(BAD_CLASS("\"users\": -1"), "workload.classes[0].users", "expected");
	expect_error(BAD_CLASS("\"users\": 2, \"think\": { \"dist\": \"exponential\" }"),
	             "workload.classes[0].think", "missing required key \"mean\"");
	expect_error(BAD_CLASS("\"users\": 2, \"think\": { \"dist\": \"gamma\", \"mean\": 1 }"),
	             "workload.classes[0].think.dist", "think-time distribution");
	expect_error(BAD_CLASS("\"arrivals\": { \"process\": \"poisson\", \"rate_per_s\": 1 },"
	                       " \"think\": \"1s\""),
	             "workload.classes[0].think", "without \"users\"");
	expect_error(BAD_CLASS("\"users\": { \"steps\": [ { \"at\": \"5s\", \"users\": 1 } ] }"),
	             "workload.classes[0].users.steps[0].at", "first step at 0");
	expect_error(BAD_CLASS("\"users\": 1, \"session\": { \"think\": \"1s\" }"),
	             "workload.classes[0].session", "missing required key \"turns\"");
	/* Benchmark mode on a 1 ns server for 10 years: 3e17 requests. */
	expect_error("{ \"name\": \"bad\", \"simulation\": { \"horizon\": \"3650d\","
	             " \"sample_interval\": \"1d\" }, \"workload\": { \"classes\": ["
	             " { \"name\": \"c\", \"users\": 2,"
	             " \"prompt_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 },"
	             " \"output_tokens\": { \"dist\": \"fixed\", \"tokens\": 1 } } ] },"
	             " \"engine\": { \"type\": \"queue\", \"servers\": 1,"
	             " \"service\": { \"dist\": \"fixed\", \"mean\": \"1ns\" } } }",
	             "simulation.horizon", "arrivals per replication");
}

/* The resolved form loads back to the same scenario. */
static void test_closed_loop_resolved_form_round_trips(void **state)
{
	struct fs_scenario *sc = load(LLM_CHAT), *back;
	char *dir = fs_test_tmpdir(), path[4096];
	struct fs_error err;
	char *a, *b;
	size_t la, lb;

	(void)state;
	snprintf(path, sizeof path, "%s/resolved.json", dir);
	assert_int_equal(fs_scenario_write(sc, path, &err), 0);
	back = fs_scenario_load(path, &err);
	if (back == NULL)
		fail_msg("%s: %s: %s", err.where, err.path, err.msg);
	assert_non_null(back->workload.classes[0].closed);
	assert_int_equal(back->workload.classes[0].closed->users, 12);
	assert_true(back->workload.classes[0].closed->sessions);
	snprintf(path, sizeof path, "%s/again.json", dir);
	assert_int_equal(fs_scenario_write(back, path, &err), 0);
	a = fs_test_read_file(path, &la);
	snprintf(path, sizeof path, "%s/resolved.json", dir);
	b = fs_test_read_file(path, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	fs_scenario_free(back);
	fs_scenario_free(sc);
	fs_test_tmpdir_free(dir);
}

/* ---- the shipped concurrency sweep, summary block and report plot --------- */

static void test_closed_loop_concurrency_sweep_gives_benchmark_curves(void **state)
{
	char *dir = fs_test_tmpdir(), path[4096], *text;
	const char *args[] = { "sweep", "scenarios/benchmark-concurrency.json", "-o", NULL,
	                       "-j", "2", NULL };
	cJSON *root, *p;
	double prev_users = 0, tok_first = NAN, tok_last = NAN, ttft_first = NAN,
	       ttft_last = NAN;
	int n = 0;

	(void)state;
	args[3] = dir;
	fs_test_fleetsim_ok(args);
	root = fs_test_read_json(dir, "sweep.json");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(root, "points")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "concurrency");
		double users = cJSON_GetObjectItemCaseSensitive(c, "users")->valuedouble;
		double tok = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
			c, "output_tokens_per_s"), 0)->valuedouble;
		double ttft = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
			c, "ttft_ms_mean"), 0)->valuedouble;

		assert_true(users > prev_users);
		prev_users = users;
		if (n == 0) {
			tok_first = tok;
			ttft_first = ttft;
		}
		tok_last = tok;
		ttft_last = ttft;
		n++;
	}
	cJSON_Delete(root);
	assert_int_equal(n, 9);
	assert_int_equal((int)prev_users, 256);
	print_message("1 user: %.0f tok/s, TTFT %.1f ms; 256 users: %.0f tok/s, TTFT %.1f ms\n",
	              tok_first, ttft_first, tok_last, ttft_last);
	/* Batching: 256 users get far more throughput, each waiting longer. */
	assert_true(tok_last > 10 * tok_first);
	assert_true(ttft_last > ttft_first);
	if (fs_test_have_cmd("gnuplot")) {
		const char *rep[] = { "report", NULL, "-q", NULL };

		rep[1] = dir;
		fs_test_fleetsim_ok(rep);
		snprintf(path, sizeof path, "%s/plots/concurrency.png", dir);
		text = fs_test_read_file(path, NULL);
		assert_non_null(text);
		free(text);
	} else {
		print_message("gnuplot not found: the concurrency plot is not checked\n");
	}
	fs_test_tmpdir_free(dir);
}

static void test_closed_loop_summary_json_has_concurrency_block(void **state)
{
	char *dir = fs_test_tmpdir();
	const char *args[] = { "run", "scenarios/benchmark-concurrency.json", "-o", NULL,
	                       "--set", "workload.classes[0].users=4", "-r", "1", NULL };
	cJSON *root, *c;

	(void)state;
	args[3] = dir;
	fs_test_fleetsim_ok(args);
	root = fs_test_read_json(dir, "summary.json");
	c = cJSON_GetObjectItemCaseSensitive(root, "concurrency");
	assert_non_null(c);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(c, "users")->valueint, 4);
	assert_non_null(cJSON_GetObjectItemCaseSensitive(c, "ttft_ms"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(c, "tpot_ms"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(c, "itl_ms"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(c, "e2e_ms"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(c, "ttft_ms"), "median"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(c, "output_tokens_per_s"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(c, "requests_per_s"));
	/* Little's law for a closed loop without think time: 4 users =
	 * requests/s x mean E2E (edges of the window aside). */
	{
		double x = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(c, "requests_per_s"), "value")->valuedouble;
		double r_ms = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(c, "e2e_ms"), "mean"), "value")->valuedouble;

		assert_near(x * r_ms / 1e3, 4.0, 0.0, 0.03);
	}
	cJSON_Delete(root);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_closed_loop_repairman_matches_mva),
		cmocka_unit_test(test_closed_loop_benchmark_mode_hand_computed),
		cmocka_unit_test(test_closed_loop_drain_stops_users_at_the_horizon),
		cmocka_unit_test(test_closed_loop_session_prompt_grows_by_history),
		cmocka_unit_test(test_closed_loop_user_schedule_logs_users_on_and_off),
		cmocka_unit_test(test_closed_loop_open_sessions_end_after_their_turns),
		cmocka_unit_test(test_closed_loop_same_results_on_one_and_two_threads),
		cmocka_unit_test(test_closed_loop_bad_input_is_reported_at_its_place),
		cmocka_unit_test(test_closed_loop_resolved_form_round_trips),
		cmocka_unit_test(test_closed_loop_concurrency_sweep_gives_benchmark_curves),
		cmocka_unit_test(test_closed_loop_summary_json_has_concurrency_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
