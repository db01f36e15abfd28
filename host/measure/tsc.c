// SPDX-License-Identifier: GPL-2.0
#include "measure/tsc.h"

#include <time.h>

static uint64_t raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t tsc_calibrate_khz(unsigned window_ms)
{
	const uint64_t n0 = raw_ns(), c0 = rdtsc();
	const struct timespec wait = {(time_t)(window_ms / 1000),
				      (long)(window_ms % 1000) * 1000000L};
	nanosleep(&wait, NULL);
	const uint64_t n1 = raw_ns(), c1 = rdtsc();
	return n1 > n0 ? (c1 - c0) * 1000000ull / (n1 - n0) : 0;
}
