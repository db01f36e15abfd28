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

int main(void)
{
	Suite *s = suite_create("remote_pool");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_live_processs_pool_is_not_an_orphan);
	tcase_add_test(tc, only_plerig_pools_of_this_host_are_taken);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
