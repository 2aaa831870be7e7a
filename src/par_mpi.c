/*
 * par_mpi.c — include/fleetsim/par.h over MPI (built only by `make MPI=1`,
 * which defines FS_MPI and leaves src/par_serial.c out).  Ranks and size come
 * from MPI_COMM_WORLD.  Only the main thread calls MPI (OpenMP threads never
 * do), so MPI_THREAD_FUNNELED is requested.  MPI's default error handler,
 * MPI_ERRORS_ARE_FATAL, stays in place: an MPI failure aborts every rank, so
 * no call here returns an MPI error code.  Gathered records are owned by the
 * caller on rank 0.
 */
#ifndef FS_MPI
#error "src/par_mpi.c is built only by make MPI=1 (src/par_serial.c otherwise)"
#endif

#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"
#include "fleetsim/par.h"

/* Whether fs_par_init started MPI (and so fs_par_finalize must stop it). */
static bool started_here;

static bool mpi_running(void)
{
	int inited = 0, finalized = 0;

	MPI_Initialized(&inited);
	if (!inited)
		return false;
	MPI_Finalized(&finalized);
	return !finalized;
}

/* Starts MPI unless something (a test harness, a library) already did. */
void fs_par_init(int *argc, char ***argv)
{
	int inited = 0, provided = 0;

	MPI_Initialized(&inited);
	if (inited)
		return;
	MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
	started_here = true;
}

/* Stops MPI if fs_par_init started it; a second call does nothing. */
void fs_par_finalize(void)
{
	if (started_here && mpi_running())
		MPI_Finalize();
	started_here = false;
}

/* Before fs_par_init (or after finalize) the process acts as rank 0 of 1. */
int fs_par_rank(void)
{
	int rank = 0;

	if (mpi_running())
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	return rank;
}

int fs_par_size(void)
{
	int size = 1;

	if (mpi_running())
		MPI_Comm_size(MPI_COMM_WORLD, &size);
	return size;
}

bool fs_par_is_mpi(void)
{
	return true;
}

/* MPI counts and displacements are int: refuse (on every rank) what does
 * not fit rather than wrap. */
static int to_count(size_t n, const char *what)
{
	if (n > (size_t)INT_MAX) {
		fprintf(stderr, "fleetsim: rank %d: %s (%zu) exceeds the MPI limit of %d\n",
		        fs_par_rank(), what, n, INT_MAX);
		fs_par_abort(FS_EXIT_RUNTIME);
	}
	return (int)n;
}

/*
 * Three collectives: an MPI_Gather of each rank's (record count, byte
 * count), then MPI_Gatherv of the keys, the lengths (as uint64) and the
 * concatenated bytes.  Concatenating in rank order gives the documented
 * order (by rank, then as given).  Rank 0 splits the bytes into one heap
 * string per record, NUL-terminated (the NUL is not counted in its length).
 * O(total bytes) on rank 0, O(own bytes) elsewhere.  All ranks' totals must
 * stay under INT_MAX records and INT_MAX bytes (else every rank aborts).
 */
void fs_par_gather(const char *const *data, const size_t *len, const int *key, size_t n,
                   char ***all_data, size_t **all_len, int **all_key, size_t *n_all)
{
	int rank = fs_par_rank(), size = fs_par_size();
	size_t i, own_bytes = 0, off;
	int mine[2], *counts = NULL, *n_rec = NULL, *n_byte = NULL;
	int *rec_displ = NULL, *byte_displ = NULL;
	uint64_t *own_len64, *len64 = NULL;
	char *own_buf, *buf = NULL;
	size_t tot_rec = 0, tot_bytes = 0;
	int r;

	*all_data = NULL;
	*all_len = NULL;
	*all_key = NULL;
	*n_all = 0;

	own_len64 = fs_xmalloc((n > 0 ? n : 1) * sizeof *own_len64);
	for (i = 0; i < n; i++) {
		own_len64[i] = len[i];
		own_bytes += len[i];
	}
	own_buf = fs_xmalloc(own_bytes > 0 ? own_bytes : 1);
	for (i = 0, off = 0; i < n; off += len[i], i++)
		if (len[i] > 0)
			memcpy(own_buf + off, data[i], len[i]);
	mine[0] = to_count(n, "records on one rank");
	mine[1] = to_count(own_bytes, "record bytes on one rank");

	if (rank == 0) {
		counts = fs_xmalloc(2 * (size_t)size * sizeof *counts);
		n_rec = fs_xmalloc((size_t)size * sizeof *n_rec);
		n_byte = fs_xmalloc((size_t)size * sizeof *n_byte);
		rec_displ = fs_xmalloc((size_t)size * sizeof *rec_displ);
		byte_displ = fs_xmalloc((size_t)size * sizeof *byte_displ);
	}
	MPI_Gather(mine, 2, MPI_INT, counts, 2, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (r = 0; r < size; r++) {
			n_rec[r] = counts[2 * r];
			n_byte[r] = counts[2 * r + 1];
			rec_displ[r] = to_count(tot_rec, "records on all ranks");
			byte_displ[r] = to_count(tot_bytes, "record bytes on all ranks");
			tot_rec += (size_t)n_rec[r];
			tot_bytes += (size_t)n_byte[r];
		}
		(void)to_count(tot_rec, "records on all ranks");
		(void)to_count(tot_bytes, "record bytes on all ranks");
		*all_key = fs_xmalloc((tot_rec > 0 ? tot_rec : 1) * sizeof **all_key);
		len64 = fs_xmalloc((tot_rec > 0 ? tot_rec : 1) * sizeof *len64);
		buf = fs_xmalloc(tot_bytes > 0 ? tot_bytes : 1);
	}
	/* A rank with no records still passes a valid (unread) pointer. */
	MPI_Gatherv(n > 0 ? key : mine, mine[0], MPI_INT,
	            *all_key, n_rec, rec_displ, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Gatherv(own_len64, mine[0], MPI_UINT64_T,
	            len64, n_rec, rec_displ, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	MPI_Gatherv(own_buf, mine[1], MPI_BYTE,
	            buf, n_byte, byte_displ, MPI_BYTE, 0, MPI_COMM_WORLD);

	if (rank == 0) {
		*all_data = fs_xmalloc((tot_rec > 0 ? tot_rec : 1) * sizeof **all_data);
		*all_len = fs_xmalloc((tot_rec > 0 ? tot_rec : 1) * sizeof **all_len);
		for (i = 0, off = 0; i < tot_rec; off += (size_t)len64[i], i++) {
			size_t l = (size_t)len64[i];

			(*all_data)[i] = fs_xmalloc(l + 1);
			if (l > 0)
				memcpy((*all_data)[i], buf + off, l);
			(*all_data)[i][l] = '\0';
			(*all_len)[i] = l;
		}
		*n_all = tot_rec;
	}
	free(own_len64);
	free(own_buf);
	free(counts);
	free(n_rec);
	free(n_byte);
	free(rec_displ);
	free(byte_displ);
	free(len64);
	free(buf);
}

void fs_par_barrier(void)
{
	if (mpi_running())
		MPI_Barrier(MPI_COMM_WORLD);
}

/* Takes every rank down with status; without a running MPI, just exits. */
void fs_par_abort(int status)
{
	fflush(stdout);
	fflush(stderr);
	if (mpi_running())
		MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}
