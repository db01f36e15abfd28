// SPDX-License-Identifier: GPL-2.0
/*
 * The advice for a KVM device that will not open comes from its owner,
 * group and mode and from who asks: a user already in the device's group,
 * or facing a device no group may open, is not told to join the group.
 * The device is a private node in the test's own directory (mknod as root,
 * a plain file otherwise: only its owner, group and mode are read).
 */
#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "measure/device_access.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"

static char dir[SCRATCH_DIR_LEN];
static char node[SCRATCH_DIR_LEN + 8];
static struct stat st;

static void setup(void)
{
	scratch_dir(dir, sizeof(dir), "devaccess");
	snprintf(node, sizeof(node), "%s/kvm", dir);
	if (geteuid() == 0)
		ck_assert_int_eq(mknod(node, S_IFCHR | 0600, makedev(10, 232)), 0);
	else
		fclose(fopen(node, "w"));
	ck_assert_int_eq(stat(node, &st), 0);
}

static void teardown(void)
{
	unlink(node);
	rmdir(dir);
}

/* Someone who is not the node's owner, in its group or not. */
static struct device_identity stranger(bool in_group)
{
	static gid_t group[1];
	group[0] = st.st_gid;
	return (struct device_identity){.uid = st.st_uid + 4242,
					.gid = st.st_gid + 4242,
					.groups = group,
					.nr_groups = in_group ? 1 : 0};
}

static const char *advice(mode_t mode, bool in_group)
{
	static char out[512];
	const struct device_identity id = stranger(in_group);
	ck_assert_int_eq(chmod(node, mode), 0);
	device_access_advice(node, &id, out, sizeof(out));
	return out;
}

START_TEST(test_owner_only_device)
{
	/* root:root 0600: joining a group cannot help, whoever you are */
	const char *a = advice(0600, true);
	ck_assert_msg(strstr(a, " 0600) as "), "%s", a);
	ck_assert_msg(strstr(a, "no group membership helps"), "%s", a);
	ck_assert_msg(strstr(a, "chmod 0660"), "%s", a);
	ck_assert_msg(!strstr(a, "usermod"), "%s", a);
}
END_TEST

START_TEST(test_member_of_the_group)
{
	const char *a = advice(0660, true);
	ck_assert_msg(strstr(a, "you are in group"), "%s", a);
	ck_assert_msg(!strstr(a, "usermod"), "%s", a);
}
END_TEST

START_TEST(test_not_a_member)
{
	const char *a = advice(0660, false);
	ck_assert_msg(strstr(a, "usermod -aG"), "%s", a);
	ck_assert_msg(strstr(a, " 0660) as "), "%s", a);
}
END_TEST

START_TEST(test_owner_refused_anyway)
{
	static char out[512];
	const struct device_identity id = {.uid = st.st_uid, .gid = st.st_gid};
	ck_assert_int_eq(chmod(node, 0600), 0);
	device_access_advice(node, &id, out, sizeof(out));
	ck_assert_msg(strstr(out, "security module"), "%s", out);
}
END_TEST

static Suite *device_access_suite(void)
{
	Suite *s = suite_create("device_access");
	TCase *tc = tcase_create("advice");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_owner_only_device);
	tcase_add_test(tc, test_member_of_the_group);
	tcase_add_test(tc, test_not_a_member);
	tcase_add_test(tc, test_owner_refused_anyway);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(device_access_suite)
