/*
 * rng.h — named random streams.  Each stream of a replication is its own
 * generator, seeded from (base seed, replication, stream kind, index) through
 * a splitmix64 mix, so what one module draws never shifts another module's
 * numbers and results never depend on thread count or on which sweep point
 * runs (common random numbers).  This is the only module that includes
 * gsl_rng.h / gsl_randist.h.  One struct fs_rng per stream, owned by its
 * world; not thread-safe.
 */
#ifndef FLEETSIM_RNG_H
#define FLEETSIM_RNG_H

#include <stddef.h>
#include <stdint.h>

enum fs_stream {
	FS_STREAM_ARRIVALS = 1,      /* index: arrival source */
	FS_STREAM_CLASS_MIX = 2,     /* index: arrival source (class choice) */
	FS_STREAM_PROMPT_LEN = 3,    /* index: class */
	FS_STREAM_OUTPUT_LEN = 4,    /* index: class */
	FS_STREAM_SERVICE = 5,       /* index: server or replica */
	FS_STREAM_ROUTING = 6,
	FS_STREAM_SPOT = 7,
	FS_STREAM_FLEET = 8,
	FS_STREAM_THINK = 9,         /* index: class (closed-loop think times) */
	FS_STREAM_TURNS = 10         /* index: class (turns per session) */
};

struct fs_rng;

/* The seed a stream gets (exposed for tests and docs/DETERMINISM.md). */
uint64_t fs_rng_derive_seed(uint64_t base_seed, uint64_t replication,
                            enum fs_stream stream, uint32_t index);

/* New stream; caller frees with fs_rng_free (NULL is fine). */
struct fs_rng *fs_rng_alloc(uint64_t base_seed, uint64_t replication,
                            enum fs_stream stream, uint32_t index);
void fs_rng_free(struct fs_rng *r);

/* Name of the generator and seeding scheme, for provenance. */
const char *fs_rng_name(void);

double fs_rng_uniform(struct fs_rng *r);            /* [0, 1) */
double fs_rng_uniform_pos(struct fs_rng *r);        /* (0, 1) */
uint64_t fs_rng_below(struct fs_rng *r, uint64_t n);/* integer in [0, n), n >= 1 */
double fs_rng_exponential(struct fs_rng *r, double mean);
double fs_rng_gamma(struct fs_rng *r, double shape, double scale);
double fs_rng_weibull(struct fs_rng *r, double scale, double shape);
double fs_rng_lognormal(struct fs_rng *r, double mu, double sigma);
double fs_rng_normal(struct fs_rng *r, double sd);  /* mean 0 */

#endif
