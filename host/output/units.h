/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Human-readable numbers for the results table: three significant digits
 * are all a reader compares across rows, and a fixed width keeps columns
 * aligned. Each function writes into @buf and returns it, so it can be
 * used directly as a printf argument. NaN, a figure not measured, is
 * "n/a" in each (the reason is the caller's to print); infinity "?".
 */
#ifndef PLERIG_UNITS_H
#define PLERIG_UNITS_H

#include <stddef.h>

/* Big enough for any output of the functions below. */
#define UNITS_BUF_SIZE 32

/* 0, 999, 1.0k, 45.6k, 456k, 12.3M, 1.2G ... (1000-based) */
const char *units_count(double v, char *buf, size_t len);
/* 85ns, 999ns, 1.2us, 45.6us, 3.4ms, 1.5s, 3600s */
const char *units_duration_ns(double ns, char *buf, size_t len);
/*
 * Two significant digits, for percentiles read from a histogram whose
 * buckets are up to 12.5 % wide: 390ns, 7.7ms, 16ms (not 16.0ms), 1.5s.
 */
const char *units_duration_ns_2sig(double ns, char *buf, size_t len);
/* @share in [0, 1] -> 0%, <0.1%, 12.3%, 100.0% */
const char *units_percent(double share, char *buf, size_t len);

#endif
