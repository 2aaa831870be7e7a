/*
 * fuzz_capacity.c — libFuzzer harness for the capacity-trace readers
 * (fs_capacity_trace_load).  Built twice, with FUZZ_CAPACITY_FORMAT set to
 * FS_CAPACITY_SKYPILOT or FS_CAPACITY_SPOTSERVE: the input is the trace file,
 * loaded with scale 1 and with a fractional scale.  A loaded trace must keep
 * fleet_cfg.h's promises and answer the queries of capacity.h.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fleetsim/capacity.h"
#include "fuzz_util.h"

#ifndef FUZZ_CAPACITY_FORMAT
#error "build with -DFUZZ_CAPACITY_FORMAT=FS_CAPACITY_SKYPILOT (or _SPOTSERVE)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_trace(const struct fs_capacity_trace *t)
{
	double frac;
	size_t i;
	fs_ns next;

	fuzz_check(t->n_steps >= 1, "a loaded capacity trace has a step");
	fuzz_check(t->t_ns[0] == 0, "the first step is at 0");
	for (i = 0; i < t->n_steps; i++) {
		fuzz_check(i == 0 || t->t_ns[i] > t->t_ns[i - 1], "steps strictly increasing");
		fuzz_check(t->capacity[i] >= 0, "capacity >= 0");
		fuzz_check(fs_capacity_at(t, t->t_ns[i]) == t->capacity[i] || t->loop,
		           "capacity at a step's time is that step's");
	}
	fuzz_check(t->span_ns >= t->t_ns[t->n_steps - 1], "span covers every step");
	frac = fs_capacity_available_fraction(t);
	fuzz_check(frac >= 0 && frac <= 1, "available fraction in [0, 1]");
	next = fs_capacity_next_change(t, 0);
	fuzz_check(next > 0, "next change after 0 is later than 0");
	(void)fs_capacity_at(t, t->span_ns + 1);
	(void)fs_capacity_at(t, FS_NS_MAX / 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double scales[] = { 1.0, 2.5 };
	const char *path = fuzz_tmp_write(data, size);
	struct fs_capacity_trace *t;
	struct fs_error err;
	size_t k;

	for (k = 0; k < sizeof scales / sizeof scales[0]; k++) {
		err = (struct fs_error){{0}, {0}, {0}};
		t = fs_capacity_trace_load(path, "fuzz.capacity", FUZZ_CAPACITY_FORMAT,
		                           scales[k], k == 1, &err);
		if (t == NULL) {
			fuzz_check_error(&err, "fuzz.capacity");
			continue;
		}
		check_trace(t);
		fs_capacity_trace_free(t);
	}
	return 0;
}
