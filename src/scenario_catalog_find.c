/*
 * scenario_catalog_find.c — lookups in a user catalogue (a scenario's
 * "catalog" section or a `--catalog FILE`) that fall back to the built-in
 * catalogue: an entry is found by its id, then by its own "aliases", and
 * shadows the built-in of the same id or alias; a misspelt name gets the
 * nearest id, the catalogue's own first.  Returned
 * pointers are borrowed from the catalogue or the built-in tables.
 */
#include "scenario_walk.h"

#include <stdlib.h>
#include <strings.h>

#include "fleetsim/scenario.h"
#include "suggest.h"

const struct fs_gpu_spec *fs__sc_catalog_own_gpu(const struct fs_catalog_file *cf,
                                                 const char *id, size_t n)
{
	for (size_t i = 0; cf != NULL && i < n; i++)
		if (strcasecmp(cf->gpus[i].id, id) == 0)
			return &cf->gpus[i];
	return NULL;
}

const struct fs_model_spec *fs__sc_catalog_own_model(const struct fs_catalog_file *cf,
                                                     const char *id, size_t n)
{
	for (size_t i = 0; cf != NULL && i < n; i++)
		if (strcasecmp(cf->models[i].id, id) == 0)
			return &cf->models[i];
	return NULL;
}

const struct fs_gpu_spec *fs_catalog_file_find_gpu(const struct fs_catalog_file *cf,
                                                   const char *name)
{
	const struct fs_gpu_spec *g, *b;

	if (name == NULL)
		return NULL;
	g = fs__sc_catalog_own_gpu(cf, name, cf != NULL ? cf->n_gpus : 0);
	if (g != NULL)
		return g;
	for (size_t i = 0; cf != NULL && i < cf->n_gpus; i++)
		if (fs_catalog_name_matches(name, "", cf->gpus[i].aliases))
			return &cf->gpus[i];
	b = fs_catalog_find_gpu(name);
	if (b == NULL)
		return NULL;
	g = fs__sc_catalog_own_gpu(cf, b->id, cf != NULL ? cf->n_gpus : 0);
	return g != NULL ? g : b;
}

const struct fs_model_spec *fs_catalog_file_find_model(const struct fs_catalog_file *cf,
                                                       const char *name)
{
	const struct fs_model_spec *m, *b;

	if (name == NULL)
		return NULL;
	m = fs__sc_catalog_own_model(cf, name, cf != NULL ? cf->n_models : 0);
	if (m != NULL)
		return m;
	b = fs_catalog_find_model(name);
	if (b == NULL)
		return NULL;
	m = fs__sc_catalog_own_model(cf, b->id, cf != NULL ? cf->n_models : 0);
	return m != NULL ? m : b;
}

/* The nearest of n ids (stride `stride` bytes apart, each a const char *
 * at the start of its entry), or NULL. */
static const char *suggest_own(const char *name, const void *entries, size_t n,
                               size_t stride)
{
	const char **ids = fs_xmalloc((n + 1) * sizeof *ids);
	const char *hit;

	for (size_t i = 0; i < n; i++)
		ids[i] = *(const char *const *)(const void *)((const char *)entries +
		                                               i * stride);
	ids[n] = NULL;
	hit = fs__suggest_nearest(name, ids);
	free(ids);
	return hit;
}

const char *fs_catalog_file_suggest_gpu(const struct fs_catalog_file *cf,
                                        const char *name)
{
	const char *hit = NULL;

	if (name == NULL)
		return NULL;
	if (cf != NULL && cf->n_gpus > 0)
		hit = suggest_own(name, cf->gpus, cf->n_gpus, sizeof cf->gpus[0]);
	return hit != NULL ? hit : fs_catalog_suggest_gpu(name);
}

const char *fs_catalog_file_suggest_model(const struct fs_catalog_file *cf,
                                          const char *name)
{
	const char *hit = NULL;

	if (name == NULL)
		return NULL;
	if (cf != NULL && cf->n_models > 0)
		hit = suggest_own(name, cf->models, cf->n_models, sizeof cf->models[0]);
	return hit != NULL ? hit : fs_catalog_suggest_model(name);
}

const struct fs_gpu_spec *fs_scenario_find_gpu(const struct fs_scenario *sc,
                                               const char *name)
{
	return fs_catalog_file_find_gpu(sc != NULL ? &sc->catalog : NULL, name);
}

const struct fs_model_spec *fs_scenario_find_model(const struct fs_scenario *sc,
                                                   const char *name)
{
	return fs_catalog_file_find_model(sc != NULL ? &sc->catalog : NULL, name);
}
