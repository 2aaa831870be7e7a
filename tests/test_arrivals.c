/*
 * test_arrivals.c — arrival processes through the workload API: Poisson rate
 * and CV, Gamma CV, Weibull mean gap, diurnal peak/trough counts, schedules,
 * spikes, zero rates and the horizon, and the rounding of the draws to
 * whole ns (fs_round_half_away against llround).  Fixed seeds; every
 * tolerance is 5 standard errors of the statistic, derived at the check
 * (arrival counts of a thinned Poisson process are Poisson, so their SE is
 * the square root of the expected count).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>

#include "fleetsim/rng.h"
#include "fleetsim/workload.h"
#include "../src/workload_internal.h"
#include "util_test.h"

#define S FS_NS_PER_S

/* A one-class workload driven by `arr` as its shared process. */
struct setup {
	struct fs_class_cfg cls;
	struct fs_workload_cfg wl;
	struct fs_sim_cfg sim;
};

static void setup_init(struct setup *s, const struct fs_arrival_cfg *arr, fs_ns horizon_ns)
{
	*s = (struct setup){0};
	static char name[] = "c";

	s->cls.name = name;
	s->cls.share = 1.0;
	s->cls.prompt = (struct fs_length_cfg){.kind = FS_LENGTH_FIXED, .fixed_tokens = 10};
	s->cls.output = (struct fs_length_cfg){.kind = FS_LENGTH_FIXED, .fixed_tokens = 5};
	s->wl.has_shared_arrivals = true;
	s->wl.arrivals = *arr;
	s->wl.classes = &s->cls;
	s->wl.n_classes = 1;
	s->sim.horizon_ns = horizon_ns;
	s->sim.seed = 1;
}

/* All arrival times of source 0 (heap, caller frees); n in *n. */
static fs_ns *collect(const struct setup *s, uint64_t seed, size_t *n)
{
	struct fs_workload *w = fs_workload_alloc(&s->wl, &s->sim, seed, 0);
	struct fs_request req;
	fs_ns *t = NULL, prev = 0;
	size_t cap = 0;
	fs_ns at = fs_workload_first(w, 0);

	*n = 0;
	while (at != FS_NS_MAX) {
		assert_true(at >= prev && at < s->sim.horizon_ns);
		fs_xgrow((void **)&t, &cap, *n + 1, sizeof *t);
		t[(*n)++] = at;
		prev = at;
		at = fs_workload_take(w, 0, at, &req);
		assert_int_equal(req.arrival_ns, prev);
	}
	fs_workload_free(w);
	return t;
}

/* Mean and coefficient of variation of the gaps (first gap from t = 0). */
static void gap_stats(const fs_ns *t, size_t n, double *mean_s, double *cv)
{
	double sum = 0.0, sum2 = 0.0, prev = 0.0;

	for (size_t i = 0; i < n; i++) {
		double g = (double)t[i] / 1e9 - prev;

		prev = (double)t[i] / 1e9;
		sum += g;
		sum2 += g * g;
	}
	*mean_s = sum / (double)n;
	*cv = sqrt(sum2 / (double)n - *mean_s * *mean_s) / *mean_s;
}

static void test_arrivals_poisson_rate_and_cv(void **state)
{
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 5.0};
	struct setup s;
	double expect, mean_s, cv;
	size_t n;
	fs_ns *t;

	(void)state;
	setup_init(&s, &a, 20000 * S);
	t = collect(&s, 7, &n);
	expect = 5.0 * 20000;
	assert_near((double)n, expect, 5.0 * sqrt(expect), 0);       /* Poisson count */
	gap_stats(t, n, &mean_s, &cv);
	/* exponential: SE(sd)/sd = sqrt(2/n) (kurtosis 9), SE(mean)/mean = sqrt(1/n) */
	assert_near(cv, 1.0, 5.0 * sqrt(3.0 / (double)n), 0);
	free(t);
}

/* CV of Gamma gaps: relative SE of the CV is sqrt((kappa + 2)/(4n) + cv^2/n)
 * with excess kurtosis kappa = 6 / shape = 6 cv^2. */
static void check_gamma(double cv_target, uint64_t seed)
{
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_GAMMA, .rate_per_s = 10.0,
	                           .cv = cv_target};
	struct setup s;
	double mean_s, cv, rel_se, expect;
	size_t n;
	fs_ns *t;

	setup_init(&s, &a, 10000 * S);
	t = collect(&s, seed, &n);
	gap_stats(t, n, &mean_s, &cv);
	rel_se = sqrt((6.0 * cv_target * cv_target + 2.0) / (4.0 * (double)n) +
	              cv_target * cv_target / (double)n);
	assert_near(cv, cv_target, 5.0 * rel_se * cv_target, 0);
	/* mean gap 1/rate: SE = cv / (rate sqrt n) */
	assert_near(mean_s, 0.1, 5.0 * cv_target * 0.1 / sqrt((double)n), 0);
	expect = 10.0 * 10000;
	assert_true(fabs((double)n - expect) < 5.0 * cv_target * sqrt(expect) + 1);
	free(t);
}

static void test_arrivals_gamma_cv(void **state)
{
	(void)state;
	check_gamma(2.0, 11);
	check_gamma(0.5, 12);
}

static void test_arrivals_weibull_mean_gap(void **state)
{
	const double k = 0.7, rate = 4.0;
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_WEIBULL, .rate_per_s = rate,
	                           .weibull_shape = k};
	struct setup s;
	double mean_s, cv, g1 = gsl_sf_gamma(1.0 + 1.0 / k), g2 = gsl_sf_gamma(1.0 + 2.0 / k);
	double cv_exact = sqrt(g2 / (g1 * g1) - 1.0);
	size_t n;
	fs_ns *t;

	(void)state;
	setup_init(&s, &a, 20000 * S);
	t = collect(&s, 13, &n);
	gap_stats(t, n, &mean_s, &cv);
	/* SE of the mean gap: cv_exact / (rate sqrt n) */
	assert_near(mean_s, 1.0 / rate, 5.0 * cv_exact / rate / sqrt((double)n), 0);
	/* the CV itself loosely (10%): its SE needs the 4th moment */
	assert_near(cv, cv_exact, 0, 0.1);
	free(t);
}

static void test_arrivals_diurnal_peak_vs_trough(void **state)
{
	const double R = 4.0, rate = 2.0, a_amp = (R - 1.0) / (R + 1.0);
	const int days = 10;
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = rate,
	                           .diurnal = true, .diurnal_peak_to_trough = R,
	                           .diurnal_peak_hour = 14.0};
	struct setup s;
	/* integral of cos over the hour centred on the peak: (24/pi) sin(pi/24) */
	double c = 24.0 / M_PI * sin(M_PI / 24.0);
	double e_peak = days * rate * 3600.0 * (1.0 + a_amp * c);
	double e_trough = days * rate * 3600.0 * (1.0 - a_amp * c);
	double e_total = days * rate * 86400.0;
	long peak = 0, trough = 0;
	size_t n;
	fs_ns *t;

	(void)state;
	setup_init(&s, &a, days * 86400 * S);
	s.sim.start_hour = 6.0;
	/* the pure rate function: peak / trough = R exactly */
	assert_near(fs_arrival_rate_at(&a, &s.sim, 8 * 3600 * S), rate * (1.0 + a_amp), 1e-9, 0);
	assert_near(fs_arrival_rate_at(&a, &s.sim, 20 * 3600 * S), rate * (1.0 - a_amp), 1e-9, 0);
	assert_near(fs_arrival_rate_max(&a), rate * (1.0 + a_amp), 1e-12, 0);
	t = collect(&s, 21, &n);
	for (size_t i = 0; i < n; i++) {
		double h = fmod(6.0 + (double)t[i] / 3.6e12, 24.0);

		peak += h >= 13.5 && h < 14.5;
		trough += h >= 1.5 && h < 2.5;
	}
	assert_near((double)peak, e_peak, 5.0 * sqrt(e_peak), 0);
	assert_near((double)trough, e_trough, 5.0 * sqrt(e_trough), 0);
	assert_near((double)n, e_total, 5.0 * sqrt(e_total), 0);   /* daily mean = rate */
	/* ratio ~ 3.98 (R, smoothed over the hour bins); 5% covers 5 SE of both */
	assert_near((double)peak / (double)trough, e_peak / e_trough, 0, 0.05);
	free(t);
}

/* Thinning keeps a candidate below the diurnal trough's rate, and decides
 * one outside a minute's band around the rate, without evaluating the rate:
 * the same arrivals, to the ns, as a process whose rate is evaluated at
 * every candidate (the same cycle under a spike of x1 over the whole
 * horizon: the same rate function, envelope and draws, no floor, no band).
 * Slow and fast processes (a few candidates a minute, and hundreds). */
static void test_arrivals_diurnal_floor_keeps_the_same_arrivals(void **state)
{
	const double peak_to_trough[5] = {3.0, 1.0, 0.5, 3.0, 1.7};
	const double rate_per_s[5] = {0.05, 0.05, 0.05, 8.0, 8.0};
	fs_ns horizon_ns = 2 * 86400 * S;
	struct fs_spike whole = {0, 2 * 86400 * S, 1.0};

	(void)state;
	for (int k = 0; k < 5; k++) {
		struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = rate_per_s[k],
		                           .diurnal = true,
		                           .diurnal_peak_to_trough = peak_to_trough[k],
		                           .diurnal_peak_hour = 14.0};
		struct fs_arrival_cfg b = a;
		struct setup sa, sb;
		size_t na, nb;
		fs_ns *ta, *tb;

		b.spikes = &whole;
		b.n_spikes = 1;
		fs_arrival_prepare(&b);
		setup_init(&sa, &a, horizon_ns);
		setup_init(&sb, &b, horizon_ns);
		sa.sim.start_hour = sb.sim.start_hour = 5.0;
		assert_true(fs_arrival_rate_max(&a) == fs_arrival_rate_max(&b));
		ta = collect(&sa, 31, &na);
		tb = collect(&sb, 31, &nb);
		assert_true(na > 1000);
		assert_int_equal(na, nb);
		assert_memory_equal(ta, tb, na * sizeof *ta);
		free(ta);
		free(tb);
		fs_arrival_fini(&b);
	}
}

/* The band a diurnal cycle's thinning decides by holds the rate at every
 * instant of its minute, the minutes around the peak and the trough
 * included (where the rate bends back inside the window and both ends lie
 * on the same side of its extreme), for a cycle starting at 5:00 and one
 * wrapping past midnight. */
static void test_arrivals_diurnal_band_holds_the_rate(void **state)
{
	const double start_hour[2] = {5.0, 23.5};

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct fs_arrival_cfg cfg = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 2.0,
		                             .diurnal = true, .diurnal_peak_to_trough = 4.0,
		                             .diurnal_peak_hour = 14.0};
		struct fs_sim_cfg sim = {.horizon_ns = 86400 * S, .start_hour = start_hour[k]};
		struct fs_rng *rng = fs_rng_alloc(3, 0, FS_STREAM_ARRIVALS, 0);
		struct fs__arrivals a;
		const struct fs_trace_row *row;
		fs_ns from_ns = -1;
		int windows = 0;

		fs__arrivals_init(&a, &cfg, &sim, rng);
		assert_true(a.banded);
		while (fs__arrivals_next(&a, &row) != FS_NS_MAX) {
			if (a.band_from_ns == from_ns || a.band_to_ns < a.band_from_ns)
				continue;
			from_ns = a.band_from_ns;
			windows++;
			for (int i = 0; i <= 600; i++) {
				fs_ns t_ns = a.band_from_ns + (a.band_to_ns - a.band_from_ns) / 600 * i;
				double r = fs_arrival_rate_at(&cfg, &sim, t_ns);

				assert_true(r >= a.band_lo_per_s && r <= a.band_hi_per_s);
			}
			/* about as wide as the rate moves in a minute at most:
			 * 2/s x 0.6 x 2 pi / 86,400 s x 60 s = 0.0052/s */
			assert_true(a.band_hi_per_s - a.band_lo_per_s < 0.006);
		}
		assert_true(windows > 1000);
		fs_rng_free(rng);
	}
}

static void test_arrivals_schedule_counts_per_segment(void **state)
{
	struct fs_rate_step steps[3] = {{0, 1.0}, {100 * S, 5.0}, {300 * S, 0.0}};
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 99.0,
	                           .schedule = steps, .n_schedule = 3,
	                           .schedule_period_ns = 400 * S};
	struct setup s;
	long seg[3] = {0};
	size_t n;
	fs_ns *t;

	(void)state;
	setup_init(&s, &a, 4000 * S);          /* 10 periods */
	assert_near(fs_arrival_rate_max(&a), 5.0, 0, 0);
	assert_near(fs_arrival_rate_at(&a, &s.sim, 450 * S), 1.0, 0, 0);
	assert_near(fs_arrival_rate_at(&a, &s.sim, 799 * S), 0.0, 0, 0);
	t = collect(&s, 31, &n);
	for (size_t i = 0; i < n; i++) {
		fs_ns ph = t[i] % (400 * S);

		seg[ph < 100 * S ? 0 : ph < 300 * S ? 1 : 2]++;
	}
	assert_near((double)seg[0], 1000.0, 5.0 * sqrt(1000.0), 0);
	assert_near((double)seg[1], 10000.0, 5.0 * sqrt(10000.0), 0);
	assert_int_equal(seg[2], 0);
	free(t);
}

static void test_arrivals_one_shot_schedule_stops(void **state)
{
	struct fs_rate_step steps[2] = {{50 * S, 10.0}, {150 * S, 0.0}};
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_GAMMA, .cv = 1.5, .rate_per_s = 1.0,
	                           .schedule = steps, .n_schedule = 2};
	struct setup s;
	size_t n;
	fs_ns *t;

	(void)state;
	/* horizon far away: the source must stop at 150 s, not thin to the end */
	setup_init(&s, &a, INT64_C(1000000000) * S);
	assert_near(fs_arrival_rate_at(&a, &s.sim, 10 * S), 0.0, 0, 0);  /* before the first step */
	t = collect(&s, 32, &n);
	assert_true(n > 0);
	assert_true(t[0] >= 50 * S && t[n - 1] < 150 * S);
	/* thinned Gamma is not Poisson: allow 5 SE of a count with variance
	 * cv^2 times the mean (the renewal count variance) */
	assert_near((double)n, 1000.0, 5.0 * 1.5 * sqrt(1000.0), 0);
	free(t);
}

static void test_arrivals_spikes_multiply(void **state)
{
	struct fs_spike spikes[1] = {{1000 * S, 500 * S, 5.0}};
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 2.0,
	                           .spikes = spikes, .n_spikes = 1};
	struct setup s;
	long in = 0, out = 0;
	size_t n;
	fs_ns *t;

	(void)state;
	fs_arrival_prepare(&a);
	setup_init(&s, &a, 3000 * S);
	t = collect(&s, 41, &n);
	for (size_t i = 0; i < n; i++) {
		if (t[i] >= 1000 * S && t[i] < 1500 * S)
			in++;
		else
			out++;
	}
	assert_near((double)in, 5000.0, 5.0 * sqrt(5000.0), 0);     /* 2 x 5 x 500 s */
	assert_near((double)out, 5000.0, 5.0 * sqrt(5000.0), 0);    /* 2 x 2500 s */
	free(t);
	fs_arrival_fini(&a);
}

static void test_arrivals_rate_max_with_overlapping_spikes(void **state)
{
	struct fs_spike sp[3] = {{10 * S, 20 * S, 2.0}, {20 * S, 20 * S, 3.0},
	                         {100 * S, 5 * S, 4.0}};
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 1.0,
	                           .spikes = sp, .n_spikes = 3};
	struct fs_sim_cfg sim = {.horizon_ns = 1000 * S};

	(void)state;
	fs_arrival_prepare(&a);
	assert_near(fs_arrival_rate_max(&a), 6.0, 0, 0);       /* 2 x 3 on [20, 30) */
	assert_near(fs_arrival_rate_at(&a, &sim, 25 * S), 6.0, 0, 0);
	assert_near(fs_arrival_rate_at(&a, &sim, 30 * S), 3.0, 0, 0);  /* end excluded */
	assert_near(fs_arrival_rate_at(&a, &sim, 102 * S), 4.0, 0, 0);
	assert_near(fs_arrival_rate_at(&a, &sim, 105 * S), 1.0, 0, 0);
	fs_arrival_fini(&a);
}

/* The documented longest list, 100000 spikes of random starts, lengths and
 * multipliers (some overlapping, one never ending): the rate at 2000 times
 * (spike starts and random ones) is the base times the product of the
 * multipliers of the spikes active then, counted here one by one, and never
 * above the envelope.  The product's order differs (a tree, not the list's
 * order), so the match is to a relative 1e-12. */
static void test_arrivals_many_spikes_match_their_product(void **state)
{
	enum { N_SPIKES = 100000, N_PROBES = 2000 };
	struct fs_spike *sp = malloc(N_SPIKES * sizeof *sp);
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 3.0,
	                           .spikes = sp, .n_spikes = N_SPIKES};
	uint64_t seed = 12345;
	fs_ns span_ns = 100000 * S;
	double max_per_s;

	(void)state;
	assert_non_null(sp);
	for (size_t i = 0; i < N_SPIKES; i++) {
		sp[i].at_ns = (fs_ns)(fs_test_xorshift64(&seed) % (uint64_t)span_ns);
		sp[i].dur_ns = 1 + (fs_ns)(fs_test_xorshift64(&seed) % (uint64_t)(3 * S));
		sp[i].multiplier = 0.5 + (double)(fs_test_xorshift64(&seed) % 1000) / 500.0;
	}
	sp[7].dur_ns = FS_NS_MAX;                     /* one never ends */
	fs_arrival_prepare(&a);
	max_per_s = fs_arrival_rate_max(&a);
	for (size_t k = 0; k < N_PROBES; k++) {
		fs_ns t_ns = k % 2 ? (fs_ns)(fs_test_xorshift64(&seed) % (uint64_t)span_ns)
		                   : sp[fs_test_xorshift64(&seed) % N_SPIKES].at_ns;
		double product = 1.0, rate = fs_arrival_rate_at(&a, NULL, t_ns);

		for (size_t i = 0; i < N_SPIKES; i++)
			if (t_ns >= sp[i].at_ns && t_ns - sp[i].at_ns < sp[i].dur_ns)
				product *= sp[i].multiplier;
		assert_near(rate, 3.0 * product, 0, 1e-12);
		assert_true(rate <= max_per_s);
	}
	fs_arrival_fini(&a);
	free(sp);
}

/* After a spike below 1 ends, a spike above 1 that overlapped it runs on
 * alone: the envelope must cover its own factor (x4 on [10 min, 20 min)),
 * not only the products at the spikes' starts (x0.5, then x0.5 x 4 = 2),
 * or thinning caps the rate there at the envelope's 4/s instead of 8/s. */
static void test_arrivals_envelope_covers_a_spike_outliving_one_below_one(void **state)
{
	struct fs_spike sp[2] = {{0, 600 * S, 0.5}, {300 * S, 900 * S, 4.0}};
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 2.0,
	                           .spikes = sp, .n_spikes = 2};
	struct setup s;
	long alone = 0;
	size_t n;
	fs_ns *t;

	(void)state;
	fs_arrival_prepare(&a);
	assert_near(fs_arrival_rate_at(&a, NULL, 900 * S), 8.0, 0, 0);
	assert_true(fs_arrival_rate_max(&a) >= 8.0);
	setup_init(&s, &a, 1800 * S);
	t = collect(&s, 43, &n);
	for (size_t i = 0; i < n; i++)
		alone += t[i] >= 600 * S && t[i] < 1200 * S;
	assert_near((double)alone, 4800.0, 5.0 * sqrt(4800.0), 0);   /* 8/s x 600 s */
	free(t);
	fs_arrival_fini(&a);
}

static void test_arrivals_zero_rate_has_none(void **state)
{
	struct fs_rate_step steps[2] = {{0, 0.0}, {10 * S, 0.0}};
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 0.0};
	struct setup s;
	size_t n;
	fs_ns *t;

	(void)state;
	setup_init(&s, &a, 1000 * S);
	t = collect(&s, 1, &n);
	assert_int_equal(n, 0);
	free(t);
	a.schedule = steps;
	a.n_schedule = 2;
	a.schedule_period_ns = 20 * S;
	setup_init(&s, &a, 1000 * S);
	t = collect(&s, 1, &n);
	assert_int_equal(n, 0);
	free(t);
	/* horizon 0: nothing, whatever the rate */
	a = (struct fs_arrival_cfg){.kind = FS_ARRIVAL_POISSON, .rate_per_s = 1e6};
	setup_init(&s, &a, 0);
	t = collect(&s, 1, &n);
	assert_int_equal(n, 0);
	free(t);
}

static void test_arrivals_stop_before_horizon(void **state)
{
	struct fs_arrival_cfg a = {.kind = FS_ARRIVAL_POISSON, .rate_per_s = 1000.0};
	struct setup s;
	size_t n;
	fs_ns *t;

	(void)state;
	setup_init(&s, &a, 2 * S + 1);
	t = collect(&s, 5, &n);              /* collect asserts every t < horizon */
	assert_true(n > 1800 && n < 2200);
	free(t);
}

/* The gaps are rounded to whole ns by fs_round_half_away (common.h), which
 * must give llround's value for every double below 2^63 in magnitude:
 * halves either way, the doubles just beside them, whole numbers, values
 * past 2^52 (all whole), and random doubles of either sign from 2^-4 to
 * 2^63 with the halves of their whole parts. */
static void test_arrivals_round_half_away_is_llround(void **state)
{
	static const double fixed[] = {
		0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
		-0.49999999999999994, 1.4999999999999998, 4503599627370495.5,
		-4503599627370495.5, 4503599627370496.0, 9007199254740993.0, 0x1p62,
		-0x1p62, 9.2e18, -9.2e18, 1e-300, -1e-300, 123456789.5, 123456790.5,
	};
	uint64_t seed = 0x9E3779B97F4A7C15u;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		assert_int_equal(fs_round_half_away(fixed[i]), llround(fixed[i]));
	for (i = 0; i < 1000000; i++) {
		uint64_t bits = fs_test_xorshift64(&seed);
		double sign = bits & 1 ? -1.0 : 1.0;
		int e = (int)((bits >> 1) % 67) - 4;                /* 2^-4 .. 2^62 */
		double x = sign * ldexp(1.0 + (double)(fs_test_xorshift64(&seed) >> 11) * 0x1p-53, e);
		double cases[4];
		size_t c;

		cases[0] = x;
		cases[1] = nextafter(x, 0.0);
		cases[2] = fabs(x) < 0x1p52 ? trunc(x) + sign * 0.5 : x;   /* a half */
		cases[3] = nextafter(cases[2], 0.0);
		for (c = 0; c < 4; c++) {
			if (!(fabs(cases[c]) < 0x1p63))
				continue;
			assert_int_equal(fs_round_half_away(cases[c]), llround(cases[c]));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arrivals_poisson_rate_and_cv),
		cmocka_unit_test(test_arrivals_gamma_cv),
		cmocka_unit_test(test_arrivals_weibull_mean_gap),
		cmocka_unit_test(test_arrivals_diurnal_peak_vs_trough),
		cmocka_unit_test(test_arrivals_diurnal_floor_keeps_the_same_arrivals),
		cmocka_unit_test(test_arrivals_diurnal_band_holds_the_rate),
		cmocka_unit_test(test_arrivals_schedule_counts_per_segment),
		cmocka_unit_test(test_arrivals_one_shot_schedule_stops),
		cmocka_unit_test(test_arrivals_spikes_multiply),
		cmocka_unit_test(test_arrivals_rate_max_with_overlapping_spikes),
		cmocka_unit_test(test_arrivals_envelope_covers_a_spike_outliving_one_below_one),
		cmocka_unit_test(test_arrivals_many_spikes_match_their_product),
		cmocka_unit_test(test_arrivals_zero_rate_has_none),
		cmocka_unit_test(test_arrivals_stop_before_horizon),
		cmocka_unit_test(test_arrivals_round_half_away_is_llround),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
