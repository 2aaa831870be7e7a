/*
 * fuzz_catalog.c — libFuzzer harness for the `--catalog FILE` loader
 * (fs_catalog_file_load): the input is the catalogue file.  Every GPU and
 * model of a loaded catalogue must be found again by its id; a failed load
 * must leave a message.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fleetsim/scenario.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_tmp_write(data, size);
	struct fs_error err = {{0}, {0}, {0}};
	struct fs_catalog_file *cf = fs_catalog_file_load(path, &err);
	size_t i;

	if (cf == NULL) {
		fuzz_check_error(&err, path);
		return 0;
	}
	for (i = 0; i < cf->n_gpus; i++)
		fuzz_check(fs_catalog_file_find_gpu(cf, cf->gpus[i].id) != NULL,
		           "a loaded GPU is found by its id");
	for (i = 0; i < cf->n_models; i++)
		fuzz_check(fs_catalog_file_find_model(cf, cf->models[i].id) != NULL,
		           "a loaded model is found by its id");
	(void)fs_catalog_file_suggest_gpu(cf, "h10");
	(void)fs_catalog_file_suggest_model(cf, "llama");
	fs_catalog_file_free(cf);
	return 0;
}
