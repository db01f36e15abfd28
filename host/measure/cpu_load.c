// SPDX-License-Identifier: GPL-2.0
#include "measure/cpu_load.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/errbuf.h"

/*
 * The busy ticks of one "cpuN user nice system idle iowait irq softirq steal
 * ..." line, and all its ticks (idle and iowait too): the CPU's elapsed time.
 */
static int line_ticks(const char *line, uint64_t *busy, uint64_t *total)
{
	unsigned long long f[8] = {0};
	int got = sscanf(line, "%*s %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2],
			 &f[3], &f[4], &f[5], &f[6], &f[7]);
	if (got < 4)
		return -1;
	/* user nice system irq softirq steal; guest time is inside user and nice */
	*busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
	*total = *busy + f[3] + f[4];
	return 0;
}

int cpu_load_parse(const char *text, const unsigned *cpus, unsigned n, uint64_t user_hz,
		   struct cpu_load *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!user_hz)
		return errbuf_printf(err, errlen, "/proc/stat: no clock tick rate");
	uint64_t ticks = 0, all = 0;
	for (unsigned i = 0; i < n; i++) {
		char key[24];
		snprintf(key, sizeof(key), "cpu%u ", cpus[i]);
		const char *line = NULL;
		for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
			if (!strncmp(p, key, strlen(key))) {
				line = p;
				break;
			}
		if (!line)
			return errbuf_printf(err, errlen, "/proc/stat has no line for CPU %u",
					     cpus[i]);
		uint64_t t, a;
		if (line_ticks(line, &t, &a))
			return errbuf_printf(err, errlen,
					     "/proc/stat: CPU %u's line does not parse", cpus[i]);
		ticks += t;
		all += a;
	}
	out->valid = true;
	out->nr_cpus = n;
	out->busy_ns = ticks * (1000000000ull / user_hz);
	out->total_ns = all * (1000000000ull / user_hz);
	return 0;
}

int cpu_load_read(const unsigned *cpus, unsigned n, struct cpu_load *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	FILE *f = fopen("/proc/stat", "re");
	if (!f)
		return errbuf_printf(err, errlen, "/proc/stat: %s", strerror(errno));
	/* the cpu lines come first; the rest (intr: thousands of counts) is not read */
	char *text = NULL, *line = NULL;
	size_t len = 0, cap = 0;
	ssize_t got;
	while ((got = getline(&line, &cap, f)) > 0 && !strncmp(line, "cpu", 3)) {
		char *grown = realloc(text, len + (size_t)got + 1);
		if (!grown)
			break;
		text = grown;
		memcpy(text + len, line, (size_t)got + 1);
		len += (size_t)got;
	}
	free(line);
	fclose(f);
	if (!text)
		return errbuf_printf(err, errlen, "/proc/stat: no cpu lines read");
	const long hz = sysconf(_SC_CLK_TCK);
	int rc = cpu_load_parse(text, cpus, n, hz > 0 ? (uint64_t)hz : 0, out, err, errlen);
	free(text);
	return rc;
}
