/*
 * json_dup.c — the repeated-key finder of json_dup.h.  Small objects (a
 * Mooncake line, a capacity trace's metadata) are compared pairwise without
 * allocating; larger ones are sorted by (key, position), so that a hostile
 * line of many thousand keys costs O(n log n), not O(n^2).  Both ways give
 * the same answer: the earliest member that repeats a key.
 */
#include "json_dup.h"

#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"

/* Above this many members the pairwise scan gives way to sorting. */
#define PAIRWISE_MAX_MEMBERS 16

/* A member and its position in the object, for sorting. */
struct member {
	const cJSON *node;
	size_t pos;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->node->string, y->node->string);

	if (c != 0)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static const cJSON *dup_pairwise(const cJSON *obj, const cJSON **first)
{
	const cJSON *c, *p;

	for (c = obj->child; c != NULL; c = c->next)
		for (p = obj->child; p != c; p = p->next)
			if (strcmp(p->string, c->string) == 0) {
				*first = p;
				return c;
			}
	return NULL;
}

/* Sorted by (key, position), the second member of each run of one key is
 * that key's earliest repeat; the earliest of those is the answer. */
static const cJSON *dup_sorted(const cJSON *obj, size_t n, const cJSON **first)
{
	struct member *m = fs_xmalloc(n * sizeof *m);
	const cJSON *c, *found = NULL;
	size_t i = 0, best_pos = 0;

	for (c = obj->child; c != NULL; c = c->next, i++) {
		m[i].node = c;
		m[i].pos = i;
	}
	qsort(m, n, sizeof *m, cmp_member);
	for (i = 1; i < n; i++) {
		if (strcmp(m[i - 1].node->string, m[i].node->string) != 0)
			continue;
		if (found == NULL || m[i].pos < best_pos) {
			found = m[i].node;
			best_pos = m[i].pos;
			*first = m[i - 1].node;
		}
		/* Skip the rest of this key's run: only its first repeat counts. */
		while (i + 1 < n && strcmp(m[i].node->string, m[i + 1].node->string) == 0)
			i++;
	}
	free(m);
	return found;
}

const cJSON *fs__json_dup_key(const cJSON *obj, const cJSON **first)
{
	const cJSON *c;
	size_t n = 0;

	if (!cJSON_IsObject(obj))
		return NULL;
	for (c = obj->child; c != NULL; c = c->next)
		n++;
	if (n <= PAIRWISE_MAX_MEMBERS)
		return dup_pairwise(obj, first);
	return dup_sorted(obj, n, first);
}
