/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which variant is compared with which: every variant against the one
 * that differs only in the reference axis, which holds the reference value.
 */
#ifndef PLERIG_COMPARISONS_H
#define PLERIG_COMPARISONS_H

#include <stddef.h>

#include "model/outcome.h"

/*
 * Resolve --reference (AUTO picks: backend=native when both native and a
 * VM backend run, else the first value of the first axis with several).
 * Returns 0 with *axis = REFERENCE_AUTO when nothing varies (nothing to
 * compare), -1 with @err when the requested value is not in the matrix.
 */
int reference_resolve(const struct run_plan *o, enum reference_axis *axis, unsigned *value,
		      char *err, size_t errlen);
/* "relax=pause" into @buf. */
const char *reference_describe(enum reference_axis axis, unsigned value, char *buf, size_t len);

/* Fill rep->comparisons for every metric; 0 or -1 (out of memory). */
int comparisons_build(struct outcome *rep, enum reference_axis axis, unsigned value);

#endif
