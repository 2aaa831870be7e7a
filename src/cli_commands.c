/*
 * cli_commands.c — the table of fleetsim's subcommands: the one list that
 * main.c dispatches on, `fleetsim help COMMAND` looks up and `fleetsim
 * completion bash` completes.  Read-only static data; nothing is owned.
 */
#include <string.h>

#include "cli.h"

static const struct fs__cli_cmd COMMANDS[] = {
	{ "run",        fs__cli_run,        "json" },
	{ "sweep",      fs__cli_sweep,      "json" },
	{ "report",     fs__cli_report,     "dir" },
	{ "validate",   fs__cli_validate,   "json" },
	{ "catalog",    fs__cli_catalog,    "gpus models" },
	{ "estimate",   fs__cli_estimate,   "" },
	{ "calibrate",  fs__cli_calibrate,  "file" },
	{ "checkpoint", fs__cli_ckpt,       "json" },
	{ "budget",     fs__cli_budget,     "json" },
	{ "schema",     fs__cli_schema,     "" },
	{ "completion", fs__cli_completion, "bash" },
	{ NULL, NULL, NULL }
};

const struct fs__cli_cmd *fs__cli_commands(void)
{
	return COMMANDS;
}

const struct fs__cli_cmd *fs__cli_find(const char *name)
{
	const struct fs__cli_cmd *c;

	for (c = COMMANDS; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
