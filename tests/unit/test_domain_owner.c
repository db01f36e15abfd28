// SPDX-License-Identifier: GPL-2.0
/*
 * Which domains a plerig may remove by the owner in their metadata: only
 * those its own machine's plerig processes made, once that process is
 * gone; never another host's, a live one's, or an element it cannot read.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/libvirt/domain_owner.h"
#include "backends/libvirt/remote_pool.h"
#include "support/check_main.h"

START_TEST(this_processs_domain_is_not_an_orphan)
{
	char xml[256], host[64], reused[300];
	ck_assert_int_eq(domain_owner_element(7, xml, sizeof(xml)), 0);
	ck_assert_ptr_nonnull(strstr(xml, "xmlns:plerig='" DOMAIN_OWNER_NS "'"));
	ck_assert_ptr_nonnull(strstr(xml, " run='7'"));
	lv_host_slug(host, sizeof(host));
	ck_assert(!domain_owner_is_orphan(xml, host));
	/* the same pid with another start time: a process that reused the pid */
	snprintf(reused, sizeof(reused), "<plerig:owner host='%s' pid='%d' start='1' run='1'/>",
		 host, (int)getpid());
	ck_assert(domain_owner_is_orphan(reused, host));
}
END_TEST

START_TEST(only_dead_plerigs_of_this_host_are_taken)
{
	/* libvirt gives the element back with its own quoting */
	ck_assert(domain_owner_is_orphan(
	    "<plerig:owner xmlns:plerig=\"urn:plerig:owner:1\" host=\"hostA\" pid=\"999999999\" "
	    "start=\"5\" run=\"1\"/>",
	    "hostA"));
	ck_assert(!domain_owner_is_orphan(
	    "<plerig:owner host='hostB' pid='999999999' start='5' run='1'/>", "hostA"));
	ck_assert(
	    !domain_owner_is_orphan("<plerig:owner host='hostA' pid='0' start='5'/>", "hostA"));
	ck_assert(
	    !domain_owner_is_orphan("<plerig:owner host='hostA' pid='12x' start='5'/>", "hostA"));
	ck_assert(!domain_owner_is_orphan("<plerig:owner host='hostA' pid='12'/>", "hostA"));
	ck_assert(
	    !domain_owner_is_orphan("<plerig:owner hostX='hostA' pid='12' start='5'/>", "hostA"));
	ck_assert(!domain_owner_is_orphan("", "hostA"));
}
END_TEST

/* Runs are counted over the whole process: two backends (hosts) never share a domain name. */
START_TEST(runs_are_numbered_across_backends)
{
	const unsigned first = lv_run_number(), second = lv_run_number();
	ck_assert_uint_ge(first, 1);
	ck_assert_uint_gt(second, first);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("domain_owner");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, this_processs_domain_is_not_an_orphan);
	tcase_add_test(tc, only_dead_plerigs_of_this_host_are_taken);
	tcase_add_test(tc, runs_are_numbered_across_backends);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
