/*
 * summary_warnings.c — every warning of a summary, one at a time, in one
 * order: the list summary.json's "warnings" holds, the console table prints
 * and a variant without its table writes to stderr, so the three cannot
 * drift apart.  The texts are the kinds' own functions'.
 */
#include "fleetsim/summary.h"

/* How many warnings of `kind` there may be: one per pool, one per scaler
 * warning, or one. */
static size_t kind_slots(const struct fs_summary *s, enum fs_summary_warning_kind kind)
{
	if (kind == FS_WARN_SPOT_HORIZON || kind == FS_WARN_BILLING)
		return s->n_pools;
	if (kind == FS_WARN_SCALE)
		return FS_SCALE_WARNINGS;
	return 1;
}

static bool slot_warning(const struct fs_summary *s, const struct fs_scenario *sc,
                         enum fs_summary_warning_kind kind, size_t i, char *buf, size_t len)
{
	if (kind == FS_WARN_SPOT_HORIZON)
		return fs_summary_pool_warning(s, sc, i, buf, len);
	if (kind == FS_WARN_BILLING)
		return fs_summary_billing_warning(sc, i, buf, len);
	if (kind == FS_WARN_SCALE)
		return fs_summary_scale_warning(s, sc, (int)i, buf, len);
	return fs_summary_skew_warning(s, buf, len);
}

bool fs_summary_warning_next(const struct fs_summary *s, const struct fs_scenario *sc,
                             struct fs_summary_warning_cursor *cur,
                             enum fs_summary_warning_kind *kind, char *buf, size_t len)
{
	for (; cur->kind < FS_WARN_KINDS; cur->kind++, cur->slot = 0) {
		enum fs_summary_warning_kind k = (enum fs_summary_warning_kind)cur->kind;

		while (cur->slot < kind_slots(s, k))
			if (slot_warning(s, sc, k, cur->slot++, buf, len)) {
				*kind = k;
				return true;
			}
	}
	if (len > 0)
		buf[0] = '\0';
	return false;
}
