/*
 * summary_bill_warn.c — the warning that a horizon is too short for a
 * pool's billing (MODEL: B2): every instance's bill rounds up to whole
 * billing units (a second or an hour, at least the minimum charge), so over
 * a horizon of few units the rounding is a large part of the bill, and the
 * cost per hour and the monthly projection (F14) carry it.
 */
#include <stdio.h>

#include "fleetsim/scenario.h"
#include "fleetsim/summary.h"

/* Horizons under this many billing units are warned about: the rounding
 * may then add more than a tenth to an instance alive the whole horizon. */
#define BILL_UNITS_MIN 10

/* The billing unit of a usage-billed pool: its granularity, or its minimum
 * charge when that is longer. */
static fs_ns bill_unit_ns(const struct fs_billing_cfg *b)
{
	fs_ns unit = b->granularity == FS_BILL_PER_HOUR ? 3600 * FS_NS_PER_S : FS_NS_PER_S;

	return b->minimum_ns > unit ? b->minimum_ns : unit;
}

bool fs_summary_billing_warning(const struct fs_scenario *sc, size_t pool, char *buf,
                                size_t len)
{
	const struct fs_pool_cfg *pc;
	char horizon[32], unit[32], least[32];
	fs_ns unit_ns;

	buf[0] = '\0';
	if (sc->engine.kind != FS_ENGINE_VLLM || pool >= sc->fleet.n_pools)
		return false;
	pc = &sc->fleet.pools[pool];
	if (fs_pricing_committed(pc->pricing))
		return false;                   /* paid per period, pro rata */
	unit_ns = bill_unit_ns(&pc->billing);
	if (sc->sim.horizon_ns >= BILL_UNITS_MIN * unit_ns)
		return false;
	fs_duration_format(sc->sim.horizon_ns, horizon, sizeof horizon);
	fs_duration_format(unit_ns, unit, sizeof unit);
	fs_duration_format(BILL_UNITS_MIN * unit_ns, least, sizeof least);
	snprintf(buf, len, "pool %s: horizon %s is under %d billing units of %s: each "
	         "instance's bill rounds up to whole units, up to %s more than its alive "
	         "time, so the cost per hour and the monthly projection may overstate a "
	         "longer run's; lengthen the horizon to at least %s", pc->name, horizon,
	         BILL_UNITS_MIN, unit, unit, least);
	return true;
}
