/*
 * outfile.h — atomic output files and output directories.  Data is written
 * to a temporary file beside the target and renamed over it, so a reader (or
 * an interrupted run) never sees a half-written file; a command's files are
 * staged and moved into place together; output directories are checked
 * before any work; SIGINT/SIGTERM remove the temporaries.
 */
#ifndef FLEETSIM_OUTFILE_H
#define FLEETSIM_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "fleetsim/common.h"

struct cJSON;

/* Write len bytes to path atomically: a temporary file in path's directory,
 * flushed and fsync'ed, then renamed over path.  On any failure the
 * temporary is removed and path is left as it was.  Every output file of
 * fleetsim is written this way (docs/OUTPUTS.md).  Returns 0, or -1 with
 * err. */
int fs_outfile_write(const char *path, const void *data, size_t len,
                     struct fs_error *err);

/* Write root to path atomically as indented JSON text ending with a
 * newline (fs_json_text; figures in root are made with fs_json_num).
 * root stays the caller's.  Returns 0, or -1 with err. */
int fs_outfile_write_json(const char *path, const struct cJSON *root,
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

/* Check, before any work, that dir can serve as an output directory:
 * a non-empty name whose nearest existing part is a directory (not a file)
 * in which a file can be created (a probe file is made and removed).
 * Creates nothing.  0, or -1 with err (where = dir, msg = expected/found). */
int fs_outfile_check_dir(const char *dir, struct fs_error *err);

/* Check that dir/name is not a directory (a rename could not replace it).
 * 0, or -1 with err naming the path. */
int fs_outfile_check_file(const char *dir, const char *name, struct fs_error *err);

/* Check, before any work, that the single file path can be written by
 * fs_outfile_write: a non-empty name that is not a directory (nor ends in
 * '/'), in an existing directory in which a file can be created (a probe
 * file is made and removed).  Creates nothing.  0, or -1 with err (where =
 * path, msg = expected/found). */
int fs_outfile_check_path(const char *path, struct fs_error *err);

/* Install the SIGINT/SIGTERM handler (once, in main, before any thread):
 * it removes every temporary still open (fs_outfile_open's *.tmp.* files,
 * fs_outset staging directories and their files) with unlink/rmdir only,
 * and exits with 128 + the signal (130, 143). */
void fs_outfile_install_signals(void);

/* A directory a command fills over its run (a sweep's DIR and DIR/points):
 * fs_outdir_make creates it (mkdir -p) and, when it was not there, registers
 * it with the SIGINT/SIGTERM handler, which removes it while it is still
 * empty; fs_outdir_release forgets it (it stays) and frees the path.  0, or
 * -1 with err. */
struct fs_outdir {
	char *path;                  /* owned; registered when created */
	int created;                 /* it did not exist before make */
};
int fs_outdir_make(struct fs_outdir *d, const char *path, struct fs_error *err);
void fs_outdir_release(struct fs_outdir *d);

/* A set of output files committed together: begin creates dir (mkdir -p)
 * and a staging directory dir/.fleetsim.tmp.XXXXXX; fs_outset_path gives
 * the staging path for a file name (owned by the set; write it with any
 * fs_outfile writer); fs_outset_commit renames every staged file of every
 * set into its directory with SIGINT/SIGTERM held, so the files appear
 * together or, on failure, the message lists which were written and which
 * not; fs_outset_abort removes the staged files (and dir when begin made
 * it and it is empty).  Commit and abort release the set. */
struct fs_outset {
	char *dir;                   /* target directory */
	char *stage;                 /* staging directory inside dir */
	char **names;                /* file names, n of them */
	char **staged;               /* stage/name, registered for the handler */
	size_t n, cap, cap_staged;
	char **drops;                /* names removed from dir at commit, n_drops */
	size_t n_drops, cap_drops;
	int created_dir;             /* dir did not exist before begin (it is
	                              * registered for the handler too, which
	                              * removes it when still empty) */
};
int fs_outset_begin(struct fs_outset *s, const char *dir, struct fs_error *err);
const char *fs_outset_path(struct fs_outset *s, const char *name);
/* A file of an earlier output that this set's outputs make stale (a run
 * without --requests-csv after one with it): commit removes dir/name, when
 * present, once every staged file is in place. */
void fs_outset_drop(struct fs_outset *s, const char *name);
int fs_outset_commit(struct fs_outset *sets, size_t n_sets, struct fs_error *err);
void fs_outset_abort(struct fs_outset *s);

#endif
