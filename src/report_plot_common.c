/*
 * report_plot_common.c — what every plot shares: writing its .gp and .dat
 * files, the common script preamble, the latency axis, running gnuplot, and
 * noting a plot skipped for lack of data.  Every
 * file goes to r->plot_set's staging directory (gnuplot runs there), and
 * reaches DIR/plots only when the whole report does (report.c).  Names
 * reach gnuplot only as escaped single-quoted strings.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleetsim/escape.h"
#include "fleetsim/gnuplot.h"
#include "fleetsim/outfile.h"
#include "report_internal.h"

void fs__plot_skip(struct fs__report *r, const char *name, const char *why)
{
	size_t n = strlen(r->skipped);

	snprintf(r->skipped + n, sizeof r->skipped - n, "%s%s: %s", n ? "; " : "",
	         name, why);
}

/* The staging path of plots/<file>, registered with the plot set once. */
static const char *staged(const struct fs__report *r, const char *file)
{
	const struct fs_outset *s = r->plot_set;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->names[i], file) == 0)
			return s->staged[i];
	return fs_outset_path(r->plot_set, file);
}

int fs__plot_write(const struct fs__report *r, const char *name, const char *ext,
                      const struct fs_sbuf *b, struct fs_error *err)
{
	char file[128];

	snprintf(file, sizeof file, "%s.%s", name, ext);
	return fs_outfile_write(staged(r, file), fs_sbuf_str(b), b->len, err);
}

/* Write the script around body, run gnuplot and record the plot.  The
 * script writes NAME.png and NAME.svg under their own names, so rerunning
 * it redraws them; they are staged files of the plot set, so a gnuplot
 * that fails leaves nothing (report.c aborts the set). */
int fs__plot_finish(struct fs__report *r, const char *name, const char *body,
                       const char *caption, struct fs_error *err)
{
	static const char *const term[2][2] = {
		{ "pngcairo size 1200,700 font \"sans,12\" noenhanced", "png" },
		{ "svg size 1200,700 dynamic font \"sans,12\" noenhanced", "svg" },
	};
	struct fs_sbuf gp;
	char script[128], file[128];
	struct stat st;
	int t, rc;

	fs_sbuf_init(&gp);
	fs_sbuf_printf(&gp, "# fleetsim report: %s (generated; rerun in this directory "
	               "with: gnuplot %s.gp)\n", name, name);
	for (t = 0; t < 2; t++) {
		fs_sbuf_printf(&gp, "set terminal %s\nset output '%s.%s'\n%s"
		               "unset multiplot\nunset output\n",
		               term[t][0], name, term[t][1], body);
	}
	rc = fs__plot_write(r, name, "gp", &gp, err);
	fs_sbuf_fini(&gp);
	if (rc)
		return -1;
	for (t = 0; t < 2; t++) {          /* staged before gnuplot writes them */
		snprintf(file, sizeof file, "%s.%s", name, term[t][1]);
		(void)staged(r, file);
	}
	snprintf(script, sizeof script, "%s.gp", name);
	if (fs_gnuplot_run(r->gnuplot, r->plot_set->stage, script, err))
		return -1;
	for (t = 0; t < 2; t++) {
		snprintf(file, sizeof file, "%s.%s", name, term[t][1]);
		if (stat(staged(r, file), &st) != 0 || st.st_size == 0)
			return fs_error_set(err, script, NULL, "gnuplot exited 0 but wrote "
			                    "no %s", file);
	}
	if (r->n_plots < sizeof r->plots / sizeof r->plots[0]) {
		struct fs__plot *p = &r->plots[r->n_plots++];

		snprintf(p->name, sizeof p->name, "%s", name);
		snprintf(p->caption, sizeof p->caption, "%s", caption);
	}
	return 0;
}

/* The default of plots/style.gp, used when no template file is found. */
static const char BUILTIN_STYLE[] =
	"set encoding utf8\nset termoption noenhanced\n"
	"set grid xtics ytics lt 1 lw 1 lc rgb '#e0e0e0'\nset border lc rgb '#555555'\n"
	"set key outside right top box opaque noenhanced\n"
	"set style fill transparent solid 0.2 noborder\n";

#ifndef FS_DATADIR
#define FS_DATADIR "/usr/local/share/fleetsim"
#endif

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t cap = 0, used = 0, got;

	if (f == NULL)
		return NULL;
	do {
		text = fs_xrealloc(text, cap += 16384);
		got = fread(text + used, 1, cap - used - 1, f);
		used += got;
	} while (got > 0);
	fclose(f);
	text[used] = '\0';
	return text;
}

/* Candidates: ./plots, <binary dir>/plots, <binary dir>/../share/fleetsim/plots,
 * FS_DATADIR/plots. */
void fs__plot_load_style(struct fs__report *r)
{
	char exe[4096], cand[4][4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	size_t k;

	snprintf(cand[0], sizeof cand[0], "plots/style.gp");
	cand[1][0] = cand[2][0] = '\0';
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(cand[1], sizeof cand[1], "%s/plots/style.gp", exe);
			snprintf(cand[2], sizeof cand[2], "%s/../share/fleetsim/plots/style.gp", exe);
		}
	}
	snprintf(cand[3], sizeof cand[3], "%s/plots/style.gp", FS_DATADIR);
	for (k = 0; k < 4; k++) {
		if (cand[k][0] != '\0' && (r->style = read_text(cand[k])) != NULL) {
			memcpy(r->style_from, cand[k], sizeof r->style_from);
			r->style_from[sizeof r->style_from - 1] = '\0';
			return;
		}
	}
	r->style = fs_xstrdup(BUILTIN_STYLE);
	snprintf(r->style_from, sizeof r->style_from, "built-in");
}

/* Common first lines of every body: reset, then the style template. */
void fs__plot_body_start(const struct fs__report *r, struct fs_sbuf *b)
{
	fs_sbuf_puts(b, "reset\n# --- plots/style.gp (");
	fs_sbuf_puts(b, strcmp(r->style_from, "built-in") == 0 ? "built-in" : "template");
	fs_sbuf_puts(b, ") ---\n");
	fs_sbuf_puts(b, r->style != NULL ? r->style : BUILTIN_STYLE);
	if (r->style != NULL && r->style[0] != '\0' && r->style[strlen(r->style) - 1] != '\n')
		fs_sbuf_puts(b, "\n");
	fs_sbuf_puts(b, "# --- this plot ---\n");
}

void fs__plot_x_latency(struct fs_sbuf *b, double min_v, double max_v)
{
	if (min_v > 0 && max_v / min_v > 20) {
		fs_sbuf_printf(b, "set logscale x 10\nset xrange [%.6g:%.6g]\n",
		               min_v / 1.6, max_v * 1.6);
		fs_sbuf_puts(b, "set format x '%.0f'\n");
	} else if (max_v > 0) {
		double pad = (max_v - min_v) * 0.15 + max_v * 0.02;

		fs_sbuf_printf(b, "set xrange [%.6g:%.6g]\n",
		               min_v - pad > 0 ? min_v - pad : 0, max_v + pad);
	}
}
