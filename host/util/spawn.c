// SPDX-License-Identifier: GPL-2.0
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/errbuf.h"

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child(char *const argv[], int out_fd, int status_fd)
{
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
	    dup2(out_fd, STDERR_FILENO) < 0)
		goto fail;
	/* the helper must die of Ctrl-C like any child, whatever plerig does with it */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execvp(argv[0], argv);
fail:;
	int e = errno;
	/* tells the parent why exec failed; the pipe closes on a successful exec */
	if (write(status_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Append @n bytes to @out, keeping the tail when it overflows. */
static void keep_tail(char *out, size_t outlen, size_t *used, const char *buf, size_t n)
{
	if (!out || outlen < 2)
		return;
	size_t cap = outlen - 1;
	if (n >= cap) {
		memcpy(out, buf + n - cap, cap);
		*used = cap;
	} else {
		if (*used + n > cap) {
			size_t drop = *used + n - cap;
			memmove(out, out + drop, *used - drop);
			*used -= drop;
		}
		memcpy(out + *used, buf, n);
		*used += n;
	}
	out[*used] = '\0';
}

static int reap(pid_t pid, char *err, size_t errlen)
{
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			int e = errno;
			return errbuf_errno(err, errlen, -e, "waitpid for the helper (pid %d): %s",
					    (int)pid, strerror(e));
		}
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int spawn_capture(char *const argv[], char *out, size_t outlen, int timeout_ms, char *err,
		  size_t errlen)
{
	int out_pipe[2], status_pipe[2];
	size_t used = 0;
	if (out && outlen)
		out[0] = '\0';
	if (pipe2(out_pipe, O_CLOEXEC) < 0) {
		int e = errno;
		return errbuf_errno(err, errlen, -e, "pipe for %s's output: %s", argv[0],
				    strerror(e));
	}
	if (pipe2(status_pipe, O_CLOEXEC) < 0) {
		int e = errno;
		errbuf_printf(err, errlen, "pipe for %s's exec status: %s", argv[0], strerror(e));
		close(out_pipe[0]);
		close(out_pipe[1]);
		return -e;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		errbuf_printf(err, errlen, "fork to run %s: %s", argv[0], strerror(e));
		close(out_pipe[0]);
		close(out_pipe[1]);
		close(status_pipe[0]);
		close(status_pipe[1]);
		return -e;
	}
	if (pid == 0)
		child(argv, out_pipe[1], status_pipe[1]);
	close(out_pipe[1]);
	close(status_pipe[1]);

	uint64_t deadline = monotonic_ns() + (uint64_t)timeout_ms * 1000000ull;
	bool timed_out = false;
	for (;;) {
		uint64_t now = monotonic_ns();
		if (now >= deadline) {
			timed_out = true;
			break;
		}
		struct pollfd p = {.fd = out_pipe[0], .events = POLLIN};
		int r = poll(&p, 1, (int)((deadline - now) / 1000000ull) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		char buf[512];
		ssize_t n = read(out_pipe[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		keep_tail(out, outlen, &used, buf, (size_t)n);
	}
	close(out_pipe[0]);
	if (timed_out)
		kill(pid, SIGKILL);

	int exec_errno = 0;
	ssize_t n = read(status_pipe[0], &exec_errno, sizeof(exec_errno));
	close(status_pipe[0]);
	int rc = reap(pid, err, errlen);
	if (rc < 0)
		return rc;
	if (n == (ssize_t)sizeof(exec_errno))
		return errbuf_errno(err, errlen, -exec_errno, "cannot run %s: %s", argv[0],
				    strerror(exec_errno));
	if (timed_out)
		return errbuf_errno(err, errlen, -ETIMEDOUT,
				    "%s did not finish within %d ms and was killed", argv[0],
				    timeout_ms);
	return rc;
}
