// SPDX-License-Identifier: GPL-2.0
#include "measure/trace_counter.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/tracefs.h"
#include "util/errbuf.h"
#include "util/strfmt.h"
#include "util/text_file.h"

static long paranoid_level(void)
{
	char text[16];
	if (text_file_read("/proc/sys/kernel/perf_event_paranoid", text, sizeof(text)) < 0)
		return -100;
	return strtol(text, NULL, 10);
}

static void explain_open_error(int e, const char *system, const char *event, pid_t tid, char *err,
			       size_t errlen)
{
	const char *fix = "";
	char buf[160];
	switch (e) {
	case EACCES:
	case EPERM:
		snprintf(buf, sizeof(buf),
			 ": run as root (or with CAP_PERFMON), or lower "
			 "kernel.perf_event_paranoid (now %ld)",
			 paranoid_level());
		fix = buf;
		break;
	case ENOSYS:
		fix = ": this kernel has no perf events (CONFIG_PERF_EVENTS)";
		break;
	case ESRCH:
		fix = ": the thread is gone";
		break;
	case ENOENT:
	case EINVAL:
		fix = ": this kernel cannot count this tracepoint with perf "
		      "(CONFIG_EVENT_TRACING, CONFIG_PERF_EVENTS)";
		break;
	case EMFILE:
		fix = ": too many open files (ulimit -n)";
		break;
	}
	errbuf_printf(err, errlen, "perf_event_open(%s:%s) for thread %d: %s%s", system, event,
		      (int)tid, strerror(e), fix);
}

int trace_perf_open(struct perf_event_attr *attr, const char *tracefs, const char *system,
		    const char *event, pid_t tid, char *err, size_t errlen)
{
	char path[4096], id[32];
	if (pathf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, system, event))
		return errbuf_errno(err, errlen, -ENAMETOOLONG, "tracefs path too long");
	ssize_t n = text_file_read(path, id, sizeof(id));
	if (n < 0)
		return errbuf_errno(err, errlen, (int)n, "%s:%s: cannot read %s: %s%s", system,
				    event, path, strerror((int)-n),
				    n == -ENOENT   ? " (this kernel has no such tracepoint)"
				    : n == -EACCES ? " (run as root: tracefs is root-only)"
						   : "");
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->size = sizeof(*attr);
	attr->config = strtoull(id, NULL, 10);
	int fd = (int)syscall(SYS_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		explain_open_error(e, system, event, tid, err, errlen);
		return -e;
	}
	return fd;
}

int trace_counter_open(struct trace_counter *c, const char *tracefs, const char *system,
		       const char *event, pid_t tid, const char *filter, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	c->fd = -1;
	c->tid = tid;
	/* counting only: no sample buffer, nothing that can be lost */
	attr.read_format = 0;
	attr.inherit = 0;
	int fd = trace_perf_open(&attr, tracefs, system, event, tid, err, errlen);
	if (fd < 0)
		return fd;
	if (filter && *filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
		int e = errno;
		errbuf_printf(
		    err, errlen,
		    "PERF_EVENT_IOC_SET_FILTER \"%s\" on %s:%s: %s (check the field names "
		    "in %s/events/%s/%s/format)",
		    filter, system, event, strerror(e), tracefs, system, event);
		close(fd);
		return -e;
	}
	c->fd = fd;
	return 0;
}

int trace_counter_read(const struct trace_counter *c, uint64_t *count, char *err, size_t errlen)
{
	ssize_t n;
	do
		n = read(c->fd, count, sizeof(*count));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*count)) {
		int e = n < 0 ? errno : EIO;
		return errbuf_errno(err, errlen, -e, "reading the perf counter of thread %d: %s",
				    (int)c->tid, n < 0 ? strerror(e) : "short read");
	}
	return 0;
}

void trace_counter_close(struct trace_counter *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
