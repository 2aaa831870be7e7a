/*
 * civil_date.h — internal: proleptic Gregorian dates to and from days since
 * 1970-01-01, exact in integers (H. Hinnant's days_from_civil and
 * civil_from_days).  Base layer: the request-trace reader (trace.c) and the
 * budget plan (budget_*.c) use it.  No validation: callers check the ranges.
 */
#ifndef FLEETSIM_CIVIL_DATE_H
#define FLEETSIM_CIVIL_DATE_H

#include <stdint.h>

/* Days from 1970-01-01 to year y, month m (1-12), day d (1-31); negative
 * before 1970. */
int64_t fs__civil_days(int64_t y, int64_t m, int64_t d);

/* Days since 1970-01-01 to year, month (1-12) and day (1-31). */
void fs__civil_date(int64_t day, int *y, int *m, int *d);

#endif
