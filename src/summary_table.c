/*
 * summary_table.c — the console summary: one block per class ("all" first),
 * latency quantiles as "mean ± half-width" of the 95% interval across
 * replications ("mean [lo, hi]" when an end was cut at 0 or 1, "mean
 * (exact)" when every replication gave the same value), then counts,
 * throughput, SLO attainment and whether P(SLO met) reaches its target.
 */
#include <math.h>
#include <stdio.h>

#include "fleetsim/summary.h"

/* `digits` significant digits, but whole numbers once that many digits are
 * left of the point (no exponents). */
static void num(char *buf, size_t len, double x, int digits)
{
	if (fabs(x) >= pow(10.0, digits) && fabs(x) < 1e15)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.*g", digits, x);
}

static void cell(FILE *out, const struct fs_ci *ci, int width)
{
	char buf[160], v[40], h[40], l[40];
	int pm = 0;                  /* "±" is two bytes in UTF-8 but one column wide */

	if (!isfinite(ci->value)) {
		snprintf(buf, sizeof buf, "-");
	} else if (!isfinite(ci->half_width)) {
		num(v, sizeof v, ci->value, 4);
		snprintf(buf, sizeof buf, "%s", v);
	} else if (fs_stats_ci_exact(ci)) {
		num(v, sizeof v, ci->value, 4);
		snprintf(buf, sizeof buf, "%s (exact)", v);
	} else if (fs_stats_ci_clipped(ci)) {
		/* MODEL: M6 — an end cut at the quantity's bound: not symmetric. */
		num(v, sizeof v, ci->value, 4);
		num(l, sizeof l, ci->ci_lo, 2);
		num(h, sizeof h, ci->ci_hi, 2);
		snprintf(buf, sizeof buf, "%s [%s, %s]", v, l, h);
	} else {
		num(v, sizeof v, ci->value, 4);
		num(h, sizeof h, ci->half_width, 2);
		snprintf(buf, sizeof buf, "%s ± %s", v, h);
		pm = 1;
	}
	fprintf(out, "%*s", width + pm, buf);
}

static void latency_row(FILE *out, const char *name, const struct fs_ci *by_qty)
{
	int q;

	fprintf(out, "%-10s", name);
	for (q = 0; q < FS_QTY__COUNT; q++)
		cell(out, &by_qty[q], 18);
	fputc('\n', out);
}

/* MODEL: M7 — P(SLO met) against its target, decided on the interval. */
static void verdict_line(FILE *out, const struct fs_group_summary *g, double target,
                         int n_reps)
{
	char label[32];

	snprintf(label, sizeof label, "at least %.3g?", target);
	fprintf(out, "\n%-16s ", label);
	switch ((enum fs_share_verdict)g->p_slo_met_verdict) {
	case FS_SHARE_MET:
		fprintf(out, "yes: the interval's lower end %.3g reaches %.3g",
		        g->p_slo_met.ci_lo, target);
		break;
	case FS_SHARE_NOT_MET:
		fprintf(out, "no: the interval's upper end %.3g is below %.3g",
		        g->p_slo_met.ci_hi, target);
		break;
	case FS_SHARE_UNDECIDED:
		fprintf(out, "undecided: the interval straddles %.3g; ", target);
		if (g->p_slo_met_needed > 0)
			fprintf(out, "%zu replications would decide it if the share held "
			        "(%d run)", g->p_slo_met_needed, n_reps);
		else
			fprintf(out, "no number of replications decides it at this share");
		break;
	}
}

static void group_block(FILE *out, const char *name, const struct fs_group_summary *g,
                        bool llm, bool is_all, const struct fs_summary *s)
{
	int k, q;

	fprintf(out, "\n[%s]\n%-10s", name, "");
	for (q = 0; q < FS_QTY__COUNT; q++)
		fprintf(out, "%18s", fs_quantity_name((enum fs_quantity)q));
	fputc('\n', out);
	for (k = 0; k < FS_LAT__COUNT; k++)
		if (k != FS_LAT_TPOT || llm)
			latency_row(out, fs_latency_name((enum fs_latency)k), g->lat_ms[k]);
	if (llm && is_all)
		latency_row(out, "itl_ms", g->itl_ms);
	fprintf(out, "%-16s", "completed");
	cell(out, &g->completed, 18);
	fprintf(out, "   %-16s", "in flight at end");
	cell(out, &g->in_flight, 14);
	if (llm) {
		fprintf(out, "   %-8s", "failed");
		cell(out, &g->failed, 10);
	}
	fprintf(out, "\n%-16s", "throughput req/s");
	cell(out, &g->throughput_rps, 18);
	if (llm) {
		fprintf(out, "   %-16s", "output tok/s");
		cell(out, &g->output_tokens_per_s, 14);
	}
	if (g->has_slo) {
		fprintf(out, "   %-16s", "SLO attainment");
		cell(out, &g->slo_attainment, 14);
		if (isfinite(g->slo_target))
			fprintf(out, "  (target %.4g)", g->slo_target);
		fprintf(out, "\n%-16s %17.3g [%.3g, %.3g]  (share of replications meeting "
		        "the target; Wilson 95%%)", "P(SLO met)", g->p_slo_met.value,
		        g->p_slo_met.ci_lo, g->p_slo_met.ci_hi);
		verdict_line(out, g, s->p_slo_target, s->replications);
	}
	fputc('\n', out);
}

/* A simulated time in seconds, minutes or hours, 3 significant digits. */
static void span_text(char *buf, size_t len, double t_s)
{
	if (t_s < 120)
		snprintf(buf, len, "%.3g s", t_s);
	else if (t_s < 7200)
		snprintf(buf, len, "%.3g min", t_s / 60);
	else
		snprintf(buf, len, "%.3g h", t_s / 3600);
}

/* MODEL: S3 — replications the guard stopped, and the span they cover. */
static void stopped_line(FILE *out, const struct fs_summary *s, const struct fs_scenario *sc)
{
	double lo_s = INFINITY, hi_s = -INFINITY;
	char a[32], b[32];
	int r;

	for (r = 0; r < s->replications; r++) {
		if (isnan(s->stopped_at_s[r]))
			continue;
		lo_s = fmin(lo_s, s->stopped_at_s[r]);
		hi_s = fmax(hi_s, s->stopped_at_s[r]);
	}
	span_text(a, sizeof a, lo_s);
	span_text(b, sizeof b, hi_s);
	fprintf(out, "stopped early: %d of %d replications had more than %lld requests in "
	        "the system (simulation.max_in_system) after %s%s%s simulated; their "
	        "rates and costs cover that span\n", s->stopped_early, s->replications,
	        (long long)sc->sim.max_in_system, a, lo_s < hi_s ? " to " : "",
	        lo_s < hi_s ? b : "");
}

static void engine_header(FILE *out, const struct fs_summary *s,
                          const struct fs_scenario *sc)
{
	size_t p;

	(void)s;
	fprintf(out, "model: %s (%.0f KiB of KV per token)\n",
	        sc->fleet.pools[0].llm->perf.model->id,
	        sc->fleet.pools[0].llm->mem.kv_bytes_per_token / 1024.0);
	for (p = 0; p < sc->fleet.n_pools; p++) {
		const struct fs_pool_cfg *pc = &sc->fleet.pools[p];

		fprintf(out, "pool %s: %d x %s (tp %d), %s at $%.2f/h per instance, KV "
		        "%lld blocks of %lld tokens each\n", pc->name, pc->count,
		        pc->llm->perf.gpu->id, pc->llm->perf.tp, fs_pricing_name(pc->pricing),
		        pc->pricing == FS_PRICING_MONTHLY ? pc->monthly_usd / 730.0
		                                          : pc->price_usd_per_h,
		        (long long)pc->llm->sched.kv_blocks,
		        (long long)pc->llm->sched.block_tokens);
	}
}

/* One line of two labelled figures: "label1  value ± hw   label2  value ± hw". */
static void pair_row(FILE *out, const char *l1, const struct fs_ci *c1, const char *l2,
                     const struct fs_ci *c2)
{
	fprintf(out, "%-16s", l1);
	cell(out, c1, 18);
	fprintf(out, "   %-16s", l2);
	cell(out, c2, 14);
	fputc('\n', out);
}

static void cost_block(FILE *out, const struct fs_summary *s)
{
	const struct fs_cost_summary *c = &s->cost;
	size_t p;

	if (s->stopped_early > 0)
		fprintf(out, "\ncost (the span simulated: %d replication%s stopped early, "
		        "see verdict)\n", s->stopped_early, s->stopped_early == 1 ? "" : "s");
	else
		fprintf(out, "\ncost (whole horizon)\n");
	pair_row(out, "total USD", &c->total_usd, "USD/hour", &c->usd_per_hour);
	pair_row(out, "USD/month (proj)", &c->monthly_usd, "USD/1M out tok",
	         &c->usd_per_1m_output_tokens);
	pair_row(out, "idle USD", &c->idle_usd, "lost (reclaims)", &c->lost_usd);
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_summary *ps = &s->pools[p];

		fprintf(out, "pool %-11s", ps->name);
		cell(out, &ps->usd, 18);
		fprintf(out, "   %-16s", "instance-hours");
		cell(out, &ps->instance_hours, 14);
		fprintf(out, "   %-9s", "reclaims");
		cell(out, &ps->reclaims, 10);
		fputc('\n', out);
	}
}

static void engine_block(FILE *out, const struct fs_summary *s)
{
	pair_row(out, "KV use", &s->kv_use, "mean batch", &s->batch_size);
	pair_row(out, "tokens/s", &s->tokens_per_s, "preemptions", &s->preemptions);
	pair_row(out, "achieved MFU", &s->mfu, "achieved MBU", &s->mbu);
}

void fs_summary_print_table(const struct fs_summary *s, const struct fs_scenario *sc,
                            FILE *out)
{
	char horizon[32], warmup[32];
	size_t c;

	fs_duration_format(sc->sim.horizon_ns, horizon, sizeof horizon);
	fs_duration_format(sc->sim.warmup_ns, warmup, sizeof warmup);
	fprintf(out, "fleetsim %s — %s: %d replication%s, seed %llu, horizon %s "
	        "(warm-up %s excluded)\n", FS_VERSION, sc->name, s->replications,
	        s->replications == 1 ? "" : "s", (unsigned long long)s->seed,
	        horizon, warmup);
	fprintf(out, "figures: mean over replications ± half-width of the 95%% "
	        "Student-t interval ([lo, hi] when cut at 0; \"exact\": the same in "
	        "every replication); latencies in ms\n");
	if (s->unstable_replications > 0)
		fprintf(out, "verdict: UNSTABLE in %d of %d replications (backlog grows: "
		        "offered load exceeds capacity)\n", s->unstable_replications,
		        s->replications);
	else
		fprintf(out, "verdict: stable\n");
	if (s->stopped_early > 0)
		stopped_line(out, s, sc);
	if (s->llm)
		engine_header(out, s, sc);
	group_block(out, "all", &s->groups[s->n_classes], s->llm, true, s);
	if (s->n_classes > 1)
		for (c = 0; c < s->n_classes; c++)
			group_block(out, s->class_names[c], &s->groups[c], s->llm, false, s);
	fprintf(out, "\n%-16s", "busy fraction");
	cell(out, &s->busy_fraction, 18);
	fprintf(out, "   %-16s", "mean queue len");
	cell(out, &s->queue_len, 14);
	fputc('\n', out);
	if (s->llm) {
		engine_block(out, s);
		cost_block(out, s);
	}
}
