/*
 * summary_table.c — the console summary: one block per class ("all" first),
 * latency quantiles as "mean ± half-width" of the 95% interval across
 * replications ("mean [lo, hi]" when an end was cut at 0 or 1, "mean
 * (exact)" when every replication gave the same value), then counts,
 * throughput, SLO attainment and whether P(SLO met) reaches its target.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fleetsim/scenario.h"             /* fs_duration_format */
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
		/* MODEL: M6 — an end cut at the quantity's bound: not symmetric.
		 * A quantile's interval is narrow and asymmetric: its ends get
		 * the value's digits so they do not read as the value itself. */
		int d = ci->method == FS_CI_SECTIONING ? 4 : 2;

		num(v, sizeof v, ci->value, 4);
		num(l, sizeof l, ci->ci_lo, d);
		num(h, sizeof h, ci->ci_hi, d);
		snprintf(buf, sizeof buf, "%s [%s, %s]", v, l, h);
	} else {
		num(v, sizeof v, ci->value, 4);
		num(h, sizeof h, ci->half_width, 2);
		snprintf(buf, sizeof buf, "%s ± %s", v, h);
		pm = 1;
	}
	/* A cell wider than its column still keeps one space from the last. */
	fprintf(out, "%s%*s", (int)strlen(buf) - pm >= width ? " " : "", width + pm, buf);
}

static void latency_row(FILE *out, const char *name, const struct fs_ci *by_qty)
{
	int q;

	fprintf(out, "%-10s", name);
	for (q = 0; q < FS_QTY__COUNT; q++)
		cell(out, &by_qty[q], 22);
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
		fprintf(out, "%22s", fs_quantity_name((enum fs_quantity)q));
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

/* "billed per second (60 s minimum)" */
static void billing_text(char *buf, size_t len, const struct fs_billing_cfg *b)
{
	char min[32];

	fs_duration_format(b->minimum_ns, min, sizeof min);
	snprintf(buf, len, "billed per %s (%s minimum)",
	         b->granularity == FS_BILL_PER_HOUR ? "started hour" : "second", min);
}

/* One pool's line: what it is, its plan and prices, its KV cache. */
static void pool_line(FILE *out, const struct fs_scenario *sc, const struct fs_pool_cfg *pc)
{
	const char *cur = sc->fleet.currency;
	char bill[96];

	billing_text(bill, sizeof bill, &pc->billing);
	fprintf(out, "pool %s: %d x %s (tp %d), %s", pc->name, pc->count,
	        pc->llm->perf.gpu->id, pc->llm->perf.tp, fs_pricing_label(pc->pricing));
	if (fs_pricing_committed(pc->pricing)) {
		char period[32];

		fs_duration_format(fs_pricing_period_ns(pc->pricing), period, sizeof period);
		fprintf(out, " at %.2f %s per instance per %s, paid used or not", pc->commit_fee,
		        cur, period);
		if (pc->max_count > pc->count)
			fprintf(out, "; above %d instances %.2f %s/h, %s", pc->count,
			        pc->overflow_usd_per_h, cur, bill);
	} else {
		fprintf(out, " at %.2f %s/h per instance%s, %s", pc->price_usd_per_h, cur,
		        pc->n_price_steps > 0 ? " (then its price schedule)" : "", bill);
	}
	fprintf(out, "; KV %lld blocks of %lld tokens each\n",
	        (long long)pc->llm->sched.kv_blocks, (long long)pc->llm->sched.block_tokens);
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
	for (p = 0; p < sc->fleet.n_pools; p++)
		pool_line(out, sc, &sc->fleet.pools[p]);
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

/* A pool's capacity utilisation, unused-capacity cost and idle episodes. */
static void pool_capacity_row(FILE *out, const struct fs_pool_summary *ps)
{
	fprintf(out, "  %-14s", "capacity util");
	cell(out, &ps->capacity_util, 18);
	fprintf(out, "   %-16s", "unused capacity");
	cell(out, &ps->unused_capacity_usd, 14);
	fprintf(out, "   %-9s", "idle ep.");
	cell(out, &ps->idle_episodes, 10);
	fputc('\n', out);
}

/* The use of each instance slot in this run, and how many a commitment
 * would pay off for (at most 8 slots are listed). */
static void slot_line(FILE *out, const struct fs_break_even *be)
{
	size_t k;

	if (be->n_slots == 0)
		return;
	fprintf(out, "  use in this run, h per month of the 1st, 2nd, ... instance:");
	for (k = 0; k < be->n_slots && k < 8; k++)
		fprintf(out, " %.0f", be->slot_hours_per_month[k]);
	fprintf(out, "%s -> %d of %zu worth committing\n", be->n_slots > 8 ? " ..." : "",
	        be->worth_committing, be->n_slots);
}

/* MODEL: B8 — one line per pool: when a commitment beats hourly rental. */
static void break_even_lines(FILE *out, const struct fs_summary *s,
                             const struct fs_scenario *sc)
{
	const char *cur = sc->fleet.currency;
	size_t p;

	fprintf(out, "\nbreak-even (commitment vs hourly rental, per instance)\n");
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_break_even *be = &s->pools[p].break_even;

		if (!be->available) {
			fprintf(out, "pool %s: no break-even (no %s price to compare%s)\n",
			        s->pools[p].name, fs_pricing_label(be->plan),
			        strcmp(cur, "USD") != 0 ? "; catalogue fees are USD" : "");
			continue;
		}
		fprintf(out, "pool %s: a %s at %.2f %s per %s beats %.2f %s/h when an instance "
		        "is used more than %.0f h per 730-h month (%.0f%%)%s\n",
		        s->pools[p].name, fs_pricing_label(be->plan), be->fee, cur,
		        be->plan == FS_PRICING_MONTHLY ? "month" :
		        be->plan == FS_PRICING_DAILY ? "day" :
		        be->plan == FS_PRICING_WEEKLY ? "week" : "year",
		        be->hourly_price, cur, be->hours_per_month,
		        100 * be->hours_per_month / FS_HOURS_PER_MONTH,
		        be->hours_per_month > FS_HOURS_PER_MONTH ? " — never" : "");
		slot_line(out, be);
	}
}

static void cost_block(FILE *out, const struct fs_summary *s, const struct fs_scenario *sc)
{
	const struct fs_cost_summary *c = &s->cost;
	const char *cur = sc->fleet.currency;
	char horizon[32], l1[64], l2[64];
	size_t p;

	fs_duration_format(sc->sim.horizon_ns, horizon, sizeof horizon);
	/* MODEL: F14 */
	if (s->stopped_early > 0)
		fprintf(out, "\ncost over the span simulated (%d replication%s stopped early, "
		        "see verdict), %s\n", s->stopped_early, s->stopped_early == 1 ? "" : "s",
		        cur);
	else if (sc->sim.drain)                  /* MODEL: E5 — billed to its end */
		fprintf(out, "\ncost over the simulated %s and the drain after it (warm-up "
		        "included), %s\n", horizon, cur);
	else
		fprintf(out, "\ncost over the simulated %s (warm-up included), %s\n", horizon,
		        cur);
	pair_row(out, "total", &c->total_usd, "per hour", &c->usd_per_hour);
	pair_row(out, "per 1M out tok", &c->usd_per_1m_output_tokens, "per 1k requests",
	         &c->usd_per_1k_requests);
	pair_row(out, "idle", &c->idle_usd, "lost (reclaims)", &c->lost_usd);
	/* MODEL: S18, S19 */
	pair_row(out, "unused capacity", &c->unused_capacity_usd, "idle episodes",
	         &c->idle_episodes);
	pair_row(out, "idle ep. hours", &c->idle_episode_hours, "idle ep. cost",
	         &c->idle_episode_usd);
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_summary *ps = &s->pools[p];
		const struct fs_pool_cfg *pc = &sc->fleet.pools[p];

		snprintf(l1, sizeof l1, "pool %s", ps->name);
		fprintf(out, "%-16s", l1);
		cell(out, &ps->usd, 18);
		fprintf(out, "   %-16s", "instance-hours");
		cell(out, &ps->instance_hours, 14);
		fprintf(out, "   %s\n", fs_pricing_label(pc->pricing));
		if (fs_pricing_committed(pc->pricing)) {
			snprintf(l1, sizeof l1, "  commitment");
			snprintf(l2, sizeof l2, "overflow (%d+)", pc->count + 1);
			pair_row(out, l1, &ps->commit_usd, l2, &ps->overflow_usd);
			pair_row(out, "  overflow inst-h", &ps->overflow_hours, "reclaims",
			         &ps->reclaims);
		} else if (pc->pricing == FS_PRICING_SPOT) {
			pair_row(out, "  reclaims", &ps->reclaims, "failed launches",
			         &ps->failed_launches);
		}
		pool_capacity_row(out, ps);
	}
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_summary *ps = &s->pools[p];

		if (!isnan(ps->expected_reclaims))
			pair_row(out, "  req re-queued", &ps->reclaim_requeued,
			         "req failed", &ps->reclaim_failed);
	}
}

/* Per-month projections, apart from the per-horizon figures (MODEL: F14). */
static void month_block(FILE *out, const struct fs_summary *s, const struct fs_scenario *sc)
{
	size_t p;

	fprintf(out, "\nprojected to a 730-hour month (per-hour figures of the simulated "
	        "span x 730 h), %s\n", sc->fleet.currency);
	pair_row(out, "cost per month", &s->cost.monthly_usd, "outage min/month",
	         &s->avail.outage_min_per_month);
	pair_row(out, "lost (reclaims)", &s->cost.lost_usd_monthly, "total outage min",
	         &s->avail.down_min_per_month);
	for (p = 0; p < s->n_pools; p++) {
		const struct fs_pool_summary *ps = &s->pools[p];
		char label[64];

		snprintf(label, sizeof label, "%s outage min", ps->name);
		pair_row(out, label, &ps->avail.outage_min_per_month, "total outage min",
		         &ps->avail.down_min_per_month);
	}
	break_even_lines(out, s, sc);
}

static void avail_block(FILE *out, const struct fs_summary *s, const struct fs_scenario *sc)
{
	struct fs_summary_warning_cursor cur = { 0, 0 };
	enum fs_summary_warning_kind kind;
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
	/* the skewness warning is printed above, with the verdict */
	while (fs_summary_warning_next(s, sc, &cur, &kind, text, sizeof text))
		if (kind != FS_WARN_SKEW)
			fprintf(out, "warning: %s\n", text);
}

static void engine_block(FILE *out, const struct fs_summary *s)
{
	pair_row(out, "KV use", &s->kv_use, "mean batch", &s->batch_size);
	pair_row(out, "tokens/s", &s->tokens_per_s, "preemptions", &s->preemptions);
	pair_row(out, "achieved MFU", &s->mfu, "achieved MBU", &s->mbu);
	if (s->prefix_cache)                                     /* MODEL: V22 */
	{
		pair_row(out, "prefix hits tok", &s->prefix_hit_rate_tokens,
		         "prefix hits blk", &s->prefix_hit_rate_blocks);
		fprintf(out, "%-16s", "saved prefill");
		cell(out, &s->prefix_saved_tokens, 18);
		fprintf(out, "   (prompt tokens served from the prefix cache)\n");
	}
	/* MODEL: S17 */
	fprintf(out, "%-16s", "capacity util");
	cell(out, &s->capacity_util, 18);
	fprintf(out, "   (share of saturation throughput in use)\n");
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
	fprintf(out, "quantiles: of all replications pooled, [lo, hi] by sectioning "
	        "widened by the histogram's 0.5%% error\n");
	if (s->unstable_replications > 0)
		fprintf(out, "verdict: UNSTABLE in %d of %d replications (backlog grows: "
		        "offered load exceeds capacity)\n", s->unstable_replications,
		        s->replications);
	else
		fprintf(out, "verdict: stable\n");
	if (s->stopped_early > 0)
		stopped_line(out, s, sc);
	{
		char text[320];

		if (fs_summary_skew_warning(s, text, sizeof text))
			fprintf(out, "warning: %s\n", text);
	}
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
	{
		/* MODEL: U7 — a closed loop: its concurrency and which group's
		 * figures summary.json "concurrency" holds. */
		int64_t users;
		bool scheduled;
		int gi = fs_summary_closed_group(s, sc, &users, &scheduled);

		if (gi >= 0)
			fprintf(out, "closed loop: %lld users%s (figures by concurrency in "
			        "summary.json \"concurrency\", from [%s])\n", (long long)users,
			        scheduled ? " at most (scheduled)" : "",
			        (size_t)gi == s->n_classes ? "all" : s->class_names[gi]);
	}
	if (s->llm) {
		engine_block(out, s);
		cost_block(out, s, sc);
		month_block(out, s, sc);
		avail_block(out, s, sc);
	}
}
