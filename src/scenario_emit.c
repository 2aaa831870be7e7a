/*
 * scenario_emit.c — the two value writers every scenario printer shares:
 * durations in their shortest exact unit, and numbers with the fewest
 * digits that read back exactly (cJSON's own printer loses 2^53).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fleetsim/scenario.h"
#include "scenario_walk.h"

void fs__sc_print_duration(cJSON *obj, const char *key, fs_ns dur_ns)
{
	char buf[40];

	fs_duration_format(dur_ns, buf, sizeof buf);
	cJSON_AddStringToObject(obj, key, buf);
}

void fs__sc_format_number(double v, char *buf, size_t buf_len)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, buf_len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, buf_len, "%.17g", v);
}

void fs__sc_print_number(cJSON *obj, const char *key, double v)
{
	char buf[40];

	fs__sc_format_number(v, buf, sizeof buf);
	cJSON_AddRawToObject(obj, key, buf);
}

void fs__sc_print_inverse(cJSON *obj, const char *key, double stored, double guess,
                          double (*forward)(double x, double arg), double arg)
{
	double up = guess, down = guess;
	int i;

	for (i = 0; i < 64; i++) {
		if (forward(up, arg) == stored) {
			fs__sc_print_number(obj, key, up);
			return;
		}
		if (forward(down, arg) == stored) {
			fs__sc_print_number(obj, key, down);
			return;
		}
		up = nextafter(up, INFINITY);
		down = nextafter(down, -INFINITY);
	}
	fs__sc_print_number(obj, key, guess);
}
