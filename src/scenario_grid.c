/*
 * scenario_grid.c — the numbering of a sweep's points: how many there are, the
 * value index of every axis at a point (grid: the last axis turns fastest;
 * zip: the same index on every axis) and back, and a point's sets and label
 * ("path=value,...").  Pure functions of a loaded struct fs_sweep_cfg.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"
#include "fleetsim/scenario.h"

size_t fs_sweep_n_points(const struct fs_sweep_cfg *cfg)
{
	size_t i, n = 1;

	if (cfg->n_axes == 0)
		return 1;
	if (cfg->mode == FS_SWEEP_ZIP)
		return cfg->axes[0].n_values;
	for (i = 0; i < cfg->n_axes; i++)
		n *= cfg->axes[i].n_values;
	return n;
}

void fs_sweep_point_coords(const struct fs_sweep_cfg *cfg, size_t point,
                           size_t *value_index_per_axis)
{
	size_t a;

	assert(point < fs_sweep_n_points(cfg));
	if (cfg->mode == FS_SWEEP_ZIP) {
		for (a = 0; a < cfg->n_axes; a++)
			value_index_per_axis[a] = point;
		return;
	}
	for (a = cfg->n_axes; a-- > 0;) {    /* the last axis turns fastest */
		value_index_per_axis[a] = point % cfg->axes[a].n_values;
		point /= cfg->axes[a].n_values;
	}
}

size_t fs_sweep_point_index(const struct fs_sweep_cfg *cfg,
                            const size_t *value_index_per_axis)
{
	size_t a, point = 0;

	if (cfg->n_axes == 0)
		return 0;
	if (cfg->mode == FS_SWEEP_ZIP) {
		for (a = 1; a < cfg->n_axes; a++)
			assert(value_index_per_axis[a] == value_index_per_axis[0]);
		return value_index_per_axis[0];
	}
	for (a = 0; a < cfg->n_axes; a++) {
		assert(value_index_per_axis[a] < cfg->axes[a].n_values);
		point = point * cfg->axes[a].n_values + value_index_per_axis[a];
	}
	return point;
}

void fs_sweep_point_sets(const struct fs_sweep_cfg *cfg, size_t point, char **sets)
{
	size_t idx[FS_SWEEP_MAX_AXES], a, n;
	const char *value;

	assert(cfg->n_axes <= FS_SWEEP_MAX_AXES);
	fs_sweep_point_coords(cfg, point, idx);
	for (a = 0; a < cfg->n_axes; a++) {
		value = cfg->axes[a].values[idx[a]];
		n = strlen(cfg->axes[a].path) + 1 + strlen(value) + 1;
		sets[a] = fs_xmalloc(n);
		snprintf(sets[a], n, "%s=%s", cfg->axes[a].path, value);
	}
}

void fs_sweep_point_sets_free(char **sets, size_t n_axes)
{
	size_t a;

	for (a = 0; a < n_axes && sets != NULL; a++) {
		free(sets[a]);
		sets[a] = NULL;
	}
}

void fs_sweep_point_label(const struct fs_sweep_cfg *cfg, size_t point,
                          char *buf, size_t len)
{
	size_t idx[FS_SWEEP_MAX_AXES], a, used = 0;
	int n;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (cfg->n_axes == 0)
		return;
	fs_sweep_point_coords(cfg, point, idx);
	for (a = 0; a < cfg->n_axes && used < len; a++) {
		n = snprintf(buf + used, len - used, "%s%s=%s", a == 0 ? "" : ",",
		             cfg->axes[a].path, cfg->axes[a].values[idx[a]]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}
