/*
 * fuzz_step_table.c — libFuzzer harness for the measured step-table reader
 * (fs_step_table_load): the input is the CSV file.  A table that loads is
 * queried for prefill, decode and mixed steps inside and outside its grid;
 * every answer must be a positive time.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fleetsim/perf.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fs_step_shape shapes[] = {
		{ 1, 1, 0, 0, 1 },
		{ 512, 512 * 256, 0, 0, 1 },
		{ 0, 0, 1, 1, 1 },
		{ 0, 0, 64, 64 * 4096, 64 },
		{ 100000000, 0, 100000, 100000000000, 100001 },
		{ 128, 128 * 64, 8, 8 * 1000, 9 },
	};
	const char *path = fuzz_tmp_write(data, size);
	struct fs_error err = {{0}, {0}, {0}};
	struct fs_step_table *t = fs_step_table_load(path, "fuzz.csv", &err);
	size_t i;

	if (t == NULL) {
		fuzz_check_error(&err, "fuzz.csv");
		return 0;
	}
	for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		fuzz_check(fs_step_table_step_ns(t, &shapes[i], 1000) >= 1,
		           "a step takes at least 1 ns");
	fs_step_table_free(t);
	return 0;
}
