/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repeated runs for people: per variant and metric mean ± stddev (rel%),
 * the range and the outliers, in the spirit of `perf stat --repeat`; then
 * reference against candidate with delta, Welch p-value and the 95%
 * confidence interval of the delta, as in the seeds' tables.
 */
#ifndef PLERIG_STATS_TABLE_H
#define PLERIG_STATS_TABLE_H

#include <stdio.h>

#include "model/outcome.h"

void stats_table_print(FILE *f, const struct outcome *rep);
void comparison_table_print(FILE *f, const struct outcome *rep);

#endif
