// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests on real VMs (/dev/kvm): the storm makes progress in
 * every variant, over-commit shows up as stalls and run-queue delay, and
 * failures (guest exception, hung guest) are reported and cleaned up.
 * Assertions are on the physics, with generous margins, never on timings.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/results.h"
#include "support/proc_self.h"
#include "backends/kvm/kvm_backend.h"
#include "measure/kvm_system.h"
#include "measure/hist_stats.h"
#include "support/check_main.h"

/* pause, nop, rep-pause, none: the relax kinds that run at any ring on any KVM */
#define PLAIN_RELAXES PLERIG_RELAX_PV_YIELD

static struct backend *backend;
static unsigned cpus[2];
static unsigned nr_cpus;

/* fds and threads of this process, to prove a run leaves none behind */
static unsigned fds_before, threads_before;

static void open_backend(void)
{
	char err[512];
	const char *guest = getenv("PLERIG_GUEST");
	ck_assert_msg(guest, "PLERIG_GUEST must name the guest image");
	backend = kvm_backend_open(guest, err, sizeof(err));
	ck_assert_msg(backend, "%s", err);
	nr_cpus = first_cpus(cpus, 2);
	fds_before = count_entries("/proc/self/fd");
	threads_before = count_entries("/proc/self/task");
}

static void close_backend(void)
{
	backend->close(backend);
}

static struct variant base_variant(unsigned vcpus, enum plerig_lock_kind lock,
				   enum plerig_relax_kind relax)
{
	struct variant v = {
	    .backend = BACKEND_KVM,
	    .lock = lock,
	    .relax = relax,
	    .ring = backend->default_ring,
	    .vms = 1,
	    .vcpus = vcpus,
	    .nr_pcpus = nr_cpus,
	    .pin_each = 1,
	    .cs_cycles = 100,
	    .think_cycles = 100,
	    .stall_us = 50,
	    .warmup_s = 0.05,
	    .duration_s = 0.25,
	    .timeout_s = 10,
	};
	memcpy(v.pcpus, cpus, sizeof(cpus));
	return v;
}

static void run_checked(const struct variant *v, struct variant_result *r, bool expect_ok)
{
	int rc = backend->run(backend, v, r);
	if (expect_ok)
		ck_assert_msg(rc == 0 && r->ok, "run failed: %s", r->error);
	else
		ck_assert_msg(rc != 0 && !r->ok, "run should have failed");
	ck_assert_uint_eq(count_entries("/proc/self/fd"), fds_before);
	ck_assert_uint_eq(count_entries("/proc/self/task"), threads_before);
}

START_TEST(every_vcpu_progresses_in_every_variant)
{
	const enum plerig_lock_kind lock = (enum plerig_lock_kind)(_i / PLAIN_RELAXES);
	const enum plerig_relax_kind relax = (enum plerig_relax_kind)(_i % PLAIN_RELAXES);
	struct variant v = base_variant(2, lock, relax);
	struct variant_result r;
	run_checked(&v, &r, true);
	ck_assert_uint_eq(r.nr_records, 2);
	uint64_t total = 0;
	for (unsigned i = 0; i < r.nr_records; i++) {
		const struct plerig_vcpu_result *g = &r.records[i].guest;
		ck_assert_msg(g->acquisitions > 0, "%s/%s vCPU %u made no progress",
			      lock_name(lock), relax_name(relax), i);
		ck_assert_uint_eq(hist_total(g->hist_wait, PLERIG_HIST_BUCKETS), g->acquisitions);
		ck_assert_uint_eq(hist_total(g->hist_hold, PLERIG_HIST_BUCKETS), g->acquisitions);
		ck_assert_uint_eq(g->state, PLERIG_VCPU_DONE);
		total += g->acquisitions + g->unmeasured_acquisitions;
	}
	/* the lock excluded: its non-atomic counter saw every acquisition */
	ck_assert_uint_eq(r.protected_counter[0], total);
	variant_result_free(&r);
}
END_TEST

START_TEST(overcommit_on_one_cpu_shows_stalls_and_run_delay)
{
	struct variant v = base_variant(4, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.nr_pcpus = 1;
	v.duration_s = 1.0;
	struct variant_result r;
	run_checked(&v, &r, true);
	struct figures f;
	figures_for_variant(&r, &f);
	ck_assert_msg(f.stalls > 0, "4 vCPUs on one CPU with a ticket lock: expected stalls");
	ck_assert_msg(f.stalled_share > 0.01, "stalled share %.4f", f.stalled_share);
	for (unsigned i = 0; i < r.nr_records; i++)
		ck_assert_msg(r.records[i].sched.wait_ns > 0, "vCPU %u never waited for its CPU",
			      i);
	/*
	 * On one CPU the holder runs only while the waiter does not: (nearly)
	 * every stall saw the waiter's own steal time grow.
	 */
	if (r.steal_time)
		ck_assert_msg(f.stalls_self_preempted * 10 >= f.stalls * 9,
			      "%llu of %llu stalls with the waiter preempted",
			      (unsigned long long)f.stalls_self_preempted,
			      (unsigned long long)f.stalls);
	variant_result_free(&r);
}
END_TEST

START_TEST(single_vcpu_never_stalls)
{
	struct variant v = base_variant(1, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.nr_pcpus = 1;
	v.duration_s = 0.5;
	struct variant_result r;
	run_checked(&v, &r, true);
	ck_assert_uint_gt(r.records[0].guest.acquisitions, 0);
	ck_assert_uint_eq(r.records[0].guest.stalls, 0);
	variant_result_free(&r);
}
END_TEST

START_TEST(several_vms_run_side_by_side)
{
	struct variant v = base_variant(2, PLERIG_LOCK_MCS, PLERIG_RELAX_PAUSE);
	v.vms = 2;
	struct variant_result r;
	run_checked(&v, &r, true);
	ck_assert_uint_eq(r.nr_records, 4);
	for (unsigned i = 0; i < r.nr_records; i++) {
		ck_assert_uint_eq(r.records[i].vm, i / 2);
		ck_assert_uint_gt(r.records[i].guest.acquisitions, 0);
	}
	variant_result_free(&r);
}
END_TEST

START_TEST(storm_runs_at_guest_ring_0)
{
	struct variant v = base_variant(2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.ring = PLERIG_RING_KERNEL;
	struct variant_result r;
	run_checked(&v, &r, true);
	for (unsigned i = 0; i < r.nr_records; i++)
		ck_assert_uint_gt(r.records[i].guest.acquisitions, 0);
	variant_result_free(&r);
}
END_TEST

START_TEST(pause_exits_can_be_disabled_per_vm)
{
	struct variant v = base_variant(2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.ple = PLE_OFF;
	struct variant_result r;
	run_checked(&v, &r, true);
	for (unsigned i = 0; i < r.nr_records; i++)
		ck_assert_uint_gt(r.records[i].guest.acquisitions, 0);
	variant_result_free(&r);
}
END_TEST

/* The count is exact where the host has PLE, and absent with its reason where not. */
START_TEST(pause_loop_exits_are_counted_or_explained)
{
	struct variant v = base_variant(2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	struct variant_result r;
	run_checked(&v, &r, true);
	struct figures f;
	figures_for_variant(&r, &f);
	if (!strcmp(kvm_detect_module(), "kvm_pvm")) {
		ck_assert(!f.pause_loop_exits_valid);
		ck_assert_msg(strstr(r.ple_why, "kvm_pvm"), "reason: '%s'", r.ple_why);
	} else {
		ck_assert_msg(f.pause_loop_exits_valid || r.ple_why[0], "neither count nor reason");
	}
	variant_result_free(&r);
}
END_TEST

START_TEST(pv_yield_is_refused_where_it_cannot_work)
{
	struct variant v = base_variant(2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PV_YIELD);
	struct variant_result r;
	v.ring = PLERIG_RING_USER;
	run_checked(&v, &r, false);
	ck_assert_msg(strstr(r.error, "--ring kernel"), "error: %s", r.error);
	variant_result_free(&r);
}
END_TEST

START_TEST(guest_exception_is_reported)
{
	struct variant v = base_variant(2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.inject = PLERIG_INJECT_FAULT;
	struct variant_result r;
	run_checked(&v, &r, false);
	ck_assert_msg(strstr(r.error, "#UD (vector 6)"), "error was: %s", r.error);
	ck_assert_msg(strstr(r.error, "at rip 0x"), "error was: %s", r.error);
	variant_result_free(&r);
}
END_TEST

START_TEST(hung_guest_is_stopped_by_the_watchdog)
{
	struct variant v = base_variant(2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.inject = PLERIG_INJECT_HANG;
	v.timeout_s = 0.5;
	struct variant_result r;
	run_checked(&v, &r, false);
	ck_assert_msg(strstr(r.error, "watchdog") && strstr(r.error, "did not stop"),
		      "error was: %s", r.error);
	variant_result_free(&r);
}
END_TEST

int main(void)
{
	if (access(kvm_device_path(), R_OK | W_OK) != 0)
		return check_skip("%s is not usable here: no KVM, nothing to boot",
				  kvm_device_path());
	Suite *s = suite_create("kvm storm");
	TCase *tc = tcase_create("vm");
	tcase_add_checked_fixture(tc, open_backend, close_backend);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, every_vcpu_progresses_in_every_variant, 0,
			    PLERIG_LOCK_COUNT * PLAIN_RELAXES);
	tcase_add_test(tc, overcommit_on_one_cpu_shows_stalls_and_run_delay);
	tcase_add_test(tc, single_vcpu_never_stalls);
	tcase_add_test(tc, several_vms_run_side_by_side);
	tcase_add_test(tc, storm_runs_at_guest_ring_0);
	tcase_add_test(tc, pause_exits_can_be_disabled_per_vm);
	tcase_add_test(tc, pause_loop_exits_are_counted_or_explained);
	tcase_add_test(tc, pv_yield_is_refused_where_it_cannot_work);
	tcase_add_test(tc, guest_exception_is_reported);
	tcase_add_test(tc, hung_guest_is_stopped_by_the_watchdog);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NOFORK);
}
