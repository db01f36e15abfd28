// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_expect.h"

#include <inttypes.h>
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
 * A vCPU thread the host let run for less than this can have made no
 * acquisition without anything being wrong: it was never in the lock's
 * queue, or the holder it waited for never ran.
 */
#define PROGRESS_MIN_RUN_NS 10000000ull

static void note_failure_text(struct judging *j, const char *label, const char *why)
{
	if (!j->failed++)
		(void)pathf(j->first_failure, sizeof(j->first_failure), "%s: %s", label, why);
}

/*
 * Progress, over all ok runs of a variant together: the lock of every VM
 * moves, and under a fair lock every vCPU gets it. One run on a loaded
 * host can starve a vCPU, or a whole queue behind a descheduled ticket
 * holder, by scheduling luck alone; all the runs of a variant cannot.
 * Where the host gave the vCPUs too little CPU to tell, it is not judged.
 */
static void judge_progress(const struct series *se, const char *label, struct judging *j)
{
	const struct variant *v = &se->variant;
	unsigned n = v->vms * v->vcpus, runs = 0;
	/* a pvqspin that ran as test-and-set (no kick here) is as unfair as one */
	bool fair = lock_is_fair(v->lock);
	uint64_t *acq = calloc(2 * (n + v->vms) + 1, sizeof(*acq));
	uint64_t *ran = acq + n, *vm_acq = ran + n, *vm_ran = vm_acq + v->vms;
	char why[400];
	if (!acq)
		return;
	for (unsigned r = 0; r < se->nr_runs; r++) {
		const struct variant_result *res = &se->runs[r];
		if (!res->ok)
			continue;
		runs++;
		fair &= v->lock != PLERIG_LOCK_PVQSPIN || res->pv_unhalt;
		for (unsigned i = 0; i < res->nr_records && i < n; i++) {
			const struct vcpu_record *rec = &res->records[i];
			acq[i] += rec->guest.acquisitions;
			ran[i] += rec->sched.run_ns;
			if (rec->vm < v->vms) {
				vm_acq[rec->vm] += rec->guest.acquisitions;
				vm_ran[rec->vm] += rec->sched.run_ns;
			}
		}
	}
	j->judged += runs;
	for (unsigned i = 0; runs && i < n + v->vms; i++) {
		bool vcpu = i < n;
		if (vcpu ? acq[i] || !fair : vm_acq[i - n])
			continue;
		if (vcpu)
			snprintf(
			    why, sizeof(why),
			    "vCPU %u of VM %u made 0 acquisitions in %u runs under a fair (%s) "
			    "lock, running %.1f ms in all",
			    i % v->vcpus, i / v->vcpus, runs, lock_name(v->lock),
			    (double)ran[i] * 1e-6);
		else
			snprintf(why, sizeof(why),
				 "VM %u's lock made no acquisition in %u runs, its vCPUs running "
				 "%.1f ms in all",
				 i - n, runs, (double)vm_ran[i - n] * 1e-6);
		if ((vcpu ? ran[i] : vm_ran[i - n]) >= PROGRESS_MIN_RUN_NS)
			note_failure_text(j, label, why);
		else
			(void)pathf(j->skip_why, sizeof(j->skip_why),
				    "the host gave the vCPUs too little CPU to tell: %s", why);
	}
	free(acq);
}

/*
 * Over-commit shows: run-queue delay and stalls, in the runs together.
 * (Not per run: schedstat books a wait when the thread next runs, so a run
 * whose vCPUs the host never scheduled shows no delay at all.)
 */
static void judge_stalls(const struct series *se, const char *label, struct judging *j)
{
	uint64_t stalls = 0;
	double delay_ns = 0.0;
	unsigned runs = 0;
	char why[256];
	for (unsigned r = 0; r < se->nr_runs; r++) {
		struct figures f;
		if (!se->runs[r].ok)
			continue;
		figures_for_variant(&se->runs[r], &f);
		runs++;
		stalls += f.stalls;
		delay_ns += f.run_delay_ns;
	}
	j->judged += runs;
	if (runs && (!stalls || delay_ns <= 0.0)) {
		snprintf(why, sizeof(why), "%" PRIu64 " stalls and %.1f ms of run delay in %u runs",
			 stalls, delay_ns * 1e-6, runs);
		note_failure_text(j, label, why);
	}
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
		return;
	}
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
				snprintf(buf, len,
					 "e.g. %" PRIu64 " halts, %" PRIu64 " kicks sent, %" PRIu64
					 " received",
					 h.halts, h.kicks_sent, h.kicks_received);
				return;
			}
			default:
				snprintf(buf, len, "e.g. %s acq/s, %" PRIu64 " stalls",
					 units_count(f.acq_per_s, a, 32), (uint64_t)f.stalls);
				return;
			}
		}
}

int check_judge_expectations(struct check_ctx *k, const struct scenario *s,
			     const struct outcome *rep)
{
	char label[160], pass[256];
	for (unsigned e = 0; e < EXPECT_COUNT; e++) {
		if (!(s->expects & (1u << e)))
			continue;
		struct judging j = {0};
		for (unsigned i = 0; i < rep->nr_series; i++) {
			const struct series *se = &rep->series[i];
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
			describe_pass(e, rep, pass, sizeof(pass));
			rc = check_result_add(
			    k->out, s->name, name, CHECK_PASS, "held in %u runs; %s%s%s", j.judged,
			    pass, j.skip_why[0] ? "; not judged in some: " : "", j.skip_why);
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
