/*
 * budget_load_task.c — one task of a budget plan: the keys every task has
 * (name, type, gpu, cards, start, plans, storage) and those of its kind
 * (fine-tuning, serving, data, experiment), with a serving task's fleet
 * read from a `fleetsim run` or `fleetsim sweep` output directory.  Checks only; the figures
 * are budget_task.c's.  Strings of the task are heap (fs_budget_plan_free).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget_internal.h"
#include "fleetsim/config.h"
#include "fleetsim/scenario.h"

#define COMMON_KEYS "name", "type", "gpu", "cards", "start", "risk_factor", "plans", \
	"transfer_gb", "disk_gb", "object_gb", "egress_gb"
static const char *const FINETUNE_KEYS[] = {
	COMMON_KEYS, "model", "method", "tokens", "samples", "tokens_per_sample", "epochs",
	"mfu", "seq_len", "micro_batch", "grad_accum", "lora_rank", "lora_modules",
	"dp_efficiency", "qlora_factor", "deadline", "shard", "recompute", "logit_bytes",
	"kbit_fp32_cast", "spot", NULL
};
static const char *const SERVING_KEYS[] = {
	COMMON_KEYS, "model", "tp", "requests_per_day", "prompt_tokens", "output_tokens",
	"ttft_slo_ms", "tpot_slo_ms", "peak_to_mean", "duration", "end", "from", NULL
};
static const char *const FIXED_KEYS[] = {
	COMMON_KEYS, "card_hours", "every", "count", NULL
};
/* The enums' names (budget.h, train.h, fleet_cfg.h) in value order: a name's
 * index is its value (a plan's, its bit in plans_allowed). */
static const char *const KIND_NAMES[] = { FS_BUDGET_KIND_MAP(FS_ENUM_NAME) NULL };
static const char *const METHOD_NAMES[] = { FS_TRAIN_METHOD_MAP(FS_ENUM_NAME) NULL };
static const char *const SHARD_NAMES[] = { FS_TRAIN_SHARD_MAP(FS_ENUM_NAME) NULL };
static const char *const RECOMPUTE_NAMES[] = { FS_TRAIN_RECOMPUTE_MAP(FS_ENUM_NAME) NULL };
static const char *const PLAN_NAMES[FS_PRICING__COUNT + 1] = {
	FS_PRICING_MAP(FS_ENUM_NAME_BY_VALUE)
};
static const char *const MODULE_NAMES[] = {
	"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", NULL
};

/* "model": a catalogue id or alias, or a config.json path (ends ".json"). */
static int load_model(struct fs__sc *sc, const cJSON *node, struct fs_budget_task *t)
{
	const char *name, *near;
	size_t n;
	char *full = NULL;
	int rc;

	if (fs__sc_require(sc, node, "model") != 0 ||
	    fs__sc_string(sc, node, "model", false, &name) < 0)
		return -1;
	t->model_label = fs_xstrdup(name);
	n = strlen(name);
	if (n > 5 && strcmp(name + n - 5, ".json") == 0) {
		if (fs__sc_open_data(sc, node, "model", name, "model config", &full) != 0)
			return -1;
		rc = fs_model_config_load(full, name, &t->own_model, sc->err);
		free(full);
		if (rc != 0)
			return fs__sc_data_failed(sc, node, "model");
		t->model = &t->own_model;
		return 0;
	}
	t->model = fs_catalog_find_model(name);
	if (t->model != NULL)
		return 0;
	near = fs_catalog_suggest_model(name);
	if (near != NULL)
		return fs__sc_fail_member(sc, node, "model", "unknown model \"%.60s\" (did you "
		                          "mean \"%s\"?); give a catalogue id or a config.json "
		                          "path", name, near);
	return fs__sc_fail_member(sc, node, "model", "unknown model \"%.60s\"; give a "
	                          "catalogue id (fleetsim catalog models) or a config.json "
	                          "path", name);
}

/* An array of names from `names` into a bit set (bit i for names[i]).  A
 * name given twice is refused at its second place: a set cannot hold it
 * twice, so the list would not say what was meant. */
static int load_name_set(struct fs__sc *sc, const cJSON *node, const char *key,
                         const char *what, const char *const *names, unsigned *out)
{
	const cJSON *arr = fs__sc_get(node, key), *e;
	size_t saved, i = 0, first[32] = { 0 };
	unsigned bits = 0;
	int k;

	if (arr == NULL)
		return 0;
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
		return fs__sc_fail_member(sc, node, key, "expected a non-empty array of %s "
		                          "names, found %s", what, cJSON_IsArray(arr) ? "[]" :
		                          fs__sc_type_name(arr));
	saved = fs__sc_push_key(sc, key);
	cJSON_ArrayForEach(e, arr) {
		size_t at = i++, s2 = fs__sc_push_index(sc, at);
		size_t n_names = 0;

		while (names[n_names] != NULL)
			n_names++;
		if (fs__sc_find_name_at(sc, e, what, names, n_names, &k) != 0) {
			fs__sc_pop(sc, saved);
			return -1;
		}
		assert(k >= 0 && k < 32);
		if (bits & (1u << k)) {
			fs__sc_fail_at(sc, e, "expected each %s once, found \"%s\" again (also "
			               "%s[%zu])", what, e->valuestring, key, first[k]);
			fs__sc_pop(sc, saved);
			return -1;
		}
		bits |= 1u << k;
		first[k] = at;
		fs__sc_pop(sc, s2);
	}
	fs__sc_pop(sc, saved);
	*out = bits;
	return 1;
}

/* "deadline": after the task's own start (loaded first), else the task
 * could never meet it and the report would only say MISSED. */
static int load_deadline(struct fs__sc *sc, const cJSON *node,
                         const struct fs_budget_plan *plan, struct fs_budget_task *t)
{
	char found[64], start[64];
	int rc = fs__budget_when(sc, node, "deadline", plan, &t->train.deadline_ns);

	if (rc != 1 || t->train.deadline_ns > t->start_ns)
		return rc;
	fs__sc_found(sc, fs__sc_get(node, "deadline"), found, sizeof found);
	if (fs__sc_get(node, "start") != NULL)
		fs__sc_found(sc, fs__sc_get(node, "start"), start, sizeof start);
	else
		snprintf(start, sizeof start, "the plan's start");
	return fs__sc_fail_member(sc, node, "deadline", "expected a deadline after the "
	                          "task's start (%s), found %s", start, found);
}

/* A training sequence fits the model's context (what `estimate --train
 * --seq` checks): "seq_len" when given, else the samples' length, which is
 * then the sequence. */
static int check_context(struct fs__sc *sc, const cJSON *node, const struct fs_budget_task *t)
{
	int64_t ctx = t->model->max_context_tokens;
	const char *key = fs__sc_get(node, "seq_len") != NULL ? "seq_len" : "tokens_per_sample";

	if (ctx <= 0 || t->train.seq_tokens <= ctx)
		return 0;
	return fs__sc_fail_member(sc, node, key, "expected a sequence of at most %lld tokens "
	                          "(the context of %s)%s, found %lld", (long long)ctx,
	                          t->model->id, strcmp(key, "seq_len") != 0 ? "; give "
	                          "\"seq_len\" to pack longer samples into sequences" : "",
	                          (long long)t->train.seq_tokens);
}

static int load_finetune(struct fs__sc *sc, const cJSON *node,
                         const struct fs_budget_plan *plan, struct fs_budget_task *t)
{
	struct fs_budget_train *tr = &t->train;
	int method = FS_TRAIN_LORA, rc, shard = 0, recompute = 0;
	bool cast = true;
	int64_t v;

	tr->epochs = 1;
	tr->micro_batch = 1;
	tr->grad_accum = 1;
	tr->lora_rank = 16;
	tr->lora_modules = FS_LORA_Q | FS_LORA_K | FS_LORA_V | FS_LORA_O;
	tr->qlora_factor = FS_BUDGET_QLORA_FACTOR_DEFAULT;
	if (load_model(sc, node, t) != 0 || fs__sc_require(sc, node, "method") != 0 ||
	    fs__sc_enum(sc, node, "method", "method", METHOD_NAMES, &method) < 0)
		return -1;
	tr->method = (enum fs_train_method)method;
	if (fs__sc_get(node, "tokens") != NULL) {
		if (fs__sc_forbid(sc, node, "samples", "with \"tokens\" (give one of "
		                  "\"tokens\" and \"samples\" x \"tokens_per_sample\")") != 0 ||
		    fs__sc_forbid(sc, node, "tokens_per_sample", "with \"tokens\"") != 0 ||
		    fs__sc_number(sc, node, "tokens", 1, false, 1e16, false,
		                  &tr->tokens_per_epoch) < 0)
			return -1;
	} else {
		if (fs__sc_get(node, "samples") == NULL)
			return fs__sc_fail_at(sc, node, "missing the data size: give \"tokens\" "
			                      "(per epoch) or \"samples\" and \"tokens_per_sample\"");
		if (fs__sc_require(sc, node, "tokens_per_sample") != 0 ||
		    fs__sc_number(sc, node, "samples", 1, false, 1e12, false, &tr->samples) < 0 ||
		    fs__sc_number(sc, node, "tokens_per_sample", 1, false, 1e7, false,
		                  &tr->tokens_per_sample) < 0)
			return -1;
		tr->tokens_per_epoch = tr->samples * tr->tokens_per_sample;
	}
	tr->seq_tokens = tr->tokens_per_sample > 0 ? (int64_t)ceil(tr->tokens_per_sample) : 2048;
	if (fs__sc_number(sc, node, "epochs", 0, true, 1e4, false, &tr->epochs) < 0 ||
	    fs__sc_number(sc, node, "mfu", 0, true, 1, false, &tr->mfu) < 0 ||
	    fs__sc_int(sc, node, "seq_len", 1, 10000000, &tr->seq_tokens) < 0 ||
	    fs__sc_int(sc, node, "micro_batch", 1, 1000000, &tr->micro_batch) < 0 ||
	    fs__sc_int(sc, node, "grad_accum", 1, 1000000, &tr->grad_accum) < 0 ||
	    fs__sc_number(sc, node, "dp_efficiency", 0, true, 1, false, &tr->dp_efficiency) < 0 ||
	    load_deadline(sc, node, plan, t) < 0 || check_context(sc, node, t) < 0)
		return -1;
	tr->logit_bytes = FS_TRAIN_LOGIT_BYTES_DEFAULT;
	tr->kbit_fp32_cast = 1;
	if (fs__sc_enum(sc, node, "shard", "shard", SHARD_NAMES, &shard) < 0 ||
	    fs__sc_enum(sc, node, "recompute", "recompute", RECOMPUTE_NAMES, &recompute) < 0 ||
	    fs__sc_number(sc, node, "logit_bytes", 0, false, 64, false, &tr->logit_bytes) < 0 ||
	    fs__sc_bool(sc, node, "kbit_fp32_cast", &cast) < 0 ||
	    fs__budget_load_spot(sc, node, tr) < 0)
		return -1;
	tr->shard = (enum fs_train_shard)shard;
	tr->recompute = (enum fs_train_recompute)recompute;
	if (fs__sc_get(node, "kbit_fp32_cast") != NULL)
		tr->kbit_fp32_cast = cast;
	if (tr->method == FS_TRAIN_QLORA &&
	    fs__sc_number(sc, node, "qlora_factor", 1, false, 10, false, &tr->qlora_factor) < 0)
		return -1;
	if (tr->method != FS_TRAIN_QLORA &&
	    (fs__sc_forbid(sc, node, "qlora_factor", "unless \"method\" is \"qlora\"") != 0 ||
	     fs__sc_forbid(sc, node, "kbit_fp32_cast", "unless \"method\" is \"qlora\" "
	                   "(only a 4-bit base is cast, T10)") != 0))
		return -1;
	if (tr->method == FS_TRAIN_FULL) {
		if (fs__sc_forbid(sc, node, "lora_rank", "with \"method\": \"full\"") != 0 ||
		    fs__sc_forbid(sc, node, "lora_modules", "with \"method\": \"full\"") != 0)
			return -1;
		return 0;
	}
	rc = fs__sc_int(sc, node, "lora_rank", 1, 65536, &v);
	if (rc < 0)
		return -1;
	if (rc == 1)
		tr->lora_rank = (int)v;
	return load_name_set(sc, node, "lora_modules", "module", MODULE_NAMES,
	                     &tr->lora_modules) < 0 ? -1 : 0;
}

/* Read DIR/NAME as JSON (heap) or fail at node["from"]. */
static cJSON *read_json(struct fs__sc *sc, const cJSON *node, const char *dir,
                        const char *name)
{
	struct fs_error e;
	size_t n = strlen(dir) + strlen(name) + 2, len = 0;
	char *path = fs_xmalloc(n), *text;
	cJSON *root = NULL;

	snprintf(path, n, "%s/%s", dir, name);
	text = fs__sc_read_file(path, name, &len, &e);
	if (text != NULL)
		root = cJSON_ParseWithLength(text, len);
	free(text);
	free(path);
	if (root == NULL)
		fs__sc_fail_member(sc, node, "from", "expected a fleetsim run output "
		                   "directory with a readable %s, found \"%s\"", name,
		                   cJSON_GetStringValue(fs__sc_get(node, "from")));
	return root;
}

static double jnum(const cJSON *o, const char *a, const char *b, const char *c)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);

	if (b != NULL)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	if (c != NULL)
		x = cJSON_GetObjectItemCaseSensitive(x, c);
	return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* The hours pool `name` of a run's summary.json had instances alive (its
 * mean count x the horizon): `alive_instance_hours`, or `instance_hours` in
 * a summary written before the billed hours took that key (they were the
 * alive hours then). */
static double alive_instance_hours(const cJSON *sum, const char *name)
{
	const cJSON *pools = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(sum, "cost"), "pools");
	double h = jnum(pools, name, "alive_instance_hours", "value");

	return isnan(h) ? jnum(pools, name, "instance_hours", "value") : h;
}

/* The currency of a run or sweep (`what`) that a serving task reads
 * `from`: the plan's, else -1 reported at node's "from". */
static int check_currency(struct fs__sc *sc, const cJSON *node, const char *what,
                          const cJSON *cur, const char *currency)
{
	if (cJSON_IsString(cur) && strcmp(cur->valuestring, currency) == 0)
		return 0;
	return fs__sc_fail_member(sc, node, "from", "expected a %s in the plan's currency "
	                          "%s, found %s", what, currency, cJSON_IsString(cur) ?
	                          cur->valuestring : "none");
}

/* The sweep's command-line sets of point `point`, from its record
 * DIR/points/N.json ("inputs.sets"), into sets[0 .. return) (heap strings;
 * at most max), and the sha256 of the input file it ran into sha (""
 * when the record has none); -1 with the failure reported at node's
 * "from". */
static int command_line_sets(struct fs__sc *sc, const cJSON *node, const char *dir,
                             size_t point, char **sets, size_t max, char sha[65])
{
	char name[48];
	cJSON *rec;
	const cJSON *m;
	const char *h;
	int n = 0;

	snprintf(name, sizeof name, "points/%zu.json", point);
	rec = read_json(sc, node, dir, name);
	if (rec == NULL)
		return -1;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(
	                   cJSON_GetObjectItemCaseSensitive(rec, "inputs"), "sets"))
		if (cJSON_IsString(m) && (size_t)n < max)
			sets[n++] = fs_xstrdup(m->valuestring);
	h = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "scenario_sha256"));
	snprintf(sha, 65, "%s", h != NULL ? h : "");
	cJSON_Delete(rec);
	return n;
}

/* Load point `pt` of the sweep in `dir` as the sweep loaded it: its input
 * file as given (DIR/scenario_input.json) with the sweep's command-line
 * sets, then the point's axis values, and check that the file is the one
 * the sweep ran (its sha256).  A sweep of an older fleetsim has only the
 * resolved DIR/scenario.json, used as it is (a point that sets a count its
 * resolved min or max no longer allows does not load from it).  *base gets
 * the base scenario (NULL when it does not load); NULL with e filled when
 * the point does not load. */
static struct fs_scenario *sweep_point(struct fs__sc *sc, const cJSON *node,
                                       const char *dir, size_t pt,
                                       struct fs_scenario **base, struct fs_error *e)
{
	size_t n = strlen(dir) + 32;
	char *path = fs_xmalloc(n), *sets[64], sha[65] = "";
	struct fs_scenario *s = NULL;
	int n_sets = 0, i;

	*base = NULL;
	memset(e, 0, sizeof *e);
	snprintf(path, n, "%s/scenario_input.json", dir);
	if (access(path, R_OK) == 0)
		n_sets = command_line_sets(sc, node, dir, pt, sets, 64, sha);
	else
		snprintf(path, n, "%s/scenario.json", dir);
	if (n_sets < 0) {
		free(path);
		return NULL;
	}
	*base = fs_scenario_load_variant(path, NULL, (const char *const *)sets, (size_t)n_sets,
	                                 e);
	if (*base != NULL && sha[0] != '\0' && strcmp(sha, (*base)->sha256_hex) != 0)
		fs__sc_fail_member(sc, node, "from", "expected the sweep's own input file, "
		                   "found %s/scenario_input.json changed since the sweep ran "
		                   "(its sha256 differs from points/%zu.json's)",
		                   cJSON_GetStringValue(fs__sc_get(node, "from")), pt);
	else if (*base != NULL && pt < fs_sweep_n_points(&(*base)->sweep))
		s = fs_scenario_load_point(path, (const char *const *)sets, (size_t)n_sets,
		                           &(*base)->sweep, pt, e);
	for (i = 0; i < n_sets; i++)
		free(sets[i]);
	free(path);
	return s;
}

/* MODEL: G5 — a serving task from a sweep directory: the point of
 * best.json's "best" (the cheapest proven-feasible one), loaded as the
 * sweep loaded it (sweep_point); its pools' GPU, TP and instances (the
 * autoscaler's max_count where it scales: the most the point may run), its
 * projected monthly cost from the point's figures. */
static int load_from_sweep(struct fs__sc *sc, const cJSON *node,
                           const struct fs_budget_plan *plan, struct fs_budget_task *t,
                           cJSON *best_doc)
{
	const cJSON *best = cJSON_GetObjectItemCaseSensitive(best_doc, "best");
	const cJSON *pt = cJSON_GetObjectItemCaseSensitive(best, "point");
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(best_doc, "currency");
	const char *rel = cJSON_GetStringValue(fs__sc_get(node, "from"));
	struct fs_scenario *base = NULL, *s = NULL;
	struct fs_error e;
	char buf[1400];
	double inst = 0;
	unsigned failures;
	int rc = -1;

	if (!cJSON_IsObject(best) || !cJSON_IsNumber(pt) || pt->valuedouble < 0) {
		fs__sc_fail_member(sc, node, "from", "expected a sweep with a proven-feasible "
		                   "point, found best.json's \"best\" null in \"%s\" (%s)", rel,
		                   cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		                           best_doc, "why")) != NULL ? "see its \"why\"" :
		                   "no \"why\"");
		goto out;
	}
	if (check_currency(sc, node, "sweep", cur, plan->currency) != 0)
		goto out;
	failures = sc->n_failures;
	s = sweep_point(sc, node, t->serve.from_dir, (size_t)pt->valuedouble, &base, &e);
	if (s == NULL) {
		if (sc->n_failures != failures)
			goto out;                  /* reported where it failed */
		fs_error_format(&e, buf, sizeof buf);
		fs__sc_fail_member(sc, node, "from", "expected a sweep output directory whose "
		                   "scenario loads with best point %.0f, found: %s",
		                   pt->valuedouble, base == NULL || e.msg[0] != '\0' ? buf :
		                   "a point outside the sweep");
		goto out;
	}
	for (size_t i = 0; i < s->fleet.n_pools; i++) {
		const struct fs_pool_cfg *pc = &s->fleet.pools[i];
		const struct fs_gpu_spec *g = fs_catalog_find_gpu(pc->llm->perf.gpu->id);

		if (g == NULL || (t->gpu != NULL && t->gpu != g)) {
			fs__sc_fail_member(sc, node, "from", "expected a sweep whose best point's "
			                   "pools are all on one catalogue GPU (one serving task per "
			                   "GPU type), found pool \"%s\" on %s", pc->name,
			                   pc->llm->perf.gpu->id);
			goto out;
		}
		t->gpu = g;
		t->serve.tp = pc->llm->perf.tp;
		inst += s->fleet.autoscale.enabled && pc->max_count > pc->count ? pc->max_count :
		        pc->count;
	}
	t->serve.from_instances = (int)inst;
	t->serve.sim_monthly_cost = jnum(best, "figures", "monthly_cost", "value");
	rc = 0;
out:
	fs_scenario_free(s);
	fs_scenario_free(base);
	return rc;
}

/* MODEL: G5 — a serving task from a run directory: its GPU, its mean
 * instances (instance-hours / horizon, rounded up) x TP, its projected
 * monthly cost. */
static int load_from_dir(struct fs__sc *sc, const cJSON *node,
                         const struct fs_budget_plan *plan, struct fs_budget_task *t)
{
	const char *rel;
	cJSON *sum, *scen;
	const cJSON *pools, *p, *hz, *cur;
	fs_ns horizon_ns = 0;
	double inst = 0;
	int rc = -1;
	char msg[128];

	if (fs__sc_string(sc, node, "from", false, &rel) < 0)
		return -1;
	t->serve.from_dir = fs__sc_resolve_path(sc, rel);
	{
		/* a sweep directory has best.json */
		size_t n = strlen(t->serve.from_dir) + 16;
		char *best_path = fs_xmalloc(n);
		FILE *f;

		snprintf(best_path, n, "%s/best.json", t->serve.from_dir);
		f = fopen(best_path, "rb");
		free(best_path);
		if (f != NULL) {
			cJSON *best;

			fclose(f);
			best = read_json(sc, node, t->serve.from_dir, "best.json");
			if (best == NULL)
				return -1;
			rc = load_from_sweep(sc, node, plan, t, best);
			cJSON_Delete(best);
			return rc;
		}
	}
	sum = read_json(sc, node, t->serve.from_dir, "summary.json");
	scen = sum != NULL ? read_json(sc, node, t->serve.from_dir, "scenario.json") : NULL;
	if (scen == NULL)
		goto out;
	hz = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(scen, "simulation"), "horizon");
	cur = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(sum, "cost"), "currency");
	pools = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(sum, "utilization"), "pools");
	if (!cJSON_IsString(hz) || fs_duration_parse_text(hz->valuestring, &horizon_ns, msg,
	                                                  sizeof msg) != 0 || horizon_ns <= 0 ||
	    !cJSON_IsObject(pools) || cJSON_GetArraySize(pools) < 1) {
		fs__sc_fail_member(sc, node, "from", "expected a fleetsim run output directory "
		                   "(summary.json with utilization.pools, scenario.json with "
		                   "simulation.horizon), found \"%s\"", rel);
		goto out;
	}
	if (check_currency(sc, node, "run", cur, plan->currency) != 0)
		goto out;
	cJSON_ArrayForEach(p, pools) {
		const struct fs_gpu_spec *g = fs_catalog_find_gpu(
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "gpu")));
		double tp = jnum(p, "tp", NULL, NULL);
		double h = alive_instance_hours(sum, p->string);
		if (g == NULL || !(tp >= 1) || !(h >= 0) || (t->gpu != NULL && t->gpu != g)) {
			fs__sc_fail_member(sc, node, "from", "expected a run whose pools are all on "
			                   "one catalogue GPU (one serving task per GPU type), "
			                   "found pool \"%s\"", p->string);
			goto out;
		}
		t->gpu = g;
		t->serve.tp = (int)tp;
		inst += ceil(h / ((double)horizon_ns / (double)FS__BUDGET_NS_PER_H) - 1e-9);
	}
	t->serve.from_instances = (int)inst;
	t->serve.sim_monthly_cost = jnum(sum, "cost", "monthly_projected", "value");
	rc = 0;
out:
	cJSON_Delete(sum);
	cJSON_Delete(scen);
	return rc;
}

static int load_serving(struct fs__sc *sc, const cJSON *node,
                        const struct fs_budget_plan *plan, struct fs_budget_task *t)
{
	struct fs_budget_serving *s = &t->serve;
	fs_ns end_ns = 0;
	int64_t tp = 1;
	int rc;

	s->peak_to_mean = FS_BUDGET_PEAK_TO_MEAN_DEFAULT;
	s->sim_monthly_cost = NAN;
	if (fs__sc_forbid(sc, node, "cards", "for a serving task (its instances are "
	                  "computed)") != 0)
		return -1;
	if (fs__sc_get(node, "from") != NULL) {
		static const char *const NOT_WITH_FROM[] = {
			"gpu", "model", "tp", "requests_per_day", "prompt_tokens", "output_tokens",
			"ttft_slo_ms", "tpot_slo_ms", "peak_to_mean", NULL
		};
		for (int i = 0; NOT_WITH_FROM[i] != NULL; i++)
			if (fs__sc_forbid(sc, node, NOT_WITH_FROM[i], "with \"from\" (the run "
			                  "directory gives the fleet)") != 0)
				return -1;
		if (load_from_dir(sc, node, plan, t) != 0)
			return -1;
	} else {
		struct fs_budget_task_result r;
		struct fs_error e;
		char buf[1400];

		if (fs__sc_require(sc, node, "gpu") != 0 ||
		    fs__budget_gpu(sc, node, "gpu", &t->gpu) < 0 || load_model(sc, node, t) != 0 ||
		    fs__sc_require(sc, node, "requests_per_day") != 0 ||
		    fs__sc_int(sc, node, "tp", 1, 64, &tp) < 0 ||
		    fs__sc_number(sc, node, "requests_per_day", 0, true, 1e12, false,
		                  &s->requests_per_day) < 0 ||
		    fs__sc_require(sc, node, "prompt_tokens") != 0 ||
		    fs__sc_number(sc, node, "prompt_tokens", 1, false, 1e7, false,
		                  &s->prompt_tokens) < 0 ||
		    fs__sc_require(sc, node, "output_tokens") != 0 ||
		    fs__sc_number(sc, node, "output_tokens", 1, false, 1e7, false,
		                  &s->output_tokens) < 0 ||
		    fs__sc_number(sc, node, "ttft_slo_ms", 0, true, 1e9, false,
		                  &s->ttft_slo_ms) < 0 ||
		    fs__sc_number(sc, node, "tpot_slo_ms", 0, true, 1e9, false,
		                  &s->tpot_slo_ms) < 0 ||
		    fs__sc_number(sc, node, "peak_to_mean", 1, false, 100, false,
		                  &s->peak_to_mean) < 0)
			return -1;
		s->tp = (int)tp;
		memset(&e, 0, sizeof e);
		if (fs__budget_serving(t, &r, &e) != 0) {
			fs_error_format(&e, buf, sizeof buf);
			return fs__sc_fail_at(sc, node, "%s", buf);
		}
	}
	if (fs__sc_get(node, "duration") != NULL &&
	    fs__sc_forbid(sc, node, "end", "with \"duration\"") != 0)
		return -1;
	if (fs__sc_duration_upto(sc, node, "duration", FS_NS_PER_S, FS__MAX_HORIZON_NS,
	                         &t->duration_ns) < 0)
		return -1;
	rc = fs__budget_when(sc, node, "end", plan, &end_ns);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		if (end_ns <= t->start_ns)
			return fs__sc_fail_member(sc, node, "end", "expected an end after the "
			                          "task's start");
		t->duration_ns = end_ns - t->start_ns;
	}
	if (t->duration_ns == 0) {
		if (plan->period_ns <= t->start_ns)
			return fs__sc_fail_at(sc, node, "missing \"duration\" or \"end\" (a serving "
			                      "task runs to the plan's \"period\" end only when "
			                      "the plan has one, after the task's start)");
		t->duration_ns = plan->period_ns - t->start_ns;
	}
	return 0;
}

static int load_fixed(struct fs__sc *sc, const cJSON *node,
                      const struct fs_budget_plan *plan, struct fs_budget_task *t)
{
	struct fs_budget_fixed *f = &t->fixed;

	if (fs__sc_require(sc, node, "gpu") != 0 || fs__budget_gpu(sc, node, "gpu", &t->gpu) < 0 ||
	    fs__sc_require(sc, node, "card_hours") != 0 ||
	    fs__sc_number(sc, node, "card_hours", 0, true, 1e9, false, &f->card_hours) < 0 ||
	    fs__sc_duration_upto(sc, node, "every", FS__BUDGET_NS_PER_H, FS__MAX_HORIZON_NS,
	                         &f->every_ns) < 0 ||
	    fs__sc_int(sc, node, "count", 1, FS_BUDGET_MAX_OCCURRENCES, &f->count) < 0)
		return -1;
	if (f->every_ns == 0 && fs__sc_forbid(sc, node, "count", "without \"every\"") != 0)
		return -1;
	if (f->every_ns == 0)
		f->count = 1;
	if (f->count == 0 && plan->period_ns <= t->start_ns)
		return fs__sc_fail_member(sc, node, "every", "a recurring task without "
		                          "\"count\" runs to the plan's \"period\" end: give "
		                          "the plan a period after the task's start, or a count");
	/* MODEL: G6 — an occurrence runs card_hours / cards wall hours. */
	t->duration_ns = (fs_ns)llround(f->card_hours / t->cards * (double)FS__BUDGET_NS_PER_H);
	if (f->every_ns > 0 && t->duration_ns > f->every_ns)
		return fs__sc_fail_member(sc, node, "card_hours", "expected at most \"every\" x "
		                          "\"cards\" card-hours, so that one occurrence ends "
		                          "before the next starts");
	return 0;
}

int fs__budget_load_task(struct fs__sc *sc, const cJSON *node, struct fs_budget_plan *plan,
                         struct fs_budget_task *t)
{
	static const char *const *const KEYS[] = {
		FINETUNE_KEYS, SERVING_KEYS, FIXED_KEYS, FIXED_KEYS
	};
	const char *name;
	int kind = 0, rc;
	int64_t cards = 1;
	unsigned plans = 0;

	if (!cJSON_IsObject(node))
		return fs__sc_fail_at(sc, node, "expected a task object, found %s",
		                      fs__sc_type_name(node));
	if (fs__sc_require(sc, node, "type") != 0 ||
	    fs__sc_enum(sc, node, "type", "task type", KIND_NAMES, &kind) < 0 ||
	    fs__sc_check_object(sc, node, KEYS[kind]) != 0 ||
	    fs__sc_require(sc, node, "name") != 0 ||
	    fs__sc_string(sc, node, "name", false, &name) < 0)
		return -1;
	t->kind = (enum fs_budget_kind)kind;
	t->name = fs_xstrdup(name);
	t->at = fs__sc_place(sc, node);
	for (size_t i = 0; i < plan->n_tasks; i++)
		if (strcmp(plan->tasks[i].name, name) == 0)
			return fs__sc_fail_member(sc, node, "name", "expected a name no other task "
			                          "has, found \"%s\" again (tasks[%zu])", name, i);
	t->risk_factor = plan->risk_factor;
	t->transfer_gb = -1;
	t->plans_allowed = (1u << FS_PRICING__COUNT) - 1;
	if (t->kind == FS_BUDGET_SERVING)   /* MODEL: G7 — no spot for serving */
		t->plans_allowed &= ~(1u << FS_PRICING_SPOT);
	if (fs__sc_int(sc, node, "cards", 1, FS_BUDGET_MAX_CARDS, &cards) < 0 ||
	    fs__budget_when(sc, node, "start", plan, &t->start_ns) < 0 ||
	    fs__sc_number(sc, node, "risk_factor", 1, false, 3, false, &t->risk_factor) < 0 ||
	    fs__sc_number(sc, node, "transfer_gb", 0, false, 1e9, false, &t->transfer_gb) < 0 ||
	    fs__sc_number(sc, node, "disk_gb", 0, false, 1e9, false, &t->disk_gb) < 0 ||
	    fs__sc_number(sc, node, "object_gb", 0, false, 1e9, false, &t->object_gb) < 0 ||
	    fs__sc_number(sc, node, "egress_gb", 0, false, 1e9, false, &t->egress_gb) < 0)
		return -1;
	rc = load_name_set(sc, node, "plans", "pricing plan", PLAN_NAMES, &plans);
	if (rc < 0)
		return -1;
	if (rc == 1)
		t->plans_allowed = plans;
	t->cards = (int)cards;
	if (t->kind == FS_BUDGET_FINETUNE) {
		if (fs__sc_require(sc, node, "gpu") != 0 ||
		    fs__budget_gpu(sc, node, "gpu", &t->gpu) < 0 ||
		    load_finetune(sc, node, plan, t) != 0)
			return -1;
	} else if (t->kind == FS_BUDGET_SERVING) {
		if (load_serving(sc, node, plan, t) != 0)
			return -1;
	} else if (load_fixed(sc, node, plan, t) != 0) {
		return -1;
	}
	if (!(fs__budget_prices_of(plan, t->gpu)->fee[FS_PRICING_ON_DEMAND] > 0))
		return fs__sc_fail_member(sc, node, fs__sc_get(node, "gpu") != NULL ? "gpu" :
		                          "from", "no on-demand price for GPU \"%s\" in %s: "
		                          "give prices.%s.on_demand (per card-hour)", t->gpu->id,
		                          plan->currency, t->gpu->id);
	if (t->train.spot != NULL &&
	    !(fs__budget_prices_of(plan, t->gpu)->fee[FS_PRICING_SPOT] > 0))
		return fs__sc_fail_member(sc, node, "spot", "no spot price for GPU \"%s\" in %s: "
		                          "give prices.%s.spot (per card-hour)", t->gpu->id,
		                          plan->currency, t->gpu->id);
	return 0;
}
