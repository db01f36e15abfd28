/* SPDX-License-Identifier: GPL-2.0 */
/* The options that pick what is judged and how strictly: --metric LIST, --threshold PCT. */
#ifndef PLERIG_METRIC_OPTIONS_H
#define PLERIG_METRIC_OPTIONS_H

#include <stddef.h>

#include "model/metrics.h"

/*
 * "acq_per_s,wait_p99_ns" into @out (at most @max, duplicates once).
 * @what names the option in messages ("--metric"). 0, or -1 with @err.
 */
int metric_list_parse(const char *what, const char *list, const struct metric **out, unsigned max,
		      unsigned *n, char *err, size_t errlen);
/* "2" or "2%": a percentage from 0 to 1000. 0, or -1 with @err. */
int threshold_parse(const char *s, double *out, char *err, size_t errlen);

#endif
