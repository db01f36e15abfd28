// SPDX-License-Identifier: GPL-2.0
/*
 * doctor's PAUSE interception finding from the KVM module's parameters, on a
 * fake sysfs: kvm_amd's count or threshold at 0 turns interception off for
 * every VM (kvm_amd with pause_filter_thresh=0 under Linux 6.1, in Bochs
 * 3.1's emulated Ryzen: no PAUSE exit in any scenario of suites/ple-amd.cfg).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor/probes.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"

static char top[PATH_MAX];

static void param(const char *module, const char *name, const char *value)
{
	char p[PATH_MAX + 128];
	snprintf(p, sizeof(p), "%s/module/%s", top, module);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/module/%s/parameters", top, module);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/module/%s/parameters/%s", top, module, name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", value);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	char p[PATH_MAX + 16];
	scratch_dir(top, sizeof(top), "doctor_ple");
	snprintf(p, sizeof(p), "%s/module", top);
	mkdir(p, 0755);
	setenv("PLERIG_SYSFS_ROOT", top, 1);
}

static const struct doctor_finding *intercept(const char *count, const char *thresh)
{
	static struct doctor_findings r;
	char err[256];
	param("kvm_amd", "pause_filter_count", count);
	param("kvm_amd", "pause_filter_thresh", thresh);
	memset(&r, 0, sizeof(r));
	ck_assert_msg(ple_host_detect(&r.host, top, err, sizeof(err)) == 0, "%s", err);
	doctor_probe_ple(&r);
	for (unsigned i = 0; i < r.n; i++)
		if (!strcmp(r.list[i].key, "pause_intercept"))
			return &r.list[i];
	ck_abort_msg("no pause_intercept finding");
	return NULL;
}

START_TEST(test_amd_stock_intercepts)
{
	const struct doctor_finding *f = intercept("3000", "128");
	ck_assert_int_eq(f->status, DOCTOR_OK);
	ck_assert_str_eq(f->detail, "AMD pause filter: pause_filter_count=3000");
}
END_TEST

START_TEST(test_amd_without_a_threshold_intercepts_nothing)
{
	const struct doctor_finding *f = intercept("3000", "0");
	ck_assert_int_eq(f->status, DOCTOR_WARN);
	ck_assert_msg(!strncmp(f->detail, "off host-wide: kvm_amd.pause_filter_thresh=0", 44), "%s",
		      f->detail);
	ck_assert_msg(strstr(f->detail, "pfthreshold"), "%s", f->detail);
	ck_assert_msg(strstr(f->fix, "pause_filter_thresh > 0"), "%s", f->fix);
}
END_TEST

START_TEST(test_amd_without_a_count_intercepts_nothing)
{
	const struct doctor_finding *f = intercept("0", "128");
	ck_assert_int_eq(f->status, DOCTOR_WARN);
	ck_assert_str_eq(f->detail, "off host-wide: kvm_amd.pause_filter_count=0");
}
END_TEST

static Suite *doctor_ple_suite(void)
{
	Suite *s = suite_create("doctor_ple");
	TCase *t = tcase_create("doctor_ple");

	tcase_add_checked_fixture(t, setup, NULL);
	tcase_add_test(t, test_amd_stock_intercepts);
	tcase_add_test(t, test_amd_without_a_threshold_intercepts_nothing);
	tcase_add_test(t, test_amd_without_a_count_intercepts_nothing);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(doctor_ple_suite)
