/*
 * suggest.c — nearest-key suggestions (see suggest.h).  The distance is the
 * classic two-row dynamic programme; words are short (keys, enum names), so
 * nothing cleverer is worth it.  Very long words are not compared at all.
 */
#include "suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"

#define MAX_WORD_BYTES 256

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t fs__suggest_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), i, j, diag, up, result;
	size_t *row = fs_xmalloc((nb + 1) * sizeof *row);

	for (j = 0; j <= nb; j++)
		row[j] = j;
	for (i = 1; i <= na; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= nb; j++) {
			up = row[j];
			row[j] = min3(row[j] + 1, row[j - 1] + 1,
			              diag + (tolower((unsigned char)a[i - 1]) !=
			                      tolower((unsigned char)b[j - 1])));
			diag = up;
		}
	}
	result = row[nb];
	free(row);
	return result;
}

const char *fs__suggest_nearest(const char *word, const char *const *candidates)
{
	size_t len = strlen(word), best_d = (size_t)-1, d;
	const char *best = NULL;
	const char *const *c;

	if (len == 0 || len > MAX_WORD_BYTES)
		return NULL;
	for (c = candidates; *c != NULL; c++)      /* "rate" -> "rate_per_s" */
		if (len >= 3 && strncmp(*c, word, len) == 0)
			return *c;
	for (c = candidates; *c != NULL; c++) {
		d = fs__suggest_distance(word, *c);
		if (d < best_d) {
			best_d = d;
			best = *c;
		}
	}
	/* A typo changes part of a word, never all of either word. */
	if (best != NULL && best_d < len && best_d < strlen(best) &&
	    (best_d <= 2 || best_d * 3 <= len))
		return best;
	return NULL;
}

void fs__suggest_join(const char *const *candidates, const char *sep,
                      char *buf, size_t buf_len)
{
	size_t used = 0;
	int n;

	if (buf_len == 0)
		return;
	buf[0] = '\0';
	for (; *candidates != NULL && used < buf_len; candidates++) {
		n = snprintf(buf + used, buf_len - used, "%s%s",
		             used == 0 ? "" : sep, *candidates);
		if (n < 0)
			return;
		used += (size_t)n;
	}
}
