// SPDX-License-Identifier: GPL-2.0
#include "measure/hist_stats.h"

#include "plerig/histogram.h"

uint64_t hist_total(const uint64_t *hist, unsigned nbuckets)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < nbuckets; i++)
		total += hist[i];
	return total;
}

void hist_merge(uint64_t *dst, const uint64_t *src, unsigned nbuckets)
{
	for (unsigned i = 0; i < nbuckets; i++)
		dst[i] += src[i];
}

double hist_quantile(const uint64_t *hist, unsigned nbuckets, double q)
{
	uint64_t total = hist_total(hist, nbuckets);
	if (total == 0)
		return 0.0;
	/* NaN too: it compares false, so it would skip every bucket */
	if (!(q >= 0.0))
		q = 0.0;
	if (q > 1.0)
		q = 1.0;
	/* rank of the wanted sample, 1-based, as in the nearest-rank method */
	double rank = q * (double)total;
	if (rank < 1.0)
		rank = 1.0;
	uint64_t seen = 0;
	for (unsigned b = 0; b < nbuckets; b++) {
		if (hist[b] == 0)
			continue;
		if ((double)(seen + hist[b]) >= rank) {
			/* spread the bucket's samples evenly over its width */
			double into = (rank - (double)seen) / (double)hist[b];
			return (double)plerig_hist_bucket_low(b) +
			       into * (double)(plerig_hist_bucket_width(b) - 1);
		}
		seen += hist[b];
	}
	return (double)plerig_hist_bucket_low(nbuckets - 1);
}
