/*
 * report_content.c — what the report says, section by section: the
 * question, the recommendation, the assumptions, the plots and the
 * provenance (the alternatives and the risk are in report_alternatives.c).
 * It reads the loaded directory (report_data.c) and the GPU facts the run
 * recorded (report_gpus.c), and fills the document model; it writes nothing and escapes nothing (the renderers
 * do).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"
#include "report_internal.h"

static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void dist_text(char *buf, size_t len, const cJSON *d)
{
	const char *kind = str_or(fs__jstr(d, "dist"), "?");
	char a[32], b[32];

	if (!isnan(fs__jnum(d, "median")))
		snprintf(buf, len, "%s, median %s", kind,
		         fs__num_text(a, sizeof a, fs__jnum(d, "median")));
	else if (!isnan(fs__jnum(d, "mean")))
		snprintf(buf, len, "%s, mean %s", kind, fs__num_text(a, sizeof a, fs__jnum(d, "mean")));
	else if (!isnan(fs__jnum(d, "value")))
		snprintf(buf, len, "%s %s", kind, fs__num_text(a, sizeof a, fs__jnum(d, "value")));
	else if (!isnan(fs__jnum(d, "min")) && !isnan(fs__jnum(d, "max")))
		snprintf(buf, len, "%s %s to %s", kind, fs__num_text(a, sizeof a, fs__jnum(d, "min")),
		         fs__num_text(b, sizeof b, fs__jnum(d, "max")));
	else
		snprintf(buf, len, "%s", kind);
}

static void slo_text(char *buf, size_t len, const cJSON *slo)
{
	const cJSON *kv;
	size_t used = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(kv, slo) {
		char v[64];
		int n;

		if (!kv->string)
			continue;
		if (strcmp(kv->string, "attainment") == 0 && cJSON_IsNumber(kv))
			snprintf(v, sizeof v, "for %.4g%% of requests", 100 * kv->valuedouble);
		else if (cJSON_IsString(kv))
			snprintf(v, sizeof v, "%s <= %s", kv->string, kv->valuestring);
		else if (cJSON_IsNumber(kv))
			snprintf(v, sizeof v, "%s <= %gs", kv->string, kv->valuedouble);
		else
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", v);
		if (n < 0 || used + (size_t)n >= len)
			return;
		used += (size_t)n;
	}
	if (!used)
		snprintf(buf, len, "no SLO");
}

/* ---- 1. the question ---- */

/* MODEL: B4-B6 — one pool of the resolved scenario: what it is and the
 * pricing plan behind its cost, in the scenario's currency. */
static void pool_item(struct fs__report *r, const cJSON *p)
{
	static const char *const fees[][2] = {
		{ "price_per_h", "per instance-hour" }, { "price_per_day", "per instance-day" },
		{ "price_per_week", "per instance-week" },
		{ "price_per_month", "per instance-month, used or not" },
		{ "price_per_year", "per instance-year, used or not" },
	};
	char a[64], b[64], c[96], range[64] = "";
	const char *unit = "?";
	double fee = NAN;
	size_t k;

	for (k = 0; k < sizeof fees / sizeof fees[0] && isnan(fee); k++) {
		fee = fs__jnum(p, fees[k][0]);
		unit = fees[k][1];
	}
	c[0] = '\0';
	if (!isnan(fs__jnum(p, "overflow_price_per_h")) && fs__jnum(p, "max") > fs__jnum(p, "count"))
		snprintf(c, sizeof c, "; instances above %g at %s %s per hour", fs__jnum(p, "count"),
		         r->currency, fs__num_text(b, sizeof b, fs__jnum(p, "overflow_price_per_h")));
	if (fs__jnum(p, "min") != fs__jnum(p, "max"))
		snprintf(range, sizeof range, ", autoscaled %g to %g", fs__jnum(p, "min"),
		         fs__jnum(p, "max"));
	fs__doc_item(r, "Pool %s: %g x %s (TP %g), %s pricing at %s %s %s%s%s.",
	             str_or(fs__jstr(p, "name"), "?"), fs__jnum(p, "count"),
	             str_or(fs__jstr(p, "gpu"), "?"), fs__jnum(p, "tp"),
	             str_or(fs__jstr(p, "pricing"), "?"), r->currency,
	             fs__num_text(a, sizeof a, fee), unit, c, range);
}

/* The fewest and most replications a configuration ran: every evaluated
 * sweep point's (a sweep adds replications to the points it must decide;
 * summary.json is then the recommended point's run again), a run's or the
 * recommended variant's (summary.json), else the scenario's.  NAN when none
 * is known. */
static void rep_range(const struct fs__report *r, const cJSON *sim, double *lo, double *hi)
{
	const cJSON *p;

	*lo = *hi = fs__jnum(r->summary, "provenance.replications");
	if (r->kind != FS_REPORT_SWEEP && !isnan(*lo))
		return;
	*lo = INFINITY;
	*hi = -INFINITY;
	cJSON_ArrayForEach(p, fs__jget(r->sweep, "points")) {
		double n = fs__jnum(p, "replications");

		if (!isnan(n)) {
			*lo = fmin(*lo, n);
			*hi = fmax(*hi, n);
		}
	}
	if (*lo <= *hi)
		return;
	*lo = *hi = fs__jnum(sim, "replications");
}

/* "Simulated horizon 1h, of which the first 5m is a warm-up ..., 16
 * replications per configuration": the horizon includes the warm-up (arrivals
 * stop at the horizon; requests arriving in the warm-up are not counted). */
static void sim_item(struct fs__report *r, const cJSON *sim)
{
	const char *warm = fs__jstr(sim, "warmup");
	char reps[160], wtext[160];
	double lo, hi;

	rep_range(r, sim, &lo, &hi);
	if (isnan(lo))
		snprintf(reps, sizeof reps, "replications per configuration not recorded");
	else if (lo < hi)
		snprintf(reps, sizeof reps, "%g to %g replications per configuration (more where "
		         "they were needed to decide a point)", lo, hi);
	else
		snprintf(reps, sizeof reps, "%g replication%s per configuration", lo,
		         lo == 1 ? "" : "s");
	if (warm && strcmp(warm, "0s") != 0)
		snprintf(wtext, sizeof wtext, ", of which the first %s is a warm-up whose requests "
		         "are not counted", warm);
	else
		snprintf(wtext, sizeof wtext, ", no warm-up");
	fs__doc_item(r, "Simulated horizon %s%s; %s.", str_or(fs__jstr(sim, "horizon"), "?"),
	             wtext, reps);
}

static void section_question(struct fs__report *r)
{
	const cJSON *sc = r->scenario, *c, *p;
	char a[64], b[256], d[256], e[256];

	fs__doc_heading(r, 2, "1. The question");
	if (!sc) {
		fs__doc_para(r, "The resolved scenario (scenario.json) is not in the directory; "
		             "only the figures below are known.");
		return;
	}
	if (fs__jstr(sc, "description") && *fs__jstr(sc, "description"))
		fs__doc_para(r, "%s", fs__jstr(sc, "description"));
	fs__doc_para(r, "Which fleet serves this traffic within its latency targets at the "
	             "lowest cost, and with what risk?");
	p = fs__jget(sc, "workload.arrivals");
	if (!isnan(fs__jnum(p, "rate_per_s")))
		fs__doc_item(r, "Traffic: %s arrivals at %s requests/s on average.",
		             str_or(fs__jstr(p, "process"), "?"),
		             fs__num_text(a, sizeof a, fs__jnum(p, "rate_per_s")));
	else
		fs__doc_item(r, "Traffic: %s arrivals.", str_or(fs__jstr(p, "process"), "?"));
	cJSON_ArrayForEach(c, fs__jget(sc, "workload.classes")) {
		dist_text(b, sizeof b, fs__jget(c, "prompt_tokens"));
		dist_text(d, sizeof d, fs__jget(c, "output_tokens"));
		slo_text(e, sizeof e, fs__jget(c, "slo"));
		fs__doc_item(r, "Class %s: %.4g%% of requests; prompt tokens %s; output tokens "
		             "%s; SLO: %s.", str_or(fs__jstr(c, "name"), "?"),
		             100 * fs__jnum(c, "share"), b, d, e);
	}
	p = fs__jget(sc, "engine");
	if (fs__jstr(p, "model"))
		fs__doc_item(r, "Model: %s served by a %s engine (weights %s, KV cache %s, "
		             "TP %g by default).", fs__jstr(p, "model"),
		             str_or(fs__jstr(p, "type"), "?"), str_or(fs__jstr(p, "weights_dtype"), "?"),
		             str_or(fs__jstr(p, "kv_dtype"), "?"), fs__jnum(p, "tp"));
	else
		fs__doc_item(r, "Engine: %s.", str_or(fs__jstr(p, "type"), "?"));
	cJSON_ArrayForEach(p, fs__jget(sc, "fleet.pools"))
		pool_item(r, p);
	if (fs__jstr(sc, "fleet.strategy"))
		fs__doc_item(r, "Spot strategy: %s; router: %s.", fs__jstr(sc, "fleet.strategy"),
		             str_or(fs__jstr(sc, "fleet.router"), "?"));
	/* a run or variants of a scenario with a sweep block did not sweep */
	cJSON_ArrayForEach(p, fs__jget(r->kind == FS_REPORT_SWEEP ? sc : NULL, "sweep.axes")) {
		char *vals = cJSON_PrintUnformatted(fs__jget(p, "values") ? fs__jget(p, "values")
		                                                           : fs__jget(p, "range"));

		fs__doc_item(r, "Swept: %s over %s.", str_or(fs__jstr(p, "path"), "?"),
		             vals ? vals : "?");
		free(vals);
	}
	if (r->kind == FS_REPORT_VARIANTS) {
		size_t i;
		char list[1024] = "";

		for (i = 0; i < r->n_variants; i++) {
			size_t n = strlen(list);

			snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", r->variants[i].name);
		}
		fs__doc_item(r, "Variants compared on the same seed (same arrivals, lengths and "
		             "spot draws): %s.", list);
	}
	sim_item(r, fs__jget(sc, "simulation"));
}

/* ---- 2. the recommendation ---- */

/* A row "label | value [low, high]" of table t for each {label, path}
 * figure of summary s that exists. */
static void figure_rows(struct fs__block *t, const cJSON *s, const char *const rows[][2],
                        size_t n)
{
	char a[96];
	const char *cells[2];
	size_t i;

	for (i = 0; i < n; i++) {
		struct fs__ci ci = fs__jci(s, rows[i][1]);

		if (isnan(ci.value))
			continue;
		cells[0] = rows[i][0];
		cells[1] = fs__ci_text(a, sizeof a, ci);
		fs__doc_row(t, cells);
	}
}

/* Per-month projections, in a table of their own (never beside horizon
 * totals): cost and the fleet's outage minutes of a 730-hour month. */
static void month_figures(struct fs__report *r, const cJSON *s)
{
	struct fs__block *t = fs__doc_table(r, 2);
	static const char *const rows[][2] = {
		{ "cost per month", "cost.monthly_projected" },
		{ "outage (minutes per month, fewer serving than wanted)",
		  "availability.fleet.outage_minutes_per_month" },
		{ "total outage (minutes per month, none serving)",
		  "availability.fleet.total_outage_minutes_per_month" },
	};
	char h0[96];
	const char *head[2] = { h0, "value [low, high]" };

	snprintf(h0, sizeof h0, "projected to a 730-hour month (95%% CI; money in %s)",
	         r->currency);
	fs__doc_row(t, head);
	figure_rows(t, s, rows, sizeof rows / sizeof rows[0]);
}

/* MODEL: S3 — replications the guard stopped, and the span they cover. */
static void stopped_note(struct fs__report *r, const cJSON *s)
{
	const cJSON *at = fs__jget(s, "verdict.stopped_at_s"), *v;
	double lo = INFINITY, hi = -INFINITY;
	char a[32], b[32];

	cJSON_ArrayForEach(v, at)
		if (cJSON_IsNumber(v)) {
			lo = fmin(lo, v->valuedouble);
			hi = fmax(hi, v->valuedouble);
		}
	if (!(lo <= hi))
		return;
	fs__doc_para(r, "%g of %g replications stopped early: more requests were in the system "
	             "than simulation.max_in_system allows, after %s%s%s simulated seconds. "
	             "Their costs, per-hour figures and rates cover the span they simulated, "
	             "not the whole horizon.", fs__jnum(s, "verdict.stopped_early_replications"),
	             fs__jnum(s, "provenance.replications"), fs__num_text(a, sizeof a, lo),
	             lo < hi ? " to " : "", lo < hi ? fs__num_text(b, sizeof b, hi) : "");
}

static void run_figures(struct fs__report *r, const cJSON *s)
{
	char a[96], lab[96];
	struct fs__block *t = fs__doc_table(r, 2);
	static const char *const rows[][2] = {
		{ "cost over the simulated span", "cost.total" },
		{ "cost per 1M output tokens", "cost.per_1m_output_tokens" },
		{ "cost per 1k requests", "cost.per_1k_requests" },
		{ "TTFT p99 (ms)", "metrics.all.ttft_ms.p99" },
		{ "TPOT p99 (ms)", "metrics.all.tpot_ms.p99" },
		{ "E2E p99 (ms)", "metrics.all.e2e_ms.p99" },
		{ "throughput (requests/s)", "metrics.all.throughput_rps" },
	};
	char h0[96];
	const char *head[2] = { h0, "value [low, high]" };
	const char *cells[2];

	snprintf(h0, sizeof h0, "figure over the simulated horizon (95%% CI; money in %s)",
	         r->currency);
	fs__doc_row(t, head);
	figure_rows(t, s, rows, sizeof rows / sizeof rows[0]);
	cells[0] = "SLO attainment (share of requests)";
	cells[1] = fs__pct_ci_text(a, sizeof a, fs__jci(s, "metrics.all.slo_attainment"));
	fs__doc_row(t, cells);
	cells[0] = "P(SLO met) (share of replications, Wilson CI)";
	cells[1] = fs__pct_ci_text(a, sizeof a, fs__jci(s, "metrics.all.p_slo_met"));
	fs__doc_row(t, cells);
	if (fs__slo_verdict_text(s, a, sizeof a, lab, sizeof lab)) {
		cells[0] = lab;
		cells[1] = a;
		fs__doc_row(t, cells);
	}
	if (!isnan(fs__jnum(s, "availability.fleet.availability.value"))) {
		cells[0] = "availability (share of time with the instances wanted serving)";
		cells[1] = fs__pct_ci_text(a, sizeof a, fs__jci(s, "availability.fleet.availability"));
		fs__doc_row(t, cells);
	}
	month_figures(r, s);
}

static void section_recommendation(struct fs__report *r)
{
	char a[96], b[96], c[96], lab[512];

	fs__doc_heading(r, 2, "2. The recommendation");
	if (r->kind == FS_REPORT_SWEEP) {
		const cJSON *best = fs__jget(r->best, "best");

		if (!best || cJSON_IsNull(best)) {
			if (fs__jnum(r->best, "points_undecided") > 0)
				fs__doc_para(r, "No configuration is proven feasible: none of the %g "
				             "evaluated points has the lower end of its P(SLO met) interval "
				             "at or above %.0f%%, and %g %s undecided (the interval "
				             "straddles it). More replications decide them; the undecided "
				             "points and how many each needs are listed under the "
				             "alternatives.", fs__jnum(r->best, "points_evaluated"),
				             100 * fs__jnum(r->best, "confidence"),
				             fs__jnum(r->best, "points_undecided"),
				             fs__jnum(r->best, "points_undecided") == 1 ? "is" : "are");
			else
				fs__doc_para(r, "No configuration met the objective: none of the %g "
				             "evaluated points is feasible. Widen the sweep (more or "
				             "larger GPUs) or relax the constraints.",
				             fs__jnum(r->best, "points_evaluated"));
			if (fs__jstr(r->best, "why"))
				fs__doc_para(r, "Why: %s.", fs__jstr(r->best, "why"));
			return;
		}
		fs__short_label(fs__jget(best, "set"), lab, sizeof lab);
		fs__doc_para(r, "Recommended: %s (sweep point %g: %s).", lab,
		             fs__jnum(best, "point"), str_or(fs__jstr(best, "label"), ""));
		fs__doc_item(r, "Objective %s (mean, 95%% CI): %s.",
		             str_or(fs__jstr(r->best, "objective"), "?"),
		             fs__ci_text(a, sizeof a, fs__jci(best, "objective")));
		fs__doc_item(r, "Projected monthly cost (the cost per hour of the simulated span x "
		             "730 h): %s %s.", r->currency,
		             fs__ci_text(b, sizeof b, fs__jci(best, "figures.monthly_cost")));
		fs__doc_item(r, "P(SLO met): %s of replications met every constraint (95%% Wilson "
		             "interval); a point is feasible when the lower end of that interval "
		             "reaches %.0f%%.",
		             fs__pct_ci_text(c, sizeof c, fs__jci(best, "p_slo_met")),
		             100 * fs__jnum(r->best, "confidence"));
		fs__doc_item(r, "Latency on the Pareto axis: %s ms; SLO attainment %s.",
		             fs__ci_text(a, sizeof a, fs__jci(best, "pareto_latency_ms")),
		             fs__pct_ci_text(b, sizeof b, fs__jci(best, "figures.slo_attainment")));
		if (fs__jstr(r->best, "why"))
			fs__doc_para(r, "Why: %s.", fs__jstr(r->best, "why"));
	} else if (r->kind == FS_REPORT_VARIANTS) {
		const struct fs__variant *v = &r->variants[r->rec];

		if (r->have_rec)
			fs__doc_para(r, "Recommended: variant %s, the cheapest variant proven to meet its "
			             "SLO target (stable, with the lower end of the 95%% interval of "
			             "P(SLO met) at least %.0f%%): %s %s per month (95%% CI), P(SLO "
			             "met) %s.", v->name, 100 * r->p_target, r->currency,
			             fs__ci_text(a, sizeof a, v->monthly_usd),
			             fs__pct_ci_text(b, sizeof b, v->p_slo_met));
		else if (r->rec_undecided)
			fs__doc_para(r, "No variant is proven to meet its SLO target (stable, with the "
			             "lower end of the 95%% interval of P(SLO met) at least %.0f%%). The "
			             "cheapest that might (its observed share reaches the target, its "
			             "interval straddles it) is %s: %s %s per month (95%% CI), P(SLO "
			             "met) %s; %s. It is not a recommendation until more replications "
			             "decide it; the figures below are its own.", 100 * r->p_target,
			             v->name, r->currency, fs__ci_text(a, sizeof a, v->monthly_usd),
			             fs__pct_ci_text(b, sizeof b, v->p_slo_met),
			             fs__verdict_text(c, sizeof c, v->verdict, v->needed));
		else
			fs__doc_para(r, "No variant meets its SLO target (stable, with the lower end "
			             "of the 95%% interval of P(SLO met) at least %.0f%%). The figures "
			             "below are the base variant's.", 100 * r->p_target);
		if (v->summary) {
			run_figures(r, v->summary);
			stopped_note(r, v->summary);
		}
	} else {
		fs__doc_para(r, "A single configuration was simulated; its figures, each the mean "
		             "over replications with a 95%% confidence interval:");
		run_figures(r, r->summary);
		fs__doc_para(r, "Verdict: %s.", cJSON_IsTrue(fs__jget(r->summary, "verdict.stable"))
		             ? "stable (the queue does not grow without bound)"
		             : "UNSTABLE: the fleet cannot keep up with the traffic");
		stopped_note(r, r->summary);
	}
}

/* ---- 5. assumptions ---- */

/* Prices, their dates and sources, and notes of every GPU used, from the
 * run's own record (report_gpus.c); a GPU defined by the scenario (no
 * sources) or whose notes say so is flagged as uncalibrated in *outside. */
static void gpu_items(struct fs__report *r, const struct fs__gpu_facts *f, size_t n)
{
	char a[32], b[32], c[32];
	size_t i;
	bool old = false;

	for (i = 0; i < n; i++)
		old = old || f[i].from == FS__GPU_FROM_BINARY;
	if (old)
		fs__doc_para(r, "This run directory was written before runs recorded their GPUs' "
		             "facts in scenario.json: the facts below come from this fleetsim's "
		             "built-in catalogue, which may differ from the one the run used.");
	for (i = 0; i < n; i++) {
		if (f[i].from == FS__GPU_UNKNOWN) {
			fs__doc_item(r, "%s: defined in the scenario, not in the built-in catalogue; "
			             "its specs and step-time efficiencies are the scenario's and "
			             "are uncalibrated.", f[i].name);
			continue;
		}
		if (strcmp(r->currency, "USD") != 0) {
			fs__doc_item(r, "%s (%s): specs: %s.%s%s", f[i].display_name, f[i].id,
			             f[i].spec_source, *f[i].notes ? " Notes: " : "", f[i].notes);
			continue;
		}
		fs__doc_item(r, "%s (%s): on-demand USD %s/h, spot USD %s/h, monthly USD %s per "
		             "GPU, as of %s; prices: %s; specs: %s.%s%s", f[i].display_name,
		             f[i].id, fs__num_text(a, sizeof a, f[i].on_demand_usd_per_h),
		             fs__num_text(b, sizeof b, f[i].spot_usd_per_h),
		             fs__num_text(c, sizeof c, f[i].monthly_usd),
		             *f[i].price_date ? f[i].price_date : "an unknown date",
		             f[i].price_source, f[i].spec_source, *f[i].notes ? " Notes: " : "",
		             f[i].notes);
	}
}

/* The GPUs whose efficiencies are not calibrated; 1 when any. */
static int uncalibrated_items(struct fs__report *r, const struct fs__gpu_facts *f, size_t n)
{
	int outside = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (f[i].from == FS__GPU_UNKNOWN) {
			outside = 1;
		} else if (strcmp(f[i].spec_source, FS_SC_CATALOG_SOURCE) == 0) {
			fs__doc_item(r, "%s: defined in the scenario without sources; its specs and "
			             "step-time efficiencies are the scenario's and are "
			             "uncalibrated.", f[i].id);
			outside = 1;
		} else if (strstr(f[i].notes, "uncalibrated")) {
			fs__doc_item(r, "%s: the catalogue says its efficiencies are uncalibrated "
			             "(A100/H100-derived defaults).", f[i].id);
			outside = 1;
		}
	}
	return outside;
}

static void section_assumptions(struct fs__report *r)
{
	const cJSON *sc = r->scenario, *p;
	struct fs__gpu_facts gpus[FS__REPORT_MAX_GPUS];
	size_t n;
	int outside;

	fs__doc_heading(r, 2, "5. The assumptions");
	n = fs__report_gpu_facts(r, gpus, FS__REPORT_MAX_GPUS);
	if (strcmp(r->currency, "USD") == 0)
		fs__doc_para(r, "Prices: the scenario's prices are the ones simulated (section 1), "
		             "in USD; every cost in this report names the pricing plan of its "
		             "pool. The catalogue's example prices for every GPU used, as the run "
		             "recorded them, with their dates and sources:");
	else
		fs__doc_para(r, "Prices: the scenario gives its own prices, in %s (section 1); "
		             "every cost in this report names the pricing plan of its pool. The "
		             "catalogue's example prices are in another currency and were not "
		             "used. The specs of every GPU used and their sources:", r->currency);
	gpu_items(r, gpus, n);
	fs__doc_para(r, "Calibration: the step-time model (roofline with fitted efficiencies "
	             "and overheads) is checked against published vLLM and Vidur measurements; "
	             "the sources, every point and the median error are in docs/VALIDATION.md "
	             "of the fleetsim sources, and the model's assumptions (numbered) in "
	             "docs/MODEL.md.");
	fs__doc_para(r, "Regimes outside calibration in this scenario:");
	outside = uncalibrated_items(r, gpus, n);
	cJSON_ArrayForEach(p, fs__jget(sc, "fleet.pools"))
		if (fs__jnum(p, "tp") > 1) {
			fs__doc_item(r, "Pool %s runs tensor parallelism %g: all-reduce costs of large "
			             "batches at TP > 1 are modelled, not measured.",
			             str_or(fs__jstr(p, "name"), "?"), fs__jnum(p, "tp"));
			outside = 1;
		}
	if ((fs__jstr(sc, "engine.weights_dtype") && strstr(fs__jstr(sc, "engine.weights_dtype"), "fp8")) ||
	    (fs__jstr(sc, "engine.kv_dtype") && strstr(fs__jstr(sc, "engine.kv_dtype"), "fp8"))) {
		fs__doc_item(r, "FP8 weights or KV cache: efficiencies were calibrated at BF16.");
		outside = 1;
	}
	if (!outside)
		fs__doc_item(r, "none flagged (calibrated GPUs, TP 1, BF16).");
	fs__doc_para(r, "Model limits: requests are simulated at the engine-step level "
	             "(continuous batching, paged KV cache, chunked prefill) from a roofline "
	             "step-time model, not executed; network, tokenizer and host overheads are "
	             "outside the model; the monthly cost is the simulated hours projected to "
	             "730 hours at the same traffic; spot reclaims follow the scenario's "
	             "interruption model or trace.");
}

/* ---- 6. plots, 7. provenance ---- */

static void section_plots(struct fs__report *r)
{
	size_t i;

	fs__doc_heading(r, 2, "6. Plots");
	for (i = 0; i < r->n_plots; i++)
		fs__doc_image(r, r->plots[i].name, r->plots[i].caption);
	if (r->skipped[0])
		fs__doc_para(r, "Not drawn: %s.", r->skipped);
}

static void section_provenance(struct fs__report *r)
{
	const cJSON *s = r->summary;

	fs__doc_heading(r, 2, "7. Provenance");
	if (r->kind == FS_REPORT_SWEEP) {
		fs__doc_item(r, "Scenario %s, sha256 %s.", str_or(fs__jstr(r->sweep, "scenario"), "?"),
		             str_or(fs__jstr(r->sweep, "scenario_sha256"), "?"));
		fs__doc_item(r, "Seed %g, %g points evaluated of %g in the grid.",
		             r->best_point ? fs__jnum(r->best_point, "seed")
		                           : fs__jnum(r->scenario, "simulation.seed"),
		             fs__jnum(r->sweep, "points_evaluated"),
		             fs__jnum(r->sweep, "points_in_grid"));
	} else if (s) {
		fs__doc_item(r, "fleetsim %s; scenario %s, sha256 %s.",
		             str_or(fs__jstr(s, "provenance.fleetsim_version"), "?"),
		             str_or(fs__jstr(s, "provenance.scenario"), "?"),
		             str_or(fs__jstr(s, "provenance.scenario_sha256"), "?"));
		fs__doc_item(r, "Seed %g, %g replications, horizon %s, warm-up %s.",
		             fs__jnum(s, "provenance.seed"), fs__jnum(s, "provenance.replications"),
		             str_or(fs__jstr(s, "provenance.horizon"), "?"),
		             str_or(fs__jstr(s, "provenance.warmup"), "?"));
		fs__doc_item(r, "RNG: %s.", str_or(fs__jstr(s, "provenance.rng"), "?"));
	}
	fs__doc_item(r, "Report by fleetsim %s from the directory %s; plot style from %s.",
	             FS_VERSION, r->dir, r->style_from);
}

void fs__report_content(struct fs__report *r)
{
	const char *name = fs__jstr(r->scenario, "name");
	static const char *const kind[] = { "one configuration", "variants compared",
	                                    "sweep" };

	fs__doc_heading(r, 1, "fleetsim report: %s", name ? name : "scenario");
	fs__doc_para(r, "What this report answers: the question, the recommended configuration "
	             "with its monthly cost and confidence interval, the alternatives it beats, "
	             "the risk, and every assumption (%s).", kind[r->kind]);
	fs__report_first(r);
	section_question(r);
	section_recommendation(r);
	fs__report_alternatives(r);
	fs__report_risk(r);
	section_assumptions(r);
	section_plots(r);
	section_provenance(r);
}
