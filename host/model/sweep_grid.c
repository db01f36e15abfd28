// SPDX-License-Identifier: GPL-2.0
#include "model/sweep_grid.h"

#include "util/strfmt.h"

unsigned sweep_points(const struct sweep_grid *g)
{
	unsigned long long n = 1;
	for (unsigned i = 0; i < g->nr_axes; i++) {
		n *= g->axes[i].nr_values;
		if (n > SWEEP_MAX_POINTS)
			return SWEEP_MAX_POINTS + 1;
	}
	return (unsigned)n;
}

void sweep_point_settings(const struct sweep_grid *g, unsigned k, struct ple_setting *set)
{
	for (unsigned i = g->nr_axes; i-- > 0;) {
		const struct sweep_axis *a = &g->axes[i];
		str_copy(set[i].name, sizeof(set[i].name), a->name);
		str_copy(set[i].value, sizeof(set[i].value), a->values[k % a->nr_values]);
		k /= a->nr_values;
	}
}
