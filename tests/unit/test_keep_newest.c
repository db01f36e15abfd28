// SPDX-License-Identifier: GPL-2.0
/*
 * util/keep_newest: a cache keeps the entries used last (their modification
 * time) among those its caller counts; older ones go, others are never
 * touched, and a link is counted as itself, never followed.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "support/check_main.h"
#include "support/scratch_dir.h"
#include "util/keep_newest.h"
#include "util/remove_tree.h"

static char dir[SCRATCH_DIR_LEN];
static char dropped[16][256];
static unsigned nr_dropped;

/* @name, a directory used @age seconds ago */
static void entry(const char *name, long age)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	struct timeval tv[2];
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= age;
	tv[1] = tv[0];
	ck_assert_int_eq(utimes(path, tv), 0);
}

static bool exists(const char *name)
{
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

static void drop(const char *path)
{
	ck_assert_uint_lt(nr_dropped, 16);
	snprintf(dropped[nr_dropped++], sizeof(dropped[0]), "%s", strrchr(path, '/') + 1);
	remove_tree(path);
}

/* the directories whose name does not start with "x" */
static bool counted(const char *path, const char *name, const struct stat *st, void *arg)
{
	(void)path;
	++*(unsigned *)arg;
	return name[0] != 'x' && S_ISDIR(st->st_mode);
}

START_TEST(all_but_the_newest_go_oldest_last)
{
	scratch_dir(dir, sizeof(dir), "keep");
	nr_dropped = 0;
	entry("b", 300);
	entry("a", 100);
	entry("d", 400);
	entry("c", 200);
	entry("x-not-counted", 1000);
	unsigned seen = 0;
	ck_assert_int_eq(keep_newest(dir, 2, counted, drop, &seen), 0);
	ck_assert_uint_eq(seen, 5);
	ck_assert_uint_eq(nr_dropped, 2);
	ck_assert_str_eq(dropped[0], "b");
	ck_assert_str_eq(dropped[1], "d");
	ck_assert(exists("a") && exists("c") && exists("x-not-counted"));
	ck_assert(!exists("b") && !exists("d"));
	/* as many as it keeps, or fewer: nothing goes */
	ck_assert_int_eq(keep_newest(dir, 2, counted, drop, &seen), 0);
	ck_assert_int_eq(keep_newest(dir, 5, counted, drop, &seen), 0);
	ck_assert_uint_eq(nr_dropped, 2);
}
END_TEST

START_TEST(a_link_is_counted_as_itself_never_followed)
{
	char target[SCRATCH_DIR_LEN], link[512], inside[512];
	scratch_dir(dir, sizeof(dir), "links");
	scratch_dir(target, sizeof(target), "target");
	snprintf(inside, sizeof(inside), "%s/keep-me", target);
	ck_assert_int_eq(mkdir(inside, 0700), 0);
	snprintf(link, sizeof(link), "%s/old-link", dir);
	ck_assert_int_eq(symlink(target, link), 0);
	nr_dropped = 0;
	entry("new", 10);
	unsigned seen = 0;
	/* a link is no directory (lstat): not counted, not removed, its target untouched */
	ck_assert_int_eq(keep_newest(dir, 0, counted, drop, &seen), 0);
	ck_assert_uint_eq(nr_dropped, 1);
	ck_assert_str_eq(dropped[0], "new");
	ck_assert(exists("old-link"));
	ck_assert_int_eq(access(inside, F_OK), 0);
}
END_TEST

START_TEST(a_missing_directory_is_an_error)
{
	unsigned seen = 0;
	ck_assert_int_eq(keep_newest("/nonexistent/plerig-cache", 1, counted, drop, &seen), -1);
	ck_assert_uint_eq(seen, 0);
}
END_TEST

static Suite *keep_newest_suite(void)
{
	Suite *s = suite_create("keep_newest");
	TCase *tc = tcase_create("cache");
	tcase_add_test(tc, all_but_the_newest_go_oldest_last);
	tcase_add_test(tc, a_link_is_counted_as_itself_never_followed);
	tcase_add_test(tc, a_missing_directory_is_an_error);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(keep_newest_suite)
