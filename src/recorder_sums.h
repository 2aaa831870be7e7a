/*
 * recorder_sums.h — the sums of a fast-path run's steps that its grouped
 * recording checks and records, in one pass (recorder_sums.c).
 */
#ifndef FLEETSIM_RECORDER_SUMS_H
#define FLEETSIM_RECORDER_SUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recorder.h"

/* Σ d, the OR of the durations and of the KV levels (what the grouped
 * recording checks), and what it records — Σ kv·d, Σ d² and the extremes:
 * exact where the checks pass (0 < d < 2^31, 0 <= kv < 2^22), meaningless
 * where they fail (and then not used).  dur and the ORs are always exact. */
struct fs__run_sums {
	int64_t dur;
	fs_ns or_d, lo, hi;
	int64_t or_kv;
	uint64_t kv_d;
	fs__i128 d2;
};

/* The sums of k >= 1 steps (k <= 1024), dur_ns[i] and kv_blocks[i] each;
 * wide: four steps at a time (AVX2, where the processor has it: the
 * caller checks), with the same results wherever they are exact. */
void fs__rec_sum_run(size_t k, const fs_ns *dur_ns, const int64_t *kv_blocks, bool wide,
                     struct fs__run_sums *s);

#endif
