/*
 * gnuplot.h — running gnuplot as an external program on a script file.
 * No shell is involved: the program is found in $PATH and started with
 * fork/exec as `gnuplot SCRIPT` in a given working directory; its stderr is
 * captured into the error message.  Scripts must carry untrusted strings
 * only through fs_sbuf_gp (escape.h).
 */
#ifndef FLEETSIM_GNUPLOT_H
#define FLEETSIM_GNUPLOT_H

#include <stddef.h>

#include "fleetsim/common.h"

/* The package that provides gnuplot without X11 (Debian/Ubuntu). */
#define FS_GNUPLOT_PACKAGE "gnuplot-nox"

/* Full path of the gnuplot executable found in $PATH, written into buf;
 * 0, or -1 when none is found (buf then holds "").  Reads the environment:
 * call it from the CLI layer, never inside a simulation. */
int fs_gnuplot_find(char *buf, size_t buf_len);

/* Run `exe script` with the working directory cwd (script relative to it or
 * absolute) and wait for it.  0 when it exited with status 0; -1 with err
 * otherwise, err->msg holding the exit status and the first part of
 * gnuplot's stderr (which names the failing script line).  Warnings
 * (stderr output with exit status 0) are not errors. */
int fs_gnuplot_run(const char *exe, const char *cwd, const char *script,
                   struct fs_error *err);

/*
 * Find the executable `name` in $PATH into buf (as fs_gnuplot_find does
 * for gnuplot).  0, or -1 when it is not there or buf is too small.
 */
int fs_exec_find(const char *name, char *buf, size_t buf_len);

/*
 * Run exe with argv (argv[0] its name, NULL-terminated) in directory cwd,
 * by fork/exec without a shell, stdin and stdout on /dev/null; limit_s > 0
 * ends it with SIGALRM after that many seconds.  0 on exit status 0, else
 * -1 with err naming `what`, its status and the first part of its stderr
 * (err's where: argv[1], else exe).
 */
int fs_exec_run(const char *exe, const char *cwd, const char *const *argv,
                const char *what, unsigned limit_s, struct fs_error *err);

#endif
