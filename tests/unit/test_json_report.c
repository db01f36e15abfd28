// SPDX-License-Identifier: GPL-2.0
/* The JSON results file: written whole, read back, every schema field there. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "plerig/histogram.h"
#include "report/json_report.h"

#define CMDLINE "plerig run --vcpus 2 --pcpus 0-1 --json out.json"

static struct variant_result res[2];
static char dir[64];
static char path[128];
static char err[512];

static void fill_vcpu(struct vcpu_record *rec, unsigned vcpu, int host_cpu, uint64_t acq)
{
	rec->vm = 0;
	rec->vcpu = vcpu;
	rec->host_cpu = host_cpu;
	rec->tid = 4242 + (pid_t)vcpu;
	rec->guest.acquisitions = acq;
	rec->guest.unmeasured_acquisitions = 10;
	rec->guest.wait_total_cycles = 4 * acq;
	rec->guest.wait_max_cycles = 900;
	rec->guest.stalls = 3;
	rec->guest.stalled_cycles = 200000000;
	rec->guest.hold_max_cycles = 40;
	rec->guest.holder_preemptions = 2;
	rec->sched.wait_ns = 500000000;
	rec->sched.run_ns = 1500000000;
	rec->sched.timeslices = 77;
}

/* One good variant (vCPU 1 floating and without an exit count), one failed. */
static void setup(void)
{
	struct variant_result *r = &res[0];

	memset(res, 0, sizeof(res));
	r->variant.backend = BACKEND_KVM;
	r->variant.lock = PLERIG_LOCK_TICKET;
	r->variant.relax = PLERIG_RELAX_PAUSE;
	r->variant.ring = PLERIG_RING_KERNEL;
	r->variant.vms = 1;
	r->variant.vcpus = 2;
	r->variant.nr_pcpus = 2;
	r->variant.pcpus[0] = 0;
	r->variant.pcpus[1] = 1;
	r->variant.pin_each = 1;
	r->variant.cs_cycles = 100;
	r->variant.think_cycles = 50;
	r->variant.stall_us = 50.0;
	r->variant.warmup_s = 0.2;
	r->variant.duration_s = 2.0;
	r->variant.timeout_s = 10.0;
	r->ok = true;
	r->interval_s = 2.0;
	r->tsc_khz = 1000000;
	r->timing = (struct run_timing){1, 2, 3, 4, 5, 6};
	r->nr_records = 2;
	r->records = calloc(2, sizeof(*r->records));
	r->protected_counter = calloc(1, sizeof(*r->protected_counter));
	ck_assert_ptr_nonnull(r->records);
	ck_assert_ptr_nonnull(r->protected_counter);
	r->protected_counter[0] = 4020;

	fill_vcpu(&r->records[0], 0, 0, 1000);
	r->records[0].guest.hist_wait[plerig_hist_bucket(2)] = 600;
	r->records[0].guest.hist_wait[plerig_hist_bucket(6)] = 400;
	r->records[0].guest.hist_hold[plerig_hist_bucket(3)] = 1000;
	r->records[0].kvm.value[KVM_STAT_EXITS] = 1234;
	r->records[0].kvm.valid[KVM_STAT_EXITS] = true;
	r->records[0].kvm.value[KVM_STAT_HALT_EXITS] = 7;
	r->records[0].kvm.valid[KVM_STAT_HALT_EXITS] = true;

	fill_vcpu(&r->records[1], 1, -1, 3000);
	r->records[1].guest.hist_wait[plerig_hist_bucket(7)] = 3000;
	r->records[1].guest.hist_hold[plerig_hist_bucket(1000)] = 3000;

	res[1].variant = r->variant;
	res[1].variant.lock = PLERIG_LOCK_MCS;
	res[1].ok = false;
	snprintf(res[1].error, sizeof(res[1].error), "vCPU 0: boot timed out");

	snprintf(dir, sizeof(dir), "/tmp/plerig-json-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	err[0] = '\0';
}

static void teardown(void)
{
	variant_result_free(&res[0]);
	variant_result_free(&res[1]);
	unlink(path);
	rmdir(dir);
}

/* ---- reading it back --------------------------------------------------- */

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key '%s'", key);
	ck_assert_msg(json_object_is_type(v, type), "'%s' is a %s, not a %s", key,
		      json_type_to_name(json_object_get_type(v)), json_type_to_name(type));
	return v;
}

static const char *get_str(json_object *o, const char *key)
{
	return json_object_get_string(get(o, key, json_type_string));
}

static int64_t get_int(json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key, json_type_int));
}

static double get_double(json_object *o, const char *key)
{
	return json_object_get_double(get(o, key, json_type_double));
}

static json_object *at(json_object *array, size_t i)
{
	ck_assert_uint_lt(i, json_object_array_length(array));
	return json_object_array_get_idx(array, i);
}

static json_object *write_and_read(void)
{
	json_object *root;

	ck_assert_msg(json_report_write(path, res, 2, CMDLINE, err, sizeof(err)) == 0, "%s", err);
	root = json_object_from_file(path);
	ck_assert_msg(root, "%s", json_util_get_last_err());
	return root;
}

/* Nothing but the result in the directory: no temporary left behind. */
static unsigned dir_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* ---- tests ------------------------------------------------------------ */

START_TEST(test_top_level)
{
	json_object *root = write_and_read();
	struct utsname u;

	ck_assert_str_eq(get_str(root, "schema"), "plerig-results");
	ck_assert_int_eq(get_int(root, "schema_version"), 1);
	ck_assert_str_ne(get_str(root, "plerig_version"), "");
#ifdef PLERIG_VERSION
	ck_assert_str_eq(get_str(root, "plerig_version"), PLERIG_VERSION);
#endif
	ck_assert_str_eq(get_str(root, "command_line"), CMDLINE);
	json_object *host = get(root, "host", json_type_object);
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_str_eq(get_str(host, "kernel"), u.release);
	/* as nproc: what this process may use, at most what is online */
	ck_assert_int_ge(get_int(host, "cpus"), 1);
	ck_assert_int_le(get_int(host, "cpus"), get_int(host, "cpus_online"));
	ck_assert_uint_eq(json_object_array_length(get(root, "variants", json_type_array)), 2);
	ck_assert_uint_eq(dir_entries(), 1);
	json_object_put(root);
}
END_TEST

START_TEST(test_variant_fields)
{
	json_object *root = write_and_read();
	json_object *v = at(get(root, "variants", json_type_array), 0);
	json_object *e;

	ck_assert_str_eq(get_str(v, "backend"), "kvm");
	ck_assert_str_eq(get_str(v, "lock"), "ticket");
	ck_assert_str_eq(get_str(v, "relax"), "pause");
	ck_assert_str_eq(get_str(v, "ring"), "kernel");
	ck_assert_int_eq(get_int(v, "vms"), 1);
	ck_assert_int_eq(get_int(v, "vcpus"), 2);
	ck_assert_str_eq(get_str(v, "pcpus"), "0-1");
	ck_assert_str_eq(get_str(v, "pin"), "each");
	ck_assert_int_eq(get_int(v, "cs_cycles"), 100);
	ck_assert_int_eq(get_int(v, "think_cycles"), 50);
	/* whole-valued doubles stay doubles */
	ck_assert_double_eq(get_double(v, "stall_us"), 50.0);
	ck_assert_double_eq(get_double(v, "warmup_s"), 0.2);
	ck_assert_double_eq(get_double(v, "duration_s"), 2.0);
	ck_assert(json_object_get_boolean(get(v, "ok", json_type_boolean)));
	ck_assert(!json_object_object_get_ex(v, "error", &e));
	ck_assert_double_eq(get_double(v, "interval_s"), 2.0);
	ck_assert_int_eq(get_int(v, "tsc_khz"), 1000000);

	json_object *t = get(v, "timing", json_type_object);
	ck_assert_int_eq(get_int(t, "created_ns"), 1);
	ck_assert_int_eq(get_int(t, "ready_ns"), 2);
	ck_assert_int_eq(get_int(t, "first_acq_ns"), 3);
	ck_assert_int_eq(get_int(t, "stopped_ns"), 4);
	ck_assert_int_eq(get_int(t, "torn_down_ns"), 5);
	ck_assert_int_eq(get_int(t, "setup_insn_emulated"), 6);
	json_object_put(root);
}
END_TEST

START_TEST(test_summary)
{
	static const char *const doubles[] = {
	    "acq_per_s",     "wait_p50_ns",  "wait_p99_ns",	"wait_max_ns",
	    "wait_mean_ns",  "hold_p50_ns",  "hold_max_ns",	"stalled_ns",
	    "stalled_share", "run_delay_ns", "run_delay_share", "run_time_ns",
	};
	json_object *root = write_and_read();
	json_object *v = at(get(root, "variants", json_type_array), 0);
	json_object *s = get(v, "summary", json_type_object);

	for (size_t i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++)
		get(s, doubles[i], json_type_double);
	ck_assert_int_eq(get_int(s, "acquisitions"), 4000);
	ck_assert_double_eq(get_double(s, "acq_per_s"), 2000.0);
	/* merged: 600 x 2, 400 x 6, 3000 x 7: the 2000th sample is a 7 */
	ck_assert_double_eq(get_double(s, "wait_p50_ns"), 7.0);
	ck_assert_double_eq(get_double(s, "wait_p99_ns"), 7.0);
	ck_assert_double_eq(get_double(s, "wait_mean_ns"), 4.0);
	ck_assert_int_eq(get_int(s, "stalls"), 6);
	ck_assert_double_eq(get_double(s, "stalled_share"), 0.1);
	ck_assert_int_eq(get_int(s, "holder_preemptions"), 4);
	/* vCPU 1 has no exit count, so neither has the variant */
	get(s, "exits", json_type_null);
	ck_assert(!json_object_get_boolean(get(s, "exits_valid", json_type_boolean)));
	json_object_put(root);
}
END_TEST

static void check_buckets(json_object *hist, const uint64_t (*want)[2], size_t n)
{
	ck_assert_str_eq(get_str(hist, "unit"), "tsc_cycles");
	json_object *b = get(hist, "buckets", json_type_array);
	ck_assert_uint_eq(json_object_array_length(b), n);
	for (size_t i = 0; i < n; i++) {
		json_object *pair = at(b, i);
		ck_assert(json_object_is_type(pair, json_type_array));
		ck_assert_uint_eq(json_object_array_length(pair), 2);
		ck_assert_int_eq(json_object_get_int64(at(pair, 0)), (int64_t)want[i][0]);
		ck_assert_int_eq(json_object_get_int64(at(pair, 1)), (int64_t)want[i][1]);
	}
}

START_TEST(test_vms_and_vcpus)
{
	static const uint64_t wait0[][2] = {{2, 600}, {6, 400}};
	static const uint64_t hold1[][2] = {{960, 3000}}; /* 1000 lands in [960, 1024) */
	json_object *root = write_and_read();
	json_object *v = at(get(root, "variants", json_type_array), 0);
	json_object *vms = get(v, "vm_results", json_type_array);
	json_object *ks;

	ck_assert_uint_eq(json_object_array_length(vms), 1);
	json_object *vm = at(vms, 0);
	ck_assert_int_eq(get_int(vm, "vm"), 0);
	ck_assert_int_eq(get_int(vm, "protected_counter"), 4020);
	json_object *vcpus = get(vm, "vcpus", json_type_array);
	ck_assert_uint_eq(json_object_array_length(vcpus), 2);

	json_object *c = at(vcpus, 0);
	ck_assert_int_eq(get_int(c, "vcpu"), 0);
	ck_assert_int_eq(get_int(c, "host_cpu"), 0);
	ck_assert_int_eq(get_int(c, "tid"), 4242);
	ck_assert_int_eq(get_int(c, "acquisitions"), 1000);
	ck_assert_int_eq(get_int(c, "unmeasured_acquisitions"), 10);
	ck_assert_int_eq(get_int(c, "stalls"), 3);
	ck_assert_double_eq(get_double(c, "stalled_ns"), 2e8);
	ck_assert_double_eq(get_double(c, "wait_p50_ns"), 2.0);
	ck_assert_double_eq(get_double(c, "wait_p99_ns"), 6.0);
	ck_assert_double_eq(get_double(c, "wait_max_ns"), 900.0);
	ck_assert_double_eq(get_double(c, "wait_mean_ns"), 4.0);
	ck_assert_double_eq(get_double(c, "hold_p50_ns"), 3.0);
	ck_assert_double_eq(get_double(c, "hold_max_ns"), 40.0);
	ck_assert_int_eq(get_int(c, "holder_preemptions"), 2);
	ck_assert_double_eq(get_double(c, "run_delay_ns"), 5e8);
	ck_assert_double_eq(get_double(c, "run_time_ns"), 1.5e9);
	ck_assert_int_eq(get_int(c, "timeslices"), 77);
	ck_assert_int_eq(get_int(c, "exits"), 1234);
	ks = get(c, "kvm_stats", json_type_object);
	ck_assert_int_eq(json_object_object_length(ks), 2);
	ck_assert_int_eq(get_int(ks, kvm_stat_name(KVM_STAT_EXITS)), 1234);
	ck_assert_int_eq(get_int(ks, kvm_stat_name(KVM_STAT_HALT_EXITS)), 7);
	check_buckets(get(c, "wait_histogram", json_type_object), wait0, 2);

	c = at(vcpus, 1);
	ck_assert_int_eq(get_int(c, "vcpu"), 1);
	get(c, "host_cpu", json_type_null); /* floating */
	get(c, "exits", json_type_null);
	ck_assert_int_eq(json_object_object_length(get(c, "kvm_stats", json_type_object)), 0);
	check_buckets(get(c, "hold_histogram", json_type_object), hold1, 1);
	json_object_put(root);
}
END_TEST

START_TEST(test_failed_variant)
{
	json_object *root = write_and_read();
	json_object *v = at(get(root, "variants", json_type_array), 1);

	ck_assert_str_eq(get_str(v, "lock"), "mcs");
	ck_assert_int_eq(get_int(v, "vms"), 1); /* the identity survives a failure */
	ck_assert(!json_object_get_boolean(get(v, "ok", json_type_boolean)));
	ck_assert_str_eq(get_str(v, "error"), "vCPU 0: boot timed out");
	get(v, "summary", json_type_null);
	ck_assert_uint_eq(json_object_array_length(get(v, "vm_results", json_type_array)), 0);
	json_object_put(root);
}
END_TEST

/* Doubles are written in their shortest form, not 0.20000000000000001. */
START_TEST(test_number_text)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	json_object *root = write_and_read();

	json_object_put(root);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(getdelim(&text, &len, '\0', f) > 0, 1);
	fclose(f);
	ck_assert_ptr_null(strstr(text, "0.20000000000000001"));
	ck_assert_ptr_nonnull(strstr(text, "0.2"));
	ck_assert_ptr_null(strstr(text, "\\/")); /* no escaped slashes */
	ck_assert_ptr_nonnull(strstr(text, "--pcpus 0-1"));
	free(text);
}
END_TEST

START_TEST(test_overwrite_and_null_command_line)
{
	json_object *root;
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs("old and much longer content that must vanish entirely ...", f);
	fclose(f);
	ck_assert_int_eq(json_report_write(path, res, 1, NULL, err, sizeof(err)), 0);
	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	get(root, "command_line", json_type_null);
	ck_assert_uint_eq(json_object_array_length(get(root, "variants", json_type_array)), 1);
	ck_assert_uint_eq(dir_entries(), 1);
	json_object_put(root);
}
END_TEST

START_TEST(test_empty_results)
{
	json_object *root;

	ck_assert_int_eq(json_report_write(path, NULL, 0, CMDLINE, err, sizeof(err)), 0);
	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(json_object_array_length(get(root, "variants", json_type_array)), 0);
	json_object_put(root);
}
END_TEST

/* "-" is stdout; catch it in a file to read it back. */
START_TEST(test_stdout)
{
	int saved = dup(STDOUT_FILENO);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	json_object *root;

	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(fd, 0);
	fflush(stdout);
	ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
	close(fd);
	int rc = json_report_write("-", res, 2, CMDLINE, err, sizeof(err));
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	ck_assert_msg(rc == 0, "%s", err);

	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	ck_assert_str_eq(get_str(root, "schema"), "plerig-results");
	ck_assert_uint_eq(json_object_array_length(get(root, "variants", json_type_array)), 2);
	json_object_put(root);
	/* no file called "-" appeared */
	ck_assert_int_ne(access("-", F_OK), 0);
}
END_TEST

START_TEST(test_unwritable)
{
	const char *bad = "/nonexistent-plerig-dir/sub/out.json";

	ck_assert_int_eq(json_report_write(bad, res, 2, CMDLINE, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, bad), "'%s' does not name the path", err);
	ck_assert_msg(strstr(err, "No such file or directory"), "'%s' lacks the reason", err);

	/* a directory in the way: fails at rename, and cleans up after itself */
	ck_assert_int_eq(json_report_write(dir, res, 2, CMDLINE, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, dir), "'%s' does not name the path", err);
	char parent_tmp[128];
	snprintf(parent_tmp, sizeof(parent_tmp), "%s.%ld.0.tmp", dir, (long)getpid());
	ck_assert_int_ne(access(parent_tmp, F_OK), 0);

	ck_assert_int_eq(json_report_write("", res, 2, CMDLINE, err, sizeof(err)), -1);
	ck_assert_int_eq(json_report_write(NULL, res, 2, CMDLINE, err, sizeof(err)), -1);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json_report");
	TCase *t = tcase_create("json");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_top_level);
	tcase_add_test(t, test_variant_fields);
	tcase_add_test(t, test_summary);
	tcase_add_test(t, test_vms_and_vcpus);
	tcase_add_test(t, test_failed_variant);
	tcase_add_test(t, test_number_text);
	tcase_add_test(t, test_overwrite_and_null_command_line);
	tcase_add_test(t, test_empty_results);
	tcase_add_test(t, test_stdout);
	tcase_add_test(t, test_unwritable);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(json_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
