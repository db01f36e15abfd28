// SPDX-License-Identifier: GPL-2.0
#include "util/data_path.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

void data_path(const char *rel, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		snprintf(out, len, "%s", rel);
		return;
	}
	self[n] = '\0';
	snprintf(out, len, "%s/%s", dirname(self), rel);
}
