/*
 * summary_scale.c — the autoscaler's warnings (MODEL: A11), from the
 * summary of its pool: work left queued at the end with no instance, a
 * scaler that sat at its max or at its lower bound for most of the run,
 * and flapping (more launches per hour than the scenario allows).  Text
 * only; summary.json, the console table and the report list them.
 */
#include <math.h>
#include <stdio.h>

#include "fleetsim/summary.h"

/* Share of the autoscaler's looks above which "most of the run" holds. */
#define MOST_OF_THE_RUN 0.5

bool fs_summary_scale_warning(const struct fs_summary *s, const struct fs_scenario *sc,
                              int k, char *buf, size_t len)
{
	const struct fs_autoscale_cfg *ac = &sc->fleet.autoscale;
	const struct fs_pool_summary *ps;
	const struct fs_pool_cfg *pc;

	buf[0] = '\0';
	if (!ac->enabled || ac->pool < 0 || (size_t)ac->pool >= s->n_pools)
		return false;
	ps = &s->pools[ac->pool];
	pc = &sc->fleet.pools[ac->pool];
	switch (k) {
	case 0:
		if (!(ps->stranded.value > 0))
			return false;
		snprintf(buf, len, "pool %s: the run ended with %.4g requests queued (mean per "
		         "replication) and no instance serving or starting: the autoscaler "
		         "left work without capacity", ps->name, ps->stranded.value);
		return true;
	case 1:
		if (!(ps->scale_at_max.value > MOST_OF_THE_RUN) || pc->max_count <= pc->min_count)
			return false;
		snprintf(buf, len, "pool %s: the autoscaler sat at max (%d) for %.0f%% of the "
		         "run: raise max, or use a metric that falls as instances are added "
		         "(busy is ~1 whenever one request runs)", ps->name, pc->max_count,
		         100 * ps->scale_at_max.value);
		return true;
	case 2:
		if (!(ps->scale_at_min.value > MOST_OF_THE_RUN) || pc->max_count <= pc->min_count)
			return false;
		snprintf(buf, len, "pool %s: the autoscaler sat at its lower bound (min %d, "
		         "schedule or forecast) for %.0f%% of the run: the bound, not the "
		         "load, sets the fleet", ps->name, pc->min_count,
		         100 * ps->scale_at_min.value);
		return true;
	case 3:
		if (!(ps->relaunches_per_h.value > ac->flap_launches_per_h))
			return false;
		snprintf(buf, len, "pool %s: flapping: %.3g launches per hour within an hour "
		         "of a release (more than %.3g): lengthen the scale-down window or "
		         "the zero grace period", ps->name, ps->relaunches_per_h.value,
		         ac->flap_launches_per_h);
		return true;
	default:
		return false;
	}
}
