/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig sweep` command line: the parameter axes, the outputs, and the run options after --. */
#ifndef PLERIG_SWEEP_OPTIONS_H
#define PLERIG_SWEEP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ple/host_params.h"

#define SWEEP_MAX_VALUES 64
#define SWEEP_MAX_POINTS 1024 /* combinations of all axes */

struct sweep_axis {
	char name[PLE_NAME_LEN];
	unsigned nr_values;
	char values[SWEEP_MAX_VALUES][PLE_VALUE_LEN];
};

struct sweep_options {
	unsigned nr_axes;
	struct sweep_axis axes[PLE_MAX_PARAMS];
	const char *json_path; /* the curve as JSON; "-" stdout */
	const char *csv_path;  /* the curve as CSV; "-" stdout */
	bool restore;	       /* --restore: only put back what a crashed sweep changed */
	int run_argc;	       /* the run options, after -- */
	char **run_argv;
};

enum sweep_options_status {
	SWEEP_OPTIONS_OK = 0,
	SWEEP_OPTIONS_HELP = 1,
	SWEEP_OPTIONS_ERROR = -1, /* message in err: exit 2 */
};

/* argv[0] is "sweep". */
enum sweep_options_status sweep_options_parse(int argc, char **argv, struct sweep_options *o,
					      char *err, size_t errlen);
void sweep_options_usage(FILE *out);

/* How many combinations the axes make. */
unsigned sweep_points(const struct sweep_options *o);
/* The settings of combination @k (0 <= k < sweep_points), last axis fastest. */
void sweep_point_settings(const struct sweep_options *o, unsigned k, struct ple_setting *set);

#endif
