/*
 * perf_knee.c — the smooth max's factor (1 + r^n)^(1/n) (MODEL: P11) as a
 * table of polynomials, for the step prices where pow() cost the most
 * (MODEL: V24).  On each sixteenth of a binade of r the factor is analytic;
 * for the exponents in use (1.63 by default) its nearest singularities
 * (r = 0, and r^n = -1 at angles +-pi/n) lie at least 32 half-widths away,
 * so a Chebyshev interpolant of degree 7 is within ~64^-8 (4e-15) of it.
 * A piece is fitted on first use and checked against pow() at 16 points;
 * one whose error passes FS_PERF_KNEE_REL_ERR (near r = 1 for a large
 * exponent) is refused and left to pow().
 */
#include <math.h>
#include <string.h>

#include "fleetsim/perf.h"
#include "perf_internal.h"

#define TERMS FS_PERF_KNEE_TERMS
#define PARTS FS_PERF_KNEE_PARTS

/* Below 2^-44 a factor of 1 is within FS_PERF_KNEE_REL_ERR: in binade k,
 * r^n / n < 2^-(k-1)n, at most 2^-44 when (k - 1) n >= 44. */
#define ONE_BELOW_LOG2 44.0

static double exact_factor(double r, double knee_exp)
{
	return pow(1.0 + pow(r, knee_exp), 1.0 / knee_exp);
}

/* r at x in [-1, 1] of piece `part` of binade b: the mantissa's sixteenth
 * [1 + part/16, 1 + (part + 1)/16), centred, scaled by 2^-b. */
static double piece_r(int b, int part, double x)
{
	return ldexp(1.0 + (part + 0.5) / PARTS + x / (2.0 * PARTS), -b);
}

/* The monomial coefficients (in x) of the interpolant through the factor
 * at the Chebyshev nodes of one piece. */
static void fit_piece(int b, int part, double knee_exp, double *coef)
{
	double f[TERMS], a[TERMS], t_prev[TERMS], t_cur[TERMS], t_next[TERMS];
	int i, j;

	for (j = 0; j < TERMS; j++)
		f[j] = exact_factor(piece_r(b, part, cos(M_PI * (j + 0.5) / TERMS)), knee_exp);
	for (i = 0; i < TERMS; i++) {
		double s = 0;

		for (j = 0; j < TERMS; j++)
			s += f[j] * cos(M_PI * i * (j + 0.5) / TERMS);
		a[i] = (i == 0 ? 1.0 : 2.0) * s / TERMS;
	}
	/* sum of a_i T_i(x), the T_i built by T_{i+1} = 2x T_i - T_{i-1} */
	memset(coef, 0, TERMS * sizeof *coef);
	memset(t_prev, 0, sizeof t_prev);
	memset(t_cur, 0, sizeof t_cur);
	t_prev[0] = 1.0;                 /* T_0 */
	t_cur[1] = 1.0;                  /* T_1 */
	coef[0] = a[0];
	for (i = 1; i < TERMS; i++) {
		for (j = 0; j < TERMS; j++)
			coef[j] += a[i] * t_cur[j];
		for (j = 0; j < TERMS; j++)
			t_next[j] = (j > 0 ? 2.0 * t_cur[j - 1] : 0.0) - t_prev[j];
		memcpy(t_prev, t_cur, sizeof t_cur);
		memcpy(t_cur, t_next, sizeof t_next);
	}
}

/* The largest relative error of piece (b, part) at 16 points across it,
 * its ends included (between the nodes and at the ends, where an
 * interpolant's error peaks). */
static double piece_error(const double *coef, int b, int part, double knee_exp)
{
	double worst = 0;
	int i;

	for (i = 0; i < 16; i++) {
		double r = piece_r(b, part, -1.0 + 2.0 * i / 15.0), want, got, err;
		/* x as the lookup computes it from r */
		double xr = (ldexp(r, b) - (1.0 + (part + 0.5) / PARTS)) * (2.0 * PARTS);

		want = exact_factor(r, knee_exp);
		got = fs__perf_knee_poly(coef, xr);
		err = fabs(got - want) / want;
		if (!(err <= worst))     /* NaN counts as the worst */
			worst = isnan(err) ? INFINITY : err;
	}
	return worst;
}

static void refuse(double *coef)
{
	int i;

	for (i = 0; i < TERMS; i++)
		coef[i] = NAN;           /* the factor is NaN: priced exactly */
}

void fs__perf_knee_build(struct fs_perf_knee *k, size_t piece)
{
	int b = (int)(piece / PARTS), part = (int)(piece % PARTS);
	double *coef = k->coef[piece];

	fit_piece(b, part, k->knee_exp, coef);
	if (piece_error(coef, b, part, k->knee_exp) > FS_PERF_KNEE_REL_ERR) {
		/* near r = 1 for a large exponent the factor bends too sharply
		 * (r^n = -1 at angles pi/n) for one polynomial: left to pow() */
		refuse(coef);
		k->refused++;
	}
	k->built++;
}

void fs__perf_knee_init(struct fs_perf_knee *k, double knee_exp)
{
	int part, i;

	k->ok = false;
	if (!(knee_exp >= 1.0 && knee_exp <= 64.0))
		return;                  /* never used: every factor exact */
	k->knee_exp = knee_exp;
	k->one_from = (int)ceil(ONE_BELOW_LOG2 / knee_exp) + 1;
	k->table_to = k->one_from < FS_PERF_KNEE_BINADES ? k->one_from : FS_PERF_KNEE_BINADES;
	k->refused = 0;
	k->built = 0;
	/* 0: built on first use (a factor is at least 1, a refused one NaN) */
	memset(k->coef, 0, (size_t)k->table_to * PARTS * sizeof k->coef[0]);
	/* binade 0 holds one ratio that occurs, r = 1 (r = lo / hi <= 1): its
	 * piece 0 that factor as a constant, the others refused */
	for (part = 0; part < PARTS; part++)
		refuse(k->coef[part]);
	k->coef[0][0] = exact_factor(1.0, knee_exp);
	for (i = 1; i < TERMS; i++)
		k->coef[0][i] = 0;
	k->ok = true;
}
