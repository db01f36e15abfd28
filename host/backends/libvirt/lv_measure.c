// SPDX-License-Identifier: GPL-2.0
/*
 * The host's side of a libvirt run's measured interval: the guest keeps
 * its own interval, the host brackets the same one with its snapshots
 * (vCPU thread schedstat, or libvirt's where QEMU runs on another host;
 * KVM stats from libvirt; PAUSE-loop exits and exit times of a local
 * QEMU's vCPU threads), then the guests' reports become the variant's
 * results.
 */
#include "backends/libvirt/lv_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/guest_figures.h"
#include "backends/placement.h"
#include "backends/run_result.h"
#include "util/clock.h"
#include "util/errbuf.h"

#define AP_BOOT_MARGIN_NS 5000000ull /* hello -> storm open: the other vCPUs boot (~3 ms) */

/* Why run delay is n/a, or what a reader of it must know, from what the snapshots got. */
static void note_sched_source(struct lv_run *run, bool sched_ok, const char *stats_err)
{
	struct variant_result *r = run->r;
	if (run->b->lc.local && sched_ok)
		return;
	if (!sched_ok && !r->sched_why[0])
		errbuf_printf(
		    r->sched_why, sizeof(r->sched_why),
		    run->b->lc.local ? "the vCPU threads' /proc/TID/schedstat could not be read"
		    : stats_err[0]   ? "QEMU runs on another host and %s"
				     : "QEMU runs on another host and its libvirt reports no "
				       "vcpu.N.delay and vcpu.N.time",
		    stats_err);
	if (!run->b->lc.local) {
		r->timeslices_unknown = true;
		snprintf(
		    r->sched_note, sizeof(r->sched_note),
		    "from libvirt's domain stats of the host QEMU runs on (vcpu.N.delay in ns, "
		    "vcpu.N.time in whole scheduler ticks, 10 ms at USER_HZ 100)");
	}
}

/*
 * A VM whose QEMU exited before the host read its counters (the host was
 * late: its guest powers off a grace period after its results) has no run
 * delay, run time or exits for the interval: why, in the results' words.
 */
static void note_gone(struct lv_run *run, const char *when)
{
	struct variant_result *r = run->r;
	for (unsigned i = 0; i < run->nr_doms; i++) {
		if (lv_domain_active(&run->doms[i]))
			continue;
		char why[sizeof(r->sched_why)];
		snprintf(why, sizeof(why),
			 "VM %u's QEMU had exited when the host read its counters %s (the host "
			 "was late by more than the guest's %u ms between its results and its "
			 "power-off)",
			 i, when, PLERIG_POWER_OFF_GRACE_MS);
		if (!r->sched_why[0])
			snprintf(r->sched_why, sizeof(r->sched_why), "%s", why);
		if (!r->exits_why[0])
			snprintf(r->exits_why, sizeof(r->exits_why), "%s", why);
		return;
	}
}

static void snapshot_all(struct lv_run *run, struct ple_counters *c, struct counter_snapshot *s,
			 const char *when)
{
	const unsigned per = run->v->vcpus;
	struct lv_vcpu_stats *st = calloc((size_t)run->nr_doms * per, sizeof(*st));
	virDomainPtr *doms = calloc(run->nr_doms, sizeof(*doms));
	char err[ERRBUF_SIZE] = "";
	bool sched_ok = st && doms;
	for (unsigned i = 0; doms && i < run->nr_doms; i++)
		doms[i] = run->doms[i].dom;
	/* no stats (an old libvirt, TCG's missing KVM stats) are absent, not a failed run */
	if (st && doms && lv_stats_read(doms, run->nr_doms, per, st, err, sizeof(err)))
		memset(st, 0, (size_t)run->nr_doms * per * sizeof(*st));
	for (unsigned i = 0; st && i < run->nr_doms; i++)
		lv_domain_snapshot(&run->doms[i], run->b->lc.local, &st[i * per], &s[i * per],
				   &sched_ok);
	if (!sched_ok)
		note_gone(run, when);
	note_sched_source(run, sched_ok, st && doms ? err : "out of memory for stats");
	free(st);
	free(doms);
	for (unsigned g = 0; g < run->r->nr_records; g++) {
		if (c)
			ple_counters_read(&c[g], &s[g].ple);
		else
			memset(&s[g].ple, 0, sizeof(s[g].ple));
	}
}

/*
 * PAUSE-loop exits of QEMU's vCPU threads: another process, but root may
 * count its threads' tracepoints as it counts its own. Local QEMU only.
 */
static struct ple_counters *open_ple_counters(struct lv_run *run, unsigned n)
{
	const struct lv_backend *b = run->b;
	const char *why = NULL;
	if (b->tcg)
		why = "TCG: no KVM, no PAUSE-loop exits";
	else if (!b->lc.local)
		why = "QEMU runs on another host: its vCPU threads cannot be counted from here";
	else if (!b->ple.pause_exits_ok)
		why = b->ple.pause_exits_why;
	struct ple_counters *c = why ? NULL : calloc(n, sizeof(*c));
	if (!c) {
		snprintf(run->r->ple_why, sizeof(run->r->ple_why), "%s",
			 why ? why : "out of memory for counters");
		return NULL;
	}
	for (unsigned g = 0; g < n; g++) {
		const struct lv_domain *d = &run->doms[g / run->v->vcpus];
		run_open_ple_counters(run->r, &c[g], &b->ple, d->tids[g % run->v->vcpus]);
	}
	return c;
}

static void close_ple_counters(struct ple_counters *c, unsigned n)
{
	for (unsigned g = 0; c && g < n; g++)
		ple_counters_close(&c[g]);
	free(c);
}

/* Exit times of QEMU's vCPU threads: like its PAUSE-loop exits, local QEMU only. */
static void open_exit_timers(struct lv_run *run, unsigned n)
{
	struct variant_result *r = run->r;
	if (!run->v->exit_times || r->exit_times_why[0])
		return;
	if (!run->b->lc.local) {
		snprintf(r->exit_times_why, sizeof(r->exit_times_why),
			 "QEMU runs on another host: its vCPU threads cannot be timed from here");
		return;
	}
	run_exit_timers_prepare(&run->exit_timers, r, &run->b->ple);
	for (unsigned g = 0; g < n; g++) {
		const struct lv_domain *d = &run->doms[g / run->v->vcpus];
		run_exit_timers_open(&run->exit_timers, r, g, d->tids[g % run->v->vcpus]);
	}
}

/*
 * The guest keeps its own interval; the host brackets the same one with
 * its snapshots, from the last hello on (each VM opens its storm a few ms
 * after its hello, once its other vCPUs are up).
 */
int lv_measure_interval(struct lv_run *run)
{
	const unsigned n = run->v->vms * run->v->vcpus;
	uint64_t last_hello = 0;
	for (unsigned i = 0; i < run->nr_doms; i++)
		if (run->doms[i].hello_ns > last_hello)
			last_hello = run->doms[i].hello_ns;
	struct interval_snapshots snap = {0};
	struct ple_counters *counters = open_ple_counters(run, n);
	int rc = -1;
	uint64_t t0;
	open_exit_timers(run, n);
	if (interval_snapshots_alloc(&snap, run->r))
		goto out;
	const uint64_t m0 = last_hello + AP_BOOT_MARGIN_NS + (uint64_t)(run->v->warmup_s * 1e9);
	if (lv_watch_until(run, m0))
		goto out;
	if (!run->b->lc.local)
		snprintf(
		    run->r->foreign_why, sizeof(run->r->foreign_why),
		    "not measured: QEMU runs on another host, whose CPUs cannot be read from here");
	interval_snapshots_load(&snap, run->r, false);
	snapshot_all(run, counters, snap.before, "at the start of the interval");
	/* exits are timed between the snapshots: the exits stat holds all of them */
	t0 = monotonic_ns();
	run_exit_timers_interval(&run->exit_timers, run->r, t0, 0, NULL);
	const uint64_t m1 = m0 + (uint64_t)(run->v->duration_s * 1e9);
	if (lv_watch_until(run, m1))
		goto out;
	const uint64_t t1 = monotonic_ns();
	snapshot_all(run, counters, snap.after, "at the end of the interval");
	interval_snapshots_load(&snap, run->r, true);
	interval_snapshots_delta(&snap, run->r);
	run_exit_timers_interval(&run->exit_timers, run->r, t0, t1,
				 run->b->ple.module[0] ? run->b->ple.module : "this host's KVM");
	for (unsigned g = 0; g < n; g++)
		if (snap.before[g].kvm.valid[KVM_STAT_INSN_EMULATION])
			run->r->timing.setup_insn_emulated +=
			    snap.before[g].kvm.value[KVM_STAT_INSN_EMULATION];
	rc = lv_watch_results(run);
out:
	interval_snapshots_free(&snap);
	close_ple_counters(counters, n);
	run_exit_timers_close(&run->exit_timers);
	return rc;
}

/* Guest TSC -> ns since the run started, anchored at the hello frame's arrival. */
static uint64_t guest_time_ns(const struct lv_run *run, const struct lv_domain *d, uint64_t tsc)
{
	const double dt_ns =
	    ((double)(int64_t)(tsc - d->rep.hello.hello_tsc)) * 1e6 / (double)run->b->tsc_khz;
	return d->hello_ns - run->t0 + (uint64_t)(dt_ns > 0 ? dt_ns : 0);
}

int lv_measure_collect(struct lv_run *run)
{
	const struct variant *v = run->v;
	struct variant_result *r = run->r;
	uint64_t opened = 0, ended = 0;
	for (unsigned i = 0; i < run->nr_doms; i++) {
		struct lv_domain *d = &run->doms[i];
		if (lv_watch_end_status(run, d))
			return -1;
		for (unsigned j = 0; j < v->vcpus; j++) {
			struct vcpu_record *rec = &r->records[i * v->vcpus + j];
			rec->vm = i;
			rec->vcpu = j;
			rec->host_cpu = placement_cpu(v, i * v->vcpus + j);
			rec->tid = d->tids[j];
			rec->guest = d->results[j];
		}
		r->protected_counter[i] = d->rep.end.protected_counter;
		const uint64_t o = guest_time_ns(run, d, d->rep.end.start_tsc);
		opened = o > opened ? o : opened;
		ended = d->end_ns - run->t0 > ended ? d->end_ns - run->t0 : ended;
	}
	/* the storm opens when every vCPU is READY; its first acquisition follows at once */
	r->timing.ready_ns = opened;
	r->timing.first_acq_ns = opened;
	r->timing.stopped_ns = ended;
	r->interval_s = (double)v->duration_s;
	/* every VM has the same CPUID: VM 0 speaks for them */
	lv_pv_results(&run->cfg, v, &run->b->pv_host, run->doms[0].rep.end.kvm_features, r);
	return run_check_guest_figures(r);
}
