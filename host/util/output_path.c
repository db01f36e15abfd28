// SPDX-License-Identifier: GPL-2.0
#include "util/output_path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errbuf.h"
#include "util/safe_dir.h"

/* The directory part of @path ("." for a bare name), into @dir. */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/*
 * Follow symlinks in the last component of @path into @out (at most 40
 * hops), each one the user's own or root's (util/safe_dir's rule).
 */
static int follow_links(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
	struct stat st;

	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return errbuf_printf(err, errlen, "%s", strerror(ENAMETOOLONG));
	for (int hop = 0; hop < 40; hop++) {
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode)) {
			if (snprintf(out, len, "%s", cur) >= (int)len)
				return errbuf_printf(err, errlen, "%s", strerror(ENAMETOOLONG));
			return 0;
		}
		if (!safe_dir_trusted_owner(st.st_uid))
			return errbuf_printf(
			    err, errlen,
			    "%s is a symbolic link of another user's (uid %u), "
			    "which could lead plerig's write to any file of yours: "
			    "not followed; name its target instead",
			    cur, (unsigned)st.st_uid);
		ssize_t n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			return errbuf_printf(err, errlen, "%s", strerror(errno));
		link[n] = '\0';
		if (link[0] == '/') {
			memcpy(cur, link, (size_t)n + 1);
			continue;
		}
		dir_of(cur, dir, sizeof(dir));
		if (snprintf(cur, sizeof(cur), "%s/%s", dir, link) >= (int)sizeof(cur))
			return errbuf_printf(err, errlen, "%s", strerror(ENAMETOOLONG));
	}
	return errbuf_printf(err, errlen, "%s", strerror(ELOOP));
}

enum output_kind output_path_classify(const char *path, char *target, size_t target_len, char *err,
				      size_t errlen)
{
	struct stat st;

	if (!path || !*path) {
		errbuf_printf(err, errlen, "no file name");
		return OUTPUT_REFUSED;
	}
	if (!strcmp(path, "-"))
		return OUTPUT_STDOUT;
	if (stat(path, &st) == 0) {
		if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
			return OUTPUT_STREAM;
		if (!S_ISREG(st.st_mode)) {
			errbuf_printf(err, errlen, "is %s, not a file",
				      S_ISDIR(st.st_mode)    ? "a directory"
				      : S_ISSOCK(st.st_mode) ? "a socket"
				      : S_ISBLK(st.st_mode)  ? "a block device"
							     : "not a regular file");
			return OUTPUT_REFUSED;
		}
	} else if (errno != ENOENT) {
		errbuf_printf(err, errlen, "%s", strerror(errno));
		return OUTPUT_REFUSED;
	}
	if (follow_links(path, target, target_len, err, errlen))
		return OUTPUT_REFUSED;
	return OUTPUT_REPLACE;
}

int output_path_check(const char *option, const char *path, char *err, size_t errlen)
{
	char target[PATH_MAX], dir[PATH_MAX], why[ERRBUF_SIZE];
	struct stat st;

	switch (output_path_classify(path, target, sizeof(target), why, sizeof(why))) {
	case OUTPUT_STDOUT:
		return 0;
	case OUTPUT_REFUSED:
		return errbuf_printf(err, errlen, "%s %s: %s", option, path, why);
	case OUTPUT_STREAM:
		if (access(path, W_OK))
			return errbuf_printf(err, errlen, "%s %s: %s", option, path,
					     strerror(errno));
		return 0;
	case OUTPUT_REPLACE:
		break;
	}
	/* the temporary file is created next to the target, then renamed onto it */
	dir_of(target, dir, sizeof(dir));
	if (stat(dir, &st))
		return errbuf_printf(err, errlen, "%s %s: directory %s: %s", option, path, dir,
				     strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return errbuf_printf(err, errlen, "%s %s: %s is not a directory", option, path,
				     dir);
	if (access(dir, W_OK | X_OK))
		return errbuf_printf(err, errlen, "%s %s: directory %s: %s", option, path, dir,
				     strerror(errno));
	return 0;
}

int output_path_fallback(const char *what, const char *ext, const char *text, size_t len,
			 char *name, size_t name_len)
{
	const char *tmpdir = getenv("TMPDIR");
	const char *dirs[] = {tmpdir && *tmpdir ? tmpdir : "/tmp", "/tmp", "."};

	for (unsigned i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int n = snprintf(name, name_len, "%s/plerig-%s-%ld-XXXXXX.%s", dirs[i], what,
				 (long)getpid(), ext);
		if (n < 0 || (size_t)n >= name_len)
			continue;
		int fd = mkostemps(name, (int)strlen(ext) + 1, O_CLOEXEC); /* O_EXCL, 0600 */
		if (fd < 0)
			continue;
		int bad = safe_file_write_all(fd, text, len) || fsync(fd);
		if (close(fd) || bad) {
			unlink(name);
			continue;
		}
		return 0;
	}
	return -1;
}
