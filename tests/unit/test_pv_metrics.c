// SPDX-License-Identifier: GPL-2.0
/*
 * The halt-and-kick path as metrics (model/metrics.c): kick-to-running
 * latency p50 and p99 (lower is better), the guest's halts, KVM's halt
 * exits, wake-ups and successful halt polls per acquisition (either way),
 * from a run's figures,
 * and n/a with the reason where a run has none, never 0. At
 * FIXTURE_TSC_KHZ one cycle is one ns, and a latency under 8 cycles has a
 * histogram bucket of its own: the percentiles are exact.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "measure/kvm_stats.h"
#include "model/metrics.h"
#include "model/outcome.h"
#include "plerig/histogram.h"
#include "support/check_main.h"
#include "support/fixtures.h"

#define VCPUS 4
#define ACQ   1000 /* per vCPU */

static struct variant_result res;

/*
 * @lock on @backend, 4 vCPUs of 1000 acquisitions each; for pvqspin each
 * halted 100 times and was kicked 90 times, 89 of them after 3 ns and one
 * after 7 ns (p50 3, p99 7 over the 360), KVM counting 101 halt exits,
 * 91 wake-ups and 85 successful halt polls where it counts.
 */
static void run_of(enum backend_kind backend, enum plerig_lock_kind lock)
{
	struct variant v = fixture_variant(backend, VCPUS, lock, PLERIG_RELAX_PAUSE);
	fixture_result(&res, &v, 1.0);
	res.pv_unhalt = lock == PLERIG_LOCK_PVQSPIN;
	for (unsigned i = 0; i < res.nr_records; i++) {
		struct vcpu_record *rec = &res.records[i];
		fixture_busy_vcpu(rec, ACQ);
		if (backend != BACKEND_NATIVE) {
			rec->kvm.valid[KVM_STAT_HALT_EXITS] = true;
			rec->kvm.valid[KVM_STAT_HALT_WAKEUP] = true;
			rec->kvm.valid[KVM_STAT_HALT_SUCCESSFUL_POLL] = true;
			rec->kvm.value[KVM_STAT_HALT_EXITS] = res.pv_unhalt ? 101 : 0;
			rec->kvm.value[KVM_STAT_HALT_WAKEUP] = res.pv_unhalt ? 91 : 0;
			rec->kvm.value[KVM_STAT_HALT_SUCCESSFUL_POLL] = res.pv_unhalt ? 85 : 0;
		}
		if (!res.pv_unhalt)
			continue;
		rec->guest.pv.halts = 100;
		rec->guest.pv.kicks_sent = rec->guest.pv.kicks_received = 90;
		rec->guest.hist_kick[plerig_hist_bucket(3)] = 89;
		rec->guest.hist_kick[plerig_hist_bucket(7)] = 1;
		rec->guest.kick_latency_max_cycles = 7;
	}
}

static void teardown(void)
{
	variant_result_free(&res);
}

static double value(const char *name, const char **why)
{
	const struct metric *m = metric_by_name(name);
	struct figures f;
	ck_assert_msg(m, "no metric %s", name);
	figures_for_variant(&res, &f);
	double v = m->get(&f);
	*why = isnan(v) ? metric_why(m, &f) : NULL;
	return v;
}

/* @name is n/a for @reason (NULL: whatever the reason). */
static void assert_na(const char *name, const char *reason)
{
	const char *why;
	ck_assert_msg(isnan(value(name, &why)), "%s has a value", name);
	ck_assert_ptr_nonnull(why);
	if (reason)
		ck_assert_str_eq(why, reason);
}

/* Each of @names n/a for @reason. */
static void assert_all_na(const char *const *names, unsigned n, const char *reason)
{
	for (unsigned i = 0; i < n; i++)
		assert_na(names[i], reason);
}

START_TEST(the_halt_path_is_judged_with_its_direction)
{
	static const struct {
		const char *name;
		int better;
	} want[] = {
	    {"kick_latency_p50_ns", -1}, {"kick_latency_p99_ns", -1}, {"halts_per_acq", 0},
	    {"halt_exits_per_acq", 0},	 {"halt_wakeups_per_acq", 0}, {"halt_polls_per_acq", 0},
	};
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct metric *m = metric_by_name(want[i].name);
		ck_assert_msg(m, "no metric %s", want[i].name);
		ck_assert_int_eq(m->better, want[i].better);
		ck_assert_str_eq(metric_better_name(m), want[i].better ? "lower" : "either");
		/* a results file holds them in its summary's halt_path (model/metrics.h) */
		ck_assert_ptr_nonnull(m->num);
		ck_assert_msg(!strncmp(m->num, "halt_path.", 10), "%s", m->num);
		ck_assert_msg(!strncmp(m->why_key, "halt_path.", 10), "%s", m->why_key);
	}
}
END_TEST

START_TEST(pvqspin_has_every_figure)
{
	const char *why;
	run_of(BACKEND_KVM, PLERIG_LOCK_PVQSPIN);
	ck_assert_double_eq_tol(value("kick_latency_p50_ns", &why), 3.0, 1e-9);
	ck_assert_ptr_null(why);
	ck_assert_double_eq_tol(value("kick_latency_p99_ns", &why), 7.0, 1e-9);
	ck_assert_double_eq_tol(value("halts_per_acq", &why), 0.1, 1e-12);
	ck_assert_double_eq_tol(value("halt_exits_per_acq", &why), 0.101, 1e-12);
	ck_assert_double_eq_tol(value("halt_wakeups_per_acq", &why), 0.091, 1e-12);
	ck_assert_ptr_null(why);
	/* KVM's successful polls: the wake-ups halt polling caught before the thread slept */
	ck_assert_double_eq_tol(value("halt_polls_per_acq", &why), 0.085, 1e-12);
	ck_assert_ptr_null(why);
}
END_TEST

START_TEST(the_ticket_lock_has_no_halt_path_but_kvm_counts)
{
	const char *why;
	run_of(BACKEND_KVM, PLERIG_LOCK_TICKET);
	assert_na("kick_latency_p50_ns", "only lock pvqspin halts");
	assert_na("kick_latency_p99_ns", NULL);
	assert_na("halts_per_acq", "only lock pvqspin halts");
	/* KVM's stats are the VM's whatever the lock: counted, and 0 is a count here */
	ck_assert_double_eq(value("halt_exits_per_acq", &why), 0.0);
	ck_assert_double_eq(value("halt_wakeups_per_acq", &why), 0.0);
	ck_assert_double_eq(value("halt_polls_per_acq", &why), 0.0);
}
END_TEST

START_TEST(native_has_no_kvm_halt_stats)
{
	const char *why;
	run_of(BACKEND_NATIVE, PLERIG_LOCK_PVQSPIN);
	ck_assert_double_eq_tol(value("halts_per_acq", &why), 0.1, 1e-12);
	static const char *const kvm_stats[] = {"halt_exits_per_acq", "halt_wakeups_per_acq",
						"halt_polls_per_acq"};
	assert_all_na(kvm_stats, 3, "no VM: no KVM halt stats");
}
END_TEST

/* One vCPU without the stat: no count at all, not a smaller one. */
START_TEST(a_stat_one_vcpu_lacks_is_na)
{
	const char *why;
	run_of(BACKEND_KVM, PLERIG_LOCK_PVQSPIN);
	res.records[2].kvm.valid[KVM_STAT_HALT_WAKEUP] = false;
	assert_na("halt_wakeups_per_acq",
		  "not among this host's KVM binary stats (KVM_GET_STATS_FD)");
	ck_assert_double_eq_tol(value("halt_exits_per_acq", &why), 0.101, 1e-12);
	res.records[1].kvm.valid[KVM_STAT_HALT_SUCCESSFUL_POLL] = false;
	assert_na("halt_polls_per_acq",
		  "not among this host's KVM binary stats (KVM_GET_STATS_FD)");
}
END_TEST

START_TEST(no_kick_no_latency_and_no_acquisition_no_ratio)
{
	run_of(BACKEND_KVM, PLERIG_LOCK_PVQSPIN);
	for (unsigned i = 0; i < res.nr_records; i++) {
		memset(res.records[i].guest.hist_kick, 0, sizeof(res.records[i].guest.hist_kick));
		res.records[i].guest.acquisitions = 0;
	}
	assert_na("kick_latency_p50_ns", "no kick received: no latency to time");
	assert_na("halts_per_acq", NULL);
	assert_na("halt_exits_per_acq", NULL);
	res.tsc_khz = 0;
	assert_na("kick_latency_p99_ns", "no TSC rate: the run ended before it was calibrated");
}
END_TEST

/* pvqspin that ran as test-and-set (no PV_UNHALT): n/a with the run's own reason. */
START_TEST(pvqspin_without_unhalt_says_why)
{
	static const char *const halt_path[] = {"kick_latency_p50_ns", "halts_per_acq"};
	run_of(BACKEND_KVM, PLERIG_LOCK_PVQSPIN);
	res.pv_unhalt = false;
	strcpy(res.pv_why, "no PV_UNHALT in KVM's CPUID: ran as test-and-set");
	assert_all_na(halt_path, 2, "no PV_UNHALT in KVM's CPUID: ran as test-and-set");
}
END_TEST

/*
 * PAUSE-loop exits per second of the interval (the over-committed ticket
 * lock's judged figure): the count over the interval, whatever the
 * acquisitions, either way; n/a with the count's reason, or without an
 * interval.
 */
START_TEST(ple_exits_per_second_is_the_count_over_the_interval)
{
	const char *why;
	const struct metric *m = metric_by_name("ple_exits_per_s");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->better, 0);
	run_of(BACKEND_KVM, PLERIG_LOCK_TICKET);
	res.interval_s = 0.5;
	for (unsigned i = 0; i < res.nr_records; i++) {
		res.records[i].ple.pause_exits_valid = true;
		res.records[i].ple.pause_exits = 1000 + i; /* 4006 in all */
	}
	ck_assert_double_eq_tol(value("ple_exits_per_s", &why), 8012.0, 1e-9);
	ck_assert_ptr_null(why);
	/* half as many acquisitions: per acquisition doubles, per second holds */
	const double per_acq = value("ple_exits_per_acq", &why);
	for (unsigned i = 0; i < res.nr_records; i++)
		res.records[i].guest.acquisitions /= 2;
	ck_assert_double_eq_tol(value("ple_exits_per_acq", &why), 2 * per_acq, 1e-9);
	ck_assert_double_eq_tol(value("ple_exits_per_s", &why), 8012.0, 1e-9);
	/* one vCPU not counted: no count, with the run's reason */
	res.records[1].ple.pause_exits_valid = false;
	strcpy(res.ple_why, "kvm:kvm_exit not traceable here");
	assert_na("ple_exits_per_s", "kvm:kvm_exit not traceable here");
	res.records[1].ple.pause_exits_valid = true;
	res.interval_s = 0.0;
	assert_na("ple_exits_per_s", "no measured interval");
}
END_TEST

/* What check says of a figure a variant lacks: the reason of its first run without it. */
START_TEST(a_series_says_why_it_has_no_value)
{
	struct series s;
	double v[2];
	struct variant var = fixture_variant(BACKEND_KVM, VCPUS, PLERIG_LOCK_TICKET, 0);
	fixture_series(&s, &var, 2);
	for (unsigned r = 0; r < 2; r++) {
		run_of(BACKEND_KVM, PLERIG_LOCK_TICKET);
		s.runs[r] = res;
		memset(&res, 0, sizeof(res));
	}
	s.nr_runs = 2;
	const struct metric *kick = metric_by_name("kick_latency_p50_ns");
	const struct metric *acq = metric_by_name("acq_per_s");
	ck_assert_uint_eq(series_values(&s, kick, v), 0);
	ck_assert_str_eq(series_metric_why(&s, kick), "only lock pvqspin halts");
	ck_assert_uint_eq(series_values(&s, acq, v), 2);
	ck_assert_ptr_null(series_metric_why(&s, acq));
	series_free(&s);
}
END_TEST

static Suite *pv_metrics_suite(void)
{
	Suite *s = suite_create("pv_metrics");
	TCase *t = tcase_create("halt path");
	tcase_add_checked_fixture(t, NULL, teardown);
	tcase_add_test(t, the_halt_path_is_judged_with_its_direction);
	tcase_add_test(t, pvqspin_has_every_figure);
	tcase_add_test(t, the_ticket_lock_has_no_halt_path_but_kvm_counts);
	tcase_add_test(t, native_has_no_kvm_halt_stats);
	tcase_add_test(t, a_stat_one_vcpu_lacks_is_na);
	tcase_add_test(t, no_kick_no_latency_and_no_acquisition_no_ratio);
	tcase_add_test(t, pvqspin_without_unhalt_says_why);
	tcase_add_test(t, ple_exits_per_second_is_the_count_over_the_interval);
	tcase_add_test(t, a_series_says_why_it_has_no_value);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(pv_metrics_suite)
