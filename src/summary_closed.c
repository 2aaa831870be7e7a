/*
 * summary_closed.c — which figures a closed-loop run reports "by
 * concurrency" (MODEL: U7): the users behind them and the group (one class,
 * or all traffic) they come from.  Pure; borrows the summary and scenario.
 */
#include "fleetsim/summary.h"

int fs_summary_closed_group(const struct fs_summary *s, const struct fs_scenario *sc,
                            int64_t *users, bool *scheduled)
{
	const struct fs_workload_cfg *wl = &sc->workload;
	size_t n_closed = 0, last = 0;

	*users = 0;
	*scheduled = false;
	for (size_t c = 0; c < wl->n_classes; c++) {
		const struct fs_closed_cfg *cc = wl->classes[c].closed;

		if (cc == NULL || !cc->has_users)
			continue;
		*users += cc->users_max;
		*scheduled = *scheduled || cc->n_schedule > 0;
		n_closed++;
		last = c;
	}
	if (n_closed == 0)
		return -1;
	if (n_closed == 1 && wl->n_classes > 1 && last < s->n_classes)
		return (int)last;
	return (int)s->n_classes;
}
