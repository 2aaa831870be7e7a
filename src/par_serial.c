/*
 * par_serial.c — include/fleetsim/par.h without MPI (the default build): one
 * process of rank 0, size 1.  The gather copies the caller's records into
 * fresh heap arrays that the caller owns, so code written for MPI needs no
 * special case.  src/par_mpi.c replaces this file under `make MPI=1`.
 */
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"
#include "fleetsim/par.h"

void fs_par_init(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

void fs_par_finalize(void)
{
}

int fs_par_rank(void)
{
	return 0;
}

int fs_par_size(void)
{
	return 1;
}

bool fs_par_is_mpi(void)
{
	return false;
}

/*
 * One rank: the gathered set is the given set, in the given order.  Each
 * record is copied (plus a NUL byte after it, not counted in its length, so
 * text records can be printed directly).  O(total bytes).  With n == 0 the
 * three arrays are still heap blocks (possibly zero-sized), safe to free.
 */
void fs_par_gather(const char *const *data, const size_t *len, const int *key, size_t n,
                   char ***all_data, size_t **all_len, int **all_key, size_t *n_all)
{
	size_t i, n_alloc = n > 0 ? n : 1;

	*all_data = fs_xcalloc(n_alloc, sizeof **all_data);
	*all_len = fs_xcalloc(n_alloc, sizeof **all_len);
	*all_key = fs_xcalloc(n_alloc, sizeof **all_key);
	for (i = 0; i < n; i++) {
		(*all_data)[i] = fs_xmalloc(len[i] + 1);
		if (len[i] > 0)
			memcpy((*all_data)[i], data[i], len[i]);
		(*all_data)[i][len[i]] = '\0';
		(*all_len)[i] = len[i];
		(*all_key)[i] = key[i];
	}
	*n_all = n;
}

void fs_par_barrier(void)
{
}

void fs_par_abort(int status)
{
	exit(status);
}
