// SPDX-License-Identifier: GPL-2.0
#include "util/cache_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/errbuf.h"
#include "util/safe_dir.h"

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
	/* by safe_dir's rules: no one else's directory or link decides where plerig writes */
	const int fd = safe_dir_open(path, SAFE_DIR_CREATE, err, errlen);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int cache_dir_given(const char *path, char *err, size_t errlen)
{
	char why[ERRBUF_SIZE];
	/*
	 * Walked, never created: parsing options makes no directory (the option
	 * parser's fuzzer would make them anywhere it mutates a path to); a
	 * missing one is made by the same rules where a run first uses it.
	 */
	const int fd = safe_dir_open(path, 0, why, sizeof(why));
	bool trusted = fd < 0 && errno == ENOENT;
	if (fd >= 0) {
		const int root = safe_dir_open_at(fd, path, "libvirt", 0, why, sizeof(why));
		/* none yet: the embedded driver makes it when it first runs, by the same rules */
		trusted = root >= 0 || errno == ENOENT;
		if (root >= 0)
			close(root);
		close(fd);
	}
	if (!trusted)
		return errbuf_printf(err, errlen, "--cache-dir %s: %s", path, why);
	return 0;
}

int cache_dir_absolute(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	char cwd[PATH_MAX];
	int n;
	if (*path == '/') {
		n = snprintf(out, len, "%s", path);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return errbuf_printf(err, errlen,
					     "--cache-dir %s: the working directory: %s", path,
					     strerror(errno));
		n = snprintf(out, len, "%s/%s", cwd, path);
	}
	if (n < 0 || (size_t)n >= len)
		return errbuf_printf(err, errlen, "--cache-dir %s: path too long", path);
	return 0;
}
