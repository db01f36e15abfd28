// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs logic without the kernel: format files (the real kvm_exit one,
 * abridged; fields the old hand-written parser misread; text cut short),
 * field decoding, the reason filter on hand-made records, the formats of
 * every kernel recorded in tests/data/tracefs/ ($PLERIG_TEST_DATA), and
 * where PAUSE-loop exits can come from, against fake sysfs and tracefs
 * trees: VMX, SVM, PVM (this machine), and a kernel without exit_reason.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
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
#include "support/scratch_dir.h"
#include "util/strfmt.h"
#include "util/text_file.h"

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
    "\n"
    "\tfield:unsigned int reason;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\n"
    "print fmt: \"reason %u\", REC->reason\n";

static const char window_format[] =
    "name: kvm_ple_window_update\nID: 79\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\n"
    "\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int new;\toffset:12;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int old;\toffset:16;\tsize:4;\tsigned:0;\n"
    "\n"
    "print fmt: \"vcpu %u old %u new %u\", REC->vcpu_id, REC->old, REC->new\n";

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
	scratch_dir(top, sizeof(top), "tracefs");
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
	ck_assert_msg(trace_format_parse("kvm", kvm_exit_format, &f, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_str_eq(f.name, "kvm_exit");
	ck_assert_str_eq(f.system, "kvm");
	ck_assert_uint_eq(f.id, 103);
	ck_assert_uint_eq(f.nr_fields, 13);
	r = trace_format_field(&f, "exit_reason");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->offset, 8);
	ck_assert_uint_eq(r->size, 4);
	ck_assert_str_eq(r->type, "unsigned int");
	ck_assert(!r->is_signed && !r->is_array && !r->is_dynamic && !r->is_pointer);
	ck_assert_ptr_eq(trace_format_integer_field(&f, "exit_reason", err, sizeof(err)), r);
	ck_assert(trace_format_field(&f, "common_pid")->is_signed);
	ck_assert_str_eq(trace_format_field(&f, "isa")->type, "u32");
	ck_assert_uint_eq(trace_format_field(&f, "requests")->offset, 64);
	ck_assert_ptr_null(trace_format_field(&f, "reason"));
	ck_assert_ptr_null(trace_format_integer_field(&f, "reason", err, sizeof(err)));
	ck_assert_str_eq(err, "kvm:kvm_exit has no field reason");
}
END_TEST

/* What the hand-written parser read as plain numbers, or could not read. */
static const char odd_format[] =
    "name: odd\nID: 5\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\n"
    "\tfield:__u8 insn[15];\toffset:8;\tsize:15;\tsigned:0;\n"
    "\tfield:__u8 saddr[4];\toffset:24;\tsize:4;\tsigned:0;\n"
    "\tfield:const char * name;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:char *ptr;\toffset:40;\tsize:8;\tsigned:0;\n"
    "\tfield:__data_loc char[] msg;\toffset:48;\tsize:4;\tsigned:0;\n"
    "\tfield:__rel_loc char[] rmsg;\toffset:52;\tsize:4;\tsigned:0;\n"
    "\tfield:long delta;\toffset:56;\tsize:8;\tsigned:1;\n"
    "\tfield:s16 s;\toffset:64;\tsize:2;\tsigned:1;\n"
    "\tfield:u8 three[3];\toffset:66;\tsize:3;\tsigned:0;\n"
    "\n"
    "print fmt: \"%s\", __get_str(msg)\n";

START_TEST(test_parse_odd_fields)
{
	struct trace_format f;
	const struct trace_field *x;
	uint8_t rec[80];
	uint64_t v;
	ck_assert_msg(trace_format_parse("test", odd_format, &f, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(f.nr_fields, 10);
	memset(rec, 0xff, sizeof(rec));

	x = trace_format_field(&f, "insn");
	ck_assert(x->is_array && !x->is_dynamic);
	ck_assert_uint_eq(x->array_len, 15);
	ck_assert_uint_eq(x->size, 15);
	ck_assert_str_eq(x->type, "__u8[15]");

	/* an array of 4 bytes is no 4-byte number: the old parser read it as one */
	x = trace_format_field(&f, "saddr");
	ck_assert(x->is_array && x->is_string);
	ck_assert_uint_eq(x->array_len, 4);
	ck_assert_int_eq(trace_field_value(x, rec, sizeof(rec), &v), -1);
	ck_assert_ptr_null(trace_format_integer_field(&f, "saddr", err, sizeof(err)));
	ck_assert_str_eq(err,
			 "test:odd: field saddr (__u8[4]) is an array of 4 elements, not a number");

	x = trace_format_field(&f, "name");
	ck_assert(x->is_pointer && !x->is_array);
	ck_assert_str_eq(x->type, "const char *");
	ck_assert_ptr_eq(trace_format_integer_field(&f, "name", err, sizeof(err)), x);
	ck_assert(trace_format_field(&f, "ptr")->is_pointer);

	x = trace_format_field(&f, "msg");
	ck_assert(x->is_dynamic && !x->is_relative && !x->is_array && x->is_string);
	ck_assert_str_eq(x->type, "__data_loc char[]");
	ck_assert_int_eq(trace_field_value(x, rec, sizeof(rec), &v), -1);
	ck_assert_ptr_null(trace_format_integer_field(&f, "msg", err, sizeof(err)));
	ck_assert_str_eq(err, "test:odd: field msg (__data_loc char[]) is __data_loc: where in the "
			      "record its data of variable length lies, not a number");
	x = trace_format_field(&f, "rmsg");
	ck_assert(x->is_dynamic && x->is_relative);
	ck_assert_ptr_null(trace_format_integer_field(&f, "rmsg", err, sizeof(err)));
	ck_assert_msg(strstr(err, "rmsg (__rel_loc char[]) is __rel_loc"), "%s", err);

	x = trace_format_field(&f, "delta");
	ck_assert(x->is_signed);
	ck_assert_int_eq(trace_field_value(x, rec, sizeof(rec), &v), 0);
	ck_assert_int_eq((int64_t)v, -1);
	x = trace_format_field(&f, "s");
	ck_assert_int_eq(trace_field_value(x, rec, sizeof(rec), &v), 0);
	ck_assert_int_eq((int64_t)v, -1);

	ck_assert_ptr_null(trace_format_integer_field(&f, "three", err, sizeof(err)));
	ck_assert_msg(strstr(err, "array of 3 elements"), "%s", err);
}
END_TEST

/* Text that is no whole format: an error that says so, never a crash. */
START_TEST(test_parse_garbage)
{
	static const char *const bad[] = {
	    "",
	    "garbage\n",
	    "name: x\nID: 1\n",
	    "name: x\nID: 1\nformat:\n\tfield:int;\toffset:0;\tsize:4;\tsigned:1;\n\n\nprint fmt: "
	    "\"\"\n",
	    "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n\n"
	    "\tfield:int b[;\toffset:4;\n\nprint fmt: \"\"\n",
	    "name: x\nID: 1\nformat:\n\n\nprint fmt: \"\"\n",
	    "\x7f"
	    "ELF\x02\x01\x01\nprint fmt:\x01\xff",
	};
	struct trace_format f;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(trace_format_parse("test", bad[i], &f, err, sizeof(err)) == -1,
			      "accepted case %zu", i);
		ck_assert_msg(err[0], "case %zu: no error text", i);
	}
	ck_assert_msg(strstr(err, "libtraceevent cannot read it"), "%s", err);
	ck_assert_int_eq(trace_format_parse("test", bad[3], &f, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "no type found"), "libtraceevent's reason: %s", err);
	ck_assert_int_eq(trace_format_parse("test", bad[5], &f, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "test:x has no fields");

	/* every cut of a real format before its print fmt */
	size_t end = (size_t)(strstr(kvm_exit_format, "print fmt") - kvm_exit_format);
	char cut[sizeof(kvm_exit_format)];
	for (size_t n = 0; n < end; n++) {
		memcpy(cut, kvm_exit_format, n);
		cut[n] = '\0';
		err[0] = '\0';
		ck_assert_msg(trace_format_parse("kvm", cut, &f, err, sizeof(err)) == -1,
			      "accepted the first %zu bytes", n);
		ck_assert_msg(err[0], "cut at %zu: no error text", n);
	}
}
END_TEST

/* More fields than struct trace_format holds, a name longer than it holds */
START_TEST(test_parse_limits)
{
	static char text[8192];
	struct trace_format f;
	size_t n = (size_t)snprintf(text, sizeof(text), "name: many\nID: 7\nformat:\n\n");
	for (unsigned i = 0; i <= TRACE_MAX_FIELDS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "\tfield:u32 f%u;\toffset:%u;\tsize:4;\tsigned:0;\n", i,
				      4 * i);
	snprintf(text + n, sizeof(text) - n, "\nprint fmt: \"\"\n");
	ck_assert_int_eq(trace_format_parse("test", text, &f, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "test:many: more than 32 fields");

	snprintf(text, sizeof(text),
		 "name: long\nID: 7\nformat:\n\n\tfield:u32 %s;\toffset:0;\tsize:4;\tsigned:0;\n\n"
		 "print fmt: \"\"\n",
		 "a_field_name_of_fifty_characters_xxxxxxxxxxxxxxxx");
	ck_assert_int_eq(trace_format_parse("test", text, &f, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "longer than 47 characters"), "%s", err);
}
END_TEST

START_TEST(test_field_values)
{
	uint8_t rec[16];
	uint64_t v;
	struct trace_field u32 = {.name = "a", .offset = 8, .size = 4},
			   s32 = {.name = "b", .offset = 8, .size = 4, .is_signed = true},
			   s16 = {.name = "c", .offset = 0, .size = 2, .is_signed = true},
			   u8 = {.name = "d", .offset = 3, .size = 1},
			   u64 = {.name = "e", .offset = 8, .size = 8},
			   bad = {.name = "f", .offset = 0, .size = 3},
			   past = {.name = "g", .offset = 14, .size = 4};
	struct trace_field array = u32, dynamic = u32;
	array.is_array = true;
	array.array_len = 4;
	dynamic.is_dynamic = true;
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
	ck_assert_int_eq(trace_field_value(&array, rec, sizeof(rec), &v), -1);
	ck_assert_int_eq(trace_field_value(&dynamic, rec, sizeof(rec), &v), -1);
}
END_TEST

/* A kvm_exit record as the kernel lays it out, with @reason at @offset. */
static void record(uint8_t *rec, size_t len, unsigned offset, uint32_t reason)
{
	memset(rec, 0xa5, len);
	memcpy(rec + offset, &reason, sizeof(reason));
}

START_TEST(test_filter_on_records)
{
	struct trace_format f;
	struct trace_filter vmx, svm;
	uint8_t rec[72];
	static const uint32_t reasons[] = {30, 40, 1, 40, 48, 40, 0x77, 12, 40};
	unsigned n40 = 0, n77 = 0;

	ck_assert_int_eq(trace_format_parse("kvm", kvm_exit_format, &f, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_filter_parse("exit_reason == 40", &f, &vmx, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_filter_parse("exit_reason==0x77", &f, &svm, err, sizeof(err)), 0);
	ck_assert_uint_eq(svm.value, 119);
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		record(rec, sizeof(rec), 8, reasons[i]);
		n40 += trace_filter_match(&vmx, rec, sizeof(rec));
		n77 += trace_filter_match(&svm, rec, sizeof(rec));
	}
	ck_assert_uint_eq(n40, 4);
	ck_assert_uint_eq(n77, 1);
	/* a VMX failed entry sets bit 31: not a PAUSE exit */
	record(rec, sizeof(rec), 8, 0x80000000u | 40);
	ck_assert(!trace_filter_match(&vmx, rec, sizeof(rec)));
	/* too short a record never matches */
	record(rec, sizeof(rec), 8, 40);
	ck_assert(!trace_filter_match(&vmx, rec, 10));

	static const char *const bad[] = {
	    "exit_reason",	 "exit_reason = 40",  "== 40",	     "exit_reason == ",
	    "exit_reason == 4x", "exit_reason == -1", "reason == 40"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(trace_filter_parse(bad[i], &f, &vmx, err, sizeof(err)) == -1,
			      "accepted \"%s\"", bad[i]);
	ck_assert_str_eq(err, "filter \"reason == 40\": kvm:kvm_exit has no field reason");

	/* fields that are no number are refused, saying why */
	ck_assert_int_eq(trace_format_parse("test", odd_format, &f, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_filter_parse("msg == 1", &f, &vmx, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "filter \"msg == 1\": test:odd: field msg (__data_loc char[]) "
				  "is __data_loc"),
		      "%s", err);
	ck_assert_int_eq(trace_filter_parse("saddr == 0x0100007f", &f, &vmx, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "saddr (__u8[4]) is an array of 4 elements"), "%s", err);
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

/* ---- formats recorded on real kernels: tests/data/tracefs/RELEASE --------- */

#define MAX_KERNELS 16
static char kernels[MAX_KERNELS][PATH_MAX]; /* each a tracefs root, found before the tests fork */
static unsigned nr_kernels;

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every directory of $PLERIG_TEST_DATA/tracefs with an events/ directory. */
static void find_kernels(void)
{
	const char *data = getenv("PLERIG_TEST_DATA");
	char dir[PATH_MAX], p[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dp;
	if (!data)
		return; /* test_recorded_found says so */
	snprintf(dir, sizeof(dir), "%s/tracefs", data);
	if (!(dp = opendir(dir)))
		return;
	while ((d = readdir(dp)) && nr_kernels < MAX_KERNELS) {
		if (d->d_name[0] != '.' && !pathf(p, sizeof(p), "%s/%s/events", dir, d->d_name) &&
		    stat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
		    !pathf(kernels[nr_kernels], PATH_MAX, "%s/%s", dir, d->d_name))
			nr_kernels++;
	}
	closedir(dp);
	qsort(kernels, nr_kernels, sizeof(kernels[0]), by_name);
}

static const char *release(unsigned i)
{
	return strrchr(kernels[i], '/') + 1;
}

/* Loads @system:@event of kernel @i, through PLERIG_TRACEFS_ROOT as plerig finds it. */
static void load(unsigned i, const char *system, const char *event, struct trace_format *f)
{
	char root[PATH_MAX];
	setenv("PLERIG_TRACEFS_ROOT", kernels[i], 1);
	ck_assert_msg(tracefs_locate(root, sizeof(root), NULL, 0, err, sizeof(err)) == 0, "%s: %s",
		      release(i), err);
	ck_assert_msg(trace_format_load(root, system, event, f, err, sizeof(err)) == 0, "%s: %s",
		      release(i), err);
	unsetenv("PLERIG_TRACEFS_ROOT");
}

static bool has_event(unsigned i, const char *system, const char *event)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/events/%s/%s/format", kernels[i], system, event);
	return access(p, R_OK) == 0;
}

/* A 1, 2, 4 or 8-byte integer field of @size bytes, as every kernel here has it. */
static const struct trace_field *integer(unsigned i, const struct trace_format *f, const char *name,
					 unsigned size, bool is_signed)
{
	const struct trace_field *x = trace_format_integer_field(f, name, err, sizeof(err));
	ck_assert_msg(x, "%s: %s", release(i), err);
	ck_assert_msg(x->size == size, "%s: %s:%s %s is %u bytes", release(i), f->system, f->name,
		      name, x->size);
	ck_assert_msg(x->is_signed == is_signed, "%s: %s %s signed", release(i), name,
		      x->is_signed ? "is" : "is not");
	return x;
}

/* The end of the fixed part of a record of @f */
static size_t record_size(const struct trace_format *f)
{
	size_t end = 0;
	for (unsigned k = 0; k < f->nr_fields; k++)
		if (f->fields[k].offset + f->fields[k].size > end)
			end = f->fields[k].offset + f->fields[k].size;
	return end;
}

START_TEST(test_recorded_found)
{
	ck_assert_msg(getenv("PLERIG_TEST_DATA"),
		      "PLERIG_TEST_DATA is unset: run through meson test");
	ck_assert_msg(nr_kernels > 0, "no kernel's formats under %s/tracefs",
		      getenv("PLERIG_TEST_DATA"));
	/* the odd fields are exercised by at least one kernel */
	unsigned irq = 0, sched = 0;
	for (unsigned i = 0; i < nr_kernels; i++) {
		irq += has_event(i, "irq", "irq_handler_entry");
		sched += has_event(i, "sched", "sched_switch");
	}
	ck_assert_uint_gt(irq, 0);
	ck_assert_uint_gt(sched, 0);
}
END_TEST

/* The kvm events plerig counts and decodes, on each recorded kernel */
START_TEST(test_recorded_kvm)
{
	struct trace_format f;
	struct trace_filter filter;
	uint8_t rec[256];
	uint64_t v;

	load(_i, "kvm", "kvm_exit", &f);
	const struct trace_field *reason = integer(_i, &f, "exit_reason", 4, false);
	integer(_i, &f, "vcpu_id", 4, false);
	ck_assert_msg(trace_filter_parse("exit_reason == 40", &f, &filter, err, sizeof(err)) == 0,
		      "%s: %s", release(_i), err);
	size_t size = record_size(&f);
	ck_assert_uint_le(size, sizeof(rec));
	record(rec, size, reason->offset, 40);
	ck_assert_int_eq(trace_field_value(reason, rec, size, &v), 0);
	ck_assert_uint_eq(v, 40);
	ck_assert(trace_filter_match(&filter, rec, size));
	record(rec, size, reason->offset, 48);
	ck_assert(!trace_filter_match(&filter, rec, size));

	load(_i, "kvm", "kvm_ple_window_update", &f);
	integer(_i, &f, "vcpu_id", 4, false);
	integer(_i, &f, "new", 4, false);
	integer(_i, &f, "old", 4, false);

	load(_i, "kvm", "kvm_entry", &f);
	integer(_i, &f, "vcpu_id", 4, false);

	load(_i, "kvm", "kvm_hypercall", &f);
	integer(_i, &f, "nr", 8, false);
}
END_TEST

/* Every recorded format loads, its id is its ID line, its fields lie in order */
START_TEST(test_recorded_every)
{
	char pattern[PATH_MAX], text[65536];
	glob_t g;
	snprintf(pattern, sizeof(pattern), "%s/events/*/*/format", kernels[_i]);
	ck_assert_int_eq(glob(pattern, 0, NULL, &g), 0);
	for (size_t n = 0; n < g.gl_pathc; n++) {
		char system[64], event[64];
		struct trace_format f, text_f;
		const char *rel = g.gl_pathv[n] + strlen(kernels[_i]);
		ck_assert_int_eq(sscanf(rel, "/events/%63[^/]/%63[^/]/format", system, event), 2);
		load(_i, system, event, &f);
		ck_assert_int_ge(text_file_read(g.gl_pathv[n], text, sizeof(text)), 0);
		ck_assert_int_eq(trace_format_parse(system, text, &text_f, err, sizeof(err)), 0);
		ck_assert_msg(f.id == text_f.id, "%s: %s:%s id file %u, ID line %u", release(_i),
			      system, event, f.id, text_f.id);
		ck_assert_str_eq(f.name, event);

		integer(_i, &f, "common_type", 2, false);
		integer(_i, &f, "common_pid", 4, true);
		unsigned end = 0;
		for (unsigned k = 0; k < f.nr_fields; k++) {
			const struct trace_field *x = &f.fields[k];
			ck_assert_msg(x->offset >= end, "%s: %s:%s %s overlaps the field before",
				      release(_i), system, event, x->name);
			end = x->offset + x->size;
			if (x->is_array)
				ck_assert_msg(x->array_len && x->size % x->array_len == 0,
					      "%s: %s:%s %s: %u bytes, %u elements", release(_i),
					      system, event, x->name, x->size, x->array_len);
			if (x->is_dynamic)
				ck_assert_msg(x->size == 4 || x->size == 2,
					      "%s: %s:%s %s: %u bytes", release(_i), system, event,
					      x->name, x->size);
		}
	}
	ck_assert_uint_ge(g.gl_pathc, 4);
	globfree(&g);
}
END_TEST

/* Strings, arrays and signed fields, where this kernel's recording has them */
START_TEST(test_recorded_odd_fields)
{
	struct trace_format f;
	struct trace_filter filter;
	const struct trace_field *x;
	uint8_t rec[256];
	uint64_t v;

	if (has_event(_i, "irq", "irq_handler_entry")) {
		load(_i, "irq", "irq_handler_entry", &f);
		integer(_i, &f, "irq", 4, true);
		x = trace_format_field(&f, "name");
		ck_assert(x && x->is_dynamic && x->is_string && !x->is_array);
		ck_assert_int_eq(trace_filter_parse("name == 1", &f, &filter, err, sizeof(err)),
				 -1);
		ck_assert_msg(strstr(err, "irq:irq_handler_entry: field name (__data_loc char[]) "
					  "is __data_loc"),
			      "%s: %s", release(_i), err);
	}
	if (has_event(_i, "sched", "sched_switch")) {
		load(_i, "sched", "sched_switch", &f);
		x = trace_format_field(&f, "prev_comm");
		ck_assert(x && x->is_array && x->is_string && !x->is_dynamic);
		ck_assert_uint_eq(x->array_len, 16);
		ck_assert_uint_eq(x->size, 16);
		ck_assert_str_eq(x->type, "char[16]");
		ck_assert_int_eq(
		    trace_filter_parse("prev_comm == 0", &f, &filter, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, "sched:sched_switch: field prev_comm (char[16]) is an "
					  "array of 16 elements"),
			      "%s: %s", release(_i), err);
		integer(_i, &f, "prev_pid", 4, true);
		x = integer(_i, &f, "prev_prio", 4, true);
		ck_assert(trace_format_field(&f, "prev_state")->is_signed);
		size_t size = record_size(&f);
		record(rec, size, x->offset, (uint32_t)-5);
		ck_assert_int_eq(trace_field_value(x, rec, size, &v), 0);
		ck_assert_int_eq((int64_t)v, -5);
		ck_assert_int_eq(
		    trace_filter_parse("prev_prio == 120", &f, &filter, err, sizeof(err)), 0);
	}
	if (has_event(_i, "icmp", "icmp_send")) {
		load(_i, "icmp", "icmp_send", &f);
		x = trace_format_field(&f, "saddr");
		ck_assert(x && x->is_array && x->size == 4);
		ck_assert_int_eq(trace_field_value(x, rec, sizeof(rec), &v), -1);
	}
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

/* kvm_amd without a threshold intercepts no PAUSE at all (svm_vm_init) */
START_TEST(test_probe_svm_thresh_zero)
{
	struct ple_probe p;
	fake_module("kvm_amd", "pause_filter_count", "3000\n");
	fake_module("kvm_amd", "pause_filter_thresh", "0\n");
	ple_probe_init(&p);
	ck_assert(p.pause_exits_ok); /* exact, and 0 */
	ck_assert_str_eq(ple_variant_note(&p, PLERIG_RING_KERNEL, false),
			 "kvm_amd.pause_filter_thresh=0: PAUSE interception is off host-wide");
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

/* A format file cut short is a reason, as a missing tracepoint is */
START_TEST(test_probe_cut_format)
{
	struct ple_probe p;
	char cut[64];
	fake_module("kvm_intel", "ple_gap", "128\n");
	str_copy(cut, sizeof(cut), kvm_exit_format);
	fake_event("kvm_exit", cut, 103);
	ple_probe_init(&p);
	ck_assert(!p.pause_exits_ok);
	ck_assert_msg(strstr(p.pause_exits_why, "kvm_exit/format: no print fmt line"), "%s",
		      p.pause_exits_why);
	ck_assert(p.window_updates_ok);
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
	TCase *recorded = tcase_create("recorded");
	TCase *fake = tcase_create("fake_trees");
	tcase_add_test(pure, test_parse_kvm_exit);
	tcase_add_test(pure, test_parse_odd_fields);
	tcase_add_test(pure, test_parse_garbage);
	tcase_add_test(pure, test_parse_limits);
	tcase_add_test(pure, test_field_values);
	tcase_add_test(pure, test_filter_on_records);
	tcase_add_test(pure, test_counts_delta);
	find_kernels();
	tcase_add_test(recorded, test_recorded_found);
	tcase_add_loop_test(recorded, test_recorded_kvm, 0, (int)nr_kernels);
	tcase_add_loop_test(recorded, test_recorded_every, 0, (int)nr_kernels);
	tcase_add_loop_test(recorded, test_recorded_odd_fields, 0, (int)nr_kernels);
	tcase_add_checked_fixture(fake, setup, teardown);
	tcase_add_test(fake, test_locate_env);
	tcase_add_test(fake, test_probe_pvm);
	tcase_add_test(fake, test_probe_none);
	tcase_add_test(fake, test_probe_vmx);
	tcase_add_test(fake, test_probe_vmx_gap_zero);
	tcase_add_test(fake, test_probe_svm);
	tcase_add_test(fake, test_probe_svm_thresh_zero);
	tcase_add_test(fake, test_probe_old_kernel);
	tcase_add_test(fake, test_probe_cut_format);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, recorded);
	suite_add_tcase(s, fake);
	return s;
}

CHECK_MAIN(tracefs_suite)
