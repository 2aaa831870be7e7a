/*
 * report_data.c — reading an output directory for the report: which kind it
 * is, its JSON files (cJSON trees kept whole and read through dotted paths),
 * its CSV files (a minimal RFC 4180 reader: quoted fields, "" for a quote),
 * and, for a variants directory, which variant is recommended: the cheapest
 * stable one whose P(SLO met) is proven to reach the target (the lower end
 * of its Wilson interval does), else the cheapest undecided one whose
 * observed share reaches the target, shown as such.  Nothing here writes.
 * Everything loaded is owned by struct fs__report.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleetsim/escape.h"
#include "fleetsim/scenario.h"
#include "fleetsim/stats.h"
#include "report_internal.h"

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = fs_xmalloc(n);

	snprintf(p, n, "%s/%s", a, b);
	return p;
}

static int exists(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct stat st;
	int ok = stat(p, &st) == 0;

	free(p);
	return ok;
}

static char *slurp(const char *path, struct fs_error *err)
{
	char *buf = fs_read_text(path, NULL);

	if (buf == NULL)
		fs_error_set(err, path, NULL, "cannot read: %s", strerror(errno));
	return buf;
}

static cJSON *load_json(const char *dir, const char *name, struct fs_error *err)
{
	char *p = path_join(dir, name);
	char *text = slurp(p, err);
	cJSON *j = NULL;

	if (text) {
		j = cJSON_Parse(text);
		if (!j)
			fs_error_set(err, p, NULL, "not valid JSON");
	}
	free(text);
	free(p);
	return j;
}

cJSON *fs__json_load(const char *dir, const char *name, struct fs_error *err)
{
	return load_json(dir, name, err);
}

/* Line and column of the first non-blank byte of text (where its value
 * starts), 1-based. */
static void value_start(const char *text, int *line, int *col)
{
	const char *p = text, *line_start = text;

	*line = 1;
	for (; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++)
		if (*p == '\n') {
			(*line)++;
			line_start = p + 1;
		}
	*col = (int)(p - line_start) + 1;
}

/* Like load_json, for a document that must be an object with member
 * `need` (NULL: any non-empty object): null, [], {} and the like are
 * refused with the value's line:col, saying what was expected. */
static cJSON *load_json_object(const char *dir, const char *name, const char *need,
                               struct fs_error *err)
{
	char *p = path_join(dir, name);
	char *text = slurp(p, err);
	const char *found;
	cJSON *j = NULL;
	int line, col;

	if (text == NULL)
		goto out;
	j = cJSON_Parse(text);
	if (j == NULL) {
		fs_error_set(err, p, NULL, "not valid JSON");
		goto out;
	}
	if (cJSON_IsObject(j) && j->child != NULL &&
	    (need == NULL || cJSON_GetObjectItemCaseSensitive(j, need) != NULL))
		goto out;
	found = cJSON_IsObject(j) ? (j->child == NULL ? "an empty object {}" :
	                             "an object without it") :
	        cJSON_IsArray(j) ? "an array" : cJSON_IsNull(j) ? "null" :
	        cJSON_IsString(j) ? "a string" : cJSON_IsNumber(j) ? "a number" :
	        "a boolean";
	value_start(text, &line, &col);
	if (need != NULL)
		fs_error_at(err, p, line, col, "$", "expected the object fleetsim wrote, "
		            "with \"%s\", found %s: not an output of fleetsim run or "
		            "fleetsim sweep", need, found);
	else
		fs_error_at(err, p, line, col, "$", "expected the object fleetsim wrote, "
		            "found %s: not an output of fleetsim run or fleetsim sweep",
		            found);
	cJSON_Delete(j);
	j = NULL;
out:
	free(text);
	free(p);
	return j;
}

/* ---- CSV ---- */

/* Parse one record starting at *pp; appends fields to *out.  Returns the
 * number of fields, 0 at end of input. */
static size_t parse_record(const char **pp, char ***out, size_t *cap, size_t *n)
{
	const char *p = *pp;
	size_t start_n = *n;

	if (!*p)
		return 0;
	for (;;) {
		struct { char *s; size_t len, cap; } f = { NULL, 0, 0 };

		bool quoted = *p == '"';

		fs_xgrow((void **)&f.s, &f.cap, 1, 1);
		if (quoted) {
			p++;
			for (; *p; p++) {
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"') {
					p++;
					break;
				}
				fs_xgrow((void **)&f.s, &f.cap, f.len + 2, 1);
				f.s[f.len++] = *p;
			}
		}
		while (*p && *p != ',' && *p != '\n' && *p != '\r') {
			fs_xgrow((void **)&f.s, &f.cap, f.len + 2, 1);
			f.s[f.len++] = *p++;
		}
		f.s[f.len] = '\0';
		if (quoted)
			fs_csv_unguard(f.s);   /* names come back as written */
		fs_xgrow((void **)out, cap, *n + 1, sizeof **out);
		(*out)[(*n)++] = f.s;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\r')
			p++;
		if (*p == '\n')
			p++;
		break;
	}
	*pp = p;
	return *n - start_n;
}

struct fs__csv *fs__csv_load(const char *path, struct fs_error *err)
{
	char *text = slurp(path, err);
	const char *p = text;
	struct fs__csv *c;
	char **cells = NULL;
	size_t cap = 0, n = 0, k;

	if (!text)
		return NULL;
	c = fs_xcalloc(1, sizeof *c);
	c->n_cols = parse_record(&p, &cells, &cap, &n);
	if (c->n_cols == 0) {
		fs_error_set(err, path, NULL, "empty CSV file");
		free(text);
		free(cells);
		free(c);
		return NULL;
	}
	c->head = cells;
	cells = NULL;
	cap = 0;
	n = 0;
	for (;;) {
		size_t before = n;

		k = parse_record(&p, &cells, &cap, &n);
		if (k == 0)
			break;
		if (k != c->n_cols) {
			/* A short or long row: pad or drop so the matrix stays whole. */
			while (n - before < c->n_cols) {
				fs_xgrow((void **)&cells, &cap, n + 1, sizeof *cells);
				cells[n++] = fs_xstrdup("");
			}
			while (n - before > c->n_cols)
				free(cells[--n]);
		}
	}
	c->cells = cells;
	c->n_rows = n / c->n_cols;
	free(text);
	return c;
}

void fs__csv_free(struct fs__csv *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n_cols; i++)
		free(c->head[i]);
	for (i = 0; i < c->n_rows * c->n_cols; i++)
		free(c->cells[i]);
	free(c->head);
	free(c->cells);
	free(c);
}

int fs__csv_col(const struct fs__csv *c, const char *name)
{
	size_t i;

	for (i = 0; c && i < c->n_cols; i++)
		if (strcmp(c->head[i], name) == 0)
			return (int)i;
	return -1;
}

const char *fs__csv_cell(const struct fs__csv *c, size_t row, size_t col)
{
	return c->cells[row * c->n_cols + col];
}

double fs__csv_num(const struct fs__csv *c, size_t row, size_t col)
{
	const char *s = fs__csv_cell(c, row, col);
	char *end;
	double v;

	if (!*s)
		return NAN;
	v = strtod(s, &end);
	return *end ? NAN : v;
}

/* ---- JSON paths ---- */

const cJSON *fs__jget(const cJSON *root, const char *path)
{
	char key[256];
	const cJSON *node = root;

	while (node && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof key)
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		node = cJSON_GetObjectItemCaseSensitive(node, key);
		path += n;
		if (*path == '.')
			path++;
	}
	return node;
}

double fs__jnum(const cJSON *root, const char *path)
{
	const cJSON *j = fs__jget(root, path);

	return cJSON_IsNumber(j) ? j->valuedouble : NAN;
}

const char *fs__jstr(const cJSON *root, const char *path)
{
	const cJSON *j = fs__jget(root, path);

	return cJSON_IsString(j) ? j->valuestring : NULL;
}

struct fs__ci fs__jci(const cJSON *root, const char *path)
{
	const cJSON *j = fs__jget(root, path);
	struct fs__ci ci = { NAN, NAN, NAN };

	if (cJSON_IsNumber(j)) {
		ci.value = ci.lo = ci.hi = j->valuedouble;
	} else if (j) {
		ci.value = fs__jnum(j, "value");
		ci.lo = fs__jnum(j, "ci_lo");
		ci.hi = fs__jnum(j, "ci_hi");
	}
	return ci;
}

/* ---- the directory ---- */

/* A variant directory from comparison.json: refuse anything that could
 * leave DIR. */
static int safe_name(const char *s)
{
	return s && *s && s[0] != '.' && !strchr(s, '/') && !strchr(s, '\\');
}

static struct fs__csv *load_csv_opt(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct fs__csv *c = NULL;
	struct stat st;

	if (stat(p, &st) == 0)
		c = fs__csv_load(p, NULL);
	free(p);
	return c;
}

/*
 * MODEL: M7 — a variant's P(SLO met) against the target, decided on its
 * Wilson interval: the share k / n is rebuilt from the value and the
 * replication count of its summary.json (exact, as value = k / n).
 */
static void decide_variant(struct fs__variant *v, double target)
{
	double n = fs__jnum(v->summary, "provenance.replications");
	size_t trials, met;

	v->verdict = FS_SHARE_UNDECIDED;
	v->needed = 0;
	if (isnan(v->p_slo_met.value) || !(n >= 1))
		return;
	trials = (size_t)n;
	met = (size_t)lround(v->p_slo_met.value * n);
	v->verdict = (int)fs_stats_share_verdict(met, trials, target, FS_CI_LEVEL);
	if (v->verdict == FS_SHARE_UNDECIDED)
		v->needed = fs_stats_share_trials_needed(met, trials, target, FS_CI_LEVEL);
}

static int load_variants(struct fs__report *r, struct fs_error *err)
{
	const cJSON *arr = fs__jget(r->comparison, "variants");
	const cJSON *row;
	size_t i = 0, n = (size_t)cJSON_GetArraySize(arr);
	double best = INFINITY;

	if (!cJSON_IsArray(arr) || n == 0)
		return fs_error_set(err, r->dir, "comparison.json",
		                    "expected a non-empty \"variants\" array");
	r->variants = fs_xcalloc(n, sizeof *r->variants);
	/* A variant "meets its SLO target" when it is stable and its P(SLO met)
	 * reaches the scenario objective's confidence (default 0.9). */
	r->p_target = 0.9;
	cJSON_ArrayForEach(row, arr) {
		struct fs__variant *v = &r->variants[i];
		const char *name = fs__jstr(row, "variant");
		const char *dir = fs__jstr(row, "directory");
		char mapped[256];

		/* The variant's directory as comparison.json records it; an older
		 * file without one: the name mapped as `fleetsim run` maps it. */
		if (name == NULL || name[0] == '\0')
			return fs_error_set(err, r->dir, "comparison.json",
			                    "variant %zu: missing name", i);
		if (dir == NULL) {
			fs_scenario_variant_dir(name, mapped, sizeof mapped);
			dir = mapped;
		}
		if (!safe_name(dir))
			return fs_error_set(err, r->dir, "comparison.json",
			                    "variant %zu: missing or unusable directory", i);
		v->name = fs_xstrdup(name);
		v->row = row;
		v->dir = path_join(r->dir, dir);
		v->summary = load_json(v->dir, "summary.json", NULL);
		v->monthly_usd = fs__jci(row, "monthly_cost_projected");
		v->ttft_p99_ms = fs__jci(row, "ttft_p99_ms");
		v->slo_attainment = fs__jci(row, "slo_attainment");
		v->p_slo_met = fs__jci(v->summary, "metrics.all.p_slo_met");
		v->stable = cJSON_IsTrue(fs__jget(row, "stable"));
		if (strcmp(name, "base") == 0)
			r->base = i;
		i++;
	}
	r->n_variants = i;
	if (!r->scenario)
		r->scenario = load_json(r->variants[r->base].dir, "scenario.json", NULL);
	if (!isnan(fs__jnum(r->scenario, "objective.confidence")))
		r->p_target = fs__jnum(r->scenario, "objective.confidence");
	for (i = 0; i < r->n_variants; i++) {
		struct fs__variant *v = &r->variants[i];

		decide_variant(v, r->p_target);
		v->meets = v->stable && v->verdict == FS_SHARE_MET;
		if (v->meets && v->monthly_usd.value < best) {
			best = v->monthly_usd.value;
			r->rec = i;
			r->have_rec = true;
		}
	}
	for (i = 0; !r->have_rec && i < r->n_variants; i++) {
		const struct fs__variant *v = &r->variants[i];

		/* Undecided, but its observed share is on the feasible side. */
		if (v->stable && v->verdict == FS_SHARE_UNDECIDED &&
		    v->p_slo_met.value >= r->p_target &&
		    (!r->rec_undecided || v->monthly_usd.value < r->variants[r->rec].monthly_usd.value)) {
			r->rec = i;
			r->rec_undecided = true;
		}
	}
	if (!r->have_rec && !r->rec_undecided)
		r->rec = r->base;
	r->summary = r->variants[r->rec].summary;
	r->timeseries = load_csv_opt(r->variants[r->rec].dir, "timeseries.csv");
	return 0;
}

/* MODEL: B9 — the currency every money figure of the directory is in: the
 * resolved scenario's, else the one its outputs name, else USD. */
static void find_currency(struct fs__report *r)
{
	const char *cands[5];
	size_t i;

	cands[0] = fs__jstr(r->scenario, "currency");
	cands[1] = fs__jstr(r->summary, "cost.currency");
	cands[2] = fs__jstr(r->comparison, "currency");
	cands[3] = fs__jstr(r->sweep, "currency");
	cands[4] = fs__jstr(r->best, "currency");
	snprintf(r->currency, sizeof r->currency, "USD");
	for (i = 0; i < 5; i++)
		if (cands[i] != NULL && cands[i][0] != '\0' &&
		    strlen(cands[i]) < sizeof r->currency) {
			snprintf(r->currency, sizeof r->currency, "%s", cands[i]);
			return;
		}
}

static int load_kind(struct fs__report *r, const char *dir, struct fs_error *err);

int fs__report_load(struct fs__report *r, const char *dir, struct fs_error *err)
{
	int rc = load_kind(r, dir, err);

	if (rc == 0)
		find_currency(r);
	return rc;
}

static int load_kind(struct fs__report *r, const char *dir, struct fs_error *err)
{
	struct stat st;

	memset(r, 0, sizeof *r);
	r->dir = fs_xstrdup(dir);
	r->plots_dir = path_join(dir, "plots");
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return fs_error_set(err, dir, NULL, "not a directory (expected the output "
		                    "directory of fleetsim run or fleetsim sweep)");
	if (exists(dir, "sweep.json")) {
		r->kind = FS_REPORT_SWEEP;
		r->sweep = load_json_object(dir, "sweep.json", NULL, err);
		if (!r->sweep)
			return -1;
		r->best = load_json_object(dir, "best.json", NULL, err);
		if (!r->best)
			return -1;
		r->scenario = load_json(dir, "scenario.json", NULL);
		r->sweep_cdf = load_csv_opt(dir, "sweep_cdf.csv");
		if (cJSON_IsNumber(fs__jget(r->best, "best.point"))) {
			char name[64];

			snprintf(name, sizeof name, "points/%d",
			         (int)fs__jnum(r->best, "best.point"));
			strcat(name, ".json");
			r->best_point = load_json(dir, name, NULL);
		}
		return 0;
	}
	if (exists(dir, "comparison.json")) {
		r->kind = FS_REPORT_VARIANTS;
		r->comparison = load_json_object(dir, "comparison.json", "variants", err);
		if (!r->comparison)
			return -1;
		return load_variants(r, err);
	}
	if (exists(dir, "summary.json")) {
		r->kind = FS_REPORT_RUN;
		r->summary = load_json_object(dir, "summary.json", "metrics", err);
		if (!r->summary)
			return -1;
		r->scenario = load_json(dir, "scenario.json", NULL);
		r->timeseries = load_csv_opt(dir, "timeseries.csv");
		r->latency_cdf = load_csv_opt(dir, "latency_cdf.csv");
		return 0;
	}
	return fs_error_set(err, dir, NULL, "no summary.json, comparison.json or "
	                    "sweep.json: not an output directory of fleetsim run or "
	                    "fleetsim sweep");
}

void fs__report_fini(struct fs__report *r)
{
	size_t i, k;

	free(r->style);
	r->style = NULL;
	fs__report_first_fini(r);
	for (i = 0; i < r->n_variants; i++) {
		free(r->variants[i].name);
		free(r->variants[i].dir);
		cJSON_Delete(r->variants[i].summary);
	}
	if (r->kind != FS_REPORT_VARIANTS)   /* else borrowed from a variant */
		cJSON_Delete(r->summary);
	free(r->variants);
	cJSON_Delete(r->scenario);
	cJSON_Delete(r->comparison);
	cJSON_Delete(r->sweep);
	cJSON_Delete(r->best);
	cJSON_Delete(r->best_point);
	fs__csv_free(r->timeseries);
	fs__csv_free(r->latency_cdf);
	fs__csv_free(r->sweep_cdf);
	for (i = 0; i < r->n_blocks; i++) {
		struct fs__block *b = &r->blocks[i];

		free(b->text);
		free(b->image);
		for (k = 0; k < b->n_rows * b->n_cols; k++)
			free(b->cells[k]);
		free(b->cells);
	}
	free(r->blocks);
	free(r->dir);
	free(r->plots_dir);
	memset(r, 0, sizeof *r);
}

void fs__short_label(const cJSON *set, char *buf, size_t len)
{
	const cJSON *kv;
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	cJSON_ArrayForEach(kv, set) {
		const char *key = kv->string ? kv->string : "";
		const char *last = strrchr(key, '.');
		char val[128];
		int n;

		last = last ? last + 1 : key;
		if (cJSON_IsString(kv))
			snprintf(val, sizeof val, "%s", kv->valuestring);
		else if (cJSON_IsNumber(kv))
			snprintf(val, sizeof val, "%.10g", kv->valuedouble);
		else {
			char *t = cJSON_PrintUnformatted(kv);

			snprintf(val, sizeof val, "%s", t ? t : "?");
			free(t);
		}
		n = snprintf(buf + used, len > used ? len - used : 0, "%s%.*s=%s",
		             used ? ", " : "", (int)strcspn(last, "["), last, val);
		if (n < 0 || used + (size_t)n >= len)
			return;
		used += (size_t)n;
	}
}

cJSON *fs__sweep_point(const struct fs__report *r, int point)
{
	cJSON *p;

	cJSON_ArrayForEach(p, fs__jget(r->sweep, "points"))
		if ((int)fs__jnum(p, "point") == point)
			return p;
	return NULL;
}

static const char *metric_words(const char *m)
{
	if (!m)
		return "latency";
	if (strcmp(m, "ttft_ms") == 0)
		return "TTFT";
	if (strcmp(m, "tpot_ms") == 0)
		return "TPOT";
	if (strcmp(m, "e2e_ms") == 0)
		return "E2E latency";
	if (strcmp(m, "itl_ms") == 0)
		return "ITL";
	if (strcmp(m, "queue_ms") == 0)
		return "queueing delay";
	return m;
}

void fs__pareto_axis(const struct fs__report *r, char *buf, size_t len,
                     double *bound_ms)
{
	const cJSON *obj = fs__jget(r->scenario, "objective");
	const char *metric = fs__jstr(obj, "pareto.metric");
	const char *q = fs__jstr(obj, "pareto.quantile");
	const char *cls = fs__jstr(obj, "pareto.class");
	const cJSON *c;

	if (!metric)
		metric = "ttft_ms";
	if (!q)
		q = "p99";
	snprintf(buf, len, "%s %s (ms), %s%s", q, metric_words(metric),
	         cls ? "class " : "all traffic", cls ? cls : "");
	*bound_ms = NAN;
	cJSON_ArrayForEach(c, fs__jget(obj, "constraints")) {
		const char *cm = fs__jstr(c, "metric");
		const char *cq = fs__jstr(c, "quantile");
		const char *cc = fs__jstr(c, "class");
		const cJSON *max = fs__jget(c, "max");
		fs_ns ns;
		char msg[64];

		if (!cm || strcmp(cm, metric) != 0 || !cq || strcmp(cq, q) != 0)
			continue;
		if ((cc == NULL) != (cls == NULL) || (cc && strcmp(cc, cls) != 0))
			continue;
		if (cJSON_IsNumber(max))
			*bound_ms = max->valuedouble * 1e3;   /* a number is seconds */
		else if (cJSON_IsString(max) &&
		         fs_duration_parse_text(max->valuestring, &ns, msg, sizeof msg) == 0)
			*bound_ms = (double)ns / 1e6;
	}
}
