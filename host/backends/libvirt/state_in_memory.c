// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/state_in_memory.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/regular_file.h"
#include "util/safe_dir.h"
#include "util/errbuf.h"
#include "util/remove_tree.h"

#define MEMORY_FS "/dev/shm"
#define PREFIX	  "plerig-libvirt-run-"

static bool on_tmpfs(const char *path)
{
	struct statfs s;
	return !statfs(path, &s) && s.f_type == TMPFS_MAGIC;
}

/* MEMORY_FS/PREFIXXXXXXX, as mkdtemp made it: no other name is one of ours. */
static bool our_name(const char *path)
{
	static const char head[] = MEMORY_FS "/" PREFIX;
	if (strncmp(path, head, sizeof(head) - 1))
		return false;
	const char *tail = path + sizeof(head) - 1;
	return strlen(tail) == 6 && !strchr(tail, '/');
}

/*
 * The root @dir was made for, from the ROOT file plerig writes into each
 * directory it makes, once linked: only a directory with our name,
 * this user's, no one else's to enter, in memory, and holding that record
 * is one plerig made (a root-owned 0700 directory of anything else in
 * /dev/shm is not).
 */
static bool recorded_root(const char *dir, char *out, size_t len)
{
	char why[ERRBUF_SIZE], *text = NULL;
	size_t n = 0;
	struct statfs fs;
	struct stat st;
	if (!our_name(dir))
		return false;
	const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok =
	    !fstat(fd, &st) && st.st_uid == geteuid() && !(st.st_mode & 077) && !fstatfs(fd, &fs) &&
	    fs.f_type == TMPFS_MAGIC &&
	    !regular_file_read(fd, "ROOT", O_NOFOLLOW, PATH_MAX, &text, &n, why, sizeof(why)) &&
	    n < len && strlen(text) == n;
	if (ok)
		memcpy(out, text, n + 1);
	free(text);
	close(fd);
	return ok;
}

/* Did plerig make @dir for @root? */
static bool made_for(const char *dir, const char *root)
{
	char recorded[PATH_MAX];
	return recorded_root(dir, recorded, sizeof(recorded)) && !strcmp(recorded, root);
}

/* Does the driver's pid file have a lock on it (a plerig connected to this root)? */
static bool driver_holds(const char *run)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/qemu/driver.pid", run);
	const int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	const bool held = fcntl(fd, F_GETLK, &l) || l.l_type != F_UNLCK;
	close(fd);
	return held;
}

/* Any domain's status file (NAME.xml, NAME.xml.new) in @run/qemu? */
static bool holds_domains(const char *run)
{
	char path[PATH_MAX + 8];
	snprintf(path, sizeof(path), "%s/qemu", run);
	DIR *d = opendir(path);
	struct dirent *e;
	bool found = false;
	while (d && !found && (e = readdir(d)))
		found = strstr(e->d_name, ".xml") != NULL;
	if (d)
		closedir(d);
	return found;
}

/* Where @rootfd's run links, if plerig made that directory for @root; "" if not. */
static void current_target(int rootfd, const char *root, char *out, size_t len)
{
	const ssize_t n = readlinkat(rootfd, "run", out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	if (n <= 0 || !made_for(out, root))
		out[0] = '\0';
}

/*
 * Directories plerig made whose root no longer links to them (a cache dir
 * removed with its link, a root that made a new one): the root's path is
 * in their ROOT file. One without it yet is being linked this instant (or
 * was, by a plerig killed then): left alone.
 */
static void sweep(void)
{
	DIR *d = opendir(MEMORY_FS);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char dir[PATH_MAX], root[PATH_MAX], now[PATH_MAX], why[ERRBUF_SIZE];
		if (snprintf(dir, sizeof(dir), MEMORY_FS "/%s", e->d_name) >= (int)sizeof(dir) ||
		    !recorded_root(dir, root, sizeof(root)))
			continue;
		/* its root, if it is still one plerig may trust, and where its link goes */
		const int rootfd = safe_dir_open(root, 0, why, sizeof(why));
		now[0] = '\0';
		if (rootfd >= 0) {
			current_target(rootfd, root, now, sizeof(now));
			close(rootfd);
		}
		if (strcmp(now, dir))
			remove_tree(dir);
	}
	if (d)
		closedir(d);
}

void state_in_memory_release(const char *root)
{
	char target[PATH_MAX], why[ERRBUF_SIZE];
	const int rootfd = safe_dir_open(root, 0, why, sizeof(why));
	if (rootfd < 0)
		return;
	current_target(rootfd, root, target, sizeof(target));
	/* a killed plerig's domains are in it: the next run against this root needs them;
	 * or another plerig of this root connected as this one closed, and uses it */
	if (target[0] && !holds_domains(target) && !driver_holds(target) &&
	    !unlinkat(rootfd, "run", 0))
		remove_tree(target);
	close(rootfd);
}

/* Last: a sweep leaves a directory alone until it names its root. */
static void record_root(const char *target, const char *root)
{
	char why[ERRBUF_SIZE];
	const int fd = open(target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	safe_file_replace(fd, target, "ROOT", root, strlen(root), 0600, why, sizeof(why));
	close(fd);
}

/* @root's run, a directory: moved to memory unless a driver or a domain's state is in it. */
static bool run_dir_clear(const char *root)
{
	char link[PATH_MAX + 8];
	snprintf(link, sizeof(link), "%s/run", root);
	if (driver_holds(link) || holds_domains(link))
		return false;
	remove_tree(link);
	return true;
}

void state_in_memory(const char *root)
{
	char target[PATH_MAX], why[ERRBUF_SIZE];
	struct stat st;
	if (!on_tmpfs(MEMORY_FS))
		return;
	/* a root another user could change keeps its state where libvirt puts it */
	const int rootfd = safe_dir_open(root, 0, why, sizeof(why));
	if (rootfd < 0)
		return;
	if (!fstatat(rootfd, "run", &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISLNK(st.st_mode)) {
			current_target(rootfd, root, target, sizeof(target));
			/* gone with a reboot, or not one plerig made: point it at a new one */
			if (target[0])
				goto out;
		} else if (!S_ISDIR(st.st_mode) || !run_dir_clear(root)) {
			goto out;
		}
	}
	sweep();
	unlinkat(rootfd, "run.new", 0);
	snprintf(target, sizeof(target), MEMORY_FS "/" PREFIX "XXXXXX");
	if (!mkdtemp(target))
		goto out;
	if (symlinkat(target, rootfd, "run.new") || renameat(rootfd, "run.new", rootfd, "run")) {
		unlinkat(rootfd, "run.new", 0);
		rmdir(target);
		goto out;
	}
	record_root(target, root);
out:
	close(rootfd);
}
