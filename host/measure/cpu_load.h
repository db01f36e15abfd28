/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How busy a set of host CPUs was, from /proc/stat: the time each CPU was
 * neither idle nor waiting for I/O, whoever used it (plerig's own threads
 * included, and steal: time a hypervisor gave the CPU to someone else).
 * Subtracting what plerig's vCPU threads ran gives the foreign load: CPU
 * time that other work took from the CPUs an experiment runs on. Unlike
 * the vCPU threads' run delay it does not grow when a hypervisor change
 * makes the vCPUs themselves wait longer, so it can tell a busier host
 * from a regression.
 *
 * /proc/stat counts in USER_HZ ticks (10 ms): a 0.3 s run on one CPU is
 * read to +-20 ms of busy time, so one run's share is +-7 %; a check
 * averages several runs.
 */
#ifndef PLERIG_CPU_LOAD_H
#define PLERIG_CPU_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu_load {
	bool valid;
	unsigned nr_cpus; /* of the set, found in the file */
	uint64_t busy_ns; /* summed over the set */
	uint64_t
	    total_ns; /* busy, idle and iowait: the set's elapsed CPU time, in the same ticks */
};

/*
 * Busy time of the CPUs @cpus[0..n) in the text of /proc/stat. 0, or -1
 * with @err (a CPU of the set missing, a line that does not parse).
 */
int cpu_load_parse(const char *text, const unsigned *cpus, unsigned n, uint64_t user_hz,
		   struct cpu_load *out, char *err, size_t errlen);
/* The same from /proc/stat now. */
int cpu_load_read(const unsigned *cpus, unsigned n, struct cpu_load *out, char *err, size_t errlen);

#endif
