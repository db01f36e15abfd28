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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool chosen;
static char *uris[MAX_URIS];
static unsigned nr_uris;

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

/* @line with every known URI's secrets hidden, in @out (@len bytes). */
static void redact_line(const char *line, char *out, char *tmp, size_t len)
{
	uri_redact(line, out, len);
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < nr_uris; i++) {
		uri_redact_text(uris[i], out, tmp, len);
		memcpy(out, tmp, len);
	}
	pthread_mutex_unlock(&lock);
}

struct pump {
	FILE *in, *out;
};

/* Each line libvirt writes into the pipe, redacted, into the file. */
static void *pump(void *arg)
{
	struct pump *p = arg;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	const size_t len = 8192;
	char *out = malloc(len), *tmp = malloc(len);
	while (out && tmp && (n = getline(&line, &cap, p->in)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		redact_line(line, out, tmp, len);
		printable_printf(p->out, "%s\n", out);
		fflush(p->out);
	}
	free(line);
	free(out);
	free(tmp);
	fclose(p->in);
	fclose(p->out);
	free(p);
	return NULL;
}

static char fifo_path[PATH_MAX];

static void remove_fifo(void)
{
	if (fifo_path[0])
		unlink(fifo_path);
}

/*
 * The log file and the pipe libvirt writes into, in the checked cache
 * directory, neither through a link. The pipe is a FIFO with this
 * process's id in its name, removed at exit: libvirt's children (the
 * fork before ssh) open the log again by its name after closing every
 * descriptor, so a /proc/self/fd name would not do.
 */
static bool open_files(const char *cache_dir, FILE **log, int *in, int *keep)
{
	char err[ERRBUF_SIZE], dir_path[PATH_MAX], name[64];
	/* a cache directory another user could change gets no log of root's */
	const int dir = safe_dir_open(cache_dir, SAFE_DIR_CREATE, err, sizeof(err));
	if (dir < 0)
		return false;
	snprintf(name, sizeof(name), "libvirt-log.%ld.fifo", (long)getpid());
	const int fd = openat(dir, "libvirt.log",
			      O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	bool ok = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		  realpath(cache_dir, dir_path) &&
		  snprintf(fifo_path, sizeof(fifo_path), "%s/%s", dir_path, name) <
		      (int)sizeof(fifo_path) &&
		  (unlinkat(dir, name, 0) == 0 || errno == ENOENT) && !mkfifoat(dir, name, 0600);
	if (!ok)
		fifo_path[0] = '\0';
	*in = ok ? openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) : -1;
	/* a writer of its own: without one, a read finds the end before libvirt opens it */
	*keep = *in >= 0 ? openat(dir, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	*log = *keep >= 0 ? fdopen(fd, "a") : NULL;
	ok = *log && fcntl(*in, F_SETFL, 0) == 0;
	close(dir);
	if (!ok) {
		if (*log)
			fclose(*log);
		else if (fd >= 0)
			close(fd);
		if (*in >= 0)
			close(*in);
		if (*keep >= 0)
			close(*keep);
		remove_fifo();
		fifo_path[0] = '\0';
	}
	return ok;
}

/* The thread that copies the FIFO into the log; false (@in closed) when it could not start. */
static bool start_pump(FILE *log, int in)
{
	struct pump *p = malloc(sizeof(*p));
	if (!p) {
		close(in);
		return false;
	}
	p->in = fdopen(in, "r");
	p->out = log;
	pthread_t t;
	pthread_attr_t attr;
	bool ok = p->in && !pthread_attr_init(&attr);
	if (ok) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		ok = !pthread_create(&t, &attr, pump, p);
		pthread_attr_destroy(&attr);
	}
	if (!ok && p->in)
		fclose(p->in);
	else if (!ok)
		close(in);
	if (!ok)
		free(p);
	return ok;
}

/*
 * Set once, before any connection, under the lock: hosts open at once, and
 * setenv beside another thread's getenv (libvirt's, or its ssh child's
 * environment) is not safe.
 */
void lv_log_choose(const char *cache_dir)
{
	FILE *log;
	int in, keep;
	pthread_mutex_lock(&lock);
	const char *given = getenv("LIBVIRT_LOG_OUTPUTS");
	if (!chosen && cache_dir && !(given && *given) && open_files(cache_dir, &log, &in, &keep)) {
		char where[PATH_MAX + 16];
		if (start_pump(log, in)) {
			/* @keep stays open for the life of the process */
			snprintf(where, sizeof(where), "3:file:%s", fifo_path);
			atexit(remove_fifo);
			setenv("LIBVIRT_LOG_OUTPUTS", where, 0);
		} else {
			fclose(log);
			close(keep);
			remove_fifo();
		}
	}
	chosen = true;
	pthread_mutex_unlock(&lock);
}
