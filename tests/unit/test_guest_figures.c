// SPDX-License-Identifier: GPL-2.0
/*
 * The check of what a guest reports (backends/guest_figures): a good run
 * passes; each impossible figure fails it with its reason, including the
 * ones whose sums wrap to look right (--inject garbage writes those). At
 * tsc_khz = 1000000 one cycle is one ns: 2 s are 2e9 cycles.
 */
#include <check.h>
#include <string.h>

#include "backends/guest_figures.h"
#include "support/check_main.h"
#include "support/fixtures.h"

#define INTERVAL_S 2.0
#define ACQ	   1000000ull

static struct variant_result res;

/* A possible vCPU: ACQ acquisitions of 10-cycle waits and holds inside a 1.9 s window. */
static void good_vcpu(struct plerig_vcpu_result *g)
{
	g->state = PLERIG_VCPU_DONE;
	g->acquisitions = ACQ;
	g->unmeasured_acquisitions = 10;
	g->contended = ACQ / 2;
	g->wait_total_cycles = 10 * ACQ;
	g->wait_max_cycles = 5000;
	g->stalls = 3;
	g->stalled_cycles = 4000;
	g->stalls_self_preempted = 1;
	g->hold_total_cycles = 10 * ACQ;
	g->hold_max_cycles = 900;
	g->holder_preemptions = 2;
	g->preempted_hold_cycles = 1000;
	g->measure_start_tsc = 5000;
	g->measure_end_tsc = 5000 + 1900000000ull;
	g->hist_wait[3] = ACQ - 4;
	g->hist_wait[60] = 4;
	g->hist_hold[3] = ACQ;
}

static void setup(void)
{
	struct variant v = fixture_variant(BACKEND_KVM, 2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.vms = 2;
	fixture_result(&res, &v, INTERVAL_S);
	for (unsigned i = 0; i < res.nr_records; i++)
		good_vcpu(&res.records[i].guest);
	res.protected_counter[0] = res.protected_counter[1] = 2 * (ACQ + 10);
}

static void teardown(void)
{
	variant_result_free(&res);
}

static void assert_fails(const char *reason)
{
	ck_assert_int_eq(run_check_guest_figures(&res), -1);
	ck_assert(!res.ok);
	ck_assert_msg(strstr(res.error, reason), "error \"%s\" lacks \"%s\"", res.error, reason);
}

START_TEST(test_good_run_passes)
{
	ck_assert_int_eq(run_check_guest_figures(&res), 0);
	ck_assert(res.ok);
}
END_TEST

START_TEST(test_state_other_than_done)
{
	res.records[3].guest.state = PLERIG_VCPU_RUNNING;
	assert_fails("VM 1 vCPU 1: guest reported impossible figures: state RUNNING (2)");
	res.ok = true, res.error[0] = 0;
	res.records[3].guest.state = 77;
	assert_fails("state ? (77)");
}
END_TEST

/* What --inject garbage writes: the exclusion check alone would pass through the wrap. */
START_TEST(test_wrapping_acquisitions)
{
	for (unsigned g = 0; g < 2; g++) {
		res.records[g].guest.acquisitions += 1ull << 63;
		res.records[g].guest.unmeasured_acquisitions += 1ull << 63;
	}
	assert_fails("VM 0 vCPU 0: guest reported impossible figures: acquisitions");
	ck_assert_ptr_nonnull(strstr(res.error, "2^64"));
}
END_TEST

START_TEST(test_acquisitions_wrap_across_vcpus)
{
	/* each vCPU alone adds up; the VM's sum wraps to the counter */
	res.records[0].guest.acquisitions = 1ull << 63;
	res.records[0].guest.unmeasured_acquisitions = 0;
	res.records[1].guest.acquisitions = 1ull << 63;
	res.records[1].guest.unmeasured_acquisitions = 0;
	res.protected_counter[0] = 0;
	ck_assert_int_eq(run_check_guest_figures(&res), -1);
	ck_assert(!res.ok);
}
END_TEST

START_TEST(test_histogram_near_2_64)
{
	res.records[1].guest.hist_wait[PLERIG_HIST_BUCKETS - 1] = ~0ull - 10;
	assert_fails("wait histogram's buckets add up to more than 2^64");
}
END_TEST

START_TEST(test_histogram_disagrees_with_count)
{
	res.records[2].guest.hist_hold[4] = 1;
	assert_fails("hold histogram holds 1000001 values for 1000000 acquisitions");
}
END_TEST

START_TEST(test_stalled_over_the_interval)
{
	/* 2^63 stalled cycles: "8009885076492 %" stalled before this check */
	struct plerig_vcpu_result *g = &res.records[0].guest;
	g->stalled_cycles = g->wait_total_cycles = 3000000000ull;
	g->measure_end_tsc = g->measure_start_tsc + 3500000000ull;
	assert_fails("longer than the 2.000 s interval allows");
	/* within the window, a share over 100 %: the window itself is bounded */
	g->measure_end_tsc = g->measure_start_tsc + 3100000000ull;
	res.ok = true, res.error[0] = 0;
	assert_fails("interval allows");
}
END_TEST

/* A busy host flips STOP late: the guests measured longer than the interval, and may. */
START_TEST(test_late_stop_flip)
{
	struct plerig_vcpu_result *g = &res.records[0].guest;
	g->stalled_cycles = g->wait_total_cycles = 2200000000ull;
	g->measure_end_tsc = g->measure_start_tsc + 2300000000ull;
	assert_fails("interval allows");
	res.ok = true, res.error[0] = 0;
	res.window_s = 2.3;
	ck_assert_int_eq(run_check_guest_figures(&res), 0);
}
END_TEST

START_TEST(test_more_acquisitions_than_cycles)
{
	struct plerig_vcpu_result *g = &res.records[1].guest;
	g->acquisitions = 3000000000ull;
	g->contended = 0;
	g->stalls = g->stalls_self_preempted = 0;
	g->hist_wait[3] = g->acquisitions - 4;
	g->hist_hold[3] = g->acquisitions;
	g->wait_total_cycles = g->hold_total_cycles = 10000;
	g->stalled_cycles = 4000;
	g->preempted_hold_cycles = 1000;
	res.protected_counter[0] += g->acquisitions - ACQ;
	assert_fails("3000000000 acquisitions, more than the 20");
}
END_TEST

START_TEST(test_counts_that_do_not_nest)
{
	res.records[0].guest.stalls = ACQ;
	assert_fails("more stalls (1000000) than contended acquisitions (500000)");
	res.ok = true, res.error[0] = 0;
	res.records[0].guest.stalls = 3;
	res.records[1].guest.stalled_cycles = 20 * ACQ;
	assert_fails("more stalled cycles");
}
END_TEST

START_TEST(test_lock_did_not_exclude)
{
	res.protected_counter[1] -= 1;
	assert_fails("VM 1: the lock did not exclude: 2000020 acquisitions but the protected "
		     "counter reads 2000019");
}
END_TEST

static Suite *guest_figures_suite(void)
{
	Suite *s = suite_create("guest_figures");
	TCase *tc = tcase_create("untrusted");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_good_run_passes);
	tcase_add_test(tc, test_state_other_than_done);
	tcase_add_test(tc, test_wrapping_acquisitions);
	tcase_add_test(tc, test_acquisitions_wrap_across_vcpus);
	tcase_add_test(tc, test_histogram_near_2_64);
	tcase_add_test(tc, test_histogram_disagrees_with_count);
	tcase_add_test(tc, test_stalled_over_the_interval);
	tcase_add_test(tc, test_late_stop_flip);
	tcase_add_test(tc, test_more_acquisitions_than_cycles);
	tcase_add_test(tc, test_counts_that_do_not_nest);
	tcase_add_test(tc, test_lock_did_not_exclude);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(guest_figures_suite)
