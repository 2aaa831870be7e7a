/*
 * gnuplot.c — find a program (gnuplot, a browser) in $PATH and run it with
 * fork/exec, no shell (see gnuplot.h).  The child's stdin is /dev/null, its
 * stdout goes to /dev/null and its stderr to a pipe the parent drains
 * before waiting, so a chatty child can never block on a full pipe.
 */
#include "fleetsim/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int fs_gnuplot_find(char *buf, size_t buf_len)
{
	return fs_exec_find("gnuplot", buf, buf_len);
}

int fs_exec_find(const char *name, char *buf, size_t buf_len)
{
	const char *path = getenv("PATH");
	const char *p;

	if (buf_len)
		buf[0] = '\0';
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; ) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char cand[4096];
		struct stat st;

		if (n == 0)
			snprintf(cand, sizeof cand, "./%s", name);
		else
			snprintf(cand, sizeof cand, "%.*s/%s", (int)n, p, name);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0) {
			if (strlen(cand) + 1 > buf_len)
				return -1;
			memcpy(buf, cand, strlen(cand) + 1);
			return 0;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return -1;
}

/* Child side: never returns. */
static void child(const char *exe, const char *cwd, const char *const *argv, unsigned limit_s,
                  int err_fd)
{
	int devnull = open("/dev/null", O_RDWR);

	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
	}
	dup2(err_fd, STDERR_FILENO);
	if (chdir(cwd) != 0) {
		fprintf(stderr, "cannot enter %s: %s\n", cwd, strerror(errno));
		_exit(126);
	}
	if (limit_s > 0)
		alarm(limit_s);          /* kept across exec: SIGALRM ends a hung child */
	execv(exe, fs_unconst(argv));        /* exec never writes the strings */
	fprintf(stderr, "cannot start %s: %s\n", exe, strerror(errno));
	_exit(127);
}

int fs_gnuplot_run(const char *exe, const char *cwd, const char *script,
                   struct fs_error *err)
{
	const char *const argv[] = { "gnuplot", script, NULL };

	return fs_exec_run(exe, cwd, argv, "gnuplot", 0, err);
}

int fs_exec_run(const char *exe, const char *cwd, const char *const *argv,
                const char *what, unsigned limit_s, struct fs_error *err)
{
	const char *script = argv[1] != NULL ? argv[1] : exe;
	int fds[2];
	pid_t pid;
	char msg[768];
	size_t msg_len = 0;
	int status = 0;
	ssize_t n;
	char chunk[512];

	if (pipe(fds) != 0)
		return fs_error_set(err, script, NULL, "cannot create a pipe: %s",
		                    strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fs_error_set(err, script, NULL, "cannot fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		child(exe, cwd, argv, limit_s, fds[1]);
	}
	close(fds[1]);
	msg[0] = '\0';
	for (;;) {
		n = read(fds[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* Keep the first part of stderr: that is where gnuplot names the
		 * failing line. */
		if (msg_len + 1 < sizeof msg) {
			size_t k = (size_t)n;

			if (k > sizeof msg - 1 - msg_len)
				k = sizeof msg - 1 - msg_len;
			memcpy(msg + msg_len, chunk, k);
			msg_len += k;
			msg[msg_len] = '\0';
		}
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return fs_error_set(err, script, NULL, "waiting for %s: %s", what,
			                    strerror(errno));
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	while (msg_len && (msg[msg_len - 1] == '\n' || msg[msg_len - 1] == ' '))
		msg[--msg_len] = '\0';
	if (WIFEXITED(status))
		return fs_error_set(err, script, NULL,
		                    "%s exited with status %d: %s", what,
		                    WEXITSTATUS(status), msg_len ? msg : "(no message)");
	return fs_error_set(err, script, NULL, "%s was killed by signal %d%s: %s",
	                    what, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
	                    WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ?
	                    " (took too long)" : "", msg_len ? msg : "(no message)");
}
