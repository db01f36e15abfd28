// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/process_tag.h"

#include <stdio.h>
#include <string.h>

int process_start_time(pid_t pid, unsigned long long *out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
	if (!p)
		return -1;
	/* after ") ": state is field 3; start time is field 22 */
	p++;
	for (int field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (field == 22)
			return sscanf(p, "%llu", out) == 1 ? 0 : -1;
		p = strchr(p, ' ');
		if (!p)
			return -1;
	}
	return -1;
}

int process_tag(pid_t pid, char *out, size_t len)
{
	unsigned long long t;
	if (process_start_time(pid, &t))
		return -1;
	snprintf(out, len, "%d %llu\n", (int)pid, t);
	return 0;
}

bool process_runs(int pid, unsigned long long start)
{
	unsigned long long now;
	return pid > 0 && process_start_time((pid_t)pid, &now) == 0 && now == start;
}
