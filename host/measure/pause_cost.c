// SPDX-License-Identifier: GPL-2.0
#include "measure/pause_cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/tsc.h"

#define PAUSES 20000u
#define TRIES  7

void pause_cost_measure(struct pause_cost *out)
{
	memset(out, 0, sizeof(*out));
	out->pauses = PAUSES;
	double least = INFINITY;
	for (int t = 0; t < TRIES; t++) {
		const uint64_t c0 = rdtsc();
		for (unsigned i = 0; i < PAUSES; i++)
			__asm__ volatile("pause" ::: "memory");
		const uint64_t c1 = rdtsc();
		if (c1 > c0)
			least = fmin(least, (double)(c1 - c0) / PAUSES);
	}
	out->tsc_khz = tsc_calibrate_khz(20);
	if (!isfinite(least) || !out->tsc_khz) {
		snprintf(out->why, sizeof(out->why),
			 "the TSC did not advance over %u PAUSEs, or its rate is unknown", PAUSES);
		return;
	}
	out->valid = true;
	out->tsc_cycles = least;
	out->ns = least * 1e6 / (double)out->tsc_khz;
}
