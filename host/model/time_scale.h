/* SPDX-License-Identifier: GPL-2.0 */
/* A run's TSC cycles as time: the one conversion its figures and its halt path share. */
#ifndef PLERIG_TIME_SCALE_H
#define PLERIG_TIME_SCALE_H

struct variant_result;

/* @cycles of the run's TSC in ns; NaN where the run has no TSC rate. */
double cycles_to_ns(const struct variant_result *r, double cycles);

#endif
