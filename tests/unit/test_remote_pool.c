// SPDX-License-Identifier: GPL-2.0
/*
 * Which storage pools on a remote host a plerig may remove: only those
 * its own machine's plerig processes made, once that process is gone.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/libvirt/remote_pool.h"
#include "support/check_main.h"

START_TEST(a_live_processs_pool_is_not_an_orphan)
{
	char name[160], host[64];
	ck_assert_int_eq(lv_pool_owner_name(name, sizeof(name)), 0);
	/* plerig-HOST-PID-START, HOST being what follows "plerig-" up to the pid */
	char pid[32];
	snprintf(pid, sizeof(pid), "-%d-", (int)getpid());
	const char *at = strstr(name, pid);
	ck_assert_ptr_nonnull(at);
	snprintf(host, sizeof(host), "%.*s", (int)(at - name - 7), name + 7);
	ck_assert(!lv_pool_is_orphan(name, host));
	/* the same pid with another start time: a process that reused the pid */
	char reused[200];
	snprintf(reused, sizeof(reused), "plerig-%s-%d-1", host, (int)getpid());
	ck_assert(lv_pool_is_orphan(reused, host));
}
END_TEST

START_TEST(only_plerig_pools_of_this_host_are_taken)
{
	ck_assert(lv_pool_is_orphan("plerig-hostA-999999999-5", "hostA"));
	ck_assert(!lv_pool_is_orphan("plerig-hostB-999999999-5", "hostA"));
	ck_assert(!lv_pool_is_orphan("default", "hostA"));
	ck_assert(!lv_pool_is_orphan("plerig-hostA-12x-5", "hostA"));
	ck_assert(!lv_pool_is_orphan("plerig-hostA-12-5-extra", "hostA"));
	ck_assert(!lv_pool_is_orphan("plerig-hostA-0-5", "hostA"));
}
END_TEST

/*
 * Two hosts of one run may reach one daemon: each pool of this process has a
 * name of its own, and a sweep by one (a live owner) takes neither.
 */
START_TEST(each_pool_of_a_process_has_its_own_name)
{
	char owner[160], a[160], b[160], host[64];
	ck_assert_int_eq(lv_pool_owner_name(owner, sizeof(owner)), 0);
	ck_assert_int_eq(lv_pool_next_name(a, sizeof(a)), 0);
	ck_assert_int_eq(lv_pool_next_name(b, sizeof(b)), 0);
	ck_assert_str_ne(a, b);
	ck_assert_int_eq(strncmp(a, owner, strlen(owner)), 0);
	ck_assert_int_eq(a[strlen(owner)], '-');
	ck_assert_int_eq(strncmp(b, owner, strlen(owner)), 0);
	lv_host_slug(host, sizeof(host));
	ck_assert(!lv_pool_is_orphan(a, host));
	ck_assert(!lv_pool_is_orphan(b, host));
	/* a dead process's numbered pools are orphans, as its one pool was */
	ck_assert(lv_pool_is_orphan("plerig-hostA-999999999-5-2", "hostA"));
	ck_assert(!lv_pool_is_orphan("plerig-hostA-999999999-5-", "hostA"));
	ck_assert(!lv_pool_is_orphan("plerig-hostA-999999999-5-2x", "hostA"));
	ck_assert(!lv_pool_is_orphan("plerig-hostA-999999999-5--2", "hostA"));
	ck_assert(!lv_pool_is_orphan("plerig-hostA-999999999-5-2-3", "hostA"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("remote_pool");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_live_processs_pool_is_not_an_orphan);
	tcase_add_test(tc, only_plerig_pools_of_this_host_are_taken);
	tcase_add_test(tc, each_pool_of_a_process_has_its_own_name);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
