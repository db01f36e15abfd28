/* SPDX-License-Identifier: GPL-2.0 */
/* The human-readable results table: one aligned row per variant. */
#ifndef PLERIG_OUTPUT_TABLE_H
#define PLERIG_OUTPUT_TABLE_H

#include <stdio.h>

#include "model/outcome.h"
#include "model/results.h"

void results_table_header(FILE *f);
/* A failed variant (!ok) prints its identity and "FAILED: <error>". */
void results_table_row(FILE *f, const struct variant_result *r);
/* One line per column saying what it measures. */
void results_table_legend(FILE *f);
/* The first column of a run on several hosts (--connect LIST): "host" in the header, then each
 * row's. */
void results_table_host(FILE *f, const char *host);
/* What that column is, for the legend. */
void results_table_host_legend(FILE *f);
/* Where a host's seconds are not real ones (the emulated host): which, and what they are. */
void results_table_clock_legend(FILE *f, const struct outcome *rep);

#endif
