/*
 * outfile.c — temp-file-and-rename writes, mkdir -p, output directories
 * checked before any work, sets of files committed together, and the
 * SIGINT/SIGTERM handler that removes temporaries (see outfile.h).  The
 * registry of temporaries is this program's one piece of static state: a
 * signal handler can reach nothing else.  It holds borrowed pointers to
 * heap paths; a path is unregistered before it is freed.
 */
#include "fleetsim/outfile.h"
#include "fleetsim/escape.h"
#include "fleetsim/out_format.h"
#include "fleetsim/scenario.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- registry of temporaries, read by the signal handler ---- */

#define N_TRACKED 256

enum { TRACK_FILE = 1, TRACK_DIR = 2 };

/* Slot i holds a path (borrowed, NULL when free) and what it is.  Kinds
 * are stored before the path is published; the handler reads the path
 * first.  Both are lock-free atomics, so the handler may read them. */
static _Atomic(char *) tracked_path[N_TRACKED];
static atomic_int tracked_kind[N_TRACKED];

static void track(char *path, int kind)
{
	size_t i;

	for (i = 0; i < N_TRACKED; i++) {
		char *expected = NULL;

		if (atomic_load(&tracked_path[i]) != NULL)
			continue;
		atomic_store(&tracked_kind[i], kind);
		if (atomic_compare_exchange_strong(&tracked_path[i], &expected, path))
			return;
	}
	/* Full: this temporary would survive a signal; it is still removed on
	 * every ordinary path.  256 open at once never happens here. */
}

static void untrack(const char *path)
{
	size_t i;

	if (path == NULL)
		return;
	for (i = 0; i < N_TRACKED; i++) {
		if (atomic_load(&tracked_path[i]) == path) {
			atomic_store(&tracked_path[i], NULL);
			return;
		}
	}
}

/* SIGINT/SIGTERM: remove every registered file, then the registered
 * directories (staging directories, and output directories the command
 * made: rmdir removes only empty ones), pass after pass while a pass
 * removes one, since they nest in any slot order (a variants run: DIR,
 * DIR/base, DIR/base's staging directory); exit 128 + signal.  Only
 * unlink, rmdir and _exit: all async-signal-safe. */
static void on_signal(int sig)
{
	size_t i;
	int removed;

	for (i = 0; i < N_TRACKED; i++) {
		char *p = atomic_load(&tracked_path[i]);

		if (p != NULL && atomic_load(&tracked_kind[i]) == TRACK_FILE)
			unlink(p);
	}
	do {
		removed = 0;
		for (i = 0; i < N_TRACKED; i++) {
			char *p = atomic_load(&tracked_path[i]);

			if (p != NULL && atomic_load(&tracked_kind[i]) == TRACK_DIR &&
			    rmdir(p) == 0) {
				atomic_store(&tracked_path[i], NULL);
				removed = 1;
			}
		}
	} while (removed);
	_exit(128 + sig);
}

void fs_outfile_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Hold SIGINT and SIGTERM over a step that must not be cut in two
 * (creating and registering a temporary; renaming a set into place). */
static void hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void release_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

int fs_outfile_open(struct fs_outfile *o, const char *path, struct fs_error *err)
{
	size_t n = strlen(path) + 16;
	int fd;

	sigset_t old;

	o->path = fs_xstrdup(path);
	o->tmp_path = fs_xmalloc(n);
	snprintf(o->tmp_path, n, "%s.tmp.XXXXXX", path);
	hold_signals(&old);
	fd = mkstemp(o->tmp_path);
	if (fd >= 0)
		track(o->tmp_path, TRACK_FILE);
	release_signals(&old);
	/* mkstemp makes the file 0600; outputs are ordinary files (0666 less
	 * the umask).  Called outside any parallel region. */
	if (fd >= 0) {
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	if (fd < 0 || (o->f = fdopen(fd, "w")) == NULL) {
		int saved = errno;

		if (fd >= 0) {
			close(fd);
			unlink(o->tmp_path);
			untrack(o->tmp_path);
		}
		free(o->path);
		free(o->tmp_path);
		o->path = o->tmp_path = NULL;
		o->f = NULL;
		return fs_error_set(err, path, NULL, "cannot create output file: %s",
		                    strerror(saved));
	}
	return 0;
}

void fs_outfile_abort(struct fs_outfile *o)
{
	if (o->f != NULL)
		fclose(o->f);
	if (o->tmp_path != NULL)
		unlink(o->tmp_path);
	untrack(o->tmp_path);
	free(o->path);
	free(o->tmp_path);
	o->f = NULL;
	o->path = o->tmp_path = NULL;
}

int fs_outfile_commit(struct fs_outfile *o, struct fs_error *err)
{
	int failed = ferror(o->f);
	int saved;

	failed |= fflush(o->f) != 0;
	failed |= fsync(fileno(o->f)) != 0 && errno != EINVAL;
	saved = errno;
	failed |= fclose(o->f) != 0;
	o->f = NULL;
	if (!failed && rename(o->tmp_path, o->path) == 0) {
		untrack(o->tmp_path);
		free(o->path);
		free(o->tmp_path);
		o->path = o->tmp_path = NULL;
		return 0;
	}
	if (saved == 0)
		saved = errno;
	fs_error_set(err, o->path, NULL, "cannot write output file: %s",
	             strerror(saved ? saved : EIO));
	fs_outfile_abort(o);
	return -1;
}

int fs_outfile_write(const char *path, const void *data, size_t len,
                     struct fs_error *err)
{
	struct fs_outfile o;

	if (fs_outfile_open(&o, path, err) != 0)
		return -1;
	if (fwrite(data, 1, len, o.f) != len) {
		fs_error_set(err, path, NULL, "cannot write output file: %s",
		             strerror(errno));
		fs_outfile_abort(&o);
		return -1;
	}
	return fs_outfile_commit(&o, err);
}

int fs_outfile_write_json(const char *path, const struct cJSON *root,
                          struct fs_error *err)
{
	char *text = fs_json_text(root, FS_JSON_PRETTY | FS_JSON_NEWLINE);
	int rc = fs_outfile_write(path, text, strlen(text), err);

	free(text);
	return rc;
}

int fs_scenario_write(const struct fs_scenario *sc, const char *path, struct fs_error *err)
{
	struct fs_outfile o;

	if (fs_outfile_open(&o, path, err) != 0)
		return -1;
	errno = 0;
	if (fs_scenario_print_self_contained(sc, o.f) != 0) {
		int saved = errno;

		fs_outfile_abort(&o);
		return fs_error_set(err, path, NULL, "cannot write the resolved scenario: %s",
		                    strerror(saved ? saved : EIO));
	}
	return fs_outfile_commit(&o, err);
}

int fs_outfile_mkdirs(const char *path, struct fs_error *err)
{
	char *copy;
	char *p;
	int rc = 0;

	if (path[0] == '\0')
		return fs_error_set(err, NULL, NULL, "empty output directory name");
	copy = fs_xstrdup(path);

	for (p = copy + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char saved = *p;
			struct stat st;

			*p = '\0';
			if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
				rc = fs_error_set(err, copy, NULL,
				                  "cannot create directory: %s", strerror(errno));
			} else if (stat(copy, &st) != 0 || !S_ISDIR(st.st_mode)) {
				rc = fs_error_set(err, copy, NULL,
				                  "cannot create directory: a file of that name exists");
			}
			*p = saved;
			if (rc != 0 || saved == '\0')
				break;
		}
	}
	free(copy);
	return rc;
}

/* ---- output directories checked before any work ---- */

/* Create and remove a probe file in the existing directory dir: the one
 * sure test that files can be made there (root passes access(2) on a
 * read-only file system; a probe does not). */
static int probe_writable(const char *dir, const char *out_dir, struct fs_error *err)
{
	size_t n = strlen(dir) + 32;
	char *probe = fs_xmalloc(n);
	sigset_t old;
	int fd, saved;

	snprintf(probe, n, "%s/.fleetsim-probe.tmp.XXXXXX", dir);
	hold_signals(&old);
	fd = mkstemp(probe);
	saved = errno;
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	release_signals(&old);
	free(probe);
	if (fd >= 0)
		return 0;
	return fs_error_set(err, out_dir, NULL, "expected a writable output directory, "
	                    "found that files cannot be created in \"%s\" (%s)", dir,
	                    strerror(saved));
}

int fs_outfile_check_dir(const char *dir, struct fs_error *err)
{
	char *copy;
	size_t len;
	int rc = 0;

	if (dir == NULL || dir[0] == '\0')
		return fs_error_set(err, "\"\"", NULL, "expected an output directory, "
		                    "found an empty name");
	copy = fs_xstrdup(dir);
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	/* Walk up to the nearest part of the path that exists: it must be a
	 * directory in which files can be made (then every missing part below
	 * it can be created, and the outputs written). */
	for (;;) {
		struct stat st;
		char *slash;

		if (stat(copy, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				rc = fs_error_set(err, dir, NULL, "expected an output directory, "
				                  "found a file at \"%s\"", copy);
			else
				rc = probe_writable(copy, dir, err);
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR) {
			rc = fs_error_set(err, dir, NULL, "expected an output directory, "
			                  "found \"%s\" unusable (%s)", copy, strerror(errno));
			break;
		}
		slash = strrchr(copy, '/');
		if (slash == NULL) {
			strcpy(copy, ".");
		} else if (slash == copy) {
			copy[1] = '\0';
		} else {
			*slash = '\0';
		}
	}
	free(copy);
	return rc;
}

int fs_outfile_check_file(const char *dir, const char *name, struct fs_error *err)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = fs_xmalloc(n);
	struct stat st;
	int rc = 0;

	snprintf(path, n, "%s/%s", dir, name);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		rc = fs_error_set(err, path, NULL, "expected an output file, found a "
		                  "directory of that name");
	free(path);
	return rc;
}

/* The directory part of path ("." when it has none, "/" for the root). */
static char *dir_part(const char *path)
{
	char *dir = fs_xstrdup(path), *slash = strrchr(dir, '/');

	if (slash == NULL)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return dir;
}

int fs_outfile_check_path(const char *path, struct fs_error *err)
{
	size_t len = strlen(path);
	struct stat st;
	char *dir;
	int rc;

	if (len == 0)
		return fs_error_set(err, "\"\"", NULL, "expected an output file name, "
		                    "found an empty name");
	if (path[len - 1] == '/')
		return fs_error_set(err, path, NULL, "expected an output file name, found "
		                    "a directory name (ending in '/')");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return fs_error_set(err, path, NULL, "expected an output file, found a "
		                    "directory of that name");
	/* The file is written beside itself and renamed (fs_outfile_write),
	 * so its directory must exist and take new files. */
	dir = dir_part(path);
	if (stat(dir, &st) != 0)
		rc = fs_error_set(err, path, NULL, "expected an output file in an existing "
		                  "directory, found no directory \"%s\" (%s)", dir,
		                  strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = fs_error_set(err, path, NULL, "expected an output file in a directory, "
		                  "found a file at \"%s\"", dir);
	else
		rc = probe_writable(dir, path, err);
	free(dir);
	return rc;
}

/* ---- directories filled over a run ---- */

int fs_outdir_make(struct fs_outdir *d, const char *path, struct fs_error *err)
{
	struct stat st;
	sigset_t old;
	int rc;

	memset(d, 0, sizeof *d);
	d->path = fs_xstrdup(path);
	/* Made and registered with signals held: a signal between the two
	 * would leave the directory behind. */
	hold_signals(&old);
	d->created = stat(path, &st) != 0;
	rc = fs_outfile_mkdirs(path, err);
	if (rc == 0 && d->created)
		track(d->path, TRACK_DIR);
	release_signals(&old);
	if (rc != 0)
		fs_outdir_release(d);
	return rc;
}

void fs_outdir_release(struct fs_outdir *d)
{
	untrack(d->path);
	free(d->path);
	memset(d, 0, sizeof *d);
}

/* ---- sets of files committed together ---- */

int fs_outset_begin(struct fs_outset *s, const char *dir, struct fs_error *err)
{
	struct stat st;
	size_t n = strlen(dir) + 32;
	sigset_t old;
	char *made;

	memset(s, 0, sizeof *s);
	s->created_dir = stat(dir, &st) != 0;
	if (fs_outfile_mkdirs(dir, err) != 0)
		return -1;
	s->dir = fs_xstrdup(dir);
	s->stage = fs_xmalloc(n);
	snprintf(s->stage, n, "%s/.fleetsim.tmp.XXXXXX", dir);
	hold_signals(&old);
	if (s->created_dir)
		track(s->dir, TRACK_DIR);        /* a signal leaves no empty dir */
	made = mkdtemp(s->stage);
	if (made != NULL)
		track(s->stage, TRACK_DIR);
	release_signals(&old);
	if (made == NULL) {
		int saved = errno;

		fs_error_set(err, dir, NULL, "cannot create a staging directory: %s",
		             strerror(saved));
		free(s->stage);
		s->stage = NULL;
		fs_outset_abort(s);
		return -1;
	}
	return 0;
}

const char *fs_outset_path(struct fs_outset *s, const char *name)
{
	size_t n = strlen(s->stage) + strlen(name) + 2;
	char *path = fs_xmalloc(n);
	sigset_t old;

	snprintf(path, n, "%s/%s", s->stage, name);
	fs_xgrow((void **)&s->names, &s->cap, s->n + 1, sizeof *s->names);
	fs_xgrow((void **)&s->staged, &s->cap_staged, s->n + 1, sizeof *s->staged);
	s->names[s->n] = fs_xstrdup(name);
	s->staged[s->n] = path;
	hold_signals(&old);
	track(path, TRACK_FILE);
	release_signals(&old);
	s->n++;
	return path;
}

/* Forget the staging paths (after they are renamed or removed). */
static void outset_free(struct fs_outset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		untrack(s->staged[i]);
		free(s->staged[i]);
		free(s->names[i]);
	}
	for (i = 0; i < s->n_drops; i++)
		free(s->drops[i]);
	untrack(s->stage);
	untrack(s->dir);
	free(s->drops);
	free(s->staged);
	free(s->names);
	free(s->stage);
	free(s->dir);
	memset(s, 0, sizeof *s);
}

void fs_outset_drop(struct fs_outset *s, const char *name)
{
	fs_xgrow((void **)&s->drops, &s->cap_drops, s->n_drops + 1, sizeof *s->drops);
	s->drops[s->n_drops++] = fs_xstrdup(name);
}

/* Remove the set's dropped names from its directory (a file that is not
 * there is no error). */
static void remove_drops(const struct fs_outset *s)
{
	size_t i;

	for (i = 0; i < s->n_drops; i++) {
		size_t n = strlen(s->dir) + strlen(s->drops[i]) + 2;
		char *path = fs_xmalloc(n);

		snprintf(path, n, "%s/%s", s->dir, s->drops[i]);
		unlink(path);
		free(path);
	}
}

void fs_outset_abort(struct fs_outset *s)
{
	size_t i;

	if (s->dir == NULL)
		return;
	for (i = 0; i < s->n; i++)
		unlink(s->staged[i]);
	if (s->stage != NULL)
		rmdir(s->stage);
	if (s->created_dir)
		rmdir(s->dir);       /* only when this run made it and it is empty */
	outset_free(s);
}

int fs_outset_commit(struct fs_outset *sets, size_t n_sets, struct fs_error *err)
{
	struct fs_sbuf done, failed;
	sigset_t old;
	size_t k, i;
	int saved = 0;

	fs_sbuf_init(&done);
	fs_sbuf_init(&failed);
	/* A signal waits until the whole set is in place. */
	hold_signals(&old);
	for (k = 0; k < n_sets; k++) {
		struct fs_outset *s = &sets[k];

		for (i = 0; i < s->n; i++) {
			size_t n = strlen(s->dir) + strlen(s->names[i]) + 2;
			char *to = fs_xmalloc(n);

			snprintf(to, n, "%s/%s", s->dir, s->names[i]);
			if (saved == 0 && rename(s->staged[i], to) == 0) {
				fs_sbuf_printf(&done, "%s%s", done.len ? ", " : "", to);
			} else {
				if (saved == 0)
					saved = errno;
				unlink(s->staged[i]);
				fs_sbuf_printf(&failed, "%s%s", failed.len ? ", " : "", to);
			}
			free(to);
		}
		rmdir(s->stage);
		if (saved == 0)
			remove_drops(s);
		outset_free(s);
	}
	release_signals(&old);
	if (saved != 0)
		fs_error_set(err, NULL, NULL, "cannot move the outputs into place (%s): "
		             "written: %s; not written: %s", strerror(saved),
		             done.len ? fs_sbuf_str(&done) : "none", fs_sbuf_str(&failed));
	fs_sbuf_fini(&done);
	fs_sbuf_fini(&failed);
	return saved != 0 ? -1 : 0;
}
