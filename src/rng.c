/*
 * rng.c — named random streams over GSL's taus2 (L'Ecuyer's maximally
 * equidistributed combined Tausworthe generator; see rng.h).  Seeds come from
 * a splitmix64 mix of (base seed, replication, stream, index); taus2 is
 * seeded with the low 32 bits of the mixed value XOR its high 32 bits (GSL's
 * seeding takes an unsigned long but uses 32 bits).  Normal variates, and so
 * lognormal ones, come from GSL's ziggurat.  MODEL: D1 (DETERMINISM.md).
 */
#include "fleetsim/rng.h"

#include <assert.h>
#include <math.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleetsim/common.h"

struct fs_rng {
	gsl_rng *g;
};

static uint64_t splitmix64(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

uint64_t fs_rng_derive_seed(uint64_t base_seed, uint64_t replication,
                            enum fs_stream stream, uint32_t index)
{
	uint64_t h = splitmix64(base_seed);

	h = splitmix64(h ^ replication);
	h = splitmix64(h ^ ((uint64_t)stream << 32 | index));
	return h;
}

struct fs_rng *fs_rng_alloc(uint64_t base_seed, uint64_t replication,
                            enum fs_stream stream, uint32_t index)
{
	struct fs_rng *r = fs_xmalloc(sizeof *r);
	uint64_t seed = fs_rng_derive_seed(base_seed, replication, stream, index);
	unsigned long seed32 = (unsigned long)((seed ^ (seed >> 32)) & 0xFFFFFFFFu);

	/* taus2, not MT19937: three words of state instead of 624 (a world
	 * holds a stream per class, source, pool and replica) and no
	 * data-dependent branch in its step (docs/PERFORMANCE.md, the
	 * eighteenth speed round) */
	r->g = gsl_rng_alloc(gsl_rng_taus2);
	if (r->g == NULL) {
		fprintf(stderr, "fleetsim: out of memory allocating a gsl_rng\n");
		abort();
	}
	/* GSL maps seed 0 to its default seed (1 for taus2); keep 0 distinct. */
	gsl_rng_set(r->g, seed32 == 0 ? 0x6a09e667UL : seed32);
	return r;
}

void fs_rng_free(struct fs_rng *r)
{
	if (r == NULL)
		return;
	gsl_rng_free(r->g);
	free(r);
}

const char *fs_rng_name(void)
{
	return "gsl_rng_taus2, normals by gsl_ran_gaussian_ziggurat; "
	       "stream seed = splitmix64(seed, replication, stream, index)";
}

double fs_rng_uniform(struct fs_rng *r)
{
	return gsl_rng_uniform(r->g);
}

double fs_rng_uniform_pos(struct fs_rng *r)
{
	return gsl_rng_uniform_pos(r->g);
}

uint64_t fs_rng_below(struct fs_rng *r, uint64_t n)
{
	assert(n >= 1);
	if (n <= 0xFFFFFFFFu)
		return gsl_rng_uniform_int(r->g, (unsigned long)n);
	/* Wider ranges: two 32-bit draws, rejection to stay unbiased. */
	for (;;) {
		uint64_t hi = gsl_rng_get(r->g) & 0xFFFFFFFFu;
		uint64_t lo = gsl_rng_get(r->g) & 0xFFFFFFFFu;
		uint64_t x = hi << 32 | lo;
		uint64_t limit = UINT64_MAX - UINT64_MAX % n;

		if (x < limit)
			return x % n;
	}
}

double fs_rng_exponential(struct fs_rng *r, double mean)
{
	return gsl_ran_exponential(r->g, mean);
}

double fs_rng_gamma(struct fs_rng *r, double shape, double scale)
{
	return gsl_ran_gamma(r->g, shape, scale);
}

double fs_rng_weibull(struct fs_rng *r, double scale, double shape)
{
	return gsl_ran_weibull(r->g, scale, shape);
}

double fs_rng_lognormal(struct fs_rng *r, double mu, double sigma)
{
	/* gsl_ran_lognormal's exp(zeta + sigma z), z by the ziggurat: one draw
	 * and a table lookup in most calls, where gsl_ran_lognormal's polar
	 * method takes a rejection loop, a log, a sqrt and about 2.5 draws */
	return exp(mu + sigma * gsl_ran_gaussian_ziggurat(r->g, 1.0));
}

double fs_rng_normal(struct fs_rng *r, double sd)
{
	return gsl_ran_gaussian_ziggurat(r->g, sd);
}
