/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig compare` command line: two results files, the threshold, the metrics, the JSON. */
#ifndef PLERIG_COMPARE_OPTIONS_H
#define PLERIG_COMPARE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/metrics.h"
#include "model/verdict.h"

#define COMPARE_DEFAULT_THRESHOLD_PCT VERDICT_DEFAULT_THRESHOLD_PCT
#define COMPARE_DEFAULT_METRICS	      "acq_per_s,wait_p99_ns,stalled_share,run_delay_share"

struct compare_options {
	const char *base_path, *cand_path;
	double threshold_pct;
	const struct metric *metrics[32];
	unsigned nr_metrics;
	const char *json_path;
	bool any_host; /* match variants across hosts (--any-host) */
};

/* 1: --help printed; 0: go; -1: message in @err (exit 2). argv[0] is "compare". */
int compare_options_parse(int argc, char **argv, struct compare_options *o, char *err,
			  size_t errlen);

#endif
