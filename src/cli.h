/*
 * cli.h — internal: the subcommands of the fleetsim binary and the strict
 * option-value parsers they share.  Each subcommand returns an exit code
 * (enum fs_exit) and prints its own errors.
 */
#ifndef FLEETSIM_CLI_H
#define FLEETSIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
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

/* Check, before any work, that dir holds no other command's output: a
 * run's summary.json or comparison.json, a sweep's sweep.json, a budget's
 * budget.json, a checkpoint study's checkpoint.json.  Writing into it
 * would mix two outputs, and `fleetsim report` would read the other one.
 * 0, or -1 with err naming the directory and what it holds. */
struct fs_error;
int fs__cli_check_own_dir(const char *cmd, const char *dir, struct fs_error *err);

/* getopt_long(argc, argv, shortopts, longopts, NULL), except that a long
 * option must be spelt in full: glibc also takes an unambiguous prefix
 * ("--repl" for "--replications"), which no help text lists and a later
 * option could make ambiguous.  A prefix comes back as '?' with optind just
 * past it, so the caller reports argv[optind - 1] as an unknown option. */
struct option;
int fs__cli_getopt(int argc, char **argv, const char *shortopts,
                   const struct option *longopts);

/* For the commands that read their words by hand (estimate, validate,
 * catalog): "--NAME=VALUE" with --NAME one of `valued` (NULL-terminated)
 * is split as getopt_long splits it for the others: "--NAME" copied into
 * name (len bytes) and VALUE returned (possibly "").  Any other word gives
 * NULL and name is untouched: a flag, an option whose value is the next
 * word, or an unknown option, reported whole ("--json=1", like
 * fs__cli_getopt's callers). */
const char *fs__cli_split_long(const char *word, const char *const *valued, char *name,
                               size_t len);

/* Print "fleetsim CMD: MESSAGE\nTry 'fleetsim CMD --help'." to stderr and
 * return FS_EXIT_INPUT. */
int fs__cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The options `fleetsim run` and `fleetsim checkpoint` share: -o DIR,
 * -r REPS, -j THREADS and --seed N (getopt_long value FS__CLI_OPT_SEED). */
enum { FS__CLI_OPT_SEED = 256 };
struct fs__cli_run_opts {
	const char *out_dir;         /* -o; NULL: out/<file stem> */
	int64_t replications;        /* -r; 0: from the file */
	int64_t threads;             /* -j; 0: default */
	int64_t seed;                /* --seed; -1: from the file */
};

/* Their getopt_long entries (struct option, <getopt.h>). */
#define FS__CLI_RUN_LONGOPTS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "replications", required_argument, NULL, 'r' }, \
	{ "threads", required_argument, NULL, 'j' }, \
	{ "seed", required_argument, NULL, FS__CLI_OPT_SEED }

/* Empty options (no output directory, replications and threads 0, seed
 * -1), and getopt reset to parse a subcommand's argv from its first
 * option with its own messages off (optind 1, opterr 0). */
void fs__cli_run_opts_begin(struct fs__cli_run_opts *o);

/* One getopt_long result `c` (optarg and optind as it left them) that the
 * caller's own switch did not take: -o, -r (1 to max_reps), -j, --seed,
 * a missing value (':') or an unknown option.  Returns 0 when stored, else
 * prints the error and returns FS_EXIT_INPUT. */
int fs__cli_run_option(const char *cmd, int c, int64_t max_reps, char **argv,
                       struct fs__cli_run_opts *o);

/* The one operand after the options (argv[optind]) into *path; with none
 * prints `missing`, with a second prints `second` then the second operand
 * in quotes; returns 0 or FS_EXIT_INPUT. */
int fs__cli_one_operand(const char *cmd, int argc, char **argv, const char *missing,
                        const char *second, const char **path);

/* The output directory (heap): `out_dir` when given, else out/<file stem>
 * of `path`. */
char *fs__cli_out_dir(const char *out_dir, const char *path);

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

/* The catalogue file and the model of `fleetsim estimate` (with or without
 * --train): *cf loaded from catalog_path (NULL without one), then *model a
 * Hugging Face config.json read into *own when model_config is given, else
 * model_name looked up as fs__cli_estimate_find_model does (NULL after its
 * message).  The caller frees *cf (fs_catalog_file_free) and *own
 * (fs_model_config_fini; zeroed here first).  Returns 0, or FS_EXIT_INPUT
 * after printing the load error with nothing left to free. */
int fs__cli_estimate_load_model(const char *catalog_path, const char *model_config,
                                const char *model_name, struct fs_catalog_file **cf,
                                struct fs_model_spec *own,
                                const struct fs_model_spec **model);

/* An argument of `fleetsim estimate` that must be a "--name" option with
 * a value: one of the name options (fs__cli_estimate_name_option) or of
 * `known` (NULL-terminated), value not NULL.  0, or FS_EXIT_INPUT after the
 * usage error: "unknown option" (then `mode`, "" or " with --train"),
 * whether or not a value follows, else "needs a value". */
int fs__cli_estimate_valued(const char *option, const char *value,
                            const char *const *known, const char *mode);

/* fs__cli_split_long over the name options and `known`: the value of a
 * "--NAME=VALUE" word of `fleetsim estimate` (NAME into name), or NULL. */
const char *fs__cli_estimate_split(const char *word, const char *const *known, char *name,
                                   size_t len);

/* The options of `fleetsim estimate` with or without --train that name
 * things: --model, --model-config, --gpu and --catalog, stored into the
 * matching pointer.  Returns 1 when `option` is one of them, else 0. */
int fs__cli_estimate_name_option(const char *option, const char *value, const char **model,
                                 const char **model_config, const char **gpu,
                                 const char **catalog_path);

/* "fleetsim estimate: <err formatted>" to stderr. */
struct fs_error;
void fs__cli_estimate_print_error(const struct fs_error *err);

#endif
