/*
 * fuzz_empirical.c — libFuzzer harness for the empirical length reader
 * (fs_empirical_load): the input is read both as a one-number-per-line list
 * and as a CSV file with a header naming a "tokens" column.  Loaded values
 * must be at least one token each.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fleetsim/trace.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const columns[] = { NULL, "tokens" };
	const char *path = fuzz_tmp_write(data, size);
	struct fs_error err;
	int64_t *values;
	size_t n, i, k;

	for (k = 0; k < sizeof columns / sizeof columns[0]; k++) {
		err = (struct fs_error){{0}, {0}, {0}};
		values = NULL;
		n = 0;
		if (fs_empirical_load(path, "fuzz.lengths", columns[k], &values, &n, &err) != 0) {
			fuzz_check_error(&err, "fuzz.lengths");
			fuzz_check(values == NULL, "nothing returned on failure");
			continue;
		}
		fuzz_check(n >= 1 && values != NULL, "a loaded list has a value");
		for (i = 0; i < n; i++)
			fuzz_check(values[i] >= 1, "token counts >= 1");
		free(values);
	}
	return 0;
}
