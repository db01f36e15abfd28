// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/run_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/libvirt/process_tag.h"
#include "util/errbuf.h"

int run_dir_create(struct run_dir *d, char *err, size_t errlen)
{
	err[0] = '\0';
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	/* the owner's pid in the name, and in "owner": a later plerig removes the
	 * directory should this one be killed (backends/libvirt/orphans.h) */
	if (snprintf(d->path, sizeof(d->path), "%s/plerig-libvirt-%d-XXXXXX", tmp, (int)getpid()) >=
	    (int)sizeof(d->path)) {
		d->path[0] = '\0';
		return errbuf_printf(err, errlen, "TMPDIR path too long");
	}
	if (!mkdtemp(d->path)) {
		errbuf_printf(err, errlen, "creating a run directory in %s: %s (set TMPDIR)", tmp,
			      strerror(errno));
		d->path[0] = '\0';
		return -1;
	}
	/* QEMU reads the config and image from here, as libvirt's QEMU user */
	if (chmod(d->path, 0755)) {
		errbuf_printf(err, errlen, "chmod %s: %s", d->path, strerror(errno));
		run_dir_remove(d);
		return -1;
	}
	char tag[64];
	if (process_tag(getpid(), tag, sizeof(tag)) ||
	    run_dir_write(d, "owner", tag, strlen(tag), err, errlen)) {
		if (!err[0])
			errbuf_printf(err, errlen, "reading /proc/self/stat: %s", strerror(errno));
		run_dir_remove(d);
		return -1;
	}
	return 0;
}

int run_dir_file(const struct run_dir *d, const char *name, char *out, size_t len)
{
	int n = snprintf(out, len, "%s/%s", d->path, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int run_dir_write(const struct run_dir *d, const char *name, const void *data, size_t len,
		  char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (run_dir_file(d, name, path, sizeof(path)))
		return errbuf_printf(err, errlen, "run directory path too long");
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return errbuf_printf(err, errlen, "creating %s: %s", path, strerror(errno));
	const unsigned char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errbuf_printf(err, errlen, "writing %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	if (close(fd))
		return errbuf_printf(err, errlen, "writing %s: %s", path, strerror(errno));
	return 0;
}

int read_whole_file(const char *path, size_t max, unsigned char **data, size_t *len, char *err,
		    size_t errlen)
{
	*data = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* no FIFO hangs */
	if (fd < 0)
		return errbuf_printf(err, errlen, "opening %s: %s", path, strerror(errno));
	/* read to the end rather than trust st_size: /proc files say 0 */
	size_t cap = 4096, got = 0;
	unsigned char *buf = malloc(cap + 1);
	for (;;) {
		if (!buf) {
			errbuf_printf(err, errlen, "out of memory reading %s", path);
			close(fd);
			return -1;
		}
		if (got == cap) {
			if (cap > max) {
				errbuf_printf(err, errlen, "%s is more than the %zu bytes expected",
					      path, max);
				free(buf);
				close(fd);
				return -1;
			}
			cap *= 2;
			unsigned char *more = realloc(buf, cap + 1);
			if (!more)
				free(buf);
			buf = more;
			continue;
		}
		ssize_t r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			errbuf_printf(err, errlen, "reading %s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got > max) {
		errbuf_printf(err, errlen, "%s is %zu bytes, more than the %zu expected", path, got,
			      max);
		free(buf);
		return -1;
	}
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

void run_dir_remove(struct run_dir *d)
{
	if (!d->path[0])
		return;
	DIR *dir = opendir(d->path);
	if (dir) {
		struct dirent *e;
		while ((e = readdir(dir))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char p[PATH_MAX];
			if (!run_dir_file(d, e->d_name, p, sizeof(p)))
				unlink(p);
		}
		closedir(dir);
	}
	rmdir(d->path);
	d->path[0] = '\0';
}
