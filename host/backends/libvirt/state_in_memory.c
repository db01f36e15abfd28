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

#include "backends/libvirt/run_dir.h"
#include "util/atomic_file.h"
#include "util/errbuf.h"

#define MEMORY_FS "/dev/shm"
#define PREFIX	  "plerig-libvirt-run-"

static bool on_tmpfs(const char *path)
{
	struct statfs s;
	return !statfs(path, &s) && s.f_type == TMPFS_MAGIC;
}

/* A directory of ours that no one else may enter, in memory. */
static bool ours(const char *dir)
{
	struct stat st;
	return !lstat(dir, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 077) && on_tmpfs(dir);
}

/* Does the driver's pid file have a lock on it (a plerig connected to this root)? */
static bool driver_holds(const char *run)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/qemu/driver.pid", run);
	const int fd = open(path, O_RDWR | O_CLOEXEC);
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

/* Where @root/run points, if that is a directory of ours in memory; "" if not. */
static void current_target(const char *root, char *out, size_t len)
{
	char link[PATH_MAX + 8];
	snprintf(link, sizeof(link), "%s/run", root);
	const ssize_t n = readlink(link, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	if (n <= 0 || !ours(out))
		out[0] = '\0';
}

/* Directories of ours whose root no longer links to them (a cache dir removed with
 * its link, a root that made a new one): the root's path is in their ROOT file. */
static void sweep(void)
{
	DIR *d = opendir(MEMORY_FS);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char dir[PATH_MAX], file[PATH_MAX + 8], now[PATH_MAX];
		unsigned char *root;
		size_t len;
		if (strncmp(e->d_name, PREFIX, sizeof(PREFIX) - 1) ||
		    snprintf(dir, sizeof(dir), MEMORY_FS "/%s", e->d_name) >= (int)sizeof(dir) ||
		    !ours(dir))
			continue;
		snprintf(file, sizeof(file), "%s/ROOT", dir);
		if (read_whole_file(file, PATH_MAX, &root, &len, now, sizeof(now)))
			continue; /* being made this instant, or not one of ours */
		current_target((const char *)root, now, sizeof(now));
		if (strcmp(now, dir))
			remove_tree(dir);
		free(root);
	}
	if (d)
		closedir(d);
}

void state_in_memory_release(const char *root)
{
	char target[PATH_MAX], link[PATH_MAX + 8];
	current_target(root, target, sizeof(target));
	snprintf(link, sizeof(link), "%s/run", root);
	/* a killed plerig's domains are in it: the next run against this root needs them;
	 * or another plerig of this root connected as this one closed, and uses it */
	if (!target[0] || holds_domains(target) || driver_holds(target) || unlink(link))
		return;
	remove_tree(target);
}

void state_in_memory(const char *root)
{
	char link[PATH_MAX], next[PATH_MAX + 8], target[PATH_MAX] = MEMORY_FS "/" PREFIX "XXXXXX";
	struct stat st;
	if (!on_tmpfs(MEMORY_FS) ||
	    snprintf(link, sizeof(link), "%s/run", root) >= (int)sizeof(link))
		return;
	if (!lstat(link, &st) && S_ISLNK(st.st_mode)) {
		char now[PATH_MAX];
		const ssize_t n = readlink(link, now, sizeof(now) - 1);
		if (n > 0 && (now[n] = '\0', ours(now)))
			return;
		/* gone with a reboot, or not ours: point it at a new one */
	} else if (!lstat(link, &st)) {
		if (!S_ISDIR(st.st_mode) || driver_holds(link) || holds_domains(link))
			return;
		remove_tree(link);
	}
	sweep();
	snprintf(next, sizeof(next), "%s.new", link);
	unlink(next);
	if (!mkdtemp(target))
		return;
	if (symlink(target, next) || rename(next, link)) {
		unlink(next);
		rmdir(target);
		return;
	}
	/* last: a sweep leaves a directory alone until it names its root */
	char file[PATH_MAX + 8], err[ERRBUF_SIZE];
	snprintf(file, sizeof(file), "%s/ROOT", target);
	atomic_file_write(file, "the memory state's root", root, strlen(root), err, sizeof(err));
}
