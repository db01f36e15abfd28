// SPDX-License-Identifier: GPL-2.0
#include "ple/kvm_users.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strfmt.h"
#include "util/text_file.h"

const char *kvm_users_proc_root(void)
{
	const char *p = getenv("PLERIG_PROC_ROOT");
	return p && *p ? p : "/proc";
}

/* /dev/kvm itself, or an fd KVM made: anon_inode:kvm-vm, kvm-vcpu:N, ... */
static bool is_kvm_fd(const char *target)
{
	return strcmp(target, "/dev/kvm") == 0 || strncmp(target, "anon_inode:kvm-", 15) == 0;
}

static unsigned count_kvm_fds(const char *proc_root, const char *pid)
{
	char dir[PATH_MAX];
	if (pathf(dir, sizeof(dir), "%s/%s/fd", proc_root, pid))
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* gone, or not ours to look at */
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[PATH_MAX], target[PATH_MAX];
		if (e->d_name[0] == '.')
			continue;
		if (pathf(link, sizeof(link), "%s/%s", dir, e->d_name))
			continue;
		ssize_t len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += is_kvm_fd(target);
	}
	closedir(d);
	return n;
}

int kvm_users_describe(const char *proc_root, char *out, size_t outlen)
{
	size_t used = 0;
	int found = 0;
	if (outlen)
		out[0] = '\0';
	DIR *d = opendir(proc_root);
	if (!d)
		return 0;
	/*
	 * plerig's own fds (doctor's probe of /dev/kvm) are not a user that
	 * stands in the way: never name ourselves as the holder.
	 */
	char self[24] = "";
	if (!strcmp(proc_root, "/proc"))
		snprintf(self, sizeof(self), "%d", (int)getpid());
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!str_all_digits(e->d_name) || !strcmp(e->d_name, self))
			continue;
		unsigned fds = count_kvm_fds(proc_root, e->d_name);
		if (!fds)
			continue;
		char path[PATH_MAX], comm[64];
		if (pathf(path, sizeof(path), "%s/%s/comm", proc_root, e->d_name) ||
		    text_file_read(path, comm, sizeof(comm)) < 0)
			snprintf(comm, sizeof(comm), "?");
		if (used < outlen) {
			int w =
			    snprintf(out + used, outlen - used, "%s%s %s (%u fd%s)",
				     found ? ", " : "", e->d_name, comm, fds, fds == 1 ? "" : "s");
			used += w > 0 ? (size_t)w : 0;
		}
		found++;
	}
	closedir(d);
	return found;
}

unsigned kvm_users_self(const char *proc_root)
{
	char self[24];
	if (strcmp(proc_root, "/proc"))
		return 0;
	snprintf(self, sizeof(self), "%d", (int)getpid());
	return count_kvm_fds(proc_root, self);
}
