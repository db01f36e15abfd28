/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flat results for spreadsheets, R and pandas: one row per variant x
 * repeat x vCPU, after a header row. Fields are quoted as RFC 4180 says
 * (pcpus always, since "0,2" is a CPU list); lines end in LF. A run that
 * failed before any vCPU ran gets one row with ok=0 and empty vCPU fields,
 * so that failures are not silently missing. Unknown values (exits where
 * the kernel has no such stat, host_cpu of a floating vCPU) are empty.
 */
#ifndef PLERIG_OUTPUT_CSV_REPORT_H
#define PLERIG_OUTPUT_CSV_REPORT_H

#include <stddef.h>

#include "model/outcome.h"

/*
 * Write @rep to @path ("-": stdout), complete or not at all
 * (util/atomic_file.h). Returns 0, or -1 with a message in @err.
 */
int csv_results_write(const char *path, const struct outcome *rep, char *err, size_t errlen);

#endif
