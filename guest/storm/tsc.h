/* SPDX-License-Identifier: GPL-2.0 */
/* The storm's clock, for the guest and the native baseline alike. */
#ifndef PLERIG_STORM_TSC_H
#define PLERIG_STORM_TSC_H

#include <stdint.h>

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#endif
