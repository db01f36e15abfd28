/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig tune` command line: the parameter, the budget, the outputs, and the shapes after --. */
#ifndef PLERIG_TUNE_OPTIONS_H
#define PLERIG_TUNE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/metrics.h"
#include "ple/host_params.h"

struct tune_options {
	char param[PLE_NAME_LEN]; /* "": the host's window (or halt polling) */
	bool range_given;	  /* --param NAME=LO..HI */
	uint64_t lo, hi;
	double budget_s;
	unsigned max_visits; /* 0: only the budget */
	double tolerance_pct;
	const struct metric *metrics[1]; /* the objective */
	unsigned nr_metrics;
	bool no_ple_off;
	const char *suite_path; /* the shapes from a suite section instead of run options */
	const char *scenario;
	const char *json_path;	 /* "-": stdout */
	const char *report_path; /* "-": stdout */
	uint64_t seed;
	bool restore; /* only put back what a killed sweep or tune changed */
	bool quiet;
	/* --connect emulated: the whole tune inside L1, which boots kernel_path */
	const char *connect, *kernel_path, *modules_path, *cache_dir;
	const char *module_params; /* --module-params: L1's modules reloaded with them */
	const char *param_arg;	   /* --param as given: L1's tune gets it */
	int run_argc;		   /* the run options after --: the shapes */
	char **run_argv;
};

enum tune_options_status {
	TUNE_OPTIONS_OK = 0,
	TUNE_OPTIONS_HELP = 1,
	TUNE_OPTIONS_ERROR = -1, /* message in err: exit 2 */
};

/* argv[0] is "tune". */
enum tune_options_status tune_options_parse(int argc, char **argv, struct tune_options *o,
					    char *err, size_t errlen);
void tune_options_usage(FILE *out);

#endif
