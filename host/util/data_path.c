// SPDX-License-Identifier: GPL-2.0
#include "util/data_path.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef PLERIG_DATADIR
#define PLERIG_DATADIR "/usr/local/share/plerig"
#endif

void data_path(const char *dir, const char *name, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(out, len, "%s/%s/%s", dirname(self), dir, name);
		if (access(out, F_OK) == 0)
			return;
	}
	if (!strcmp(dir, "images"))
		snprintf(out, len, "%s/%s", PLERIG_DATADIR, name);
	else if (!strncmp(dir, "images/", 7)) /* images/l1: PLERIG_DATADIR/l1 */
		snprintf(out, len, "%s/%s/%s", PLERIG_DATADIR, dir + 7, name);
	else
		snprintf(out, len, "%s/%s/%s", PLERIG_DATADIR, dir, name);
}
