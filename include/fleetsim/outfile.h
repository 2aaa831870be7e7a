/*
 * outfile.h — atomic output files and output directories.  Data is written
 * to a temporary file beside the target and renamed over it, so a reader (or
 * an interrupted run) never sees a half-written file.
 */
#ifndef FLEETSIM_OUTFILE_H
#define FLEETSIM_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "fleetsim/common.h"

/* Write len bytes to path atomically.  Returns 0, or -1 with err. */
int fs_outfile_write(const char *path, const void *data, size_t len,
                     struct fs_error *err);

/* Atomic write through a FILE*: open returns a stream on a temporary file;
 * commit closes and renames it (0, or -1 with err; the temp is removed);
 * abort closes and removes it. */
struct fs_outfile {
	FILE *f;
	char *tmp_path;
	char *path;
};
int fs_outfile_open(struct fs_outfile *o, const char *path, struct fs_error *err);
int fs_outfile_commit(struct fs_outfile *o, struct fs_error *err);
void fs_outfile_abort(struct fs_outfile *o);

/* Create directory `path` and its parents (like mkdir -p). 0 or -1 with err. */
int fs_outfile_mkdirs(const char *path, struct fs_error *err);

#endif
