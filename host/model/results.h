/* SPDX-License-Identifier: GPL-2.0 */
/* What one run of one variant measured, and the figures derived from it. */
#ifndef PLERIG_RESULTS_H
#define PLERIG_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/time_scale.h"
#include "model/variant.h"
#include "measure/exit_timer.h"
#include "measure/kvm_stats.h"
#include "measure/schedstat.h"
#include "measure/ple_counters.h"
#include "plerig/abi.h"

/*
 * A vCPU's counts over its whole life, boot and warm-up included, read
 * after it stopped: exactly what an outside count of its thread's events
 * (ftrace's kvm_exit, say) over the same run must give.
 */
struct vcpu_lifetime {
	bool valid; /* the backend counts whole lives (the kvm backend does) */
	bool exits_valid;
	uint64_t exits;	       /* the exits stat */
	struct ple_counts ple; /* PAUSE-loop exits, window updates */
};

struct vcpu_record {
	unsigned vm;
	unsigned vcpu;
	int host_cpu; /* pinned CPU, -1 when floating on the set */
	pid_t tid;
	struct plerig_vcpu_result guest; /* copied out of the shared block */
	struct schedstat sched;		 /* delta over the measured interval */
	struct kvm_stats_snapshot kvm;	 /* delta over the measured interval */
	struct ple_counts ple;		 /* PAUSE-loop exits, window updates: same interval */
	struct vcpu_lifetime lifetime;
	struct exit_times exit_times; /* --exit-times: time in KVM exits, same interval */
};

/* Lifecycle timestamps, ns since the run started (CLOCK_MONOTONIC). */
struct run_timing {
	uint64_t created_ns;	      /* all VMs and vCPUs created, images loaded */
	uint64_t ready_ns;	      /* every vCPU reported READY */
	uint64_t first_acq_ns;	      /* first acquisition seen in any VM (polled) */
	uint64_t stopped_ns;	      /* every vCPU reported DONE */
	uint64_t torn_down_ns;	      /* every fd closed, every thread joined */
	uint64_t setup_insn_emulated; /* insn_emulation over boot: ring-0 setup cost */
};

struct variant_result {
	struct variant variant;
	bool ok;
	char error[1024];  /* why the run failed, when !ok: a hang names every vCPU */
	double interval_s; /* measured interval, host clock */
	/* from the MEASURE flip to the STOP flip, the longest the guests can have
	 * measured: the interval plus the counter reads before STOP (0: the
	 * interval itself); what their figures are checked against */
	double window_s;
	uint64_t tsc_khz;
	struct run_timing timing;
	unsigned nr_records; /* vms * vcpus */
	struct vcpu_record *records;
	uint64_t *protected_counter; /* per VM: the lock's integrity counter */
	/*
	 * Per VM: the lock's acquisitions, measured or not, between the snapshots
	 * that give the vCPUs' run time (the same two instants). NULL where not
	 * read: a self-timed guest (libvirt) reports its counter only at its end.
	 */
	uint64_t *window_acquisitions;
	char ple_why[512]; /* why PAUSE-loop exits are not counted ("" when they are) */
	/* why PLE window updates are not counted where PAUSE-loop exits are ("": ple_why) */
	char ple_window_why[512];
	char ple_note[160]; /* what a reader of the count must know (e.g. CPL > 0 on VMX) */
	bool steal_time;    /* the guests registered steal time: *_self_preempted counts hold */
	/* lock pvqspin halted and kicked; else why not (it ran as test-and-set) */
	bool pv_unhalt;
	char pv_why[192];
	/* --exit-times: why exit times are not measured ("" when they are or were not asked for) */
	char exit_times_why[256];
	/* why run delay and run time of the vCPU threads are not measured ("" when they are) */
	char sched_why[256];
	/* where they come from when not this host's schedstat, and how precise they are */
	char sched_note[160];
	/* why KVM's exit count is missing where the backend knows ("": model/results.c says) */
	char exits_why[256];
	bool timeslices_unknown; /* the source does not count the times a thread ran */
	/* kvm_exit's reason for a PAUSE-loop exit (40 VMX, 0x77 SVM); 0: none on this host */
	uint32_t ple_exit_reason;
	/*
	 * The foreign load: CPU time other work took on the variant's host
	 * CPUs in the measured interval (their busy time less the vCPU
	 * threads' run time, measure/cpu_load.h), and the CPUs' whole time
	 * between the same two readings, what it is a share of. foreign_why
	 * says why it was not measured ("" when it was).
	 */
	double foreign_cpu_ns;
	double foreign_capacity_ns;
	char foreign_why[160];
};

/* Per-vCPU or per-variant figures, in ns where time. */
struct figures {
	uint64_t acquisitions;
	double acq_per_s;
	/*
	 * Acquisitions per second of CPU the vCPU threads actually received
	 * (schedstat run time): what the host took away does not count. NaN
	 * without a run time. NaN too, with run_delay_*, run_time_ns, where
	 * the backend could not read the scheduler's figures (sched_why).
	 */
	double acq_per_cpu_s;
	double wait_p50_ns;
	double wait_p99_ns;
	/* the histogram bucket each percentile lies in, [low, high) ns: its precision */
	double wait_p50_bucket_ns[2];
	double wait_p99_bucket_ns[2];
	double wait_max_ns;
	double wait_mean_ns;
	double hold_p50_ns;
	double hold_max_ns;
	uint64_t stalls;
	double stalled_ns;
	double stalled_share; /* stalled time / (vCPUs * interval) */
	uint64_t holder_preemptions;
	uint64_t stalls_self_preempted;	   /* with steal time; see plerig_vcpu_result */
	uint64_t holder_preemptions_steal; /* with steal time */
	double run_delay_ns;		   /* host run-queue wait of the vCPU thread(s) */
	double run_delay_share;		   /* run_delay / (run_delay + run_time) */
	double run_time_ns;
	double foreign_cpu_share; /* of the CPUs' time in the interval; NaN: not measured, or per
				     vCPU */
	uint64_t exits;
	bool exits_valid;
	uint64_t irq_exits; /* exits for host interrupts; on PVM nearly all exits (exits - 1) */
	bool irq_exits_valid;
	uint64_t pause_loop_exits;
	bool pause_loop_exits_valid;
	uint64_t ple_window_updates;
	bool ple_window_updates_valid;
	/*
	 * PAUSE-loop exits per second of the measured interval: KVM's exit
	 * rate, which holds where a lock's hand-offs per exit do not (the
	 * ticket lock over-committed). NaN without the count (ple_why) or
	 * without an interval (rate_why); ple_rate_why says which.
	 */
	double ple_exits_per_s;
	/*
	 * Lock pvqspin's halt path (model/halt_path.h): kick-to-running
	 * latency (NaN without a kick), the guest's halts, KVM's halt exits,
	 * wake-ups and successful halt polls of the same vCPUs. Not counted:
	 * invalid, 0, and the reason in kick_why, halts_why, halt_stats_why.
	 */
	double kick_p50_ns, kick_p99_ns;
	uint64_t halts;
	bool halts_valid;
	uint64_t halt_exits, halt_wakeups, halt_polls;
	bool halt_exits_valid, halt_wakeups_valid, halt_polls_valid;
	/*
	 * Why a figure above is NaN, not measured (never a 0 that was not
	 * measured): static text, NULL where the figures were measured.
	 */
	const char *rate_why;	    /* acq_per_s, stalled_share: no measured interval */
	const char *wait_why;	    /* wait_*: no acquisition, or no TSC rate */
	const char *hold_why;	    /* hold_*: likewise */
	const char *stalled_why;    /* stalled_ns: no TSC rate */
	const char *cpu_why;	    /* acq_per_cpu_s: no CPU time received, or sched_why */
	const char *share_why;	    /* run_delay_share: never runnable, or sched_why */
	const char *exits_why;	    /* exits: no VM, or the stat missing for a vCPU */
	const char *ple_why;	    /* pause_loop_exits: not counted (the backend, the host) */
	const char *ple_rate_why;   /* ple_exits_per_s: ple_why, or no interval */
	const char *ple_window_why; /* ple_window_updates: likewise */
	const char *kick_why;  /* kick_p50_ns, kick_p99_ns: not pvqspin, no kick, no TSC rate */
	const char *halts_why; /* halts: not pvqspin, or it ran as test-and-set */
	const char *halt_stats_why; /* halt_exits, _wakeups, _polls: no VM, or not KVM's stats */
};

void figures_for_vcpu(const struct variant_result *r, const struct vcpu_record *rec,
		      struct figures *out);
void figures_for_variant(const struct variant_result *r, struct figures *out);

void variant_result_free(struct variant_result *r);

#endif
