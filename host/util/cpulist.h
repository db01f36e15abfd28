/* SPDX-License-Identifier: GPL-2.0 */
/* CPU lists in `taskset -c` syntax ("0-3,8,10-11"), both ways. */
#ifndef PLERIG_CPULIST_H
#define PLERIG_CPULIST_H

#include <sched.h>
#include <stddef.h>

/* -> sorted unique list. 0 or -1 + err. */
int cpulist_parse(const char *s, unsigned *cpus, unsigned max, unsigned *nr, char *err,
		  size_t errlen);
/* The reverse, compressed to ranges, into buf. */
void cpulist_format(const unsigned *cpus, unsigned nr, char *buf, size_t len);
/* The CPUs of @set in ascending order, at most @max; returns how many. */
unsigned cpulist_from_set(const cpu_set_t *set, unsigned *cpus, unsigned max);

#endif
