/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig sweep` command line: the parameter axes, the outputs, and the run options after --. */
#ifndef PLERIG_SWEEP_OPTIONS_H
#define PLERIG_SWEEP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/sweep_grid.h"

struct sweep_options {
	struct sweep_grid grid;
	const char *json_path;	 /* the curve as JSON; "-" stdout */
	const char *csv_path;	 /* the curve as CSV; "-" stdout */
	const char *report_path; /* the curve as an HTML page; "-" stdout */
	bool restore;		 /* --restore: only put back what a crashed sweep changed */
	unsigned rounds;	 /* visits of every combination (1) */
	unsigned long long seed; /* of the shuffled order of the rounds */
	bool seed_given;	 /* else from the clock */
	/* --connect emulated: the whole sweep inside L1, which boots kernel_path */
	const char *connect, *kernel_path, *modules_path, *cache_dir;
	const char *module_params; /* --module-params: L1's modules reloaded with them */
	const char *param_args[PLE_MAX_PARAMS]; /* each --param as given: L1's sweep gets them */
	unsigned nr_param_args;
	int run_argc; /* the run options, after -- */
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

#endif
