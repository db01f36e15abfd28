/* SPDX-License-Identifier: GPL-2.0 */
/* The host PLE parameter values a sweep visits: every combination of its axes. */
#ifndef PLERIG_SWEEP_GRID_H
#define PLERIG_SWEEP_GRID_H

#include "ple/host_params.h"

#define SWEEP_MAX_VALUES 64
#define SWEEP_MAX_POINTS 1024 /* combinations of all axes */

struct sweep_axis {
	char name[PLE_NAME_LEN];
	unsigned nr_values;
	char values[SWEEP_MAX_VALUES][PLE_VALUE_LEN];
};

struct sweep_grid {
	unsigned nr_axes;
	struct sweep_axis axes[PLE_MAX_PARAMS];
};

/* How many combinations the axes make (SWEEP_MAX_POINTS + 1: too many). */
unsigned sweep_points(const struct sweep_grid *g);
/* The settings of combination @k (0 <= k < sweep_points), last axis fastest. */
void sweep_point_settings(const struct sweep_grid *g, unsigned k, struct ple_setting *set);

#endif
