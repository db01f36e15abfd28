// SPDX-License-Identifier: GPL-2.0
/*
 * plerig check's over-commit expectations, progress and stalls, on runs
 * built with the figures a loaded 2-CPU host gave (4 vCPUs of a ticket or
 * test-and-set lock on one CPU shared with a busy loop and other jobs):
 * they fail on a fault, and where the host let too little happen to tell
 * they say so with the figures, never pass in silence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/check_expect.h"
#include "model/check_result.h"
#include "support/check_main.h"
#include "support/fixtures.h"

#define RUNS  6
#define VCPUS 4

static struct series series;
static struct outcome rep;
static struct check_result out;
static struct check_ctx ctx;
static struct scenario scenario;

static void setup_lock(enum plerig_lock_kind lock)
{
	static const unsigned cpu[] = {0};
	struct variant v = fixture_variant(BACKEND_KVM, VCPUS, lock, PLERIG_RELAX_PAUSE);

	fixture_pin(&v, cpu, 1);
	fixture_series(&series, &v, RUNS);
	for (unsigned r = 0; r < RUNS; r++) {
		fixture_result(&series.runs[r], &v, 0.3);
		for (unsigned i = 0; i < VCPUS; i++) {
			struct vcpu_record *rec = &series.runs[r].records[i];
			rec->sched.run_ns = 18000000; /* 18 ms of 0.3 s: what the busy host gave */
			rec->sched.wait_ns = 280000000;
			rec->sched.timeslices = 8;
		}
	}
	memset(&rep, 0, sizeof(rep));
	rep.series = &series;
	rep.nr_series = 1;
	memset(&out, 0, sizeof(out));
	snprintf(out.host.kvm_module, sizeof(out.host.kvm_module), "kvm_pvm");
	memset(&ctx, 0, sizeof(ctx));
	ctx.out = &out;
	memset(&scenario, 0, sizeof(scenario));
	snprintf(scenario.name, sizeof(scenario.name), "overcommit");
	scenario.expects = (1u << EXPECT_PROGRESS) | (1u << EXPECT_STALLS);
}

static void setup(void)
{
	setup_lock(PLERIG_LOCK_TICKET);
}

static void teardown(void)
{
	series_free(&series);
	check_result_free(&out);
}

static void set_acq(unsigned run, const unsigned acq[VCPUS])
{
	for (unsigned i = 0; i < VCPUS; i++) {
		struct plerig_vcpu_result *g = &series.runs[run].records[i].guest;
		g->acquisitions = acq[i];
		/* in warm-up and in the drain at STOP: every vCPU that ran had some */
		g->unmeasured_acquisitions = 2;
		/* every hand-over of a fair lock on one shared CPU is a stall */
		g->stalls = acq[i];
	}
}

static const struct check_case *judged(const char *expectation)
{
	ck_assert_int_eq(check_judge_expectations(&ctx, &scenario, &rep), 0);
	for (unsigned i = 0; i < out.nr_cases; i++)
		if (!strcmp(out.cases[i].name, expectation))
			return &out.cases[i];
	ck_abort_msg("no case %s", expectation);
	return NULL;
}

static void assert_case(const struct check_case *c, enum check_outcome want, const char *needle)
{
	ck_assert_msg(c->outcome == want, "%s: %s: %s", c->name, check_outcome_name(c->outcome),
		      c->text);
	ck_assert_msg(strstr(c->text, needle), "%s: '%s' lacks '%s'", c->name, c->text, needle);
}

/*
 * The default suite's false failure at load 22: under a ticket lock the
 * lock changed hands 3-7 times a run and vCPU 1 never got it inside an
 * interval, though it ran 108 ms in all (and got it outside them). Before:
 * "vCPU 1 ... made 0 acquisitions in 6 runs under a fair (ticket) lock".
 */
START_TEST(test_slow_fair_queue_is_not_a_starved_vcpu)
{
	static const unsigned acq[VCPUS] = {2, 0, 3, 2};
	for (unsigned r = 0; r < RUNS; r++)
		set_acq(r, acq);
	const struct check_case *c = judged("progress");
	assert_case(c, CHECK_PASS, "not judged in some");
	ck_assert_ptr_nonnull(strstr(c->text, "vCPU 1 of VM 0 made 0 acquisitions in the measured "
					      "intervals of 6 runs (12 outside them"));
	/* and in the one-screen summary, not only in TAP and JUnit */
	ck_assert_ptr_nonnull(strstr(c->brief, "not judged in some: "));
}
END_TEST

/*
 * Seen in the loaded A/A: a vCPU with none in an interval in which the
 * others made 21791, having run 8-10 ms around it: the host kept it off
 * its CPU while the others stormed. Not judged, not failed.
 */
START_TEST(test_vcpu_kept_off_its_cpu_is_not_judged)
{
	static const unsigned slow[VCPUS] = {1, 1, 1, 1};
	static const unsigned absent[VCPUS] = {0, 7000, 7000, 7791};
	for (unsigned r = 0; r < RUNS; r++)
		set_acq(r, r == 4 ? absent : slow);
	for (unsigned r = 0; r < RUNS; r++)
		series.runs[r].records[0].guest.acquisitions = 0;
	assert_case(judged("progress"), CHECK_PASS, "vCPU 0 of VM 0 made 0 acquisitions");
}
END_TEST

/* A vCPU that ran 18 ms while measuring and never got a fair lock in its life: a fault. */
START_TEST(test_vcpu_that_never_got_a_fair_lock_fails)
{
	static const unsigned acq[VCPUS] = {1, 0, 1, 1};
	for (unsigned r = 0; r < RUNS; r++)
		set_acq(r, acq);
	series.runs[4].records[1].guest.unmeasured_acquisitions = 0;
	assert_case(judged("progress"), CHECK_FAIL,
		    "vCPU 1 of VM 0 got a fair (ticket) lock not once in run 4, in or out of the "
		    "measured interval, although it ran 18.0 ms while measuring");
}
END_TEST

/* The lock's acquisitions between the run-time snapshots, as phase_driver reads them. */
static void set_moves(unsigned run, uint64_t moves)
{
	struct variant_result *r = &series.runs[run];
	if (!r->window_acquisitions)
		r->window_acquisitions = calloc(1, sizeof(*r->window_acquisitions));
	ck_assert_ptr_nonnull(r->window_acquisitions);
	r->window_acquisitions[0] = moves;
}

/* A lock that never moved though every vCPU ran 18 ms in a run: stuck. */
START_TEST(test_stuck_lock_fails)
{
	static const unsigned none[VCPUS] = {0, 0, 0, 0};
	for (unsigned r = 0; r < RUNS; r++) {
		set_acq(r, none); /* each got it in warm-up and in the drain at STOP */
		set_moves(r, 0);
	}
	assert_case(judged("progress"), CHECK_FAIL,
		    "VM 0's lock made no acquisition in 6 runs (none at all while its vCPUs' run "
		    "time was measured); the most every vCPU of it ran in one run: 18.0 ms");
}
END_TEST

/* Where the backend did not read the lock around the interval, the measured ones judge it. */
START_TEST(test_stuck_lock_fails_by_measured_ones)
{
	static const unsigned none[VCPUS] = {0, 0, 0, 0};
	for (unsigned r = 0; r < RUNS; r++)
		set_acq(r, none);
	assert_case(judged("progress"), CHECK_FAIL,
		    "VM 0's lock made no acquisition in 6 runs (none measured)");
}
END_TEST

/*
 * The [shape] scenario on a loaded host: a ticket lock of 4 vCPUs turned
 * a few times a run, every vCPU running 18 ms, and none of those moves
 * was a measured acquisition (each vCPU's first measured one waits for
 * the whole queue to turn once more). Before: "VM 0's lock made no
 * acquisition in 2 runs".
 */
START_TEST(test_slow_queue_with_no_measured_acquisition_moved)
{
	static const unsigned none[VCPUS] = {0, 0, 0, 0};
	for (unsigned r = 0; r < RUNS; r++) {
		set_acq(r, none);
		set_moves(r, r == 3 ? 3 : 0);
	}
	const struct check_case *c = judged("progress");
	assert_case(c, CHECK_PASS, "made 0 acquisitions in the measured intervals of 6 runs");
}
END_TEST

/* ... but where one vCPU (the holder, perhaps) never ran 10 ms, nothing can be told. */
START_TEST(test_lock_that_could_not_move_is_not_judged)
{
	static const unsigned none[VCPUS] = {0, 0, 0, 0};
	for (unsigned r = 0; r < RUNS; r++) {
		set_acq(r, none);
		series.runs[r].records[2].sched.run_ns = 900000;
	}
	assert_case(judged("progress"), CHECK_SKIP, "too little CPU to tell");
}
END_TEST

/*
 * overcommit-tas at load 22: 0 stalls, seconds of run delay. A stall needs
 * a waiter that outwaits a preempted holder and then gets the lock inside
 * the interval; under an unfair lock it may lose every race. Before: failed.
 */
START_TEST(test_no_stall_is_said_not_failed)
{
	teardown();
	setup_lock(PLERIG_LOCK_TAS);
	static const unsigned acq[VCPUS] = {60000, 0, 120000, 37000};
	for (unsigned r = 0; r < RUNS; r++) {
		set_acq(r, acq);
		for (unsigned i = 0; i < VCPUS; i++)
			series.runs[r].records[i].guest.stalls = 0;
		series.runs[r].records[0].guest.holder_preemptions = 2;
	}
	assert_case(judged("stalls"), CHECK_SKIP,
		    "0 stalls in 6 runs with 6720.0 ms of run delay and 12 lock-holder "
		    "preemptions");
	/* the unfair lock as a whole moved: progress holds */
	ck_assert_int_eq(judged("progress")->outcome, CHECK_PASS);
}
END_TEST

START_TEST(test_stalls_pass)
{
	static const unsigned acq[VCPUS] = {2, 1, 3, 2};
	for (unsigned r = 0; r < RUNS; r++)
		set_acq(r, acq);
	assert_case(judged("stalls"), CHECK_PASS, "held in 6 runs");
}
END_TEST

/* Over-committed vCPUs that ran and never waited for a CPU: the placement is wrong. */
START_TEST(test_no_run_delay_fails)
{
	static const unsigned acq[VCPUS] = {2, 1, 3, 2};
	for (unsigned r = 0; r < RUNS; r++) {
		set_acq(r, acq);
		for (unsigned i = 0; i < VCPUS; i++)
			series.runs[r].records[i].sched.wait_ns = 0;
	}
	assert_case(judged("stalls"), CHECK_FAIL, "no run delay in 6 runs");
}
END_TEST

static Suite *check_expect_suite(void)
{
	Suite *s = suite_create("check_expect");
	TCase *t = tcase_create("check_expect");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_slow_fair_queue_is_not_a_starved_vcpu);
	tcase_add_test(t, test_vcpu_kept_off_its_cpu_is_not_judged);
	tcase_add_test(t, test_vcpu_that_never_got_a_fair_lock_fails);
	tcase_add_test(t, test_stuck_lock_fails);
	tcase_add_test(t, test_stuck_lock_fails_by_measured_ones);
	tcase_add_test(t, test_slow_queue_with_no_measured_acquisition_moved);
	tcase_add_test(t, test_lock_that_could_not_move_is_not_judged);
	tcase_add_test(t, test_no_stall_is_said_not_failed);
	tcase_add_test(t, test_stalls_pass);
	tcase_add_test(t, test_no_run_delay_fails);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(check_expect_suite)
