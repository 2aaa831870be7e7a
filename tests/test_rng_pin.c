/*
 * test_rng_pin.c — one pinned draw: the seed and first values of the stream
 * (base seed 42, replication 3, ARRIVALS, index 1).  A change of generator,
 * of the seed derivation (splitmix64 of seed, replication, stream << 32 |
 * index) or of the 32-bit fold fails here before it silently moves every
 * figure.  The uniforms, the integer and the exponential were reproduced
 * independently of GSL by a plain splitmix64 and L'Ecuyer's taus88 step
 * with taus2's seeding (three LCG(69069) words raised to at least 2, 8 and
 * 16, six warm-up steps; uniform = output / 2^32).  The normal draws are
 * GSL's ziggurat's, pinned so that a change of method shows here.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fleetsim/rng.h"
#include "util_test.h"

#define PIN_SEED 42
#define PIN_REP 3
#define PIN_INDEX 1

static void test_rng_pin_derived_seed(void **state)
{
	(void)state;
	assert_true(fs_rng_derive_seed(PIN_SEED, PIN_REP, FS_STREAM_ARRIVALS, PIN_INDEX) ==
	            UINT64_C(32469299660622034));
}

/* taus2 uniforms are k / 2^32 exactly, so they compare exactly. */
static void test_rng_pin_first_uniforms(void **state)
{
	static const double want[] = {
		0.95250952546484768, 0.10826618224382401,
		0.12381168571300805, 0.029831926105543971,
	};
	struct fs_rng *r = fs_rng_alloc(PIN_SEED, PIN_REP, FS_STREAM_ARRIVALS, PIN_INDEX);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof want / sizeof want[0]; i++)
		assert_true(fs_rng_uniform(r) == want[i]);
	fs_rng_free(r);
}

/* The draws after those four: an integer below 1000 and an exponential of
 * mean 2 (GSL's -mean * log1p(-u)), to 1e-15 relative for the log. */
static void test_rng_pin_following_draws(void **state)
{
	struct fs_rng *r = fs_rng_alloc(PIN_SEED, PIN_REP, FS_STREAM_ARRIVALS, PIN_INDEX);
	int i;

	(void)state;
	for (i = 0; i < 4; i++)
		(void)fs_rng_uniform(r);
	assert_int_equal(fs_rng_below(r, 1000), 510);
	assert_near(fs_rng_exponential(r, 2.0), 9.4654468232957569, 0, 1e-15);
	fs_rng_free(r);
}

/* Then three standard normals by GSL's ziggurat, and a lognormal that is
 * exp(mu + sigma z) of the next one: the same draw from a second stream of
 * the same seed, so it compares exactly. */
static void test_rng_pin_normal_draws(void **state)
{
	static const double want[] = {
		0.49590671539797448, 0.48038037145920942, 0.42852397874710385,
	};
	struct fs_rng *r = fs_rng_alloc(PIN_SEED, PIN_REP, FS_STREAM_ARRIVALS, PIN_INDEX);
	struct fs_rng *twin = fs_rng_alloc(PIN_SEED, PIN_REP, FS_STREAM_ARRIVALS, PIN_INDEX);
	size_t i;
	double z;

	(void)state;
	for (i = 0; i < 6; i++) {
		(void)fs_rng_uniform(r);
		(void)fs_rng_uniform(twin);
	}
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		assert_near(fs_rng_normal(r, 1.0), want[i], 0, 1e-15);
		(void)fs_rng_normal(twin, 1.0);
	}
	z = fs_rng_normal(twin, 1.0);
	assert_true(fs_rng_lognormal(r, 6.0, 0.9) == exp(6.0 + 0.9 * z));
	assert_near(exp(6.0 + 0.9 * z), 62.625413752161606, 0, 1e-12);
	fs_rng_free(twin);
	fs_rng_free(r);
}

/* Another stream index of the same replication starts elsewhere. */
static void test_rng_pin_neighbour_stream_differs(void **state)
{
	struct fs_rng *r = fs_rng_alloc(PIN_SEED, PIN_REP, FS_STREAM_ARRIVALS, PIN_INDEX + 1);

	(void)state;
	assert_true(fs_rng_uniform(r) != 0.95250952546484768);
	fs_rng_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_pin_derived_seed),
		cmocka_unit_test(test_rng_pin_first_uniforms),
		cmocka_unit_test(test_rng_pin_following_draws),
		cmocka_unit_test(test_rng_pin_normal_draws),
		cmocka_unit_test(test_rng_pin_neighbour_stream_differs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
