// SPDX-License-Identifier: GPL-2.0
#include "util/text_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errbuf.h"

ssize_t text_file_read(const char *path, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, len - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == len) {
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	return (ssize_t)n;
}

int text_file_check_regular(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return errbuf_printf(err, errlen, "%s", strerror(errno));
	int rc = fstat(fd, &st);
	int e = errno;
	close(fd);
	if (rc)
		return errbuf_printf(err, errlen, "%s", strerror(e));
	if (!S_ISREG(st.st_mode))
		return errbuf_printf(err, errlen, "is %s, not a regular file",
				     S_ISDIR(st.st_mode)    ? "a directory"
				     : S_ISFIFO(st.st_mode) ? "a FIFO"
				     : S_ISCHR(st.st_mode)  ? "a character device"
				     : S_ISSOCK(st.st_mode) ? "a socket"
							    : "a device");
	return 0;
}

static int write_once(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t w;
	do
		w = write(fd, text, len);
	while (w < 0 && errno == EINTR);
	int e = w < 0 ? errno : (size_t)w != len ? EIO : 0;
	if (close(fd) < 0 && !e)
		e = errno;
	return -e;
}

int text_file_write(const char *path, const char *text)
{
	/* O_TRUNC as `echo v > file` does: sysfs ignores it, a plain file needs it */
	return write_once(path, text, O_TRUNC);
}

int text_file_append(const char *path, const char *text)
{
	/* tracefs' kprobe_events: opened with O_TRUNC it would remove every kprobe event */
	return write_once(path, text, O_APPEND);
}
