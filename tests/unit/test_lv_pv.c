// SPDX-License-Identifier: GPL-2.0
/*
 * Lock pvqspin under QEMU: what the config asks of the guest, what the
 * guest's CPUID (its END frame's kvm_features) makes of the results, and
 * which KVM module libvirt's capabilities say a host runs.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "backends/libvirt/lv_caps_kvm.h"
#include "backends/libvirt/lv_pv.h"
#include "support/check_main.h"

#define STEAL	 (1u << 5)
#define UNHALT	 (1u << 7)
#define STABLE	 (1u << 24)
#define FEATURES (STEAL | UNHALT | STABLE | 0x1bu)

static struct variant pvqspin(enum ple_mode ple)
{
	return (struct variant){.lock = PLERIG_LOCK_PVQSPIN, .ple = ple};
}

/* Config and results for @v on @h whose guest read @features. */
static void run(const struct variant *v, const struct lv_pv_host *h, uint32_t features,
		struct plerig_config *cfg, struct variant_result *r)
{
	memset(cfg, 0, sizeof(*cfg));
	memset(r, 0, sizeof(*r));
	lv_pv_config(cfg, v, h, r);
	lv_pv_results(cfg, v, h, features, r);
}

START_TEST(a_kvm_that_offers_pv_unhalt_halts_and_has_steal_time)
{
	const struct lv_pv_host h = {0};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES, &cfg, &r);
	ck_assert(cfg.flags & PLERIG_CONFIG_PV_FROM_CPUID);
	ck_assert(cfg.flags & PLERIG_CONFIG_PV_UNHALT_IF_OFFERED);
	ck_assert(r.pv_unhalt && r.steal_time);
	ck_assert_str_eq(r.pv_why, "");
}
END_TEST

START_TEST(cpu_pm_on_withdraws_pv_unhalt_and_the_results_say_so)
{
	const struct lv_pv_host h = {0};
	const struct variant v = pvqspin(PLE_OFF);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES & ~UNHALT, &cfg, &r);
	ck_assert(!r.pv_unhalt && r.steal_time);
	ck_assert_msg(strstr(r.pv_why, "cpu-pm=on") && strstr(r.pv_why, "EAX 0x100003b"), "%s",
		      r.pv_why);
}
END_TEST

START_TEST(on_a_local_pvm_the_guest_never_halts)
{
	const struct lv_pv_host h = {.pvm = true};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES, &cfg, &r);
	ck_assert(cfg.flags & PLERIG_CONFIG_PV_FROM_CPUID);
	ck_assert(!(cfg.flags & PLERIG_CONFIG_PV_UNHALT_IF_OFFERED));
	ck_assert(!r.pv_unhalt);
	ck_assert_msg(strstr(r.pv_why, "PVM (kvm_pvm)") && strstr(r.pv_why, "VMCALL"), "%s",
		      r.pv_why);
}
END_TEST

START_TEST(on_a_remote_pvm_the_guest_never_halts_and_the_reason_says_inferred)
{
	const struct lv_pv_host h = {.pvm = true, .pvm_inferred = true};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES, &cfg, &r);
	ck_assert(!(cfg.flags & PLERIG_CONFIG_PV_UNHALT_IF_OFFERED));
	ck_assert(!r.pv_unhalt);
	ck_assert_msg(strstr(r.pv_why, "PVM, it seems") && strstr(r.pv_why, "without vmx or svm") &&
			  !strstr(r.pv_why, "kvm_pvm"),
		      "%s", r.pv_why);
}
END_TEST

/* virConnectGetCapabilities' shape, cut down: a host CPU with @feature, guests of @domain. */
static void caps(char *out, size_t len, const char *feature, const char *domain)
{
	snprintf(out, len,
		 "<capabilities>\n  <host>\n    <cpu>\n      <arch>x86_64</arch>\n"
		 "      <model>Broadwell</model>\n      <feature name='hypervisor'/>\n%s"
		 "    </cpu>\n    <topology>\n      <cells num='1'><cell id='0'><cpus num='1'>"
		 "<cpu id='0' socket_id='0'/></cpus></cell></cells>\n    </topology>\n"
		 "  </host>\n  <guest>\n    <os_type>hvm</os_type>\n    <arch name='x86_64'>\n"
		 "      <domain type='qemu'/>\n%s    </arch>\n  </guest>\n</capabilities>\n",
		 feature, domain);
}

/* lv_caps_kvm_module of @xml: its module, or "unknown" (-1); @how in *how. */
static const char *module_of(const char *xml, char *how, size_t len)
{
	static char module[32];
	snprintf(module, sizeof(module), "unknown");
	how[0] = '\0';
	return lv_caps_kvm_module(xml, module, sizeof(module), how, len) ? "unknown" : module;
}

START_TEST(kvm_on_a_cpu_without_vmx_or_svm_is_pvm)
{
	char xml[1024], how[160];
	caps(xml, sizeof(xml), "      <feature name='avx512f'/>\n", "      <domain type='kvm'/>\n");
	ck_assert_str_eq(module_of(xml, how, sizeof(how)), "kvm_pvm");
	ck_assert_msg(strstr(how, "inferred") && strstr(how, "neither vmx nor svm"), "%s", how);
}
END_TEST

START_TEST(kvm_on_a_cpu_with_vmx_is_kvm_intel_with_svm_kvm_amd)
{
	char xml[1024], how[160];
	caps(xml, sizeof(xml), "      <feature name='vmx'/>\n", "      <domain type='kvm'/>\n");
	ck_assert_str_eq(module_of(xml, how, sizeof(how)), "kvm_intel");
	ck_assert_str_eq(how, "inferred from the host CPU's vmx flag; libvirt names no module");
	caps(xml, sizeof(xml), "      <feature name='svm'/>\n", "      <domain type='kvm'/>\n");
	ck_assert_str_eq(module_of(xml, how, sizeof(how)), "kvm_amd");
	ck_assert_str_eq(how, "inferred from the host CPU's svm flag; libvirt names no module");
}
END_TEST

/* a guest's CPU of the capabilities (<guest>...<cpu>) is not the host's */
START_TEST(only_the_host_cpu_counts)
{
	char xml[1024], how[160];
	caps(xml, sizeof(xml), "",
	     "      <domain type='kvm'/>\n      <cpu><feature name='vmx'/></cpu>\n");
	ck_assert_str_eq(module_of(xml, how, sizeof(how)), "kvm_pvm");
}
END_TEST

START_TEST(tcg_only_is_no_kvm_and_no_host_cpu_says_nothing)
{
	char xml[1024], how[160];
	caps(xml, sizeof(xml), "      <feature name='vmx'/>\n", "");
	ck_assert_str_eq(module_of(xml, how, sizeof(how)), "none"); /* TCG only */
	ck_assert_msg(strstr(how, "no KVM domains"), "%s", how);
	ck_assert_str_eq(module_of("<capabilities><guest><arch name='x86_64'>"
				   "<domain type='kvm'/></arch></guest></capabilities>",
				   how, sizeof(how)),
			 "unknown");
	ck_assert_str_eq(how, "");
	ck_assert_str_eq(module_of("", how, sizeof(how)), "unknown");
}
END_TEST

START_TEST(no_kvm_leaves_no_steal_time_no_halting)
{
	const struct lv_pv_host h = {0};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, 0, &cfg, &r);
	ck_assert(!r.pv_unhalt && !r.steal_time);
	ck_assert_msg(strstr(r.pv_why, "no KVM leaves"), "%s", r.pv_why);
}
END_TEST

START_TEST(tcg_asks_nothing_and_says_why)
{
	const struct lv_pv_host h = {.tcg = true};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, 0, &cfg, &r);
	ck_assert_uint_eq(cfg.flags, 0);
	ck_assert(!r.pv_unhalt && !r.steal_time);
	ck_assert_msg(strstr(r.pv_why, "TCG"), "%s", r.pv_why);
}
END_TEST

START_TEST(other_locks_get_steal_time_and_no_pv_note)
{
	const struct lv_pv_host h = {0};
	const struct variant v = {.lock = PLERIG_LOCK_TICKET};
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES, &cfg, &r);
	ck_assert(!(cfg.flags & PLERIG_CONFIG_PV_UNHALT_IF_OFFERED));
	ck_assert(r.steal_time && !r.pv_unhalt);
	ck_assert_str_eq(r.pv_why, "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lv_pv");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_kvm_that_offers_pv_unhalt_halts_and_has_steal_time);
	tcase_add_test(tc, cpu_pm_on_withdraws_pv_unhalt_and_the_results_say_so);
	tcase_add_test(tc, on_a_local_pvm_the_guest_never_halts);
	tcase_add_test(tc, on_a_remote_pvm_the_guest_never_halts_and_the_reason_says_inferred);
	tcase_add_test(tc, kvm_on_a_cpu_without_vmx_or_svm_is_pvm);
	tcase_add_test(tc, kvm_on_a_cpu_with_vmx_is_kvm_intel_with_svm_kvm_amd);
	tcase_add_test(tc, only_the_host_cpu_counts);
	tcase_add_test(tc, tcg_only_is_no_kvm_and_no_host_cpu_says_nothing);
	tcase_add_test(tc, no_kvm_leaves_no_steal_time_no_halting);
	tcase_add_test(tc, tcg_asks_nothing_and_says_why);
	tcase_add_test(tc, other_locks_get_steal_time_and_no_pv_note);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
