// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests on real VMs (/dev/kvm): the storm makes progress in
 * every variant, over-commit shows up as stalls and run-queue delay, and
 * failures (guest exception, hung guest) are reported and cleaned up.
 * Assertions are on the physics, with generous margins, never on timings.
 */
#include <check.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backends/kvm/kvm_backend.h"
#include "measure/hist_stats.h"
#include "measure/kvm_system.h"
#include "model/results.h"
#include "support/check_main.h"
#include "support/fixtures.h"
#include "support/proc_self.h"
#include "support/starvation.h"

/* pause, nop, rep-pause, none: the relax kinds that run at any ring on any KVM */
#define PLAIN_RELAXES PLERIG_RELAX_PV_YIELD
/* ticket, tas, mcs: likewise the locks (pvqspin halts: ring 0 only) */
#define PLAIN_LOCKS PLERIG_LOCK_PVQSPIN

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
	struct variant v = fixture_variant(BACKEND_KVM, vcpus, lock, relax);
	v.ring = backend->default_ring;
	v.warmup_s = 0.05;
	v.duration_s = 0.25;
	fixture_pin(&v, cpus, nr_cpus);
	return v;
}

/* Ring 0 with more vCPUs than CPUs: where a host with PLE sees PAUSE-loop exits. */
static struct variant over_committed_ring_0(void)
{
	struct variant v = base_variant(2 * nr_cpus, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.ring = PLERIG_RING_KERNEL;
	v.duration_s = 0.5;
	return v;
}

static bool on_pvm(void)
{
	return !strcmp(kvm_detect_module(), "kvm_pvm");
}

static void run_checked(const struct variant *v, struct variant_result *r, bool expect_ok)
{
	int rc = backend->run(backend, v, r);
	if (expect_ok)
		ck_assert_msg(rc == 0 && r->ok, "run failed: %s", r->error);
	else
		ck_assert_msg(rc != 0 && !r->ok, "run should have failed");
	ck_assert_uint_eq(count_entries("/proc/self/fd"), fds_before);
	ck_assert_uint_eq(threads_after_join(threads_before), threads_before);
}

/* Runs @v: the lock excluded and made progress as a whole, every vCPU finished. */
static void run_and_check_lock(const struct variant *v, struct variant_result *r)
{
	run_checked(v, r, true);
	ck_assert_uint_eq(r->nr_records, v->vcpus);
	uint64_t total = 0;
	for (unsigned i = 0; i < r->nr_records; i++) {
		const struct plerig_vcpu_result *g = &r->records[i].guest;
		ck_assert_uint_eq(hist_total(g->hist_wait, PLERIG_HIST_BUCKETS), g->acquisitions);
		ck_assert_uint_eq(hist_total(g->hist_hold, PLERIG_HIST_BUCKETS), g->acquisitions);
		ck_assert_uint_eq(g->state, PLERIG_VCPU_DONE);
		total += unit_progress(g);
	}
	ck_assert_msg(total > 0, "%s/%s: the lock made no progress", lock_name(v->lock),
		      relax_name(v->relax));
	/* the lock excluded: its non-atomic counter saw every acquisition */
	ck_assert_uint_eq(r->protected_counter[0], total);
}

/*
 * Every lock excludes and makes progress as a whole; each vCPU must get
 * the lock only where it is fair (FIFO: ticket, MCS): TAS may starve one.
 * Progress counts the whole run, warm-up included.
 */
START_TEST(every_vcpu_progresses_in_every_variant)
{
	const enum plerig_lock_kind lock = (enum plerig_lock_kind)(_i / PLAIN_RELAXES);
	const enum plerig_relax_kind relax = (enum plerig_relax_kind)(_i % PLAIN_RELAXES);
	struct variant v = base_variant(2, lock, relax);
	if (lock_is_fair(lock)) {
		assert_fair_lock_starves_nobody(&v, run_and_check_lock);
		return;
	}
	struct variant_result r;
	run_and_check_lock(&v, &r);
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
	/* 4 vCPUs on 2 CPUs: a busy host may starve one, so each VM as a whole progresses */
	uint64_t per_vm[2] = {0, 0};
	for (unsigned i = 0; i < r.nr_records; i++) {
		ck_assert_uint_eq(r.records[i].vm, i / 2);
		per_vm[i / 2] += r.records[i].guest.acquisitions;
	}
	ck_assert_uint_gt(per_vm[0], 0);
	ck_assert_uint_gt(per_vm[1], 0);
	variant_result_free(&r);
}
END_TEST

/*
 * The guest says its ring in an exception report (the CS of the storm's
 * first instruction, where an injected fault stops it). On PVM, where
 * guest ring 0 is emulated, every vCPU's insn_emulation also grows while
 * the storm runs (it stays 0 at ring 3); on VMX and SVM ring 0 runs
 * natively, so there that count says nothing.
 */
START_TEST(storm_runs_at_guest_ring_0)
{
	struct variant v = base_variant(2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	struct variant_result r;
	v.ring = PLERIG_RING_KERNEL;
	v.inject = PLERIG_INJECT_FAULT;
	run_checked(&v, &r, false);
	ck_assert_msg(strstr(r.error, "(ring 0)"), "the storm did not start at ring 0: %s",
		      r.error);
	variant_result_free(&r);

	v.inject = PLERIG_INJECT_NONE;
	run_checked(&v, &r, true);
	ck_assert_int_eq(r.variant.ring, PLERIG_RING_KERNEL);
	uint64_t acquisitions = 0;
	for (unsigned i = 0; i < r.nr_records; i++) {
		const struct vcpu_record *rec = &r.records[i];
		acquisitions += rec->guest.acquisitions;
		ck_assert_uint_eq(rec->guest.state, PLERIG_VCPU_DONE);
		if (!on_pvm())
			continue;
		ck_assert_msg(rec->kvm.valid[KVM_STAT_INSN_EMULATION] &&
				  rec->kvm.value[KVM_STAT_INSN_EMULATION] > 0,
			      "vCPU %u: PVM emulated nothing while the storm ran at ring 0", i);
	}
	ck_assert_uint_gt(acquisitions, 0);
	if (!on_pvm())
		printf("storm_runs_at_guest_ring_0: %s runs ring 0 natively: insn_emulation not "
		       "checked\n",
		       kvm_detect_module());
	variant_result_free(&r);
}
END_TEST

/* With PAUSE interception off for the VM, a storm that would exit does not. */
START_TEST(pause_exits_can_be_disabled_per_vm)
{
	struct variant v = over_committed_ring_0();
	struct variant_result r;
	v.ple = PLE_OFF;
	run_checked(&v, &r, true);
	struct figures f;
	figures_for_variant(&r, &f);
	ck_assert_uint_gt(f.acquisitions, 0); /* over-committed: the VM as a whole */
	if (f.pause_loop_exits_valid) {
		ck_assert_msg(f.pause_loop_exits == 0, "%llu PAUSE-loop exits with PLE off",
			      (unsigned long long)f.pause_loop_exits);
		ck_assert_msg(strstr(r.ple_note, "KVM_X86_DISABLE_EXITS_PAUSE"), "note: '%s'",
			      r.ple_note);
	} else {
		ck_assert_msg(r.ple_why[0], "neither a count nor the reason there is none");
		printf("pause_exits_can_be_disabled_per_vm: 0 exits not checked: %s\n", r.ple_why);
	}
	variant_result_free(&r);
}
END_TEST

/*
 * Over-committed at ring 0 on a host with PLE, a ticket lock's waiters spin
 * far beyond the PLE window: the count is there and above 0. Elsewhere the
 * count is absent with its reason, or exact with a note of why it may be 0.
 */
START_TEST(pause_loop_exits_are_counted_or_explained)
{
	struct variant v = over_committed_ring_0();
	struct variant_result r;
	run_checked(&v, &r, true);
	ck_assert_uint_gt(v.vcpus, v.nr_pcpus);
	struct figures f;
	figures_for_variant(&r, &f);
	if (f.pause_loop_exits_valid && !r.ple_note[0]) {
		ck_assert_msg(f.pause_loop_exits > 0,
			      "%u vCPUs on %u CPUs at ring 0 with PLE on: no PAUSE-loop exit",
			      v.vcpus, v.nr_pcpus);
	} else if (f.pause_loop_exits_valid) {
		printf("pause_loop_exits_are_counted_or_explained: %llu, may be 0: %s\n",
		       (unsigned long long)f.pause_loop_exits, r.ple_note);
	} else {
		ck_assert_msg(r.ple_why[0], "neither a count nor the reason there is none");
		if (on_pvm())
			ck_assert_msg(strstr(r.ple_why, "kvm_pvm"), "reason: '%s'", r.ple_why);
		printf("pause_loop_exits_are_counted_or_explained: not counted: %s\n", r.ple_why);
	}
	variant_result_free(&r);
}
END_TEST

/* What makes hypercalls or halts (pv-yield, pvqspin) is refused at guest ring 3, with the fix. */
static const struct {
	enum plerig_lock_kind lock;
	enum plerig_relax_kind relax;
} needs_ring_0[] = {
    {PLERIG_LOCK_TICKET, PLERIG_RELAX_PV_YIELD},
    {PLERIG_LOCK_PVQSPIN, PLERIG_RELAX_PAUSE},
};

START_TEST(ring_0_variants_are_refused_at_ring_3)
{
	struct variant v = base_variant(2, needs_ring_0[_i].lock, needs_ring_0[_i].relax);
	struct variant_result r;
	v.ring = PLERIG_RING_USER;
	run_checked(&v, &r, false);
	ck_assert_msg(strstr(r.error, "--ring kernel"), "error: %s", r.error);
	variant_result_free(&r);
}
END_TEST

/*
 * Over-committed on one CPU with a spin threshold of one relax, a pvqspin
 * waiter halts at nearly every wait, and every hand-over to a halted waiter
 * is a kick. Where the kick cannot work (no KVM_FEATURE_PV_UNHALT, or PVM,
 * whose guest hypercalls never reach KVM) it runs as test-and-set and says
 * so. Either way the lock excludes and every vCPU finishes: a lost wake-up
 * would end in the watchdog.
 */
START_TEST(pvqspin_halts_and_kicks_or_says_why_not)
{
	struct variant v = base_variant(3, PLERIG_LOCK_PVQSPIN, PLERIG_RELAX_PAUSE);
	struct variant_result r;
	v.ring = PLERIG_RING_KERNEL;
	v.nr_pcpus = 1;
	v.pv_spin_threshold = 1;
	v.timeout_s = 60;
	run_and_check_lock(&v, &r);
	if (!r.pv_unhalt) {
		ck_assert_msg(strstr(r.pv_why, "test-and-set"), "reason: '%s'", r.pv_why);
		if (on_pvm())
			ck_assert_msg(strstr(r.pv_why, "kvm_pvm"), "reason: '%s'", r.pv_why);
		for (unsigned i = 0; i < r.nr_records; i++)
			ck_assert_uint_eq(r.records[i].guest.pv.halts, 0);
		printf("pvqspin_halts_and_kicks_or_says_why_not: %s\n", r.pv_why);
		variant_result_free(&r);
		return;
	}
	uint64_t halts = 0, sent = 0, received = 0, latencies = 0;
	for (unsigned i = 0; i < r.nr_records; i++) {
		const struct plerig_vcpu_result *g = &r.records[i].guest;
		halts += g->pv.halts;
		sent += g->pv.kicks_sent;
		received += g->pv.kicks_received;
		latencies += hist_total(g->hist_kick, PLERIG_HIST_BUCKETS);
		ck_assert_uint_le(g->pv.spurious_wakeups, g->pv.halts);
	}
	ck_assert_msg(halts > 0 && sent > 0, "halts %llu, kicks %llu", (unsigned long long)halts,
		      (unsigned long long)sent);
	/* the interval's edges may split a kick from its receipt: one per vCPU at most */
	ck_assert_uint_le(received, sent + r.nr_records);
	ck_assert_uint_le(latencies, received);
	variant_result_free(&r);
}
END_TEST

/* KVM_CHECK_EXTENSION on /dev/kvm: > 0 where this KVM has @cap. */
static int ioctl_check_extension(long cap)
{
	int fd = open(kvm_device_path(), O_RDWR | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "open %s", kvm_device_path());
	const int have = ioctl(fd, KVM_CHECK_EXTENSION, cap);
	close(fd);
	return have;
}

/*
 * --halt-poll sets the VM's own halt polling (KVM_CAP_HALT_POLL) where KVM
 * has it: the run works; where it has not, the run fails saying so.
 */
START_TEST(halt_poll_is_set_per_vm_or_refused)
{
	struct variant v = base_variant(2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	struct variant_result r;
	const int have = ioctl_check_extension(KVM_CAP_HALT_POLL);
	v.halt_poll_ns = 0;
	run_checked(&v, &r, have > 0);
	if (have <= 0)
		ck_assert_msg(strstr(r.error, "KVM_CAP_HALT_POLL"), "error: %s", r.error);
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
	/* with the lock as the vCPU left it: a lost wake-up would show there */
	ck_assert_msg(strstr(r.error, "ticket head"), "error was: %s", r.error);
	/* what the host did with the thread meanwhile: it ran, or it had no CPU (busy host) */
	ck_assert_msg(strstr(r.error, "its thread ") && strstr(r.error, " s since STOP"),
		      "error was: %s", r.error);
	/* and the other vCPU that did not finish: a hang is rarely one vCPU's alone */
	ck_assert_msg(strstr(r.error, "; unfinished too: VM 0 vCPU "), "error was: %s", r.error);
	variant_result_free(&r);
}
END_TEST

/* A queued lock's hang names every unfinished vCPU's node: the whole queue, not one waiter. */
START_TEST(hung_queued_lock_names_every_node)
{
	struct variant v = base_variant(3, PLERIG_LOCK_MCS, PLERIG_RELAX_PAUSE);
	v.inject = PLERIG_INJECT_HANG;
	v.timeout_s = 0.5;
	struct variant_result r;
	run_checked(&v, &r, false);
	ck_assert_msg(strstr(r.error, "queue tail link ") && strstr(r.error, "its node locked "),
		      "error was: %s", r.error);
	const char *others = strstr(r.error, "; unfinished too: ");
	ck_assert_msg(others, "error was: %s", r.error);
	unsigned nodes = 0;
	for (const char *p = others; (p = strstr(p, " next link ")); p++)
		nodes++;
	ck_assert_msg(nodes == 2, "%u other nodes named, 2 expected: %s", nodes, r.error);
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
			    PLAIN_LOCKS * PLAIN_RELAXES);
	tcase_add_test(tc, overcommit_on_one_cpu_shows_stalls_and_run_delay);
	tcase_add_test(tc, single_vcpu_never_stalls);
	tcase_add_test(tc, several_vms_run_side_by_side);
	tcase_add_test(tc, storm_runs_at_guest_ring_0);
	tcase_add_test(tc, pause_exits_can_be_disabled_per_vm);
	tcase_add_test(tc, pause_loop_exits_are_counted_or_explained);
	tcase_add_loop_test(tc, ring_0_variants_are_refused_at_ring_3, 0,
			    sizeof(needs_ring_0) / sizeof(needs_ring_0[0]));
	tcase_add_test(tc, pvqspin_halts_and_kicks_or_says_why_not);
	tcase_add_test(tc, hung_queued_lock_names_every_node);
	tcase_add_test(tc, halt_poll_is_set_per_vm_or_refused);
	tcase_add_test(tc, guest_exception_is_reported);
	tcase_add_test(tc, hung_guest_is_stopped_by_the_watchdog);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NOFORK);
}
