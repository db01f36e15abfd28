// SPDX-License-Identifier: GPL-2.0
/*
 * Figures derived from a run, and the table row that shows them. At
 * tsc_khz = 1000000 one cycle is one nanosecond, so every figure below is
 * exact; values under 8 cycles have a histogram bucket each, so the
 * percentiles are exact too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/results.h"
#include "plerig/histogram.h"
#include "output/results_table.h"
#include "support/fixtures.h"
#include "support/check_main.h"

#define INTERVAL_S 2.0

static struct variant_result res;

/*
 * vCPU 0: waits 600 x 2 ns + 400 x 6 ns, holds 100 x 3 ns;
 * vCPU 1: waits 1000 x 7 ns, holds 300 x 4 ns.
 * Merged wait p50 is 6 ns, where the mean of the per-vCPU p50s would be 4.5.
 */
static void setup(void)
{
	static const unsigned cpu[] = {0};
	struct variant v = fixture_variant(BACKEND_KVM, 2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	struct vcpu_record *rec;

	fixture_pin(&v, cpu, 1);
	fixture_result(&res, &v, INTERVAL_S);

	rec = &res.records[0];
	fixture_busy_vcpu(rec, 1000);
	rec->guest.hist_wait[plerig_hist_bucket(2)] = 600;
	rec->guest.hist_wait[plerig_hist_bucket(6)] = 400;
	rec->guest.hist_hold[plerig_hist_bucket(3)] = 100;
	rec->kvm.value[KVM_STAT_EXITS] = 1234;
	rec->kvm.valid[KVM_STAT_EXITS] = true;

	rec = &res.records[1];
	rec->guest.acquisitions = 3000;
	rec->guest.wait_total_cycles = 24000;
	rec->guest.wait_max_cycles = 1500;
	rec->guest.stalls = 5;
	rec->guest.stalled_cycles = 600000000;
	rec->guest.hold_max_cycles = 80;
	rec->guest.holder_preemptions = 4;
	rec->guest.hist_wait[plerig_hist_bucket(7)] = 1000;
	rec->guest.hist_hold[plerig_hist_bucket(4)] = 300;
	rec->sched.wait_ns = 300000000;
	rec->sched.run_ns = 1700000000;
	rec->kvm.value[KVM_STAT_EXITS] = 766;
	rec->kvm.valid[KVM_STAT_EXITS] = true;
	res.protected_counter[0] = 4000;
}

static void teardown(void)
{
	variant_result_free(&res);
}

START_TEST(test_cycles_to_ns)
{
	ck_assert_double_eq(cycles_to_ns(&res, 1234.0), 1234.0);
	res.tsc_khz = 2000000; /* 2 GHz */
	ck_assert_double_eq(cycles_to_ns(&res, 1000.0), 500.0);
	res.tsc_khz = 3000000;
	ck_assert_double_eq(cycles_to_ns(&res, 3e9), 1e9);
	/* no calibration, no time scale: no time at all (NaN), not a 0 */
	res.tsc_khz = 0;
	ck_assert(isnan(cycles_to_ns(&res, 1000.0)));
}
END_TEST

START_TEST(test_vcpu_figures)
{
	struct figures f;

	figures_for_vcpu(&res, &res.records[0], &f);
	ck_assert_uint_eq(f.acquisitions, 1000);
	ck_assert_double_eq(f.acq_per_s, 500.0);
	ck_assert_double_eq(f.wait_p50_ns, 2.0);
	ck_assert_double_eq(f.wait_p99_ns, 6.0);
	ck_assert_double_eq(f.wait_max_ns, 900.0);
	ck_assert_double_eq(f.wait_mean_ns, 4.0);
	ck_assert_double_eq(f.hold_p50_ns, 3.0);
	ck_assert_double_eq(f.hold_max_ns, 40.0);
	ck_assert_uint_eq(f.stalls, 3);
	ck_assert_double_eq(f.stalled_ns, 2e8);
	ck_assert_double_eq(f.stalled_share, 0.1);
	ck_assert_uint_eq(f.holder_preemptions, 2);
	ck_assert_double_eq(f.run_delay_ns, 5e8);
	ck_assert_double_eq(f.run_delay_share, 0.25);
	ck_assert_double_eq(f.run_time_ns, 1.5e9);
	/* 1000 acquisitions in 1.5 s of CPU received (2 s of wall time) */
	ck_assert_double_eq_tol(f.acq_per_cpu_s, 1000 / 1.5, 1e-9);
	ck_assert(f.exits_valid);
	ck_assert_uint_eq(f.exits, 1234);

	figures_for_vcpu(&res, &res.records[1], &f);
	ck_assert_double_eq(f.acq_per_s, 1500.0);
	ck_assert_double_eq(f.wait_p50_ns, 7.0);
	ck_assert_double_eq(f.wait_mean_ns, 8.0);
	ck_assert_double_eq(f.hold_p50_ns, 4.0);
	ck_assert_double_eq(f.stalled_share, 0.3);
}
END_TEST

/*
 * The schedstat snapshots lie just outside the interval (on a busy host,
 * well outside): the run-delay share is of the time runnable, not of the
 * interval, and so never passes 100 %.
 */
START_TEST(test_run_delay_share_is_of_the_time_runnable)
{
	struct figures f;
	struct vcpu_record *rec = &res.records[0];

	rec->sched.wait_ns = 2100000000; /* 2.1 s queued and 0.1 s run in a 2 s interval */
	rec->sched.run_ns = 100000000;
	figures_for_vcpu(&res, rec, &f);
	ck_assert_double_eq_tol(f.run_delay_share, 2.1 / 2.2, 1e-12);
	/* the variant: (2.1 + 0.3) s queued of (2.2 + 2.0) s runnable */
	figures_for_variant(&res, &f);
	ck_assert_double_eq_tol(f.run_delay_share, 2.4 / 4.2, 1e-12);
	/* never runnable: no share (n/a with the reason), not a 0 nor a division by zero */
	rec->sched.wait_ns = rec->sched.run_ns = 0;
	figures_for_vcpu(&res, rec, &f);
	ck_assert(isnan(f.run_delay_share));
	ck_assert_str_eq(f.share_why,
			 "the vCPU threads were never runnable in the measured interval");
	ck_assert(isnan(f.acq_per_cpu_s));
	ck_assert_ptr_nonnull(f.cpu_why);
}
END_TEST

START_TEST(test_vcpu_figures_scale_with_tsc)
{
	struct figures f;

	res.tsc_khz = 2000000;
	figures_for_vcpu(&res, &res.records[0], &f);
	ck_assert_double_eq(f.wait_max_ns, 450.0);
	ck_assert_double_eq(f.wait_mean_ns, 2.0);
	ck_assert_double_eq(f.stalled_ns, 1e8);
	ck_assert_double_eq(f.stalled_share, 0.05);
	/* host-clock figures do not depend on the TSC */
	ck_assert_double_eq(f.run_delay_ns, 5e8);
	ck_assert_double_eq(f.acq_per_s, 500.0);
}
END_TEST

START_TEST(test_variant_figures)
{
	struct figures f;

	figures_for_variant(&res, &f);
	ck_assert_uint_eq(f.acquisitions, 4000);
	ck_assert_double_eq(f.acq_per_s, 2000.0);
	/* merged: 600 x 2, 400 x 6, 1000 x 7 -> the 1000th sample is a 6 */
	ck_assert_double_eq(f.wait_p50_ns, 6.0);
	ck_assert_double_eq(f.wait_p99_ns, 7.0);
	ck_assert_double_eq(f.wait_max_ns, 1500.0);
	ck_assert_double_eq(f.wait_mean_ns, 7.0);
	/* merged: 100 x 3, 300 x 4 */
	ck_assert_double_eq(f.hold_p50_ns, 4.0);
	ck_assert_double_eq(f.hold_max_ns, 80.0);
	ck_assert_uint_eq(f.stalls, 8);
	ck_assert_double_eq(f.stalled_ns, 8e8);
	/* over 2 vCPUs x 2 s */
	ck_assert_double_eq(f.stalled_share, 0.2);
	ck_assert_uint_eq(f.holder_preemptions, 6);
	ck_assert_double_eq(f.run_delay_ns, 8e8);
	ck_assert_double_eq(f.run_delay_share, 0.2);
	ck_assert_double_eq(f.run_time_ns, 3.2e9);
	/* all vCPUs' acquisitions over all their CPU time */
	ck_assert_double_eq_tol(f.acq_per_cpu_s, 4000 / 3.2, 1e-9);
	ck_assert(f.exits_valid);
	ck_assert_uint_eq(f.exits, 2000);
}
END_TEST

START_TEST(test_exits_invalid_if_one_vcpu_lacks_them)
{
	struct figures f;

	res.records[1].kvm.valid[KVM_STAT_EXITS] = false;
	figures_for_variant(&res, &f);
	ck_assert(!f.exits_valid);
	ck_assert_uint_eq(f.exits, 0);
	ck_assert_str_eq(f.exits_why, "not among this host's KVM binary stats (KVM_GET_STATS_FD)");
	/* where the backend knows better (a libvirt VM gone before it was read), its reason */
	snprintf(res.exits_why, sizeof(res.exits_why), "VM 1's QEMU had exited");
	figures_for_variant(&res, &f);
	ck_assert_str_eq(f.exits_why, "VM 1's QEMU had exited");
	figures_for_vcpu(&res, &res.records[1], &f);
	ck_assert(!f.exits_valid);
	ck_assert_uint_eq(f.exits, 0);
	figures_for_vcpu(&res, &res.records[0], &f);
	ck_assert(f.exits_valid);
}
END_TEST

START_TEST(test_empty_run)
{
	struct figures f;

	variant_result_free(&res);
	res.interval_s = 0.0;
	figures_for_variant(&res, &f);
	ck_assert_uint_eq(f.acquisitions, 0);
	/* nothing measured: every figure n/a with its reason, none a 0 */
	ck_assert(isnan(f.acq_per_s) && isnan(f.stalled_share));
	ck_assert_str_eq(f.rate_why, "no measured interval");
	ck_assert(isnan(f.wait_p50_ns) && isnan(f.wait_mean_ns));
	ck_assert(isnan(f.run_delay_share));
	ck_assert(!f.exits_valid);
	ck_assert_str_eq(f.exits_why, "no vCPU ran");
}
END_TEST

START_TEST(test_free)
{
	variant_result_free(&res);
	ck_assert_ptr_null(res.records);
	ck_assert_ptr_null(res.protected_counter);
	ck_assert_uint_eq(res.nr_records, 0);
	variant_result_free(&res); /* twice is harmless */
}
END_TEST

/* ---- table ------------------------------------------------------------ */

#define MAX_TOKENS 32

struct token {
	char text[64];
	size_t start, end;
};

/* Split a line on spaces, keeping where each token sits. */
static unsigned tokens(const char *line, struct token *t)
{
	unsigned n = 0;
	size_t i = 0;

	while (line[i] && line[i] != '\n' && n < MAX_TOKENS) {
		if (line[i] == ' ') {
			i++;
			continue;
		}
		size_t s = i;
		while (line[i] && line[i] != ' ' && line[i] != '\n')
			i++;
		snprintf(t[n].text, sizeof(t[n].text), "%.*s", (int)(i - s), line + s);
		t[n].start = s;
		t[n].end = i;
		n++;
	}
	return n;
}

static char *capture_row(const struct variant_result *r, bool header)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	if (header)
		results_table_header(f);
	else
		results_table_row(f, r);
	fclose(f);
	return text;
}

START_TEST(test_table_row)
{
	static const char *const want[] = {
	    "kvm", "ticket", "pause", "kernel", "on", "kept",  "1x2/1", "2.0k", "6ns",
	    "7ns", "1.5us",  "8",     "20.0%",	"6",  "20.0%", "2.0k",	"n/a",
	};
	/* identity columns align on their left edge, figures on their right */
	static const bool left[] = {1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	struct token head[MAX_TOKENS], row[MAX_TOKENS];
	char *h = capture_row(&res, true);
	char *r = capture_row(&res, false);
	unsigned nh = tokens(h, head), nr = tokens(r, row);

	ck_assert_uint_eq(nr, sizeof(want) / sizeof(want[0]));
	ck_assert_uint_eq(nh, nr);
	for (unsigned i = 0; i < nr; i++) {
		ck_assert_str_eq(row[i].text, want[i]);
		if (left[i])
			ck_assert_uint_eq(row[i].start, head[i].start);
		else
			ck_assert_uint_eq(row[i].end, head[i].end);
	}
	ck_assert_uint_eq(strlen(r), strlen(h));
	free(h);
	free(r);
}
END_TEST

/*
 * A run whose vCPUs got no acquisition in the interval (a ticket lock at
 * 2x over-commit on a loaded host): its rate is a measured 0, but it has
 * no wait to take a percentile, a maximum or a mean of. Before, those
 * were 0 ns in the JSON and the table.
 */
START_TEST(test_no_acquisition_has_no_wait)
{
	struct token row[MAX_TOKENS];
	struct figures f;

	for (unsigned i = 0; i < res.nr_records; i++) {
		struct plerig_vcpu_result *g = &res.records[i].guest;
		g->acquisitions = 0;
		g->wait_total_cycles = g->wait_max_cycles = g->hold_max_cycles = 0;
		memset(g->hist_wait, 0, sizeof(g->hist_wait));
		memset(g->hist_hold, 0, sizeof(g->hist_hold));
	}
	figures_for_variant(&res, &f);
	ck_assert_double_eq(f.acq_per_s, 0.0);
	ck_assert(isnan(f.wait_p50_ns) && isnan(f.wait_p99_ns));
	ck_assert(isnan(f.wait_max_ns) && isnan(f.wait_mean_ns));
	ck_assert(isnan(f.hold_p50_ns) && isnan(f.hold_max_ns));
	ck_assert(isnan(f.wait_p50_bucket_ns[0]));
	ck_assert_str_eq(f.wait_why, "no acquisition in the measured interval");
	ck_assert_str_eq(f.hold_why, "no acquisition in the measured interval");
	ck_assert_ptr_null(f.rate_why);
	figures_for_vcpu(&res, &res.records[1], &f);
	ck_assert(isnan(f.wait_p99_ns) && isnan(f.wait_max_ns));
	ck_assert_ptr_nonnull(f.wait_why);
	/* the vCPU ran, so its rate per CPU second is a measured 0 */
	ck_assert_double_eq(f.acq_per_cpu_s, 0.0);
	ck_assert_ptr_null(f.cpu_why);
	char *r = capture_row(&res, false);
	ck_assert_uint_eq(tokens(r, row), 17);
	ck_assert_str_eq(row[7].text, "0");
	ck_assert_str_eq(row[8].text, "n/a");
	ck_assert_str_eq(row[9].text, "n/a");
	ck_assert_str_eq(row[10].text, "n/a");
	free(r);
}
END_TEST

START_TEST(test_table_row_without_exits)
{
	struct token row[MAX_TOKENS];
	char *r;

	res.records[0].kvm.valid[KVM_STAT_EXITS] = false;
	r = capture_row(&res, false);
	ck_assert_uint_eq(tokens(r, row), 17);
	ck_assert_str_eq(row[15].text, "n/a");
	free(r);
}
END_TEST

/* Where the scheduler's figures could not be read, they are n/a, never 0. */
START_TEST(test_unread_run_delay_is_nan_not_zero)
{
	struct token row[MAX_TOKENS];
	struct figures f;
	char *r;

	snprintf(res.sched_why, sizeof(res.sched_why), "QEMU runs on another host");
	figures_for_vcpu(&res, &res.records[1], &f);
	ck_assert(isnan(f.run_delay_ns) && isnan(f.run_time_ns));
	ck_assert(isnan(f.run_delay_share) && isnan(f.acq_per_cpu_s));
	figures_for_variant(&res, &f);
	ck_assert(isnan(f.run_delay_ns) && isnan(f.run_time_ns));
	ck_assert(isnan(f.run_delay_share) && isnan(f.acq_per_cpu_s));
	ck_assert_uint_eq(f.acquisitions, 4000); /* the guest's figures stand */
	r = capture_row(&res, false);
	ck_assert_uint_eq(tokens(r, row), 17);
	ck_assert_str_eq(row[14].text, "n/a");
	free(r);
}
END_TEST

START_TEST(test_table_failed_row)
{
	char *r;

	res.ok = false;
	snprintf(res.error, sizeof(res.error), "vCPU 1 of VM 0: boot timed out after 10 s");
	res.variant.vms = 2;
	res.variant.vcpus = 64;
	res.variant.nr_pcpus = 1024;
	res.variant.relax = PLERIG_RELAX_REP_PAUSE;
	r = capture_row(&res, false);
	ck_assert_ptr_nonnull(strstr(r, "kvm"));
	ck_assert_ptr_nonnull(strstr(r, "rep-pause"));
	ck_assert_ptr_nonnull(strstr(r, "2x64/1024"));
	ck_assert_ptr_nonnull(strstr(r, "FAILED: vCPU 1 of VM 0: boot timed out after 10 s\n"));
	/* no figures of a failed run */
	ck_assert_ptr_null(strstr(r, "ns "));
	free(r);
}
END_TEST

START_TEST(test_table_legend)
{
	struct token head[MAX_TOKENS];
	char *h = capture_row(&res, true);
	unsigned nh = tokens(h, head);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned lines = 0;

	results_table_legend(f);
	fclose(f);
	for (char *p = text; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_uint_eq(lines, nh);
	/* every column is explained, by its header name */
	for (unsigned i = 0; i < nh; i++) {
		char want[sizeof(head[i].text) + 4];
		snprintf(want, sizeof(want), "  %.63s ", head[i].text);
		ck_assert_msg(strstr(text, want), "legend lacks %s", head[i].text);
	}
	free(text);
	free(h);
}
END_TEST

static Suite *figures_suite(void)
{
	Suite *s = suite_create("figures");
	TCase *t = tcase_create("figures");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_cycles_to_ns);
	tcase_add_test(t, test_vcpu_figures);
	tcase_add_test(t, test_run_delay_share_is_of_the_time_runnable);
	tcase_add_test(t, test_vcpu_figures_scale_with_tsc);
	tcase_add_test(t, test_variant_figures);
	tcase_add_test(t, test_exits_invalid_if_one_vcpu_lacks_them);
	tcase_add_test(t, test_empty_run);
	tcase_add_test(t, test_no_acquisition_has_no_wait);
	tcase_add_test(t, test_free);
	suite_add_tcase(s, t);

	t = tcase_create("table");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_table_row);
	tcase_add_test(t, test_table_row_without_exits);
	tcase_add_test(t, test_unread_run_delay_is_nan_not_zero);
	tcase_add_test(t, test_table_failed_row);
	tcase_add_test(t, test_table_legend);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(figures_suite)
