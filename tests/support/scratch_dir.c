// SPDX-License-Identifier: GPL-2.0
/* One directory per test program for what its cases write, removed by the parent (scratch_dir.h).
 */
#include "support/scratch_dir.h"

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[PATH_MAX];

int scratch_root_make(void)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(root, sizeof(root), "%s/plerig-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp",
			 program_invocation_short_name);

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

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

void scratch_root_remove(void)
{
	if (!root[0])
		return;
	if (nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		fprintf(stderr, "cannot walk %s to remove it: %s\n", root, strerror(errno));
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
