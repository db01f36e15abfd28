// SPDX-License-Identifier: GPL-2.0
/*
 * The foreign load's input: busy time of a set of CPUs from /proc/stat
 * text (recorded from this development host), and its figure per run.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/run_result.h"
#include "measure/cpu_load.h"
#include "model/results.h"
#include "support/check_main.h"

/* user nice system idle iowait irq softirq steal guest guest_nice */
static const char stat_text[] = "cpu  90677 2073 11373 31224 397 0 82 56 12043 0\n"
				"cpu0 45721 967 5092 16097 41 0 13 20 9159 0\n"
				"cpu1 44955 1106 6281 15127 356 0 69 36 2883 0\n"
				"cpu12 1 2 3 4 5 6 7 8 0 0\n"
				"intr 123 4 5\n";

START_TEST(busy_is_everything_but_idle_and_iowait)
{
	struct cpu_load l;
	char err[256];
	const unsigned one[] = {1};
	ck_assert_int_eq(cpu_load_parse(stat_text, one, 1, 100, &l, err, sizeof(err)), 0);
	ck_assert(l.valid);
	ck_assert_uint_eq(l.nr_cpus, 1);
	/* 44955 + 1106 + 6281 + 0 + 69 + 36 ticks of 10 ms; guest time is inside user */
	ck_assert_uint_eq(l.busy_ns, (44955ull + 1106 + 6281 + 69 + 36) * 10000000ull);
	/* and all of its time, idle and iowait too */
	ck_assert_uint_eq(l.total_ns,
			  (44955ull + 1106 + 6281 + 15127 + 356 + 0 + 69 + 36) * 10000000ull);
}
END_TEST

START_TEST(a_set_sums_its_cpus_and_no_prefix_matches)
{
	struct cpu_load l;
	char err[256];
	const unsigned both[] = {0, 1};
	ck_assert_int_eq(cpu_load_parse(stat_text, both, 2, 100, &l, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.busy_ns,
			  (45721ull + 967 + 5092 + 13 + 20 + 44955 + 1106 + 6281 + 69 + 36) *
			      10000000ull);
	/* "cpu1 " must not match "cpu12": CPU 12's line is its own */
	const unsigned twelve[] = {12};
	ck_assert_int_eq(cpu_load_parse(stat_text, twelve, 1, 100, &l, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.busy_ns, (1ull + 2 + 3 + 6 + 7 + 8) * 10000000ull);
}
END_TEST

START_TEST(a_missing_cpu_or_a_bad_line_is_an_error)
{
	struct cpu_load l;
	char err[256];
	const unsigned absent[] = {5};
	ck_assert_int_eq(cpu_load_parse(stat_text, absent, 1, 100, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/proc/stat has no line for CPU 5");
	ck_assert(!l.valid);
	const unsigned zero[] = {0};
	ck_assert_int_eq(cpu_load_parse("cpu0 1 2\n", zero, 1, 100, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/proc/stat: CPU 0's line does not parse");
}
END_TEST

START_TEST(the_real_file_reads)
{
	struct cpu_load l;
	char err[256];
	const unsigned zero[] = {0};
	ck_assert_msg(cpu_load_read(zero, 1, &l, err, sizeof(err)) == 0, "%s", err);
	ck_assert(l.valid && l.busy_ns > 0);
}
END_TEST

START_TEST(the_share_is_of_the_cpus_time_and_nan_with_a_reason)
{
	struct variant_result r = {0};
	struct figures f;
	r.interval_s = 2.0;
	r.foreign_capacity_ns = 4e9; /* 2 CPUs between the readings */
	r.foreign_cpu_ns = 1e9;	     /* 1 s of 4 CPU-seconds */
	figures_for_variant(&r, &f);
	ck_assert_double_eq_tol(f.foreign_cpu_share, 0.25, 1e-12);
	strcpy(r.foreign_why, "not measured: QEMU runs on another host");
	figures_for_variant(&r, &f);
	ck_assert(isnan(f.foreign_cpu_share));
}
END_TEST

/* Two vCPU threads; the second ran @run1_ns in the interval, the first 0.5 s. */
static void foreign_of(uint64_t run1_ns, uint64_t run0_ns, struct variant_result *r)
{
	struct counter_snapshot before[2] = {0}, after[2] = {0};
	struct interval_snapshots s = {.before = before, .after = after};
	struct vcpu_record recs[2] = {0};
	memset(r, 0, sizeof(*r));
	r->records = recs;
	r->nr_records = 2;
	r->interval_s = 1.0;
	after[0].sched.run_ns = run0_ns;
	after[1].sched.run_ns = run1_ns;
	s.load_before = (struct cpu_load){.valid = true, .nr_cpus = 1, .busy_ns = 0};
	s.load_after = (struct cpu_load){
	    .valid = true, .nr_cpus = 1, .busy_ns = 900000000, .total_ns = 1000000000};
	interval_snapshots_delta(&s, r);
	r->records = NULL;
}

/*
 * A busy CPU read around a 0.2 s interval by readings 0.27 s apart (libvirt
 * reads around the guest's interval): all of it foreign is a share of 1, not
 * 1.35 (which a baseline then refused: 'out of range (0 to 1)').
 */
START_TEST(the_share_is_of_the_time_between_the_readings)
{
	struct counter_snapshot before[1] = {0}, after[1] = {0};
	struct interval_snapshots s = {.before = before, .after = after};
	struct vcpu_record recs[1] = {0};
	struct variant_result r = {0};
	struct figures f;
	r.records = recs;
	r.nr_records = 1;
	r.interval_s = 0.2;
	after[0].sched.run_ns = 1; /* the vCPU got next to nothing */
	s.load_before = (struct cpu_load){.valid = true, .nr_cpus = 1};
	s.load_after = (struct cpu_load){
	    .valid = true, .nr_cpus = 1, .busy_ns = 270000000, .total_ns = 270000000};
	interval_snapshots_delta(&s, &r);
	figures_for_variant(&r, &f);
	r.records = NULL;
	ck_assert_double_le(f.foreign_cpu_share, 1.0);
	ck_assert_double_gt(f.foreign_cpu_share, 0.99);
}
END_TEST

START_TEST(a_starved_thread_is_a_figure_no_run_time_at_all_is_not)
{
	struct variant_result r;
	/* 0.9 s busy, 0.5 s of it the vCPUs': 0.4 s foreign, though thread 1 never ran */
	foreign_of(0, 500000000, &r);
	ck_assert_str_eq(r.foreign_why, "");
	ck_assert_double_eq_tol(r.foreign_cpu_ns, 4e8, 1);
	foreign_of(0, 0, &r);
	ck_assert_str_eq(r.foreign_why, "not measured: no run time of any vCPU thread (schedstat)");
}
END_TEST

/*
 * Under Bochs the host thread took the snapshots after STOP so slowly that
 * one vCPU's thread had ended before its schedstat was read: its 0.1 s of
 * run time counted as 0, and as other work's (a foreign load of 50 % that
 * L1, running nothing else, cannot have). A run time not read is no figure.
 */
START_TEST(a_vcpu_whose_run_time_was_not_read_leaves_no_foreign_load)
{
	struct variant_result r;
	foreign_of(0, 500000000, &r);
	ck_assert_double_eq_tol(r.foreign_cpu_ns, 4e8, 1);
	struct counter_snapshot before[2] = {0}, after[2] = {0};
	struct interval_snapshots s = {.before = before, .after = after};
	struct vcpu_record recs[2] = {0};
	memset(&r, 0, sizeof(r));
	r.records = recs;
	r.nr_records = 2;
	r.interval_s = 1.0;
	after[0].sched.run_ns = 500000000;
	strcpy(r.sched_why, "VM 0 vCPU 1's run time was not read at its end: no thread 7");
	s.load_before = (struct cpu_load){.valid = true, .nr_cpus = 1};
	s.load_after = (struct cpu_load){
	    .valid = true, .nr_cpus = 1, .busy_ns = 1000000000, .total_ns = 1000000000};
	interval_snapshots_delta(&s, &r);
	struct figures f;
	figures_for_variant(&r, &f);
	r.records = NULL;
	ck_assert_str_eq(r.foreign_why, "not measured: VM 0 vCPU 1's run time was not read at "
					"its end: no thread 7");
	ck_assert_double_eq(r.foreign_cpu_ns, 0.0);
	ck_assert(isnan(f.foreign_cpu_share));
}
END_TEST

static Suite *cpu_load_suite(void)
{
	Suite *s = suite_create("cpu_load");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, busy_is_everything_but_idle_and_iowait);
	tcase_add_test(tc, a_set_sums_its_cpus_and_no_prefix_matches);
	tcase_add_test(tc, a_missing_cpu_or_a_bad_line_is_an_error);
	tcase_add_test(tc, the_real_file_reads);
	tcase_add_test(tc, the_share_is_of_the_cpus_time_and_nan_with_a_reason);
	tcase_add_test(tc, a_starved_thread_is_a_figure_no_run_time_at_all_is_not);
	tcase_add_test(tc, the_share_is_of_the_time_between_the_readings);
	tcase_add_test(tc, a_vcpu_whose_run_time_was_not_read_leaves_no_foreign_load);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cpu_load_suite)
