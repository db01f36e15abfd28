// SPDX-License-Identifier: GPL-2.0
#include "util/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errbuf.h"

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode)	? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISSOCK(mode) ? "a socket"
				: "a block device";
}

const char *regular_file_size_text(size_t bytes, char *buf, size_t len)
{
	if (bytes >= (1u << 20) && !(bytes & ((1u << 20) - 1)))
		snprintf(buf, len, "%zu MiB", bytes >> 20);
	else if (bytes >= 1024 && !(bytes & 1023))
		snprintf(buf, len, "%zu KiB", bytes >> 10);
	else
		snprintf(buf, len, "%zu bytes", bytes);
	return buf;
}

static int too_big(size_t max, char *err, size_t errlen)
{
	char cap[32];
	errbuf_printf(err, errlen, "larger than %s, more than such a file may have",
		      regular_file_size_text(max, cap, sizeof(cap)));
	return -EFBIG;
}

/* Until EOF, growing @buf: the file may have grown since fstat. */
static int read_to_end(int fd, size_t max, char **buf, size_t *cap, size_t *n, char *err,
		       size_t errlen)
{
	for (;;) {
		if (*n == *cap) {
			if (*cap > max)
				return too_big(max, err, errlen);
			size_t grown_cap = *cap * 2 > max + 1 ? max + 1 : *cap * 2;
			char *grown = realloc(*buf, grown_cap + 1);
			if (!grown) {
				errbuf_printf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			*buf = grown;
			*cap = grown_cap;
		}
		ssize_t r = read(fd, *buf + *n, *cap - *n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			errbuf_printf(err, errlen, "cannot read: %s", strerror(e));
			return -e;
		}
		if (r == 0)
			break;
		*n += (size_t)r;
	}
	if (*n > max)
		return too_big(max, err, errlen);
	return 0;
}

int regular_file_read(int dirfd, const char *name, int flags, size_t max, char **text, size_t *len,
		      char *err, size_t errlen)
{
	struct stat st;
	*text = NULL;
	*len = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | flags);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP && (flags & O_NOFOLLOW))
			errbuf_printf(err, errlen, "is a symbolic link, which is not followed");
		else
			errbuf_printf(err, errlen, "%s", strerror(e));
		return -e;
	}
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		errbuf_printf(err, errlen, "cannot stat: %s", strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errbuf_printf(err, errlen, "is %s, not a regular file", file_kind(st.st_mode));
		return -EINVAL;
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return too_big(max, err, errlen);
	}
	/* O_NONBLOCK stays: it changes nothing for a regular file's reads */
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		errbuf_printf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = read_to_end(fd, max, &buf, &cap, &n, err, errlen);
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}
