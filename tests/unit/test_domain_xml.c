// SPDX-License-Identifier: GPL-2.0
/* The libvirt domain XML: escaping of names and paths, the template's fields. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/libvirt/domain_xml.h"
#include "support/check_main.h"

static const unsigned cpus[2] = {0, 1};

static struct domain_spec spec(const char *name, const char *path)
{
	static const unsigned pins[2] = {1, 0};
	return (struct domain_spec){
	    .name = name,
	    .memory_mib = 32,
	    .vcpus = 2,
	    .pins = pins,
	    .cpuset = cpus,
	    .nr_cpuset = 2,
	    .kernel = path,
	    .config = "/tmp/c.bin",
	    .serial = "/tmp/s.log",
	};
}

START_TEST(escapes_the_five_xml_specials)
{
	char out[128];
	size_t n = xml_escape("a&b<c>d\"e'f", out, sizeof(out));
	ck_assert_str_eq(out, "a&amp;b&lt;c&gt;d&quot;e&apos;f");
	ck_assert_uint_eq(n, strlen(out));
}
END_TEST

START_TEST(escape_reports_the_length_it_needs_when_cut)
{
	char out[4];
	ck_assert_uint_eq(xml_escape("<<<", out, sizeof(out)), 12);
	ck_assert_uint_eq(strlen(out), 3);
	ck_assert_uint_eq(xml_escape("x", NULL, 0), 1);
}
END_TEST

START_TEST(fields_are_filled_and_escaped)
{
	char err[256];
	const struct domain_spec s = spec("vm<&>'\"", "/a dir/it's & <it>.elf");
	char *xml = domain_xml_build("<domain type='@DOMAIN_TYPE@'><name>@NAME@</name>"
				     "<kernel>@KERNEL@</kernel><vcpu cpuset='@CPUSET@'>@VCPUS@"
				     "</vcpu>@CPUTUNE@<m>@MEMORY_MIB@</m></domain>",
				     &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "<domain type='kvm'><name>vm&lt;&amp;&gt;&apos;&quot;</name>"
			      "<kernel>/a dir/it&apos;s &amp; &lt;it&gt;.elf</kernel>"
			      "<vcpu cpuset='0-1'>2</vcpu><cputune><vcpupin vcpu='0' cpuset='1'/>"
			      "<vcpupin vcpu='1' cpuset='0'/><emulatorpin cpuset='0-1'/></cputune>"
			      "<m>32</m></domain>");
	free(xml);
}
END_TEST

START_TEST(serial_port_is_a_file_or_a_pty_for_the_console)
{
	char err[256];
	struct domain_spec s = spec("a", "/k");
	s.serial = "/t/it's.log";
	char *xml = domain_xml_build("@SERIAL_DEVICE@", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "<serial type='file'><source path='/t/it&apos;s.log'/>"
			      "<target port='0'/></serial>");
	free(xml);
	s.serial = NULL; /* QEMU on another host: read through libvirt's console stream */
	xml = domain_xml_build("@SERIAL_DEVICE@", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "<serial type='pty'><target port='0'/></serial>");
	free(xml);
}
END_TEST

START_TEST(tcg_and_floating_vcpus)
{
	char err[256];
	struct domain_spec s = spec("a", "/k");
	s.tcg = true;
	s.pins = NULL;
	char *xml = domain_xml_build("@DOMAIN_TYPE@|@CPUTUNE@|@CPUSET@", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "qemu||0-1");
	free(xml);
}
END_TEST

START_TEST(pv_unhalt_is_libvirts_pvspinlock_switch)
{
	char err[256];
	struct domain_spec s = spec("a", "/k");
	s.pv_unhalt = true;
	char *xml = domain_xml_build("[@PV_FEATURES@]", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "[<pvspinlock state='on'/>]");
	free(xml);
	s.pv_unhalt = false;
	xml = domain_xml_build("[@PV_FEATURES@]", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "[]");
	free(xml);
}
END_TEST

START_TEST(ple_off_is_qemus_cpu_pm_option)
{
	char err[256];
	struct domain_spec s = spec("a", "/k");
	char *xml = domain_xml_build("[@QEMU_COMMANDLINE@]", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "[<qemu:commandline><qemu:arg value='-action'/>"
			      "<qemu:arg value='shutdown=poweroff'/>"
			      "</qemu:commandline>]");
	free(xml);
	s.no_pause_exits = true;
	xml = domain_xml_build("[@QEMU_COMMANDLINE@]", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "[<qemu:commandline><qemu:arg value='-action'/>"
			      "<qemu:arg value='shutdown=poweroff'/>"
			      "<qemu:arg value='-overcommit'/>"
			      "<qemu:arg value='cpu-pm=on'/></qemu:commandline>]");
	free(xml);
}
END_TEST

START_TEST(the_config_is_a_file_or_inline_hex)
{
	char err[256];
	struct domain_spec s = spec("a", "/k");
	s.config = "/r/c'.bin";
	char *xml = domain_xml_build("@CONFIG_ENTRY@", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "<entry name='opt/org.plerig/config' file='/r/c&apos;.bin'/>");
	free(xml);
	s.config = NULL;
	s.config_hex = "00ff10";
	xml = domain_xml_build("@CONFIG_ENTRY@", &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_str_eq(xml, "<entry name='opt/org.plerig/config'>00ff10</entry>");
	free(xml);
}
END_TEST

START_TEST(unknown_and_unterminated_fields_are_errors)
{
	char err[256];
	const struct domain_spec s = spec("a", "/k");
	ck_assert_ptr_null(domain_xml_build("<x>@NOPE@</x>", &s, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "@NOPE@"));
	ck_assert_ptr_null(domain_xml_build("<x>@NAME</x>", &s, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "unterminated"));
}
END_TEST

START_TEST(control_characters_cannot_be_represented)
{
	char err[256];
	const struct domain_spec s = spec("a", "/tmp/new\nline");
	ck_assert_ptr_null(domain_xml_build("<k>@KERNEL@</k>", &s, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "control character"));
}
END_TEST

START_TEST(the_shipped_template_fills_completely)
{
	char err[256];
	FILE *f = fopen(getenv("PLERIG_DOMAIN_TEMPLATE"), "r");
	ck_assert_msg(f, "PLERIG_DOMAIN_TEMPLATE must name images/plerig-domain.xml");
	static char text[65536];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	const struct domain_spec s = spec("plerig-1-1-0", "/k");
	char *xml = domain_xml_build(text, &s, err, sizeof(err));
	ck_assert_msg(xml, "%s", err);
	ck_assert_ptr_null(strchr(xml, '@'));
	ck_assert_ptr_nonnull(strstr(xml, "machine='microvm'"));
	ck_assert_ptr_nonnull(
	    strstr(xml, "<entry name='opt/org.plerig/config' file='/tmp/c.bin'/>"));
	free(xml);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("domain_xml");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, escapes_the_five_xml_specials);
	tcase_add_test(tc, escape_reports_the_length_it_needs_when_cut);
	tcase_add_test(tc, fields_are_filled_and_escaped);
	tcase_add_test(tc, serial_port_is_a_file_or_a_pty_for_the_console);
	tcase_add_test(tc, tcg_and_floating_vcpus);
	tcase_add_test(tc, pv_unhalt_is_libvirts_pvspinlock_switch);
	tcase_add_test(tc, ple_off_is_qemus_cpu_pm_option);
	tcase_add_test(tc, the_config_is_a_file_or_inline_hex);
	tcase_add_test(tc, unknown_and_unterminated_fields_are_errors);
	tcase_add_test(tc, control_characters_cannot_be_represented);
	tcase_add_test(tc, the_shipped_template_fills_completely);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
