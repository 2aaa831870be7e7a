/*
 * report_plots_pareto.c — the sweep's cost vs latency plot: every evaluated
 * point coloured by its GPU type and marked by its pricing plan (from the
 * point's axis values, else the base scenario), the Pareto front joined,
 * the objective's latency bound, the recommendation starred and labelled
 * inside the frame, the Pareto-front points labelled where there is room
 * (report_plot_labels.c), the legend outside the frame.  The cost axis
 * turns logarithmic when the costs span more than 20x.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "report_internal.h"

#define MAX_KINDS 8

static const char *const COLOURS[MAX_KINDS] = { "#1f77b4", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f" };
/* Filled circle, triangle, square, diamond, inverted triangle, pentagon... */
static const int MARKERS[MAX_KINDS] = { 7, 9, 5, 13, 11, 15, 7, 9 };

/* The value of the first member of set whose key ends in suffix (a
 * string), else the first pool's (or the engine's) in the scenario. */
static const char *point_value(const struct fs__report *r, const cJSON *set,
                               const char *suffix)
{
	const cJSON *m, *pool;
	size_t ls = strlen(suffix);

	cJSON_ArrayForEach(m, set) {
		size_t lk = m->string ? strlen(m->string) : 0;

		if (lk >= ls && strcmp(m->string + lk - ls, suffix) == 0 && cJSON_IsString(m))
			return m->valuestring;
	}
	pool = cJSON_GetArrayItem(fs__jget(r->scenario, "fleet.pools"), 0);
	if (fs__jstr(pool, suffix))
		return fs__jstr(pool, suffix);
	if (strcmp(suffix, "gpu") == 0 && fs__jstr(r->scenario, "engine.gpu"))
		return fs__jstr(r->scenario, "engine.gpu");
	return strcmp(suffix, "gpu") == 0 ? "GPU n/a" : "on_demand";
}

static int kind_index(const char **kinds, size_t *n, const char *v)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(kinds[i], v) == 0)
			return (int)i;
	if (*n == MAX_KINDS)
		return MAX_KINDS - 1;       /* the last colour stands for the rest */
	kinds[*n] = v;
	return (int)(*n)++;
}

static const char *objective_words(const struct fs__report *r, char *buf, size_t len)
{
	const char *objective = fs__jstr(r->best, "objective");

	if (objective && strcmp(objective, "total_cost") == 0)
		snprintf(buf, len, "cost over the simulated horizon (%s)", r->currency);
	else if (objective && strcmp(objective, "cost_per_1m_output_tokens") == 0)
		snprintf(buf, len, "cost per 1M output tokens (%s)", r->currency);
	else
		snprintf(buf, len, "projected cost (%s per month: cost per hour x 730 h)",
		         r->currency);
	return buf;
}

/* Axis range of values in [lo, hi] (lo > 0 for a log axis). */
static void axis_range(double lo, double hi, bool from_zero, bool *logscale, double *a,
                       double *b)
{
	*logscale = lo > 0 && hi / lo > 20;
	if (*logscale) {
		*a = lo / 1.6;
		*b = hi * 1.6;
	} else if (from_zero) {
		*a = 0;
		*b = hi * 1.15 + 1e-9;
	} else {
		double pad = (hi - lo) * 0.15 + hi * 0.02 + 1e-9;

		*a = lo - pad > 0 ? lo - pad : 0;
		*b = hi + pad;
	}
}

struct pt {
	int point;
	double x, y;
	double x_lo, x_hi, y_lo, y_hi;   /* 95% intervals (error bars) */
};

int fs__plot_pareto_sweep(struct fs__report *r, struct fs_error *err)
{
	const char *gpus[MAX_KINDS], *plans[MAX_KINDS];
	size_t n_gpus = 0, n_plans = 0, n_pts = 0, n_front = 0, i, g, k;
	struct pt *pts, *front;
	struct fs__label *labels;
	char (*texts)[320];
	struct fs__seg *segs;
	size_t n_segs = 0;
	double bound, xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	struct fs__frame fr = { 0.08, 0.70, 0.11, 0.91, 0, 1, 0, 1, false, false };
	struct fs_sbuf dat, b;
	struct fs__csv *csv;
	const cJSON *p, *pts_json = fs__jget(r->sweep, "points");
	int best = (int)fs__jnum(r->best, "best.point"), rc, n_json = cJSON_GetArraySize(pts_json);
	char axis[256], words[128], path[4096], caption[900];
	size_t left_out;

	if (n_json == 0) {
		fs__plot_skip(r, "pareto", "sweep.json has no points");
		return 0;
	}
	fs__pareto_axis(r, axis, sizeof axis, &bound);
	pts = fs_xcalloc((size_t)n_json, sizeof *pts);
	front = fs_xcalloc((size_t)n_json, sizeof *front);
	fs_sbuf_init(&dat);
	/* Block 0: point latency lo hi objective lo hi feasible gpu plan */
	fs_sbuf_puts(&dat, "# point latency_ms lo hi objective lo hi feasible gpu_index plan_index\n");
	cJSON_ArrayForEach(p, pts_json) {
		struct fs__ci x = fs__jci(p, "pareto_latency_ms");
		struct fs__ci y = fs__jci(p, "objective");
		const cJSON *set = fs__jget(p, "set");
		int gi, pi;

		if (isnan(x.value) || isnan(y.value))
			continue;
		gi = kind_index(gpus, &n_gpus, point_value(r, set, "gpu"));
		pi = kind_index(plans, &n_plans, point_value(r, set, "pricing"));
		if (x.value > 0 && x.value < xmin)
			xmin = x.value;
		xmax = x.value > xmax ? x.value : xmax;
		if (y.value > 0 && y.value < ymin)
			ymin = y.value;
		ymax = y.value > ymax ? y.value : ymax;
		pts[n_pts].point = (int)fs__jnum(p, "point");
		pts[n_pts].x = x.value;
		pts[n_pts].y = y.value;
		pts[n_pts].x_lo = isnan(x.lo) || x.lo < x.value / 100 ? x.value / 100 : x.lo;
		pts[n_pts].x_hi = isnan(x.hi) ? x.value : x.hi;
		pts[n_pts].y_lo = isnan(y.lo) || y.lo < 0 ? 0 : y.lo;
		pts[n_pts].y_hi = isnan(y.hi) ? y.value : y.hi;
		fs_sbuf_printf(&dat, "%d %.10g %.10g %.10g %.10g %.10g %.10g %d %d %d\n",
		               pts[n_pts].point, x.value, pts[n_pts].x_lo, pts[n_pts].x_hi,
		               y.value, pts[n_pts].y_lo, pts[n_pts].y_hi,
		               cJSON_IsTrue(fs__jget(p, "feasible")), gi, pi);
		n_pts++;
	}
	/* Block 1: the Pareto front in latency order (pareto.csv is sorted). */
	fs_sbuf_puts(&dat, "\n\n# Pareto front\n");
	snprintf(path, sizeof path, "%s/pareto.csv", r->dir);
	csv = fs__csv_load(path, NULL);
	if (csv && fs__csv_col(csv, "point") >= 0) {
		int pc = fs__csv_col(csv, "point");

		for (i = 0; i < csv->n_rows; i++) {
			cJSON *q = fs__sweep_point(r, (int)fs__csv_num(csv, i, (size_t)pc));

			if (!q || isnan(fs__jnum(q, "pareto_latency_ms.value")))
				continue;
			front[n_front].point = (int)fs__csv_num(csv, i, (size_t)pc);
			front[n_front].x = fs__jnum(q, "pareto_latency_ms.value");
			front[n_front].y = fs__jnum(q, "objective.value");
			fs_sbuf_printf(&dat, "%.10g %.10g\n", front[n_front].x, front[n_front].y);
			n_front++;
		}
	}
	fs__csv_free(csv);
	if (n_front == 0)
		fs_sbuf_puts(&dat, "NaN NaN\n");
	/* Block 2: the recommended point. */
	fs_sbuf_puts(&dat, "\n\n# recommended\n");
	p = fs__sweep_point(r, best);
	if (p)
		fs_sbuf_printf(&dat, "%.10g %.10g\n", fs__jnum(p, "pareto_latency_ms.value"),
		               fs__jnum(p, "objective.value"));
	else
		fs_sbuf_puts(&dat, "NaN NaN\n");
	rc = n_pts ? fs__plot_write(r, "pareto", "dat", &dat, err) : 0;
	fs_sbuf_fini(&dat);
	if (rc || n_pts == 0) {
		if (n_pts == 0)
			fs__plot_skip(r, "pareto", "no sweep point has a latency and an objective");
		free(pts);
		free(front);
		return rc ? -1 : 0;
	}

	if (!isnan(bound) && bound > xmax)
		xmax = bound;
	if (!isnan(bound) && bound > 0 && bound < xmin)
		xmin = bound;
	axis_range(xmin, xmax, false, &fr.xlog, &fr.xmin, &fr.xmax);
	axis_range(ymin, ymax, true, &fr.ylog, &fr.ymin, &fr.ymax);

	fs_sbuf_init(&b);
	fs__plot_body_start(r, &b);
	fs_sbuf_puts(&b, "set title 'Cost vs latency of every evaluated configuration' noenhanced\n"
	             "set key at screen 0.72, screen 0.91 left top vertical Left reverse "
	             "box opaque noenhanced spacing 1.4 samplen 2\n");
	fs__frame_emit(&b, &fr);
	fs_sbuf_puts(&b, "set xlabel ");
	fs_sbuf_gp(&b, axis);
	fs_sbuf_puts(&b, " noenhanced\nset ylabel ");
	fs_sbuf_gp(&b, objective_words(r, words, sizeof words));
	fs_sbuf_puts(&b, " noenhanced\n");
	if (fr.xlog)
		fs_sbuf_puts(&b, "set format x '%.0f'\n");
	if (fr.ylog)
		fs_sbuf_puts(&b, "set format y '%.0f'\n");
	if (!isnan(bound)) {
		fs_sbuf_printf(&b, "set arrow 1 from %.10g, graph 0 to %.10g, graph 1 nohead "
		               "lc rgb '#cc0000' dt 2 lw 2 back\n", bound, bound);
		fs_sbuf_printf(&b, "set label 1 'SLO bound %.0f ms' at %.10g, graph 0.97 "
		               "offset 0.8,0 left tc rgb '#cc0000' noenhanced front\n", bound, bound);
	}

	/* Labels: the recommendation first, then the Pareto-front points. */
	labels = fs_xcalloc(n_front + 1, sizeof *labels);
	texts = fs_xcalloc(n_front + 1, sizeof *texts);
	/* What labels keep clear of: markers, error bars, the front, the bound. */
	segs = fs_xcalloc(3 * n_pts + n_front + 1, sizeof *segs);
	for (i = 0; i < n_pts; i++) {
		segs[n_segs++] = (struct fs__seg){ pts[i].x, pts[i].y, pts[i].x, pts[i].y };
		segs[n_segs++] = (struct fs__seg){ pts[i].x_lo, pts[i].y, pts[i].x_hi, pts[i].y };
		segs[n_segs++] = (struct fs__seg){ pts[i].x, pts[i].y_lo, pts[i].x, pts[i].y_hi };
	}
	for (i = 0; i + 1 < n_front; i++)
		segs[n_segs++] = (struct fs__seg){ front[i].x, front[i].y, front[i + 1].x,
		                                   front[i + 1].y };
	if (!isnan(bound))
		segs[n_segs++] = (struct fs__seg){ bound, fr.ymin > 0 ? fr.ymin : 1e-9, bound,
		                                   fr.ymax };
	k = 0;
	if (p) {
		char lab[280];

		fs__short_label(fs__jget(p, "set"), lab, sizeof lab);
		snprintf(texts[k], sizeof texts[k], "recommended: %s (%s %s)", lab, r->currency,
		         fs__num_text(words, sizeof words, fs__jnum(p, "objective.value")));
		labels[k].text = texts[k];
		labels[k].x = fs__jnum(p, "pareto_latency_ms.value");
		labels[k].y = fs__jnum(p, "objective.value");
		labels[k].colour = "#006600";
		labels[k++].bold = true;
	}
	for (i = 0; i < n_front; i++) {
		if (front[i].point == best)
			continue;
		fs__short_label(fs__jget(fs__sweep_point(r, front[i].point), "set"), texts[k],
		                sizeof texts[k]);
		labels[k].text = texts[k];
		labels[k].x = front[i].x;
		labels[k].y = front[i].y;
		labels[k++].colour = "#1f4e79";
	}
	left_out = fs__labels_place(&fr, segs, n_segs, labels, k, 10, &b);

	/* The legend: what the marks mean, then colour = GPU, marker = plan. */
	fs_sbuf_puts(&b, "plot 'pareto.dat' index 0 using 2:5:3:4:6:7 with xyerrorbars "
	             "lc rgb '#c8c8c8' pt 0 title '95% interval', \\\n"
	             "     '' index 0 using ($8 == 0 ? $2 : NaN):5 with points lc rgb '#555555' "
	             "pt 6 ps 2.2 title 'misses the objective', \\\n"
	             "     '' index 1 using 1:2 with lines lc rgb '#1f4e79' lw 2 "
	             "title 'Pareto front', \\\n"
	             "     '' index 2 using 1:2 with points lc rgb '#2ca02c' pt 3 ps 4 lw 3 "
	             "title 'recommended'");
	for (g = 0; g < n_gpus; g++)
		for (k = 0; k < n_plans; k++)
			fs_sbuf_printf(&b, ", \\\n     '' index 0 using ($9 == %zu && $10 == %zu ? $2 : "
			               "NaN):5 with points lc rgb '%s' pt %d ps 1.6 notitle",
			               g, k, COLOURS[g], MARKERS[k]);
	fs_sbuf_puts(&b, ", \\\n     keyentry with points lc rgb 'white' pt 0 title 'colour = GPU type:'");
	for (g = 0; g < n_gpus; g++) {
		char t[200];

		snprintf(t, sizeof t, "  %s%s", gpus[g],
		         g == MAX_KINDS - 1 && n_gpus == MAX_KINDS ? " and others" : "");
		fs_sbuf_printf(&b, ", \\\n     keyentry with points lc rgb '%s' pt 5 ps 1.6 title ",
		               COLOURS[g]);
		fs_sbuf_gp(&b, t);
	}
	fs_sbuf_puts(&b, ", \\\n     keyentry with points lc rgb 'white' pt 0 title 'marker = pricing plan:'");
	for (k = 0; k < n_plans; k++) {
		char t[200];

		snprintf(t, sizeof t, "  %s%s", plans[k],
		         k == MAX_KINDS - 1 && n_plans == MAX_KINDS ? " and others" : "");
		fs_sbuf_printf(&b, ", \\\n     keyentry with points lc rgb '#333333' pt %d ps 1.6 "
		               "title ", MARKERS[k]);
		fs_sbuf_gp(&b, t);
	}
	fs_sbuf_puts(&b, "\n");
	snprintf(caption, sizeof caption,
	         "Cost against latency of every sweep point (colour: GPU type, marker: "
	         "pricing plan; 95%% intervals both ways); the Pareto front joined and "
	         "labelled, the objective's latency bound dashed red, the recommendation "
	         "starred.%s%s",
	         fr.ylog ? " Log cost axis: the costs span more than 20x." : "",
	         left_out ? " Some front labels left out for room (the table lists "
	                    "every point)." : "");
	rc = fs__plot_finish(r, "pareto", fs_sbuf_str(&b), caption, err);
	fs_sbuf_fini(&b);
	free(labels);
	free(texts);
	free(segs);
	free(pts);
	free(front);
	return rc;
}
