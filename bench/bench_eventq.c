/*
 * bench_eventq.c — throughput of the event queue and the histogram.
 * Event queue: the classic hold model — keep N events pending; each operation
 * pops the earliest and pushes one at now + a random increment (uniform or
 * exponential), or in the cancel variant 10% of operations cancel a random
 * pending event instead of popping.  Histogram: fs_hist_add over a prepared
 * array of log-spread values.  Randomness is an inline xorshift (not model
 * code); op counts are fixed so each case takes roughly half a second.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fleetsim/eventq.h"
#include "fleetsim/metrics.h"

enum incr_kind { INCR_UNIFORM, INCR_EXPONENTIAL };

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* Uniform in (0, 1). */
static double unit(uint64_t *s)
{
	return ((double)(xorshift64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Increment with mean 1 ms: uniform on [0, 2 ms) or exponential. */
static fs_ns increment_ns(enum incr_kind kind, uint64_t *s)
{
	if (kind == INCR_UNIFORM)
		return (fs_ns)(xorshift64(s) % (2 * FS_NS_PER_MS));
	return (fs_ns)(-log(unit(s)) * (double)FS_NS_PER_MS);
}

/*
 * Hold model with `pending` events for `ops` operations; cancel_pct percent
 * of them cancel a random pending event (and push its replacement) instead of
 * popping.  Each event's payload `a` is its index in handles[], so a cancel
 * can name any live event.  Returns operations per second.
 */
static double bench_hold(size_t pending, uint64_t ops, enum incr_kind kind,
                         unsigned cancel_pct, uint64_t *checksum)
{
	struct fs_eventq *q = fs_eventq_alloc(pending);
	struct fs_event_handle *handles = malloc(pending * sizeof *handles);
	uint64_t s = UINT64_C(0x2545F4914F6CDD1D), i;
	struct fs_event ev;
	fs_ns now = 0;
	double t0, t1;
	size_t k;

	if (handles == NULL)
		abort();
	for (k = 0; k < pending; k++)
		handles[k] = fs_eventq_push(q, increment_ns(kind, &s), 0, (uint32_t)k, 0);
	t0 = now_s();
	for (i = 0; i < ops; i++) {
		if (cancel_pct > 0 && xorshift64(&s) % 100 < cancel_pct) {
			k = (size_t)(xorshift64(&s) % pending);
			if (!fs_eventq_cancel(q, handles[k]))
				abort();
		} else {
			if (!fs_eventq_pop(q, &ev))
				abort();
			now = ev.t_ns;
			k = ev.a;
			*checksum += (uint64_t)ev.t_ns;
		}
		handles[k] = fs_eventq_push(q, now + increment_ns(kind, &s), 0, (uint32_t)k, 0);
	}
	t1 = now_s();
	free(handles);
	fs_eventq_free(q);
	return (double)ops / (t1 - t0);
}

/* fs_hist_add over n_values values spread over 12 decades, `rounds` times. */
static double bench_hist_add(size_t n_values, unsigned rounds, uint64_t *checksum)
{
	double *v = malloc(n_values * sizeof *v);
	uint64_t s = UINT64_C(0x9E3779B97F4A7C15);
	struct fs_hist h;
	double t0, t1;
	size_t k;
	unsigned r;

	if (v == NULL)
		abort();
	for (k = 0; k < n_values; k++)
		v[k] = pow(10.0, 3.0 + 12.0 * unit(&s));
	fs_hist_init(&h);
	t0 = now_s();
	for (r = 0; r < rounds; r++)
		for (k = 0; k < n_values; k++)
			fs_hist_add(&h, v[k]);
	t1 = now_s();
	*checksum += h.n + (uint64_t)fs_hist_quantile(&h, 0.99);
	fs_hist_fini(&h);
	free(v);
	return (double)n_values * rounds / (t1 - t0);
}

int main(void)
{
	static const size_t pendings[] = { 100, 1000, 10000, 100000 };
	/* Sized for ~0.5 s per case on a 2020s x86 core at -O2. */
	static const uint64_t ops[] = { 9000000, 6500000, 4500000, 3000000 };
	static const struct {
		const char *name;
		enum incr_kind kind;
		unsigned cancel_pct;
	} cases[] = {
		{ "hold uniform", INCR_UNIFORM, 0 },
		{ "hold exponential", INCR_EXPONENTIAL, 0 },
		{ "hold uniform +10% cancel", INCR_UNIFORM, 10 },
	};
	uint64_t checksum = 0;
	size_t c, p;

	printf("%-6s %-26s %-16s %s\n", "what", "case", "size", "rate");
	for (c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (p = 0; p < sizeof pendings / sizeof pendings[0]; p++) {
			double rate = bench_hold(pendings[p], ops[p], cases[c].kind,
			                         cases[c].cancel_pct, &checksum);

			printf("eventq %-26s pending=%-8zu events/s=%.3e\n",
			       cases[c].name, pendings[p], rate);
		}
	printf("hist   %-26s values=%-9d values/s=%.3e\n", "add (12 decades)", 1 << 20,
	       bench_hist_add((size_t)1 << 20, 50, &checksum));
	/* Printed so the compiler cannot drop the work. */
	printf("(checksum %llu)\n", (unsigned long long)(checksum % 1000003));
	return 0;
}
