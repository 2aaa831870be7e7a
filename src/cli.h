/*
 * cli.h — internal: the subcommands of the fleetsim binary and the strict
 * option-value parsers they share.  Each subcommand returns an exit code
 * (enum fs_exit) and prints its own errors.
 */
#ifndef FLEETSIM_CLI_H
#define FLEETSIM_CLI_H

#include <stdint.h>

int fs__cli_run(int argc, char **argv);
int fs__cli_sweep(int argc, char **argv);
int fs__cli_validate(int argc, char **argv);
int fs__cli_catalog(int argc, char **argv);
int fs__cli_estimate(int argc, char **argv);
int fs__cli_report(int argc, char **argv);
int fs__cli_calibrate(int argc, char **argv);
int fs__cli_ckpt(int argc, char **argv);
int fs__cli_budget(int argc, char **argv);
int fs__cli_schema(int argc, char **argv);
int fs__cli_completion(int argc, char **argv);

/* One subcommand (src/cli_commands.c): its name, its entry point (argv[0]
 * is the command name) and what its operands are, for shell completion:
 * "json" scenario or plan files, "dir" a directory, "file" any file, ""
 * none, else the words it takes ("gpus models"). */
struct fs__cli_cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *operands;
};

/* The subcommands in the order `fleetsim help` lists them, ending with a
 * { NULL, NULL, NULL } entry; static storage. */
const struct fs__cli_cmd *fs__cli_commands(void);

/* The subcommand `name`, or NULL. */
const struct fs__cli_cmd *fs__cli_find(const char *name);

/* Parse a whole decimal integer in [lo, hi]; on failure prints
 * "fleetsim CMD: OPTION: expected ..., found "TEXT"" and returns -1. */
int fs__cli_parse_int(const char *cmd, const char *option, const char *text,
                      int64_t lo, int64_t hi, int64_t *out);

/* Parse a relative target such as "2%" or "0.02" into (0, 1); on failure
 * prints the error and returns -1. */
int fs__cli_parse_fraction(const char *cmd, const char *option, const char *text,
                           double *out);

/* "out/<file stem>" for a scenario path (heap): the file name without its
 * directory and last extension. */
char *fs__cli_default_out_dir(const char *scenario_path);

/* Print "fleetsim CMD: MESSAGE\nTry 'fleetsim CMD --help'." to stderr and
 * return FS_EXIT_INPUT. */
int fs__cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* `fleetsim estimate --train ...`: the fine-tuning memory fit
 * (src/cli_estimate_train.c); argv as fs__cli_estimate's. */
int fs__cli_estimate_train(int argc, char **argv);

/* Catalogue lookups of `fleetsim estimate`: `cf` (may be NULL) first, then
 * the built-ins; NULL after printing "unknown ..." with a suggestion. */
struct fs_catalog_file;
struct fs_gpu_spec;
struct fs_model_spec;
const struct fs_gpu_spec *fs__cli_estimate_find_gpu(const struct fs_catalog_file *cf,
                                                   const char *name);
const struct fs_model_spec *fs__cli_estimate_find_model(const struct fs_catalog_file *cf,
                                                        const char *name);

#endif
