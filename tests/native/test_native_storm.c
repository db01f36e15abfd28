// SPDX-License-Identifier: GPL-2.0
/*
 * The storm on host threads (the native baseline): the same lock and relax
 * code as in the guest, so every lock must exclude and every thread make
 * progress here too; runs without KVM.
 */
#include <check.h>
#include <string.h>

#include "model/results.h"
#include "support/proc_self.h"
#include "backends/native/native_backend.h"
#include "support/check_main.h"

static struct backend *backend;
static unsigned cpus[2], nr_cpus;

static void setup(void)
{
	char err[256];
	backend = native_backend_open(err, sizeof(err));
	ck_assert_msg(backend, "%s", err);
	nr_cpus = first_cpus(cpus, 2);
}

static void teardown(void)
{
	backend->close(backend);
}

static struct variant variant(enum plerig_lock_kind lock, enum plerig_relax_kind relax)
{
	struct variant v = {
	    .backend = BACKEND_NATIVE,
	    .lock = lock,
	    .relax = relax,
	    .ring = PLERIG_RING_USER,
	    .vms = 2,
	    .vcpus = 2,
	    .nr_pcpus = nr_cpus,
	    .pin_each = 1,
	    .cs_cycles = 100,
	    .think_cycles = 100,
	    .stall_us = 50,
	    .warmup_s = 0.02,
	    .duration_s = 0.1,
	    .timeout_s = 10,
	    .pv_yield_spins = 64,
	};
	memcpy(v.pcpus, cpus, sizeof(cpus));
	return v;
}

START_TEST(every_thread_progresses_and_every_lock_excludes)
{
	const enum plerig_lock_kind lock = (enum plerig_lock_kind)(_i / PLERIG_RELAX_COUNT);
	const enum plerig_relax_kind relax = (enum plerig_relax_kind)(_i % PLERIG_RELAX_COUNT);
	const unsigned threads_before = count_entries("/proc/self/task");
	struct variant v = variant(lock, relax);
	struct variant_result r;
	ck_assert_msg(backend->run(backend, &v, &r) == 0 && r.ok, "%s/%s: %s", lock_name(lock),
		      relax_name(relax), r.error);
	ck_assert_uint_eq(r.nr_records, 4);
	for (unsigned vm = 0; vm < 2; vm++) {
		uint64_t sum = 0;
		for (unsigned i = 0; i < 2; i++) {
			const struct plerig_vcpu_result *g = &r.records[vm * 2 + i].guest;
			ck_assert_msg(g->acquisitions > 0, "%s/%s thread %u of group %u idle",
				      lock_name(lock), relax_name(relax), i, vm);
			sum += g->acquisitions + g->unmeasured_acquisitions;
		}
		/* the backend checked it too; this test would catch the check going away */
		ck_assert_uint_eq(r.protected_counter[vm], sum);
	}
	struct figures f;
	figures_for_variant(&r, &f);
	ck_assert(!f.exits_valid);
	ck_assert(!f.pause_loop_exits_valid);
	ck_assert(r.ple_why[0]);
	variant_result_free(&r);
	ck_assert_uint_eq(count_entries("/proc/self/task"), threads_before);
}
END_TEST

START_TEST(injected_failures_are_refused)
{
	struct variant v = variant(PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
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
	tcase_add_loop_test(tc, every_thread_progresses_and_every_lock_excludes, 0,
			    PLERIG_LOCK_COUNT * PLERIG_RELAX_COUNT);
	tcase_add_test(tc, injected_failures_are_refused);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NOFORK);
}
