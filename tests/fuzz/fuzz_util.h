/*
 * fuzz_util.h — helpers shared by the libFuzzer harnesses in tests/fuzz/:
 * the fuzz input written to a per-process temporary file for readers that
 * take a path, and an always-on check that aborts (so libFuzzer reports a
 * crash) when a loaded result breaks its documented invariants.  Harnesses
 * run from the repository root (their seeds name tests/ files).
 */
#ifndef FLEETSIM_FUZZ_UTIL_H
#define FLEETSIM_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Write data to this process's temporary file (created on first use, removed
 * at exit) and return its path; aborts if the file cannot be written. */
const char *fuzz_tmp_write(const uint8_t *data, size_t size);

/* Abort with a message when `ok` is false: an invariant the reader promises. */
void fuzz_check(int ok, const char *what);

/* Abort unless an error filled by a failed load has a message and a location
 * that starts with `display` (the file name the reader was given; NULL: any
 * non-empty location). */
struct fs_error;
void fuzz_check_error(const struct fs_error *err, const char *display);

#endif
