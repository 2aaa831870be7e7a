/*
 * sweep.c — the sweep's driver (see sweep.h): which points to evaluate
 * (all of them, or a bisection per combination of the other axes in search
 * mode), where each runs (work units dealt round-robin over MPI ranks), point
 * records stored atomically as they finish and reused on --resume when they
 * match (every input that determines their bytes: fs__sweep_record_inputs),
 * a progress line on a
 * terminal, and the outputs written by rank 0 from the records alone.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	size_t done, planned;        /* progress */
	double reps_run;             /* replications run here (not reused) */
	double t0_s;
	bool progress;
	int failed;                  /* exit status of a failed point, 0 none */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
	FILE *f;
	char *text = NULL;
	size_t cap = 0, used = 0, got;
	cJSON *rec, *want;

	record_path(s, point, path, sizeof path);
	f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	do {
		text = fs_xrealloc(text, cap += 65536);
		got = fread(text + used, 1, cap - used - 1, f);
		used += got;
	} while (got > 0);
	fclose(f);
	text[used] = '\0';
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

static void show_progress(struct sweep_run *s)
{
	double el = now_s() - s->t0_s;
	double eta = s->done > 0 ? el / (double)s->done * (double)(s->planned - s->done) : 0;

	if (!s->progress)
		return;
	fprintf(stderr, "\rfleetsim sweep: %zu/%zu points, %.1f replications/s, ETA %.0fs   ",
	        s->done, s->planned, el > 0 ? s->reps_run / el : 0.0, eta > 0 ? eta : 0.0);
	fflush(stderr);
}

/* Evaluate (or reuse) one point; returns its feasibility, -1 on error. */
static int eval(struct sweep_run *s, size_t point)
{
	struct fs_error err;
	char path[4096];
	bool feasible = false;
	char *text = NULL;

	if (s->records[point] != NULL)
		return fs__sweep_record_feasible(s->records[point]);
	if (s->o->resume)
		text = load_record(s, point);
	if (text == NULL) {
		text = fs__sweep_eval_point(s->o, s->base, point, &feasible);
		if (text == NULL) {
			s->failed = FS_EXIT_INPUT;
			return -1;
		}
		s->reps_run += record_replications(text);
		record_path(s, point, path, sizeof path);
		if (fs_outfile_write(path, text, strlen(text), &err) != 0) {
			fs_error_print(&err);
			free(text);
			s->failed = FS_EXIT_RUNTIME;
			return -1;
		}
	}
	s->records[point] = text;
	s->done++;
	show_progress(s);
	return fs__sweep_record_feasible(text);
}

/* MODEL: S13 — search: within one combination of the other axes, the
 * smallest search value that is feasible, by bisection (feasibility is
 * assumed monotone in it), evaluating the largest value first.  Only a
 * proven-feasible point counts as feasible here: an undecided one sends the
 * bisection up, so the search ends on a point it can recommend (S12). */
static void search_combo(struct sweep_run *s, const size_t *coords_base, size_t axis)
{
	const struct fs_sweep_cfg *sw = &s->base->sweep;
	size_t coords[16], lo = 0, hi = sw->axes[axis].n_values - 1;
	int f;

	memcpy(coords, coords_base, sw->n_axes * sizeof *coords);
	coords[axis] = hi;
	f = eval(s, fs_sweep_point_index(sw, coords));
	if (f != 1)
		return;
	while (lo < hi && s->failed == 0) {
		size_t mid = lo + (hi - lo) / 2;

		coords[axis] = mid;
		f = eval(s, fs_sweep_point_index(sw, coords));
		if (f == 1)
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

/* Work units: points (grid, zip) or combinations of the non-search axes
 * (search).  Unit u runs on rank u % size. */
static void run_units(struct sweep_run *s)
{
	const struct fs_sweep_cfg *sw = &s->base->sweep;
	int rank = fs_par_rank(), size = fs_par_size();
	size_t u;

	if (sw->mode != FS_SWEEP_SEARCH) {
		for (u = 0; u < s->n_points; u++)
			s->planned += (int)(u % (size_t)size) == rank;
		for (u = 0; u < s->n_points && s->failed == 0; u++)
			if ((int)(u % (size_t)size) == rank)
				eval(s, u);
		return;
	}
	{
		size_t axis = search_axis(sw), n_search = sw->axes[axis].n_values;
		size_t n_units = s->n_points / n_search, steps = 1;
		size_t coords[16];

		/* Progress estimate: a bisection takes about log2(n) + 1 points. */
		while (((size_t)1 << steps) < n_search)
			steps++;
		for (u = 0; u < n_units; u++)
			if ((int)(u % (size_t)size) == rank)
				s->planned += steps + 1;
		for (u = 0; u < n_units && s->failed == 0; u++) {
			size_t rest = u, a;

			if ((int)(u % (size_t)size) != rank)
				continue;
			/* Unit u = combination of the non-search axes, last fastest. */
			for (a = sw->n_axes; a-- > 0;) {
				if (a == axis) {
					coords[a] = 0;
					continue;
				}
				coords[a] = rest % sw->axes[a].n_values;
				rest /= sw->axes[a].n_values;
			}
			search_combo(s, coords, axis);
		}
	}
}

int fs_sweep_run(const struct fs_sweep_opts *o)
{
	struct sweep_run s;
	struct fs_error err;
	struct fs_scenario *base;
	char dir[4096];
	char **texts = NULL, **all_data = NULL;
	size_t *lens = NULL, *all_len = NULL, n_all = 0, n_mine = 0, i;
	int *keys = NULL, *all_key = NULL, rc = 0;

	base = fs_scenario_load_variant(o->scenario_path, NULL, o->sets, o->n_sets, &err);
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
	if (fs_scenario_check_all(o->scenario_path, o->sets, o->n_sets, false, true,
	                          &err) != 0) {
		fs_error_print(&err);
		fs_scenario_free(base);
		return FS_EXIT_INPUT;
	}
	snprintf(dir, sizeof dir, "%s/points", o->out_dir);
	if (fs_outfile_mkdirs(dir, &err) != 0) {
		fs_error_print(&err);
		fs_scenario_free(base);
		return FS_EXIT_RUNTIME;
	}
	memset(&s, 0, sizeof s);
	s.o = o;
	s.base = base;
	s.n_points = fs_sweep_n_points(&base->sweep);
	s.records = fs_xcalloc(s.n_points, sizeof *s.records);
	s.t0_s = now_s();
	s.progress = !o->quiet && isatty(2) && fs_par_rank() == 0;
	run_units(&s);
	if (s.progress)
		fputc('\n', stderr);

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
		char path[4096];

		snprintf(path, sizeof path, "%s/scenario.json", o->out_dir);
		rc = s.failed;
		if (rc == 0 && fs_scenario_write(base, path, &err) != 0) {
			fs_error_print(&err);
			rc = FS_EXIT_RUNTIME;
		}
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
	fs_scenario_free(base);
	return rc;
}
