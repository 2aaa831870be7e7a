/*
 * test_report_labels.c — the plots' label placement (src/report_plot_labels.c):
 * labels stay inside the frame, never overlap one another or a point
 * marker, the first label is always shown, a label with no room is left
 * out and counted, the same input gives the same commands, and log axes
 * get 1-2-5 tics.  Pure computation: no gnuplot needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/report_internal.h"
#include "fleetsim/escape.h"
#include "util_test.h"

/* The text box of a placed label in canvas pixels (as the placement
 * estimates it: 9.5 px a character, 18 px a line). */
struct px_box {
	double x0, y0, x1, y1;
};

static struct px_box box_of(const struct fs__frame *f, const struct fs__label *l)
{
	struct px_box b;
	double ax = (f->left + l->gx * (f->right - f->left)) * 1200;
	double ay = (f->bottom + l->gy * (f->top - f->bottom)) * 700;
	double w = 9.5 * (double)strlen(l->text);

	b.x0 = l->right ? ax - w : ax;
	b.x1 = b.x0 + w;
	b.y0 = ay - 9;
	b.y1 = ay + 9;
	return b;
}

static int overlaps(struct px_box a, struct px_box b)
{
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

static const struct fs__frame FRAME = { 0.08, 0.70, 0.11, 0.91, 0, 100, 0, 100, false, false };

/* Eight labels on four points, two pairs of them on the same spot. */
static void test_labels_stay_inside_and_apart(void **state)
{
	static const double xs[] = { 50, 50, 52, 98, 98, 2, 50, 10 };
	static const double ys[] = { 50, 50, 51, 98, 98, 2, 55, 90 };
	struct fs__label l[8];
	struct fs__seg segs[8];
	struct fs_sbuf b;
	char text[8][32];
	size_t i, k, left_out, placed = 0;

	(void)state;
	memset(l, 0, sizeof l);
	for (i = 0; i < 8; i++) {
		snprintf(text[i], sizeof text[i], "label number %zu", i);
		l[i].text = text[i];
		l[i].x = xs[i];
		l[i].y = ys[i];
		segs[i] = (struct fs__seg){ xs[i], ys[i], xs[i], ys[i] };
	}
	fs_sbuf_init(&b);
	left_out = fs__labels_place(&FRAME, segs, 8, l, 8, 1, &b);
	assert_true(l[0].placed);
	for (i = 0; i < 8; i++) {
		struct px_box bi;

		if (!l[i].placed)
			continue;
		placed++;
		bi = box_of(&FRAME, &l[i]);
		/* inside the frame */
		assert_true(bi.x0 >= 0.08 * 1200 && bi.x1 <= 0.70 * 1200);
		assert_true(bi.y0 >= 0.11 * 700 && bi.y1 <= 0.91 * 700);
		/* clear of every other label and of every marker (7 px each way) */
		for (k = 0; k < 8; k++) {
			double px = (0.08 + xs[k] / 100 * 0.62) * 1200;
			double py = (0.11 + ys[k] / 100 * 0.80) * 700;
			struct px_box mk = { px - 7, py - 7, px + 7, py + 7 };

			assert_false(overlaps(bi, mk));
			if (k != i && l[k].placed)
				assert_false(overlaps(bi, box_of(&FRAME, &l[k])));
		}
	}
	assert_int_equal(placed + left_out, 8);
	/* One `set label` per placed label. */
	{
		const char *p = fs_sbuf_str(&b);

		for (k = 0; (p = strstr(p, "set label ")) != NULL; p++)
			k++;
		assert_int_equal(k, placed);
	}
	fs_sbuf_fini(&b);
}

/* A frame too small for a second label: it is left out, not overlapped. */
static void test_labels_without_room_are_left_out(void **state)
{
	struct fs__frame tiny = { 0.10, 0.30, 0.10, 0.16, 0, 1, 0, 1, false, false };
	struct fs__label l[2];
	struct fs__seg seg = { 0.5, 0.5, 0.5, 0.5 };
	struct fs_sbuf b;

	(void)state;
	memset(l, 0, sizeof l);
	l[0].text = "first";
	l[1].text = "second label";
	l[0].x = l[1].x = 0.5;
	l[0].y = l[1].y = 0.5;
	fs_sbuf_init(&b);
	assert_int_equal(fs__labels_place(&tiny, &seg, 1, l, 2, 1, &b), 1);
	assert_true(l[0].placed);
	assert_false(l[1].placed);
	fs_sbuf_fini(&b);
}

/* Same input, same bytes; a hostile label reaches gnuplot quoted. */
static void test_labels_are_deterministic_and_escaped(void **state)
{
	struct fs__label a = { .text = "it's `touch x`", .x = 30, .y = 30 };
	struct fs__label c = a;
	struct fs__seg seg = { 30, 30, 30, 30 };
	struct fs_sbuf b1, b2;

	(void)state;
	fs_sbuf_init(&b1);
	fs_sbuf_init(&b2);
	fs__labels_place(&FRAME, &seg, 1, &a, 1, 1, &b1);
	fs__labels_place(&FRAME, &seg, 1, &c, 1, 1, &b2);
	assert_string_equal(fs_sbuf_str(&b1), fs_sbuf_str(&b2));
	assert_non_null(strstr(fs_sbuf_str(&b1), "'it''s `touch x`'"));
	fs_sbuf_fini(&b1);
	fs_sbuf_fini(&b2);
}

/* Log axes: 1, 2, 5 per decade within the range, values written out. */
static void test_log_tics_one_two_five(void **state)
{
	struct fs_sbuf b;

	(void)state;
	fs_sbuf_init(&b);
	fs__plot_log_tics(&b, 'y', 300, 25000);
	assert_string_equal(fs_sbuf_str(&b), "set ytics ('500' 500, '1000' 1000, '2000' 2000, "
	                    "'5000' 5000, '10000' 10000, '20000' 20000)\n");
	fs_sbuf_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels_stay_inside_and_apart),
		cmocka_unit_test(test_labels_without_room_are_left_out),
		cmocka_unit_test(test_labels_are_deterministic_and_escaped),
		cmocka_unit_test(test_log_tics_one_two_five),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
