/*
 * fuzz_trace.c — libFuzzer harness for the request-trace readers
 * (fs_trace_load).  Built three times, with FUZZ_TRACE_FORMAT set to
 * FS_TRACE_AZURE, FS_TRACE_VIDUR or FS_TRACE_MOONCAKE: the input is the trace
 * file.  A trace that loads must keep trace.h's promises (rows sorted, the
 * first at 0, positive token counts, span = last time); a failed load must
 * leave a message.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fleetsim/trace.h"
#include "fuzz_util.h"

#ifndef FUZZ_TRACE_FORMAT
#error "build with -DFUZZ_TRACE_FORMAT=FS_TRACE_AZURE (or _VIDUR, _MOONCAKE)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_tmp_write(data, size);
	struct fs_error err = {{0}, {0}, {0}};
	struct fs_trace *t = fs_trace_load(path, "fuzz.trace", FUZZ_TRACE_FORMAT, &err);
	size_t i;

	if (t == NULL) {
		fuzz_check_error(&err, "fuzz.trace");
		return 0;
	}
	fuzz_check(t->n_rows >= 1, "a loaded trace has a row");
	fuzz_check(t->rows[0].t_ns == 0, "the first request is at 0");
	for (i = 0; i < t->n_rows; i++) {
		fuzz_check(i == 0 || t->rows[i].t_ns >= t->rows[i - 1].t_ns, "rows sorted by time");
		fuzz_check(t->rows[i].prompt_tokens >= 1, "prompt tokens >= 1");
		fuzz_check(t->rows[i].output_tokens >= 1, "output tokens >= 1");
	}
	fuzz_check(t->span_ns == t->rows[t->n_rows - 1].t_ns, "span is the last time");
	fuzz_check(t->loop_gap_ns >= 0, "loop gap >= 0");
	fs_trace_free(t);
	return 0;
}
