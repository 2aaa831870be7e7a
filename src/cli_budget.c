/*
 * cli_budget.c — `fleetsim budget PLAN.json [-o DIR] [-q]`: load a plan,
 * compute its budget (fs_budget_compute), print the table and write
 * DIR/budget.json and DIR/budget.csv together (staged, then moved into
 * place).  Exit 2 for a bad plan or an output directory that cannot be
 * written (checked before any work), 1 on an I/O failure.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleetsim/budget.h"
#include "fleetsim/outfile.h"

static const char budget_help[] =
	"usage: fleetsim budget PLAN.json [-o DIR] [-q]\n"
	"\n"
	"A card-hour budget for a period's GPU tasks: fine-tuning jobs (model, method\n"
	"full / lora / qlora, tokens or samples x tokens per sample, epochs -> GPU-hours\n"
	"from training FLOPs at an MFU, with the data-parallel efficiency of N cards\n"
	"computed from the gradient all-reduce; refused when its training memory does\n"
	"not fit the cards; optionally on spot with checkpoints, every deadline\n"
	"policy simulated), serving (requests/day, lengths, SLO -> instances from the\n"
	"step model, or a fleetsim run or sweep directory), data\n"
	"processing and experiments (fixed card-hours, recurring allowed).  Prints\n"
	"card-hours per task, the peak concurrent cards, each task's and each GPU\n"
	"pool's cheapest pricing plan (on demand, spot, daily, weekly, monthly,\n"
	"yearly) with the break-even utilisation, machine costs besides the GPU, and\n"
	"the total with the planning margin (risk factor, buffer) kept apart from the\n"
	"estimate.  Plan keys: docs/BUDGET.md; assumptions: docs/MODEL.md G1-G14.\n"
	"\n"
	"options:\n"
	"  -o, --out DIR   write DIR/budget.json and DIR/budget.csv (default\n"
	"                  out/<plan file stem>); fleetsim report DIR renders them\n"
	"  -q, --quiet     do not print the table\n"
	"  -h, --help      this text\n"
	"\n"
	"exit status: 0 success, 1 I/O failure, 2 bad plan (file:line:col: json.path:\n"
	"message; also a task that does not fit its cards) or an output directory\n"
	"that cannot be written.\n";

static const char *const FILES[] = { "budget.json", "budget.csv" };

static int write_all(const char *out_dir, const char *json, const char *csv)
{
	struct fs_outset set;
	struct fs_error err;

	if (fs_outset_begin(&set, out_dir, &err) != 0)
		goto fail;
	if (fs_outfile_write(fs_outset_path(&set, FILES[0]), json, strlen(json), &err) != 0 ||
	    fs_outfile_write(fs_outset_path(&set, FILES[1]), csv, strlen(csv), &err) != 0) {
		fs_outset_abort(&set);
		goto fail;
	}
	if (fs_outset_commit(&set, 1, &err) != 0)
		goto fail;
	return 0;
fail:
	fputs("fleetsim budget: ", stderr);
	fs_error_print(&err);
	return FS_EXIT_RUNTIME;
}

int fs__cli_budget(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct fs_budget_result res;
	struct fs_budget_plan *plan;
	struct fs_error err;
	const char *out_opt = NULL;
	char *out_dir, *json, *csv;
	int c, quiet = 0, rc;

	optind = 1;
	opterr = 0;
	while ((c = fs__cli_getopt(argc, argv, ":o:qh", longopts)) != -1) {
		switch (c) {
		case 'o':
			out_opt = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(budget_help, stdout);
			return FS_EXIT_OK;
		case ':':
			return fs__cli_usage_error("budget", "%s needs a value", argv[optind - 1]);
		default:
			return fs__cli_usage_error("budget", "unknown option \"%s\"",
			                           argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return fs__cli_usage_error("budget", "missing PLAN.json");
	if (optind + 1 < argc)
		return fs__cli_usage_error("budget", "one PLAN.json expected, found also \"%s\"",
		                           argv[optind + 1]);
	memset(&err, 0, sizeof err);
	plan = fs_budget_plan_load(argv[optind], &err);
	if (plan == NULL) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	out_dir = out_opt != NULL ? fs_xstrdup(out_opt) : fs__cli_default_out_dir(argv[optind]);
	rc = fs_outfile_check_dir(out_dir, &err) != 0 ||
	     fs__cli_check_own_dir("budget", out_dir, &err) != 0 ||
	     fs_outfile_check_file(out_dir, FILES[0], &err) != 0 ||
	     fs_outfile_check_file(out_dir, FILES[1], &err) != 0 ? -1 : 0;
	if (rc != 0) {
		fputs("fleetsim budget: output: ", stderr);
		fs_error_print(&err);
		free(out_dir);
		fs_budget_plan_free(plan);
		return FS_EXIT_INPUT;
	}
	if (fs_budget_compute(plan, &res, &err) != 0) {
		fs_error_print(&err);
		fs_budget_result_fini(&res);
		fs_budget_plan_free(plan);
		free(out_dir);
		return FS_EXIT_INPUT;
	}
	if (!quiet)
		fs_budget_print(plan, &res, stdout);
	json = fs_budget_json(plan, &res);
	csv = fs_budget_csv(plan, &res);
	rc = write_all(out_dir, json, csv);
	if (rc == 0 && !quiet)
		printf("\nwrote %s/budget.json, budget.csv\n", out_dir);
	free(json);
	free(csv);
	free(out_dir);
	fs_budget_result_fini(&res);
	fs_budget_plan_free(plan);
	if (rc == 0 && fflush(stdout) != 0) {
		fprintf(stderr, "fleetsim budget: cannot write to standard output\n");
		return FS_EXIT_RUNTIME;
	}
	return rc;
}
