// SPDX-License-Identifier: GPL-2.0
/*
 * util/safe_dir: directories plerig keeps state in are walked from / and
 * refused where another user could change them (a directory or link of
 * theirs on the way, one that others may write to), and files there are
 * replaced without following a link planted at their name. The cases that
 * need another user's files (chown to nobody) run as root only; without
 * root they are left out, and the test says so.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/check_main.h"
#include "support/scratch_dir.h"
#include "util/errbuf.h"
#include "util/safe_dir.h"

#define NOBODY 65534

static char base[SCRATCH_DIR_LEN];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void expect_text(const char *path, const char *want)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	ck_assert_str_eq(buf, want);
}

static void path_of(char *buf, size_t len, const char *rel)
{
	ck_assert_int_lt(snprintf(buf, len, "%s/%s", base, rel), (int)len);
}

/* safe_dir_open(@rel under base) must fail with @want in the message. */
static void refused(const char *rel, unsigned flags, const char *want)
{
	char path[PATH_MAX], err[ERRBUF_SIZE] = "";
	path_of(path, sizeof(path), rel);
	const int fd = safe_dir_open(path, flags, err, sizeof(err));
	if (fd >= 0)
		close(fd);
	ck_assert_msg(fd < 0, "%s was accepted", path);
	ck_assert_msg(strstr(err, want), "'%s' does not say '%s'", err, want);
}

START_TEST(missing_directories_are_made_ours_and_private)
{
	char path[PATH_MAX], err[ERRBUF_SIZE];
	struct stat st;
	scratch_dir(base, sizeof(base), "safe");
	path_of(path, sizeof(path), "a/b/c");
	errno = 0;
	ck_assert_int_lt(safe_dir_open(path, 0, err, sizeof(err)), 0);
	ck_assert_int_eq(errno, ENOENT);
	const int fd = safe_dir_open(path, SAFE_DIR_CREATE, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_uid, geteuid());
	ck_assert_int_eq(st.st_mode & 077, 0);
	/* below it, by the same rules; and a relative path from the working directory */
	const int sub = safe_dir_open_at(fd, path, "d/e", SAFE_DIR_CREATE, err, sizeof(err));
	ck_assert_msg(sub >= 0, "%s", err);
	close(sub);
	close(fd);
	ck_assert_int_eq(chdir(base), 0);
	const int rel = safe_dir_open("a/./b/../b/c/d/e", 0, err, sizeof(err));
	ck_assert_msg(rel >= 0, "%s", err);
	close(rel);
}
END_TEST

/* The user's own link is followed (a cache dir on another disk); the walk goes on there. */
START_TEST(a_link_of_ones_own_is_followed)
{
	char real[PATH_MAX], link[PATH_MAX], err[ERRBUF_SIZE];
	scratch_dir(base, sizeof(base), "safe");
	path_of(real, sizeof(real), "real");
	path_of(link, sizeof(link), "link");
	ck_assert_int_eq(mkdir(real, 0700), 0);
	ck_assert_int_eq(symlink("real", link), 0);
	const int fd = safe_dir_open(link, SAFE_DIR_CREATE, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	close(fd);
	path_of(link, sizeof(link), "link/made");
	const int made = safe_dir_open(link, SAFE_DIR_CREATE, err, sizeof(err));
	ck_assert_msg(made >= 0, "%s", err);
	close(made);
	path_of(real, sizeof(real), "real/made");
	ck_assert_int_eq(access(real, F_OK), 0);
}
END_TEST

/* Others may write: refused on the way, sticky ones passed through, the last one never. */
START_TEST(a_directory_others_may_write_is_refused)
{
	char path[PATH_MAX], err[ERRBUF_SIZE];
	scratch_dir(base, sizeof(base), "safe");
	path_of(path, sizeof(path), "open");
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(chmod(path, 0777), 0);
	refused("open", 0, "is writable by others (mode 0777)");
	refused("open/below", SAFE_DIR_CREATE, "chmod go-w");
	path_of(path, sizeof(path), "open/below");
	ck_assert_int_ne(access(path, F_OK), 0); /* nothing made under it */
	path_of(path, sizeof(path), "group");
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(chmod(path, 0770), 0);
	refused("group", 0, "writable by others (mode 0770)");
	path_of(path, sizeof(path), "sticky");
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(chmod(path, 01777), 0);
	refused("sticky", 0, "use a directory of your own inside it");
	path_of(path, sizeof(path), "sticky/mine");
	const int fd = safe_dir_open(path, SAFE_DIR_CREATE, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	close(fd);
}
END_TEST

/* A link at the name is replaced, never written through; a link at a temporary name is not used. */
START_TEST(a_planted_link_is_replaced_not_followed)
{
	char dir[PATH_MAX], victim[PATH_MAX], link[PATH_MAX], tmp[PATH_MAX + 64], err[ERRBUF_SIZE];
	struct stat st;
	scratch_dir(base, sizeof(base), "safe");
	path_of(dir, sizeof(dir), "state");
	path_of(victim, sizeof(victim), "victim");
	put(victim, "precious\n");
	const int fd = safe_dir_open(dir, SAFE_DIR_CREATE, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	path_of(link, sizeof(link), "state/qemu.conf");
	ck_assert_int_eq(symlink(victim, link), 0);
	/* the first temporary names this process would use, planted too */
	for (unsigned i = 0; i < 3; i++) {
		snprintf(tmp, sizeof(tmp), "%s/.qemu.conf.%ld.%u.tmp", dir, (long)getpid(), i);
		ck_assert_int_eq(symlink(victim, tmp), 0);
	}
	ck_assert_msg(!safe_file_replace(fd, dir, "qemu.conf", "new\n", 4, 0600, err, sizeof(err)),
		      "%s", err);
	close(fd);
	expect_text(victim, "precious\n");
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert_msg(S_ISREG(st.st_mode), "qemu.conf is still a link");
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	expect_text(link, "new\n");
}
END_TEST

/* ---- as root: another user's directories and links ---- */

static void make_owned(const char *rel, uid_t uid, mode_t mode)
{
	char path[PATH_MAX];
	path_of(path, sizeof(path), rel);
	ck_assert_int_eq(mkdir(path, mode), 0);
	ck_assert_int_eq(chown(path, uid, uid), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

START_TEST(another_users_directory_is_refused)
{
	char path[PATH_MAX];
	scratch_dir(base, sizeof(base), "safe");
	ck_assert_int_eq(chmod(base, 0755), 0);
	make_owned("theirs", NOBODY, 0755);
	refused("theirs", 0, "theirs is owned by nobody (uid 65534), not by root");
	/* nor anything below it, made or found */
	refused("theirs/libvirt", SAFE_DIR_CREATE, "is owned by nobody");
	path_of(path, sizeof(path), "theirs/libvirt");
	ck_assert_int_ne(access(path, F_OK), 0);
	/* one of theirs below one of ours */
	make_owned("mine", 0, 0700);
	make_owned("mine/libvirt", NOBODY, 0700);
	refused("mine/libvirt/etc", SAFE_DIR_CREATE, "mine/libvirt is owned by nobody");
	path_of(path, sizeof(path), "mine/libvirt/etc");
	ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/* Their link leads nowhere of root's, even into a directory root owns. */
START_TEST(another_users_link_is_not_followed)
{
	char link[PATH_MAX], sticky[PATH_MAX], err[ERRBUF_SIZE];
	scratch_dir(base, sizeof(base), "safe");
	make_owned("roots", 0, 0700);
	make_owned("sticky", 0, 01777);
	path_of(sticky, sizeof(sticky), "sticky");
	path_of(link, sizeof(link), "sticky/cache");
	ck_assert_int_eq(symlink("../roots", link), 0);
	ck_assert_int_eq(lchown(link, NOBODY, NOBODY), 0);
	refused("sticky/cache", SAFE_DIR_CREATE, "the symbolic link");
	refused("sticky/cache/libvirt", SAFE_DIR_CREATE, "is owned by nobody");
	path_of(link, sizeof(link), "roots/libvirt");
	ck_assert_int_ne(access(link, F_OK), 0);
	/* root's own link there is followed */
	path_of(link, sizeof(link), "sticky/cache");
	ck_assert_int_eq(lchown(link, 0, 0), 0);
	const int fd = safe_dir_open(link, 0, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	close(fd);
}
END_TEST

static Suite *safe_dir_suite(void)
{
	Suite *s = suite_create("safe_dir");
	TCase *tc = tcase_create("any user");
	tcase_add_test(tc, missing_directories_are_made_ours_and_private);
	tcase_add_test(tc, a_link_of_ones_own_is_followed);
	tcase_add_test(tc, a_directory_others_may_write_is_refused);
	tcase_add_test(tc, a_planted_link_is_replaced_not_followed);
	suite_add_tcase(s, tc);
	if (geteuid() == 0) {
		TCase *root = tcase_create("root");
		tcase_add_test(root, another_users_directory_is_refused);
		tcase_add_test(root, another_users_link_is_not_followed);
		suite_add_tcase(s, root);
	} else {
		printf("SKIP (part): another user's directories and links: making them (chown to "
		       "nobody) needs root\n");
	}
	return s;
}

CHECK_MAIN(safe_dir_suite)
