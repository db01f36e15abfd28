/* SPDX-License-Identifier: GPL-2.0 */
/* Reading figures out of the ABI's log-linear histograms (plerig/histogram.h). */
#ifndef PLERIG_HIST_STATS_H
#define PLERIG_HIST_STATS_H

#include <stdint.h>

uint64_t hist_total(const uint64_t *hist, unsigned nbuckets);
void hist_merge(uint64_t *dst, const uint64_t *src, unsigned nbuckets);
/*
 * Value at quantile @q in [0, 1], interpolated linearly inside its bucket
 * (so the error is below one bucket width, <= 12.5% with 3 sub-bits);
 * 0 for an empty histogram.
 */
double hist_quantile(const uint64_t *hist, unsigned nbuckets, double q);

#endif
