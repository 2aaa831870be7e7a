/*
 * summary.c — aggregation across replications (see summary.h).  For every
 * figure it collects one value per replication, in replication order, and
 * hands the array to fs_stats_mean_ci_nonneg (every figure here is a
 * latency, count, rate or share, so no interval goes below 0; shares are also
 * cut at 1); latency quantiles instead come from the pooled histograms with
 * a sectioning interval (fs_stats_quantile_ci).  A replication with no completed request contributes NAN to
 * latency figures (skipped by the CI).  Rates divide by the span simulated
 * after the warm-up, which is shorter for a replication stopped early.
 */
#include "fleetsim/summary.h"

#include <math.h>
#include <stdlib.h>

static const double quantile_p[FS_QTY__COUNT] = { NAN, 0.50, 0.90, 0.95, 0.99 };

/* MODEL: S5 — a replication is unstable when it stopped at max_in_system or
 * ended with more than max(100, 5% of its arrivals) requests in flight. */
static bool rep_unstable(const struct fs_rep_result *r)
{
	const struct fs_class_result *all = &r->cls[r->n_classes];
	double limit = fmax(100.0, 0.05 * (double)all->arrived);

	return r->stopped_early || (double)all->in_flight > limit;
}

static double hist_value_ms(const struct fs_hist *h, const struct fs_moments *m,
                            enum fs_quantity q)
{
	if (h->n == 0)
		return NAN;
	if (q == FS_QTY_MEAN)
		return m->mean / (double)FS_NS_PER_MS;
	return fs_hist_quantile(h, quantile_p[q]) / (double)FS_NS_PER_MS;
}

static double latency_value(const struct fs_class_result *cr, enum fs_latency k,
                            enum fs_quantity q)
{
	return hist_value_ms(&cr->lat_hist[k], &cr->lat_moments[k], q);
}

/* The interval of a figure recorded in ns, in ms. */
static struct fs_ci ci_ns_to_ms(struct fs_ci ci)
{
	const double ms = (double)FS_NS_PER_MS;

	ci.value /= ms;
	ci.ci_lo /= ms;
	ci.ci_hi /= ms;
	ci.half_width /= ms;
	return ci;
}

/* A latency figure across replications: the mean as the mean of the
 * replications' means (t interval); a quantile from the pooled histograms
 * with its sectioning interval.  hists[r] points at replication r's
 * histogram. */
static struct fs_ci latency_ci(const struct fs_hist **hists, const double *per_rep_ms,
                               int n_reps, enum fs_quantity q)
{
	if (q == FS_QTY_MEAN)
		return fs_stats_mean_ci_nonneg(per_rep_ms, (size_t)n_reps, FS_CI_LEVEL); /* MODEL: S4, M6 */
	/* MODEL: M1, S4 — pooled quantile, sectioning interval (STATISTICS.md). */
	return ci_ns_to_ms(fs_stats_quantile_ci(hists, (size_t)n_reps, quantile_p[q], FS_CI_LEVEL));
}

static void build_group(struct fs_group_summary *g, struct fs_rep_result *const *results,
                        int n_reps, size_t idx, double *buf, const struct fs_hist **hists)
{
	int r, k, q;

	for (k = 0; k < FS_LAT__COUNT; k++) {
		for (r = 0; r < n_reps; r++) {
			hists[r] = &results[r]->cls[idx].lat_hist[k];
			buf[r] = latency_value(&results[r]->cls[idx], (enum fs_latency)k,
			                       FS_QTY_MEAN);
		}
		for (q = 0; q < FS_QTY__COUNT; q++)
			g->lat_ms[k][q] = latency_ci(hists, buf, n_reps, (enum fs_quantity)q);
	}
#define PER_REP(field, expr) \
	do { \
		for (r = 0; r < n_reps; r++) { \
			const struct fs_rep_result *rr = results[r]; \
			const struct fs_class_result *cr = &rr->cls[idx]; \
			(void)rr; (void)cr; \
			buf[r] = (expr); \
		} \
		g->field = fs_stats_mean_ci_nonneg(buf, (size_t)n_reps, FS_CI_LEVEL); \
	} while (0)
	PER_REP(arrived, (double)cr->arrived);
	PER_REP(completed, (double)cr->completed);
	PER_REP(in_flight, (double)cr->in_flight);
	PER_REP(failed, (double)cr->failed);
	/* MODEL: S6, E5 — the completions of the measured span over it (cut
	 * short by a stop, S3; a drain's completions are after it). */
	PER_REP(output_tokens_per_s, rr->measured_ns <= 0 ? NAN :
	        (double)cr->output_tokens_in_window * (double)FS_NS_PER_S /
	        (double)rr->measured_ns);
	PER_REP(throughput_rps, rr->measured_ns <= 0 ? NAN :
	        (double)cr->completed_in_window * (double)FS_NS_PER_S /
	        (double)rr->measured_ns);
	/* MODEL: S2 — in flight and failed requests count as misses. */
	PER_REP(slo_attainment, cr->completed + cr->in_flight + cr->failed == 0 ? NAN :
	        (double)cr->slo_met /
	        (double)(cr->completed + cr->in_flight + cr->failed));
	g->slo_attainment = fs_stats_ci_clip(g->slo_attainment, 0.0, 1.0);
#undef PER_REP
}

static double itl_value(const struct fs_rep_result *r, enum fs_quantity q)
{
	return hist_value_ms(&r->itl_hist, &r->itl_moments, q);
}

/* Engine figures of the LLM engine, each per replication then a CI. */
static void build_engine(struct fs_summary *s, const struct fs_scenario *sc,
                         struct fs_rep_result *const *results, int n_reps, double *buf,
                         const struct fs_hist **hists)
{
	int r, q;

	s->replicas = sc->engine.llm.replicas;
	for (r = 0; r < n_reps; r++) {
		hists[r] = &results[r]->itl_hist;
		buf[r] = itl_value(results[r], FS_QTY_MEAN);
	}
	for (q = 0; q < FS_QTY__COUNT; q++)
		s->groups[s->n_classes].itl_ms[q] = latency_ci(hists, buf, n_reps,
		                                               (enum fs_quantity)q);
#define PER_REP(field, expr) \
	do { \
		for (r = 0; r < n_reps; r++) { \
			const struct fs_rep_result *rr = results[r]; \
			const struct fs_engine_totals *t = &rr->engine; \
			double span_s = (double)(rr->end_ns - sc->sim.warmup_ns) / 1e9; \
			(void)t; (void)span_s; \
			buf[r] = (expr); \
		} \
		s->field = fs_stats_mean_ci_nonneg(buf, (size_t)n_reps, FS_CI_LEVEL); \
	} while (0)
	/* MODEL: S7 */
	PER_REP(kv_use, rr->end_ns > sc->sim.warmup_ns ?
	        fs_tseries_mean_over(&rr->kv_used, sc->sim.warmup_ns,
	                             rr->end_ns < sc->sim.horizon_ns ? rr->end_ns
	                                                             : sc->sim.horizon_ns)
	        : NAN);
	PER_REP(batch_size, t->steps > 0 ? (double)t->sum_batch_seqs / (double)t->steps : NAN);
	PER_REP(preemptions, (double)t->preemptions);
	PER_REP(tokens_per_s, span_s > 0 ? (double)t->tokens_generated / span_s : NAN);
	PER_REP(prefill_tokens_per_s, span_s > 0 ? (double)t->prefill_tokens / span_s : NAN);
	s->kv_use = fs_stats_ci_clip(s->kv_use, 0.0, 1.0);
	/* MODEL: V22 */
	for (r = 0; r < n_reps; r++)
		if (results[r]->engine.prefix_query_tokens > 0)
			s->prefix_cache = true;
	PER_REP(prefix_hit_rate_blocks, t->prefix_query_blocks > 0 ?
	        (double)t->prefix_hit_blocks / (double)t->prefix_query_blocks : NAN);
	PER_REP(prefix_hit_rate_tokens, t->prefix_query_tokens > 0 ?
	        (double)t->prefix_hit_tokens / (double)t->prefix_query_tokens : NAN);
	PER_REP(prefix_saved_tokens, (double)t->prefix_saved_tokens);
#undef PER_REP
	fs__summary_build_fleet(s, sc, results, n_reps, buf);
}

/* MODEL: S9 — a replication meets a class's SLO when its attainment reaches
 * the class's target; it meets "all" when it meets every class with an SLO. */
static bool rep_meets(const struct fs_scenario *sc, const struct fs_rep_result *r, size_t c)
{
	const struct fs_class_result *cr = &r->cls[c];
	uint64_t n = cr->completed + cr->in_flight + cr->failed;

	return n > 0 && (double)cr->slo_met / (double)n >= sc->workload.classes[c].slo.attainment;
}

/* MODEL: M7 — P(SLO met) reaches the target only when its Wilson lower end
 * does; below it only when the upper end is; otherwise undecided, with the
 * replications that would decide it if the observed share held. */
static void set_p_slo_met(struct fs_group_summary *g, size_t met, int n_reps, double target)
{
	g->p_slo_met = fs_stats_wilson(met, (size_t)n_reps, FS_CI_LEVEL);
	g->p_slo_met_verdict = (int)fs_stats_share_verdict(met, (size_t)n_reps, target, FS_CI_LEVEL);
	g->p_slo_met_needed = fs_stats_share_trials_needed(met, (size_t)n_reps, target, FS_CI_LEVEL);
}

static void build_p_slo_met(struct fs_summary *s, const struct fs_scenario *sc,
                            struct fs_rep_result *const *results, int n_reps)
{
	size_t c, met_all = 0;
	int r;

	s->p_slo_target = sc->objective.present ? sc->objective.confidence : 0.9;
	for (c = 0; c < s->n_classes; c++) {
		size_t met = 0;

		for (r = 0; r < n_reps; r++)
			met += rep_meets(sc, results[r], c);
		set_p_slo_met(&s->groups[c], met, n_reps, s->p_slo_target);
	}
	for (r = 0; r < n_reps; r++) {
		bool all = true;

		for (c = 0; c < s->n_classes; c++)
			if (s->groups[c].has_slo && !rep_meets(sc, results[r], c))
				all = false;
		met_all += all;
	}
	set_p_slo_met(&s->groups[s->n_classes], met_all, n_reps, s->p_slo_target);
}

/* Count a figure whose t interval the skewness check distrusts, keeping
 * the most skewed one and the largest replication count suggested. */
static void note_skew(struct fs_summary *s, const char *group, const char *figure,
                      const struct fs_ci *ci)
{
	if (ci->n_suggested <= ci->n)
		return;
	s->skewed_figures++;
	if (ci->n_suggested > s->skew_replications_needed)
		s->skew_replications_needed = ci->n_suggested;
	if (s->skew_figure[0] == '\0' || fabs(ci->skew) > fabs(s->skew)) {
		snprintf(s->skew_figure, sizeof s->skew_figure, "%s.%s", group, figure);
		s->skew = ci->skew;
	}
}

/* The skewness check over the headline means: every group's mean
 * latencies, throughput and attainment, the queue, and the fleet's cost. */
static void check_skew(struct fs_summary *s)
{
	size_t c;
	int k;

	for (c = 0; c <= s->n_classes; c++) {
		const struct fs_group_summary *g = &s->groups[c];
		const char *name = c == s->n_classes ? "all" : s->class_names[c];

		for (k = 0; k < FS_LAT__COUNT; k++) {
			char fig[40];

			snprintf(fig, sizeof fig, "%s.mean", fs_latency_name((enum fs_latency)k));
			note_skew(s, name, fig, &g->lat_ms[k][FS_QTY_MEAN]);
		}
		note_skew(s, name, "throughput_rps", &g->throughput_rps);
		if (g->has_slo)
			note_skew(s, name, "slo_attainment", &g->slo_attainment);
	}
	note_skew(s, "system", "queue_len", &s->queue_len);
	if (s->llm)
		note_skew(s, "cost", "total", &s->cost.total_usd);
}

bool fs_summary_skew_warning(const struct fs_summary *s, char *buf, size_t len)
{
	if (len > 0)
		buf[0] = '\0';
	if (s->skewed_figures == 0)
		return false;
	snprintf(buf, len, "%d figure%s skewed across replications (most: %s, "
	         "skewness %.2f): their t intervals may miss more often than 5%%; "
	         "run at least %zu replications", s->skewed_figures,
	         s->skewed_figures == 1 ? " is" : "s are", s->skew_figure, s->skew,
	         s->skew_replications_needed);
	return true;
}

struct fs_summary *fs_summary_build(const struct fs_scenario *sc,
                                    struct fs_rep_result *const *results,
                                    int replications, uint64_t seed)
{
	struct fs_summary *s = fs_xcalloc(1, sizeof *s);
	double *buf = fs_xmalloc((size_t)replications * sizeof *buf);
	double *buf2 = fs_xmalloc((size_t)replications * sizeof *buf2);
	const struct fs_hist **hists = fs_xmalloc((size_t)replications * sizeof *hists);
	const char **names = fs_xcalloc(sc->workload.n_classes, sizeof *names);
	size_t c;
	int r;

	s->n_classes = sc->workload.n_classes;
	for (c = 0; c < s->n_classes; c++)
		names[c] = sc->workload.classes[c].name;
	s->class_names = names;
	s->groups = fs_xcalloc(s->n_classes + 1, sizeof *s->groups);
	s->replications = replications;
	s->seed = seed;
	snprintf(s->currency, sizeof s->currency, "%s", sc->fleet.currency[0] != '\0' ?
	         sc->fleet.currency : "USD");
	for (c = 0; c <= s->n_classes; c++) {
		struct fs_group_summary *g = &s->groups[c];

		build_group(g, results, replications, c, buf, hists);
		g->has_slo = false;
		g->slo_target = NAN;
		if (c == s->n_classes) {
			size_t k;

			/* "all": the share of requests meeting their own class's
			 * targets, when any class has one. */
			for (k = 0; k < s->n_classes; k++)
				g->has_slo |= s->groups[k].has_slo;
		} else {
			const struct fs_slo_cfg *slo = &sc->workload.classes[c].slo;

			g->has_slo = slo->ttft_ns > 0 || slo->tpot_ns > 0 || slo->e2e_ns > 0;
			g->slo_target = slo->attainment;
		}
	}
	build_p_slo_met(s, sc, results, replications);
	s->stopped_at_s = fs_xmalloc((size_t)replications * sizeof *s->stopped_at_s);
	for (r = 0; r < replications; r++) {
		const struct fs_rep_result *rr = results[r];
		fs_ns from_ns = sc->sim.warmup_ns;
		fs_ns to_ns = rr->end_ns < sc->sim.horizon_ns ? rr->end_ns : sc->sim.horizon_ns;

		buf[r] = to_ns > from_ns && rr->servers > 0 ?
			fs_tseries_mean_over(&rr->busy, from_ns, to_ns) / rr->servers : NAN;
		buf2[r] = to_ns > from_ns ?
			fs_tseries_mean_over(&rr->queue_len, from_ns, to_ns) : NAN;
		s->events += rr->events;
		if (rep_unstable(rr))
			s->unstable_replications++;
		/* MODEL: S3 — a replication stopped at the guard covers [0, end). */
		s->stopped_at_s[r] = rr->stopped_early ? (double)rr->end_ns / (double)FS_NS_PER_S
		                                       : NAN;
		s->stopped_early += rr->stopped_early;
	}
	if (sc->engine.kind == FS_ENGINE_QUEUE)
		s->busy_fraction = fs_stats_ci_clip(fs_stats_mean_ci(buf, (size_t)replications,
		                                                     FS_CI_LEVEL), 0.0, 1.0);
	s->queue_len = fs_stats_mean_ci_nonneg(buf2, (size_t)replications, FS_CI_LEVEL);
	s->llm = sc->engine.kind == FS_ENGINE_VLLM;
	if (s->llm)
		build_engine(s, sc, results, replications, buf, hists);
	check_skew(s);
	free(hists);
	free(buf);
	free(buf2);
	return s;
}

void fs_summary_free(struct fs_summary *s)
{
	if (s == NULL)
		return;
	free(s->class_names);
	for (size_t p = 0; s->pools != NULL && p < s->n_pools; p++)
		free(s->pools[p].break_even.slot_hours_per_month);
	free(s->cost.total_usd_per_rep);
	free(s->stopped_at_s);
	free(s->pools);
	free(s->groups);
	free(s);
}
