/*
 * test_rng_pin.c — one pinned draw: the seed and first values of the stream
 * (base seed 42, replication 3, ARRIVALS, index 1).  A change of generator,
 * of the seed derivation (splitmix64 of seed, replication, stream << 32 |
 * index) or of the 32-bit fold fails here before it silently moves every
 * figure.  The values were reproduced independently of GSL by a plain
 * splitmix64 and the reference MT19937 (init_genrand, genrand_int32 / 2^32).
 */
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

/* MT19937 uniforms are k / 2^32 exactly, so they compare exactly. */
static void test_rng_pin_first_uniforms(void **state)
{
	static const double want[] = {
		0.48507384676486254, 0.2723907963372767,
		0.9606335237622261, 0.2695781986694783,
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
	assert_int_equal(fs_rng_below(r, 1000), 416);
	assert_near(fs_rng_exponential(r, 2.0), 1.5314559041565479, 0, 1e-15);
	fs_rng_free(r);
}

/* Another stream index of the same replication starts elsewhere. */
static void test_rng_pin_neighbour_stream_differs(void **state)
{
	struct fs_rng *r = fs_rng_alloc(PIN_SEED, PIN_REP, FS_STREAM_ARRIVALS, PIN_INDEX + 1);

	(void)state;
	assert_true(fs_rng_uniform(r) != 0.48507384676486254);
	fs_rng_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_pin_derived_seed),
		cmocka_unit_test(test_rng_pin_first_uniforms),
		cmocka_unit_test(test_rng_pin_following_draws),
		cmocka_unit_test(test_rng_pin_neighbour_stream_differs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
