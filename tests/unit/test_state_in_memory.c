// SPDX-License-Identifier: GPL-2.0
/*
 * The embedded driver's ROOT/run as a link into /dev/shm: made, kept while
 * it is ours, left on disk while a killed plerig's domains are in it, and
 * removed again, the directory with it, unless domains are in it.
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/libvirt/state_in_memory.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"
#include "util/remove_tree.h"

static char root[256];

static void make_root(void)
{
	scratch_dir(root, sizeof(root), "state");
}

/* Where ROOT/run links to, or "" when it is no link. */
static void target_of(char *out, size_t len)
{
	char link[PATH_MAX + 8];
	snprintf(link, sizeof(link), "%s/run", root);
	const ssize_t n = readlink(link, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
}

static void put_file(const char *dir, const char *name)
{
	char path[2 * PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
}

START_TEST(the_link_is_made_kept_and_removed)
{
	char first[PATH_MAX], again[PATH_MAX];
	struct stat st;
	make_root();
	state_in_memory(root);
	target_of(first, sizeof(first));
	ck_assert_msg(!strncmp(first, "/dev/shm/plerig-libvirt-run-", 28), "link to '%s'", first);
	ck_assert_int_eq(stat(first, &st), 0);
	ck_assert_int_eq(st.st_mode & 077, 0);
	state_in_memory(root); /* a second run keeps it */
	target_of(again, sizeof(again));
	ck_assert_str_eq(first, again);
	state_in_memory_release(root);
	target_of(again, sizeof(again));
	ck_assert_str_eq(again, "");
	ck_assert_int_ne(stat(first, &st), 0);
	remove_tree(root);
}
END_TEST

START_TEST(a_killed_plerigs_domains_stay)
{
	char dir[PATH_MAX + 64], qemu[PATH_MAX + 128], now[PATH_MAX];
	make_root();
	/* on disk, from before: left alone while a domain's status is in it */
	snprintf(dir, sizeof(dir), "%s/run", root);
	snprintf(qemu, sizeof(qemu), "%s/qemu", dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(mkdir(qemu, 0700), 0);
	put_file(qemu, "plerig-1-1-0.xml");
	state_in_memory(root);
	target_of(now, sizeof(now));
	ck_assert_str_eq(now, "");
	/* once cleared, it goes to memory */
	char xml[2 * PATH_MAX];
	snprintf(xml, sizeof(xml), "%s/plerig-1-1-0.xml", qemu);
	ck_assert_int_eq(unlink(xml), 0);
	state_in_memory(root);
	target_of(now, sizeof(now));
	ck_assert_str_ne(now, "");
	/* a domain in the memory one at the end: link and directory stay for the next run */
	snprintf(qemu, sizeof(qemu), "%s/qemu", now);
	ck_assert_int_eq(mkdir(qemu, 0700), 0);
	put_file(qemu, "plerig-2-1-0.xml");
	state_in_memory_release(root);
	target_of(dir, sizeof(dir));
	ck_assert_str_eq(dir, now);
	remove_tree(now);
	remove_tree(root);
}
END_TEST

START_TEST(a_removed_roots_directory_is_swept)
{
	char gone[PATH_MAX], other[PATH_MAX];
	struct stat st;
	make_root();
	state_in_memory(root);
	target_of(gone, sizeof(gone));
	remove_tree(root); /* a test's cache dir, removed with the link in it */
	ck_assert_int_eq(stat(gone, &st), 0);
	make_root();
	state_in_memory(root);
	ck_assert_int_ne(stat(gone, &st), 0);
	target_of(other, sizeof(other));
	ck_assert_int_eq(stat(other, &st), 0);
	state_in_memory_release(root);
	remove_tree(root);
}
END_TEST

/* Another plerig of this root connected as this one closed: it keeps the directory. */
START_TEST(a_driver_that_holds_it_keeps_it)
{
	char now[PATH_MAX], qemu[PATH_MAX + 8], pidfile[PATH_MAX + 32], after[PATH_MAX];
	int ready[2];
	struct stat st;
	make_root();
	state_in_memory(root);
	target_of(now, sizeof(now));
	snprintf(qemu, sizeof(qemu), "%s/qemu", now);
	ck_assert_int_eq(mkdir(qemu, 0700), 0);
	snprintf(pidfile, sizeof(pidfile), "%s/driver.pid", qemu);
	ck_assert_int_eq(pipe(ready), 0);
	const pid_t holder = fork();
	ck_assert_int_ge(holder, 0);
	if (!holder) { /* the other plerig's driver: a lock of another process, as libvirt's */
		const int fd = open(pidfile, O_RDWR | O_CREAT, 0600);
		struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1};
		const char ok = fd >= 0 && !fcntl(fd, F_SETLK, &l);
		if (write(ready[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char ok = 0;
	ck_assert_int_eq(read(ready[0], &ok, 1), 1);
	ck_assert_int_eq(ok, 1);
	state_in_memory_release(root);
	target_of(after, sizeof(after));
	ck_assert_str_eq(after, now);
	ck_assert_int_eq(stat(pidfile, &st), 0);
	ck_assert_int_eq(kill(holder, SIGKILL), 0);
	ck_assert_int_eq(waitpid(holder, NULL, 0), holder);
	/* once it let go, this root's next close removes it */
	state_in_memory_release(root);
	target_of(after, sizeof(after));
	ck_assert_str_eq(after, "");
	ck_assert_int_ne(stat(now, &st), 0);
	close(ready[0]);
	close(ready[1]);
	remove_tree(root);
}
END_TEST

/*
 * ROOT/run linking to a directory in memory that plerig did not make, this
 * user's and closed to others (as root: any root-owned 0700 directory in
 * /dev/shm), with plerig's name or without: the link is pointed at a new
 * one, and neither the next run nor the release removes the other.
 */
START_TEST(a_directory_plerig_did_not_make_stays)
{
	static const char *const names[] = {"/dev/shm/plerig-test-precious-XXXXXX",
					    "/dev/shm/plerig-libvirt-run-XXXXXX"};
	for (unsigned i = 0; i < 2; i++) {
		char precious[64], link[PATH_MAX + 8], now[PATH_MAX];
		struct stat st;
		snprintf(precious, sizeof(precious), "%s", names[i]);
		ck_assert_ptr_nonnull(mkdtemp(precious));
		put_file(precious, "keep");
		make_root();
		snprintf(link, sizeof(link), "%s/run", root);
		ck_assert_int_eq(symlink(precious, link), 0);
		state_in_memory(root);
		target_of(now, sizeof(now));
		ck_assert_str_ne(now, precious);
		ck_assert_str_ne(now, "");
		state_in_memory_release(root);
		ck_assert_int_ne(stat(now, &st), 0); /* plerig's own went */
		/* and back at it, as the hostile root had it */
		ck_assert_int_eq(symlink(precious, link), 0);
		state_in_memory_release(root);
		char keep[128];
		snprintf(keep, sizeof(keep), "%s/keep", precious);
		ck_assert_msg(!stat(keep, &st), "%s was removed", precious);
		remove_tree(precious);
		remove_tree(root);
	}
}
END_TEST

/* As root: a root that another user owns gets no link, and what its run links to stays. */
START_TEST(another_users_root_is_left_alone)
{
	char precious[] = "/dev/shm/plerig-test-precious-XXXXXX", link[PATH_MAX + 8];
	char keep[64], now[PATH_MAX];
	struct stat st;
	ck_assert_ptr_nonnull(mkdtemp(precious));
	put_file(precious, "keep");
	make_root();
	ck_assert_int_eq(chown(root, 65534, 65534), 0);
	state_in_memory(root);
	target_of(now, sizeof(now));
	ck_assert_str_eq(now, "");
	snprintf(link, sizeof(link), "%s/run", root);
	ck_assert_int_eq(symlink(precious, link), 0);
	ck_assert_int_eq(lchown(link, 65534, 65534), 0);
	state_in_memory(root);
	state_in_memory_release(root);
	target_of(now, sizeof(now));
	ck_assert_str_eq(now, precious);
	snprintf(keep, sizeof(keep), "%s/keep", precious);
	ck_assert_int_eq(stat(keep, &st), 0);
	remove_tree(precious);
	remove_tree(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("state_in_memory");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, the_link_is_made_kept_and_removed);
	tcase_add_test(tc, a_killed_plerigs_domains_stay);
	tcase_add_test(tc, a_removed_roots_directory_is_swept);
	tcase_add_test(tc, a_driver_that_holds_it_keeps_it);
	tcase_add_test(tc, a_directory_plerig_did_not_make_stays);
	if (geteuid() == 0)
		tcase_add_test(tc, another_users_root_is_left_alone);
	else
		printf("SKIP (part): a root another user owns: making one (chown to nobody) "
		       "needs root\n");
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
