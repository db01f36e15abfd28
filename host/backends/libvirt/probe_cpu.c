// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/probe_cpu.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

void probe_cpu_enter(struct probe_cpu *p)
{
	memset(p, 0, sizeof(*p));
	if (sched_getaffinity(0, sizeof(p->before), &p->before))
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &p->before)) {
			CPU_SET(cpu, &p->one);
			break;
		}
	p->pinned = CPU_COUNT(&p->before) > 1 && !sched_setaffinity(0, sizeof(p->one), &p->one);
}

void probe_cpu_leave(struct probe_cpu *p)
{
	if (!p->pinned)
		return;
	DIR *tasks = opendir("/proc/self/task");
	struct dirent *e;
	while (tasks && (e = readdir(tasks))) {
		const pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);
		cpu_set_t now;
		/* only threads on exactly the one CPU: any other mask is someone's choice */
		if (tid > 0 && !sched_getaffinity(tid, sizeof(now), &now) &&
		    CPU_EQUAL(&now, &p->one))
			sched_setaffinity(tid, sizeof(p->before), &p->before);
	}
	if (tasks)
		closedir(tasks);
	sched_setaffinity(0, sizeof(p->before), &p->before);
	p->pinned = false;
}
