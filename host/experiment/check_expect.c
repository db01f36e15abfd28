// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_expect.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/halt_path.h"
#include "output/units.h"
#include "util/strfmt.h"

struct judging {
	unsigned judged, failed;
	char first_failure[512];
	char skip_why[512];
	char figures[512];
};

static void note_failure(struct judging *j, const char *label, unsigned run, const char *why)
{
	if (!j->failed++)
		(void)pathf(j->first_failure, sizeof(j->first_failure), "%s, run %u: %s", label,
			    run, why);
}

/*
 * A lock the host let its vCPUs run for less than this each can have made
 * no acquisition without anything being wrong: the holder, or the waiter
 * next in line, may never have run after the lock was released.
 */
#define PROGRESS_MIN_RUN_NS 10000000ull

static void note_failure_text(struct judging *j, const char *label, const char *why)
{
	if (!j->failed++)
		(void)pathf(j->first_failure, sizeof(j->first_failure), "%s: %s", label, why);
}

/* Why a part of an expectation was not judged: kept with the result, never dropped. */
static void note_unjudged(struct judging *j, const char *label, const char *why)
{
	if (!j->skip_why[0])
		(void)pathf(j->skip_why, sizeof(j->skip_why), "%s: %s", label, why);
}

/* What judge_progress keeps of one vCPU over the runs. */
struct vcpu_progress {
	uint64_t acq, outside, ran_ns; /* measured acquisitions, the others of its life */
};

/* What it keeps of one VM's lock over the runs. */
struct vm_progress {
	uint64_t moves;		  /* acquisitions where its vCPUs' run time was measured */
	double best_least_ran_ns; /* over the runs: the least any of its vCPUs ran */
	unsigned best_run;
};

/* Run @r of @v: each VM's acquisitions into @vm_acq, and each vCPU judged against them. */
static void progress_run(const struct variant *v, const struct variant_result *res, unsigned r,
			 bool fair, struct vcpu_progress *vp, struct vm_progress *mp,
			 uint64_t *vm_acq, double *least_ran, const char *label, struct judging *j)
{
	const unsigned n = v->vms * v->vcpus;
	char why[400];
	memset(vm_acq, 0, v->vms * sizeof(*vm_acq));
	for (unsigned m = 0; m < v->vms; m++)
		least_ran[m] = -1.0;
	for (unsigned i = 0; i < res->nr_records && i < n; i++) {
		const struct vcpu_record *rec = &res->records[i];
		if (rec->vm >= v->vms)
			continue;
		vm_acq[rec->vm] += rec->guest.acquisitions;
		if (least_ran[rec->vm] < 0 || (double)rec->sched.run_ns < least_ran[rec->vm])
			least_ran[rec->vm] = (double)rec->sched.run_ns;
	}
	/*
	 * Whether the lock moved is asked of the window the run time comes
	 * from, where the backend read the lock there: not of the measured
	 * acquisitions. Under a fair lock each vCPU's first measured one waits
	 * for the whole queue to turn (each began its iteration before
	 * MEASURE), and on a loaded host each hand-over waits for the next
	 * waiter's timeslice: with busy loops on both CPUs (load 8), 3 or 4
	 * vCPUs on 2 moved it 12-68 times in 0.3 s (median 28), one per vCPU
	 * of those not measured, each vCPU running tens of ms, mostly spinning
	 * before a release; one such run measured none and moved it 3 times.
	 * Where the lock was not read there, the measured ones stand in.
	 */
	for (unsigned m = 0; m < v->vms; m++) {
		mp[m].moves += res->window_acquisitions ? res->window_acquisitions[m] : vm_acq[m];
		if (least_ran[m] > mp[m].best_least_ran_ns) {
			mp[m].best_least_ran_ns = least_ran[m];
			mp[m].best_run = r;
		}
	}
	for (unsigned i = 0; i < res->nr_records && i < n; i++) {
		const struct vcpu_record *rec = &res->records[i];
		const struct plerig_vcpu_result *g = &rec->guest;
		if (rec->vm >= v->vms)
			continue;
		vp[i].acq += g->acquisitions;
		vp[i].outside += g->unmeasured_acquisitions;
		vp[i].ran_ns += rec->sched.run_ns;
		/*
		 * Each iteration takes the lock before it looks at the phase, so a
		 * vCPU that ran while the storm was open took a place in a fair
		 * queue, and the queue drains at STOP: it got the lock at least once
		 * in its life, measured or not. None at all, though it ran while
		 * measuring: it left the storm, or the lock passed it over for good.
		 */
		if (!fair || g->acquisitions || g->unmeasured_acquisitions ||
		    rec->sched.run_ns < PROGRESS_MIN_RUN_NS)
			continue;
		snprintf(why, sizeof(why),
			 "vCPU %u of VM %u got a fair (%s) lock not once in run %u, in or out of "
			 "the measured interval, although it ran %.1f ms while measuring (the "
			 "others of its VM: %" PRIu64 " acquisitions)",
			 rec->vcpu, rec->vm, lock_name(v->lock), r,
			 (double)rec->sched.run_ns * 1e-6, vm_acq[rec->vm]);
		note_failure_text(j, label, why);
	}
}

/*
 * Progress: every VM's lock moves, and under a fair lock every vCPU that
 * ran gets it. Judged run by run against what the host let happen. On a
 * loaded host a fair lock whose next waiter is descheduled moves a few
 * times in a run (4 vCPUs on one busy CPU: 0-13 acquisitions in 0.3 s),
 * and a vCPU the host kept off its CPU for the whole interval makes none
 * while the others storm (seen: 0 against 21791); the snapshots of run
 * time lie outside the interval, so they cannot say it ran inside. That a
 * vCPU made none in every interval is said, not failed.
 */
static void judge_progress(const struct series *se, const char *label, struct judging *j)
{
	const struct variant *v = &se->variant;
	const unsigned n = v->vms * v->vcpus;
	/* a pvqspin that ran as test-and-set (no kick here) is as unfair as one */
	bool fair = lock_is_fair(v->lock);
	struct vcpu_progress *vp = calloc(n + 1, sizeof(*vp));
	struct vm_progress *mp = calloc(v->vms + 1, sizeof(*mp));
	uint64_t *vm_acq = calloc(v->vms + 1, sizeof(*vm_acq));
	double *least_ran = calloc(v->vms + 1, sizeof(*least_ran));
	unsigned runs = 0, judged_vms = 0;
	bool windowed = true; /* every ok run read its locks where the run time is */
	char why[400];
	if (!vp || !mp || !vm_acq || !least_ran)
		goto out;
	for (unsigned r = 0; r < se->nr_runs; r++) {
		const struct variant_result *res = &se->runs[r];
		if (!res->ok)
			continue;
		runs++;
		windowed = windowed && res->window_acquisitions;
		const bool run_fair = fair && (v->lock != PLERIG_LOCK_PVQSPIN || res->pv_unhalt);
		progress_run(v, res, r, run_fair, vp, mp, vm_acq, least_ran, label, j);
	}
	for (unsigned m = 0; runs && m < v->vms; m++) {
		if (mp[m].moves) {
			judged_vms++;
			continue;
		}
		snprintf(why, sizeof(why),
			 "VM %u's lock made no acquisition in %u runs (%s); the most every vCPU "
			 "of it ran in one run: %.1f ms (run %u)",
			 m, runs,
			 windowed ? "none at all while its vCPUs' run time was measured"
				  : "none measured",
			 mp[m].best_least_ran_ns * 1e-6, mp[m].best_run);
		if (mp[m].best_least_ran_ns >= (double)PROGRESS_MIN_RUN_NS) {
			judged_vms++;
			note_failure_text(j, label, why);
		} else {
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 ", under %llu ms: the host gave them too little CPU to tell",
				 PROGRESS_MIN_RUN_NS / 1000000ull);
			note_unjudged(j, label, why);
		}
	}
	for (unsigned i = 0; runs && fair && i < n; i++) {
		if (vp[i].acq)
			continue;
		snprintf(why, sizeof(why),
			 "vCPU %u of VM %u made 0 acquisitions in the measured intervals of %u "
			 "runs (%" PRIu64 " outside them; it ran %.1f ms in all): on a loaded "
			 "host a vCPU can wait out a whole interval behind descheduled ones, or "
			 "not run in it at all",
			 i % v->vcpus, i / v->vcpus, runs, vp[i].outside,
			 (double)vp[i].ran_ns * 1e-6);
		note_unjudged(j, label, why);
	}
	/* judged where a lock moved or failed to although it could have */
	if (judged_vms)
		j->judged += runs;
out:
	free(vp);
	free(mp);
	free(vm_acq);
	free(least_ran);
}

/*
 * Over-commit shows: the vCPUs wait for a CPU (run delay) and, where the
 * host took a vCPU away while it held the lock or waited for it, a wait
 * outlasts stall_us. Judged over the runs together: schedstat books a
 * wait when the thread next runs, so one run whose vCPUs the host never
 * scheduled shows no delay at all. No run delay at all is a fault (the
 * vCPUs did not share a CPU, or the delay was not read). No stall is not:
 * the host may switch the vCPUs only outside critical sections, a waiter
 * of an unfair lock that spun through a preempted holder may lose every
 * race after it, and PLE's directed yield hands a lock over within
 * microseconds. That is said with the figures, not passed.
 */
static void judge_stalls(const struct series *se, const char *label, struct judging *j)
{
	const struct variant *v = &se->variant;
	uint64_t stalls = 0, lhp = 0;
	double delay_ns = 0.0, ran_ns = 0.0;
	bool delay_known = true;
	unsigned runs = 0;
	char why[400];
	for (unsigned r = 0; r < se->nr_runs; r++) {
		struct figures f;
		if (!se->runs[r].ok)
			continue;
		figures_for_variant(&se->runs[r], &f);
		runs++;
		stalls += f.stalls;
		lhp += f.holder_preemptions;
		delay_known &= !isnan(f.run_delay_ns);
		if (!isnan(f.run_delay_ns)) {
			delay_ns += f.run_delay_ns;
			ran_ns += f.run_time_ns;
		}
	}
	if (!runs)
		return;
	const unsigned vcpus = v->vms * v->vcpus;
	if (vcpus <= v->nr_pcpus) {
		snprintf(why, sizeof(why), "not over-committed (%u vCPUs on %u CPUs)", vcpus,
			 v->nr_pcpus);
		note_unjudged(j, label, why);
		return;
	}
	if (delay_known && ran_ns > 0.0 && delay_ns <= 0.0) {
		j->judged += runs;
		snprintf(why, sizeof(why),
			 "no run delay in %u runs although %u vCPUs share %u CPUs and ran %.1f ms: "
			 "over-commit did not show",
			 runs, vcpus, v->nr_pcpus, ran_ns * 1e-6);
		note_failure_text(j, label, why);
		return;
	}
	if (stalls) {
		j->judged += runs;
		return;
	}
	snprintf(why, sizeof(why),
		 "0 stalls in %u runs with %.1f ms of run delay and %" PRIu64
		 " lock-holder preemptions: %s",
		 runs, delay_ns * 1e-6, lhp,
		 lhp ? "holders were preempted holding the lock, but no waiter that spun "
		       "through one got the lock inside the interval"
		     : "the host never took a vCPU away while it held or waited for the lock");
	note_unjudged(j, label, why);
}

static uint64_t directed_yields(const struct variant_result *r, bool *valid)
{
	uint64_t n = 0;
	*valid = r->nr_records > 0;
	for (unsigned i = 0; i < r->nr_records; i++) {
		const struct kvm_stats_snapshot *s = &r->records[i].kvm;
		*valid &= s->valid[KVM_STAT_DIRECTED_YIELD_ATTEMPTED];
		n += s->value[KVM_STAT_DIRECTED_YIELD_ATTEMPTED];
	}
	return n;
}

/*
 * How far a measured interval's counts of one halt path may part: the
 * guest counts an iteration (its halts, wake-ups, kicks) only if it began
 * and ended inside MEASURE, KVM's stats are read when the host's interval
 * begins and ends, so each vCPU may be inside one iteration at each edge
 * whose halt KVM counts and the guest does not (and the other way round);
 * a waiter woken without the lock (a spurious wake-up) halts again inside
 * the same iteration.
 */
static uint64_t halt_edge_allowance(const struct variant_result *r, const struct halt_path *h)
{
	return 2ull * r->nr_records + h->spurious_wakeups;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * halt-stats: KVM's count of the same halts. The guest has no interrupt
 * source, so only a kick ends its halt: each HLT is one halt exit, and
 * each wake-up (halt_wakeup, or a halt poll that saw the kick) has a kick
 * behind it. A kick that came before the HLT ends it at once, with
 * neither, which is why the wake-ups may fall short of the kicks.
 */
static void judge_halt_stats(const struct variant_result *r, unsigned run, const char *label,
			     struct judging *j)
{
	struct halt_path h;
	char why[512];
	halt_path_for_variant(r, &h);
	if (!h.valid) {
		snprintf(j->skip_why, sizeof(j->skip_why), "%s", h.why);
		return;
	}
	if (!h.kvm_valid[HALT_STAT_EXITS] || !h.kvm_valid[HALT_STAT_WAKEUP]) {
		snprintf(j->skip_why, sizeof(j->skip_why), "KVM's halt_exits or halt_wakeup: %s",
			 halt_stat_why(r));
		return;
	}
	const uint64_t edge = halt_edge_allowance(r, &h);
	const uint64_t woken =
	    h.kvm[HALT_STAT_WAKEUP] +
	    (h.kvm_valid[HALT_STAT_SUCCESSFUL_POLL] ? h.kvm[HALT_STAT_SUCCESSFUL_POLL] : 0);
	j->judged++;
	if (absdiff(h.kvm[HALT_STAT_EXITS], h.halts) > edge) {
		snprintf(why, sizeof(why),
			 "KVM counted %" PRIu64 " halt exits, the guest %" PRIu64
			 " halts: more than %" PRIu64
			 " apart (2 per vCPU at the interval's edges, 1 per spurious wake-up)",
			 h.kvm[HALT_STAT_EXITS], h.halts, edge);
		note_failure(j, label, run, why);
	} else if (woken > h.kicks_received + edge) {
		snprintf(why, sizeof(why),
			 "KVM woke halted vCPUs %" PRIu64 " times (halt_wakeup and successful "
			 "polls), the guest received %" PRIu64 " kicks: more than %" PRIu64
			 " wake-ups without a kick",
			 woken, h.kicks_received, edge);
		note_failure(j, label, run, why);
	}
}

/* PAUSE-loop exits per acquisition over a series' ok runs; false where not countable. */
static bool ple_exits_per_acq(const struct series *se, double *out, unsigned *runs,
			      const char **why)
{
	uint64_t exits = 0, acq = 0;
	*runs = 0;
	*why = "no ok run";
	for (unsigned r = 0; r < se->nr_runs; r++) {
		struct figures f;
		if (!se->runs[r].ok)
			continue;
		figures_for_variant(&se->runs[r], &f);
		if (!f.pause_loop_exits_valid) {
			*why = se->runs[r].ple_why[0]
				   ? se->runs[r].ple_why
				   : "PAUSE-loop exits not counted for every vCPU";
			return false;
		}
		if (se->variant.lock == PLERIG_LOCK_PVQSPIN && !se->runs[r].pv_unhalt) {
			*why = se->runs[r].pv_why;
			return false;
		}
		exits += f.pause_loop_exits;
		acq += f.acquisitions;
		++*runs;
	}
	if (!acq) {
		*why = "no acquisition in the measured intervals";
		return false;
	}
	*out = (double)exits / (double)acq;
	return true;
}

/*
 * At most this share of the ticket lock's PAUSE-loop exits per acquisition:
 * a pvqspin waiter halts after its spin threshold instead of spinning into
 * the PLE window, so nearly none of its waits ends in a PAUSE-loop exit.
 */
#define PV_PLE_EXITS_SHARE 0.25

/* pv-fewer-ple-exits: over a scenario with a ticket and a pvqspin variant. */
static void judge_pv_ple_exits(const struct outcome *rep, struct judging *j)
{
	const struct series *ticket = NULL, *pv = NULL;
	double t, p;
	unsigned ticket_runs, pv_runs;
	const char *why;
	for (unsigned i = 0; i < rep->nr_series; i++) {
		const struct series *se = &rep->series[i];
		if (se->variant.lock == PLERIG_LOCK_TICKET && !ticket)
			ticket = se;
		else if (se->variant.lock == PLERIG_LOCK_PVQSPIN && !pv)
			pv = se;
	}
	if (!ticket || !pv) {
		snprintf(
		    j->skip_why, sizeof(j->skip_why),
		    "needs a ticket and a pvqspin variant in the scenario (--lock ticket,pvqspin)");
		return;
	}
	if (!ple_exits_per_acq(ticket, &t, &ticket_runs, &why) ||
	    !ple_exits_per_acq(pv, &p, &pv_runs, &why)) {
		snprintf(j->skip_why, sizeof(j->skip_why), "%s", why);
		return;
	}
	if (t <= 0.0) {
		snprintf(j->skip_why, sizeof(j->skip_why),
			 "the ticket lock made no PAUSE-loop exit: nothing to be below");
		return;
	}
	j->judged += ticket_runs + pv_runs;
	snprintf(j->figures, sizeof(j->figures),
		 "PAUSE-loop exits per acquisition: pvqspin %.3g, ticket %.3g (%.1f %%)", p, t,
		 100.0 * p / t);
	if (p > PV_PLE_EXITS_SHARE * t) {
		char fail[600];
		snprintf(fail, sizeof(fail), "%s: above %.0f %% of the ticket lock's", j->figures,
			 100.0 * PV_PLE_EXITS_SHARE);
		note_failure_text(j, "pvqspin against ticket", fail);
	}
}

/* One ok run against expectation @e: counted in @j, or a reason not to judge it. */
static void judge_run(const struct check_ctx *k, enum expectation e, const struct series *se,
		      const struct variant_result *r, unsigned run, const char *label,
		      struct judging *j)
{
	struct figures f;
	char why[512], a[32], b[32];
	bool valid;
	figures_for_variant(r, &f);
	switch (e) {
	case EXPECT_PROGRESS:
	case EXPECT_STALLS:
		return; /* over the runs together: judge_progress, judge_stalls */
	case EXPECT_NO_STALLS:
		if (!strcmp(k->out->host.kvm_module, "kvm_pvm")) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "on kvm_pvm every host interrupt is a ~45 us exit, so a host "
				 "tick inside a critical section preempts the holder without "
				 "over-commit (%" PRIu64 " stalls here)",
				 (uint64_t)f.stalls);
			return;
		}
		if (se->variant.vms * se->variant.vcpus > se->variant.nr_pcpus) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "over-committed (%u vCPUs on %u CPUs): stalls are expected",
				 se->variant.vms * se->variant.vcpus, se->variant.nr_pcpus);
			return;
		}
		if (f.run_delay_share > 0.001) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "the vCPUs waited for a CPU %s of the time (run delay: other "
				 "work on their CPUs), whose preemptions make stalls",
				 units_percent(f.run_delay_share, a, sizeof(a)));
			return;
		}
		j->judged++;
		if (f.stalls) {
			snprintf(why, sizeof(why), "%" PRIu64 " stalls (%s stalled), run delay %s",
				 (uint64_t)f.stalls, units_percent(f.stalled_share, a, sizeof(a)),
				 units_percent(f.run_delay_share, b, sizeof(b)));
			note_failure(j, label, run, why);
		}
		return;
	case EXPECT_PLE_EXITS:
	case EXPECT_NO_PLE_EXITS:
		if (!f.pause_loop_exits_valid) {
			(void)pathf(j->skip_why, sizeof(j->skip_why),
				    "PAUSE-loop exits not countable: %s",
				    r->ple_why[0] ? r->ple_why : "not counted for every vCPU");
			return;
		}
		j->judged++;
		if ((e == EXPECT_PLE_EXITS) != (f.pause_loop_exits > 0)) {
			snprintf(why, sizeof(why), "%" PRIu64 " PAUSE-loop exits",
				 (uint64_t)f.pause_loop_exits);
			note_failure(j, label, run, why);
		}
		return;
	case EXPECT_DIRECTED_YIELDS: {
		uint64_t n = directed_yields(r, &valid);
		if (!valid) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "no directed_yield_attempted stat on this kernel");
			return;
		}
		j->judged++;
		if (!n)
			note_failure(j, label, run, "0 directed yields attempted");
		return;
	}
	case EXPECT_HALTS: {
		struct halt_path h;
		halt_path_for_variant(r, &h);
		if (!h.valid) {
			snprintf(j->skip_why, sizeof(j->skip_why), "%s", h.why);
			return;
		}
		j->judged++;
		if (!h.halts || !h.kicks_sent)
			note_failure(j, label, run, "no halt and kick: a waiter never halted");
		else if (h.spurious_wakeups > h.halts)
			note_failure(j, label, run, "more spurious wake-ups than halts");
		else if (h.kicks_received > h.kicks_sent + r->nr_records) {
			/* a kick sent in an iteration that began before MEASURE may be received
			 * in a measured one: at most one per vCPU */
			snprintf(why, sizeof(why),
				 "%" PRIu64 " kicks received, %" PRIu64
				 " sent: more than 1 per vCPU crossed the interval's start",
				 h.kicks_received, h.kicks_sent);
			note_failure(j, label, run, why);
		}
		return;
	}
	case EXPECT_FTRACE_COUNTS:
		switch (check_trace_judge_run(&k->trace, r, why, sizeof(why))) {
		case TRACE_UNJUDGED:
			(void)pathf(j->skip_why, sizeof(j->skip_why), "%s", why);
			return;
		case TRACE_DIFFERS:
			j->judged++;
			note_failure(j, label, run, why);
			return;
		case TRACE_AGREES:
			j->judged++;
			if (!j->figures[0])
				(void)pathf(j->figures, sizeof(j->figures), "%s", why);
			return;
		}
		return;
	case EXPECT_HALT_STATS:
		judge_halt_stats(r, run, label, j);
		return;
	case EXPECT_PV_FEWER_PLE_EXITS: /* over the variants together: judge_pv_ple_exits */
	case EXPECT_COUNT:
		break;
	}
}

/* What passed, in figures: the first variant's first ok run. */
static void describe_pass(enum expectation e, const struct outcome *rep, char *buf, size_t len)
{
	struct figures f;
	char a[32], b[32];
	buf[0] = '\0';
	for (unsigned i = 0; i < rep->nr_series; i++)
		for (unsigned r = 0; r < rep->series[i].nr_runs; r++) {
			const struct variant_result *res = &rep->series[i].runs[r];
			if (!res->ok)
				continue;
			figures_for_variant(res, &f);
			switch (e) {
			case EXPECT_STALLS:
				snprintf(buf, len,
					 "e.g. %" PRIu64 " stalls, %s stalled, run delay %s",
					 (uint64_t)f.stalls, units_percent(f.stalled_share, a, 32),
					 units_percent(f.run_delay_share, b, 32));
				return;
			case EXPECT_PLE_EXITS:
				snprintf(buf, len, "e.g. %" PRIu64 " PAUSE-loop exits",
					 (uint64_t)f.pause_loop_exits);
				return;
			case EXPECT_HALTS: {
				struct halt_path h;
				halt_path_for_variant(res, &h);
				if (!h.valid) /* a ticket run beside pvqspin: no halt path */
					continue;
				snprintf(
				    buf, len,
				    "e.g. %" PRIu64 " halts, %" PRIu64 " kicks sent, %" PRIu64
				    " received, kick to running p50 %s p99 %s",
				    h.halts, h.kicks_sent, h.kicks_received,
				    h.kicks_timed ? units_duration_ns_2sig(h.kick_p50_ns, a, 32)
						  : "n/a (no kick)",
				    h.kicks_timed ? units_duration_ns_2sig(h.kick_p99_ns, b, 32)
						  : "n/a (no kick)");
				return;
			}
			case EXPECT_HALT_STATS: {
				struct halt_path h;
				halt_path_for_variant(res, &h);
				if (!h.valid)
					continue;
				snprintf(buf, len,
					 "e.g. %" PRIu64 " halts, KVM %" PRIu64
					 " halt_exits; %" PRIu64 " kicks received, KVM %" PRIu64
					 " halt_wakeup + %" PRIu64 " successful polls",
					 h.halts, h.kvm[HALT_STAT_EXITS], h.kicks_received,
					 h.kvm[HALT_STAT_WAKEUP], h.kvm[HALT_STAT_SUCCESSFUL_POLL]);
				return;
			}
			default:
				snprintf(buf, len, "e.g. %s acq/s, %" PRIu64 " stalls",
					 units_count(f.acq_per_s, a, 32), (uint64_t)f.stalls);
				return;
			}
		}
}

/*
 * A spinning lock run beside pvqspin (--lock ticket,pvqspin) has no halt
 * path by design: the halt expectations leave it out instead of calling it
 * "not judged". Without a pvqspin variant they say why they cannot judge.
 */
static bool beside_pvqspin(enum expectation e, const struct outcome *rep, const struct series *se)
{
	if ((e != EXPECT_HALTS && e != EXPECT_HALT_STATS) ||
	    se->variant.lock == PLERIG_LOCK_PVQSPIN)
		return false;
	for (unsigned i = 0; i < rep->nr_series; i++)
		if (rep->series[i].variant.lock == PLERIG_LOCK_PVQSPIN)
			return true;
	return false;
}

int check_judge_expectations(struct check_ctx *k, const struct scenario *s,
			     const struct outcome *rep)
{
	char label[160], pass[512];
	for (unsigned e = 0; e < EXPECT_COUNT; e++) {
		if (!(s->expects & (1u << e)))
			continue;
		struct judging j = {0};
		if (e == EXPECT_PV_FEWER_PLE_EXITS)
			judge_pv_ple_exits(rep, &j);
		for (unsigned i = 0; e != EXPECT_PV_FEWER_PLE_EXITS && i < rep->nr_series; i++) {
			const struct series *se = &rep->series[i];
			if (beside_pvqspin(e, rep, se))
				continue;
			check_variant_label(&se->variant, label, sizeof(label));
			if (e == EXPECT_PROGRESS)
				judge_progress(se, label, &j);
			else if (e == EXPECT_STALLS)
				judge_stalls(se, label, &j);
			else
				for (unsigned r = 0; r < se->nr_runs; r++)
					if (se->runs[r].ok)
						judge_run(k, e, se, &se->runs[r], r, label, &j);
		}
		const char *name = expectation_name(e);
		int rc;
		if (j.failed)
			rc = check_result_add(k->out, s->name, name, CHECK_FAIL,
					      "failed %u time(s) over %u runs; first: %s", j.failed,
					      j.judged, j.first_failure);
		else if (!j.judged)
			rc = check_result_add(k->out, s->name, name, CHECK_SKIP, "%s",
					      j.skip_why[0] ? j.skip_why : "no ok run to judge");
		else {
			if (j.figures[0])
				(void)pathf(pass, sizeof(pass), "%s", j.figures);
			else
				describe_pass(e, rep, pass, sizeof(pass));
			rc = check_result_add(
			    k->out, s->name, name, CHECK_PASS, "held in %u runs; %s%s%s", j.judged,
			    pass, j.skip_why[0] ? "; not judged in some: " : "", j.skip_why);
			/* what could not be judged is said in the summary too, not only in TAP */
			if (!rc && j.skip_why[0])
				check_result_brief(k->out, "held; not judged in some: %s",
						   j.skip_why);
		}
		if (rc)
			return -1;
	}
	return 0;
}

int check_note_failed_runs(struct check_ctx *k, const struct scenario *s, const struct outcome *rep)
{
	char label[160];
	for (unsigned i = 0; i < rep->nr_series; i++)
		for (unsigned r = 0; r < rep->series[i].nr_runs; r++) {
			const struct variant_result *res = &rep->series[i].runs[r];
			if (res->ok)
				continue;
			check_variant_label(&rep->series[i].variant, label, sizeof(label));
			return check_result_add(k->out, s->name, "runs", CHECK_FAIL,
						"%s, run %u failed: %s", label, r, res->error);
		}
	return 0;
}
