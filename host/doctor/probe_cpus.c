// SPDX-License-Identifier: GPL-2.0
/*
 * CPUs and SMT siblings: over-commit is vCPUs per host CPU, and two vCPUs
 * on sibling threads share a core, which blurs both.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cpulist.h"
#include "doctor/probes.h"
#include "util/strfmt.h"
#include "util/text_file.h"

/* Number of CPUs in a list such as "0-3,8". */
static int cpulist_count(const char *s)
{
	int n = 0;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10);
		if (end == s)
			break;
		long b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += (int)(b - a + 1);
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

void doctor_probe_cpus(struct doctor_findings *r)
{
	const char *root = ple_sysfs_root();
	char path[4096], online[256], siblings[256], smt[16];
	cpu_set_t set;

	r->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	CPU_ZERO(&set);
	r->cpus_allowed = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : -1;
	if (pathf(path, sizeof(path), "%s/devices/system/cpu/online", root) ||
	    text_file_read(path, online, sizeof(online)) < 0)
		snprintf(online, sizeof(online), "?");

	/* the widest sibling group: 1 means no SMT */
	r->smt_threads_per_core = 1;
	char example[256] = "";
	for (int cpu = 0; cpu < 4096; cpu++) {
		if (pathf(path, sizeof(path),
			  "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list", root, cpu))
			break;
		if (text_file_read(path, siblings, sizeof(siblings)) < 0) {
			if (cpu >= r->cpus_online)
				break;
			continue;
		}
		int n = cpulist_count(siblings);
		if (n > r->smt_threads_per_core) {
			r->smt_threads_per_core = n;
			snprintf(example, sizeof(example), "%s", siblings);
		}
	}
	if (pathf(path, sizeof(path), "%s/devices/system/cpu/smt/active", root) ||
	    text_file_read(path, smt, sizeof(smt)) < 0)
		snprintf(smt, sizeof(smt), "?");

	doctor_add(r, "cpus", "CPUs", DOCTOR_INFO,
		   "%d online (%s), %d allowed to plerig: over-commit starts above %d vCPUs",
		   r->cpus_online, online, r->cpus_allowed, r->cpus_allowed);
	if (r->smt_threads_per_core > 1) {
		doctor_add(r, "smt", "SMT siblings", DOCTOR_WARN,
			   "%d threads per core (e.g. CPUs %s share a core; smt/active=%s)",
			   r->smt_threads_per_core, example, smt);
		doctor_fix(r, "give --pcpus one thread per core, so that vCPUs do not share a "
			      "core's execution units");
	} else {
		doctor_add(r, "smt", "SMT siblings", DOCTOR_OK,
			   "none: every CPU is its own core (smt/active=%s)", smt);
	}
}
