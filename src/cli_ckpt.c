/*
 * cli_ckpt.c — `fleetsim checkpoint FILE.json`: a training job on spot with
 * checkpoints (docs/BUDGET.md, docs/MODEL.md K1-K7).  Runs the three
 * policies (the fallback only with a deadline) and the interval scan,
 * prints a table and the interval comparison, and writes
 * DIR/checkpoint.json.  Exit 2 for a bad file or option, 1 for a job that
 * cannot finish or an output that cannot be written.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ckpt_internal.h"
#include "cli.h"
#include "fleetsim/outfile.h"
#include "fleetsim/rng.h"

static const char ckpt_help[] =
	"usage: fleetsim checkpoint FILE.json [-o DIR] [-r REPS] [-j THREADS] [--seed N]\n"
	"\n"
	"A training job of W hours on spot GPUs with a checkpoint every tau hours of\n"
	"work (cost delta), a restart (R) after each interruption, and the work since\n"
	"the last checkpoint lost (docs/MODEL.md K1-K7).  Interruptions are Poisson\n"
	"(rate per running hour, with a wait before capacity returns) or replayed\n"
	"from an availability trace.  Prints, by Monte Carlo over replications:\n"
	"  - per policy (spot only; on-demand only; spot with an on-demand fallback\n"
	"    when the deadline is at risk, after \"Can't Be Late\", NSDI '24):\n"
	"    completion time, P(deadline met), cost, with 95% intervals;\n"
	"  - the checkpoint interval: Young's sqrt(2 delta M), Daly's higher-order\n"
	"    form, the renewal optimum, and the simulated best of a scan of\n"
	"    intervals with its sectioning interval.\n"
	"Writes DIR/checkpoint.json (default out/<file stem>).  Input keys:\n"
	"docs/BUDGET.md, \"Training on spot with checkpoints\".\n"
	"  -o, --output DIR          output directory\n"
	"  -r, --replications REPS   replications (default: the file's, else 1000)\n"
	"  -j, --threads THREADS     threads (default: one per processor; results\n"
	"                            do not depend on it)\n"
	"      --seed N              base seed (default: the file's, else 1)\n"
	"  -h, --help                this text\n";

struct ckpt_args {
	const char *path;
	struct fs__cli_run_opts o;
};

static int parse_args(int argc, char **argv, struct ckpt_args *a)
{
	static const struct option longopts[] = {
		FS__CLI_RUN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, rc;

	memset(a, 0, sizeof *a);
	fs__cli_run_opts_begin(&a->o);
	while ((c = fs__cli_getopt(argc, argv, ":o:r:j:h", longopts)) != -1) {
		if (c == 'h') {
			fputs(ckpt_help, stdout);
			return -1;
		}
		rc = fs__cli_run_option("checkpoint", c, 10000000, argv, &a->o);
		if (rc != 0)
			return rc;
	}
	return fs__cli_one_operand("checkpoint", argc, argv, "expected an input file FILE.json",
	                           "expected one input file, found also ", &a->path);
}

/* "12.34 ± 0.56" (or "12.34 exact", "-" when NAN) into buf. */
static const char *fmt_ci(char *buf, size_t len, const struct fs_ci *c, int digits)
{
	if (isnan(c->value))
		snprintf(buf, len, "-");
	else if (isnan(c->half_width) || c->half_width == 0)
		snprintf(buf, len, "%.*f", digits, c->value);
	else
		snprintf(buf, len, "%.*f ± %.*f", digits, c->value, digits, c->half_width);
	return buf;
}

static void print_policy(const struct fs_ckpt_result *r, enum fs_ckpt_policy p)
{
	char a[64], b[64], c[64];

	if (isnan(r->p_deadline_met.value))
		snprintf(b, sizeof b, "-");
	else
		snprintf(b, sizeof b, "%.3f [%.3f, %.3f]", r->p_deadline_met.value,
		         r->p_deadline_met.ci_lo, r->p_deadline_met.ci_hi);
	printf("  %-14s %-18s %8.2f %8.2f  %-22s %-22s %10.2f %9.2f %7.2f\n",
	       fs_ckpt_policy_name(p), fmt_ci(a, sizeof a, &r->completion_h, 2),
	       r->completion_p50_h, r->completion_p95_h, b,
	       fmt_ci(c, sizeof c, &r->cost, 2), r->cost_p95, r->on_demand_h.value,
	       r->interruptions.value);
}

static void print_header(const struct fs__ckpt_input *in, const struct fs_ckpt_result *r)
{
	const struct fs_ckpt_cfg *c = &in->cfg;

	printf("checkpoint %s: %.6g h of work on %d card%s, %d replications, seed %llu\n",
	       in->name ? in->name : "", c->work_h, c->cards, c->cards == 1 ? "" : "s",
	       c->replications, (unsigned long long)c->seed);
	if (c->spot.trace_path != NULL)
		printf("interruptions: trace %s (needs %d instance%s; mean uptime between "
		       "drops M = %.3g h)\n", in->trace_display,
		       c->spot.trace_instances, c->spot.trace_instances == 1 ? "" : "s",
		       r->mtbi_h);
	else
		printf("interruptions: Poisson, %.6g per running hour (M = %.4g h), "
		       "capacity back after %.4g h on average\n", c->spot.rate_per_h,
		       r->mtbi_h, c->spot.unavailable_mean_h);
	printf("checkpoint %.4g h, restart %.4g h, interval %.4g h%s -> %d checkpoints; "
	       "prices per card-hour %s %.4g spot, %.4g on-demand\n", c->ckpt_cost_h,
	       c->restart_cost_h, r->interval_h, c->interval_h > 0 ? "" : " (Daly, auto)",
	       r->segments, in->currency, c->spot_price_per_h, c->on_demand_price_per_h);
}

static void print_intervals(const struct fs_ckpt_result *r)
{
	char a[64];

	printf("\ncheckpoint interval (spot only, no deadline):\n");
	printf("  Young sqrt(2 delta M)      %8.4f h\n", r->young_h);
	printf("  Daly (higher order)        %8.4f h\n", r->daly_h);
	if (isfinite(r->renewal_opt_h))
		printf("  renewal optimum (K5)       %8.4f h\n", r->renewal_opt_h);
	if (r->n_scan == 0) {
		printf("  simulated best             - (no scan: no interruptions, or "
		       "scan_points 0)\n");
		return;
	}
	printf("  simulated best (K7)        %8.4f h  [%.4f, %.4f] (sectioning, %zu "
	       "sections; scan of %d intervals %.3g-%.3g h)\n", r->best_interval_h,
	       r->best_interval_ci.ci_lo, r->best_interval_ci.ci_hi,
	       r->best_interval_ci.sections, r->n_scan, r->scan[0].interval_h,
	       r->scan[r->n_scan - 1].interval_h);
	printf("  mean completion there      %s h\n",
	       fmt_ci(a, sizeof a, &r->best_completion_h, 3));
}

static int write_json(const char *out_dir, const struct fs__ckpt_input *in,
                      const struct fs_ckpt_result *res, const bool *have)
{
	static const enum fs_ckpt_policy P[3] = {
		FS_CKPT_SPOT_ONLY, FS_CKPT_ON_DEMAND_ONLY, FS_CKPT_SPOT_FALLBACK
	};
	struct fs_error err;
	cJSON *root = cJSON_CreateObject(), *pol;
	char *path;
	size_t n = strlen(out_dir) + 32;
	int rc;

	if (in->name)
		cJSON_AddStringToObject(root, "name", in->name);
	cJSON_AddNumberToObject(root, "work_h", in->cfg.work_h);
	cJSON_AddNumberToObject(root, "cards", in->cfg.cards);
	cJSON_AddNumberToObject(root, "replications", in->cfg.replications);
	cJSON_AddNumberToObject(root, "seed", (double)in->cfg.seed);
	cJSON_AddStringToObject(root, "rng", fs_rng_name());
	cJSON_AddStringToObject(root, "currency", in->currency);
	if (in->cfg.deadline_h > 0)
		cJSON_AddNumberToObject(root, "deadline_h", in->cfg.deadline_h);
	else
		cJSON_AddNullToObject(root, "deadline_h");
	pol = cJSON_AddArrayToObject(root, "policies");
	for (int i = 0; i < 3; i++)
		if (have[i])
			cJSON_AddItemToArray(pol, fs__ckpt_policy_json(&res[i], P[i]));
	cJSON_AddItemToObject(root, "interval", fs__ckpt_interval_json(&res[0]));
	path = fs_xmalloc(n);
	snprintf(path, n, "%s/checkpoint.json", out_dir);
	rc = fs_outfile_mkdirs(out_dir, &err);
	if (rc == 0)
		rc = fs_outfile_write_json(path, root, &err);
	cJSON_Delete(root);
	if (rc != 0)
		fs_error_print(&err);
	else
		printf("\nwrote %s\n", path);
	free(path);
	return rc;
}

int fs__cli_ckpt(int argc, char **argv)
{
	static const enum fs_ckpt_policy P[3] = {
		FS_CKPT_SPOT_ONLY, FS_CKPT_ON_DEMAND_ONLY, FS_CKPT_SPOT_FALLBACK
	};
	struct ckpt_args a;
	struct fs__ckpt_input in;
	struct fs_ckpt_result *res;
	struct fs_error err;
	bool have[3] = { true, true, false };
	char *out_dir;
	int rc = parse_args(argc, argv, &a);

	if (rc != 0)
		return rc < 0 ? FS_EXIT_OK : rc;
	if (fs__ckpt_load(a.path, &in, &err) != 0) {
		fs_error_print(&err);
		return FS_EXIT_INPUT;
	}
	out_dir = fs__cli_out_dir(a.o.out_dir, a.path);
	if (fs_outfile_check_dir(out_dir, &err) != 0 ||
	    fs__cli_check_own_dir("checkpoint", out_dir, &err) != 0 ||
	    fs_outfile_check_file(out_dir, "checkpoint.json", &err) != 0) {
		fs_error_print(&err);
		fs__ckpt_input_fini(&in);
		free(out_dir);
		return FS_EXIT_INPUT;
	}
	if (a.o.replications > 0)
		in.cfg.replications = (int)a.o.replications;
	if (a.o.seed >= 0)
		in.cfg.seed = (uint64_t)a.o.seed;
	in.cfg.threads = (int)a.o.threads;
	have[2] = in.cfg.deadline_h > 0;
	res = fs_xcalloc(3, sizeof *res);
	rc = FS_EXIT_OK;
	for (int i = 0; i < 3 && rc == FS_EXIT_OK; i++) {
		struct fs_ckpt_cfg c = in.cfg;

		if (!have[i])
			continue;
		c.policy = P[i];
		if (i > 0)
			c.scan_points = 0;   /* the scan is of the spot-only policy */
		if (fs_ckpt_run(&c, &res[i], &err) != 0) {
			/* the study's checks are on the input's values: exit 2 at
			 * the value's place in the file */
			fs__ckpt_where(&in, &err);
			fs_error_print(&err);
			rc = FS_EXIT_INPUT;
		}
	}
	if (rc == FS_EXIT_OK) {
		char dl[64];

		print_header(&in, &res[0]);
		if (have[2])
			snprintf(dl, sizeof dl, "met by %.4g h", in.cfg.deadline_h);
		else
			snprintf(dl, sizeof dl, "(no deadline)");
		printf("\n  %-14s %-18s %8s %8s  %-22s %-22s %10s %9s %7s\n", "policy",
		       "completion h", "p50 h", "p95 h", dl, "cost", "p95 cost",
		       "on-dem h", "interr.");
		for (int i = 0; i < 3; i++)
			if (have[i])
				print_policy(&res[i], P[i]);
		if (!have[2])
			printf("  %-14s needs a \"deadline\"\n", "spot_fallback");
		print_intervals(&res[0]);
		if (write_json(out_dir, &in, res, have) != 0)
			rc = FS_EXIT_RUNTIME;
	}
	free(res);
	free(out_dir);
	fs__ckpt_input_fini(&in);
	return rc;
}
