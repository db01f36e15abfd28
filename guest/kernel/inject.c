// SPDX-License-Identifier: GPL-2.0
#include "kernel/inject.h"

void inject_garbage(struct plerig_vcpu_result *r)
{
	const uint64_t half = 1ull << 63;

	r->acquisitions += half;
	r->unmeasured_acquisitions += half; /* wraps: + 2^64, the counter still matches */
	r->stalls += half;
	r->stalled_cycles += half;
	r->hist_wait[PLERIG_HIST_BUCKETS - 1] = ~0ull - (1ull << 62);
	r->hist_hold[PLERIG_HIST_BUCKETS - 1] = ~0ull - (1ull << 62);
}
