/*
 * report_first.h — what the two files of the report's first section share:
 * struct fs__first, the recommended configuration loaded back from the
 * directory with its headroom (report_first_rec.c), which the sentences
 * (report_first.c) read.  struct fs__first owns the scenarios it loads.
 */
#ifndef FLEETSIM_REPORT_FIRST_H
#define FLEETSIM_REPORT_FIRST_H

#include <stdbool.h>

#include "fleetsim/headroom.h"
#include "report_internal.h"

#define HEADROOM_MAX_REPS 32         /* replications per probe at most */
#define HEADROOM_PROBES 12           /* probes at most: 12 x R simulations */

struct fs__first {
	struct fs_scenario *base;    /* the file the directory holds (owned) */
	struct fs_scenario *rec;     /* the recommended configuration: base, or
	                              * its sweep point (owned when != base) */
	char why[512];               /* why rec is NULL */
	struct fs_headroom h;
	bool have_h;
	bool cached;                 /* h read from DIR/headroom.json */
	char not_kept[512];          /* why a fresh h could not be written to
	                              * DIR/headroom.json; "" when it was */
	char subject[300];           /* what the headroom is of: "the recommended
	                              * fleet" only when the report recommends it */
};

/* Load the directory's resolved scenario into f->base and the recommended
 * configuration (base, its best sweep point, or the recommended variant's)
 * into f->rec; on failure f->rec is NULL and f->why says why. */
void fs__first_load_rec(struct fs__report *r, struct fs__first *f);

/* Replications the recommendation was judged on (at least 1). */
int fs__first_rec_replications(const struct fs__report *r);

/* The headroom of f->rec (MODEL: H4) into f->h, read from DIR/headroom.json
 * when it was searched with the same inputs, else searched and cached. */
void fs__first_headroom(struct fs__report *r, struct fs__first *f);

#endif
