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
 */
#include <time.h>

#define L1_TIME0 946684800 /* 2000-01-01 00:00:00 UTC */

time_t time(time_t *t)
{
	if (t)
		*t = L1_TIME0;
	return L1_TIME0;
}
