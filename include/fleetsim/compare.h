/*
 * compare.h — the same traffic under several configurations (a scenario's
 * variants, run with the same seed, so every variant sees the same arrivals,
 * lengths and spot draws): one row of headline figures per variant, printed
 * as a table and written as comparison.csv and comparison.json.  Rows own
 * their variant names; figures are copied out of each variant's summary.
 */
#ifndef FLEETSIM_COMPARE_H
#define FLEETSIM_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fleetsim/common.h"
#include "fleetsim/stats.h"
#include "fleetsim/summary.h"

struct fs_compare_row {
	char *variant;               /* "base" for the scenario as written */
	char currency[FS_CURRENCY_MAX];  /* of the money figures (MODEL: B9) */
	bool llm;                    /* cost figures exist */
	bool stable;
	struct fs_ci total_usd;
	struct fs_ci usd_per_hour;
	struct fs_ci monthly_usd;
	struct fs_ci usd_per_1m_output_tokens;
	struct fs_ci lost_usd;
	struct fs_ci slo_attainment; /* all traffic; NAN without SLOs */
	struct fs_ci ttft_p99_ms;
	struct fs_ci tpot_p99_ms;
	struct fs_ci e2e_p99_ms;
	struct fs_ci reclaims;       /* all pools */
	struct fs_ci failed;
	struct fs_ci lost_usd_monthly;       /* lost_usd projected to 730 h */
	struct fs_ci availability;           /* the fleet's (MODEL: F15) */
	struct fs_ci outage_min_per_month;   /* the fleet's (MODEL: F16) */
	struct fs_ci min_serving;            /* the fleet's fewest serving instances */
};

/* Fill a row from a summary (copying the variant name). */
void fs_compare_row_fill(struct fs_compare_row *row, const char *variant,
                         const struct fs_summary *s);
void fs_compare_row_fini(struct fs_compare_row *row);

void fs_compare_print(const struct fs_compare_row *rows, size_t n, FILE *out);

/* DIR/comparison.csv and DIR/comparison.json (atomic).  0, or -1 with err. */
int fs_compare_write(const struct fs_compare_row *rows, size_t n, const char *dir,
                     struct fs_error *err);

#endif
