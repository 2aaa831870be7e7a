/*
 * report_rerun.c — a sweep report shows the recommended configuration in
 * full: the sweep's best point is run again (the sweep's resolved scenario
 * with the point's axis values set, the point's own seed and replications)
 * into DIR/recommended/, a run directory like `fleetsim run` writes, whose
 * time series and cost split feed the timeline, utilization and cost plots.
 * The point is loaded from DIR/scenario_input.json (the sweep's input file,
 * checked against sweep.json's sha256) with the sweep's command-line sets,
 * then the point's axis values, as the sweep loaded it.
 * DIR/recommended/source.json says which point it holds; a later report
 * reuses the directory while that still matches best.json.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleetsim/out_format.h"
#include "fleetsim/outfile.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"
#include "report_internal.h"

#define RERUN_FILES 4

/* source.json's text for the best point (heap), or NULL when best.json
 * names no point or its record lacks a seed or replications. */
static char *source_text(const struct fs__report *r)
{
	const cJSON *best = fs__jget(r->best, "best");
	cJSON *o;
	char *text;

	if (!cJSON_IsNumber(fs__jget(best, "point")) || !r->best_point ||
	    !cJSON_IsNumber(fs__jget(r->best_point, "seed")) ||
	    !cJSON_IsNumber(fs__jget(r->best_point, "replications")) ||
	    !cJSON_IsObject(fs__jget(best, "set")))
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "what", "the recommended point of the sweep in the "
	                        "parent directory, run again with time series");
	cJSON_AddNumberToObject(o, "point", fs__jnum(best, "point"));
	if (cJSON_IsArray(fs__jget(r->best_point, "inputs.sets")))
		cJSON_AddItemToObject(o, "command_line_sets",
		                      cJSON_Duplicate(fs__jget(r->best_point, "inputs.sets"), 1));
	cJSON_AddItemToObject(o, "set", cJSON_Duplicate(fs__jget(best, "set"), 1));
	cJSON_AddNumberToObject(o, "seed", fs__jnum(r->best_point, "seed"));
	cJSON_AddNumberToObject(o, "replications", fs__jnum(r->best_point, "replications"));
	if (fs__jstr(r->best_point, "scenario_sha256"))
		cJSON_AddStringToObject(o, "scenario_sha256",
		                        fs__jstr(r->best_point, "scenario_sha256"));
	text = fs_json_text(o, FS_JSON_PRETTY);
	cJSON_Delete(o);
	return text;
}

/* Does DIR/recommended hold this source with every file of a run? */
static int cached(const char *rdir, const char *source)
{
	static const char *const files[] = { "summary.json", "timeseries.csv",
	                                     "scenario.json" };
	char path[4200];
	struct stat st;
	FILE *f;
	size_t len = strlen(source), i;
	char *buf;
	int same;

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", rdir, files[i]);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			return 0;
	}
	snprintf(path, sizeof path, "%s/source.json", rdir);
	if ((f = fopen(path, "rb")) == NULL)
		return 0;
	buf = fs_xmalloc(len + 2);
	same = fread(buf, 1, len + 1, f) == len && memcmp(buf, source, len) == 0;
	free(buf);
	fclose(f);
	return same;
}

/* The sweep's command-line sets, then "PATH=JSON" for each member of the
 * point's set (heap strings). */
static size_t point_sets(const cJSON *cmdline, const cJSON *set, char **out, size_t max)
{
	const cJSON *m;
	size_t n = 0;

	cJSON_ArrayForEach(m, cmdline)
		if (cJSON_IsString(m) && n < max)
			out[n++] = fs_xstrdup(m->valuestring);

	cJSON_ArrayForEach(m, set) {
		char *v;
		size_t len;

		if (n == max || m->string == NULL)
			break;
		v = cJSON_PrintUnformatted(m);
		if (v == NULL) {
			fprintf(stderr, "fleetsim: out of memory printing JSON\n");
			abort();
		}
		len = strlen(m->string) + strlen(v) + 2;
		out[n] = fs_xmalloc(len);
		snprintf(out[n++], len, "%s=%s", m->string, v);
		cJSON_free(v);
	}
	return n;
}

/* Run the point and stage its files into set.  -1 with err on a write
 * failure; 1 with why filled when the point cannot be loaded (the report
 * goes on without its plots). */
static int run_point(const struct fs__report *r, const char *source, struct fs_outset *set,
                     char *why, size_t why_len, struct fs_error *err)
{
	char *sets[64], path[4200];
	struct fs_scenario *sc;
	struct fs_run_opts opts = { 0 };
	struct fs_rep_result **results;
	struct fs_summary *s;
	size_t n_sets, i;
	int rc = 0;

	snprintf(path, sizeof path, "%s/scenario_input.json", r->dir);
	if (access(path, R_OK) != 0) {
		snprintf(why, why_len, "no scenario_input.json (a sweep of an older fleetsim); "
		         "run the recommended configuration with fleetsim run for them");
		return 1;
	}
	n_sets = point_sets(fs__jget(r->best_point, "inputs.sets"), fs__jget(r->best, "best.set"),
	                    sets, 64);
	sc = fs_scenario_load_variant(path, NULL, (const char *const *)sets, n_sets, err);
	for (i = 0; i < n_sets; i++)
		free(sets[i]);
	if (sc == NULL) {
		snprintf(why, why_len, "the recommended point could not be loaded again "
		         "(%.200s: %.400s)", err->where, err->msg);
		return 1;
	}
	if (fs__jstr(r->sweep, "scenario_sha256") &&
	    strcmp(fs__jstr(r->sweep, "scenario_sha256"), sc->sha256_hex) != 0) {
		snprintf(why, why_len, "scenario_input.json is not the file the sweep ran "
		         "(its sha256 differs from sweep.json's)");
		fs_scenario_free(sc);
		return 1;
	}
	opts.replications = (int)fs__jnum(r->best_point, "replications");
	opts.first_replication = 0;
	opts.seed = (uint64_t)fs__jnum(r->best_point, "seed");
	opts.threads = omp_get_num_procs();
	if (opts.replications < 1)
		opts.replications = 1;
	if (opts.threads > opts.replications)
		opts.threads = opts.replications;
	opts.record_first = false;
	results = fs_replicate_run(sc, &opts);
	s = fs_summary_build(sc, results, opts.replications, opts.seed);
	if (fs_summary_write_json(s, sc, fs_outset_path(set, "summary.json"), err) ||
	    fs_timeseries_write_csv(results, opts.replications, sc,
	                            fs_outset_path(set, "timeseries.csv"), err) ||
	    fs_scenario_write(sc, fs_outset_path(set, "scenario.json"), err) ||
	    fs_latency_cdf_write_csv(results, opts.replications, sc,
	                             fs_outset_path(set, "latency_cdf.csv"), err) ||
	    fs_outfile_write(fs_outset_path(set, "source.json"), source, strlen(source), err))
		rc = -1;
	fs_summary_free(s);
	fs_replicate_free(results, opts.replications);
	fs_scenario_free(sc);
	return rc;
}

int fs__report_rerun_best(struct fs__report *r, struct fs_error *err)
{
	char *source = source_text(r);
	char *rdir;
	size_t n = strlen(r->dir) + sizeof "/" FS__RERUN_DIR;
	struct fs_outset set;
	int rc = 0;

	if (source == NULL) {
		fs__plot_skip(r, "timeline, utilization, cost_breakdown",
		              "the sweep has no recommended point to run again");
		return 0;
	}
	rdir = fs_xmalloc(n);
	snprintf(rdir, n, "%s/" FS__RERUN_DIR, r->dir);
	r->rerun_cached = cached(rdir, source);
	if (!r->rerun_cached) {
		char why[900];

		if (fs_outset_begin(&set, rdir, err) != 0)
			rc = -1;
		else if ((rc = run_point(r, source, &set, why, sizeof why, err)) != 0) {
			fs_outset_abort(&set);
			if (rc > 0)
				fs__plot_skip(r, "timeline, utilization, cost_breakdown", why);
		} else if (fs_outset_commit(&set, 1, err) != 0)
			rc = -1;
	}
	if (rc > 0) {
		rc = 0;
	} else if (rc == 0) {
		char path[4200], *text;

		snprintf(path, sizeof path, "%s/summary.json", rdir);
		text = fs_read_text(path, NULL);
		if (text != NULL) {
			r->summary = cJSON_Parse(text);
			free(text);
		}
		snprintf(path, sizeof path, "%s/timeseries.csv", rdir);
		r->timeseries = fs__csv_load(path, NULL);
		if (r->summary == NULL)
			rc = fs_error_set(err, path, NULL, "cannot read the re-run's summary.json");
	}
	free(rdir);
	free(source);
	return rc;
}
