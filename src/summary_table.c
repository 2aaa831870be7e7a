/*
 * summary_table.c — the console summary: one block per class ("all" first),
 * latency quantiles as "mean ± half-width" of the 95% interval across
 * replications, then counts, throughput and SLO attainment; with a fleet,
 * cost over the horizon, per-month projections (a block of their own),
 * availability and the spot-risk warnings.
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
	char buf[96], v[40], h[40];

	if (!isfinite(ci->value)) {
		snprintf(buf, sizeof buf, "-");
	} else if (!isfinite(ci->half_width)) {
		num(v, sizeof v, ci->value, 4);
		snprintf(buf, sizeof buf, "%s", v);
	} else {
		num(v, sizeof v, ci->value, 4);
		num(h, sizeof h, ci->half_width, 2);
		snprintf(buf, sizeof buf, "%s ± %s", v, h);
	}
	/* "±" is two bytes in UTF-8 but one column wide. */
	fprintf(out, "%*s", width + (isfinite(ci->half_width) && isfinite(ci->value)), buf);
}

static void latency_row(FILE *out, const char *name, const struct fs_ci *by_qty)
{
	int q;

	fprintf(out, "%-10s", name);
	for (q = 0; q < FS_QTY__COUNT; q++)
		cell(out, &by_qty[q], 18);
	fputc('\n', out);
}

static void group_block(FILE *out, const char *name, const struct fs_group_summary *g,
                        bool llm, bool is_all)
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
	}
	fputc('\n', out);
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

/* Figures over the simulated horizon only (per-month projections have a
 * block of their own). */
static void cost_block(FILE *out, const struct fs_summary *s, const char *horizon)
{
	const struct fs_cost_summary *c = &s->cost;
	size_t p;

	fprintf(out, "\ncost over the simulated horizon (%s)\n", horizon);
	pair_row(out, "total USD", &c->total_usd, "USD/hour", &c->usd_per_hour);
	pair_row(out, "USD/1M out tok", &c->usd_per_1m_output_tokens, "USD/1k requests",
	         &c->usd_per_1k_requests);
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
		if (!isnan(ps->expected_reclaims))
			pair_row(out, "  req re-queued", &ps->reclaim_requeued,
			         "req failed", &ps->reclaim_failed);
	}
}

/* Per-month projections (MODEL: F14, F15): USD and outage minutes of a
 * 730-hour month at the simulated traffic. */
static void month_block(FILE *out, const struct fs_summary *s)
{
	size_t p;

	fprintf(out, "\nprojected to a 730-hour month (from the simulated span)\n");
	pair_row(out, "USD/month", &s->cost.monthly_usd, "outage min/month",
	         &s->avail.outage_min_per_month);
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_summary *ps = &s->pools[p];

		fprintf(out, "pool %-11s", ps->name);
		fprintf(out, "%18s", "");
		fprintf(out, "   %-16s", "outage min/month");
		cell(out, &ps->avail.outage_min_per_month, 14);
		fprintf(out, "   %-9s", "total");
		cell(out, &ps->avail.down_min_per_month, 10);
		fputc('\n', out);
	}
}

/* Availability (MODEL: F15-F18): shares of the window from start-up (after
 * the warm-up) to the end, and the "too short" warnings. */
static void avail_block(FILE *out, const struct fs_summary *s, const struct fs_scenario *sc)
{
	char text[512];
	size_t p;

	fprintf(out, "\navailability (share of time with the serving instances wanted, "
	        "from start-up after the warm-up)\n");
	pair_row(out, "fleet", &s->avail.availability, "min serving", &s->avail.min_serving);
	for (p = 0; p < s->n_pools; p++) {
		char label[64];

		snprintf(label, sizeof label, "pool %s", s->pools[p].name);
		pair_row(out, label, &s->pools[p].avail.availability, "min serving",
		         &s->pools[p].avail.min_serving);
	}
	for (p = 0; p < s->n_pools; p++)
		if (fs_summary_pool_warning(s, sc, p, text, sizeof text))
			fprintf(out, "warning: %s\n", text);
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
	        "Student-t interval; latencies in ms\n");
	if (s->unstable_replications > 0)
		fprintf(out, "verdict: UNSTABLE in %d of %d replications (backlog grows: "
		        "offered load exceeds capacity)\n", s->unstable_replications,
		        s->replications);
	else
		fprintf(out, "verdict: stable\n");
	if (s->llm)
		engine_header(out, s, sc);
	group_block(out, "all", &s->groups[s->n_classes], s->llm, true);
	if (s->n_classes > 1)
		for (c = 0; c < s->n_classes; c++)
			group_block(out, s->class_names[c], &s->groups[c], s->llm, false);
	fprintf(out, "\n%-16s", "busy fraction");
	cell(out, &s->busy_fraction, 18);
	fprintf(out, "   %-16s", "mean queue len");
	cell(out, &s->queue_len, 14);
	fputc('\n', out);
	if (s->llm) {
		engine_block(out, s);
		cost_block(out, s, horizon);
		month_block(out, s);
		avail_block(out, s, sc);
	}
}
