/* SPDX-License-Identifier: GPL-2.0 */
/* The options that pick what is judged and how strictly: --metric LIST, --threshold PCT. */
#ifndef PLERIG_METRIC_OPTIONS_H
#define PLERIG_METRIC_OPTIONS_H

#include <stddef.h>

#include "cli/option_table.h"
#include "model/metrics.h"

/*
 * "acq_per_s,wait_p99_ns" into @out (at most @max, duplicates once).
 * @what names the option in messages ("--metric"). 0, or -1 with @err.
 */
int metric_list_parse(const char *what, const char *list, const struct metric **out, unsigned max,
		      unsigned *n, char *err, size_t errlen);
/* "2" or "2%": a percentage from 0 to 1000. 0, or -1 with @err. */
int threshold_parse(const char *s, double *out, char *err, size_t errlen);

/*
 * The same as option-table parsers (OPT_CUSTOM): --metric into the metric
 * array at e->off, its count at e->nr_off, at most e->max_items;
 * --threshold into the double at e->off.
 */
opt_parse_fn opt_parse_metric_list;
opt_parse_fn opt_parse_threshold;

/* Table entries for them in @type, fields @list/@nr and @pct. */
#define OPT_METRIC_LIST_FIELD(type, list, nr)                                                      \
	.kind = OPT_CUSTOM, .parse = opt_parse_metric_list, .off = offsetof(type, list),           \
	.nr_off = offsetof(type, nr),                                                              \
	.max_items = sizeof(((type *)0)->list) / sizeof(((type *)0)->list[0])
#define OPT_THRESHOLD_FIELD(type, pct)                                                             \
	.kind = OPT_CUSTOM, .parse = opt_parse_threshold, OPT_OFF(type, pct, double)

#endif
