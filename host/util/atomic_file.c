// SPDX-License-Identifier: GPL-2.0
#include "util/atomic_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/output_path.h"
#include "util/safe_dir.h"

/* Straight into a FIFO or a device: no temporary file, no rename. */
static int write_stream(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	int bad = safe_file_write_all(fd, text, len);
	int saved = errno;
	if (close(fd) && !bad)
		return -1;
	errno = saved;
	return bad;
}

/*
 * A new file next to @path (so that the rename stays in one file system),
 * renamed over it: both relative to its directory, opened once, so that
 * no directory on the way can change in between (util/safe_dir.h).
 */
static int replace(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	char dir[PATH_MAX] = ".";
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	if (slash) /* "/r.json": the directory is "/" */
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) + (slash == path), path);
	const int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errbuf_printf(err, errlen, "%s (directory '%s')", strerror(errno), dir);
	const int rc = safe_file_replace(dfd, dir, name, text, len, 0666, err, errlen);
	close(dfd);
	return rc;
}

static int write_to(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	char target[PATH_MAX];

	switch (output_path_classify(path, target, sizeof(target), err, errlen)) {
	case OUTPUT_STDOUT:
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout) == EOF)
			return errbuf_printf(err, errlen, "%s", strerror(errno));
		return 0;
	case OUTPUT_STREAM:
		if (write_stream(path, text, len))
			return errbuf_printf(err, errlen, "%s", strerror(errno));
		return 0;
	case OUTPUT_REPLACE:
		return replace(target, text, len, err, errlen);
	case OUTPUT_REFUSED:
		break;
	}
	return -1;
}

int atomic_file_write_as(const char *path, const char *what, const char *fallback, const char *text,
			 size_t len, char *err, size_t errlen)
{
	char why[ERRBUF_SIZE], name[32], saved[PATH_MAX];
	const char *where = path && !strcmp(path, "-") ? "stdout" : path ? path : "";

	if (!write_to(path, text, len, why, sizeof(why)))
		return 0;
	/* never nowhere: the results go to a fresh file whose name is said */
	const char *dot = strrchr(fallback, '.');
	const char *ext = dot ? dot + 1 : fallback;
	snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - fallback) : (int)strlen(fallback),
		 fallback);
	if (output_path_fallback(name, ext, text, len, saved, sizeof(saved)))
		return errbuf_printf(err, errlen,
				     "cannot write %s to '%s': %s; no fallback file could be "
				     "written either",
				     what, where, why);
	return errbuf_printf(err, errlen, "cannot write %s to '%s': %s; the %s is in %s instead",
			     what, where, why, what, saved);
}

int atomic_file_write(const char *path, const char *what, const char *text, size_t len, char *err,
		      size_t errlen)
{
	char word[16];
	size_t i = 0;
	/* a file name without spaces: the first word only */
	for (; what[i] && what[i] != ' ' && i + 1 < sizeof(word); i++)
		word[i] = (char)tolower((unsigned char)what[i]);
	word[i] = '\0';
	return atomic_file_write_as(path, what, word, text, len, err, errlen);
}
