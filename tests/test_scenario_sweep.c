/*
 * test_scenario_sweep.c — the "sweep" and "objective" sections
 * (src/scenario_sweep.c, scenario_grid.c, scenario_objective.c): grid order,
 * zip and search points, values and ranges, each value (zip: each point)
 * once, objective defaults and constraints, and that both belong to the
 * base document only.
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

#include "fleetsim/capacity.h"
#include "fleetsim/result.h"
#include "fleetsim/catalog.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "fleetsim/trace.h"
#include "util_test.h"
#include "util_scenario.h"

/* ---- sweeps and objectives --------------------------------------------------------- */

/* Every point's label, its sets joined by ',' (they must agree), and the
 * coordinates -> index round trip. */
static void assert_points(const struct fs_sweep_cfg *sw, const char *const *want)
{
	size_t n = fs_sweep_n_points(sw), p, a, idx[8];
	char label[512], joined[512], *sets[8];

	for (p = 0; p < n; p++) {
		fs_sweep_point_label(sw, p, label, sizeof label);
		assert_string_equal(label, want[p]);
		fs_sweep_point_sets(sw, p, sets);
		joined[0] = '\0';
		for (a = 0; a < sw->n_axes; a++) {
			if (a > 0)
				strcat(joined, ",");
			strcat(joined, sets[a]);
		}
		fs_sweep_point_sets_free(sets, sw->n_axes);
		assert_string_equal(joined, want[p]);
		fs_sweep_point_coords(sw, p, idx);
		assert_int_equal(fs_sweep_point_index(sw, idx), p);
	}
	assert_null(want[n]);
}

static void test_scenario_sweep_grid_turns_the_last_axis_fastest(void **state)
{
	struct fs_scenario *sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"axes\": [{\"path\": \"fleet.pools[0].gpu\", \"values\": "
		"[\"l40s\", \"h100\"]}, {\"path\": \"fleet.pools[0].count\", \"range\": "
		"{\"from\": 1, \"to\": 3}}], \"baseline\": 4}"));
	const struct fs_sweep_cfg *sw = &sc->sweep;
	const char *const want[] = {
		"fleet.pools[0].gpu=\"l40s\",fleet.pools[0].count=1",
		"fleet.pools[0].gpu=\"l40s\",fleet.pools[0].count=2",
		"fleet.pools[0].gpu=\"l40s\",fleet.pools[0].count=3",
		"fleet.pools[0].gpu=\"h100\",fleet.pools[0].count=1",
		"fleet.pools[0].gpu=\"h100\",fleet.pools[0].count=2",
		"fleet.pools[0].gpu=\"h100\",fleet.pools[0].count=3",
		NULL
	};
	size_t idx[2] = { 1, 0 };
	char small[12];

	(void)state;
	assert_true(sw->present);
	assert_int_equal(sw->mode, FS_SWEEP_GRID);
	assert_int_equal(sw->n_axes, 2);
	assert_false(sw->axes[0].search);
	assert_int_equal(sw->baseline, 4);
	assert_int_equal(fs_sweep_n_points(sw), 6);
	assert_points(sw, want);
	assert_int_equal(fs_sweep_point_index(sw, idx), 3);
	fs_sweep_point_label(sw, 5, small, sizeof small);     /* truncated, ended */
	assert_string_equal(small, "fleet.pools");
	assert_false(sc->objective.present);
	fs_scenario_free(sc);

	/* no "sweep": one point, the base, with no sets */
	sc = load_ok(STUDY_DOC("\"name\": \"plain\""));
	assert_false(sc->sweep.present);
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 1);
	fs_sweep_point_label(&sc->sweep, 0, small, sizeof small);
	assert_string_equal(small, "");
	fs_scenario_free(sc);
}

static void test_scenario_sweep_zip_and_search_points(void **state)
{
	struct fs_scenario *sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"mode\": \"zip\", \"axes\": [{\"path\": "
		"\"fleet.pools[0].count\", \"values\": [1, 2, 4]}, {\"path\": "
		"\"fleet.pools[0].pricing\", \"values\": [\"on_demand\", \"spot\", "
		"\"spot\"]}]}"));
	const char *const zip[] = {
		"fleet.pools[0].count=1,fleet.pools[0].pricing=\"on_demand\"",
		"fleet.pools[0].count=2,fleet.pools[0].pricing=\"spot\"",
		"fleet.pools[0].count=4,fleet.pools[0].pricing=\"spot\"",
		NULL
	};
	const char *const search[] = {
		"fleet.pools[0].count=2,fleet.pools[0].gpu=\"l40s\"",
		"fleet.pools[0].count=2,fleet.pools[0].gpu=\"h100\"",
		"fleet.pools[0].count=4,fleet.pools[0].gpu=\"l40s\"",
		"fleet.pools[0].count=4,fleet.pools[0].gpu=\"h100\"",
		"fleet.pools[0].count=8,fleet.pools[0].gpu=\"l40s\"",
		"fleet.pools[0].count=8,fleet.pools[0].gpu=\"h100\"",
		NULL
	};
	size_t idx[2];

	(void)state;
	assert_int_equal(sc->sweep.mode, FS_SWEEP_ZIP);
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 3);
	assert_points(&sc->sweep, zip);
	fs_sweep_point_coords(&sc->sweep, 2, idx);
	assert_int_equal(idx[0], 2);
	assert_int_equal(idx[1], 2);
	fs_scenario_free(sc);

	/* the search axis may come first: the grid it may visit is the same */
	sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"mode\": \"search\", \"axes\": [{\"path\": "
		"\"fleet.pools[0].count\", \"range\": {\"from\": 2, \"to\": 8, \"step\": 2}, "
		"\"search\": true}, {\"path\": \"fleet.pools[0].gpu\", \"values\": "
		"[\"l40s\", \"h100\"]}]}"));
	assert_int_equal(sc->sweep.mode, FS_SWEEP_SEARCH);
	assert_true(sc->sweep.axes[0].search);
	assert_false(sc->sweep.axes[1].search);
	assert_int_equal(sc->sweep.axes[0].n_values, 4);
	assert_string_equal(sc->sweep.axes[0].values[2], "6");
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 8);
	fs_scenario_free(sc);
	sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"mode\": \"search\", \"axes\": [{\"path\": "
		"\"fleet.pools[0].count\", \"values\": [2, 4, 8], \"search\": true}, "
		"{\"path\": \"fleet.pools[0].gpu\", \"values\": [\"l40s\", \"h100\"]}]}"));
	assert_points(&sc->sweep, search);
	fs_scenario_free(sc);
}

static void test_scenario_sweep_values_keep_their_json_and_ranges_expand(void **state)
{
	struct fs_scenario *sc = load_ok(STUDY_DOC(
		"\"sweep\": {\"axes\": [{\"path\": \"workload.arrivals\", \"values\": "
		"[{\"process\": \"poisson\", \"rate_per_s\": 2.5}, null]}, {\"path\": "
		"\"engine.max_num_seqs\", \"range\": {\"from\": -2, \"to\": 8, "
		"\"step\": 3}}, {\"path\": \"fleet.pools[0].name\", \"values\": "
		"[\"a \\\"b\\\"\"]}]}"));
	const struct fs_sweep_axis *ax = sc->sweep.axes;

	(void)state;
	assert_int_equal(sc->sweep.n_axes, 3);
	assert_int_equal(ax[0].n_values, 2);
	assert_string_equal(ax[0].values[0], "{\"process\":\"poisson\",\"rate_per_s\":2.5}");
	assert_string_equal(ax[0].values[1], "null");
	/* -2, 1, 4, 7: "to" need not be reached exactly */
	assert_int_equal(ax[1].n_values, 4);
	assert_string_equal(ax[1].values[0], "-2");
	assert_string_equal(ax[1].values[3], "7");
	assert_string_equal(ax[2].values[0], "\"a \\\"b\\\"\"");
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 8);
	fs_scenario_free(sc);
}

/* A grid axis names each value once, compared as JSON: 2 and 2e0 are one
 * number, objects are equal whatever their key order; strings compare
 * exactly.  In mode "zip" an axis may repeat a value, a whole point not. */
static void test_scenario_sweep_values_each_once_compared_as_json(void **state)
{
	static const struct {
		const char *study, *want;
	} bad[] = {
		{ "\"sweep\": {\"axes\": [{\"path\": \"fleet.pools[0].count\", \"values\": "
		  "[1, 2, 2e0, 4]}]}",
		  "sweep.axes[0].values[2]: expected each value of the axis once, found 2e0 "
		  "again (also values[1])" },
		{ "\"sweep\": {\"axes\": [{\"path\": \"fleet.pools[0].name\", \"values\": "
		  "[\"a\"]}, {\"path\": \"workload.classes[0].arrivals\", \"values\": "
		  "[{\"process\": \"poisson\", \"rate_per_s\": 1}, {\"rate_per_s\": 1.0, "
		  "\"process\": \"poisson\"}]}]}",
		  "sweep.axes[1].values[1]: expected each value of the axis once, found an "
		  "object again (also values[0])" },
		{ "\"sweep\": {\"mode\": \"zip\", \"axes\": [{\"path\": \"fleet.pools[0].count\", "
		  "\"values\": [1, 2, 1]}, {\"path\": \"fleet.pools[0].gpu\", \"values\": "
		  "[\"l40s\", \"l40s\", \"l40s\"]}]}",
		  "sweep.axes[0].values[2]: expected each point once (mode \"zip\"), found "
		  "point 2 the same as point 0 on every axis" },
	};
	char doc[1024], got[2048];
	struct fs_scenario *sc;
	struct fs_error err;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(doc, sizeof doc, STUDY_DOC("%s"), bad[i].study);
		sc = load_str(doc, &err);
		if (sc != NULL) {
			fs_scenario_free(sc);
			fail_msg("case %zu loaded", i);
		}
		fs_error_format(&err, got, sizeof got);
		if (strstr(got, bad[i].want) == NULL)
			fail_msg("case %zu: want \"%s\", got \"%s\"", i, bad[i].want, got);
	}
	sc = load_ok(STUDY_DOC("\"sweep\": {\"axes\": [{\"path\": \"fleet.pools[0].name\", "
	                       "\"values\": [\"a\", \"A\"]}]}"));
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 2);
	fs_scenario_free(sc);
	sc = load_ok(STUDY_DOC("\"sweep\": {\"mode\": \"zip\", \"axes\": [{\"path\": "
	                       "\"fleet.pools[0].count\", \"values\": [1, 1]}, {\"path\": "
	                       "\"fleet.pools[0].gpu\", \"values\": [\"l40s\", \"h100\"]}]}"));
	assert_int_equal(fs_sweep_n_points(&sc->sweep), 2);
	fs_scenario_free(sc);
}

static void test_scenario_objective_defaults_and_constraints(void **state)
{
	struct fs_scenario *sc = load_ok(STUDY_DOC("\"objective\": {}"));
	const struct fs_objective_cfg *o = &sc->objective;
	const struct fs_constraint *c;

	(void)state;
	assert_true(o->present);
	assert_int_equal(o->minimize, FS_OBJ_MONTHLY_USD);
	assert_int_equal(o->n_constraints, 0);
	assert_null(o->constraints);
	assert_true(o->confidence == 0.9);
	assert_int_equal(o->pareto_latency, FS_LAT_TTFT);
	assert_int_equal(o->pareto_quantity, FS_QTY_P99);
	assert_int_equal(o->pareto_class, -1);
	assert_true(o->ci_target == 0.0);
	assert_int_equal(o->max_replications, 40);   /* 10 x 4 replications */
	assert_false(sc->sweep.present);
	fs_scenario_free(sc);

	sc = load_ok(STUDY_DOC(
		"\"objective\": {\"minimize\": \"usd_per_1m_output_tokens\", \"constraints\": "
		"[{\"metric\": \"ttft_ms\", \"max\": \"1500ms\"}, {\"metric\": \"tpot_ms\", "
		"\"quantile\": \"p95\", \"max\": 0.1, \"class\": \"batch\"}, {\"metric\": "
		"\"slo_attainment\", \"min\": 0.95, \"class\": \"c\"}, {\"metric\": "
		"\"slo_attainment\", \"min\": 0.9}], \"confidence\": 1, \"pareto\": "
		"{\"metric\": \"e2e_ms\", \"quantile\": \"mean\", \"class\": \"batch\"}, "
		"\"ci_target\": 0.02, \"max_replications\": 12}"));
	o = &sc->objective;
	assert_int_equal(o->minimize, FS_OBJ_USD_PER_1M_TOKENS);
	assert_int_equal(o->n_constraints, 4);
	c = &o->constraints[0];
	assert_int_equal(c->kind, FS_CONSTRAINT_LATENCY);
	assert_int_equal(c->latency, FS_LAT_TTFT);
	assert_int_equal(c->quantity, FS_QTY_P99);
	assert_true(c->max_ms == 1500.0);
	assert_int_equal(c->class_idx, -1);
	c = &o->constraints[1];
	assert_int_equal(c->latency, FS_LAT_TPOT);
	assert_int_equal(c->quantity, FS_QTY_P95);
	assert_true(c->max_ms == 100.0);
	assert_int_equal(c->class_idx, 1);
	c = &o->constraints[2];
	assert_int_equal(c->kind, FS_CONSTRAINT_ATTAINMENT);
	assert_true(c->min == 0.95);
	assert_int_equal(c->class_idx, 0);
	assert_int_equal(o->constraints[3].class_idx, -1);
	assert_true(o->confidence == 1.0);
	assert_int_equal(o->pareto_latency, FS_LAT_E2E);
	assert_int_equal(o->pareto_quantity, FS_QTY_MEAN);
	assert_int_equal(o->pareto_class, 1);
	assert_true(o->ci_target == 0.02);
	assert_int_equal(o->max_replications, 12);
	fs_scenario_free(sc);

	/* the default cap is at most 100000 */
	sc = load_ok("{\"simulation\": {\"horizon\": \"1h\", \"replications\": 20000}, "
	             "\"workload\": {\"classes\": [" SIMPLE_CLASS "]}, \"engine\": "
	             "{\"type\": \"vllm\", \"model\": \"llama-3.1-8b\", \"gpu\": \"l40s\"}, "
	             "\"objective\": {}}");
	assert_int_equal(sc->objective.max_replications, 100000);
	fs_scenario_free(sc);
}

static void test_scenario_sweep_and_objective_belong_to_the_base_only(void **state)
{
	const char *sets[] = { "fleet.pools[0].count=2" };
	const char *bad[] = { "objective.confidence=0.5" };
	struct fs_scenario *base = load_file_ok(SWEEP_EXAMPLE), *v;
	struct fs_error err;
	char got[1024];

	(void)state;
	assert_true(base->sweep.present);
	assert_true(base->objective.present);
	assert_int_equal(fs_sweep_n_points(&base->sweep), 64);
	/* Command-line sets keep the base's study (sweep --set works) ... */
	v = fs_scenario_load_variant(SWEEP_EXAMPLE, NULL, sets, 1, &err);
	assert_non_null(v);
	assert_true(v->sweep.present);
	assert_true(v->objective.present);
	assert_int_equal(v->fleet.pools[0].count, 2);
	fs_scenario_free(v);
	/* ... a sweep point has none. */
	v = fs_scenario_load_point(SWEEP_EXAMPLE, sets, 1, &base->sweep, 0, &err);
	assert_non_null(v);
	assert_false(v->sweep.present);
	assert_false(v->objective.present);
	assert_int_equal(v->sweep.n_axes, 0);
	fs_scenario_free(v);
	assert_null(fs_scenario_load_variant(SWEEP_EXAMPLE, NULL, bad, 1, &err));
	fs_error_format(&err, got, sizeof got);
	assert_string_equal(got, "--set objective.confidence=0.5: cannot set "
	                    "\"objective\": it is read from the base document only");
	fs_scenario_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_sweep_grid_turns_the_last_axis_fastest),
		cmocka_unit_test(test_scenario_sweep_zip_and_search_points),
		cmocka_unit_test(test_scenario_sweep_values_keep_their_json_and_ranges_expand),
		cmocka_unit_test(test_scenario_sweep_values_each_once_compared_as_json),
		cmocka_unit_test(test_scenario_objective_defaults_and_constraints),
		cmocka_unit_test(test_scenario_sweep_and_objective_belong_to_the_base_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
