/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig check` command line: the suite, what to write, the baselines, the verdict's rules. */
#ifndef PLERIG_CHECK_OPTIONS_H
#define PLERIG_CHECK_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/suite.h"

#define CHECK_MAX_GROUPS 16

struct check_options {
	const char *suite_path;	   /* NULL: the default suite */
	const char *connect_list;  /* --connect URI1,URI2; NULL: this machine */
	const char *kernel_path;   /* --connect emulated: L1's kernel; NULL: Debian's */
	const char *modules_path;  /* its modules (a bzImage's INSTALL_MOD_PATH); NULL: none */
	const char *cache_dir;	   /* L1's media; NULL: ~/.cache/plerig */
	const char *module_params; /* --module-params: L1's modules reloaded with them */
	const char *groups[CHECK_MAX_GROUPS + 1]; /* NULL-terminated; groups[0] NULL: all */
	char group_buf[512];
	const char *tap_path, *junit_path; /* NULL: none; "-": stdout */
	const char *report_path;	   /* every scenario's results as HTML; NULL: none */
	const char *json_path;	   /* every scenario's results, every round, as JSON; NULL: none */
	const char *baselines_dir; /* NULL: $PLERIG_BASELINES */
	bool record;
	const char *import_path; /* --import-baseline FILE: store it, run nothing */
	bool aa;
	double threshold_pct;
	const struct metric *metrics[SCENARIO_MAX_METRICS];
	unsigned nr_metrics;
	double budget_s; /* 0: fixed repeats */
	bool quiet;
	bool list; /* print the scenarios and exit */
};

/* 1: --help printed; 0: go; -1: message in @err (exit 2). argv[0] is "check". */
int check_options_parse(int argc, char **argv, struct check_options *o, char *err, size_t errlen);

#endif
