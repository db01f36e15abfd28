// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs logic without the kernel: format files (the real kvm_exit one,
 * abridged), field decoding, the reason filter on hand-made records, and
 * where PAUSE-loop exits can come from, against fake sysfs and tracefs
 * trees: VMX, SVM, PVM (this machine), and a kernel without exit_reason.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/ple_counters.h"
#include "measure/trace_filter.h"
#include "measure/tracefs.h"
#include "support/check_main.h"

static char err[1024];
static char top[256];

/* kvm_exit as Linux 6.18 prints it (the print fmt cut short) */
static const char kvm_exit_format[] =
    "name: kvm_exit\n"
    "ID: 103\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
    "\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
    "\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
    "\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n"
    "\tfield:u64 requests;\toffset:64;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"vcpu %u reason %s%s%s rip 0x%lx\", REC->vcpu_id, ...\n";

/* an older kvm_exit, before exit_reason had that name */
static const char old_kvm_exit_format[] =
    "name: kvm_exit\nID: 99\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned int reason;\toffset:8;\tsize:4;\tsigned:0;\n";

static const char window_format[] =
    "name: kvm_ple_window_update\nID: 79\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int new;\toffset:12;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int old;\toffset:16;\tsize:4;\tsigned:0;\n";

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *path)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
}

static void fake_event(const char *event, const char *format, unsigned id)
{
	char p[PATH_MAX], idtext[16];
	snprintf(p, sizeof(p), "%s/tracing/events/kvm/%s", top, event);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/tracing/events/kvm/%s/format", top, event);
	put(p, format);
	snprintf(p, sizeof(p), "%s/tracing/events/kvm/%s/id", top, event);
	snprintf(idtext, sizeof(idtext), "%u\n", id);
	put(p, idtext);
}

static void fake_module(const char *module, const char *param, const char *value)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/sys/module/%s/parameters", top, module);
	mkdirs(p);
	if (param) {
		snprintf(p, sizeof(p), "%s/sys/module/%s/parameters/%s", top, module, param);
		put(p, value);
	}
}

static void setup(void)
{
	char p[PATH_MAX];
	snprintf(top, sizeof(top), "%s/plerig-tracefs-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(p, sizeof(p), "%s/sys/module", top);
	mkdirs(p);
	setenv("PLERIG_SYSFS_ROOT", p, 1);
	p[strlen(p) - strlen("/module")] = '\0';
	setenv("PLERIG_SYSFS_ROOT", p, 1);
	snprintf(p, sizeof(p), "%s/tracing", top);
	setenv("PLERIG_TRACEFS_ROOT", p, 1);
	fake_event("kvm_exit", kvm_exit_format, 103);
	fake_event("kvm_ple_window_update", window_format, 79);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
	unsetenv("PLERIG_TRACEFS_ROOT");
	unsetenv("PLERIG_SYSFS_ROOT");
}

START_TEST(test_parse_kvm_exit)
{
	struct trace_format f;
	const struct trace_field *r;
	ck_assert_int_eq(trace_format_parse(kvm_exit_format, &f, err, sizeof(err)), 0);
	ck_assert_str_eq(f.name, "kvm_exit");
	ck_assert_uint_eq(f.id, 103);
	ck_assert_uint_eq(f.nr_fields, 13);
	r = trace_format_field(&f, "exit_reason");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->offset, 8);
	ck_assert_uint_eq(r->size, 4);
	ck_assert(!r->is_signed);
	ck_assert(trace_format_field(&f, "common_pid")->is_signed);
	ck_assert_uint_eq(trace_format_field(&f, "requests")->offset, 64);
	ck_assert_ptr_null(trace_format_field(&f, "reason"));
}
END_TEST

START_TEST(test_parse_odd_fields)
{
	struct trace_format f;
	static const char text[] =
	    "name: kvm_emulate_insn\nID: 5\nformat:\n"
	    "\tfield:__u8 insn[15];\toffset:21;\tsize:15;\tsigned:0;\n"
	    "\tfield:const char * name;\toffset:40;\tsize:8;\tsigned:0;\n"
	    "\tfield:char *ptr;\toffset:48;\tsize:8;\tsigned:0;\n"
	    "\tfield:__data_loc char[] msg;\toffset:56;\tsize:4;\tsigned:1;\n";
	ck_assert_int_eq(trace_format_parse(text, &f, err, sizeof(err)), 0);
	ck_assert_uint_eq(f.nr_fields, 4);
	ck_assert_str_eq(f.fields[0].name, "insn");
	ck_assert_uint_eq(f.fields[0].size, 15);
	ck_assert_str_eq(f.fields[1].name, "name");
	ck_assert_str_eq(f.fields[2].name, "ptr");
	ck_assert_str_eq(f.fields[3].name, "msg");

	ck_assert_int_eq(trace_format_parse("name: x\nID: 1\n", &f, err, sizeof(err)), -1);
	ck_assert_int_eq(
	    trace_format_parse("\tfield:int;\toffset:0;\tsize:4;\n", &f, err, sizeof(err)), -1);
}
END_TEST

START_TEST(test_field_values)
{
	uint8_t rec[16];
	uint64_t v;
	struct trace_field u32 = {"a", 8, 4, false}, s32 = {"b", 8, 4, true},
			   s16 = {"c", 0, 2, true}, u8 = {"d", 3, 1, false},
			   u64 = {"e", 8, 8, false}, bad = {"f", 0, 3, false},
			   past = {"g", 14, 4, false};
	memset(rec, 0, sizeof(rec));
	rec[0] = 0xfe;
	rec[1] = 0xff; /* -2 as s16 */
	rec[3] = 0x77;
	uint32_t x = 0xfffffff6u; /* -10 */
	memcpy(rec + 8, &x, 4);
	ck_assert_int_eq(trace_field_value(&u32, rec, sizeof(rec), &v), 0);
	ck_assert_uint_eq(v, 0xfffffff6u);
	ck_assert_int_eq(trace_field_value(&s32, rec, sizeof(rec), &v), 0);
	ck_assert_int_eq((int64_t)v, -10);
	ck_assert_int_eq(trace_field_value(&s16, rec, sizeof(rec), &v), 0);
	ck_assert_int_eq((int64_t)v, -2);
	ck_assert_int_eq(trace_field_value(&u8, rec, sizeof(rec), &v), 0);
	ck_assert_uint_eq(v, 0x77);
	ck_assert_int_eq(trace_field_value(&u64, rec, sizeof(rec), &v), 0);
	ck_assert_uint_eq(v, 0xfffffff6u);
	ck_assert_int_eq(trace_field_value(&bad, rec, sizeof(rec), &v), -1);
	ck_assert_int_eq(trace_field_value(&past, rec, sizeof(rec), &v), -1);
}
END_TEST

/* A kvm_exit record as the kernel lays it out, with @reason at offset 8. */
static void record(uint8_t *rec, size_t len, uint32_t reason)
{
	memset(rec, 0xa5, len);
	memcpy(rec + 8, &reason, sizeof(reason));
}

START_TEST(test_filter_on_records)
{
	struct trace_format f;
	struct trace_filter vmx, svm;
	uint8_t rec[72];
	static const uint32_t reasons[] = {30, 40, 1, 40, 48, 40, 0x77, 12, 40};
	unsigned n40 = 0, n77 = 0;

	ck_assert_int_eq(trace_format_parse(kvm_exit_format, &f, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_filter_parse("exit_reason == 40", &f, &vmx, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_filter_parse("exit_reason==0x77", &f, &svm, err, sizeof(err)), 0);
	ck_assert_uint_eq(svm.value, 119);
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		record(rec, sizeof(rec), reasons[i]);
		n40 += trace_filter_match(&vmx, rec, sizeof(rec));
		n77 += trace_filter_match(&svm, rec, sizeof(rec));
	}
	ck_assert_uint_eq(n40, 4);
	ck_assert_uint_eq(n77, 1);
	/* a VMX failed entry sets bit 31: not a PAUSE exit */
	record(rec, sizeof(rec), 0x80000000u | 40);
	ck_assert(!trace_filter_match(&vmx, rec, sizeof(rec)));
	/* too short a record never matches */
	record(rec, sizeof(rec), 40);
	ck_assert(!trace_filter_match(&vmx, rec, 10));

	static const char *const bad[] = {
	    "exit_reason",	 "exit_reason = 40",  "== 40",	     "exit_reason == ",
	    "exit_reason == 4x", "exit_reason == -1", "reason == 40"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(trace_filter_parse(bad[i], &f, &vmx, err, sizeof(err)) == -1,
			      "accepted \"%s\"", bad[i]);
	ck_assert_msg(strstr(err, "kvm_exit has no field reason"), "%s", err);
}
END_TEST

START_TEST(test_locate_env)
{
	char path[PATH_MAX], note[64];
	struct trace_format f;
	ck_assert_int_eq(tracefs_locate(path, sizeof(path), note, sizeof(note), err, sizeof(err)),
			 0);
	ck_assert_str_eq(path, getenv("PLERIG_TRACEFS_ROOT"));
	ck_assert_str_eq(note, "from PLERIG_TRACEFS_ROOT");
	ck_assert_int_eq(trace_format_load(path, "kvm", "kvm_exit", &f, err, sizeof(err)), 0);
	ck_assert_uint_eq(f.id, 103);
	ck_assert_int_eq(trace_format_load(path, "kvm", "kvm_nope", &f, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "no such tracepoint"), "%s", err);

	snprintf(path, sizeof(path), "%s/sys", top);
	setenv("PLERIG_TRACEFS_ROOT", path, 1);
	ck_assert_int_eq(tracefs_locate(path, sizeof(path), NULL, 0, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "no events/"), "%s", err);
}
END_TEST

/* ---- where PLE figures come from ---------------------------------------- */

START_TEST(test_probe_pvm)
{
	struct ple_probe p;
	struct ple_counters c;
	struct ple_counts n;
	fake_module("kvm_pvm", "pvm_native", "Y\n");
	ple_probe_init(&p);
	ck_assert_str_eq(p.module, "kvm_pvm");
	ck_assert(!p.pause_exits_ok);
	ck_assert(!p.window_updates_ok);
	ck_assert_str_eq(p.pause_exits_why, "no hardware PLE on this host (kvm_pvm)");
	ck_assert_ptr_null(ple_variant_note(&p, PLERIG_RING_USER, false));
	/* opening says why, reading says invalid, never a quiet zero */
	ck_assert_int_eq(ple_counters_open(&c, &p, getpid()), -EOPNOTSUPP);
	ck_assert_str_eq(c.pause_exits_why, "no hardware PLE on this host (kvm_pvm)");
	ck_assert_str_eq(c.window_updates_why, "no hardware PLE on this host (kvm_pvm)");
	ple_counters_read(&c, &n);
	ck_assert(!n.pause_exits_valid);
	ck_assert(!n.window_updates_valid);
	ple_counters_close(&c);
	ple_counters_close(&c);
}
END_TEST

START_TEST(test_probe_none)
{
	struct ple_probe p;
	ple_probe_init(&p);
	ck_assert(!p.pause_exits_ok);
	ck_assert_msg(strstr(p.pause_exits_why, "neither kvm_intel nor kvm_amd"), "%s",
		      p.pause_exits_why);
}
END_TEST

START_TEST(test_probe_vmx)
{
	struct ple_probe p;
	fake_module("kvm_intel", "ple_gap", "128\n");
	ple_probe_init(&p);
	ck_assert_int_eq(p.vendor, PLE_VENDOR_VMX);
	ck_assert_msg(p.pause_exits_ok, "%s", p.pause_exits_why);
	ck_assert(p.window_updates_ok);
	ck_assert_str_eq(p.pause_filter, "exit_reason == 40");
	ck_assert_str_eq(p.tracefs, getenv("PLERIG_TRACEFS_ROOT"));
	ck_assert_str_eq(ple_variant_note(&p, PLERIG_RING_USER, false),
			 "Intel PLE ignores PAUSE at guest CPL > 0 (ring user)");
	ck_assert_ptr_null(ple_variant_note(&p, PLERIG_RING_KERNEL, false));
	ck_assert_msg(
	    strstr(ple_variant_note(&p, PLERIG_RING_KERNEL, true), "KVM_X86_DISABLE_EXITS_PAUSE"),
	    "per-VM off");
}
END_TEST

START_TEST(test_probe_vmx_gap_zero)
{
	struct ple_probe p;
	fake_module("kvm_intel", "ple_gap", "0\n");
	ple_probe_init(&p);
	ck_assert(p.pause_exits_ok); /* exact, and 0 */
	ck_assert_str_eq(ple_variant_note(&p, PLERIG_RING_KERNEL, false),
			 "kvm_intel.ple_gap=0: PAUSE interception is off host-wide");
}
END_TEST

START_TEST(test_probe_svm)
{
	struct ple_probe p;
	fake_module("kvm_amd", "pause_filter_count", "3000\n");
	ple_probe_init(&p);
	ck_assert_int_eq(p.vendor, PLE_VENDOR_SVM);
	ck_assert(p.pause_exits_ok);
	ck_assert_str_eq(p.pause_filter, "exit_reason == 119");
	/* AMD's filter counts PAUSE at any CPL */
	ck_assert_ptr_null(ple_variant_note(&p, PLERIG_RING_USER, false));
}
END_TEST

START_TEST(test_probe_old_kernel)
{
	struct ple_probe p;
	char path[PATH_MAX];
	fake_module("kvm_intel", "ple_gap", "128\n");
	fake_event("kvm_exit", old_kvm_exit_format, 99);
	snprintf(path, sizeof(path), "%s/tracing/events/kvm/kvm_ple_window_update/format", top);
	unlink(path);
	ple_probe_init(&p);
	ck_assert(!p.pause_exits_ok);
	ck_assert_msg(strstr(p.pause_exits_why, "has no field exit_reason"), "%s",
		      p.pause_exits_why);
	ck_assert(!p.window_updates_ok);
	ck_assert_msg(strstr(p.window_updates_why, "kvm_ple_window_update"), "%s",
		      p.window_updates_why);
}
END_TEST

START_TEST(test_counts_delta)
{
	struct ple_counts a = {10, 3, true, true}, b = {25, 3, true, false}, d;
	ple_counts_delta(&a, &b, &d);
	ck_assert(d.pause_exits_valid);
	ck_assert_uint_eq(d.pause_exits, 15);
	ck_assert(!d.window_updates_valid);
	ck_assert_uint_eq(d.window_updates, 0);
}
END_TEST

static Suite *tracefs_suite(void)
{
	Suite *s = suite_create("tracefs");
	TCase *pure = tcase_create("pure");
	TCase *fake = tcase_create("fake_trees");
	tcase_add_test(pure, test_parse_kvm_exit);
	tcase_add_test(pure, test_parse_odd_fields);
	tcase_add_test(pure, test_field_values);
	tcase_add_test(pure, test_filter_on_records);
	tcase_add_test(pure, test_counts_delta);
	tcase_add_checked_fixture(fake, setup, teardown);
	tcase_add_test(fake, test_locate_env);
	tcase_add_test(fake, test_probe_pvm);
	tcase_add_test(fake, test_probe_none);
	tcase_add_test(fake, test_probe_vmx);
	tcase_add_test(fake, test_probe_vmx_gap_zero);
	tcase_add_test(fake, test_probe_svm);
	tcase_add_test(fake, test_probe_old_kernel);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, fake);
	return s;
}

CHECK_MAIN(tracefs_suite)
