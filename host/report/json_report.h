/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine-readable results ("plerig-results", schema_version 1): every
 * figure, counter and non-empty histogram bucket of every vCPU, for
 * analysis that the table cannot do.
 */
#ifndef PLERIG_JSON_REPORT_H
#define PLERIG_JSON_REPORT_H

#include <stddef.h>

#include "experiment/results.h"

#define JSON_REPORT_SCHEMA	   "plerig-results"
#define JSON_REPORT_SCHEMA_VERSION 1

/*
 * Write @nr results to @path ("-": stdout). The file appears complete or
 * not at all: it is written next to @path under a temporary name and
 * renamed over it. @command_line may be NULL. Returns 0, or -1 with a
 * message naming the path in @err.
 */
int json_report_write(const char *path, const struct variant_result *results, unsigned nr,
		      const char *command_line, char *err, size_t errlen);

#endif
