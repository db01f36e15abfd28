// SPDX-License-Identifier: GPL-2.0
#include "model/time_scale.h"

#include <math.h>

#include "model/results.h"

double cycles_to_ns(const struct variant_result *r, double cycles)
{
	/* a run that failed before calibrating the TSC has no time scale: no time at all */
	if (r->tsc_khz == 0)
		return NAN;
	return cycles * 1e6 / (double)r->tsc_khz;
}
