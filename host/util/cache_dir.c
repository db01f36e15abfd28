// SPDX-License-Identifier: GPL-2.0
#include "util/cache_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/errbuf.h"

int cache_dir_default(char *out, size_t len, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && *xdg == '/')
		n = snprintf(out, len, "%s/plerig", xdg);
	else if (home && *home == '/')
		n = snprintf(out, len, "%s/.cache/plerig", home);
	else
		return errbuf_printf(err, errlen,
				     "no cache directory: set HOME or XDG_CACHE_HOME, or pass "
				     "--cache-dir");
	if (n < 0 || (size_t)n >= len)
		return errbuf_printf(err, errlen, "cache directory path too long");
	return 0;
}

int mkdir_p(const char *path, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return errbuf_printf(err, errlen, "path too long: %s", path);
	for (char *p = buf + 1;; p++) {
		const bool last = *p == '\0';
		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return errbuf_printf(err, errlen,
					     "creating %s: %s (choose another --cache-dir)", buf,
					     strerror(errno));
		if (last)
			break;
		*p = '/';
	}
	return 0;
}
