/*
 * recorder_fleet.c — the fleet's figures of one replication (the fs__rec_*
 * entry points of recorder.h): launches, reclaims and the requests they
 * hit, the bill, availability and the autoscaler's accounts, written into
 * the result's `fleet` part.  The world calls these and never writes the
 * result itself; each figure has one writer here.
 */
#include "recorder.h"

static struct fs_pool_result *pool_of(struct fs_recorder *rec, size_t pool)
{
	return &rec->result->fleet.pools[pool];
}

void fs__rec_launch(struct fs_recorder *rec, size_t pool, int live)
{
	struct fs_pool_result *pr = pool_of(rec, pool);

	pr->launches++;
	if (live > (int)pr->peak_alive)
		pr->peak_alive = (uint64_t)live;
}

void fs__rec_launch_failed(struct fs_recorder *rec, size_t pool)
{
	pool_of(rec, pool)->failed_launches++;
}

void fs__rec_reclaim(struct fs_recorder *rec, size_t pool, fs_ns t_ns)
{
	pool_of(rec, pool)->reclaims++;
	fs__recorder_reclaim(rec, t_ns);
}

void fs__rec_reclaim_requeue(struct fs_recorder *rec, size_t pool)
{
	rec->result->fleet.requeued++;
	pool_of(rec, pool)->reclaim_requeued++;          /* MODEL: F17 */
}

void fs__rec_recompute(struct fs_recorder *rec, int64_t tokens)
{
	rec->result->fleet.recomputed_tokens += tokens;  /* MODEL: F6 */
}

void fs__rec_reclaim_fail(struct fs_recorder *rec, size_t pool)
{
	pool_of(rec, pool)->reclaim_failed++;            /* MODEL: F17 */
}

void fs__rec_pool_busy(struct fs_recorder *rec, size_t pool, double busy_ns)
{
	pool_of(rec, pool)->busy_ns += busy_ns;
}

void fs__rec_served(struct fs_recorder *rec, int64_t output_tokens)
{
	rec->result->fleet.all_completed++;
	rec->result->fleet.all_output_tokens += output_tokens;
}

/* MODEL: B8 — level_ns grows to hold `billed` (O(1) amortised). */
void fs__rec_billed_level(struct fs_recorder *rec, size_t pool, size_t billed,
                          double span_ns)
{
	struct fs_pool_result *pr = pool_of(rec, pool);
	size_t cap = pr->n_levels;

	if (billed >= pr->n_levels) {
		fs_xgrow((void **)&pr->level_ns, &cap, billed + 1, sizeof *pr->level_ns);
		while (pr->n_levels <= billed)
			pr->level_ns[pr->n_levels++] = 0;
	}
	pr->level_ns[billed] += span_ns;
}

/* MODEL: F13 — the parts are added one by one, in the order the bill is
 * made up, so the sums do not depend on how a caller groups them. */
void fs__rec_instance_bill(struct fs_recorder *rec, size_t pool,
                           const struct fs__rec_bill *b)
{
	struct fs_pool_result *pr = pool_of(rec, pool);

	pr->alive_ns += b->alive_ns;
	pr->billed_ns += b->billed_ns;
	pr->serving_ns += b->serving_ns;
	pr->serving_measured_ns += b->serving_measured_ns;
	pr->usd += b->usd;
	if (b->overflow) {
		pr->overflow_usd += b->usd;
		pr->overflow_ns += b->billed_ns;
	}
	pr->idle_usd += b->idle_usd;
	pr->lost_usd += b->lost_cold_usd;
	pr->lost_usd += b->lost_work_usd;
}

/* MODEL: B4 — the commitment is paid whether used or not. */
void fs__rec_commitment(struct fs_recorder *rec, size_t pool, double fee_usd,
                        double idle_usd)
{
	struct fs_pool_result *pr = pool_of(rec, pool);

	pr->commit_usd = fee_usd;
	pr->usd += fee_usd;
	pr->idle_usd += idle_usd;
}

void fs__rec_pool_kv_blocks(struct fs_recorder *rec, size_t pool, int64_t kv_blocks)
{
	pool_of(rec, pool)->kv_blocks_per_instance = kv_blocks;
}

static struct fs_availability *avail_of(struct fs_recorder *rec, size_t pool)
{
	return pool == FS__REC_FLEET ? &rec->result->fleet.avail : &pool_of(rec, pool)->avail;
}

void fs__rec_avail_restart(struct fs_recorder *rec, size_t pool)
{
	*avail_of(rec, pool) = (struct fs_availability){ 0, 0, 0, INT64_MAX };
}

/* MODEL: F15, F16 — short: fewer serving than wanted; down: none serving
 * while some are wanted. */
void fs__rec_avail_span(struct fs_recorder *rec, size_t pool, double span_ns,
                        int serving, int wanted)
{
	struct fs_availability *a = avail_of(rec, pool);

	a->window_ns += span_ns;
	if (serving < wanted)
		a->short_ns += span_ns;
	if (serving == 0 && wanted > 0)
		a->down_ns += span_ns;
	if (serving < a->min_serving)
		a->min_serving = serving;
}

/* An empty window has no fewest: -1. */
void fs__rec_avail_close(struct fs_recorder *rec, size_t pool)
{
	struct fs_availability *a = avail_of(rec, pool);

	if (a->min_serving == INT64_MAX)
		a->min_serving = -1;
}

void fs__rec_scale_look(struct fs_recorder *rec, size_t pool, double interval_ns,
                        bool at_max, bool at_min, bool changed)
{
	struct fs_pool_result *pr = pool_of(rec, pool);

	pr->scale_looked_ns += interval_ns;
	if (at_max)
		pr->scale_at_max_ns += interval_ns;
	else if (at_min)
		pr->scale_at_min_ns += interval_ns;
	pr->scale_events += changed;
}

void fs__rec_idle_release(struct fs_recorder *rec, size_t pool, uint64_t n)
{
	pool_of(rec, pool)->idle_releases += n;          /* MODEL: A5 */
}

void fs__rec_scale_relaunch(struct fs_recorder *rec, size_t pool, uint64_t n)
{
	pool_of(rec, pool)->scale_relaunches += n;       /* MODEL: A11 */
}

void fs__rec_stranded(struct fs_recorder *rec, size_t pool, uint64_t n)
{
	pool_of(rec, pool)->stranded_requests = n;
}
