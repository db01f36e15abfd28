// SPDX-License-Identifier: GPL-2.0
/* CPU lists in taskset -c syntax ("0-3,8"): parsed strictly, formatted compressed. */
#include "util/cpulist.h"

#include <ctype.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/comma_list.h"
#include "util/errbuf.h"

unsigned cpulist_from_set(const cpu_set_t *set, unsigned *cpus, unsigned max)
{
	unsigned nr = 0;

	for (unsigned cpu = 0; cpu < CPU_SETSIZE && nr < max; cpu++)
		if (CPU_ISSET(cpu, set))
			cpus[nr++] = cpu;
	return nr;
}

static int cpu_number(const char *s, size_t len, unsigned *out)
{
	unsigned v = 0;

	if (len == 0 || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* "N" or "N-M" -> [*lo, *hi]. */
static int cpu_range(const char *item, unsigned *lo, unsigned *hi, char *err, size_t errlen)
{
	const char *dash = strchr(item, '-');
	size_t len = strlen(item);
	size_t first = dash ? (size_t)(dash - item) : len;

	if (cpu_number(item, first, lo) || (dash && cpu_number(dash + 1, len - first - 1, hi)))
		return errbuf_printf(
		    err, errlen, "'%s' is not a CPU number or range (allowed: e.g. 0-3,8)", item);
	if (!dash)
		*hi = *lo;
	if (*hi < *lo)
		return errbuf_printf(err, errlen, "'%s' is a backwards range (allowed: e.g. 1-3)",
				     item);
	if (*hi >= CPU_SETSIZE)
		return errbuf_printf(err, errlen, "'%s' goes beyond the largest CPU number %u",
				     item, CPU_SETSIZE - 1);
	return 0;
}

int cpulist_parse(const char *s, unsigned *cpus, unsigned max, unsigned *nr, char *err,
		  size_t errlen)
{
	char item[LIST_ITEM_MAX];
	cpu_set_t set;
	const char *p = s;
	int rc;

	if (!s || !*s)
		return errbuf_printf(err, errlen, "empty CPU list (allowed: e.g. 0-3,8)");
	CPU_ZERO(&set);
	while ((rc = list_next(&p, item, sizeof(item))) > 0) {
		unsigned lo = 0, hi = 0;
		if (cpu_range(item, &lo, &hi, err, errlen))
			return -1;
		for (unsigned cpu = lo; cpu <= hi; cpu++) {
			/* an overlap is almost always a typo in a range */
			if (CPU_ISSET(cpu, &set))
				return errbuf_printf(err, errlen, "CPU %u listed twice in '%s'",
						     cpu, s);
			CPU_SET(cpu, &set);
		}
	}
	if (rc < 0)
		return errbuf_printf(err, errlen, "%s in '%s' (allowed: e.g. 0-3,8)",
				     rc == -1 ? "empty item" : "item too long", s);
	if ((unsigned)CPU_COUNT(&set) > max)
		return errbuf_printf(err, errlen, "'%s' names %d CPUs, at most %u allowed", s,
				     CPU_COUNT(&set), max);
	*nr = cpulist_from_set(&set, cpus, max);
	return 0;
}

void cpulist_format(const unsigned *cpus, unsigned nr, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (unsigned i = 0; i < nr && used < len; i++) {
		unsigned j = i;
		while (j + 1 < nr && cpus[j + 1] == cpus[j] + 1)
			j++;
		int n = j > i ? snprintf(buf + used, len - used, "%s%u-%u", i ? "," : "", cpus[i],
					 cpus[j])
			      : snprintf(buf + used, len - used, "%s%u", i ? "," : "", cpus[i]);
		if (n < 0)
			break;
		used += (size_t)n;
		i = j;
	}
}
