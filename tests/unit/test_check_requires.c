// SPDX-License-Identifier: GPL-2.0
/*
 * plerig check's requirements (requires =) on a --connect host of another
 * machine, whose KVM module plerig infers from libvirt's capabilities: a
 * requirement on the kind of KVM (hw-virt, pv-unhalt) is judged there on
 * an inferred kvm_intel and skipped with the reason on an inferred kvm_pvm;
 * one that needs reading that host (ple) stays skipped with the reason,
 * and so do those libvirt cannot do (pv-yield, halt-poll).
 */
#include <stdio.h>
#include <string.h>

#include "experiment/check_ctx.h"
#include "model/check_result.h"
#include "model/plan.h"
#include "support/check_main.h"

static struct check_config config;
static struct check_result out;
static struct check_ctx ctx;
static struct run_plan plan;
static struct scenario scenario;
static char buf[1024];

/* check --connect qemu+ssh://ci@hostA/system: a host of another machine, named @module. */
static void remote_host(const char *module, const char *source)
{
	memset(&config, 0, sizeof(config));
	memset(&out, 0, sizeof(out));
	memset(&plan, 0, sizeof(plan));
	memset(&scenario, 0, sizeof(scenario));
	config.on_host = true;
	config.connect_uri = "qemu+ssh://ci@hostA/system";
	config.hosts_here = 0;
	snprintf(out.host.name, sizeof(out.host.name), "hostA");
	snprintf(out.host.kernel, sizeof(out.host.kernel), "unknown");
	snprintf(out.host.kvm_module, sizeof(out.host.kvm_module), "%s", module);
	snprintf(out.host.kvm_module_source, sizeof(out.host.kvm_module_source), "%s", source);
	snprintf(out.host.connection, sizeof(out.host.connection), "qemu+ssh://***@hostA/system");
	out.host.cpus = 8;
	plan.backends[0] = BACKEND_LIBVIRT;
	plan.nr_backends = 1;
	snprintf(scenario.name, sizeof(scenario.name), "pvqspin-halts");
	scenario.plan = &plan;
	ctx = (struct check_ctx){
	    .c = &config, .out = &out, .kvm_ok = true, .moved = true, .elsewhere = true};
}

static const char *skip(unsigned requires)
{
	scenario.requires = requires;
	return check_skip_reason(&ctx, &scenario, buf, sizeof(buf));
}

#define VMX "inferred from the host CPU's vmx flag; libvirt names no module"
#define PVM "inferred: KVM domains on a host CPU with neither vmx nor svm; libvirt names no module"

START_TEST(an_inferred_kvm_intel_runs_what_needs_only_its_kind)
{
	remote_host("kvm_intel", VMX);
	const char *why = skip(1u << REQUIRE_HW_VIRT);
	ck_assert_msg(!why, "hw-virt skipped: %s", why);
	why = skip(1u << REQUIRE_PV_UNHALT);
	ck_assert_msg(!why, "pv-unhalt skipped: %s", why);
	why = skip((1u << REQUIRE_PV_UNHALT) | (1u << REQUIRE_HW_VIRT));
	ck_assert_msg(!why, "pv-unhalt, hw-virt skipped: %s", why);
	remote_host("kvm_amd", "inferred from the host CPU's svm flag; libvirt names no module");
	why = skip(1u << REQUIRE_PV_UNHALT);
	ck_assert_msg(!why, "pv-unhalt on kvm_amd skipped: %s", why);
}
END_TEST

START_TEST(an_inferred_kvm_pvm_skips_them_and_says_it_was_inferred)
{
	remote_host("kvm_pvm", PVM);
	const char *why = skip(1u << REQUIRE_PV_UNHALT);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "needs pv-unhalt: on PVM, kvm_pvm (" PVM ")") &&
			  strstr(why, "VMCALL"),
		      "%s", why);
	why = skip(1u << REQUIRE_HW_VIRT);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "needs VMX/SVM: guest ring 0 is emulated on kvm_pvm (" PVM ")");
	why = skip(1u << REQUIRE_PLE);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "no PAUSE interception on host hostA, kvm_pvm (inferred"), "%s",
		      why);
}
END_TEST

/* ple needs the host's PLE parameters and tracepoints, which libvirt does not give */
START_TEST(hardware_ple_stays_skipped_on_another_machine)
{
	remote_host("kvm_intel", VMX);
	const char *why = skip(1u << REQUIRE_PLE);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "needs hardware PLE: host hostA runs kvm_intel (" VMX ")") &&
			  strstr(why, "ple_gap") && strstr(why, "tracepoints"),
		      "%s", why);
	/* on this machine (embedded) plerig reads the module and its parameters itself */
	remote_host("kvm_intel", "");
	config.connect_uri = NULL;
	ctx.elsewhere = false;
	why = skip(1u << REQUIRE_PLE);
	ck_assert_msg(!why, "ple skipped on this machine's kvm_intel: %s", why);
}
END_TEST

START_TEST(what_libvirt_cannot_do_stays_skipped_whatever_the_module)
{
	remote_host("kvm_intel", VMX);
	const char *why = skip((1u << REQUIRE_PV_YIELD) | (1u << REQUIRE_HW_VIRT));
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "needs pv-yield: the libvirt backend"), "%s", why);
	why = skip((1u << REQUIRE_PV_UNHALT) | (1u << REQUIRE_HALT_POLL));
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "needs halt-poll: neither libvirt nor QEMU"), "%s", why);
}
END_TEST

START_TEST(an_unknown_module_or_no_kvm_says_why)
{
	remote_host("unknown", "");
	const char *why = skip(1u << REQUIRE_PV_UNHALT);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "needs pv-unhalt: libvirt does not say which KVM module host "
				  "hostA runs"),
		      "%s", why);
	why = skip(1u << REQUIRE_HW_VIRT);
	ck_assert_msg(why && strstr(why, "needs VMX/SVM: libvirt does not say"), "%s", why);
	ck_assert_ptr_null(skip(0)); /* nothing required: judged */
	remote_host("none", "inferred: libvirt offers no KVM domains there, only TCG");
	why = skip(1u << REQUIRE_PV_UNHALT);
	ck_assert_msg(why &&
			  strstr(why, "no KVM to kick a halted vCPU on this host (none (inferred"),
		      "%s", why);
}
END_TEST

/* check without --connect: the kvm backend here decides, as probed */
START_TEST(without_connect_the_probe_decides)
{
	remote_host("kvm_pvm", "");
	config.on_host = false;
	config.connect_uri = NULL;
	ctx.moved = ctx.elsewhere = false;
	const char *why = skip(1u << REQUIRE_PV_UNHALT);
	ck_assert_msg(why && strstr(why, "needs pv-unhalt: under PVM guest ring 0 is emulated"),
		      "%s", why);
	snprintf(out.host.kvm_module, sizeof(out.host.kvm_module), "kvm_intel");
	ctx.pv_unhalt = true;
	ck_assert_ptr_null(skip((1u << REQUIRE_PV_UNHALT) | (1u << REQUIRE_PLE)));
	why = skip(1u << REQUIRE_HALT_POLL);
	ck_assert_msg(why && strstr(why, "KVM_CAP_HALT_POLL"), "%s", why);
}
END_TEST

/*
 * check without --connect, a scenario whose own --connect is another machine:
 * this machine's probe (hardware PLE here, or no KVM at all) is not that
 * one's, so a requirement on its KVM is skipped with the reason, and no
 * KVM here skips nothing that runs there
 */
START_TEST(a_scenarios_own_connect_is_not_this_machine)
{
	remote_host("kvm_intel", "");
	config.on_host = false;
	config.connect_uri = NULL;
	ctx.moved = ctx.elsewhere = false;
	ctx.pv_unhalt = true;
	plan.connect_uri = "qemu+ssh://ci@hostA/system";
	const char *why = skip(1u << REQUIRE_PLE);
	ck_assert_msg(why && strstr(why, "needs hardware PLE: its --connect runs it on another "
					 "machine, whose KVM this check does not read"),
		      "%s", why);
	why = skip(1u << REQUIRE_PV_YIELD);
	ck_assert_msg(why && strstr(why, "the libvirt backend does not give"), "%s", why);
	ctx.kvm_ok = false;
	snprintf(ctx.kvm_why, sizeof(ctx.kvm_why), "no usable KVM: no /dev/kvm");
	ck_assert_ptr_null(skip(0));
	/* one of its hosts here: this machine's KVM counts */
	plan.connect_uri = "embedded,qemu+ssh://ci@hostA/system";
	ck_assert_str_eq(skip(0), "no usable KVM: no /dev/kvm");
	plan.connect_uri = "qemu:///system";
	ck_assert_str_eq(skip(0), "no usable KVM: no /dev/kvm");
	ctx.kvm_ok = true;
	ck_assert_ptr_null(skip((1u << REQUIRE_PV_UNHALT) | (1u << REQUIRE_PLE)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check_requires");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, an_inferred_kvm_intel_runs_what_needs_only_its_kind);
	tcase_add_test(tc, an_inferred_kvm_pvm_skips_them_and_says_it_was_inferred);
	tcase_add_test(tc, hardware_ple_stays_skipped_on_another_machine);
	tcase_add_test(tc, what_libvirt_cannot_do_stays_skipped_whatever_the_module);
	tcase_add_test(tc, an_unknown_module_or_no_kvm_says_why);
	tcase_add_test(tc, without_connect_the_probe_decides);
	tcase_add_test(tc, a_scenarios_own_connect_is_not_this_machine);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
