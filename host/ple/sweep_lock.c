// SPDX-License-Identifier: GPL-2.0
#include "ple/sweep_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ple/state_file.h"
#include "util/errbuf.h"

void sweep_lock_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/ple-params.lock", ple_state_dir());
}

/* The pid in the file, for people looking at it: the lock itself is what counts. */
static int note_pid(int fd)
{
	char pid[24];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

/* Who holds the lock on @fd: its pid, 0 when nobody does any more. */
static pid_t lock_holder(int fd)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		return 0;
	return fl.l_pid;
}

int sweep_lock_busy(pid_t holder, char *err, size_t errlen)
{
	char path[PATH_MAX];
	sweep_lock_path(path, sizeof(path));
	return errbuf_errno(err, errlen, -EBUSY,
			    "another plerig sweep (pid %ld) is changing the PLE parameters (it "
			    "holds %s); wait for it to end, or stop it (kill %ld): it restores "
			    "them itself",
			    (long)holder, path, (long)holder);
}

int sweep_lock_acquire(pid_t *holder, char *err, size_t errlen)
{
	char path[PATH_MAX];
	*holder = 0;
	int rc = ple_state_dir_make(err, errlen);
	if (rc)
		return rc;
	sweep_lock_path(path, sizeof(path));
	/* O_NOFOLLOW: a link planted in the directory must not lead root elsewhere */
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0) {
		int e = errno;
		return errbuf_errno(err, errlen, -e, "opening the sweep lock %s: %s", path,
				    strerror(e));
	}
	/* the holder can let go between our F_SETLK and F_GETLK: then try again */
	for (int attempt = 0; attempt < 3; attempt++) {
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		if (fcntl(fd, F_SETLK, &fl) == 0) {
			(void)note_pid(fd);
			return fd;
		}
		if (errno != EACCES && errno != EAGAIN) {
			int e = errno;
			close(fd);
			return errbuf_errno(err, errlen, -e, "locking %s: %s", path, strerror(e));
		}
		*holder = lock_holder(fd);
		if (*holder)
			break;
	}
	close(fd);
	return sweep_lock_busy(*holder, err, errlen);
}

pid_t sweep_lock_holder(void)
{
	char path[PATH_MAX];
	sweep_lock_path(path, sizeof(path));
	/* F_GETLK of a write lock needs a descriptor open for writing */
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return 0;
	pid_t pid = lock_holder(fd);
	close(fd);
	return pid;
}

void sweep_lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
