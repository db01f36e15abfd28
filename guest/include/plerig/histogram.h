/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Value -> bucket mapping of the ABI's log-linear histograms, shared by the
 * storm (which fills them in the hot path: a clz and two shifts) and the
 * host (which reads percentiles out of them).
 */
#ifndef PLERIG_HISTOGRAM_H
#define PLERIG_HISTOGRAM_H

#include <stdint.h>

#include "plerig/abi.h"

#define PLERIG_HIST_SUB_COUNT (1u << PLERIG_HIST_SUB_BITS)

static inline unsigned plerig_hist_bucket(uint64_t value)
{
	if (value < PLERIG_HIST_SUB_COUNT)
		return (unsigned)value;
	unsigned msb = 63u - (unsigned)__builtin_clzll(value);
	unsigned shift = msb - PLERIG_HIST_SUB_BITS;
	unsigned sub = (unsigned)(value >> shift) & (PLERIG_HIST_SUB_COUNT - 1u);
	return ((shift + 1u) << PLERIG_HIST_SUB_BITS) + sub;
}

/* Smallest value that lands in @bucket. */
static inline uint64_t plerig_hist_bucket_low(unsigned bucket)
{
	if (bucket < PLERIG_HIST_SUB_COUNT)
		return bucket;
	unsigned shift = (bucket >> PLERIG_HIST_SUB_BITS) - 1u;
	uint64_t sub = bucket & (PLERIG_HIST_SUB_COUNT - 1u);
	return (PLERIG_HIST_SUB_COUNT + sub) << shift;
}

/* Number of distinct values that land in @bucket. */
static inline uint64_t plerig_hist_bucket_width(unsigned bucket)
{
	if (bucket < PLERIG_HIST_SUB_COUNT)
		return 1;
	return 1ull << ((bucket >> PLERIG_HIST_SUB_BITS) - 1u);
}

#endif
