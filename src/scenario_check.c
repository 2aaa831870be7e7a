/*
 * scenario_check.c — everything a scenario file implies, checked before any
 * work: the base document, every variant, and every distinct value of each
 * sweep axis (with the other axes at their first value; every point in zip
 * mode), each loaded through the real loader from the bytes the command
 * read (fs_scenario_file) so that an error points into the file.  Above
 * the loader: it only loads and frees scenarios.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/scenario.h"

/* Load one point; on failure say which point in err's message. */
static int check_point(const struct fs_scenario_file *f, const char *const *sets,
                       size_t n_sets, const struct fs_sweep_cfg *sw, size_t point,
                       struct fs_error *err)
{
	struct fs_scenario *sc = fs_scenario_file_load(f, NULL, sets, n_sets, sw, point, err);
	char label[300];
	size_t used;

	if (sc != NULL) {
		fs_scenario_free(sc);
		return 0;
	}
	if (err != NULL) {
		fs_sweep_point_label(sw, point, label, sizeof label);
		used = strlen(err->msg);
		snprintf(err->msg + used, sizeof err->msg - used, " (in sweep point %zu: %s)",
		         point, label);
	}
	return -1;
}

/* Every distinct value of every axis, each at the point where
 * the other axes take their first value (zip: every point). */
static int check_sweep(const struct fs_scenario_file *f, const char *const *sets,
                       size_t n_sets, const struct fs_sweep_cfg *sw, struct fs_error *err)
{
	size_t coords[16], a, j, k, point;

	if (sw->mode == FS_SWEEP_ZIP) {
		for (point = 0; point < fs_sweep_n_points(sw); point++)
			if (check_point(f, sets, n_sets, sw, point, err) != 0)
				return -1;
		return 0;
	}
	if (sw->n_axes > 16)
		return fs_error_set(err, f->path, "sweep.axes", "expected at most 16 axes");
	memset(coords, 0, sizeof coords);
	if (check_point(f, sets, n_sets, sw, 0, err) != 0)
		return -1;
	for (a = 0; a < sw->n_axes; a++) {
		for (j = 1; j < sw->axes[a].n_values; j++) {
			for (k = 0; k < j; k++)
				if (strcmp(sw->axes[a].values[k], sw->axes[a].values[j]) == 0)
					break;
			if (k < j)
				continue;        /* the same value was checked */
			coords[a] = j;
			point = fs_sweep_point_index(sw, coords);
			coords[a] = 0;
			if (check_point(f, sets, n_sets, sw, point, err) != 0)
				return -1;
		}
	}
	return 0;
}

int fs_scenario_file_check_all(const struct fs_scenario_file *f,
                               const char *const *sets, size_t n_sets,
                               bool variants, bool sweep, struct fs_error *err)
{
	struct fs_scenario *base = fs_scenario_file_load(f, NULL, sets, n_sets, NULL, 0, err);
	char **names = NULL;
	size_t n_names = 0, i;
	int rc = 0;

	if (base == NULL)
		return -1;
	if (variants && fs_scenario_file_variants(f, &names, &n_names, err) != 0)
		rc = -1;
	for (i = 0; i < n_names && rc == 0; i++) {
		struct fs_scenario *v = fs_scenario_file_load(f, names[i], sets, n_sets, NULL, 0,
		                                              err);

		if (v == NULL)
			rc = -1;
		fs_scenario_free(v);
	}
	fs_scenario_variants_free(names, n_names);
	if (rc == 0 && sweep && base->sweep.present)
		rc = check_sweep(f, sets, n_sets, &base->sweep, err);
	fs_scenario_free(base);
	return rc;
}

int fs_scenario_check_all(const char *path, const char *const *sets, size_t n_sets,
                          bool variants, bool sweep, struct fs_error *err)
{
	struct fs_scenario_file f;
	int rc;

	if (fs_scenario_file_read(&f, path, err) != 0)
		return -1;
	rc = fs_scenario_file_check_all(&f, sets, n_sets, variants, sweep, err);
	fs_scenario_file_fini(&f);
	return rc;
}
