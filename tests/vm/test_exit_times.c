// SPDX-License-Identifier: GPL-2.0
/*
 * Exit timing (--exit-times) against the running kernel, no timing value
 * asserted anywhere, only counts and bounds:
 *
 *   - the perf plumbing (two events of one thread in one buffer, times on
 *     CLOCK_MONOTONIC, reasons decoded from raw records) on an event pair
 *     every KVM fires, PVM included: kvm_pio, then kvm_userspace_exit, for
 *     each port write of a probe VM run in this thread: exact counts;
 *   - kvm_exit to kvm_entry on the same probe: every exit timed where the
 *     host fires them (VMX, SVM), none where it fires neither (PVM);
 *   - the kvm backend with --exit-times: figures consistent with the exits
 *     stat of the interval where the host fires the tracepoints; elsewhere
 *     absent with the reason; the PLE figures absent with theirs where the
 *     host has no PAUSE-loop exit; nothing left open.
 *
 * Skips (77, with the reason) without /dev/kvm or without permission for
 * perf tracepoint sampling (an unprivileged user at perf_event_paranoid > -1).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/kvm/kvm_backend.h"
#include "doctor/known_exits_vm.h"
#include "measure/exit_timer.h"
#include "measure/kvm_system.h"
#include "measure/tracefs.h"
#include "model/exit_time_figures.h"
#include "model/results.h"
#include "ple/host_params.h"
#include "support/check_main.h"
#include "support/fixtures.h"
#include "support/proc_self.h"
#include "support/trace_vm.h"
#include "util/clock.h"

#define OUTS	   300
#define PROBE_PORT 0x10 /* doctor/known_exits_vm.c */

static char tracefs[PATH_MAX];
static char err[1024];
static char module[PLE_MODULE_LEN];

static bool fires_kvm_exit(void)
{
	return !strcmp(module, "kvm_intel") || !strcmp(module, "kvm_amd");
}

struct probe_timing {
	struct exit_times t;
	struct known_exits_result r;
	uint64_t window_ns;
};

/* Time @exit_event .. @entry_event (reason field @field) over one probe run in this thread. */
static void time_probe(const char *exit_event, const char *entry_event, const char *field,
		       struct probe_timing *out)
{
	struct trace_format fmt;
	struct known_exits_vm p;
	struct exit_timer timer;

	ck_assert_msg(trace_format_load(tracefs, "kvm", exit_event, &fmt, err, sizeof(err)) == 0,
		      "%s", err);
	const struct exit_timer_events ev = {.tracefs = tracefs,
					     .system = "kvm",
					     .exit_event = exit_event,
					     .entry_event = entry_event,
					     .reason = trace_format_field(&fmt, field)};
	ck_assert_ptr_nonnull(ev.reason);
	ck_assert_msg(known_exits_vm_open(&p, OUTS, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(exit_timer_open(&timer, &ev, gettid(), EXIT_TIMER_PAGES, err, sizeof(err)) ==
			  0,
		      "%s", err);
	const uint64_t t0 = monotonic_ns();
	exit_timer_window(&timer, t0, 0);
	ck_assert_msg(known_exits_vm_run(&p, &out->r, err, sizeof(err)) == 0, "%s", err);
	const uint64_t t1 = monotonic_ns();
	exit_timer_window(&timer, t0, t1);
	exit_timer_result(&timer, &out->t);
	out->window_ns = t1 - t0;
	exit_timer_close(&timer);
	known_exits_vm_close(&p);
}

/*
 * Every port write: kvm_pio in the kernel, then kvm_userspace_exit on the
 * way out to this thread. The final HLT's userspace exit has no pio.
 */
START_TEST(test_plumbing_on_port_writes)
{
	struct probe_timing pt;
	time_probe("kvm_pio", "kvm_userspace_exit", "port", &pt);
	const struct exit_times *t = &pt.t;
	printf("kvm_pio -> kvm_userspace_exit: %llu timed of %u OUTs, %llu ns in all, "
	       "unpaired %llu, cut %llu, lost %llu\n",
	       (unsigned long long)t->exits, OUTS, (unsigned long long)t->ns,
	       (unsigned long long)t->unpaired, (unsigned long long)t->cut,
	       (unsigned long long)t->lost);
	ck_assert_uint_eq(pt.r.io_exits, OUTS);
	ck_assert(t->valid);
	ck_assert_uint_eq(t->lost, 0);
	ck_assert_uint_eq(t->seen, OUTS);
	ck_assert_uint_eq(t->exits, OUTS);
	ck_assert_uint_eq(t->cut, 0);
	ck_assert_uint_eq(t->unpaired, 1); /* the HLT's return, without a pio */
	ck_assert_uint_eq(t->nr_reasons, 1);
	ck_assert_uint_eq(t->reason[0].reason, PROBE_PORT);
	ck_assert_uint_eq(t->reason[0].count, OUTS);
	ck_assert_uint_eq(t->reason[0].ns, t->ns);
	/* bounds, not timings: each pair took some time, all of them less than the run */
	ck_assert_uint_ge(t->ns, OUTS);
	ck_assert_uint_le(t->ns, pt.window_ns);
}
END_TEST

/* kvm_exit to kvm_entry on the same probe: all of its exits, or (PVM) none at all. */
START_TEST(test_kvm_exit_to_entry_on_the_probe)
{
	struct probe_timing pt;
	time_probe("kvm_exit", "kvm_entry", "exit_reason", &pt);
	const struct exit_times *t = &pt.t;
	const uint64_t stat = pt.r.stats.value[KVM_STAT_EXITS];
	printf("%s: kvm_exit -> kvm_entry: %llu timed (%llu seen, cut %llu, unpaired %llu), exits "
	       "stat %llu, %llu ns in all\n",
	       module, (unsigned long long)t->exits, (unsigned long long)t->seen,
	       (unsigned long long)t->cut, (unsigned long long)t->unpaired,
	       (unsigned long long)stat, (unsigned long long)t->ns);
	ck_assert_uint_eq(t->lost, 0);
	ck_assert(pt.r.stats.valid[KVM_STAT_EXITS]);
	ck_assert_uint_ge(stat, OUTS);
	if (!fires_kvm_exit()) {
		ck_assert_msg(t->seen == 0 && t->exits == 0,
			      "%s fires kvm_exit now (%llu): make this test expect it", module,
			      (unsigned long long)t->seen);
		printf("%s fires neither kvm:kvm_exit nor kvm:kvm_entry: exit times are "
		       "unavailable here\n",
		       module);
		return;
	}
	/* the whole run is inside the window: only the edges of KVM_RUN differ */
	ck_assert_msg(t->seen + 4 >= stat && t->seen <= stat + 4, "seen %llu vs exits stat %llu",
		      (unsigned long long)t->seen, (unsigned long long)stat);
	ck_assert_uint_le(t->exits, t->seen);
	ck_assert_uint_ge(t->exits + 4, t->seen);
	ck_assert_uint_gt(t->ns, 0);
	ck_assert_uint_le(t->ns, pt.window_ns);
}
END_TEST

/* The pio -> userspace-exit pair of @rounds probe VMs of @outs port writes each, in this thread. */
static void time_rounds(struct exit_timer *timer, unsigned pages, unsigned rounds, unsigned outs,
			bool drain, struct exit_times *out)
{
	struct trace_format fmt;
	struct known_exits_vm p;
	struct known_exits_result res;

	ck_assert_msg(trace_format_load(tracefs, "kvm", "kvm_pio", &fmt, err, sizeof(err)) == 0,
		      "%s", err);
	const struct exit_timer_events ev = {.tracefs = tracefs,
					     .system = "kvm",
					     .exit_event = "kvm_pio",
					     .entry_event = "kvm_userspace_exit",
					     .reason = trace_format_field(&fmt, "port")};
	ck_assert_msg(exit_timer_open(timer, &ev, gettid(), pages, err, sizeof(err)) == 0, "%s",
		      err);
	exit_timer_window(timer, monotonic_ns(), 0);
	for (unsigned i = 0; i < rounds; i++) {
		ck_assert_msg(known_exits_vm_open(&p, outs, err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg(known_exits_vm_run(&p, &res, err, sizeof(err)) == 0, "%s", err);
		known_exits_vm_close(&p);
		if (drain)
			exit_timer_drain(timer);
	}
	exit_timer_window(timer, timer->pairing.start_ns, monotonic_ns());
	exit_timer_result(timer, out);
}

/* A small buffer drained between rounds: it wraps several times, nothing is lost. */
START_TEST(test_ring_wraps_on_port_writes)
{
	struct exit_timer timer;
	struct exit_times t;
	time_rounds(&timer, 2, 4, 64, true, &t);
	const uint64_t tail = ((const struct perf_event_mmap_page *)timer.ring.map)->data_tail;
	printf("2-page buffer, 4 rounds of 64 OUTs: %llu timed, %llu bytes through the %zu-byte "
	       "ring, lost %llu\n",
	       (unsigned long long)t.exits, (unsigned long long)tail, timer.ring.data_len,
	       (unsigned long long)t.lost);
	ck_assert_uint_gt(tail, 2 * timer.ring.data_len); /* it did wrap */
	ck_assert_uint_eq(t.lost, 0);
	ck_assert_uint_eq(t.exits, 4 * 64);
	ck_assert_uint_eq(t.unpaired, 4); /* each probe's HLT */
	exit_timer_close(&timer);
}
END_TEST

/*
 * A buffer too small and never drained: the kernel drops records, and they
 * are counted even though no PERF_RECORD_LOST reached the buffer (it was
 * never drained while the events came).
 */
START_TEST(test_lost_records_on_port_writes)
{
	struct exit_timer timer;
	struct exit_times t;
	time_rounds(&timer, 1, 1, OUTS, false, &t);
	printf("1-page buffer, %u OUTs undrained: %llu timed, lost %llu records\n", OUTS,
	       (unsigned long long)t.exits, (unsigned long long)t.lost);
	ck_assert_uint_gt(t.lost, 0);
	/* the LOST records come only once the kernel writes again: the events' own counts */
	ck_assert_uint_ge(t.lost, timer.ring.lost);
	ck_assert_uint_lt(t.exits, OUTS);
	/* every pio is timed, or its record or its entry's was lost */
	ck_assert_uint_le(t.exits, OUTS - t.lost / 2);
	exit_timer_close(&timer);

	/* drained between two such rounds: the second one's first record is PERF_RECORD_LOST */
	time_rounds(&timer, 1, 2, OUTS, true, &t);
	printf("1-page buffer, 2 x %u OUTs drained between: %llu timed, lost %llu records (%llu "
	       "reported in the buffer)\n",
	       OUTS, (unsigned long long)t.exits, (unsigned long long)t.lost,
	       (unsigned long long)timer.ring.lost);
	ck_assert_uint_gt(timer.ring.lost, 0);
	ck_assert_uint_ge(t.lost, timer.ring.lost);
	ck_assert_uint_le(t.exits, 2 * OUTS - t.lost / 2);
	exit_timer_close(&timer);
}
END_TEST

static struct backend *open_backend(void)
{
	const char *guest = getenv("PLERIG_GUEST");
	ck_assert_msg(guest, "PLERIG_GUEST must name the guest image");
	struct backend *b = kvm_backend_open(guest, err, sizeof(err));
	ck_assert_msg(b, "%s", err);
	return b;
}

/* 2 vCPUs per CPU at the backend's ring: the storm the tables report. */
static struct variant storm(const struct backend *b, bool exit_times)
{
	unsigned cpus[2];
	unsigned nr = first_cpus(cpus, 2);
	struct variant v =
	    fixture_variant(BACKEND_KVM, 2 * nr, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	v.ring = b->default_ring;
	v.warmup_s = 0.05;
	v.duration_s = 0.5;
	v.exit_times = exit_times;
	fixture_pin(&v, cpus, nr);
	return v;
}

static void check_vcpu(const struct variant_result *r, const struct vcpu_record *rec)
{
	const struct exit_times *t = &rec->exit_times;
	const uint64_t stat = rec->kvm.value[KVM_STAT_EXITS];
	struct exit_time_figures f;
	exit_time_figures_for_vcpu(r, rec, &f);
	printf("vCPU %u: %llu exits timed (seen %llu, cut %llu, unpaired %llu, lost %llu) of "
	       "%llu in the exits stat; %.0f ns in exits, mean %.0f ns\n",
	       rec->vcpu, (unsigned long long)t->exits, (unsigned long long)t->seen,
	       (unsigned long long)t->cut, (unsigned long long)t->unpaired,
	       (unsigned long long)t->lost, (unsigned long long)stat, f.ns, f.mean_ns);
	ck_assert(f.valid);
	ck_assert(rec->kvm.valid[KVM_STAT_EXITS]);
	/*
	 * The exits stat is read before the interval starts and after it ends,
	 * so it holds every exit traced inside it (a few more at the edges of
	 * KVM_RUN); the gaps between the reads and the edges are far shorter
	 * than the 0.5 s interval, so it cannot be more than twice the traced.
	 */
	ck_assert_msg(t->seen <= stat + 4, "seen %llu > exits stat %llu",
		      (unsigned long long)t->seen, (unsigned long long)stat);
	if (!t->lost)
		ck_assert_msg(stat < 20 || 2 * t->seen >= stat, "seen %llu of exits stat %llu",
			      (unsigned long long)t->seen, (unsigned long long)stat);
	ck_assert_uint_le(t->exits, t->seen);
	/* one exit at most straddles each edge; every exit is followed by its entry */
	ck_assert_uint_le(t->cut, 2);
	if (!t->lost) {
		ck_assert_uint_le(t->unpaired, 2);
		ck_assert_uint_ge(t->exits + 4, t->seen);
	}
	if (t->exits)
		ck_assert(f.ns > 0);
	ck_assert(f.ns <= r->interval_s * 1e9);
	if (r->ple_exit_reason) {
		ck_assert(f.ple_valid);
		ck_assert(f.ple_ns <= f.ns);
		ck_assert_uint_le(f.ple_exits, f.exits);
	} else {
		ck_assert(!f.ple_valid);
		ck_assert_msg(exit_time_figures_ple_why(r, &f)[0], "no reason for the PLE figures");
	}
}

START_TEST(test_backend_exit_times)
{
	struct backend *b = open_backend();
	const unsigned fds = count_entries("/proc/self/fd");
	struct variant v = storm(b, true);
	struct variant_result r;
	int rc = b->run(b, &v, &r);
	ck_assert_msg(rc == 0 && r.ok, "run failed: %s", r.error);
	struct exit_time_figures f;
	exit_time_figures_for_variant(&r, &f);
	if (!fires_kvm_exit()) {
		/* PVM: neither tracepoint fires; a reason, never a 0 */
		ck_assert(!f.valid);
		const char *why = exit_time_figures_why(&r, &f);
		printf("exit times unavailable: %s\n", why);
		ck_assert_msg(strstr(why, "does not fire kvm:kvm_exit") && strstr(why, module),
			      "reason: %s", why);
		for (unsigned i = 0; i < r.nr_records; i++)
			ck_assert(!r.records[i].exit_times.valid);
	} else {
		for (unsigned i = 0; i < r.nr_records; i++)
			check_vcpu(&r, &r.records[i]);
		ck_assert(f.valid);
		printf("run: %.0f ns in %llu exits; PLE exits %s: %llu, %.0f ns\n", f.ns,
		       (unsigned long long)f.exits, f.ple_valid ? "timed" : "n/a",
		       (unsigned long long)f.ple_exits, f.ple_ns);
	}
	/* the PAUSE-loop exit figures: a reason where this host has none */
	if (!r.ple_exit_reason)
		ck_assert_msg(r.ple_why[0] && strstr(r.ple_why, module), "ple_why: %s", r.ple_why);
	variant_result_free(&r);
	ck_assert_uint_eq(count_entries("/proc/self/fd"), fds);
	b->close(b);
}
END_TEST

/* Without --exit-times nothing is sampled, and the figures say how to get them. */
START_TEST(test_backend_without_exit_times)
{
	struct backend *b = open_backend();
	struct variant v = storm(b, false);
	struct variant_result r;
	v.duration_s = 0.1;
	ck_assert_msg(b->run(b, &v, &r) == 0, "run failed: %s", r.error);
	struct exit_time_figures f;
	exit_time_figures_for_variant(&r, &f);
	ck_assert(!f.valid);
	ck_assert_str_eq(exit_time_figures_why(&r, &f), "not measured: run with --exit-times");
	ck_assert_str_eq(r.exit_times_why, "");
	variant_result_free(&r);
	b->close(b);
}
END_TEST

/* Sampling both events of a thread into one buffer: what --exit-times needs. */
static int try_exit_timer(const char *where, char *e, size_t elen)
{
	struct exit_timer t;
	const struct exit_timer_events ev = {.tracefs = where,
					     .system = "kvm",
					     .exit_event = "kvm_exit",
					     .entry_event = "kvm_entry"};
	int rc = exit_timer_open(&t, &ev, gettid(), EXIT_TIMER_PAGES, e, elen);
	if (!rc)
		exit_timer_close(&t);
	return rc;
}

int main(void)
{
	const char *why =
	    trace_vm_cannot_run(tracefs, sizeof(tracefs), module, sizeof(module), try_exit_timer);
	if (why)
		return check_skip("%s", why);
	Suite *s = suite_create("exit_times");
	TCase *t = tcase_create("real_vm");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_plumbing_on_port_writes);
	tcase_add_test(t, test_ring_wraps_on_port_writes);
	tcase_add_test(t, test_lost_records_on_port_writes);
	tcase_add_test(t, test_kvm_exit_to_entry_on_the_probe);
	tcase_add_test(t, test_backend_exit_times);
	tcase_add_test(t, test_backend_without_exit_times);
	suite_add_tcase(s, t);
	return check_run(s, CK_FORK_GETENV);
}
