/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PAUSE-loop exits and PLE window updates per vCPU thread, exact, from the
 * kvm:kvm_exit tracepoint filtered on the PAUSE exit reason (40 on VMX,
 * 0x77 on SVM) and from kvm:kvm_ple_window_update. No KVM stat counts them.
 *
 * Where a figure cannot be had, the probe says why (no hardware PLE on
 * this host, no tracefs, no permission) so reports print the reason, never
 * a misleading 0.
 *
 *   ple_probe_init(&probe);                 once, before the vCPU threads
 *   ple_counters_open(&c, &probe, tid)      per vCPU, before the interval
 *   ple_counters_read(&c, &before) ... ple_counters_read(&c, &after)
 *   ple_counts_delta(&before, &after, &d);  ple_counters_close(&c);
 */
#ifndef PLERIG_PLE_COUNTERS_H
#define PLERIG_PLE_COUNTERS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "plerig/abi.h"
#include "ple/host_params.h"
#include "measure/trace_counter.h"

#define PLE_EXIT_REASON_VMX 40	  /* EXIT_REASON_PAUSE_INSTRUCTION */
#define PLE_EXIT_REASON_SVM 0x077 /* SVM_EXIT_PAUSE */

struct ple_probe {
	char module[PLE_MODULE_LEN]; /* "" when no KVM module */
	enum ple_vendor vendor;
	char tracefs[PATH_MAX];
	char pause_filter[48];	   /* "exit_reason == 40" */
	bool pause_exits_ok;	   /* counters can be opened (per thread they still may fail) */
	char pause_exits_why[512]; /* when !pause_exits_ok */
	bool window_updates_ok;
	char window_updates_why[512];
	char host_note[160]; /* e.g. "ple_gap=0: PAUSE interception off host-wide" */
};

/* Once per run: where PLE figures come from on this host. Never fails. */
void ple_probe_init(struct ple_probe *p);

/*
 * Something a reader of a variant's PAUSE-loop exits must know that is
 * not an unavailability (the count is exact, it is just expected to be 0):
 * Intel PLE ignores PAUSE at guest CPL > 0; PAUSE interception is off for
 * this VM (@ple_off) or for the whole host. NULL when nothing.
 */
const char *ple_variant_note(const struct ple_probe *p, enum plerig_ring ring, bool ple_off);

struct ple_counts {
	uint64_t pause_exits;
	uint64_t window_updates;
	bool pause_exits_valid;
	bool window_updates_valid;
};

struct ple_counters {
	struct trace_counter pause_exits;
	struct trace_counter window_updates;
	/* why a figure is not counted ("" when it is): report it instead of a 0 */
	char pause_exits_why[512];
	char window_updates_why[512];
};

/*
 * Start counting in thread @tid (a vCPU thread of this process), before
 * the measured interval. Returns 0 when both figures count; otherwise
 * -errno, and the figure that does not count has its reason in
 * c->pause_exits_why / c->window_updates_why (the other one still counts).
 */
int ple_counters_open(struct ple_counters *c, const struct ple_probe *p, pid_t tid);
/* Counts since open; a counter that is closed or fails to read is invalid. */
void ple_counters_read(const struct ple_counters *c, struct ple_counts *out);
/* d = after - before, valid where both are. */
void ple_counts_delta(const struct ple_counts *before, const struct ple_counts *after,
		      struct ple_counts *d);
void ple_counters_close(struct ple_counters *c);

/*
 * The probe's tracepoints kept registered with perf while a backend lives:
 * one counter of each on the calling thread (which runs no vCPU: it counts
 * nothing), so that closing a run's counters never closes the last one.
 * Closing the last perf event of a tracepoint unregisters its probe and
 * waits for grace periods (perf_trace_event_unreg ->
 * tracepoint_synchronize_unregister): in the emulated host's L1 (Linux 6.1
 * under Bochs) closing a variant's counters took 2.0 emulated s, every
 * variant, of the 2.7 s one took from request to result. Best effort: a
 * tracepoint that cannot be held is left to the runs' own counters.
 */
struct ple_hold {
	struct trace_counter pause_exits;
	struct trace_counter window_updates;
};
void ple_hold_open(struct ple_hold *h, const struct ple_probe *p);
/* Harmless on a hold that holds nothing. */
void ple_hold_close(struct ple_hold *h);

#endif
