/*
 * scenario.c — loading a scenario file (see scenario.h): read the bytes, hash
 * them, strip comments, parse with cJSON, index node positions (the reading
 * and parsing are shared with the --catalog file loader), then walk the root
 * and "simulation" sections here and the others in scenario_*.c, "catalog"
 * before "engine", "fleet" after it, "sweep" and "objective" last.  A
 * variant or command-line sets patch the tree first (scenario_variant.c).
 * A load builds into a fresh struct fs_scenario and frees it on any error
 * (also one a reader reported that its caller did not pass on), so a
 * failing load has no side effects.
 */
#include "fleetsim/scenario.h"
#include "fleetsim/workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json_pos.h"
#include "scenario_walk.h"
#include "sha256.h"
#include "scenario_schema.h"


static const char *const ROOT_KEYS[] = {
	"name", "description", "currency", "simulation", "workload", "catalog", "engine",
	"fleet", "variants", "sweep", "objective", NULL
};
static const char *const SIM_KEYS[] = {
	"horizon", "warmup", "sample_interval", "start_hour", "seed",
	"replications", "max_in_system", "drain", NULL
};

/* Default sample interval: horizon / 100 rounded to a whole second, at least
 * 1 s, at most the horizon. */
static fs_ns default_sample_interval(fs_ns horizon_ns)
{
	fs_ns s = (horizon_ns / 100 + FS_NS_PER_S / 2) / FS_NS_PER_S * FS_NS_PER_S;

	if (s < FS_NS_PER_S)
		s = FS_NS_PER_S;
	return s < horizon_ns ? s : horizon_ns;
}

static int load_simulation(struct fs__sc *sc, const cJSON *node, struct fs_sim_cfg *sim)
{
	char horizon[40], found[64];
	int64_t seed = 1, reps = 8, max_in = 1000000;

	if (fs__sc_check_object(sc, node, SIM_KEYS) != 0 ||
	    fs__sc_require(sc, node, "horizon") != 0 ||
	    fs__sc_duration(sc, node, "horizon", 1, &sim->horizon_ns) < 0 ||
	    fs__sc_duration(sc, node, "warmup", 0, &sim->warmup_ns) < 0)
		return -1;
	if (sim->horizon_ns > FS__MAX_HORIZON_NS) {
		fs__sc_found(sc, fs__sc_get(node, "horizon"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "horizon", "expected a duration <= "
		                          "3660d (10 years), found %s", found);
	}
	fs_duration_format(sim->horizon_ns, horizon, sizeof horizon);
	if (sim->warmup_ns >= sim->horizon_ns) {
		fs__sc_found(sc, fs__sc_get(node, "warmup"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "warmup", "expected a duration < the "
		                          "horizon (%s), found %s", horizon, found);
	}
	sim->sample_interval_ns = default_sample_interval(sim->horizon_ns);
	if (fs__sc_duration(sc, node, "sample_interval", 1, &sim->sample_interval_ns) < 0)
		return -1;
	if (sim->sample_interval_ns > sim->horizon_ns) {
		fs__sc_found(sc, fs__sc_get(node, "sample_interval"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "sample_interval", "expected a "
		                          "duration <= the horizon (%s), found %s",
		                          horizon, found);
	}
	sim->start_hour = 0.0;
	if (fs__sc_number(sc, node, "start_hour", 0.0, false, 24.0, true,
	                  &sim->start_hour) < 0 ||
	    fs__sc_int(sc, node, "seed", 0, FS__MAX_INT_JSON, &seed) < 0 ||
	    fs__sc_int(sc, node, "replications", 1, 100000, &reps) < 0 ||
	    fs__sc_int(sc, node, "max_in_system", 1, FS__MAX_INT_JSON, &max_in) < 0)
		return -1;
	if (max_in > FS__MAX_IN_SYSTEM) {
		fs__sc_found(sc, fs__sc_get(node, "max_in_system"), found, sizeof found);
		return fs__sc_fail_member(sc, node, "max_in_system", "expected at most "
		                          "%lld requests in the system at once (each "
		                          "holds a few hundred bytes until it ends: about "
		                          "4.5 GB per replication at that count), found %s; "
		                          "a backlog past the bound stops the replication "
		                          "as unstable", (long long)FS__MAX_IN_SYSTEM, found);
	}
	sim->drain = false;
	if (fs__sc_bool(sc, node, "drain", &sim->drain) < 0)
		return -1;
	sim->seed = (uint64_t)seed;
	sim->replications = (int)reps;
	sim->max_in_system = max_in;
	return 0;
}

/* Run `load` on root[key] with the path set to key. */
static int section(struct fs__sc *sc, const cJSON *root, const char *key,
                   int (*load)(struct fs__sc *, const cJSON *, void *), void *cfg)
{
	size_t saved = fs__sc_push_key(sc, key);
	int rc = load(sc, fs__sc_get(root, key), cfg);

	fs__sc_pop(sc, saved);
	return rc;
}

static int sim_section(struct fs__sc *sc, const cJSON *node, void *cfg)
{
	return load_simulation(sc, node, cfg);
}

static int workload_section(struct fs__sc *sc, const cJSON *node, void *cfg)
{
	struct fs_scenario *s = cfg;

	return fs__sc_load_workload(sc, node, &s->workload);
}

static int catalog_section(struct fs__sc *sc, const cJSON *node, void *cfg)
{
	return fs__sc_load_catalog(sc, node, cfg);
}

static int engine_section(struct fs__sc *sc, const cJSON *node, void *cfg)
{
	return fs__sc_load_engine(sc, node, cfg);
}

static int fleet_section(struct fs__sc *sc, const cJSON *node, void *cfg)
{
	return fs__sc_load_fleet(sc, node, cfg);
}

static int variants_section(struct fs__sc *sc, const cJSON *node, void *cfg)
{
	return fs__sc_check_variants(sc, cfg, node);
}

/* MODEL: B9 — "currency": a label of 1-15 letters, digits or symbols
 * without spaces (ISO 4217 codes such as "CNY", or "¥"); default "USD".
 * The budget plan's "currency" follows the same rule. */
int fs__sc_load_currency(struct fs__sc *sc, const cJSON *root, char *out, size_t len)
{
	const char *cur = "USD", *c;
	char found[64];

	if (fs__sc_string(sc, root, "currency", false, &cur) < 0)
		return -1;
	for (c = cur; *c != '\0'; c++)
		if ((unsigned char)*c <= ' ' || *c == '"' || *c == '\\' || *c == '\'' ||
		    *c == '<' || *c == '>' || *c == '&' || *c == '`' || *c == '$')
			break;
	if (*c != '\0' || strlen(cur) >= len) {
		fs__sc_found(sc, fs__sc_get(root, "currency"), found, sizeof found);
		return fs__sc_fail_member(sc, root, "currency", "expected a currency label of "
		                          "1 to %zu characters without spaces, quotes or "
		                          "< > & ` $ (such as \"USD\" or \"CNY\"), found %s",
		                          len - 1, found);
	}
	memcpy(out, cur, strlen(cur) + 1);
	return 0;
}

/* The implicit pool rents engine.gpu on demand at the catalogue's price: a
 * GPU the catalogue has no price for would cost nothing, in every figure and
 * in a sweep's choice of the cheapest, so it is refused (MODEL: B7). */
static int implicit_price_missing(struct fs__sc *sc, const cJSON *root,
                                  const struct fs_scenario *s)
{
	size_t saved = fs__sc_push_key(sc, "engine");
	const cJSON *engine = fs__sc_get(root, "engine");
	int rc = fs__sc_fail_member(sc, engine, "gpu", "the catalogue has no on-demand "
	                            "price for GPU \"%s\", and without a \"fleet\" its "
	                            "instances would cost nothing; give a \"fleet\" whose "
	                            "pool sets \"price_per_h\", or a \"catalog.gpus\" entry "
	                            "with \"price_on_demand_usd_per_h\"",
	                            s->engine.llm.perf.gpu->id);

	fs__sc_pop(sc, saved);
	return rc;
}

/* "fleet" after the engine (its pools are built from the engine's keys),
 * or the implicit single pool; then "variants", checked against the base. */
static int load_fleet_and_variants(struct fs__sc *sc, const cJSON *root,
                                   struct fs_scenario *s)
{
	char currency[FS_CURRENCY_MAX];

	if (fs__sc_load_currency(sc, root, currency, sizeof currency) != 0)
		return -1;
	memcpy(s->fleet.currency, currency, sizeof currency);
	if (sc->fleet_node == NULL) {
		fs__sc_fleet_implicit(s);
		memcpy(s->fleet.currency, currency, sizeof currency);
		if (s->engine.kind == FS_ENGINE_VLLM && strcmp(currency, "USD") != 0)
			return fs__sc_fail_member(sc, root, "currency", "the catalogue's "
			                          "example prices are USD, so with currency "
			                          "\"%s\" the scenario needs a \"fleet\" "
			                          "whose pools give their prices", currency);
		if (s->engine.kind == FS_ENGINE_VLLM && !(s->fleet.pools[0].price_usd_per_h > 0))
			return implicit_price_missing(sc, root, s);
	} else if (s->engine.kind != FS_ENGINE_VLLM)
		return fs__sc_forbid(sc, root, "fleet", "with a \"queue\" engine (only "
		                     "\"vllm\" engines have a fleet)");
	else if (section(sc, root, "fleet", fleet_section, s) != 0)
		return -1;
	if (fs__sc_get(root, "variants") != NULL &&
	    section(sc, root, "variants", variants_section,
	            fs_unconst(root)) != 0)     /* variants_section only reads root */
		return -1;
	return 0;
}

/* "sweep" and "objective", last: the sweep tries its paths on the base
 * document, the objective names classes and needs cost metrics.  A variant
 * or a command-line set has dropped both (scenario_variant.c). */
static int load_study(struct fs__sc *sc, const cJSON *root, struct fs_scenario *s)
{
	const cJSON *sweep = fs__sc_get(root, "sweep");
	const cJSON *objective = fs__sc_get(root, "objective");
	size_t saved;
	int rc;

	if (sweep != NULL) {
		saved = fs__sc_push_key(sc, "sweep");
		rc = fs__sc_load_sweep(sc, root, sweep, &s->sweep);
		fs__sc_pop(sc, saved);
		if (rc != 0)
			return -1;
	}
	if (objective == NULL)
		return 0;
	if (s->engine.kind != FS_ENGINE_VLLM)
		return fs__sc_forbid(sc, root, "objective", "with a \"queue\" engine "
		                     "(its cost metrics need a \"vllm\" engine)");
	saved = fs__sc_push_key(sc, "objective");
	rc = fs__sc_load_objective(sc, objective, s, &s->objective);
	fs__sc_pop(sc, saved);
	return rc;
}

/* The file name without directories and its last extension. */
static char *file_stem(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t n;
	char *stem;

	base = base != NULL ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
	stem = fs_xmalloc(n + 1);
	memcpy(stem, base, n);
	stem[n] = '\0';
	return stem;
}

/* Expected arrivals of one process over horizon_ns: its peak rate times
 * the horizon, or a trace's rows per (scaled) pass times the passes. */
static double expected_arrivals(const struct fs_arrival_cfg *a, fs_ns horizon_ns)
{
	const struct fs_trace *t = a->trace.trace;
	double horizon_s = (double)horizon_ns / FS_NS_PER_SECOND, period_s, scale;

	if (a->kind != FS_ARRIVAL_TRACE)
		return fs_arrival_rate_max(a) * horizon_s;
	if (t == NULL)
		return 0.0;
	if (!a->trace.loop)
		return (double)t->n_rows;
	scale = a->trace.time_scale / a->trace.rate_scale;
	period_s = (double)(t->span_ns + (t->loop_gap_ns > 0 ? t->loop_gap_ns : FS_NS_PER_S)) /
	           FS_NS_PER_SECOND * scale;
	return (double)t->n_rows * (1.0 + horizon_s / period_s);
}

/* The work a replication implies, bounded (docs/SCENARIO.md, "Ranges"):
 * time-series bins, bins x series, and expected arrivals. */
static int check_work(struct fs__sc *sc, const cJSON *sim_node, const struct fs_scenario *s)
{
	const struct fs_sim_cfg *sim = &s->sim;
	const struct fs_workload_cfg *w = &s->workload;
	struct fs__sc_saved_path saved;
	double bins = ceil((double)sim->horizon_ns / (double)sim->sample_interval_ns);
	double series = (double)s->fleet.n_pools + 1.0, arrivals = 0.0;
	char found[64];
	int rc = 0;

	if (w->has_shared_arrivals)
		arrivals += expected_arrivals(&w->arrivals, sim->horizon_ns);
	for (size_t c = 0; c < w->n_classes; c++)
		if (w->classes[c].own_arrivals)
			arrivals += expected_arrivals(&w->classes[c].arrivals, sim->horizon_ns);
	for (size_t c = 0; c < w->n_classes; c++) {
		/* MODEL: U1 — a closed loop on the queue engine sends at most
		 * min(servers / S, users / (Z + S)) requests per second. */
		const struct fs_closed_cfg *cc = w->classes[c].closed;
		double s_s = (double)s->engine.service.mean_ns / FS_NS_PER_SECOND;

		if (cc != NULL && cc->has_users && s->engine.kind == FS_ENGINE_QUEUE && s_s > 0)
			arrivals += (double)sim->horizon_ns / FS_NS_PER_SECOND *
			            fmin((double)s->engine.servers / s_s, (double)cc->users_max /
			                 ((double)cc->think.mean_ns / FS_NS_PER_SECOND + s_s));
	}
	fs__sc_path_save(sc, &saved);
	fs__sc_path_set(sc, "simulation");
	fs__sc_found(sc, fs__sc_get(sim_node, "sample_interval"), found, sizeof found);
	if (bins > FS__MAX_BINS)
		rc = fs__sc_fail_member(sc, sim_node, "sample_interval", "expected at most "
		                        "%.0f time-series bins (horizon / sample_interval), "
		                        "found %.0f with %s; use a longer sample_interval",
		                        FS__MAX_BINS, bins, found);
	else if (bins * series > FS__MAX_BIN_CELLS)
		rc = fs__sc_fail_member(sc, sim_node, "sample_interval", "expected at most "
		                        "%.0f time-series cells (bins x (pools + 1)), found "
		                        "%.0f x %.0f with %s; use a longer sample_interval",
		                        FS__MAX_BIN_CELLS, bins, series, found);
	else if (!(arrivals <= FS__MAX_ARRIVALS))
		rc = fs__sc_fail_member(sc, sim_node, "horizon", "expected at most %.0e "
		                        "arrivals per replication (peak rate x horizon), "
		                        "found %.3g; shorten the horizon or lower the rates",
		                        FS__MAX_ARRIVALS, arrivals);
	fs__sc_path_restore(sc, &saved);
	return rc;
}

/* Whether a request of prompt + output tokens can ever run on pool p
 * (MODEL: V10, V11): its prompt under max_model_len and its peak KV in the
 * pool's blocks. */
static bool pool_fits(const struct fs_pool_cfg *p, int64_t prompt, int64_t output)
{
	const struct fs_llm_engine_cfg *e = &p->llm->sched;
	int64_t peak, blocks;

	if (prompt >= e->max_model_len)
		return false;
	if (output > e->max_model_len - prompt)
		output = e->max_model_len - prompt;
	peak = prompt + output - 1;
	blocks = (peak + e->block_tokens - 1) / e->block_tokens;
	return blocks <= e->kv_blocks;
}

/* Nonsensical fleets: a class pinned to a pool that can never have an
 * instance (count 0, max 0), a fleet with no instance ever, and a class
 * whose smallest request fits no pool that may serve it (too long for
 * max_model_len, or more KV than the pool holds). */
static int check_served(struct fs__sc *sc, const cJSON *root, const struct fs_scenario *s)
{
	const struct fs_fleet_cfg *f = &s->fleet;
	const cJSON *fleet = fs__sc_get(root, "fleet"), *pins = fs__sc_get(fleet, "class_pools");
	struct fs__sc_saved_path saved;
	const struct fs_pool_cfg *p;
	const struct fs_class_cfg *cl;
	int64_t prompt, output;
	size_t c, i, cap = 0;
	bool fits;
	int rc = 0;

	if (f->n_pools == 0)
		return 0;
	for (i = 0; i < f->n_pools; i++)
		cap += (size_t)(f->pools[i].count + f->pools[i].overprovision +
		                f->pools[i].max_count);
	fs__sc_path_save(sc, &saved);
	if (cap == 0 && fleet != NULL) {
		fs__sc_path_set(sc, "fleet");
		rc = fs__sc_fail_member(sc, fleet, "pools", "every pool has count 0 and "
		                        "max 0: no instance can ever serve the workload");
	}
	for (c = 0; rc == 0 && c < s->workload.n_classes; c++) {
		cl = &s->workload.classes[c];
		p = f->class_pool != NULL && f->class_pool[c] >= 0 ?
		    &f->pools[f->class_pool[c]] : NULL;
		if (p != NULL && p->count + p->overprovision + p->max_count == 0) {
			fs__sc_path_set(sc, "fleet.class_pools");
			rc = fs__sc_fail_member(sc, pins, cl->name, "class \"%s\" is pinned "
			                        "to pool \"%s\", which has count 0 and max 0: "
			                        "it can never be served", cl->name, p->name);
			break;
		}
		prompt = fs_length_min(&cl->prompt);
		output = fs_length_min(&cl->output);
		if (prompt < 1 || output < 1)
			continue;            /* trace lengths: checked per request */
		fits = false;
		for (i = 0; i < f->n_pools && !fits; i++)
			if (p == NULL || p == &f->pools[i])
				fits = f->pools[i].llm != NULL &&
				       pool_fits(&f->pools[i], prompt, output);
		if (!fits) {
			p = p != NULL ? p : &f->pools[0];
			fs__sc_path_set(sc, "workload.classes");
			fs__sc_push_index(sc, c);
			rc = fs__sc_fail_at(sc, cJSON_GetArrayItem(fs__sc_get(fs__sc_get(root,
			                    "workload"), "classes"), (int)c), "class \"%s\": "
			                    "its smallest request (%lld prompt + %lld output "
			                    "tokens) fits no pool that may serve it (pool \"%s\": "
			                    "max_model_len %lld, %lld KV blocks of %lld tokens); "
			                    "every request would fail", cl->name,
			                    (long long)prompt, (long long)output, p->name,
			                    (long long)p->llm->sched.max_model_len,
			                    (long long)p->llm->sched.kv_blocks,
			                    (long long)p->llm->sched.block_tokens);
		}
	}
	fs__sc_path_restore(sc, &saved);
	return rc;
}

static int load_root(struct fs__sc *sc, const cJSON *root, struct fs_scenario *s)
{
	const char *name = NULL, *desc = "";

	if (fs__sc_check_object(sc, root, ROOT_KEYS) != 0 ||
	    fs__sc_string(sc, root, "name", false, &name) < 0 ||
	    fs__sc_string(sc, root, "description", true, &desc) < 0)
		return -1;
	s->name = name != NULL ? fs_xstrdup(name) : file_stem(sc->file);
	s->description = fs_xstrdup(desc);
	if (fs__sc_require(sc, root, "simulation") != 0 ||
	    section(sc, root, "simulation", sim_section, &s->sim) != 0 ||
	    fs__sc_require(sc, root, "workload") != 0 ||
	    section(sc, root, "workload", workload_section, s) != 0 ||
	    /* before "engine", whose "gpu" and "model" may name its entries */
	    (fs__sc_get(root, "catalog") != NULL &&
	     section(sc, root, "catalog", catalog_section, &s->catalog) != 0) ||
	    fs__sc_require(sc, root, "engine") != 0)
		return -1;
	sc->fleet_node = fs__sc_get(root, "fleet");
	sc->engine_node = fs__sc_get(root, "engine");
	if (section(sc, root, "engine", engine_section, &s->engine) != 0 ||
	    load_fleet_and_variants(sc, root, s) != 0 ||
	    load_study(sc, root, s) != 0 ||
	    check_work(sc, fs__sc_get(root, "simulation"), s) != 0 ||
	    fs__sc_check_fleet_work(sc, root, s) != 0 ||
	    fs__sc_check_sweep_work(sc, root, s) != 0 ||
	    check_served(sc, root, s) != 0)
		return -1;
	return 0;
}

/* Load text as the base document patched by `variant` (NULL: none) and
 * the command-line sets. */
static struct fs_scenario *load_text(const char *text, size_t text_len,
                                     const char *name_for_errors, const char *base_dir,
                                     const char *variant, const char *const *sets,
                                     size_t n_sets, const struct fs_sweep_cfg *point_sweep,
                                     size_t point, struct fs_error *err)
{
	struct fs_scenario *s = NULL;
	struct fs__sc sc;
	struct fs__jpos *pos = NULL;
	char *buf = NULL;
	cJSON *root;

	root = fs__sc_parse(text, text_len, name_for_errors, &buf, &pos, err);
	if (root == NULL)
		return NULL;
	memset(&sc, 0, sizeof sc);
	sc.file = name_for_errors;
	sc.text = buf;
	sc.text_len = text_len;
	sc.pos = pos;
	sc.base_dir = base_dir;
	sc.err = err;
	sc.set_texts = sets;
	sc.n_set_texts = n_sets;
	sc.point_sweep = point_sweep;
	sc.point = point;
	fs__sc_note_open_pricing(&sc, root, sets, n_sets);
	if (fs__sc_apply_variant(&sc, root, pos, variant, sets, n_sets) == 0) {
		s = fs_xcalloc(1, sizeof *s);
		s->path = fs_xstrdup(name_for_errors);
		s->variant = fs_xstrdup(variant);
		fs__sha256_hex(text, text_len, s->sha256_hex);
		sc.catalog = &s->catalog;
		/* A reader's error that its caller dropped must still fail the
		 * load: no bad value runs as a default. */
		if (load_root(&sc, root, s) != 0 || sc.n_failures > 0) {
			fs_scenario_free(s);
			s = NULL;
		}
	}
	cJSON_Delete(root);
	fs__jpos_free(pos);
	free(buf);
	return s;
}

struct fs_scenario *fs_scenario_load_text(const char *text, size_t text_len,
                                          const char *name_for_errors,
                                          const char *base_dir,
                                          struct fs_error *err)
{
	return load_text(text, text_len, name_for_errors, base_dir, NULL, NULL, 0, NULL, 0,
	                 err);
}

/* What a path that is not a regular file is, for messages. */
static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a pipe";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* The path must be a regular file: the report and budget read a run's or
 * sweep's scenario again later, and a pipe would be empty (or block, a
 * FIFO) the second time. */
int fs_scenario_file_read(struct fs_scenario_file *f, const char *path,
                          struct fs_error *err)
{
	struct stat st;

	memset(f, 0, sizeof *f);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fs_error_at(err, path, 0, 0, NULL, "expected a scenario file (a regular file: "
		            "it is read again for each variant and sweep point), found %s",
		            file_kind(st.st_mode));
		return -1;
	}
	f->text = fs__sc_read_file(path, "scenario", &f->len, err);
	if (f->text == NULL)
		return -1;
	f->path = fs_xstrdup(path);
	return 0;
}

void fs_scenario_file_fini(struct fs_scenario_file *f)
{
	free(f->path);
	free(f->text);
	memset(f, 0, sizeof *f);
}

struct fs_scenario *fs_scenario_file_load(const struct fs_scenario_file *f,
                                          const char *variant,
                                          const char *const *sets, size_t n_sets,
                                          const struct fs_sweep_cfg *sweep, size_t point,
                                          struct fs_error *err)
{
	char *dir = fs__sc_dir_of(f->path);
	struct fs_scenario *s = load_text(f->text, f->len, f->path, dir, variant, sets, n_sets,
	                                  sweep, point, err);

	free(dir);
	return s;
}

/* Read the file at path and load it as load_text does (the directory of
 * path resolves relative data paths). */
static struct fs_scenario *load_file(const char *path, const char *variant,
                                     const char *const *sets, size_t n_sets,
                                     const struct fs_sweep_cfg *sweep, size_t point,
                                     struct fs_error *err)
{
	struct fs_scenario_file f;
	struct fs_scenario *s;

	if (fs_scenario_file_read(&f, path, err) != 0)
		return NULL;
	s = fs_scenario_file_load(&f, variant, sets, n_sets, sweep, point, err);
	fs_scenario_file_fini(&f);
	return s;
}

struct fs_scenario *fs_scenario_load_variant(const char *path, const char *variant,
                                             const char *const *sets, size_t n_sets,
                                             struct fs_error *err)
{
	return load_file(path, variant, sets, n_sets, NULL, 0, err);
}

struct fs_scenario *fs_scenario_load_point(const char *path, const char *const *sets,
                                           size_t n_sets, const struct fs_sweep_cfg *sweep,
                                           size_t point, struct fs_error *err)
{
	return load_file(path, NULL, sets, n_sets, sweep, point, err);
}

struct fs_scenario *fs_scenario_load(const char *path, struct fs_error *err)
{
	return fs_scenario_load_variant(path, NULL, NULL, 0, err);
}

/* fs__sc_load_file's walk collecting the names of root "variants" (checked
 * by the full load before) into ctx, a char *** whose list ends with NULL. */
static int variant_names(struct fs__sc *sc, const cJSON *root, void *ctx)
{
	const cJSON *variants = fs__sc_get(root, "variants"), *v;
	char ***names = ctx;
	size_t i = 0;

	(void)sc;
	if (cJSON_GetArraySize(variants) > 0)
		*names = fs_xcalloc((size_t)cJSON_GetArraySize(variants) + 1, sizeof **names);
	cJSON_ArrayForEach(v, variants)
		(*names)[i++] = fs_xstrdup(fs__sc_get(v, "name")->valuestring);
	return 0;
}

int fs_scenario_file_variants(const struct fs_scenario_file *f, char ***names, size_t *n,
                              struct fs_error *err)
{
	struct fs_scenario *s = fs_scenario_file_load(f, NULL, NULL, 0, NULL, 0, err);

	*names = NULL;
	*n = 0;
	if (s == NULL)               /* the base, "variants" included, must load */
		return -1;
	fs_scenario_free(s);
	if (fs__sc_load_text(f->text, f->len, f->path, variant_names, names, err) != 0)
		return -1;
	while (*names != NULL && (*names)[*n] != NULL)
		(*n)++;
	return 0;
}

int fs_scenario_list_variants(const char *path, char ***names, size_t *n,
                              struct fs_error *err)
{
	struct fs_scenario_file f;
	int rc;

	*names = NULL;
	*n = 0;
	if (fs_scenario_file_read(&f, path, err) != 0)
		return -1;
	rc = fs_scenario_file_variants(&f, names, n, err);
	fs_scenario_file_fini(&f);
	return rc;
}

void fs_scenario_variants_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n && names != NULL; i++)
		free(names[i]);
	free(names);
}

void fs_scenario_free(struct fs_scenario *sc)
{
	if (sc == NULL)
		return;
	fs__sc_workload_fini(&sc->workload);
	fs__sc_fleet_fini(&sc->fleet);
	fs__sc_engine_fini(&sc->engine);
	fs__sc_catalog_fini(&sc->catalog);
	fs__sc_sweep_fini(&sc->sweep);
	fs__sc_objective_fini(&sc->objective);
	free(sc->variant);
	free(sc->path);
	free(sc->name);
	free(sc->description);
	free(sc);
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_root_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(ROOT_KEYS),
		FS__SC_TABLE(SIM_KEYS),
		{ NULL, NULL }
	};

	return tables;
}
