/*
 * outfile.c — temp-file-and-rename writes and mkdir -p (see outfile.h).
 */
#include "fleetsim/outfile.h"
#include "fleetsim/scenario.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fs_outfile_open(struct fs_outfile *o, const char *path, struct fs_error *err)
{
	size_t n = strlen(path) + 16;
	int fd;

	o->path = fs_xstrdup(path);
	o->tmp_path = fs_xmalloc(n);
	snprintf(o->tmp_path, n, "%s.tmp.XXXXXX", path);
	fd = mkstemp(o->tmp_path);
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

int fs_scenario_write(const struct fs_scenario *sc, const char *path, struct fs_error *err)
{
	struct fs_outfile o;

	if (fs_outfile_open(&o, path, err) != 0)
		return -1;
	if (fs_scenario_print(sc, o.f) != 0) {
		fs_outfile_abort(&o);
		return fs_error_set(err, path, NULL, "cannot write the resolved scenario");
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
