/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig run` options -> a run plan: the command-line contract scripts are written against. */
#ifndef PLERIG_RUN_OPTIONS_H
#define PLERIG_RUN_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "model/plan.h"

enum run_options_status {
	RUN_OPTIONS_OK = 0,
	RUN_OPTIONS_HELP = 1,	/* --help was printed: exit 0 */
	RUN_OPTIONS_ERROR = -1, /* message in err: exit 2 */
};

/*
 * argv[0] is "run" (getopt starts at argv[1]). Starts from
 * run_plan_defaults(), so @o needs no preparation; without --vcpus the
 * axis is sized to --pcpus (n and 2n, at most PLERIG_MAX_VCPUS). Lists
 * given twice: the last one wins.
 */
enum run_options_status run_options_parse(int argc, char **argv, struct run_plan *o, char *err,
					  size_t errlen);
/* The same without printing the usage on --help (RUN_OPTIONS_HELP all the same): a suite's. */
enum run_options_status run_options_read(int argc, char **argv, struct run_plan *o, char *err,
					 size_t errlen);
void run_options_usage(FILE *out);

#endif
