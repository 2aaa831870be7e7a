/*
 * report_internal.h — shared between the report's files: the loaded output
 * directory (report_data.c), the plots (report_plots.c), a small document
 * model that report.c fills once and report_html.c / report_md.c render, so
 * both documents say the same.  Document text is stored raw; each renderer
 * escapes it for its language.  Everything here is owned by struct
 * fs__report and freed by fs__report_fini.
 */
#ifndef FLEETSIM_REPORT_INTERNAL_H
#define FLEETSIM_REPORT_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "fleetsim/common.h"
#include "fleetsim/report.h"

struct fs_outset;

/* A CSV file: row-major cells, row 0 not included (head holds it). */
struct fs__csv {
	size_t n_cols;
	size_t n_rows;
	char **head;                 /* n_cols names */
	char **cells;                /* n_rows * n_cols, unquoted */
};

/* A figure with its 95% interval (NAN when absent). */
struct fs__ci {
	double value;
	double lo;
	double hi;
};

/* One variant of a variants directory. */
struct fs__variant {
	char *name;
	const cJSON *row;            /* its object in comparison.json (borrowed) */
	cJSON *summary;              /* DIR/<name>/summary.json, NULL if missing */
	char *dir;                   /* DIR/<name> */
	struct fs__ci monthly_usd;
	struct fs__ci ttft_p99_ms;
	struct fs__ci slo_attainment;
	struct fs__ci p_slo_met;     /* from its summary.json */
	bool stable;
	bool meets;                  /* stable and P(SLO met) proven >= the target */
	int verdict;                 /* enum fs_share_verdict of P(SLO met) (M7) */
	size_t needed;               /* replications that would decide it; 0: none */
};

enum fs__block_kind { FS__BLK_HEADING, FS__BLK_PARA, FS__BLK_ITEM, FS__BLK_TABLE,
                      FS__BLK_IMAGE };

struct fs__block {
	enum fs__block_kind kind;
	int level;                   /* heading level 1..3 */
	char *text;                  /* heading, paragraph, item, image caption */
	char *image;                 /* plot name: plots/<image>.png / .svg */
	size_t n_cols;               /* table: columns */
	size_t n_rows;               /* table: rows, the header included */
	char **cells;                /* table: row-major, n_rows * n_cols */
};

struct fs__plot {
	char name[64];               /* file stem under plots/ */
	char caption[512];           /* raw text */
};

struct fs__report {
	enum fs_report_kind kind;
	char *dir;
	char *plots_dir;             /* DIR/plots */
	struct fs_outset *plot_set;  /* borrowed from report.c: the plots being
	                              * drawn, staged inside DIR/plots until
	                              * they move into place with report.md and
	                              * report.html, all or none */
	const char *gnuplot;         /* gnuplot executable */
	char *style;                 /* plots/style.gp text (owned) */
	char style_from[4200];       /* where it was read, or "built-in" */
	char currency[16];           /* label of every money figure ("USD") */
	cJSON *scenario;             /* resolved scenario (run dir / base / sweep) */
	cJSON *summary;              /* run: summary.json; variants: recommended's */
	cJSON *comparison;
	cJSON *sweep;
	cJSON *best;
	cJSON *best_point;           /* sweep: points/<best>.json, or NULL */
	struct fs__csv *timeseries;  /* run / recommended variant, or NULL */
	struct fs__csv *latency_cdf; /* run dir, or NULL */
	struct fs__csv *sweep_cdf;   /* sweep dir, or NULL */
	struct fs__variant *variants;
	size_t n_variants;
	size_t rec;                  /* recommended variant (variants dir) */
	bool have_rec;               /* some variant is proven to meet its SLO target */
	bool rec_undecided;          /* none is: rec is the cheapest undecided one
	                              * whose observed P(SLO met) reaches the target */
	size_t base;                 /* the "base" variant's index (or 0) */
	double p_target;             /* P(SLO met) a variant needs */
	struct fs__plot plots[16];
	size_t n_plots;
	char skipped[1024];          /* "plot: why; ..." for plots left out */
	struct fs__block *blocks;
	size_t n_blocks;
	size_t cap_blocks;
	struct fs__first *first;     /* report_first.c: the recommended scenario
	                              * and its headroom (owned), or NULL */

	bool rerun_cached;           /* sweep: DIR/recommended was reused */
};

/* report_data.c */
int fs__report_load(struct fs__report *r, const char *dir, struct fs_error *err);
void fs__report_fini(struct fs__report *r);
struct fs__csv *fs__csv_load(const char *path, struct fs_error *err);
void fs__csv_free(struct fs__csv *c);
/* Column index of name, or -1. */
int fs__csv_col(const struct fs__csv *c, const char *name);
const char *fs__csv_cell(const struct fs__csv *c, size_t row, size_t col);
double fs__csv_num(const struct fs__csv *c, size_t row, size_t col);
/* DIR/name parsed as JSON (caller frees); NULL with err when it cannot be
 * read or is not JSON. */
cJSON *fs__json_load(const char *dir, const char *name, struct fs_error *err);
/* Dotted path lookup ("cost.by_pricing.spot"); NULL when absent. */
const cJSON *fs__jget(const cJSON *root, const char *path);
/* Number at path (NAN when absent or not a number). */
double fs__jnum(const cJSON *root, const char *path);
/* String at path (NULL when absent). */
const char *fs__jstr(const cJSON *root, const char *path);
/* {value, ci_lo, ci_hi} at path (NANs when absent). */
struct fs__ci fs__jci(const cJSON *root, const char *path);

/* A short label of a sweep point from its "set" object: the last path
 * component of each key with its value, "pricing=spot, count=2". */
void fs__short_label(const cJSON *set, char *buf, size_t len);
/* The sweep point object of sweep.json with that number, or NULL. */
cJSON *fs__sweep_point(const struct fs__report *r, int point);
/* The latency the Pareto front uses, in words ("p99 TTFT (ms), all traffic"),
 * and its SLO bound in ms (NAN when the objective has no such constraint). */
void fs__pareto_axis(const struct fs__report *r, char *buf, size_t len,
                     double *bound_ms);

/* report_plots.c: every plot that has data; skipped ones noted in r->skipped.
 * 0, or -1 with err (I/O or gnuplot failure). */
int fs__report_plots(struct fs__report *r, struct fs_error *err);

/* Helpers shared by the plot files (report_plots.c). */
#define FS__MAX_SERIES 32
struct fs_sbuf;
void fs__plot_skip(struct fs__report *r, const char *name, const char *why);
/* DIR/plots/<name>.<ext> from b, atomically. */
int fs__plot_write(const struct fs__report *r, const char *name, const char *ext,
                   const struct fs_sbuf *b, struct fs_error *err);
/* Script <name>.gp drawing body as PNG then SVG; runs gnuplot; records it. */
int fs__plot_finish(struct fs__report *r, const char *name, const char *body,
                    const char *caption, struct fs_error *err);
void fs__plot_body_start(const struct fs__report *r, struct fs_sbuf *b);
/* Find and read the plot style template (plots/style.gp) into r->style. */
void fs__plot_load_style(struct fs__report *r);
/* x range (log scale when the values span more than 20x). */
void fs__plot_x_latency(struct fs_sbuf *b, double min_v, double max_v);

/* report_plot_labels.c: a frame pinned in screen fractions with its axis
 * ranges, and labels placed so they neither clip nor overlap. */
struct fs__frame {
	double left, right, bottom, top;   /* frame, fractions of the canvas */
	double xmin, xmax, ymin, ymax;     /* axis ranges (data units) */
	bool xlog, ylog;
};
struct fs__label {
	const char *text;            /* raw (escaped when emitted) */
	double x, y;                 /* the point it names (data units) */
	const char *colour;          /* "#rrggbb", NULL: black */
	bool bold;
	/* filled by fs__labels_place */
	bool placed, right, leader, boxed;
	double gx, gy;               /* anchor, graph fractions */
	double lgx, lgy;             /* where a leader leaves the text */
};
/* A line segment of the plot labels must keep clear of (x0 == x1 and
 * y0 == y1: a point marker), data units. */
struct fs__seg {
	double x0, y0, x1, y1;
};
/* Margins, log flags and ranges of f as gnuplot commands. */
void fs__frame_emit(struct fs_sbuf *b, const struct fs__frame *f);
/* Tics 1, 2, 5 per decade on a log axis ('x' or 'y') over [lo, hi], with
 * their values written out. */
void fs__plot_log_tics(struct fs_sbuf *b, char axis, double lo, double hi);
/* Pixel position (x right, y up) of a data point on the 1200 x 700 canvas. */
void fs__frame_px(const struct fs__frame *f, double x, double y, double *px, double *py);
/* Place labels in order (the first has priority) clear of the segments
 * (points, lines, error bars) and of each other, inside the frame; emit
 * `set label` (and a leader `set arrow` for a distant one) numbered from
 * first_tag.  Returns how many labels found no room (left out). */
size_t fs__labels_place(const struct fs__frame *f, const struct fs__seg *segs, size_t n_segs,
                        struct fs__label *labels, size_t n_labels, int first_tag,
                        struct fs_sbuf *b);

/* report_plots_cdf.c: latency CDFs with SLO lines and their tails. */
int fs__plot_cdf_run(struct fs__report *r, struct fs_error *err);
int fs__plot_cdf_variants(struct fs__report *r, struct fs_error *err);
int fs__plot_cdf_sweep(struct fs__report *r, struct fs_error *err);

/* report_plots_pareto.c: the sweep's cost vs latency plot. */
int fs__plot_pareto_sweep(struct fs__report *r, struct fs_error *err);

/* report_plots_fleet.c: time series and cost (run dir / a variant). */
int fs__plot_timeline(struct fs__report *r, const struct fs__csv *ts, const char *name,
                      const char *variant, struct fs_error *err);
int fs__plot_utilization(struct fs__report *r, struct fs_error *err);
int fs__plot_cost(struct fs__report *r, struct fs_error *err);

/* report_plots_conc.c: TTFT and throughput against closed-loop users
 * (a sweep over users; skipped otherwise). */
int fs__plot_concurrency(struct fs__report *r, struct fs_error *err);

/* report_plots_reps.c: the total cost of every replication (run dir, variants). */
int fs__plot_cost_per_rep(struct fs__report *r, struct fs_error *err);

/* report.c: the document blocks. */
void fs__doc_heading(struct fs__report *r, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fs__doc_para(struct fs__report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fs__doc_item(struct fs__report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fs__doc_image(struct fs__report *r, const char *name, const char *caption);
/* A table of n_cols columns; rows are appended with fs__doc_row (n_cols
 * strings each, copied). */
struct fs__block *fs__doc_table(struct fs__report *r, size_t n_cols);
void fs__doc_row(struct fs__block *t, const char *const *cells);

/* report_words.c: figures in words, written into buf (returned). */
const char *fs__num_text(char *buf, size_t len, double v);
/* "1153 [1100, 1200]", "2.80 (same in every replication)", "n/a". */
const char *fs__ci_text(char *buf, size_t len, struct fs__ci ci);
/* The same in percent of a share. */
const char *fs__pct_ci_text(char *buf, size_t len, struct fs__ci ci);
/* enum fs_share_verdict in words, with the replications needed when undecided. */
const char *fs__verdict_text(char *buf, size_t len, int verdict, size_t needed);
/* A signed difference: "costs USD 12.30 more" / "... less" / "costs the same". */
const char *fs__diff_text(char *buf, size_t len, double diff, const char *unit);

/* summary.json's verdict on P(SLO met) in words ("yes", "no", "undecided:
 * 35 replications would decide it") and its label; 0 when it has none. */
int fs__slo_verdict_text(const cJSON *s, char *words, size_t len, char *label, size_t llen);
/* MODEL: F15-F18 — summary.json's fleet availability in words (len bytes
 * each): the share of the time with the wanted instances serving, and the
 * outage minutes per month with fewer and with none serving. */
void fs__availability_texts(const cJSON *s, char *share, char *outage, char *total,
                            size_t len);

/* report_alternatives.c: sections 3 (the alternatives) and 4 (the risk). */
void fs__report_alternatives(struct fs__report *r);
void fs__report_risk(struct fs__report *r);

/* report_first.c: the first section, the answer in plain words (plan,
 * cost and budget, headroom, availability, the simulated hours against the
 * daily peak, confidence).  Runs the headroom search unless DIR/headroom.json
 * holds it for the same scenario, seed and replications (then it reuses it);
 * fs__report_first_fini frees what it keeps. */
void fs__report_first(struct fs__report *r);
void fs__report_first_fini(struct fs__report *r);

/* report_rerun.c: a sweep's recommended point run again with time series
 * into DIR/recommended (reused while its source.json still matches
 * best.json); loads its summary.json into r->summary and timeseries.csv
 * into r->timeseries.  0, or -1 with err. */
#define FS__RERUN_DIR "recommended"
int fs__report_rerun_best(struct fs__report *r, struct fs_error *err);

/* report_gpus.c: the facts of each GPU the run used (engine, pools, sweep
 * axes over a gpu), in order of first use, at most max (and at most
 * FS__REPORT_MAX_GPUS) into out; returns how many.  From the run's
 * scenario.json when it records them (complete "catalog.gpus" entries),
 * else from this binary's built-in catalogue; strings are borrowed from
 * r->scenario or the built-in tables, prices NAN when unknown. */
#define FS__REPORT_MAX_GPUS 32
enum fs__gpu_from {
	FS__GPU_FROM_RUN,            /* the run's scenario.json */
	FS__GPU_FROM_BINARY,         /* an older run: this binary's catalogue */
	FS__GPU_UNKNOWN              /* an older run's own GPU: no facts known */
};
struct fs__gpu_facts {
	const char *name;            /* as the scenario names it */
	enum fs__gpu_from from;
	const char *id, *display_name;
	double on_demand_usd_per_h, spot_usd_per_h, monthly_usd;
	const char *price_date, *price_source, *spec_source, *notes;
};
size_t fs__report_gpu_facts(const struct fs__report *r, struct fs__gpu_facts *out, size_t max);

/* report_content.c: fill the document from the loaded data and plots. */
void fs__report_content(struct fs__report *r);

/* report_budget.c: the one-page budget of a fleetsim budget directory
 * (DIR/budget.json): report.md and report.html, no plots.  Returns as
 * fs_report_build does. */
int fs__report_budget(const char *dir, char *html_path, size_t html_len,
                      struct fs_error *err);

/* report_html.c, report_md.c: render the document into DIR (atomic). */
int fs__report_write_html(const struct fs__report *r, const char *path,
                          struct fs_error *err);
int fs__report_write_md(const struct fs__report *r, const char *path,
                        struct fs_error *err);

#endif
