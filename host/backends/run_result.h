/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every backend does to the result of one run, whatever drives it
 * (the phase driver for kvm and native, the guest's own clock on libvirt):
 * allocate its records, keep the first failure, take the host-side
 * counters of every vCPU thread before and after the measured interval,
 * and check that each VM's lock excluded.
 */
#ifndef PLERIG_RUN_RESULT_H
#define PLERIG_RUN_RESULT_H

#include "measure/cpu_load.h"
#include "model/results.h"

/* Allocate r's records for @v; 0 or -1 with r->error set. */
int variant_result_init(struct variant_result *r, const struct variant *v);
/* Record the first failure of the run in r->error (later ones are dropped); returns -1. */
int run_fail(struct variant_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The host-side counters of one vCPU thread at one instant. */
struct counter_snapshot {
	struct schedstat sched;
	struct kvm_stats_snapshot kvm;
	struct ple_counts ple;
};

/* Every vCPU's counters at both ends of the measured interval (r->nr_records each). */
struct interval_snapshots {
	struct counter_snapshot *before, *after;
	struct cpu_load load_before, load_after; /* the variant's host CPUs */
};

/* 0, or -1 with the failure recorded in @r. */
int interval_snapshots_alloc(struct interval_snapshots *s, struct variant_result *r);
/*
 * The busy time of the variant's host CPUs, next to the vCPU snapshots
 * (before or after the interval); a failed read leaves r->foreign_why.
 */
void interval_snapshots_load(struct interval_snapshots *s, struct variant_result *r, bool after);
/* Each record's sched, kvm and ple: after - before; and the foreign load. */
void interval_snapshots_delta(const struct interval_snapshots *s, struct variant_result *r);
void interval_snapshots_free(struct interval_snapshots *s);

/* What a reader of this variant's PAUSE-loop exits must know, in r->ple_note. */
void run_note_ple(struct variant_result *r, const struct ple_probe *p);
/* Open the PLE counters of one vCPU thread; the first reason one cannot count goes to r->ple_why.
 */
void run_open_ple_counters(struct variant_result *r, struct ple_counters *c,
			   const struct ple_probe *p, pid_t tid);
/* The first reason an opened counter does not count goes to r->ple_why. */
void run_note_ple_why(struct variant_result *r, const struct ple_counters *c);

/*
 * --exit-times, once every record has its exit_times and kvm deltas: where
 * the exits stat counted exits but no kvm_exit was traced (PVM fires
 * neither kvm_exit nor kvm_entry), or exits never met their entries, the
 * figures are unavailable with that reason instead of a 0. @module names
 * the KVM module in the reason.
 */
void run_check_exit_times(struct variant_result *r, const char *module);

#endif
