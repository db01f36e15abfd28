/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PLERIG_CLOCK_H
#define PLERIG_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
	nanosleep(&ts, NULL);
}

#endif
