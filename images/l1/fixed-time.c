// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD for Bochs under make ple-test: time() answers the start of L1's
 * clock (time0 in the bochsrc), whatever the host's clock says.
 *
 * Bochs seeds rand() with time(NULL) when it creates its CPUs and answers
 * RDRAND and RDSEED with rand(). With the host's clock as the seed every run
 * gave L1 other random seeds (stack canaries, freelist and page shuffling,
 * the CRNG, user ASLR) and took another path: the figures moved between runs
 * of the same boot medium. With this seed they do not. L1 keeps RDRAND, so
 * its CRNG is ready at once (booted without RDRAND it had to gather jitter
 * entropy first, busy, for up to ~17 emulated seconds).
 *
 * PLERIG_L1_SEED=N (make ple-test's PLE_TEST_SEED) adds N seconds to the
 * answer: the same medium then takes another path, one per seed, as
 * reproducible (a sample of the paths that different media take).
 */
#include <stdlib.h>
#include <time.h>

#define L1_TIME0 946684800 /* 2000-01-01 00:00:00 UTC */

time_t time(time_t *t)
{
	const char *seed = getenv("PLERIG_L1_SEED");
	time_t v = L1_TIME0 + (seed ? strtol(seed, NULL, 10) : 0);
	if (t)
		*t = v;
	return v;
}
