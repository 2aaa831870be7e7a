/*
 * report_words.c — figures in the report's words: numbers at a precision
 * suited to their size, intervals as "value [low, high]" (or "value (same in
 * every replication)" when the interval has zero width), shares in percent,
 * whether a share reaches its target (yes, no, or undecided with the
 * replications that would decide it, also as summary.json states it) and
 * signed cost differences ("costs X more" / "costs X less", never a
 * negative saving).  Each writes into the caller's buffer and returns it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fleetsim/stats.h"
#include "report_internal.h"

const char *fs__num_text(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

/* Zero width: every replication gave the same value (no spread to show). */
static int exact(struct fs__ci ci)
{
	return !isnan(ci.value) && ci.lo == ci.value && ci.hi == ci.value;
}

const char *fs__ci_text(char *buf, size_t len, struct fs__ci ci)
{
	char a[32], b[32], c[32];

	if (isnan(ci.value))
		snprintf(buf, len, "n/a");
	else if (isnan(ci.lo) || isnan(ci.hi))
		snprintf(buf, len, "%s", fs__num_text(a, sizeof a, ci.value));
	else if (exact(ci))
		snprintf(buf, len, "%s (same in every replication)",
		         fs__num_text(a, sizeof a, ci.value));
	else
		snprintf(buf, len, "%s [%s, %s]", fs__num_text(a, sizeof a, ci.value),
		         fs__num_text(b, sizeof b, ci.lo), fs__num_text(c, sizeof c, ci.hi));
	return buf;
}

const char *fs__pct_ci_text(char *buf, size_t len, struct fs__ci ci)
{
	if (isnan(ci.value))
		snprintf(buf, len, "n/a");
	else if (isnan(ci.lo) || isnan(ci.hi))
		snprintf(buf, len, "%.1f%%", 100 * ci.value);
	else if (exact(ci))
		snprintf(buf, len, "%.1f%% (same in every replication)", 100 * ci.value);
	else
		snprintf(buf, len, "%.1f%% [%.1f%%, %.1f%%]", 100 * ci.value,
		         100 * (ci.lo < 0 ? 0 : ci.lo), 100 * (ci.hi > 1 ? 1 : ci.hi));
	return buf;
}

/* MODEL: M7 — "yes", "no", "undecided: 35 replications would decide it". */
const char *fs__verdict_text(char *buf, size_t len, int verdict, size_t needed)
{
	switch ((enum fs_share_verdict)verdict) {
	case FS_SHARE_MET:
		snprintf(buf, len, "yes");
		break;
	case FS_SHARE_NOT_MET:
		snprintf(buf, len, "no");
		break;
	case FS_SHARE_UNDECIDED:
		if (needed > 0)
			snprintf(buf, len, "undecided: %zu replications would decide it", needed);
		else
			snprintf(buf, len, "undecided");
		break;
	}
	return buf;
}

/* "costs USD 12.30 more", "costs USD 3.20 less", "costs the same" (diff =
 * this one minus the reference, in `unit` such as "USD", or "" for none). */
const char *fs__diff_text(char *buf, size_t len, double diff, const char *unit)
{
	char a[32];

	if (isnan(diff))
		snprintf(buf, len, "costs an unknown amount more or less");
	else if (diff == 0)
		snprintf(buf, len, "costs the same");
	else
		snprintf(buf, len, "costs %s%s%s %s", unit, *unit ? " " : "",
		         fs__num_text(a, sizeof a, fabs(diff)), diff > 0 ? "more" : "less");
	return buf;
}

/* MODEL: M7 — summary.json's verdict on P(SLO met) in words ("yes", "no",
 * "undecided: 35 replications would decide it") and its label ("P(SLO met)
 * at least 90%? (decided on its 95% interval)"); 0 when the file has none. */
int fs__slo_verdict_text(const cJSON *s, char *words, size_t len, char *label, size_t llen)
{
	const cJSON *v = fs__jget(s, "metrics.all.p_slo_met_verdict");
	const char *name = fs__jstr(v, "verdict");
	double needed = fs__jnum(v, "replications_needed");
	int verdict;

	if (!name)
		return 0;
	verdict = strcmp(name, "met") == 0 ? FS_SHARE_MET :
	          strcmp(name, "not_met") == 0 ? FS_SHARE_NOT_MET : FS_SHARE_UNDECIDED;
	fs__verdict_text(words, len, verdict, isnan(needed) ? 0 : (size_t)needed);
	snprintf(label, llen, "P(SLO met) at least %.0f%%? (decided on its 95%% interval)",
	         100 * fs__jnum(v, "target"));
	return 1;
}

void fs__availability_texts(const cJSON *s, char *share, char *outage, char *total,
                            size_t len)
{
	fs__pct_ci_text(share, len, fs__jci(s, "availability.fleet.availability"));
	fs__ci_text(outage, len, fs__jci(s, "availability.fleet.outage_minutes_per_month"));
	fs__ci_text(total, len, fs__jci(s, "availability.fleet.total_outage_minutes_per_month"));
}
