// SPDX-License-Identifier: GPL-2.0
/*
 * check's expectations of guests that halt (lock pvqspin): halts and kicks
 * happen, KVM's halt stats agree with the guest's counts, and a pvqspin
 * waiter ends in far fewer PAUSE-loop exits than a ticket lock's.
 */
#include "experiment/check_judging.h"

#include <inttypes.h>
#include <stdio.h>

#include "model/results.h"
#include "model/halt_path.h"

/*
 * The lock's acquisitions between the host's two readings that the guests
 * did not measure: the host reads KVM's stats, then the lock's counter,
 * then sets MEASURE, and at the end sets STOP, then reads both again, so
 * the acquisitions the guests made before they saw MEASURE (or after
 * STOP) while the host read are in KVM's counts and not in the guests'.
 * 0 where the backend did not read the lock there.
 */
static uint64_t unmeasured_in_window(const struct variant_result *r)
{
	uint64_t window = 0, measured = 0;
	if (!r->window_acquisitions)
		return 0;
	for (unsigned m = 0; m < r->variant.vms; m++)
		window += r->window_acquisitions[m];
	for (unsigned i = 0; i < r->nr_records; i++)
		measured += r->records[i].guest.acquisitions;
	return window > measured ? window - measured : 0;
}

/*
 * How far a measured interval's counts of one halt path may part: the
 * guest counts an iteration (its halts, wake-ups, kicks) only if it began
 * and ended inside MEASURE, KVM's stats are read when the host's interval
 * begins and ends, so each vCPU may be inside one iteration at each edge
 * whose halt KVM counts and the guest does not (and the other way round);
 * each acquisition made while the host read (unmeasured_in_window) is at
 * most one more halt, kick and wake-up: Debian's 6.12 in L1 reads KVM's
 * stats more slowly than 6.1, and 3-7 of pvqspin-queue's hand-offs a run
 * fell there, against 3-4 on 6.1 (2026-12-03); a waiter woken without the
 * lock (a spurious wake-up) halts again inside the same iteration.
 */
static uint64_t halt_edge_allowance(const struct variant_result *r, const struct halt_path *h)
{
	return 2ull * r->nr_records + unmeasured_in_window(r) + h->spurious_wakeups;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* halts: lock pvqspin halted and was kicked, and no more kicks arrived than were sent. */
void expect_halts(const struct variant_result *r, unsigned run, const char *label,
		  struct judging *j)
{
	char why[512];
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
}

/*
 * halt-stats: KVM's count of the same halts. The guest has no interrupt
 * source, so only a kick ends its halt: each HLT is one halt exit, and
 * each wake-up (halt_wakeup, or a halt poll that saw the kick) has a kick
 * behind it. A kick that came before the HLT ends it at once, with
 * neither, which is why the wake-ups may fall short of the kicks.
 */
void expect_halt_stats(const struct variant_result *r, unsigned run, const char *label,
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
			 " apart (2 per vCPU at the interval's edges, 1 per acquisition the host's "
			 "readings held and the guests did not measure, 1 per spurious wake-up)",
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
void expect_pv_fewer_ple_exits(const struct outcome *rep, struct judging *j)
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
