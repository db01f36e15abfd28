// SPDX-License-Identifier: GPL-2.0
/*
 * Time in KVM exits as figures (model/exit_time_figures) and as the line after
 * the PLE notes (output/exit_times_writer): sums over vCPUs, the PAUSE-loop
 * share, and every way a figure is absent, each with its reason.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/run_result.h"
#include "model/exit_time_figures.h"
#include "output/exit_times_writer.h"
#include "support/check_main.h"
#include "support/fixtures.h"

static struct series series;
static struct outcome rep;
static struct variant_result *r;

static void setup(void)
{
	struct variant v = fixture_variant(BACKEND_KVM, 2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.exit_times = true;
	fixture_series(&series, &v, 1);
	r = &series.runs[0];
	fixture_result(r, &v, 1.0);
	r->ple_exit_reason = PLE_EXIT_REASON_SVM;
	for (unsigned i = 0; i < 2; i++) {
		struct exit_times *t = &r->records[i].exit_times;
		t->valid = true;
		t->exits = 100;
		t->ns = 1000000; /* 1 ms of each vCPU's 1 s */
		t->seen = 100;
		t->nr_reasons = 2;
		t->reason[0] = (struct exit_reason_time){PLE_EXIT_REASON_SVM, 80, 800000};
		t->reason[1] = (struct exit_reason_time){0x60, 20, 200000};
	}
	memset(&rep, 0, sizeof(rep));
	rep.series = &series;
	rep.nr_series = 1;
}

static void teardown(void)
{
	series_free(&series);
}

static char *printed(void)
{
	static char buf[2048];
	buf[0] = '\0'; /* fmemopen leaves it as it was when nothing is written */
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	ck_assert_ptr_nonnull(f);
	exit_times_print(f, &rep);
	fclose(f);
	return buf;
}

START_TEST(test_figures)
{
	struct exit_time_figures f;
	exit_time_figures_for_variant(r, &f);
	ck_assert(f.valid && f.ple_valid);
	ck_assert_uint_eq(f.exits, 200);
	ck_assert_uint_eq(f.ple_exits, 160);
	ck_assert_double_eq(f.ple_ns, 1600000.0);
	ck_assert_double_eq(f.ple_mean_ns, 10000.0);
	ck_assert_double_eq_tol(f.ple_share, 0.0008, 1e-12); /* 1.6 ms of 2 vCPU-seconds */
	ck_assert_double_eq_tol(f.share, 0.001, 1e-12);
	ck_assert_uint_eq(f.nr_top, 2);
	ck_assert_uint_eq(f.top[0].reason, PLE_EXIT_REASON_SVM);
	ck_assert_ptr_null(exit_time_figures_why(r, &f));
	ck_assert_ptr_null(exit_time_figures_ple_why(r, &f));
	exit_time_figures_for_vcpu(r, &r->records[1], &f);
	ck_assert_uint_eq(f.ple_exits, 80);
	ck_assert_double_eq_tol(f.ple_share, 0.0008, 1e-12);
}
END_TEST

START_TEST(test_line)
{
	const char *s = printed();
	ck_assert_msg(strstr(s, "exit-times (kvm ticket pause 1x2/"), "%s", s);
	ck_assert_msg(strstr(s,
			     "PLE exits 160 timed, 1.6ms, 10.0us each, 0.08% of vCPU time; "
			     "all exits 200 timed, 2.0ms, 0.1% of vCPU time; by reason 119 pause: "
			     "1.6ms, 96 interrupt: 400us\n"),
		      "%s", s);
	ck_assert_msg(!strstr(s, "INCOMPLETE"), "%s", s);
	r->records[0].exit_times.lost = 9;
	s = printed();
	ck_assert_msg(strstr(s, "INCOMPLETE: 9 records lost"), "%s", s);
}
END_TEST

/* One vCPU without exit times: none for the run, with the reason. */
START_TEST(test_absent)
{
	struct exit_time_figures f;
	snprintf(r->exit_times_why, sizeof(r->exit_times_why), "perf_event_open: denied");
	r->records[1].exit_times.valid = false;
	exit_time_figures_for_variant(r, &f);
	ck_assert(!f.valid && !f.ple_valid);
	ck_assert_uint_eq(f.exits, 0);
	ck_assert(isnan(f.ple_mean_ns));
	ck_assert_str_eq(exit_time_figures_why(r, &f), "perf_event_open: denied");
	ck_assert_msg(strstr(printed(), "n/a: perf_event_open: denied"), "%s", printed());
	/* not asked for: no line at all, and the reason says how */
	r->variant.exit_times = series.variant.exit_times = false;
	ck_assert_str_eq(printed(), "");
	ck_assert_str_eq(exit_time_figures_why(r, &f), "not measured: run with --exit-times");
}
END_TEST

/* Timed, on a host without a PAUSE exit reason: the PLE part has the PLE reason. */
START_TEST(test_no_ple_reason)
{
	struct exit_time_figures f;
	r->ple_exit_reason = 0;
	snprintf(r->ple_why, sizeof(r->ple_why), "no hardware PLE on this host (kvm_pvm)");
	exit_time_figures_for_variant(r, &f);
	ck_assert(f.valid && !f.ple_valid);
	ck_assert_str_eq(exit_time_figures_ple_why(r, &f), r->ple_why);
	ck_assert_msg(strstr(printed(), "PLE exits n/a (no hardware PLE on this host (kvm_pvm))"),
		      "%s", printed());
}
END_TEST

/* After the interval: a host that counted exits but traced none does not fire kvm_exit. */
START_TEST(test_check_after_the_interval)
{
	for (unsigned i = 0; i < 2; i++) {
		r->records[i].kvm.valid[KVM_STAT_EXITS] = true;
		r->records[i].kvm.value[KVM_STAT_EXITS] = 120;
	}
	run_check_exit_times(r, "kvm_intel");
	ck_assert_str_eq(r->exit_times_why, "");
	ck_assert(r->records[0].exit_times.valid && r->records[1].exit_times.valid);

	/* exits traced, never an entry after them */
	for (unsigned i = 0; i < 2; i++) {
		struct exit_times *t = &r->records[i].exit_times;
		memset(t, 0, sizeof(*t));
		t->valid = true;
		t->seen = 50;
		t->unpaired = 50;
	}
	run_check_exit_times(r, "kvm_intel");
	ck_assert_msg(
	    strstr(r->exit_times_why, "kvm_intel fires kvm:kvm_exit but no kvm:kvm_entry"), "%s",
	    r->exit_times_why);
	ck_assert(!r->records[0].exit_times.valid && !r->records[1].exit_times.valid);

	/* nothing traced of 240 exits: PVM */
	r->exit_times_why[0] = '\0';
	for (unsigned i = 0; i < 2; i++) {
		memset(&r->records[i].exit_times, 0, sizeof(r->records[i].exit_times));
		r->records[i].exit_times.valid = true;
	}
	run_check_exit_times(r, "kvm_pvm");
	ck_assert_str_eq(r->exit_times_why, "kvm_pvm does not fire kvm:kvm_exit: the exits stat "
					    "counted 240 exits in the interval, none was traced");
	ck_assert(!r->records[0].exit_times.valid);
}
END_TEST

/* Backends that cannot have exit times say so from the start. */
START_TEST(test_reason_by_backend)
{
	struct variant_result res;
	struct variant v =
	    fixture_variant(BACKEND_NATIVE, 2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.exit_times = true;
	ck_assert_int_eq(variant_result_init(&res, &v), 0);
	ck_assert_msg(strstr(res.exit_times_why, "without VM exits"), "%s", res.exit_times_why);
	variant_result_free(&res);
	v.backend = BACKEND_LIBVIRT_TCG;
	ck_assert_int_eq(variant_result_init(&res, &v), 0);
	ck_assert_msg(strstr(res.exit_times_why, "TCG"), "%s", res.exit_times_why);
	variant_result_free(&res);
	v.backend = BACKEND_KVM;
	ck_assert_int_eq(variant_result_init(&res, &v), 0);
	ck_assert_str_eq(res.exit_times_why, "");
	variant_result_free(&res);
}
END_TEST

static Suite *exit_time_figures_suite(void)
{
	Suite *s = suite_create("exit_time_figures");
	TCase *t = tcase_create("figures");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_figures);
	tcase_add_test(t, test_line);
	tcase_add_test(t, test_absent);
	tcase_add_test(t, test_no_ple_reason);
	tcase_add_test(t, test_check_after_the_interval);
	tcase_add_test(t, test_reason_by_backend);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(exit_time_figures_suite)
