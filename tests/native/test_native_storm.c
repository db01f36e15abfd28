// SPDX-License-Identifier: GPL-2.0
/*
 * The storm on host threads (the native baseline): the same lock and relax
 * code as in the guest; runs without KVM. Every lock must exclude and make
 * progress as a whole, even over-committed on a busy machine; each thread
 * must make progress only where the lock is fair (FIFO: ticket, MCS) and
 * no two threads share a CPU. An unfair lock (TAS) may starve a thread,
 * and an over-committed thread may lose its CPU for a long while: neither
 * is a bug. Nothing here depends on how fast the machine is.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "backends/native/native_backend.h"
#include "model/results.h"
#include "support/check_main.h"
#include "support/fixtures.h"
#include "support/proc_self.h"
#include "support/starvation.h"

#define MAX_CPUS 2

static struct backend *backend;
static unsigned cpus[MAX_CPUS], nr_cpus;
static unsigned threads_before;

static void setup(void)
{
	char err[256];
	backend = native_backend_open(err, sizeof(err));
	ck_assert_msg(backend, "%s", err);
	nr_cpus = first_cpus(cpus, MAX_CPUS);
	threads_before = count_entries("/proc/self/task");
}

static void teardown(void)
{
	backend->close(backend);
}

/* @vms groups of @threads each, thread i of a group on CPU i (wrapping). */
static struct variant variant(enum plerig_lock_kind lock, enum plerig_relax_kind relax,
			      unsigned vms, unsigned threads)
{
	struct variant v = fixture_variant(BACKEND_NATIVE, threads, lock, relax);
	v.ring = PLERIG_RING_USER;
	v.vms = vms;
	v.think_cycles = 100;
	v.warmup_s = 0.05;
	/* hundreds of scheduler ticks: room for every thread to run (nothing here is a figure) */
	v.duration_s = 0.25;
	v.timeout_s = 30;
	v.pv_yield_spins = 64;
	fixture_pin(&v, cpus, nr_cpus);
	return v;
}

/* Runs @v; checks each group's lock excluded and made progress, and no thread is left. */
static void run_and_check_groups(const struct variant *v, struct variant_result *r)
{
	ck_assert_msg(backend->run(backend, v, r) == 0 && r->ok, "%s/%s: %s", lock_name(v->lock),
		      relax_name(v->relax), r->error);
	ck_assert_uint_eq(r->nr_records, v->vms * v->vcpus);
	for (unsigned vm = 0; vm < v->vms; vm++) {
		uint64_t sum = 0;
		for (unsigned i = 0; i < v->vcpus; i++)
			sum += unit_progress(&r->records[vm * v->vcpus + i].guest);
		ck_assert_msg(sum > 0, "%s/%s: the lock of group %u made no progress",
			      lock_name(v->lock), relax_name(v->relax), vm);
		/* the backend checked it too; this test would catch the check going away */
		ck_assert_msg(r->protected_counter[vm] == sum,
			      "%s/%s group %u: %llu acquisitions, protected counter %llu: the lock "
			      "let two in",
			      lock_name(v->lock), relax_name(v->relax), vm, (unsigned long long)sum,
			      (unsigned long long)r->protected_counter[vm]);
		/* read around the interval: every measured acquisition, not more than all */
		uint64_t measured = 0;
		for (unsigned i = 0; i < v->vcpus; i++)
			measured += r->records[vm * v->vcpus + i].guest.acquisitions;
		ck_assert_ptr_nonnull(r->window_acquisitions);
		ck_assert_msg(r->window_acquisitions[vm] >= measured &&
				  r->window_acquisitions[vm] <= sum,
			      "%s/%s group %u: %llu acquisitions between the run-time readings, "
			      "%llu measured, %llu in all",
			      lock_name(v->lock), relax_name(v->relax), vm,
			      (unsigned long long)r->window_acquisitions[vm],
			      (unsigned long long)measured, (unsigned long long)sum);
	}
	ck_assert_uint_eq(threads_after_join(threads_before), threads_before);
}

/* Two groups of two threads on at most two CPUs: over-committed. */
START_TEST(every_lock_excludes_and_progresses_over_committed)
{
	const enum plerig_lock_kind lock = (enum plerig_lock_kind)(_i / PLERIG_RELAX_COUNT);
	const enum plerig_relax_kind relax = (enum plerig_relax_kind)(_i % PLERIG_RELAX_COUNT);
	struct variant v = variant(lock, relax, 2, 2);
	v.duration_s = 0.1; /* a group progresses as a whole: any of its threads on a CPU */
	struct variant_result r;
	run_and_check_groups(&v, &r);
	struct figures f;
	figures_for_variant(&r, &f);
	ck_assert(!f.exits_valid);
	ck_assert(!f.pause_loop_exits_valid);
	ck_assert_msg(r.ple_why[0], "no PAUSE-loop exit count, and no reason given");
	variant_result_free(&r);
}
END_TEST

/* One group, one thread per CPU, a FIFO lock: no thread may starve (support/starvation.h). */
START_TEST(every_thread_of_a_fair_lock_progresses_with_a_cpu_each)
{
	static const enum plerig_lock_kind fair[] = {PLERIG_LOCK_TICKET, PLERIG_LOCK_MCS};
	const enum plerig_lock_kind lock = fair[_i / PLERIG_RELAX_COUNT];
	const enum plerig_relax_kind relax = (enum plerig_relax_kind)(_i % PLERIG_RELAX_COUNT);
	ck_assert(lock_is_fair(lock));
	struct variant v = variant(lock, relax, 1, nr_cpus);
	assert_fair_lock_starves_nobody(&v, run_and_check_groups);
}
END_TEST

START_TEST(injected_failures_are_refused)
{
	struct variant v = variant(PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE, 2, 2);
	struct variant_result r;
	v.inject = PLERIG_INJECT_FAULT;
	ck_assert_int_ne(backend->run(backend, &v, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.error, "--inject"));
	variant_result_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("native storm");
	TCase *tc = tcase_create("native");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, every_lock_excludes_and_progresses_over_committed, 0,
			    PLERIG_LOCK_COUNT * PLERIG_RELAX_COUNT);
	tcase_add_loop_test(tc, every_thread_of_a_fair_lock_progresses_with_a_cpu_each, 0,
			    2 * PLERIG_RELAX_COUNT);
	tcase_add_test(tc, injected_failures_are_refused);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NOFORK);
}
