/*
 * suggest.h — "did you mean" for unknown keys and enum values: a
 * case-insensitive Levenshtein distance and the nearest candidate within a
 * threshold.  Pure functions; candidate lists are NULL-terminated arrays of
 * borrowed strings.  Private to the scenario loader, the catalogue
 * (catalog.c), `fleetsim catalog` (cli_catalog.c) and `fleetsim estimate`'s
 * --kv-dtype (cli_estimate.c).
 */
#ifndef FLEETSIM_SUGGEST_H
#define FLEETSIM_SUGGEST_H

#include <stddef.h>

/* Edit distance between a and b, comparing bytes case-insensitively.
 * O(|a|·|b|) time, O(|b|) memory. */
size_t fs__suggest_distance(const char *a, const char *b);

/* The candidate most likely meant by `word`: the first that `word` (of 3 or
 * more bytes) is a prefix of, else the nearest by edit distance when the
 * distance is <= 2 or <= a third of the word's length, and smaller than both
 * lengths; ties go to the earlier candidate.  NULL when none is close. */
const char *fs__suggest_nearest(const char *word, const char *const *candidates);

/* Write the candidates joined by `sep` into buf (always NUL-terminated). */
void fs__suggest_join(const char *const *candidates, const char *sep,
                      char *buf, size_t buf_len);

#endif
