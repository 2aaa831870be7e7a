/*
 * par_mpi_probe.c — a tiny MPI program for tests/test_par_mpi.c, built only
 * by `make MPI=1` (build-mpi/tests/par_mpi_probe) and run under
 * `mpirun -np N`.  Rank r contributes r + 1 text records keyed 100 * r + i
 * (the last one empty, to exercise zero-length records, when r > 0); rank 0
 * prints the gathered set, one "key len text" line per record after a
 * "size N mpi B" header, so the test can check keys, lengths and order.
 * With the argument "abort" the last rank calls fs_par_abort(5) while the
 * others wait in a barrier: every rank must go down with that status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/common.h"
#include "fleetsim/par.h"

int main(int argc, char **argv)
{
	int rank, size, i, n;
	char text[8][64];
	const char *data[8];
	size_t len[8], n_all, j;
	int key[8], *all_key;
	char **all_data;
	size_t *all_len;

	fs_par_init(&argc, &argv);
	rank = fs_par_rank();
	size = fs_par_size();
	if (argc > 1 && strcmp(argv[1], "abort") == 0) {
		if (rank == size - 1)
			fs_par_abort(5);
		fs_par_barrier();
		fs_par_finalize();
		return 0;
	}
	n = rank + 1 < 8 ? rank + 1 : 8;
	for (i = 0; i < n; i++) {
		if (rank > 0 && i == n - 1)
			text[i][0] = '\0';
		else
			snprintf(text[i], sizeof text[i], "rank%d-rec%d", rank, i);
		data[i] = text[i];
		len[i] = strlen(text[i]);
		key[i] = 100 * rank + i;
	}
	fs_par_gather(data, len, key, (size_t)n, &all_data, &all_len, &all_key, &n_all);
	fs_par_barrier();
	if (rank == 0) {
		printf("size %d mpi %d\n", size, fs_par_is_mpi() ? 1 : 0);
		for (j = 0; j < n_all; j++)
			printf("%d %zu %s\n", all_key[j], all_len[j], all_data[j]);
		fflush(stdout);
	} else if (n_all != 0 || all_data != NULL) {
		fprintf(stderr, "probe: rank %d received %zu records\n", rank, n_all);
		fs_par_abort(FS_EXIT_RUNTIME);
	}
	for (j = 0; j < n_all; j++)
		free(all_data[j]);
	free(all_data);
	free(all_len);
	free(all_key);
	fs_par_finalize();
	return 0;
}
