/* SPDX-License-Identifier: GPL-2.0 */
/* What `plerig compare` shows: a table for people, a JSON document for scripts. */
#ifndef PLERIG_COMPARE_OUTPUT_H
#define PLERIG_COMPARE_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "compare/compare.h"

#define COMPARE_SCHEMA	       "plerig-compare"
#define COMPARE_SCHEMA_VERSION 1

/*
 * Per matched variant: its runs on each side, then one row per metric:
 * base mean +- relative sd, new mean +- relative sd, delta %, p, 95% CI
 * of the delta (% of the base mean), verdict. Then the variants found in
 * one file only, and a one-line summary.
 */
void compare_print_table(FILE *f, const struct comparison_set *c);

/*
 * {schema: "plerig-compare", schema_version: 1, base: {path, ...}, new:
 * {...}, threshold_pct, alpha, metrics: [...], variants: [{identity,
 * base_runs, base_ok, new_runs, new_ok, more_failures, differences,
 * metrics: [{metric, better, base: {n, mean, stddev}, new: {...}, delta,
 * delta_pct, p_value, ci95_low, ci95_high, significant, verdict, why}]}],
 * only_in_base: [identity], only_in_new: [identity], counts: {verdict: n},
 * exit_status}. Written as json_results_write writes ("-": stdout).
 */
int compare_write_json(const char *path, const struct comparison_set *c, char *err, size_t errlen);

#endif
