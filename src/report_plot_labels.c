/*
 * report_plot_labels.c — a fixed plot frame and a deterministic label
 * placement for the scatter plots: the frame is pinned in screen fractions
 * and the axis ranges are set here, so the pixel box of every point and
 * label on the 1200 x 700 canvas is known before gnuplot runs.  Labels are
 * placed in priority order at the first candidate position (18 around the
 * point, then 8 above or below it slid sideways into the frame) that stays
 * inside the frame and overlaps no marker, line or earlier label; a label
 * with no room is left out (and counted).  Text reaches gnuplot only
 * through fs_sbuf_gp.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "report_internal.h"

/* Canvas and text metrics of the plots' terminals (fs__plot_finish:
 * 1200 x 700, sans 12): a character is about 9.5 px wide (measured on the
 * PNGs: 9.2 on average, more for a 13-point label), a line 18 px high. */
#define CANVAS_W_PX 1200.0
#define CANVAS_H_PX 700.0
#define CHAR_W_PX 9.5
#define LINE_H_PX 18.0
#define MARK_R_PX 7.0            /* half the side of a point marker's box */
#define PAD_PX 4.0

void fs__frame_emit(struct fs_sbuf *b, const struct fs__frame *f)
{
	fs_sbuf_printf(b, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
	               "set bmargin at screen %.4f\nset tmargin at screen %.4f\n",
	               f->left, f->right, f->bottom, f->top);
	fs_sbuf_printf(b, "%s logscale x\n%s logscale y\n", f->xlog ? "set" : "unset",
	               f->ylog ? "set" : "unset");
	fs_sbuf_printf(b, "set xrange [%.10g:%.10g]\nset yrange [%.10g:%.10g]\n",
	               f->xmin, f->xmax, f->ymin, f->ymax);
	if (f->xlog)
		fs__plot_log_tics(b, 'x', f->xmin, f->xmax);
	if (f->ylog)
		fs__plot_log_tics(b, 'y', f->ymin, f->ymax);
}

void fs__plot_log_tics(struct fs_sbuf *b, char axis, double lo, double hi)
{
	static const double steps[] = { 1, 2, 5 };
	double d;
	int first = 1;
	size_t k;

	if (!(lo > 0 && hi > lo))
		return;
	fs_sbuf_printf(b, "set %ctics (", axis);
	for (d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
		for (k = 0; k < 3; k++)
			if (d * steps[k] >= lo && d * steps[k] <= hi) {
				fs_sbuf_printf(b, d * steps[k] >= 1 ? "%s'%.0f' %.10g" :
				               "%s'%.3g' %.10g", first ? "" : ", ", d * steps[k],
				               d * steps[k]);
				first = 0;
			}
	fs_sbuf_puts(b, ")\n");
}

/* Position of a data value along an axis, 0..1 of the frame. */
static double frac(double v, double lo, double hi, bool logscale)
{
	if (logscale)
		return v > 0 ? (log(v) - log(lo)) / (log(hi) - log(lo)) : -1;
	return (v - lo) / (hi - lo);
}

void fs__frame_px(const struct fs__frame *f, double x, double y, double *px, double *py)
{
	double fx = frac(x, f->xmin, f->xmax, f->xlog), fy = frac(y, f->ymin, f->ymax, f->ylog);

	*px = (f->left + fx * (f->right - f->left)) * CANVAS_W_PX;
	/* pixels grow downwards; keep them growing upwards like the data */
	*py = (f->bottom + fy * (f->top - f->bottom)) * CANVAS_H_PX;
}

struct box {
	double x0, y0, x1, y1;
	bool soft;                   /* part of a line: a boxed label may cross it */
};

static bool overlap(const struct box *a, const struct box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Candidate offsets of a label's anchor from its point, in px (x right, y
 * up), nearest first; the label extends right of the anchor when dx >= 0,
 * left otherwise. */
static const double CAND[][2] = {
	{ 12, 12 }, { -12, 12 }, { 12, -12 }, { -12, -12 }, { 14, 0 }, { -14, 0 },
	{ 12, 32 }, { -12, 32 }, { 12, -32 }, { -12, -32 },
	{ 30, 56 }, { -30, 56 }, { 30, -56 }, { -30, -56 },
	{ 60, 90 }, { -60, 90 }, { 60, -90 }, { -60, -90 },
};
#define N_CAND (sizeof CAND / sizeof CAND[0])
/* Vertical offsets of the last resort, a label slid sideways into the frame. */
static const double SHIFTED[] = { 26, -26, 46, -46, 72, -72, 100, -100 };
#define N_SHIFTED (sizeof SHIFTED / sizeof SHIFTED[0])

/* The obstacle boxes of the segments: a marker box for a point (both ends
 * equal), small boxes every few pixels along a line or an error bar. */
static size_t obstacles(const struct fs__frame *f, const struct fs__seg *segs, size_t n_segs,
                        struct box **out)
{
	size_t cap = 64, n = 0, i;
	struct box *bx = fs_xmalloc(cap * sizeof *bx);

	for (i = 0; i < n_segs; i++) {
		double ax, ay, bx_, by, len, t, step, rad;
		size_t k, steps;

		if (isnan(segs[i].x0) || isnan(segs[i].y0) || isnan(segs[i].x1) ||
		    isnan(segs[i].y1))
			continue;
		fs__frame_px(f, segs[i].x0, segs[i].y0, &ax, &ay);
		fs__frame_px(f, segs[i].x1, segs[i].y1, &bx_, &by);
		len = hypot(bx_ - ax, by - ay);
		rad = len < 1 ? MARK_R_PX : 3;
		steps = len < 1 ? 0 : (size_t)(len / 5) + 1;
		if (steps > 2000)
			steps = 2000;
		step = steps ? 1.0 / (double)steps : 0;
		for (k = 0; k <= steps; k++) {
			t = (double)k * step;
			fs_xgrow((void **)&bx, &cap, n + 1, sizeof *bx);
			bx[n].x0 = ax + t * (bx_ - ax) - rad;
			bx[n].x1 = ax + t * (bx_ - ax) + rad;
			bx[n].y0 = ay + t * (by - ay) - rad;
			bx[n].y1 = ay + t * (by - ay) + rad;
			bx[n].soft = steps > 0;
			n++;
		}
	}
	*out = bx;
	return n;
}

size_t fs__labels_place(const struct fs__frame *f, const struct fs__seg *segs, size_t n_segs,
                        struct fs__label *labels, size_t n_labels, int first_tag,
                        struct fs_sbuf *b)
{
	struct box fr, placed[64], *marks;
	size_t n_placed = 0, n_marks, i, k, c, left_out = 0;

	fs_sbuf_puts(b, "set style textbox opaque noborder margins 2,1\n");
	fr.x0 = f->left * CANVAS_W_PX + PAD_PX;
	fr.x1 = f->right * CANVAS_W_PX - PAD_PX;
	fr.y0 = f->bottom * CANVAS_H_PX + PAD_PX;
	fr.y1 = f->top * CANVAS_H_PX - PAD_PX;
	n_marks = obstacles(f, segs, n_segs, &marks);
	for (i = 0; i < n_labels; i++) {
		struct fs__label *l = &labels[i];
		double px, py, w = (double)strlen(l->text) * CHAR_W_PX * (l->bold ? 13.0 / 12 : 1);
		struct box lb;
		int pass;

		l->placed = false;
		l->boxed = false;
		if (isnan(l->x) || isnan(l->y) || n_placed == 64)
			continue;
		fs__frame_px(f, l->x, l->y, &px, &py);
		/* Pass 0 keeps clear of everything; pass 1 (the first label only,
		 * which must be shown) may cross lines, on an opaque box. */
		for (pass = 0; pass < (i == 0 ? 2 : 1) && !l->placed; pass++)
		for (c = 0; c < N_CAND + N_SHIFTED && !l->placed; c++) {
			double ax, ay;

			if (c < N_CAND) {
				ax = px + CAND[c][0];
				ay = py + CAND[c][1];
				lb.x0 = CAND[c][0] >= 0 ? ax : ax - w;
			} else {
				/* Above or below, slid sideways into the frame: for a
				 * label too long for either side of its point. */
				ay = py + SHIFTED[c - N_CAND];
				ax = px - w / 2;
				if (ax + w > fr.x1)
					ax = fr.x1 - w;
				if (ax < fr.x0)
					ax = fr.x0;
				lb.x0 = ax;
			}
			lb.x1 = lb.x0 + w;
			lb.y0 = ay - LINE_H_PX / 2;
			lb.y1 = ay + LINE_H_PX / 2;
			if (lb.x0 < fr.x0 || lb.x1 > fr.x1 || lb.y0 < fr.y0 || lb.y1 > fr.y1)
				continue;
			for (k = 0; k < n_marks && !(overlap(&lb, &marks[k]) &&
			                             !(pass == 1 && marks[k].soft)); k++)
				;
			if (k < n_marks)
				continue;
			for (k = 0; k < n_placed && !overlap(&lb, &placed[k]); k++)
				;
			if (k < n_placed)
				continue;
			placed[n_placed++] = lb;
			l->placed = true;
			l->boxed = pass == 1;
			l->gx = (ax / CANVAS_W_PX - f->left) / (f->right - f->left);
			l->gy = (ay / CANVAS_H_PX - f->bottom) / (f->top - f->bottom);
			l->right = c < N_CAND && CAND[c][0] < 0;
			l->leader = c >= 6;
			/* The leader leaves the text box at its point nearest the
			 * point it names. */
			{
				double lx = px < lb.x0 ? lb.x0 : px > lb.x1 ? lb.x1 : px;
				double ly = py < lb.y0 ? lb.y0 : py > lb.y1 ? lb.y1 : py;

				l->lgx = (lx / CANVAS_W_PX - f->left) / (f->right - f->left);
				l->lgy = (ly / CANVAS_H_PX - f->bottom) / (f->top - f->bottom);
			}
		}
		if (!l->placed) {
			left_out++;
			continue;
		}
		fs_sbuf_printf(b, "set label %d ", first_tag + (int)i);
		fs_sbuf_gp(b, l->text);
		fs_sbuf_printf(b, " at graph %.5f, graph %.5f %s front noenhanced tc rgb '%s'%s%s\n",
		               l->gx, l->gy, l->right ? "right" : "left",
		               l->colour ? l->colour : "#000000", l->bold ? " font ',13'" : "",
		               l->boxed ? " boxed" : "");
		if (l->leader)
			fs_sbuf_printf(b, "set arrow %d from graph %.5f, graph %.5f to first %.10g, "
			               "first %.10g nohead lc rgb '#777777' lw 1 front\n",
			               first_tag + (int)i, l->lgx, l->lgy, l->x, l->y);
	}
	free(marks);
	return left_out;
}
