/*
 * recorder_rows.c — the per-request rows of a recorder (see recorder.h):
 * rows wait in a min-heap on id until every lower id has its row, go to
 * result->rows while there are few, and past FS__ROWS_IN_MEMORY all of them
 * are streamed to an unlinked temporary file that the result owns from
 * fs__recorder_rows_finish on.  O(log waiting rows) per row.
 */
#include "recorder.h"

#include <stdlib.h>
#include <string.h>

static void spool_write(struct fs__row_spool *sp, const struct fs_request_row *row,
                        size_t n)
{
	if (fwrite(row, sizeof *row, n, sp->f) != n) {
		fprintf(stderr, "fleetsim: cannot write the per-request rows to a "
		        "temporary file\n");
		abort();
	}
}

/* Hand one row on in id order: to the in-memory array while it is short,
 * then (the array moved over first) to the spool. */
static void emit_row(struct fs_recorder *rec, const struct fs_request_row *row)
{
	struct fs_rep_result *r = rec->result;

	if (rec->spool == NULL && r->n_rows >= FS__ROWS_IN_MEMORY) {
		FILE *f = tmpfile();     /* unlinked: gone when closed or at exit */

		if (f != NULL) {         /* else the rows stay in memory */
			rec->spool = fs_xmalloc(sizeof *rec->spool);
			rec->spool->f = f;
			spool_write(rec->spool, r->rows, r->n_rows);
			free(r->rows);
			r->rows = NULL;
			rec->cap_rows = 0;
		}
	}
	if (rec->spool != NULL) {
		spool_write(rec->spool, row, 1);
	} else {
		fs_xgrow((void **)&r->rows, &rec->cap_rows, r->n_rows + 1, sizeof *r->rows);
		r->rows[r->n_rows] = *row;
	}
	r->n_rows++;
}

static void pend_push(struct fs_recorder *rec, const struct fs_request_row *row)
{
	size_t i;

	fs_xgrow((void **)&rec->pend, &rec->cap_pend, rec->n_pend + 1, sizeof *rec->pend);
	for (i = rec->n_pend++; i > 0 && rec->pend[(i - 1) / 2].id > row->id; i = (i - 1) / 2)
		rec->pend[i] = rec->pend[(i - 1) / 2];
	rec->pend[i] = *row;
}

static void pend_pop(struct fs_recorder *rec, struct fs_request_row *out)
{
	struct fs_request_row last;
	size_t i = 0;

	*out = rec->pend[0];
	last = rec->pend[--rec->n_pend];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= rec->n_pend)
			break;
		if (c + 1 < rec->n_pend && rec->pend[c + 1].id < rec->pend[c].id)
			c++;
		if (rec->pend[c].id >= last.id)
			break;
		rec->pend[i] = rec->pend[c];
		i = c;
	}
	if (rec->n_pend > 0)
		rec->pend[i] = last;
}

void fs__recorder_row_add(struct fs_recorder *rec, const struct fs_request_row *row)
{
	struct fs_request_row next;

	pend_push(rec, row);
	while (rec->n_pend > 0 && rec->pend[0].id == rec->next_id) {
		pend_pop(rec, &next);
		emit_row(rec, &next);
		rec->next_id++;
	}
}

void fs__recorder_rows_finish(struct fs_recorder *rec)
{
	struct fs_rep_result *r = rec->result;

	while (rec->n_pend > 0) {        /* ids with no row: the rest in id order */
		struct fs_request_row row;

		pend_pop(rec, &row);
		emit_row(rec, &row);
	}
	if (rec->spool != NULL) {
		if (fflush(rec->spool->f) != 0) {
			fprintf(stderr, "fleetsim: cannot write the per-request rows to a "
			        "temporary file\n");
			abort();
		}
		r->row_spool = rec->spool;   /* handed over with the result */
		rec->spool = NULL;
	}
}

void fs__recorder_rows_fini(struct fs_recorder *rec)
{
	free(rec->pend);
	rec->pend = NULL;
	rec->n_pend = rec->cap_pend = 0;
	fs__row_spool_close(rec->spool);
	rec->spool = NULL;
}

void fs__row_spool_close(struct fs__row_spool *sp)
{
	if (sp == NULL)
		return;
	fclose(sp->f);
	free(sp);
}

bool fs__row_spool_read(struct fs__row_spool *sp, struct fs_request_row *row)
{
	return fread(row, sizeof *row, 1, sp->f) == 1;
}

void fs__row_spool_rewind(struct fs__row_spool *sp)
{
	rewind(sp->f);
}
