/*
 * report_budget.c — `fleetsim report DIR` on a `fleetsim budget` output
 * directory: a one-page budget for management (the plan, cost per task,
 * per month and per pricing plan, the margin, the assumptions) from
 * DIR/budget.json, rendered by the report's own markdown and HTML writers.
 * No plots, so no gnuplot.  Everything is freed by fs__report_fini.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/out_format.h"
#include "report_internal.h"

/* In the order of the tables. */
static const char *const PLANS[] = {
	"on_demand", "spot", "daily", "weekly", "monthly", "yearly"
};
#define N_PLANS (sizeof PLANS / sizeof PLANS[0])

static const char *str_or(const char *s, const char *dflt)
{
	return s != NULL ? s : dflt;
}

/* A table of n columns with its head row. */
static struct fs__block *table_of(struct fs__report *r, const char *const *head, size_t n)
{
	struct fs__block *t = fs__doc_table(r, n);

	fs__doc_row(t, head);
	return t;
}

/* One table row from n (at most 10) cell buffers of 64 bytes. */
static void row_of(struct fs__block *t, char (*c)[64], int n)
{
	const char *cells[10];

	for (int i = 0; i < n; i++)
		cells[i] = c[i];
	fs__doc_row(t, cells);
}

/* budget.json of dir, or NULL with err. */
static cJSON *load_budget(const char *dir, struct fs_error *err)
{
	size_t n = strlen(dir) + 16, len = 0;
	char *path = fs_xmalloc(n), *text;
	cJSON *root = NULL;

	snprintf(path, n, "%s/budget.json", dir);
	text = fs_read_text(path, &len);
	if (text == NULL) {
		fs_error_set(err, path, NULL, "cannot read the budget");
		free(path);
		return NULL;
	}
	root = cJSON_ParseWithLength(text, len);
	if (!cJSON_IsObject(root) || strcmp(str_or(fs__jstr(root, "kind"), ""), "budget") != 0) {
		cJSON_Delete(root);
		root = NULL;
		fs_error_set(err, path, NULL, "expected a budget.json written by fleetsim budget");
	}
	free(text);
	free(path);
	return root;
}

static void plan_section(struct fs__report *r, const cJSON *b)
{
	static const char *const head[] = {
		"task", "type", "GPU", "cards", "starts (h)", "wall h", "runs", "card-hours"
	};
	struct fs__block *t;
	const cJSON *task;
	char c[8][64];

	fs__doc_heading(r, 2, "The plan");
	t = table_of(r, head, 8);
	cJSON_ArrayForEach(task, fs__jget(b, "tasks")) {
		snprintf(c[0], sizeof c[0], "%s", str_or(fs__jstr(task, "name"), "?"));
		snprintf(c[1], sizeof c[1], "%s", str_or(fs__jstr(task, "type"), "?"));
		snprintf(c[2], sizeof c[2], "%s", str_or(fs__jstr(task, "gpu"), "?"));
		snprintf(c[3], sizeof c[3], "%.0f", fs__jnum(task, "cards"));
		snprintf(c[4], sizeof c[4], "%.0f", fs__jnum(task, "start_h"));
		snprintf(c[5], sizeof c[5], "%.1f", fs__jnum(task, "wall_h"));
		snprintf(c[6], sizeof c[6], "%.0f", fs__jnum(task, "occurrences"));
		snprintf(c[7], sizeof c[7], "%.1f", fs__jnum(task, "card_h"));
		row_of(t, c, 8);
	}
	fs__doc_para(r, "Peak concurrent cards: %.0f; %.1f card-hours in all.",
	             fs__jnum(b, "totals.peak_cards"), fs__jnum(b, "totals.card_h"));
}

static void task_section(struct fs__report *r, const cJSON *b)
{
	static const char *const head[] = {
		"task", "cheapest plan", "GPU", "machine", "risk allowance", "with risk"
	};
	struct fs__block *t;
	const cJSON *task;
	char c[6][64];

	fs__doc_heading(r, 2, "Cost per task (%s)", r->currency);
	t = table_of(r, head, 6);
	cJSON_ArrayForEach(task, fs__jget(b, "tasks")) {
		double g = fs__jnum(task, "gpu_cost"), m = fs__jnum(task, "machine_cost");
		double k = fs__jnum(task, "risk_cost");

		snprintf(c[0], sizeof c[0], "%s", str_or(fs__jstr(task, "name"), "?"));
		snprintf(c[1], sizeof c[1], "%s", str_or(fs__jstr(task, "cheapest_plan"), "?"));
		fs_out_money(c[2], sizeof c[2], g);
		fs_out_money(c[3], sizeof c[3], m);
		fs_out_money(c[4], sizeof c[4], k);
		fs_out_money(c[5], sizeof c[5], g + m + k);
		row_of(t, c, 6);
	}
	fs__doc_para(r, "GPU cost is the task's share of its pool's cheapest arrangement "
	             "(shared by card-hours when the pool commits cards).");
}

static void month_section(struct fs__report *r, const cJSON *b)
{
	static const char *const head[] = { "month", "card-hours", "estimate", "with margin" };
	double est = fs__jnum(b, "totals.estimate"), planned = fs__jnum(b, "totals.planned");
	struct fs__block *t;
	const cJSON *m;
	char c[4][64];

	fs__doc_heading(r, 2, "Cost per month (%s)", r->currency);
	t = table_of(r, head, 4);
	cJSON_ArrayForEach(m, fs__jget(b, "months")) {
		double v = fs__jnum(m, "cost");

		snprintf(c[0], sizeof c[0], "%s", str_or(fs__jstr(m, "month"), "?"));
		snprintf(c[1], sizeof c[1], "%.1f", fs__jnum(m, "card_h"));
		fs_out_money(c[2], sizeof c[2], v);
		fs_out_money(c[3], sizeof c[3], est > 0 ? v * planned / est : NAN);
		row_of(t, c, 4);
	}
}

static void pricing_section(struct fs__report *r, const cJSON *b)
{
	static const char *const head[] = {
		"GPU", "peak cards", "per task", "on demand", "spot", "daily", "weekly",
		"monthly", "yearly", "cheapest"
	};
	struct fs__block *t;
	const cJSON *p;
	char c[10][64], key[64];

	fs__doc_heading(r, 2, "Cost per pricing plan (%s)", r->currency);
	t = table_of(r, head, 10);
	cJSON_ArrayForEach(p, fs__jget(b, "pools")) {
		snprintf(c[0], sizeof c[0], "%s", str_or(fs__jstr(p, "gpu"), "?"));
		snprintf(c[1], sizeof c[1], "%.0f", fs__jnum(p, "peak_cards"));
		fs_out_money(c[2], sizeof c[2], fs__jnum(p, "per_task_cost"));
		for (size_t k = 0; k < N_PLANS; k++) {
			double kc;

			snprintf(key, sizeof key, "plan_cost.%s", PLANS[k]);
			fs_out_money(c[3 + k], sizeof c[3 + k], fs__jnum(p, key));
			snprintf(key, sizeof key, "committed_cards.%s", PLANS[k]);
			kc = fs__jnum(p, key);
			if (isfinite(kc)) {
				size_t n = strlen(c[3 + k]);

				snprintf(c[3 + k] + n, sizeof c[3 + k] - n, " (%.0f committed)", kc);
			}
		}
		snprintf(c[9], sizeof c[9], "%s", strcmp(str_or(fs__jstr(p, "cheapest"), "?"),
		         "per_task") == 0 ? "each task on its own" :
		         str_or(fs__jstr(p, "cheapest"), "?"));
		row_of(t, c, 10);
	}
	fs__doc_para(r, "A commitment of K cards covers the pool's whole span in whole "
	             "periods; the use above K is paid on demand. \"per task\": each task "
	             "on its own cheapest plan.");
	cJSON_ArrayForEach(p, fs__jget(b, "pools")) {
		char line[512];
		size_t n = 0;

		for (size_t k = 2; k < N_PLANS; k++) {
			snprintf(key, sizeof key, "break_even_share.%s", PLANS[k]);
			if (isfinite(fs__jnum(p, key)))
				n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %.0f%%",
				                      n ? ", " : "", PLANS[k], 100 * fs__jnum(p, key));
			if (n >= sizeof line)
				break;
		}
		if (n > 0)
			fs__doc_item(r, "%s break-even utilisation (fee / (period hours x on-demand "
			             "price)): %s.", str_or(fs__jstr(p, "gpu"), "?"), line);
	}
}

static void margin_section(struct fs__report *r, const cJSON *b)
{
	char x[64];

	fs__doc_heading(r, 2, "Estimate and planning margin (%s)", r->currency);
	fs__doc_item(r, "GPU: %s", fs_out_money(x, sizeof x, fs__jnum(b, "totals.gpu_cost")));
	fs__doc_item(r, "Machine (disk, object storage, egress, add-ons): %s",
	             fs_out_money(x, sizeof x, fs__jnum(b, "totals.machine_cost")));
	fs__doc_item(r, "Estimate: %s",
	             fs_out_money(x, sizeof x, fs__jnum(b, "totals.estimate")));
	fs__doc_item(r, "Risk allowance (risk factor %.2f unless a task sets its own): %s",
	             fs__jnum(b, "assumptions.risk_factor"),
	             fs_out_money(x, sizeof x, fs__jnum(b, "totals.risk_cost")));
	fs__doc_item(r, "Buffer %.0f%% of estimate plus risk: %s",
	             100 * fs__jnum(b, "assumptions.buffer"),
	             fs_out_money(x, sizeof x, fs__jnum(b, "totals.buffer_cost")));
	fs__doc_item(r, "Planning margin: %s",
	             fs_out_money(x, sizeof x, fs__jnum(b, "totals.margin")));
	fs__doc_item(r, "Budget to request: %s",
	             fs_out_money(x, sizeof x, fs__jnum(b, "totals.planned")));
}

static void assumptions_section(struct fs__report *r, const cJSON *b)
{
	const cJSON *task;

	fs__doc_heading(r, 2, "Assumptions");
	fs__doc_item(r, "Spot costs %.0f%% more card-hours than on demand (interruptions, "
	             "checkpoints, restarts) for tasks without a simulated spot block; "
	             "serving never runs on spot unless its task allows it.",
	             100 * fs__jnum(b, "assumptions.spot_overhead"));
	fs__doc_item(r, "Data and weights move at %.3g Gbit/s (%.2f TB/h) at each task's "
	             "set-up.", fs__jnum(b, "assumptions.bandwidth_gbit_per_s"),
	             fs__jnum(b, "assumptions.transfer_tb_per_h"));
	fs__doc_item(r, "A month is %.0f hours for commitments; costs are spread over "
	             "months by card-hours.", fs__jnum(b, "assumptions.hours_per_month"));
	cJSON_ArrayForEach(task, fs__jget(b, "tasks")) {
		const char *name = str_or(fs__jstr(task, "name"), "?");

		if (fs__jget(task, "training") != NULL)
			fs__doc_item(r, "%s: %s fine-tuning of %s, %.3g tokens at MFU %.2f: %.3g "
			             "FLOP/token, %.1f h on one card; data-parallel efficiency "
			             "%.1f%% on %.0f cards (computed from the gradient all-reduce).",
			             name, str_or(fs__jstr(task, "training.method"), "?"),
			             str_or(fs__jstr(task, "model"), "?"),
			             fs__jnum(task, "training.tokens"), fs__jnum(task, "training.mfu"),
			             fs__jnum(task, "training.flops_per_token"),
			             fs__jnum(task, "training.one_card_h"),
			             100 * fs__jnum(task, "training.dp_efficiency"),
			             fs__jnum(task, "cards"));
		if (fs__jget(task, "training.memory_gb_per_card") != NULL)
			fs__doc_item(r, "%s: %.1f GB of training memory per card (recompute %s, "
			             "shard %s): fits.", name,
			             fs__jnum(task, "training.memory_gb_per_card"),
			             str_or(fs__jstr(task, "training.recompute"), "?"),
			             str_or(fs__jstr(task, "training.shard"), "?"));
		if (fs__jget(task, "training.spot") != NULL)
			fs__doc_item(r, "%s: on spot with checkpoints every %.2f h, simulated: "
			             "policy %s, mean cost %.2f, P(deadline met) %.3f, mean "
			             "completion %.1f h (replaces the flat spot overhead).", name,
			             fs__jnum(task, "training.spot.interval_h"),
			             str_or(fs__jstr(task, "training.spot.chosen"), "?"),
			             fs__jnum(task, "training.spot.cost"),
			             fs__jnum(task, "training.spot.p_deadline_met"),
			             fs__jnum(task, "training.spot.completion_h"));
		if (fs__jget(task, "training") != NULL)
			continue;
		if (fs__jget(task, "serving.from") != NULL)
			fs__doc_item(r, "%s: the fleet of the simulated run or sweep %s (%.0f "
			             "instances).",
			             name, str_or(fs__jstr(task, "serving.from"), "?"),
			             fs__jnum(task, "serving.instances"));
		else if (fs__jget(task, "serving") != NULL)
			fs__doc_item(r, "%s: %.0f requests/day, peak %.2f req/s, %.2f req/s per "
			             "instance from the step model -> %.0f instance(s).", name,
			             fs__jnum(task, "serving.requests_per_day"),
			             fs__jnum(task, "serving.peak_rps"),
			             fs__jnum(task, "serving.instance_rps"),
			             fs__jnum(task, "serving.instances"));
	}
	fs__doc_item(r, "Prices: the plan's own, else the catalogue's dated USD examples "
	             "(docs/CATALOG.md).");
}

int fs__report_budget(const char *dir, char *html_path, size_t html_len,
                      struct fs_error *err)
{
	struct fs__report r;
	char path[4096], x[64], y[64], z[64];
	cJSON *b;
	int rc = FS_EXIT_RUNTIME;

	memset(&r, 0, sizeof r);
	r.kind = FS_REPORT_BUDGET;
	r.dir = fs_xstrdup(dir);
	b = load_budget(dir, err);
	if (b == NULL) {
		fs__report_fini(&r);
		return FS_EXIT_INPUT;
	}
	snprintf(r.currency, sizeof r.currency, "%s", str_or(fs__jstr(b, "currency"), "USD"));
	fs__doc_heading(&r, 1, "Budget: %s", str_or(fs__jstr(b, "name"), "?"));
	if (fs__jstr(b, "description") != NULL && fs__jstr(b, "description")[0] != '\0')
		fs__doc_para(&r, "%s", fs__jstr(b, "description"));
	fs__doc_para(&r, "Budget to request: %s %s — the estimate %s plus a planning margin "
	             "of %s (risk factor and buffer)%s%s.", r.currency,
	             fs_out_money(x, sizeof x, fs__jnum(b, "totals.planned")),
	             fs_out_money(y, sizeof y, fs__jnum(b, "totals.estimate")),
	             fs_out_money(z, sizeof z, fs__jnum(b, "totals.margin")),
	             fs__jstr(b, "start") != NULL ? "; the plan starts " : "",
	             str_or(fs__jstr(b, "start"), ""));
	plan_section(&r, b);
	task_section(&r, b);
	month_section(&r, b);
	pricing_section(&r, b);
	margin_section(&r, b);
	assumptions_section(&r, b);
	snprintf(path, sizeof path, "%s/report.md", dir);
	if (fs__report_write_md(&r, path, err) == 0) {
		snprintf(path, sizeof path, "%s/report.html", dir);
		if (fs__report_write_html(&r, path, err) == 0) {
			if (html_len)
				snprintf(html_path, html_len, "%s", path);
			rc = FS_EXIT_OK;
		}
	}
	cJSON_Delete(b);
	fs__report_fini(&r);
	return rc;
}
