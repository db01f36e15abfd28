// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/lv_log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errbuf.h"
#include "util/printable.h"
#include "util/safe_dir.h"
#include "util/uri_redact.h"

#define MAX_URIS 64
/* A line of libvirt's longer than this is not shown: cut, its end could be half a secret. */
#define LINE_MAX_BYTES (64u << 10)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool chosen;
static char *uris[MAX_URIS];
static unsigned nr_uris;
static int raw = -1;   /* what libvirt writes: a file without a name */
static off_t done;     /* copied up to here */
static FILE *log_file; /* CACHE/libvirt.log */

void lv_log_hide(const char *uri)
{
	if (!uri)
		return;
	pthread_mutex_lock(&lock);
	bool known = false;
	for (unsigned i = 0; i < nr_uris && !known; i++)
		known = !strcmp(uris[i], uri);
	if (!known && nr_uris < MAX_URIS)
		uris[nr_uris] = strdup(uri);
	if (!known && nr_uris < MAX_URIS && uris[nr_uris])
		nr_uris++;
	pthread_mutex_unlock(&lock);
}

/* @line (@n bytes, no line break) into the log with every known URI's secrets hidden. */
static void copy_line(const char *line, size_t n)
{
	const size_t len = 4 * n + 64; /* "***" for a secret of one byte at most triples it */
	char *in = malloc(n + 1), *out = malloc(len), *tmp = malloc(len);
	if (in && out && tmp) {
		memcpy(in, line, n);
		in[n] = '\0';
		uri_redact(in, out, len);
		for (unsigned i = 0; i < nr_uris; i++) {
			uri_redact_text(uris[i], out, tmp, len);
			memcpy(out, tmp, len);
		}
		printable_printf(log_file, "%s\n", out);
	} else {
		printable_printf(log_file,
				 "(a line of libvirt's log is not shown: out of memory)\n");
	}
	free(in);
	free(out);
	free(tmp);
}

/* Copy from @done on; false when nothing more can be read now. */
static bool copy_some(char *buf, bool all)
{
	const ssize_t got = pread(raw, buf, LINE_MAX_BYTES, done);
	if (got <= 0)
		return false;
	size_t at = 0;
	for (;;) {
		const char *nl = memchr(buf + at, '\n', (size_t)got - at);
		if (!nl)
			break;
		copy_line(buf + at, (size_t)(nl - (buf + at)));
		at = (size_t)(nl - buf) + 1;
	}
	if (at == 0 && (size_t)got == LINE_MAX_BYTES) {
		/* one line longer than the buffer: skip it whole */
		printable_printf(log_file,
				 "(a line of libvirt's log longer than %u bytes is not shown)\n",
				 LINE_MAX_BYTES);
		off_t end = done + got;
		char c;
		while (pread(raw, &c, 1, end) == 1 && c != '\n')
			end++;
		done = end + 1;
		return true;
	}
	if (all && at < (size_t)got && (size_t)got < LINE_MAX_BYTES) {
		copy_line(buf + at, (size_t)got - at);
		at = (size_t)got;
	}
	done += (off_t)at;
	return at > 0;
}

void lv_log_copy(int all)
{
	pthread_mutex_lock(&lock);
	char *buf = raw >= 0 && log_file ? malloc(LINE_MAX_BYTES) : NULL;
	while (buf && copy_some(buf, all))
		;
	free(buf);
	if (log_file)
		fflush(log_file);
	pthread_mutex_unlock(&lock);
}

static void copy_at_exit(void)
{
	lv_log_copy(1);
}

/*
 * A file without a name in @dir, 0600: O_TMPFILE, or where the file system
 * has none, one created exclusively and unlinked at once.
 */
static int open_raw(int dir)
{
	int fd = openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	char name[64];
	snprintf(name, sizeof(name), "libvirt-log.%ld.raw", (long)getpid());
	if (unlinkat(dir, name, 0) && errno != ENOENT)
		return -1;
	fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && unlinkat(dir, name, 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Does @path open @fd's file again, as libvirt will? It is /proc/PID/fd/N,
 * not /proc/self: libvirt's child for ssh opens the log by that name again
 * after closing every descriptor, and reaches plerig's this way.
 */
static bool reaches(const char *path, int fd)
{
	struct stat a, b;
	const int again = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	const bool same = again >= 0 && !fstat(again, &a) && !fstat(fd, &b) &&
			  a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (again >= 0)
		close(again);
	return same;
}

/* libvirt.log and the file libvirt writes into, in the checked cache directory; false: neither. */
static bool open_files(const char *cache_dir, char *where, size_t len)
{
	char err[ERRBUF_SIZE];
	/* a cache directory another user could change gets no log of root's */
	const int dir = safe_dir_open(cache_dir, SAFE_DIR_CREATE, err, sizeof(err));
	if (dir < 0)
		return false;
	const int fd = openat(dir, "libvirt.log",
			      O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	raw = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) ? open_raw(dir) : -1;
	close(dir);
	bool ok = raw >= 0 &&
		  snprintf(where, len, "/proc/%ld/fd/%d", (long)getpid(), raw) < (int)len &&
		  reaches(where, raw) && (log_file = fdopen(fd, "a"));
	if (!ok) {
		if (fd >= 0)
			close(fd);
		if (raw >= 0)
			close(raw);
		raw = -1;
	}
	return ok;
}

/*
 * Set once, before any connection, under the lock: hosts open at once, and
 * setenv beside another thread's getenv (libvirt's, or its ssh child's
 * environment) is not safe.
 */
void lv_log_choose(const char *cache_dir)
{
	char where[64], outputs[96];
	pthread_mutex_lock(&lock);
	const char *given = getenv("LIBVIRT_LOG_OUTPUTS");
	if (!chosen && cache_dir && !(given && *given) &&
	    open_files(cache_dir, where, sizeof(where))) {
		snprintf(outputs, sizeof(outputs), "3:file:%s", where);
		atexit(copy_at_exit);
		setenv("LIBVIRT_LOG_OUTPUTS", outputs, 0);
	}
	if (cache_dir)
		chosen = true;
	pthread_mutex_unlock(&lock);
}
