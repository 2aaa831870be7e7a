/*
 * compare.c — variant comparison rows, their tables (horizon figures, then
 * per-month projections and availability apart) and files (see compare.h).
 * The reclaims figure is the sum of the pools' mean reclaims, without an
 * interval (the per-replication totals are not kept here).
 */
#include "fleetsim/compare.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "fleetsim/out_format.h"
#include "fleetsim/outfile.h"
#include "fleetsim/scenario.h"

void fs_compare_row_fill(struct fs_compare_row *row, const char *variant,
                         const struct fs_summary *s)
{
	const struct fs_group_summary *all = &s->groups[s->n_classes];
	struct fs_ci none = { .value = NAN, .ci_lo = NAN, .ci_hi = NAN, .half_width = NAN };
	size_t p;

	memset(row, 0, sizeof *row);
	row->variant = fs_xstrdup(variant);
	snprintf(row->currency, sizeof row->currency, "%s", s->currency);
	row->llm = s->llm;
	row->stable = s->unstable_replications == 0;
	row->total_usd = s->llm ? s->cost.total_usd : none;
	row->usd_per_hour = s->llm ? s->cost.usd_per_hour : none;
	row->monthly_usd = s->llm ? s->cost.monthly_usd : none;
	row->usd_per_1m_output_tokens = s->llm ? s->cost.usd_per_1m_output_tokens : none;
	row->lost_usd = s->llm ? s->cost.lost_usd : none;
	row->slo_attainment = all->has_slo ? all->slo_attainment : none;
	row->ttft_p99_ms = all->lat_ms[FS_LAT_TTFT][FS_QTY_P99];
	row->tpot_p99_ms = s->llm ? all->lat_ms[FS_LAT_TPOT][FS_QTY_P99] : none;
	row->e2e_p99_ms = all->lat_ms[FS_LAT_E2E][FS_QTY_P99];
	row->failed = all->failed;
	row->lost_usd_monthly = s->llm ? s->cost.lost_usd_monthly : none;
	row->availability = s->llm ? s->avail.availability : none;
	row->outage_min_per_month = s->llm ? s->avail.outage_min_per_month : none;
	row->min_serving = s->llm ? s->avail.min_serving : none;
	row->reclaims = none;
	if (s->llm) {
		row->reclaims.value = 0;
		for (p = 0; p < s->n_pools; p++)
			row->reclaims.value += s->pools[p].reclaims.value;
	}
}

void fs_compare_row_fini(struct fs_compare_row *row)
{
	free(row->variant);
	row->variant = NULL;
}

/* "value ± half" with `digits` decimals (none from 10,000 up), right-aligned
 * in width columns, always preceded by at least one space; "value [lo, hi]"
 * when an end was cut at a bound, "value (exact)" when every replication
 * gave the same value. */
static void cell(FILE *out, const struct fs_ci *ci, int width, int digits)
{
	char buf[160];
	int d = fabs(ci->value) >= 1e4 ? 0 : digits;
	int extra = 0;

	if (!isfinite(ci->value)) {
		snprintf(buf, sizeof buf, "-");
	} else if (!isfinite(ci->half_width)) {
		snprintf(buf, sizeof buf, "%.*f", d, ci->value);
	} else if (fs_stats_ci_exact(ci)) {
		snprintf(buf, sizeof buf, "%.*f (exact)", d, ci->value);
	} else if (fs_stats_ci_clipped(ci)) {
		snprintf(buf, sizeof buf, "%.*f [%.*f, %.*f]", d, ci->value, d, ci->ci_lo, d,
		         ci->ci_hi);
	} else {
		snprintf(buf, sizeof buf, "%.*f ± %.*f", d, ci->value, d, ci->half_width);
		extra = 1;                   /* "±" is two bytes, one column */
	}
	fprintf(out, " %*s", width - 1 + extra, buf);
}

void fs_compare_print(const struct fs_compare_row *rows, size_t n, FILE *out)
{
	const char *cur = n > 0 ? rows[0].currency : "USD";
	char total[32], per_tok[32], lost[32], month[32], lost_month[32];
	size_t i;

	snprintf(total, sizeof total, "total %s", cur);
	snprintf(per_tok, sizeof per_tok, "%s/1M tok", cur);
	snprintf(lost, sizeof lost, "lost %s", cur);
	snprintf(month, sizeof month, "%s/month", cur);
	snprintf(lost_month, sizeof lost_month, "lost %s/month", cur);
	fprintf(out, "\nvariants compared on the same traffic (same seed); mean ± "
	        "95%% CI half-width ([lo, hi] when cut at 0 or 1; exact: the same in "
	        "every replication)\n");
	fprintf(out, "over the simulated horizon (%s and reclaims of the whole run)\n", cur);
	fprintf(out, "%-24s %18s %16s %18s %16s %14s %10s %8s\n", "variant", total,
	        per_tok, "SLO attainment", "TTFT p99 ms", lost, "reclaims", "stable");
	for (i = 0; i < n; i++) {
		const struct fs_compare_row *r = &rows[i];

		fprintf(out, "%-24s ", r->variant);
		cell(out, &r->total_usd, 18, 2);
		cell(out, &r->usd_per_1m_output_tokens, 17, 3);
		cell(out, &r->slo_attainment, 19, 4);
		cell(out, &r->ttft_p99_ms, 17, 0);
		cell(out, &r->lost_usd, 15, 2);
		cell(out, &r->reclaims, 11, 1);
		fprintf(out, " %8s\n", r->stable ? "yes" : "NO");
	}
	/* Per-month projections in a table of their own (never beside horizon
	 * totals), with the fleet's availability (MODEL: F15, F16). */
	fprintf(out, "\nprojected to a 730-hour month, and availability of the fleet\n");
	fprintf(out, "%-24s %18s %16s %18s %16s %14s\n", "variant", month, lost_month,
	        "outage min/month", "availability", "min serving");
	for (i = 0; i < n; i++) {
		const struct fs_compare_row *r = &rows[i];

		fprintf(out, "%-24s ", r->variant);
		cell(out, &r->monthly_usd, 18, 0);
		cell(out, &r->lost_usd_monthly, 17, 2);
		cell(out, &r->outage_min_per_month, 19, 1);
		cell(out, &r->availability, 17, 4);
		cell(out, &r->min_serving, 15, 2);
		fputc('\n', out);
	}
}

struct column {
	const char *name;
	size_t offset;               /* of the struct fs_ci in the row */
};

static const struct column COLUMNS[] = {
	{ "total_cost", offsetof(struct fs_compare_row, total_usd) },
	{ "cost_per_hour", offsetof(struct fs_compare_row, usd_per_hour) },
	{ "monthly_cost_projected", offsetof(struct fs_compare_row, monthly_usd) },
	{ "cost_per_1m_output_tokens", offsetof(struct fs_compare_row, usd_per_1m_output_tokens) },
	{ "lost_to_reclaims", offsetof(struct fs_compare_row, lost_usd) },
	{ "slo_attainment", offsetof(struct fs_compare_row, slo_attainment) },
	{ "ttft_p99_ms", offsetof(struct fs_compare_row, ttft_p99_ms) },
	{ "tpot_p99_ms", offsetof(struct fs_compare_row, tpot_p99_ms) },
	{ "e2e_p99_ms", offsetof(struct fs_compare_row, e2e_p99_ms) },
	{ "reclaims", offsetof(struct fs_compare_row, reclaims) },
	{ "failed", offsetof(struct fs_compare_row, failed) },
	{ "lost_to_reclaims_monthly", offsetof(struct fs_compare_row, lost_usd_monthly) },
	{ "availability", offsetof(struct fs_compare_row, availability) },
	{ "outage_minutes_per_month", offsetof(struct fs_compare_row, outage_min_per_month) },
	{ "min_serving", offsetof(struct fs_compare_row, min_serving) },
};
#define N_COLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])

static const struct fs_ci *col(const struct fs_compare_row *r, size_t k)
{
	return (const struct fs_ci *)(const void *)((const char *)r + COLUMNS[k].offset);
}

static int write_csv(const struct fs_compare_row *rows, size_t n, const char *path,
                     struct fs_error *err)
{
	struct fs_outfile o;
	size_t i, k;

	if (fs_outfile_open(&o, path, err) != 0)
		return -1;
	fprintf(o.f, "variant,currency,stable");
	for (k = 0; k < N_COLUMNS; k++)
		fprintf(o.f, ",%s,%s_ci_lo,%s_ci_hi", COLUMNS[k].name, COLUMNS[k].name,
		        COLUMNS[k].name);
	fputc('\n', o.f);
	for (i = 0; i < n; i++) {
		/* Quoted, and guarded against spreadsheet formulas. */
		fs_csv_put(o.f, rows[i].variant, FS_CSV_QUOTE);
		fprintf(o.f, ",%s,%d", rows[i].currency, rows[i].stable ? 1 : 0);
		for (k = 0; k < N_COLUMNS; k++) {
			fs_csv_put_num(o.f, col(&rows[i], k)->value);
			fs_csv_put_num(o.f, col(&rows[i], k)->ci_lo);
			fs_csv_put_num(o.f, col(&rows[i], k)->ci_hi);
		}
		fputc('\n', o.f);
	}
	return fs_outfile_commit(&o, err);
}

static int write_json(const struct fs_compare_row *rows, size_t n, const char *path,
                      struct fs_error *err)
{
	cJSON *root = cJSON_CreateObject(), *list;
	char dir[256];
	size_t i, k;
	int rc;

	cJSON_AddStringToObject(root, "currency", n > 0 ? rows[0].currency : "USD");
	list = cJSON_AddArrayToObject(root, "variants");
	for (i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "variant", rows[i].variant);
		cJSON_AddStringToObject(o, "currency", rows[i].currency);
		cJSON_AddBoolToObject(o, "stable", rows[i].stable);
		for (k = 0; k < N_COLUMNS; k++) {
			cJSON *ci = cJSON_CreateObject();

			cJSON_AddItemToObject(ci, "value", fs_json_num(col(&rows[i], k)->value));
			cJSON_AddItemToObject(ci, "ci_lo", fs_json_num(col(&rows[i], k)->ci_lo));
			cJSON_AddItemToObject(ci, "ci_hi", fs_json_num(col(&rows[i], k)->ci_hi));
			cJSON_AddItemToObject(o, COLUMNS[k].name, ci);
		}
		/* Where `fleetsim run` wrote the variant (its name mapped to a
		 * directory name; the load refuses names that collide). */
		fs_scenario_variant_dir(rows[i].variant, dir, sizeof dir);
		cJSON_AddStringToObject(o, "directory", dir);
		cJSON_AddItemToArray(list, o);
	}
	rc = fs_outfile_write_json(path, root, err);
	cJSON_Delete(root);
	return rc;
}

int fs_compare_write(const struct fs_compare_row *rows, size_t n, const char *dir,
                     struct fs_error *err)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/comparison.csv", dir);
	if (write_csv(rows, n, path, err) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/comparison.json", dir);
	return write_json(rows, n, path, err);
}
