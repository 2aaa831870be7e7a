/*
 * sweep_share.c — sweep points that differ only in a pricing plan that does
 * not change the simulation share one simulation, billed each way (MODEL:
 * S21).  A point's share key is its value index on every axis, with the
 * values on_demand, daily, weekly, monthly and yearly of a
 * `fleet.pools[i].pricing` axis folded into one mark.  The first point of a
 * key simulates its own scenario and the cache keeps its replications (it
 * owns them and their original bills); a later point of the key borrows
 * each replication that its own scenario would have simulated identically
 * (checked per replication) with its own bill written in, and simulates
 * itself only the replications that fail the check.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsim/billing.h"
#include "fleetsim/objective.h"
#include "fleetsim/replicate.h"
#include "fleetsim/scenario.h"
#include "fleetsim/sweep.h"
#include "sweep_internal.h"

/* The plan-dependent fields of one pool's result. */
struct pool_bill {
	double usd, commit_usd, overflow_usd, overflow_ns, billed_ns, idle_usd, lost_usd;
};

struct share_entry {
	size_t *key;                 /* sw->n_axes value indices (FOLDED: pricing) */
	struct fs_scenario *sc;      /* the scenario that simulated (owned) */
	uint64_t seed;
	struct fs_rep_result **res;  /* by replication, n_res of them (owned) */
	struct pool_bill *bill;      /* [rep * n_pools + pool]: their own bills */
	int n_res;
};

struct fs__sweep_share {
	const struct fs_sweep_opts *o;
	const struct fs_scenario *base;
	struct share_entry *e;
	size_t n_e, cap_e;
	struct share_entry *cur;     /* the entry of the point being evaluated */
	bool cur_own;                /* that point is the one cur simulates */
	uint64_t borrowed, simulated;/* replications, since the allocation */
};

#define FOLDED SIZE_MAX

/* The plans whose choice leaves the world's events alone as long as no
 * instance of a committed pool is overflow (MODEL: B6, S21).  Spot is not
 * among them: it draws interruptions. */
static const char *const FOLDABLE[] = {
	"\"on_demand\"", "\"daily\"", "\"weekly\"", "\"monthly\"", "\"yearly\"", NULL
};

/* Whether path is "fleet.pools[N].pricing". */
static bool pricing_path(const char *path)
{
	const char *p = path;

	if (strncmp(p, "fleet.pools[", 12) != 0)
		return false;
	p += 12;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return strcmp(p, "].pricing") == 0;
}

bool fs__sweep_share_folds(const struct fs_sweep_cfg *sw, size_t axis, size_t value)
{
	size_t k;

	if (!pricing_path(sw->axes[axis].path))
		return false;
	for (k = 0; FOLDABLE[k] != NULL; k++)
		if (strcmp(sw->axes[axis].values[value], FOLDABLE[k]) == 0)
			return true;
	return false;
}

void fs__sweep_share_key(const struct fs_sweep_cfg *sw, const size_t *coords, size_t *key)
{
	size_t a;

	for (a = 0; a < sw->n_axes; a++)
		key[a] = fs__sweep_share_folds(sw, a, coords[a]) ? FOLDED : coords[a];
}

struct fs__sweep_share *fs__sweep_share_alloc(const struct fs_sweep_opts *o,
                                              const struct fs_scenario *base)
{
	struct fs__sweep_share *sh = fs_xcalloc(1, sizeof *sh);

	sh->o = o;
	sh->base = base;
	return sh;
}

void fs__sweep_share_clear(struct fs__sweep_share *sh)
{
	size_t i;

	if (sh == NULL)
		return;
	for (i = 0; i < sh->n_e; i++) {
		struct share_entry *e = &sh->e[i];

		fs_replicate_free(e->res, e->n_res);
		free(e->bill);
		free(e->key);
		fs_scenario_free(e->sc);
	}
	sh->n_e = 0;
	sh->cur = NULL;
}

void fs__sweep_share_free(struct fs__sweep_share *sh)
{
	if (sh == NULL)
		return;
	fs__sweep_share_clear(sh);
	free(sh->e);
	free(sh);
}

void fs__sweep_share_counts(const struct fs__sweep_share *sh, uint64_t *borrowed,
                            uint64_t *simulated)
{
	*borrowed = sh != NULL ? sh->borrowed : 0;
	*simulated = sh != NULL ? sh->simulated : 0;
}

/* Whether, pool by pool, a replication simulated with `from` can be billed
 * as `to` at all (before looking at the replication): the same plan, or
 * `to` committed and neither spot, with a router that reads no price. */
static bool billable_as(const struct fs_scenario *from, const struct fs_scenario *to)
{
	size_t p;

	if (from->fleet.n_pools != to->fleet.n_pools || from->engine.kind != to->engine.kind)
		return false;
	for (p = 0; p < to->fleet.n_pools; p++) {
		enum fs_pricing a = from->fleet.pools[p].pricing, b = to->fleet.pools[p].pricing;

		if (a == b)
			continue;
		if (a == FS_PRICING_SPOT || b == FS_PRICING_SPOT || !fs_pricing_committed(b) ||
		    from->fleet.router == FS_ROUTER_COST_AWARE ||
		    from->fleet.pools[p].count != to->fleet.pools[p].count)
			return false;
	}
	return true;
}

void fs__sweep_share_begin(struct fs__sweep_share *sh, size_t point,
                           const struct fs_scenario *sc, uint64_t seed)
{
	const struct fs_sweep_cfg *sw;
	size_t coords[FS_SWEEP_MAX_AXES], *key, i;
	struct fs_error err;
	struct share_entry *e;

	if (sh == NULL)
		return;
	sw = &sh->base->sweep;
	sh->cur = NULL;
	if (sc->engine.kind != FS_ENGINE_VLLM || sc->fleet.n_pools == 0)
		return;
	key = fs_xcalloc(sw->n_axes + 1, sizeof *key);
	fs_sweep_point_coords(sw, point, coords);
	fs__sweep_share_key(sw, coords, key);
	for (i = 0; i < sh->n_e; i++) {
		e = &sh->e[i];
		if (memcmp(e->key, key, sw->n_axes * sizeof *key) == 0 && e->seed == seed &&
		    billable_as(e->sc, sc)) {
			sh->cur = e;
			sh->cur_own = false;
			free(key);
			return;
		}
	}
	/* The first point of its key (or one the cached ones cannot bill, such
	 * as an on-demand point after a committed one): it simulates its own
	 * scenario, loaded again so the cache owns it. */
	fs_xgrow((void **)&sh->e, &sh->cap_e, sh->n_e + 1, sizeof *sh->e);
	e = &sh->e[sh->n_e];
	memset(e, 0, sizeof *e);
	e->sc = fs_scenario_file_load(sh->o->file, NULL, sh->o->sets, sh->o->n_sets, sw, point,
	                              &err);
	if (e->sc == NULL) {
		free(key);
		return;
	}
	e->key = key;
	e->seed = seed;
	sh->n_e++;
	sh->cur = e;
	sh->cur_own = true;
}

void fs__sweep_share_end(struct fs__sweep_share *sh)
{
	if (sh != NULL)
		sh->cur = NULL;
}

static void save_bill(struct share_entry *e, int r)
{
	const struct fs_fleet_result *f = &e->res[r]->fleet;
	size_t p;

	for (p = 0; p < f->n_pools; p++) {
		const struct fs_pool_result *pr = &f->pools[p];

		e->bill[(size_t)r * f->n_pools + p] = (struct pool_bill){
			pr->usd, pr->commit_usd, pr->overflow_usd, pr->overflow_ns, pr->billed_ns,
			pr->idle_usd, pr->lost_usd
		};
	}
}

/* Simulate replications [n_res, upto) of the entry's own scenario. */
static void extend(struct fs__sweep_share *sh, struct share_entry *e, int upto,
                   const struct fs_run_opts *opts)
{
	struct fs_run_opts more = *opts;
	struct fs_rep_result **got;
	size_t n_pools = e->sc->fleet.n_pools;
	int i;

	if (upto <= e->n_res)
		return;
	more.first_replication = e->n_res;
	more.replications = upto - e->n_res;
	more.record_first = false;
	if (more.threads > more.replications)
		more.threads = more.replications;
	got = fs_replicate_run(e->sc, &more);
	e->res = fs_xrealloc(e->res, (size_t)upto * sizeof *e->res);
	e->bill = fs_xrealloc(e->bill, (size_t)upto * n_pools * sizeof *e->bill);
	for (i = 0; i < more.replications; i++) {
		e->res[e->n_res] = got[i];
		save_bill(e, e->n_res++);
	}
	sh->simulated += (uint64_t)more.replications;
	free(got);
}

/*
 * MODEL: S21, B6 — replication r of the entry is what `to` would have
 * simulated when, on every pool whose plan differs, no instance would have
 * been overflow under `to`'s commitment: an instance is overflow exactly
 * when it is launched with `count` instances of its pool live, so none is
 * while the pool never had more than `count` live (peak_alive).  Then the
 * overflow flag that the scale-in order reads is false throughout, the
 * router reads no price (billable_as), and only the bill differs.
 */
static bool same_world(const struct share_entry *e, int r, const struct fs_scenario *to)
{
	const struct fs_fleet_result *f = &e->res[r]->fleet;
	size_t p;

	if (f->n_pools != to->fleet.n_pools)
		return false;
	for (p = 0; p < f->n_pools; p++)
		if (e->sc->fleet.pools[p].pricing != to->fleet.pools[p].pricing &&
		    f->pools[p].peak_alive > (uint64_t)(to->fleet.pools[p].count > 0 ?
		                                        to->fleet.pools[p].count : 0))
			return false;
	return true;
}

/*
 * Write `to`'s bill into replication r: a pool on the entry's own plan gets
 * its own bill back; a pool on a committed plan (no overflow, same_world)
 * gets what the world's end-of-run billing computes for it: the commitment
 * count x fee x end / period, paid used or not, with the idle share from
 * the pool's busy time (the sum of its instances' busy time, whole
 * nanoseconds, so exact in any order), and nothing usage-billed or lost.
 */
static void bill_as(struct share_entry *e, int r, const struct fs_scenario *to)
{
	struct fs_rep_result *res = e->res[r];
	size_t p, n_pools = res->fleet.n_pools;

	for (p = 0; p < n_pools; p++) {
		struct fs_pool_result *pr = &res->fleet.pools[p];
		const struct fs_pool_cfg *pc = &to->fleet.pools[p];
		const struct pool_bill *own = &e->bill[(size_t)r * n_pools + p];

		if (e->sc->fleet.pools[p].pricing == pc->pricing) {
			pr->usd = own->usd;
			pr->commit_usd = own->commit_usd;
			pr->overflow_usd = own->overflow_usd;
			pr->overflow_ns = own->overflow_ns;
			pr->billed_ns = own->billed_ns;
			pr->idle_usd = own->idle_usd;
			pr->lost_usd = own->lost_usd;
			continue;
		}
		/* MODEL: B4 — as fs__world_fleet_finish bills a committed pool. */
		{
			double fee = fs_billing_commit_usd(pc, res->end_ns);
			double capacity_ns = (double)res->end_ns * pc->count;

			pr->commit_usd = fee;
			pr->usd = 0.0 + fee;
			pr->overflow_usd = 0;
			pr->overflow_ns = 0;
			pr->billed_ns = pr->alive_ns;   /* committed: no rounding (B5) */
			pr->lost_usd = 0;
			pr->idle_usd = 0;
			if (capacity_ns > 0)
				pr->idle_usd += fee * fmax(0.0, 1.0 - pr->busy_ns / capacity_ns);
		}
	}
}

struct fs_rep_result **fs__sweep_share_replicate(struct fs__sweep_share *sh,
                                                 const struct fs_scenario *sc,
                                                 const struct fs_run_opts *opts)
{
	struct share_entry *e = sh != NULL ? sh->cur : NULL;
	struct fs_rep_result **out;
	int i, first = opts->first_replication, n = opts->replications;

	if (e == NULL)
		return fs_replicate_run(sc, opts);
	extend(sh, e, first + n, opts);
	out = fs_xcalloc((size_t)n, sizeof *out);
	for (i = 0; i < n; i++) {
		int r = first + i;

		if (same_world(e, r, sc)) {
			bill_as(e, r, sc);
			out[i] = e->res[r];
			sh->borrowed += !sh->cur_own;
		} else {
			/* This replication differs under sc: its own world. */
			struct fs_run_opts one = *opts;
			struct fs_rep_result **got;

			one.first_replication = r;
			one.replications = 1;
			one.threads = 1;
			one.record_first = false;
			got = fs_replicate_run(sc, &one);
			out[i] = got[0];
			free(got);
			sh->simulated++;
		}
	}
	return out;
}

void fs__sweep_share_release(struct fs__sweep_share *sh, struct fs_rep_result **results,
                             int n)
{
	const struct share_entry *e = sh != NULL ? sh->cur : NULL;
	int i;

	if (results == NULL)
		return;
	for (i = 0; i < n; i++)
		if (e == NULL || i >= e->n_res || results[i] != e->res[i])
			fs_rep_result_free(results[i]);
	free(results);
}

/* As fs_objective_run (MODEL: S10), the replications coming from the
 * cache: batches of the initial R until the watched figure's relative
 * half-width reaches the target or the cap. */
struct fs_rep_result **fs__sweep_share_objective_run(
	struct fs__sweep_share *sh, const struct fs_scenario *sc, const struct fs_run_opts *opts,
	double (*figure)(const struct fs_scenario *, const struct fs_rep_result *),
	double ci_target, int max_reps, int *n_reps)
{
	struct fs_rep_result **all;
	int n = opts->replications;

	if (sh == NULL || sh->cur == NULL)
		return fs_objective_run(sc, opts, figure, ci_target, max_reps, n_reps);
	all = fs__sweep_share_replicate(sh, sc, opts);
	while (ci_target > 0 && n < max_reps &&
	       fs_objective_rel_half_width(sc, all, n, figure) > ci_target) {
		struct fs_run_opts more = *opts;
		struct fs_rep_result **extra;
		int i;

		more.first_replication = opts->first_replication + n;
		more.replications = opts->replications;
		if (n + more.replications > max_reps)
			more.replications = max_reps - n;
		more.record_first = false;
		extra = fs__sweep_share_replicate(sh, sc, &more);
		all = fs_xrealloc(all, (size_t)(n + more.replications) * sizeof *all);
		for (i = 0; i < more.replications; i++)
			all[n + i] = extra[i];
		free(extra);
		n += more.replications;
	}
	*n_reps = n;
	return all;
}
