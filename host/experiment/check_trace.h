/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `expect = ftrace-counts`: while a scenario's first round runs, ftrace
 * histograms in a tracing instance of the check's own count, per thread,
 * every kvm_exit (by exit reason) and every kvm_ple_window_update; then
 * each vCPU's counts over its whole life (the exits stat, plerig's
 * PAUSE-loop exits and window updates) must equal ftrace's for its thread.
 *
 * `expect = yield-trace` and `kick-trace` (struct check_calls): where
 * pv-yield's directed yields and pvqspin's kicks end, counted the same way
 * with kprobe events beside the tracepoints (what used to be make
 * ple-test's pv-yield-trace and pvqspin-trace steps, judged in Python).
 * Private to experiment/check_*.c.
 */
#ifndef PLERIG_CHECK_TRACE_H
#define PLERIG_CHECK_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "measure/trace_hist.h"
#include "model/results.h"

struct check_trace {
	bool active;   /* histograms are counting */
	bool read;     /* exits and windows hold the counts */
	char why[512]; /* why there are none ("" when there are) */
	struct trace_hist hist;
	struct trace_hist_table exits;	 /* keys: thread, exit reason */
	struct trace_hist_table windows; /* key: thread */
};

/* Remove the tracing instances of killed checks under @tracefs, a line on @say each. */
void check_trace_sweep(const char *tracefs, FILE *say);

/*
 * Start counting for a scenario (a failure leaves t->why: the expectation
 * is skipped with it); not where it runs on another host (@elsewhere). The
 * instance of the scenario before, where @t still holds one, counts again
 * from zero.
 */
void check_trace_begin(struct check_trace *t, bool elsewhere);

/* Read the counts; the histograms go on counting (the rounds run again keep their cost). */
void check_trace_collect(struct check_trace *t);
/* Forget the counts; the instance stays for the next scenario's begin. */
void check_trace_free(struct check_trace *t);
/* Remove the instance and its triggers: before a scenario that does not count, at the end. */
void check_trace_end(struct check_trace *t);

enum trace_verdict { TRACE_AGREES, TRACE_DIFFERS, TRACE_UNJUDGED };

/*
 * Every vCPU of run @r against @t's counts. TRACE_DIFFERS with @detail
 * naming the vCPU, thread and both counts of the first difference;
 * TRACE_UNJUDGED with @detail saying why nothing could be compared;
 * TRACE_AGREES with @detail giving the counts of the first vCPU.
 */
enum trace_verdict check_trace_judge_run(const struct check_trace *t,
					 const struct variant_result *r, char *detail, size_t len);

/*
 * yield-trace: kvm:kvm_hypercall per thread, nr and a0 (KVM_HC_SCHED_YIELD,
 * 11, names its target's APIC ID in a0), and kprobe events at
 * kvm_vcpu_yield_to (entry and return) and the scheduler's yield_to
 * (return). kick-trace: kvm:kvm_hypercall per thread, nr and a1
 * (KVM_HC_KICK_CPU, 5: a1 the APIC ID kicked), kvm:kvm_apic_accept_irq per
 * APIC ID and delivery mode (a kick is APIC_DM_REMRD, 0x300), what
 * kvm_irq_delivery_to_apic returned (a kretprobe: 1, one APIC reached),
 * kvm:kvm_exit per thread and reason (the halt exits) and
 * kvm:kvm_vcpu_wakeup per thread. Over the first round's whole runs.
 */
enum check_calls_kind { CHECK_CALLS_YIELDS, CHECK_CALLS_KICKS };
#define CHECK_CALLS_MAX 5

struct check_calls {
	enum check_calls_kind kind;
	/* kvm_exit's HLT reason where a run has no PAUSE reason to tell VMX from SVM (PLE
	 * off): from the host's KVM module (check_calls_begin); 0 unknown */
	uint32_t hlt_reason;
	bool active, read;
	char why[512];
	struct trace_hist hist;
	unsigned nr;
	struct trace_hist_table tab[CHECK_CALLS_MAX]; /* in the order of check_trace.c's tables */
};

/* @kvm_module: the host's ("kvm_intel", "kvm_amd"), for the HLT exit reason. */
void check_calls_begin(struct check_calls *c, enum check_calls_kind kind, const char *scenario,
		       bool elsewhere, const char *kvm_module);
void check_calls_collect(struct check_calls *c);
void check_calls_free(struct check_calls *c);

/*
 * yield-trace for run @r: ftrace saw KVM_HC_SCHED_YIELD at all and at least
 * as many as KVM's directed_yield_attempted counted in the measured
 * interval; no yield names the yielding vCPU itself; KVM counted a
 * successful one. Verdicts and @detail as check_trace_judge_run.
 */
enum trace_verdict check_calls_judge_yields(const struct check_calls *c,
					    const struct variant_result *r, char *detail,
					    size_t len);
/*
 * kick-trace for run @r (lock pvqspin): every KVM_HC_KICK_CPU reached exactly
 * the APIC it named (accepted there as APIC_DM_REMRD, kvm_irq_delivery_to_apic
 * returned 1 each time), the last vCPU's too; every halt exit of a thread
 * ended in a wake-up of that thread; the guest's halts and kicks sent in the
 * measured interval are within the traced ones.
 */
enum trace_verdict check_calls_judge_kicks(const struct check_calls *c,
					   const struct variant_result *r, char *detail,
					   size_t len);

#endif
