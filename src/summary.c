/*
 * summary.c — aggregation across replications (see summary.h).  For every
 * figure it collects one value per replication, in replication order, and
 * hands the array to fs_stats_mean_ci.  A replication with no completed
 * request contributes NAN to latency figures (skipped by the CI).
 */
#include "fleetsim/summary.h"

#include <math.h>
#include <stdlib.h>

static const double quantile_p[FS_QTY__COUNT] = { NAN, 0.50, 0.90, 0.95, 0.99 };

const char *fs_latency_name(enum fs_latency k)
{
	switch (k) {
	case FS_LAT_QUEUE: return "queue_ms";
	case FS_LAT_TTFT:  return "ttft_ms";
	case FS_LAT_E2E:   return "e2e_ms";
	case FS_LAT__COUNT: break;
	}
	return "?";
}

const char *fs_quantity_name(enum fs_quantity q)
{
	switch (q) {
	case FS_QTY_MEAN: return "mean";
	case FS_QTY_P50:  return "p50";
	case FS_QTY_P90:  return "p90";
	case FS_QTY_P95:  return "p95";
	case FS_QTY_P99:  return "p99";
	case FS_QTY__COUNT: break;
	}
	return "?";
}

/* MODEL: S5 — a replication is unstable when it stopped at max_in_system or
 * ended with more than max(100, 5% of its arrivals) requests in flight. */
static bool rep_unstable(const struct fs_rep_result *r)
{
	const struct fs_class_result *all = &r->cls[r->n_classes];
	double limit = fmax(100.0, 0.05 * (double)all->arrived);

	return r->stopped_early || (double)all->in_flight > limit;
}

static double latency_value(const struct fs_class_result *cr, enum fs_latency k,
                            enum fs_quantity q)
{
	if (cr->completed == 0)
		return NAN;
	if (q == FS_QTY_MEAN)
		return cr->lat_moments[k].mean / (double)FS_NS_PER_MS;
	return fs_hist_quantile(&cr->lat_hist[k], quantile_p[q]) / (double)FS_NS_PER_MS;
}

static void build_group(struct fs_group_summary *g, struct fs_rep_result *const *results,
                        int n_reps, size_t idx, double *buf)
{
	int r, k, q;

	for (k = 0; k < FS_LAT__COUNT; k++) {
		for (q = 0; q < FS_QTY__COUNT; q++) {
			for (r = 0; r < n_reps; r++)
				buf[r] = latency_value(&results[r]->cls[idx],
				                       (enum fs_latency)k, (enum fs_quantity)q);
			/* MODEL: S4 */
			g->lat_ms[k][q] = fs_stats_mean_ci(buf, (size_t)n_reps, 0.95);
		}
	}
#define PER_REP(field, expr) \
	do { \
		for (r = 0; r < n_reps; r++) { \
			const struct fs_rep_result *rr = results[r]; \
			const struct fs_class_result *cr = &rr->cls[idx]; \
			(void)rr; (void)cr; \
			buf[r] = (expr); \
		} \
		g->field = fs_stats_mean_ci(buf, (size_t)n_reps, 0.95); \
	} while (0)
	PER_REP(arrived, (double)cr->arrived);
	PER_REP(completed, (double)cr->completed);
	PER_REP(in_flight, (double)cr->in_flight);
	PER_REP(throughput_rps, (double)cr->completed * (double)FS_NS_PER_S /
	                        (double)rr->measured_ns);
	PER_REP(slo_attainment, cr->completed + cr->in_flight == 0 ? NAN :
	        (double)cr->slo_met / (double)(cr->completed + cr->in_flight));
#undef PER_REP
}

struct fs_summary *fs_summary_build(const struct fs_scenario *sc,
                                    struct fs_rep_result *const *results,
                                    int replications, uint64_t seed)
{
	struct fs_summary *s = fs_xcalloc(1, sizeof *s);
	double *buf = fs_xmalloc((size_t)replications * sizeof *buf);
	double *buf2 = fs_xmalloc((size_t)replications * sizeof *buf2);
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
	for (c = 0; c <= s->n_classes; c++) {
		struct fs_group_summary *g = &s->groups[c];

		build_group(g, results, replications, c, buf);
		g->has_slo = false;
		g->slo_target = NAN;
		if (c < s->n_classes) {
			const struct fs_slo_cfg *slo = &sc->workload.classes[c].slo;

			g->has_slo = slo->ttft_ns > 0 || slo->tpot_ns > 0 || slo->e2e_ns > 0;
			g->slo_target = slo->attainment;
		}
	}
	for (r = 0; r < replications; r++) {
		const struct fs_rep_result *rr = results[r];
		fs_ns from_ns = sc->sim.warmup_ns;
		fs_ns to_ns = rr->end_ns < sc->sim.horizon_ns ? rr->end_ns : sc->sim.horizon_ns;

		buf[r] = to_ns > from_ns ?
			fs_tseries_mean_over(&rr->busy, from_ns, to_ns) / rr->servers : NAN;
		buf2[r] = to_ns > from_ns ?
			fs_tseries_mean_over(&rr->queue_len, from_ns, to_ns) : NAN;
		s->events += rr->events;
		if (rep_unstable(rr))
			s->unstable_replications++;
	}
	s->busy_fraction = fs_stats_mean_ci(buf, (size_t)replications, 0.95);
	s->queue_len = fs_stats_mean_ci(buf2, (size_t)replications, 0.95);
	free(buf);
	free(buf2);
	return s;
}

void fs_summary_free(struct fs_summary *s)
{
	if (s == NULL)
		return;
	free((void *)s->class_names);
	free(s->groups);
	free(s);
}
