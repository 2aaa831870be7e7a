/*
 * scenario_model_cfg.c — the "config" key of a catalogue model entry: the
 * model's shape read from a Hugging Face config.json (scenario_hf_config.c) found
 * relative to the file that names it, like a trace or a step table.  The
 * other keys of the entry then override the file's values (scenario_catalog.c).
 * The filled spec owns its strings; nothing is kept between calls.
 */
#include "scenario_model_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/catalog.h"
#include "fleetsim/scenario_hf_config.h"

int fs__sc_model_cfg_load(struct fs__sc *sc, const cJSON *node, const char *id,
                          bool has_base, struct fs_model_spec *m)
{
	const char *rel = NULL;
	char *full = NULL, *notes;
	size_t n;
	int rc;

	rc = fs__sc_string(sc, node, "config", false, &rel);
	if (rc <= 0)
		return rc;
	if (has_base)
		return fs__sc_fail_member_key(sc, node, "config", "expected either "
		                              "\"config\" or \"base\" (the shape comes "
		                              "from one of them), found both");
	if (fs__sc_open_data(sc, node, "config", rel, "model config", &full) != 0)
		return -1;
	rc = fs_model_config_load(full, id, m, sc->err);
	free(full);
	if (rc != 0)
		return fs__sc_data_failed(sc, node, "config");
	/* Name the file as written (not as resolved): printed notes then read
	 * the same wherever the scenario is run from. */
	n = strlen(rel) + strlen(m->notes) + 32;
	notes = fs_xmalloc(n);
	snprintf(notes, n, "shape from \"%s\" (%s)", rel, m->notes);
	free((char *)(uintptr_t)m->notes);
	m->notes = notes;
	free((char *)(uintptr_t)m->source);
	m->source = fs_xstrdup(rel);
	return 1;
}
