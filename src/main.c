/*
 * main.c — the fleetsim binary: dispatch to a subcommand.  GSL's
 * abort-on-error handler is turned off here, once, before any parallel
 * region; modules check GSL return codes themselves.  SIGINT and SIGTERM
 * remove the temporaries of unfinished outputs and exit 130 / 143.
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/outfile.h"
#include "fleetsim/par.h"
#include "fleetsim/common.h"

static const char usage_text[] =
	"usage: fleetsim COMMAND [OPTIONS]\n"
	"\n"
	"A cost-aware LLM inference-serving simulator: discrete-event simulation of\n"
	"request arrivals and serving, run as parallel Monte Carlo replications.\n"
	"\n"
	"commands:\n"
	"  run SCENARIO [-o DIR] [-r REPS] [-j THREADS] [--seed N] [--requests-csv]\n"
	"               [--variant NAME] [--set PATH=JSON]...\n"
	"                      simulate a scenario (model, traffic, fleet of GPUs with\n"
	"                      spot and billing); print a summary table and write\n"
	"                      DIR/summary.json; a scenario with variants runs each on\n"
	"                      the same seed and prints a comparison\n"
	"  sweep SCENARIO [-o DIR] [-r REPS] [-j THREADS] [--resume] [--set PATH=JSON]...\n"
	"                      every point of the scenario's sweep (or a bisection search),\n"
	"                      then sweep.csv, sweep.json, pareto.csv and best.json\n"
	"  report DIR [-q]     gnuplot plots (PNG, SVG) and report.html / report.md\n"
	"                      from a run or sweep output directory (a budget\n"
	"                      directory: a one-page budget, no plots)\n"
	"  validate SCENARIO   check a scenario and print it resolved, defaults filled in\n"
	"  catalog [gpus|models] [--json]  list built-in GPUs (specs, example prices) and models\n"
	"  estimate --model M --gpu G [--tp N] [--json] ...\n"
	"                      memory plan, KV blocks and step times of one replica\n"
	"  estimate --train full|lora|qlora --model M (--gpu G [--gpus N] | --table)\n"
	"                      fine-tuning memory per GPU, fits or not\n"
	"  calibrate MEASUREMENTS... --model M --gpu G [--tp N] [-o FILE]\n"
	"                      fit the GPU's step-model terms to measured step times\n"
	"                      (CSV) or vllm bench serve results; write an override\n"
	"  checkpoint FILE.json [-o DIR]  a training job on spot with checkpoints:\n"
	"                      policies under a deadline, Young/Daly vs simulated interval\n"
	"  budget PLAN [-o DIR] card-hours, peak cards, cheapest pricing plans and the\n"
	"                      budget with its planning margin for a period's\n"
	"                      fine-tuning, serving, data and experiment tasks;\n"
	"                      DIR/budget.json, budget.csv (docs/BUDGET.md)\n"
	"  schema              a JSON Schema (draft 2020-12) of the scenario format\n"
	"  completion bash     a bash completion script\n"
	"  help [COMMAND]      this text;  help COMMAND = fleetsim COMMAND --help\n"
	"  version, --version  the version\n"
	"\n"
	"exit status: 0 success, 1 runtime failure, 2 bad input (scenario, trace,\n"
	"command line, an output directory that cannot be written), 130 / 143\n"
	"interrupted by SIGINT / SIGTERM (temporary files removed).  Errors name\n"
	"file:line:col and the JSON path.\n"
	"Scenario keys: docs/SCENARIO.md.  Model and assumptions: docs/MODEL.md.\n";

/* Whether cmd is one of the words the command list itself stands for:
 * help and version, in every spelling main takes. */
static bool is_listed_here(const char *cmd)
{
	return strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 ||
	       strcmp(cmd, "-h") == 0 || strcmp(cmd, "version") == 0 ||
	       strcmp(cmd, "--version") == 0;
}

/* The command's exit status (the MPI-spread sweep, a subcommand, help or
 * version). */
static int dispatch(int argc, char **argv)
{
	const struct fs__cli_cmd *c;
	const char *cmd = argv[1];

	if (strcmp(cmd, "sweep") == 0) {
		/* The sweep is the one command that spreads over MPI ranks. */
		int rc;

		fs_par_init(&argc, &argv);
		rc = fs__cli_sweep(argc - 1, argv + 1);
		fs_par_finalize();
		return rc;
	}
	if ((c = fs__cli_find(cmd)) != NULL)
		return c->main(argc - 1, argv + 1);
	/* help and version are described by the command list: `fleetsim help
	 * help`, `help version`, `version --help`, `help -h` print it, as
	 * `fleetsim COMMAND --help` does every other command's text. */
	if (is_listed_here(cmd) && argc == 3 &&
	    (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0 ||
	     (strcmp(cmd, "help") == 0 && is_listed_here(argv[2])))) {
		fputs(usage_text, stdout);
		return FS_EXIT_OK;
	}
	/* `fleetsim help COMMAND` is `fleetsim COMMAND --help`. */
	if (strcmp(cmd, "help") == 0 && argc > 2) {
		char help_opt[] = "--help";
		char *sub[] = { argv[2], help_opt, NULL };

		if (argc > 3) {
			fprintf(stderr, "fleetsim help: unexpected argument \"%s\"\n", argv[3]);
			return FS_EXIT_INPUT;
		}
		if ((c = fs__cli_find(argv[2])) != NULL)
			return c->main(2, sub);
		fprintf(stderr, "fleetsim help: unknown command \"%s\"\n", argv[2]);
		fputs(usage_text, stderr);
		return FS_EXIT_INPUT;
	}
	if (is_listed_here(cmd)) {
		if (argc > 2) {
			fprintf(stderr, "fleetsim %s: unexpected argument \"%s\"\n", cmd, argv[2]);
			return FS_EXIT_INPUT;
		}
		if (cmd[0] == 'v' || strcmp(cmd, "--version") == 0)
			printf("fleetsim %s\n", FS_VERSION);
		else
			fputs(usage_text, stdout);
		return FS_EXIT_OK;
	}
	fprintf(stderr, "fleetsim: unknown command \"%s\"\n", cmd);
	fputs(usage_text, stderr);
	return FS_EXIT_INPUT;
}

int main(int argc, char **argv)
{
	int rc;

	gsl_set_error_handler_off();
	/* Before any thread: an interrupted command leaves no temporaries. */
	fs_outfile_install_signals();
	if (argc < 2) {
		fputs(usage_text, stderr);
		return FS_EXIT_INPUT;
	}
	rc = dispatch(argc, argv);
	/* What a command printed is part of its result: a table lost to a
	 * full disk or a closed pipe is a failure, not a success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "fleetsim %s: cannot write the standard output: %s\n", argv[1],
		        strerror(errno));
		if (rc == FS_EXIT_OK)
			rc = FS_EXIT_RUNTIME;
	}
	return rc;
}
