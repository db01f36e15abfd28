// SPDX-License-Identifier: GPL-2.0
#include "util/errbuf.h"
#include "measure/schedstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * One unsigned decimal at *p. Hand-rolled because strtoull takes leading
 * blanks, a sign (and negates "-1" into 2^64-1) and saturates silently.
 */
static bool parse_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
			return false;
	}
	*p = s;
	*out = v;
	return true;
}

static bool skip_spaces(const char **p)
{
	const char *s = *p;

	while (*s == ' ')
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

int schedstat_parse(const char *text, struct schedstat *out)
{
	const char *p = text;
	struct schedstat st;

	if (!text)
		return -1;
	if (!parse_u64(&p, &st.run_ns) || !skip_spaces(&p) || !parse_u64(&p, &st.wait_ns) ||
	    !skip_spaces(&p) || !parse_u64(&p, &st.timeslices))
		return -1;
	if (*p == '\n')
		p++;
	if (*p != '\0')
		return -1;
	*out = st;
	return 0;
}

/* Tell a missing thread from a kernel built without the file. */
static void explain_enoent(pid_t tid, const char *dir, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) == 0)
		errbuf_printf(err, errlen,
			      "%s does not exist: the kernel lacks CONFIG_SCHED_INFO "
			      "(built without CONFIG_SCHEDSTATS and CONFIG_TASK_DELAY_ACCT)",
			      path);
	else
		errbuf_printf(err, errlen, "cannot read %s: no thread %d (any more)", path,
			      (int)tid);
}

static ssize_t read_text(int fd, char *buf, size_t size)
{
	size_t done = 0;

	while (done < size - 1) {
		ssize_t n = read(fd, buf + done, size - 1 - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	buf[done] = '\0';
	return (ssize_t)done;
}

/* @dir: the /proc directory of the thread ("/proc/self/task/TID" or "/proc/TID"). */
static int read_from(const char *dir, pid_t tid, struct schedstat *out, char *err, size_t errlen)
{
	char path[80], buf[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			explain_enoent(tid, dir, path, err, errlen);
		else
			errbuf_printf(err, errlen, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (read_text(fd, buf, sizeof(buf)) < 0) {
		ret = -errno;
		errbuf_printf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
	} else if (schedstat_parse(buf, out)) {
		ret = -EPROTO;
		/* keep the message on one line */
		errbuf_printf(err, errlen, "unexpected contents of %s: \"%.*s\"", path,
			      (int)strcspn(buf, "\n"), buf);
	}
	close(fd);
	return ret;
}

int schedstat_read(pid_t tid, struct schedstat *out, char *err, size_t errlen)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/self/task/%d", (int)tid);
	return read_from(dir, tid, out, err, errlen);
}

int schedstat_read_any(pid_t tid, struct schedstat *out, char *err, size_t errlen)
{
	char dir[64];
	if (tid <= 0) {
		errbuf_printf(err, errlen, "no thread id (%d) to read schedstat of", (int)tid);
		return -EINVAL;
	}
	snprintf(dir, sizeof(dir), "/proc/%d", (int)tid);
	return read_from(dir, tid, out, err, errlen);
}

void schedstat_keep_own(struct schedstat_kept *k)
{
	char err[ERRBUF_SIZE];
	if (!schedstat_read((pid_t)syscall(SYS_gettid), &k->s, err, sizeof(err)))
		__atomic_store_n(&k->valid, 1, __ATOMIC_RELEASE);
}

int schedstat_read_or_kept(pid_t tid, const struct schedstat_kept *k, struct schedstat *out,
			   char *err, size_t errlen)
{
	int rc = schedstat_read(tid, out, err, errlen);
	/* kept before the thread ended: no /proc entry means it is there */
	if (rc && k && __atomic_load_n(&k->valid, __ATOMIC_ACQUIRE)) {
		*out = k->s;
		return 0;
	}
	return rc;
}

static uint64_t sub_clamped(uint64_t after, uint64_t before)
{
	return after > before ? after - before : 0;
}

void schedstat_delta(const struct schedstat *before, const struct schedstat *after,
		     struct schedstat *out)
{
	struct schedstat d = {
	    .run_ns = sub_clamped(after->run_ns, before->run_ns),
	    .wait_ns = sub_clamped(after->wait_ns, before->wait_ns),
	    .timeslices = sub_clamped(after->timeslices, before->timeslices),
	};

	*out = d;
}
