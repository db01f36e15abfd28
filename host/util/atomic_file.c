// SPDX-License-Identifier: GPL-2.0
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_stdout(const char *what, const char *text, size_t len, char *err, size_t errlen)
{
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout) == EOF)
		return errbuf_printf(err, errlen, "cannot write %s to stdout: %s", what,
				     strerror(errno));
	return 0;
}

/*
 * A fresh name next to @path (so rename() stays within one file system),
 * created exclusively with 0666 so that the umask applies as for any file.
 */
static int create_temp(const char *path, char *tmp, size_t len)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		snprintf(tmp, len, "%s.%ld.%u.tmp", path, (long)getpid(), attempt);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int atomic_file_write(const char *path, const char *what, const char *text, size_t len, char *err,
		      size_t errlen)
{
	if (!path || !*path)
		return errbuf_printf(err, errlen, "cannot write %s: no file name", what);
	if (strcmp(path, "-") == 0)
		return write_stdout(what, text, len, err, errlen);

	size_t tmp_len = strlen(path) + 32;
	char *tmp = malloc(tmp_len);
	int fd, saved;

	if (!tmp)
		return errbuf_printf(err, errlen, "cannot write '%s': %s", path, strerror(ENOMEM));
	fd = create_temp(path, tmp, tmp_len);
	if (fd < 0) {
		saved = errno;
		errbuf_printf(err, errlen, "cannot write '%s': %s (creating '%s')", path,
			      strerror(saved), tmp);
		free(tmp);
		return -1;
	}
	/* fsync before rename: after a crash, the old file or the whole new one */
	if (write_all(fd, text, len) || fsync(fd)) {
		saved = errno;
		close(fd);
		goto fail_unlink;
	}
	if (close(fd) || rename(tmp, path)) {
		saved = errno;
		goto fail_unlink;
	}
	free(tmp);
	return 0;

fail_unlink:
	unlink(tmp);
	free(tmp);
	return errbuf_printf(err, errlen, "cannot write '%s': %s", path, strerror(saved));
}
