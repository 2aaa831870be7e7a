/*
 * catalog.c — lookup of built-in GPUs and models by id or alias
 * (case-insensitive), and "did you mean" suggestions over every id and
 * alias.  The tables live in catalog_gpus.c and catalog_models.c; this file
 * reads them only through the public accessors and keeps no state.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fleetsim/catalog.h"
#include "suggest.h"

/* True when `name` equals one of the comma-separated entries of `list`,
 * ignoring case. */
static int in_list(const char *name, const char *list)
{
	size_t len = strlen(name);
	const char *p = list, *comma;

	while (p != NULL && *p != '\0') {
		comma = strchr(p, ',');
		if ((comma != NULL ? (size_t)(comma - p) : strlen(p)) == len &&
		    strncasecmp(p, name, len) == 0)
			return 1;
		p = comma != NULL ? comma + 1 : NULL;
	}
	return 0;
}

int fs_catalog_name_matches(const char *name, const char *id, const char *aliases)
{
	return strcasecmp(name, id) == 0 || (aliases != NULL && in_list(name, aliases));
}

const struct fs_gpu_spec *fs_catalog_find_gpu(const char *name)
{
	size_t i, n = fs_catalog_n_gpus();
	const struct fs_gpu_spec *g;

	if (name == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		g = fs_catalog_gpu_at(i);
		if (fs_catalog_name_matches(name, g->id, g->aliases))
			return g;
	}
	return NULL;
}

const struct fs_model_spec *fs_catalog_find_model(const char *name)
{
	size_t i, n = fs_catalog_n_models();
	const struct fs_model_spec *m;

	if (name == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		m = fs_catalog_model_at(i);
		if (fs_catalog_name_matches(name, m->id, m->aliases))
			return m;
	}
	return NULL;
}

/* Candidate words for fs__suggest_nearest: every id first (so a prefix
 * matches the canonical id before an alias), then every alias.  `owner[k]`
 * is the entry index of word k; `text` holds the split alias strings.  All
 * three are heap-owned: release with cands_free.  O(total alias bytes). */
struct cands {
	const char **words;          /* NULL-terminated */
	size_t *owner;
	char *text;
};

static void cands_build(struct cands *c, size_t n_entries, const char *const *ids,
                        const char *const *aliases)
{
	size_t i, n_words = n_entries, text_bytes = 0, k, off = 0;
	const char *q;
	char *p;

	for (i = 0; i < n_entries; i++) {
		text_bytes += strlen(aliases[i]) + 1;
		for (q = aliases[i]; *q != '\0'; q++)
			n_words += *q == ',';
		n_words += aliases[i][0] != '\0';
	}
	c->words = fs_xmalloc((n_words + 1) * sizeof *c->words);
	c->owner = fs_xmalloc((n_words + 1) * sizeof *c->owner);
	c->text = fs_xmalloc(text_bytes + 1);
	for (k = 0; k < n_entries; k++) {
		c->words[k] = ids[k];
		c->owner[k] = k;
	}
	for (i = 0; i < n_entries; i++) {
		if (aliases[i][0] == '\0')
			continue;
		p = c->text + off;
		memcpy(p, aliases[i], strlen(aliases[i]) + 1);
		off += strlen(aliases[i]) + 1;
		for (;;) {
			c->words[k] = p;
			c->owner[k++] = i;
			p = strchr(p, ',');
			if (p == NULL)
				break;
			*p++ = '\0';
		}
	}
	c->words[k] = NULL;
}

static void cands_free(struct cands *c)
{
	free(c->words);
	free(c->owner);
	free(c->text);
}

/* The id owning the candidate nearest to `name`, or NULL. */
static const char *suggest(const char *name, size_t n, const char *const *ids,
                           const char *const *aliases)
{
	struct cands c;
	const char *hit, *result = NULL;
	size_t k;

	cands_build(&c, n, ids, aliases);
	hit = fs__suggest_nearest(name, c.words);
	for (k = 0; hit != NULL && c.words[k] != NULL; k++)
		if (c.words[k] == hit) {
			result = ids[c.owner[k]];
			break;
		}
	cands_free(&c);
	return result;
}

/* Gather the ids and aliases of a table through its accessors, then suggest. */
static const char *suggest_in(const char *name, size_t n,
                              const char *(*id_at)(size_t i),
                              const char *(*aliases_at)(size_t i))
{
	const char **ids, **aliases, *result;
	size_t i;

	if (name == NULL)
		return NULL;
	ids = fs_xmalloc(n * sizeof *ids);
	aliases = fs_xmalloc(n * sizeof *aliases);
	for (i = 0; i < n; i++) {
		ids[i] = id_at(i);
		aliases[i] = aliases_at(i);
	}
	result = suggest(name, n, ids, aliases);
	free(ids);
	free(aliases);
	return result;
}

static const char *gpu_id_at(size_t i) { return fs_catalog_gpu_at(i)->id; }
static const char *gpu_aliases_at(size_t i) { return fs_catalog_gpu_at(i)->aliases; }
static const char *model_id_at(size_t i) { return fs_catalog_model_at(i)->id; }
static const char *model_aliases_at(size_t i) { return fs_catalog_model_at(i)->aliases; }

const char *fs_catalog_suggest_gpu(const char *name)
{
	return suggest_in(name, fs_catalog_n_gpus(), gpu_id_at, gpu_aliases_at);
}

const char *fs_catalog_suggest_model(const char *name)
{
	return suggest_in(name, fs_catalog_n_models(), model_id_at, model_aliases_at);
}
