/*
 * par.h — work spread over processes.  Without MPI (the default build) there
 * is one process of rank 0 and every call is trivial; with `make MPI=1`
 * (src/par_mpi.c) the sweep's points are dealt out over MPI ranks and rank 0
 * collects every finished point's record.  Records are opaque byte strings,
 * so rank 0 writes exactly what a single process would.
 */
#ifndef FLEETSIM_PAR_H
#define FLEETSIM_PAR_H

#include <stdbool.h>
#include <stddef.h>

/* Start / stop (MPI_Init / MPI_Finalize under MPI).  Call once from main. */
void fs_par_init(int *argc, char ***argv);
void fs_par_finalize(void);

int fs_par_rank(void);
int fs_par_size(void);
bool fs_par_is_mpi(void);            /* built with MPI */

/*
 * Collect variable-length byte records on rank 0.  Every rank passes its
 * records (n of them, record i of len[i] bytes, each tagged with an integer
 * key such as a point index); rank 0 receives all ranks' records into heap
 * arrays (*all_data[i], *all_len[i], *all_key[i], *n_all; the caller frees
 * each data pointer and the three arrays); other ranks get n_all 0.  The
 * order is by rank, then by the order given.  Collective: every rank calls it.
 */
void fs_par_gather(const char *const *data, const size_t *len, const int *key, size_t n,
                   char ***all_data, size_t **all_len, int **all_key, size_t *n_all);

/* All ranks wait for each other. */
void fs_par_barrier(void);

/* Abort every rank (MPI_Abort) or exit, with status. */
void fs_par_abort(int status);

#endif
