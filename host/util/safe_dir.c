// SPDX-License-Identifier: GPL-2.0
#include "util/safe_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errbuf.h"

/* Links followed on one walk: the kernel's own limit (MAXSYMLINKS). */
#define MAX_LINKS 40

/* -1 with errno @e, after the message: callers tell a missing directory (ENOENT) apart. */
static int failed(int e)
{
	errno = e;
	return -1;
}

bool safe_dir_trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* "nobody (uid 65534)", or "uid 1234" where the name is not known. */
static const char *owner_text(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *found = NULL;
	char room[1024];
	if (!getpwuid_r(uid, &pw, room, sizeof(room), &found) && found)
		snprintf(buf, len, "%s (uid %u)", found->pw_name, (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
	return buf;
}

/* One walk: the directory reached so far, its path, and what is left to walk. */
struct walk {
	int fd;
	char shown[PATH_MAX];
	char todo[2 * PATH_MAX];
	unsigned flags, links;
	char *err;
	size_t errlen;
};

static int untrusted_owner(struct walk *w, const char *what, const char *path, uid_t uid)
{
	char owner[128], me[160] = "root";
	if (geteuid()) {
		char name[128];
		snprintf(me, sizeof(me), "you, %s, or root",
			 owner_text(geteuid(), name, sizeof(name)));
	}
	errbuf_printf(w->err, w->errlen,
		      "%s %s is owned by %s, not by %s: whoever owns it can point plerig's "
		      "writes and removals elsewhere; use a directory of your own",
		      what, path, owner_text(uid, owner, sizeof(owner)), me);
	return failed(EPERM);
}

/* @fd, named @path, as a directory on the way (@last: the one asked for). */
static int check_dir(struct walk *w, int fd, const char *path, bool last)
{
	struct stat st;
	if (fstat(fd, &st)) {
		const int e = errno;
		errbuf_printf(w->err, w->errlen, "%s: %s", path, strerror(e));
		return failed(e);
	}
	if (!safe_dir_trusted_owner(st.st_uid))
		return untrusted_owner(w, "the directory", path, st.st_uid);
	if (!(st.st_mode & (S_IWGRP | S_IWOTH)) || (!last && (st.st_mode & S_ISVTX)))
		return 0;
	const bool sticky = st.st_mode & S_ISVTX;
	errbuf_printf(w->err, w->errlen,
		      "the directory %s is writable by others (mode %04o%s): they could point "
		      "plerig's writes and removals elsewhere; %s",
		      path, (unsigned)(st.st_mode & 07777), sticky ? ", sticky" : "",
		      sticky ? "use a directory of your own inside it"
			     : "remove their write permission (chmod go-w), or use another");
	return failed(EPERM);
}

/* @name of @len bytes appended to (or, "..", removed from) the shown path. */
static void shown_step(struct walk *w, const char *name, size_t len)
{
	size_t n = strlen(w->shown);
	if (len == 2 && !memcmp(name, "..", 2)) {
		char *slash = strrchr(w->shown, '/');
		if (slash && slash != w->shown)
			*slash = '\0';
		else
			snprintf(w->shown, sizeof(w->shown), "/");
		return;
	}
	snprintf(w->shown + n, sizeof(w->shown) - n, "%s%.*s", n > 1 ? "/" : "", (int)len, name);
}

/* A link at @name in the directory walked so far: its target goes before what is left. */
static int follow(struct walk *w, const char *name, const char *path, const struct stat *st,
		  const char *rest)
{
	char target[PATH_MAX];
	if (++w->links > MAX_LINKS) {
		errbuf_printf(w->err, w->errlen, "%s: %s", path, strerror(ELOOP));
		return failed(ELOOP);
	}
	if (!safe_dir_trusted_owner(st->st_uid))
		return untrusted_owner(w, "the symbolic link", path, st->st_uid);
	const ssize_t n = readlinkat(w->fd, name, target, sizeof(target) - 1);
	if (n < 0) {
		const int e = errno;
		errbuf_printf(w->err, w->errlen, "%s: %s", path, strerror(e));
		return failed(e);
	}
	target[n] = '\0';
	char next[sizeof(w->todo)];
	if (snprintf(next, sizeof(next), "%s/%s", target, rest) >= (int)sizeof(next)) {
		errbuf_printf(w->err, w->errlen, "%s: %s", path, strerror(ENAMETOOLONG));
		return failed(ENAMETOOLONG);
	}
	memcpy(w->todo, next, sizeof(next));
	if (target[0] != '/')
		return 0;
	/* from the top again */
	const int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		const int e = errno;
		errbuf_printf(w->err, w->errlen, "/: %s", strerror(e));
		return failed(e);
	}
	close(w->fd);
	w->fd = root;
	snprintf(w->shown, sizeof(w->shown), "/");
	return check_dir(w, root, "/", false);
}

/* The next component of w->todo, opened (made first, where asked) and checked. */
static int step(struct walk *w)
{
	char *p = w->todo;
	while (*p == '/')
		p++;
	const size_t len = strcspn(p, "/");
	char name[NAME_MAX + 1], path[PATH_MAX + NAME_MAX + 2], rest[sizeof(w->todo)];
	if (len > NAME_MAX) {
		errbuf_printf(w->err, w->errlen, "%s/%.*s...: %s", w->shown, 32, p,
			      strerror(ENAMETOOLONG));
		return failed(ENAMETOOLONG);
	}
	memcpy(name, p, len);
	name[len] = '\0';
	snprintf(rest, sizeof(rest), "%s", p + len);
	memmove(w->todo, rest, strlen(rest) + 1);
	if (!strcmp(name, "."))
		return 0;
	snprintf(path, sizeof(path), "%s%s%s", w->shown, strcmp(w->shown, "/") ? "/" : "", name);
	const int how = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(w->fd, name, how);
	if (fd < 0 && errno == ENOENT && (w->flags & SAFE_DIR_CREATE) &&
	    (!mkdirat(w->fd, name, 0700) || errno == EEXIST))
		fd = openat(w->fd, name, how); /* and checked as if it had been there */
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		struct stat st;
		if (!fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
			return follow(w, name, path, &st, rest);
		errno = ENOTDIR;
	}
	if (fd < 0) {
		const int e = errno;
		errbuf_printf(w->err, w->errlen, "%s: %s", path, strerror(e));
		return failed(e);
	}
	close(w->fd);
	w->fd = fd;
	shown_step(w, name, len);
	return check_dir(w, fd, path, false);
}

/* Walk w->todo from w->fd; the last directory is checked as the one asked for. */
static int walk(struct walk *w)
{
	while (strspn(w->todo, "/") < strlen(w->todo))
		if (step(w)) {
			const int e = errno;
			close(w->fd);
			errno = e;
			return -1;
		}
	if (check_dir(w, w->fd, w->shown, true)) {
		const int e = errno;
		close(w->fd);
		errno = e;
		return -1;
	}
	return w->fd;
}

int safe_dir_open(const char *path, unsigned flags, char *err, size_t errlen)
{
	struct walk w = {.flags = flags, .err = err, .errlen = errlen, .shown = "/"};
	char cwd[PATH_MAX] = "";
	if (!path || !*path) {
		errbuf_printf(err, errlen, "no directory given");
		return failed(EINVAL);
	}
	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		const int e = errno;
		errbuf_printf(err, errlen, "%s: the working directory: %s", path, strerror(e));
		return failed(e);
	}
	if (snprintf(w.todo, sizeof(w.todo), "%s/%s", cwd, path) >= (int)sizeof(w.todo)) {
		errbuf_printf(err, errlen, "%s: %s", path, strerror(ENAMETOOLONG));
		return failed(ENAMETOOLONG);
	}
	w.fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.fd < 0) {
		const int e = errno;
		errbuf_printf(err, errlen, "/: %s", strerror(e));
		return failed(e);
	}
	if (check_dir(&w, w.fd, "/", false)) {
		const int e = errno;
		close(w.fd);
		return failed(e);
	}
	return walk(&w);
}

int safe_dir_open_at(int dirfd, const char *shown, const char *rel, unsigned flags, char *err,
		     size_t errlen)
{
	struct walk w = {.flags = flags, .err = err, .errlen = errlen};
	if (rel[0] == '/') {
		errbuf_printf(err, errlen, "%s: not a relative path", rel);
		return failed(EINVAL);
	}
	snprintf(w.shown, sizeof(w.shown), "%s", shown);
	snprintf(w.todo, sizeof(w.todo), "%s", rel);
	w.fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (w.fd < 0) {
		const int e = errno;
		errbuf_printf(err, errlen, "%s: %s", shown, strerror(e));
		return failed(e);
	}
	return walk(&w);
}

int safe_file_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		const ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int safe_file_replace(int dirfd, const char *shown, const char *name, const void *data, size_t len,
		      mode_t mode, char *err, size_t errlen)
{
	char tmp[NAME_MAX + 1];
	int fd = -1;
	/* a fresh name each try: one left by a killed plerig of the same pid stays out of the way
	 */
	for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
		if (snprintf(tmp, sizeof(tmp), ".%s.%ld.%u.tmp", name, (long)getpid(), attempt) >=
		    (int)sizeof(tmp))
			return errbuf_printf(err, errlen, "%s/%s: %s", shown, name,
					     strerror(ENAMETOOLONG));
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return errbuf_printf(err, errlen, "creating %s/%s: %s", shown, tmp,
				     strerror(errno));
	/* fsync before rename: after a crash, the old file or the whole new one */
	int bad = safe_file_write_all(fd, data, len) || fsync(fd);
	int e = errno;
	if (close(fd) && !bad) {
		bad = 1;
		e = errno;
	}
	if (!bad && renameat(dirfd, tmp, dirfd, name)) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		unlinkat(dirfd, tmp, 0);
		return errbuf_printf(err, errlen, "writing %s/%s: %s", shown, name, strerror(e));
	}
	if (fsync(dirfd))
		return errbuf_printf(err, errlen, "writing %s/%s: %s", shown, name,
				     strerror(errno));
	return 0;
}
