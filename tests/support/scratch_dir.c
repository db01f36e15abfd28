// SPDX-License-Identifier: GPL-2.0
/* One directory per test program for what its cases write, removed by the parent (scratch_dir.h).
 */
#include "support/scratch_dir.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX];

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

static void remove_tree(const char *path)
{
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		fprintf(stderr, "cannot walk %s to remove it: %s\n", path, strerror(errno));
}

/*
 * A test program killed (meson's timeout, Ctrl-C, SIGKILL) never reached
 * scratch_root_remove: its root, named by its pid, is this user's and that
 * pid runs no more. Removed, and said, when the same test starts again.
 */
static void sweep_dead_roots(const char *tmp, const char *prefix)
{
	DIR *d = opendir(tmp);
	size_t len = strlen(prefix);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		char path[PATH_MAX], *end;
		struct stat st;
		if (strncmp(e->d_name, prefix, len))
			continue;
		long pid = strtol(e->d_name + len, &end, 10);
		if (end == e->d_name + len || *end != '.' || pid <= 0 || !kill((pid_t)pid, 0) ||
		    errno != ESRCH)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		fprintf(stderr, "removing %s, left by a killed run of this test (pid %ld)\n", path,
			pid);
		remove_tree(path);
	}
	closedir(d);
}

int scratch_root_make(void)
{
	const char *tmp = getenv("TMPDIR");
	char prefix[NAME_MAX];
	tmp = tmp && *tmp ? tmp : "/tmp";
	snprintf(prefix, sizeof(prefix), "plerig-%.200s-", program_invocation_short_name);
	sweep_dead_roots(tmp, prefix);
	int n = snprintf(root, sizeof(root), "%s/%s%ld.XXXXXX", tmp, prefix, (long)getpid());

	if (n < 0 || (size_t)n >= sizeof(root) || !mkdtemp(root)) {
		fprintf(stderr, "cannot make the test's scratch directory %s: %s\n", root,
			n < 0 || (size_t)n >= sizeof(root) ? "path too long" : strerror(errno));
		root[0] = '\0';
		return -1;
	}
	if (setenv("TMPDIR", root, 1)) {
		fprintf(stderr, "cannot set TMPDIR to %s: %s\n", root, strerror(errno));
		scratch_root_remove();
		return -1;
	}
	return 0;
}

void scratch_root_remove(void)
{
	if (!root[0])
		return;
	remove_tree(root);
	root[0] = '\0';
}

void scratch_dir(char *buf, size_t len, const char *name)
{
	ck_assert_msg(root[0], "no scratch root: the test's main() is not check_run");
	int n = snprintf(buf, len, "%s/%s.XXXXXX", root, name);
	ck_assert_msg(n > 0 && (size_t)n < len, "%s/%s.XXXXXX does not fit in %zu bytes", root,
		      name, len);
	ck_assert_msg(mkdtemp(buf), "mkdtemp %s: %s", buf, strerror(errno));
}
