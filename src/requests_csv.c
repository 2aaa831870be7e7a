/*
 * requests_csv.c — requests.csv: one row per request of one replication,
 * in id order, written atomically.  Times in seconds (arrival) and ms
 * (latencies); a latency not reached (not scheduled, no first token, not
 * completed) is empty.  status: completed, failed, in_service, waiting.
 * session_id and turn: the request's session (0: none) and 0-based turn.
 * Class names are guarded against spreadsheet formulas (fs_csv_put).
 */
#include <stdio.h>
#include <string.h>

#include "fleetsim/escape.h"
#include "fleetsim/outfile.h"
#include "fleetsim/summary.h"
#include "recorder.h"

static void ms_or_empty(FILE *f, fs_ns from_ns, fs_ns to_ns)
{
	if (to_ns >= 0)
		fprintf(f, ",%.6f", (double)(to_ns - from_ns) / (double)FS_NS_PER_MS);
	else
		fputc(',', f);
}

static void put_row(FILE *f, const struct fs_request_row *row, const struct fs_scenario *sc)
{
	const char *status = row->completed ? "completed" :
	                     row->failed ? "failed" :
	                     row->start_ns >= 0 ? "in_service" : "waiting";

	fprintf(f, "%llu,", (unsigned long long)row->id);
	fs_csv_put(f, sc->workload.classes[row->class_idx].name, 0);
	fprintf(f, ",%s,%d,%.9f,%lld,%lld", status, row->counted ? 1 : 0,
	        (double)row->arrival_ns / (double)FS_NS_PER_S,
	        (long long)row->prompt_tokens, (long long)row->output_tokens);
	ms_or_empty(f, row->arrival_ns, row->start_ns);
	ms_or_empty(f, row->arrival_ns, row->first_token_ns);
	ms_or_empty(f, row->arrival_ns, row->end_ns);
	fprintf(f, ",%llu,%lu\n", (unsigned long long)row->session_id,
	        (unsigned long)row->turn);
}

int fs_requests_write_csv(const struct fs_rep_result *r, const struct fs_scenario *sc,
                          const char *path, struct fs_error *err)
{
	struct fs_outfile o;
	struct fs_request_row row;
	size_t i;

	if (fs_outfile_open(&o, path, err) != 0)
		return -1;
	fprintf(o.f, "id,class,status,counted,arrival_s,prompt_tokens,output_tokens,"
	        "queue_ms,ttft_ms,e2e_ms,session_id,turn\n");
	if (r->row_spool != NULL) {
		fs__row_spool_rewind(r->row_spool);
		while (fs__row_spool_read(r->row_spool, &row))
			put_row(o.f, &row, sc);
	} else {
		for (i = 0; i < r->n_rows; i++)
			put_row(o.f, &r->rows[i], sc);
	}
	return fs_outfile_commit(&o, err);
}
