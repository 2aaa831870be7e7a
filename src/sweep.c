/*
 * sweep.c — the sweep's driver (see sweep.h): which points to evaluate
 * (all of them, or per combination of the other axes in search mode a
 * galloping search from the capacity bound, S13), in which order (units of
 * one share key together, so points differing only in a pricing plan share
 * a simulation: sweep_share.c), where each runs (groups of units dealt
 * round-robin over MPI ranks), point records stored atomically as they
 * finish and reused on --resume when they match (every input that
 * determines their bytes: fs__sweep_record_inputs), progress (a redrawn
 * line on a terminal, a log line every few seconds elsewhere), and the
 * outputs written by rank 0 from the records alone.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleetsim/outfile.h"
#include "fleetsim/par.h"
#include "fleetsim/scenario.h"
#include "fleetsim/sweep.h"
#include "sweep_internal.h"

struct sweep_run {
	const struct fs_sweep_opts *o;
	const struct fs_scenario *base;
	size_t n_points;
	char **records;              /* by point; NULL until evaluated here */
	size_t planned;              /* points, roughly (progress) */
	struct fs__sweep_progress *progress;  /* NULL: quiet */
	struct fs__sweep_share *share;  /* shared simulations; NULL: none */
	int failed;                  /* exit status of a failed point, 0 none */
};

static void record_path(const struct sweep_run *s, size_t point, char *buf, size_t len)
{
	snprintf(buf, len, "%s/points/%zu.json", s->o->out_dir, point);
}

/* Why the stored inputs differ from this run's: the first member of want
 * that have lacks or holds another value ("" when they all match). */
static void inputs_differ(const cJSON *have, const cJSON *want, char *why, size_t len)
{
	const cJSON *w;

	why[0] = '\0';
	if (!cJSON_IsObject(have)) {
		snprintf(why, len, "it has no \"inputs\" (made by an older fleetsim)");
		return;
	}
	cJSON_ArrayForEach(w, want) {
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(have, w->string);
		char *ht, *wt;

		if (h != NULL && cJSON_Compare(h, w, 1))
			continue;
		wt = cJSON_PrintUnformatted(w);
		ht = h != NULL ? cJSON_PrintUnformatted(h) : NULL;
		if (ht == NULL)
			snprintf(why, len, "it has no inputs.%s (this run: %.200s)", w->string,
			         wt != NULL ? wt : "?");
		else
			snprintf(why, len, "it was made with %s %.200s, this run has %.200s",
			         w->string, ht, wt != NULL ? wt : "?");
		cJSON_free(wt);
		cJSON_free(ht);
		return;
	}
}

/* A stored record is reused only when it is complete (every member the
 * outputs read, with its type) and every input that determines its bytes
 * matches this run's (fs__sweep_record_inputs); otherwise the point is
 * computed again, and stderr says why. */
static char *load_record(const struct sweep_run *s, size_t point)
{
	char path[4096], why[600];
	char *text;
	cJSON *rec, *want;

	record_path(s, point, path, sizeof path);
	text = fs_read_text(path, NULL);
	if (text == NULL)
		return NULL;
	rec = cJSON_Parse(text);
	why[0] = '\0';
	if (rec == NULL) {
		snprintf(why, sizeof why, "it is not valid JSON");
	} else {
		want = fs__sweep_record_inputs(s->o, s->base, point);
		inputs_differ(cJSON_GetObjectItemCaseSensitive(rec, "inputs"), want, why,
		              sizeof why);
		cJSON_Delete(want);
		if (why[0] == '\0' && !fs__sweep_record_complete(rec, point, why + 15,
		                                                  sizeof why - 15))
			memcpy(why, "it is partial: ", 15);
	}
	cJSON_Delete(rec);
	if (why[0] != '\0') {
		fprintf(stderr, "fleetsim sweep: --resume: not reusing %s: %s; computing "
		        "point %zu again\n", path, why, point);
		free(text);
		return NULL;
	}
	return text;
}

static double record_replications(const char *text)
{
	cJSON *rec = cJSON_Parse(text);
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(rec, "replications");
	double n = cJSON_IsNumber(r) ? r->valuedouble : 0;

	cJSON_Delete(rec);
	return n;
}

/* Evaluate (or reuse) one point; returns its feasibility, -1 on error. */
static int eval(struct sweep_run *s, size_t point)
{
	struct fs_error err;
	char path[4096];
	bool feasible = false;
	char *text = NULL;
	double reps = 0;
	uint64_t borrowed, simulated;

	if (s->records[point] != NULL)
		return fs__sweep_record_feasible(s->records[point]);
	if (s->o->resume)
		text = load_record(s, point);
	if (text == NULL) {
		if (s->progress != NULL) {
			char label[256];

			fs_sweep_point_label(&s->base->sweep, point, label, sizeof label);
			fs__sweep_progress_begin(s->progress, point, label);
		}
		text = fs__sweep_eval_point(s->o, s->base, point, s->share, &feasible);
		if (text == NULL) {
			s->failed = FS_EXIT_INPUT;
			return -1;
		}
		reps = record_replications(text);
		record_path(s, point, path, sizeof path);
		if (fs_outfile_write(path, text, strlen(text), &err) != 0) {
			fs_error_print(&err);
			free(text);
			s->failed = FS_EXIT_RUNTIME;
			return -1;
		}
	}
	s->records[point] = text;
	fs__sweep_share_counts(s->share, &borrowed, &simulated);
	fs__sweep_progress_done(s->progress, reps, borrowed);
	return fs__sweep_record_feasible(text);
}

/* Point at search index i of the unit at coords (coords[axis] is set). */
static int eval_at(struct sweep_run *s, size_t *coords, size_t axis, size_t i)
{
	coords[axis] = i;
	return eval(s, fs_sweep_point_index(&s->base->sweep, coords));
}

/* MODEL: S13 — search: within one combination of the other axes, the
 * smallest search value that is feasible (feasibility is assumed monotone
 * in it).  It starts at the capacity bound (fs__sweep_search_start) and
 * gallops: from a feasible start down by 1, 2, 4, ... until a point is not
 * feasible; from an infeasible one up by 1, 2, 4, ... until one is (none up
 * to the largest value: none is feasible); then bisects between the last
 * infeasible and the first feasible value.  With monotone feasibility the
 * answer is the bisection's from the top and the exhaustive grid's.  Only a
 * proven-feasible point counts as feasible here: an undecided one sends the
 * search up, so it ends on a point it can recommend (S12). */
static void search_combo(struct sweep_run *s, const size_t *coords_base, size_t axis)
{
	const struct fs_sweep_cfg *sw = &s->base->sweep;
	size_t coords[FS_SWEEP_MAX_AXES], n = sw->axes[axis].n_values, lo, hi, step = 1;
	size_t start;
	int f;

	memcpy(coords, coords_base, sw->n_axes * sizeof *coords);
	start = fs__sweep_search_start(s->o, s->base, coords, axis);
	f = eval_at(s, coords, axis, start);
	if (f < 0)
		return;
	if (f == 1) {
		hi = start;
		lo = 0;
		while (hi > 0 && s->failed == 0) {
			size_t probe = hi >= step ? hi - step : 0;

			f = eval_at(s, coords, axis, probe);
			if (f != 1) {
				lo = probe + 1;
				break;
			}
			hi = probe;
			step *= 2;
		}
	} else {
		size_t last_no = start;

		for (;;) {
			size_t probe = last_no + step < n - 1 ? last_no + step : n - 1;

			if (probe == last_no || s->failed != 0)
				return;          /* nothing up to the largest value is feasible */
			f = eval_at(s, coords, axis, probe);
			if (f == 1) {
				lo = last_no + 1;
				hi = probe;
				break;
			}
			last_no = probe;
			step *= 2;
		}
	}
	while (lo < hi && s->failed == 0) {
		size_t mid = lo + (hi - lo) / 2;

		if (eval_at(s, coords, axis, mid) == 1)
			hi = mid;
		else
			lo = mid + 1;
	}
}

static size_t search_axis(const struct fs_sweep_cfg *sw)
{
	size_t a;

	for (a = 0; a < sw->n_axes; a++)
		if (sw->axes[a].search)
			return a;
	return 0;
}

/* One work unit: a point (grid, zip) or a combination of the non-search
 * axes (search), its coordinates (the search axis at 0), its share key and
 * how many of its folded pricing values are on_demand. */
struct unit {
	size_t u;
	size_t coords[FS_SWEEP_MAX_AXES];
	size_t key[FS_SWEEP_MAX_AXES];
	size_t n_axes;
	int on_demand;
};

/* Units of one key together (key order); within them those with more
 * on-demand pools first (an on-demand simulation can be billed as every
 * committed plan, not the other way round: sweep_share.c), then in unit
 * order. */
static int unit_cmp(const void *pa, const void *pb)
{
	const struct unit *a = pa, *b = pb;
	size_t i;

	for (i = 0; i < a->n_axes; i++)
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	if (a->on_demand != b->on_demand)
		return a->on_demand > b->on_demand ? -1 : 1;
	return a->u < b->u ? -1 : a->u > b->u;
}

static void unit_coords(const struct fs_sweep_cfg *sw, size_t u, size_t axis, bool search,
                        size_t *coords)
{
	size_t a;

	if (!search) {
		fs_sweep_point_coords(sw, u, coords);
		return;
	}
	/* Unit u = combination of the non-search axes, last fastest. */
	for (a = sw->n_axes; a-- > 0;) {
		if (a == axis) {
			coords[a] = 0;
			continue;
		}
		coords[a] = u % sw->axes[a].n_values;
		u /= sw->axes[a].n_values;
	}
}

/* Work units, in groups of units of one share key (a unit alone when
 * nothing is shared), group g running on rank g % size; the cache of shared
 * simulations is emptied after each group. */
static void run_units(struct sweep_run *s)
{
	const struct fs_sweep_cfg *sw = &s->base->sweep;
	int rank = fs_par_rank(), size = fs_par_size();
	bool search = sw->mode == FS_SWEEP_SEARCH;
	size_t axis = search_axis(sw), n_search = search ? sw->axes[axis].n_values : 1;
	size_t n_units = s->n_points / n_search, u, a, g = 0, per_unit;
	struct unit *units = fs_xcalloc(n_units, sizeof *units);

	/* Progress estimate: a search takes about 3 points (S13). */
	per_unit = search ? (n_search < 3 ? n_search : 3) : 1;
	for (u = 0; u < n_units; u++) {
		struct unit *x = &units[u];

		x->u = u;
		x->n_axes = sw->n_axes;
		unit_coords(sw, u, axis, search, x->coords);
		if (s->share != NULL)
			fs__sweep_share_key(sw, x->coords, x->key);
		else
			for (a = 0; a < sw->n_axes; a++)
				x->key[a] = x->coords[a];
		if (search)
			x->key[axis] = 0;
		for (a = 0; a < sw->n_axes; a++)
			x->on_demand += x->key[a] == SIZE_MAX &&
			                strcmp(sw->axes[a].values[x->coords[a]], "\"on_demand\"") == 0;
	}
	if (s->share != NULL)
		qsort(units, n_units, sizeof *units, unit_cmp);
	for (u = 0; u < n_units; u++) {
		if (u > 0 && memcmp(units[u].key, units[u - 1].key, sw->n_axes * sizeof(size_t)))
			g++;
		s->planned += (int)(g % (size_t)size) == rank ? per_unit : 0;
	}
	fs__sweep_progress_plan(s->progress, s->planned);
	for (u = 0, g = 0; u < n_units && s->failed == 0; u++) {
		if (u > 0 && memcmp(units[u].key, units[u - 1].key, sw->n_axes * sizeof(size_t))) {
			g++;
			fs__sweep_share_clear(s->share);
		}
		if ((int)(g % (size_t)size) != rank)
			continue;
		if (search)
			search_combo(s, units[u].coords, axis);
		else
			eval(s, units[u].u);
	}
	fs__sweep_share_clear(s->share);
	free(units);
}

int fs_sweep_run(const struct fs_sweep_opts *o)
{
	struct sweep_run s;
	struct fs_error err;
	struct fs_scenario *base;
	struct fs_outdir top, points;
	char dir[4096];
	char **texts = NULL, **all_data = NULL;
	size_t *lens = NULL, *all_len = NULL, n_all = 0, n_mine = 0, i;
	int *keys = NULL, *all_key = NULL, rc = 0;

	base = fs_scenario_file_load(o->file, NULL, o->sets, o->n_sets, NULL, 0, &err);
	if (base == NULL) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	if (!base->sweep.present) {
		fprintf(stderr, "fleetsim sweep: %s: the scenario has no \"sweep\" section "
		        "(docs/SCENARIO.md, SWEEP)\n", o->scenario_path);
		fs_scenario_free(base);
		return FS_EXIT_INPUT;
	}
	/* Every distinct axis value loads before anything runs or is written. */
	if (fs_scenario_file_check_all(o->file, o->sets, o->n_sets, false, true, &err) != 0) {
		fs_error_print(&err);
		fs_scenario_free(base);
		return FS_EXIT_INPUT;
	}
	snprintf(dir, sizeof dir, "%s/points", o->out_dir);
	/* a point's record is written over points/N.json: nothing there may
	 * be a directory, found now rather than after the point has run */
	for (i = 0; i < fs_sweep_n_points(&base->sweep); i++) {
		char name[32];

		snprintf(name, sizeof name, "%zu.json", i);
		if (fs_outfile_check_file(dir, name, &err) != 0) {
			fputs("fleetsim sweep: output: ", stderr);
			fs_error_print(&err);
			fs_scenario_free(base);
			return FS_EXIT_INPUT;
		}
	}
	/* DIR and DIR/points, when this sweep makes them, go with a signal
	 * that comes before any point is stored. */
	if (fs_outdir_make(&top, o->out_dir, &err) != 0 ||
	    fs_outdir_make(&points, dir, &err) != 0) {
		fs_error_print(&err);
		fs_outdir_release(&top);
		fs_scenario_free(base);
		return FS_EXIT_RUNTIME;
	}
	memset(&s, 0, sizeof s);
	s.o = o;
	s.base = base;
	s.n_points = fs_sweep_n_points(&base->sweep);
	s.records = fs_xcalloc(s.n_points, sizeof *s.records);
	if (!o->quiet && fs_par_rank() == 0)
		s.progress = fs__sweep_progress_start(isatty(2));
	s.share = o->no_share ? NULL : fs__sweep_share_alloc(o, base);
	run_units(&s);
	fs__sweep_progress_stop(s.progress);
	fs__sweep_share_free(s.share);

	/* Rank 0 collects every rank's records (a single process: its own). */
	texts = fs_xcalloc(s.n_points + 1, sizeof *texts);
	lens = fs_xcalloc(s.n_points + 1, sizeof *lens);
	keys = fs_xcalloc(s.n_points + 1, sizeof *keys);
	for (i = 0; i < s.n_points; i++) {
		if (s.records[i] == NULL)
			continue;
		texts[n_mine] = s.records[i];
		lens[n_mine] = strlen(s.records[i]) + 1;
		keys[n_mine++] = (int)i;
	}
	fs_par_gather((const char *const *)texts, lens, keys, n_mine, &all_data, &all_len,
	              &all_key, &n_all);
	if (fs_par_rank() == 0) {
		char **by_point = fs_xcalloc(s.n_points, sizeof *by_point);

		for (i = 0; i < n_all; i++)
			by_point[all_key[i]] = all_data[i];
		/* The scenario as swept: -r and --seed go into DIR/scenario.json,
		 * which the report loads for its headroom search and provenance. */
		if (o->seed >= 0)
			base->sim.seed = (uint64_t)o->seed;
		if (o->replications > 0)
			base->sim.replications = (int)o->replications;
		rc = s.failed;
		if (rc == 0)
			rc = fs__sweep_write_outputs(o, base, by_point, s.n_points);
		free(by_point);
	} else {
		rc = s.failed;
	}
	for (i = 0; i < n_all; i++)
		free(all_data[i]);
	free(all_data);
	free(all_len);
	free(all_key);
	free(texts);
	free(lens);
	free(keys);
	for (i = 0; i < s.n_points; i++)
		free(s.records[i]);
	free(s.records);
	fs_outdir_release(&points);
	fs_outdir_release(&top);
	fs_scenario_free(base);
	return rc;
}
