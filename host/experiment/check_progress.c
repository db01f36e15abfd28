// SPDX-License-Identifier: GPL-2.0
/*
 * check's progress and stalls: whether a variant's lock moved, and whether
 * over-commit showed, judged over its runs together against what the host
 * let happen (how long each vCPU ran, how long it waited for a CPU).
 */
#include "experiment/check_judging.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/results.h"

/*
 * A lock the host let its vCPUs run for less than this each can have made
 * no acquisition without anything being wrong: the holder, or the waiter
 * next in line, may never have run after the lock was released.
 */
#define PROGRESS_MIN_RUN_NS 10000000ull

/* What expect_progress keeps of one vCPU over the runs. */
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
void expect_progress(const struct series *se, const char *label, struct judging *j)
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
void expect_stalls(const struct series *se, const char *label, struct judging *j)
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
