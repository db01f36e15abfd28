/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host <-> guest ABI of plerig: configuration in, results out.
 *
 * Compiled into the freestanding guest, the host tool and the native
 * baseline alike, so it uses only fixed-width types and no libc.
 * Everything lives in one shared block at PLERIG_SHARED_GPA that both
 * sides see as plain memory (the kvm backend maps it, the native backend
 * allocates it); the guest never copies results out byte by byte in a hot
 * path, since a guest exit costs ~50 us on PVM.
 */
#ifndef PLERIG_ABI_H
#define PLERIG_ABI_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

#define PLERIG_ABI_MAGIC   0x31304749524c4550ull /* "PLERIG01" little-endian */
#define PLERIG_ABI_VERSION 4u

#define PLERIG_MAX_VCPUS 64   /* also used by the guest assembly: no suffixes */
#define PLERIG_CACHELINE 128u /* two lines: defeats the adjacent-line prefetcher */

/* Guest-physical memory map (identity-mapped by the guest). */
#define PLERIG_IMAGE_BASE     0x00100000 /* ELF segments must lie in [BASE, SHARED) */
#define PLERIG_SHARED_GPA     0x00800000
#define PLERIG_SHARED_SIZE    0x00800000
#define PLERIG_GUEST_MEM_SIZE (PLERIG_SHARED_GPA + PLERIG_SHARED_SIZE)

/*
 * Guest -> host events: a 32-bit store to PLERIG_EVENT_MMIO_GPA, which no
 * memory backs, so it exits to the host as MMIO. This works from guest
 * ring 3 as from ring 0 (under PVM, ring 3 reaches neither ring 0 through
 * int/syscall nor the host through OUT with IOPL=3). One exit per vCPU
 * at the end of a run, never in the storm itself.
 */
#define PLERIG_EVENT_MMIO_GPA	0x3ffff000
#define PLERIG_EVENT_READY	0x4ead /* set up; the host resumes it when every vCPU is */
#define PLERIG_EVENT_DONE	0x600d /* storm finished, results are in shared memory */
#define PLERIG_EVENT_FAULT	0xdead /* exception: see plerig_vcpu_result.fault */
#define PLERIG_EVENT_BAD_CONFIG 0xbadc /* config block missing or invalid */

#ifndef __ASSEMBLER__

enum plerig_lock_kind {
	PLERIG_LOCK_TICKET = 0, /* fair FIFO: exposes lock-waiter preemption */
	PLERIG_LOCK_TAS = 1,	/* test-and-test-and-set: unfair */
	PLERIG_LOCK_MCS = 2,	/* queued, local spinning */
	/* MCS queue with the paravirtual slow path of Linux's pv qspinlock: spin, then halt
	 * until the releasing holder kicks (KVM_HC_KICK_CPU) */
	PLERIG_LOCK_PVQSPIN = 3,
	PLERIG_LOCK_COUNT
};

enum plerig_relax_kind {
	PLERIG_RELAX_PAUSE = 0,	    /* f3 90 */
	PLERIG_RELAX_NOP = 1,	    /* 90 */
	PLERIG_RELAX_REP_PAUSE = 2, /* f3 f3 90 */
	PLERIG_RELAX_NONE = 3,	    /* empty spin */
	PLERIG_RELAX_PV_YIELD =
	    4, /* PAUSE; every pv_yield_spins a KVM_HC_SCHED_YIELD to the holder */
	PLERIG_RELAX_COUNT
};

enum plerig_ring {
	PLERIG_RING_KERNEL = 0,
	PLERIG_RING_USER = 3,
};

/* Written by the host only; the storm reads it once per iteration. */
enum plerig_phase {
	PLERIG_PHASE_BOOT = 0,	  /* vCPUs come up and report READY */
	PLERIG_PHASE_WARMUP = 1,  /* storm runs, figures are not kept */
	PLERIG_PHASE_MEASURE = 2, /* storm runs, figures are kept */
	PLERIG_PHASE_STOP = 3,	  /* finish the current iteration and leave */
};

/* Written by each vCPU about itself. */
enum plerig_vcpu_state {
	PLERIG_VCPU_OFF = 0,
	PLERIG_VCPU_READY = 1, /* set up, waiting for WARMUP */
	PLERIG_VCPU_RUNNING = 2,
	PLERIG_VCPU_DONE = 3,
	PLERIG_VCPU_FAULT = 4,
};

/*
 * Histograms are log2 with PLERIG_HIST_SUB_BITS of linear sub-buckets per
 * power of two (HDR style): values below 2^SUB_BITS get a bucket each,
 * larger ones have a relative bucket width of at most 2^-SUB_BITS.
 * See plerig/histogram.h for the mapping, shared by both sides.
 */
#define PLERIG_HIST_SUB_BITS 3u
#define PLERIG_HIST_BUCKETS  ((64u - PLERIG_HIST_SUB_BITS + 1u) << PLERIG_HIST_SUB_BITS)

/* Failures the guest makes on request, so the host's handling of them is tested for real. */
enum plerig_inject {
	PLERIG_INJECT_NONE = 0,
	PLERIG_INJECT_FAULT = 1, /* ud2 where the storm would start: an exception report */
	PLERIG_INJECT_HANG = 2,	 /* never report DONE: the watchdog must stop the guest */
	/* after the storm, write impossible figures (2^63 acquisitions, buckets near 2^64)
	 * whose sums wrap to look right: the host must refuse them */
	PLERIG_INJECT_GARBAGE = 3,
	PLERIG_INJECT_COUNT
};

struct plerig_config {
	uint64_t magic;	       /* PLERIG_ABI_MAGIC */
	uint32_t abi_version;  /* PLERIG_ABI_VERSION */
	uint32_t nr_vcpus;     /* vCPUs in this VM, all of them run the storm */
	uint32_t lock;	       /* enum plerig_lock_kind */
	uint32_t relax;	       /* enum plerig_relax_kind */
	uint32_t ring;	       /* enum plerig_ring */
	uint32_t inject;       /* enum plerig_inject: failures on purpose, to test the host */
	uint64_t cs_cycles;    /* TSC cycles spent inside each critical section */
	uint64_t think_cycles; /* TSC cycles between a release and the next attempt */
	uint64_t stall_cycles; /* a wait longer than this is a stall */
	uint64_t hold_preempt_cycles; /* a hold longer than this: holder preempted */
	uint64_t tsc_khz;	      /* informational: the host's view of the guest TSC */
	uint32_t flags;		      /* PLERIG_CONFIG_* */
	uint32_t pv_yield_spins;      /* relax pv-yield: PAUSEs before yielding to the holder */
	/* PLERIG_CONFIG_SELF_TIMED: the phases in guest TSC cycles from the start */
	uint64_t warmup_cycles;
	uint64_t measure_cycles;
	/* PLERIG_CONFIG_SERIAL_RESULTS: how long vCPU 0 waits for the others to come up
	 * (and to stop) before it reports what it has */
	uint64_t wait_cycles;
	/* lock pvqspin: relaxes before a waiter halts (Linux's SPIN_THRESHOLD) */
	uint32_t pv_spin_threshold;
	uint32_t reserved32;
	uint64_t reserved[2];
};

/*
 * Config flags, for VMMs that cannot share memory with the guest (QEMU
 * through libvirt): plerig's own VMM sets none of them.
 */
/* No host writes the phase: vCPU 0 opens the storm once every vCPU is
 * READY (PLERIG_PHASE_WARMUP, start_tsc) and every vCPU derives the phase
 * from its TSC: MEASURE from start_tsc + warmup_cycles, STOP after
 * measure_cycles more. */
#define PLERIG_CONFIG_SELF_TIMED 0x1u
/* Results leave through the serial port as frames (plerig/frame.h), then
 * the guest powers off; the guest also reads this config from fw_cfg and
 * starts its application processors itself. */
#define PLERIG_CONFIG_SERIAL_RESULTS 0x2u
/* Each vCPU registers plerig_shared.steal[vcpu] with MSR_KVM_STEAL_TIME, and
 * the storm reads its own steal counter around each wait and each hold:
 * a stall or a long hold during which it grew is this vCPU's own preemption.
 * Only where CPUID 0x40000001 offers KVM_FEATURE_STEAL_TIME. */
#define PLERIG_CONFIG_STEAL_TIME 0x4u
/* Lock pvqspin may halt and kick: the host offers KVM_FEATURE_PV_UNHALT and the guest's
 * KVM_HC_KICK_CPU reaches it. Without it pvqspin is test-and-set, as Linux's
 * virt_spin_lock() falls back, and the host says so in the results. */
#define PLERIG_CONFIG_PV_UNHALT 0x8u
/* For VMMs whose features the host cannot query (QEMU through libvirt, whose domain
 * capabilities list neither): vCPU 0 reads KVM's CPUID leaves before any other vCPU
 * runs and sets PLERIG_CONFIG_STEAL_TIME where they offer KVM_FEATURE_STEAL_TIME, and
 * PLERIG_CONFIG_PV_UNHALT where they offer KVM_FEATURE_PV_UNHALT and the host also set
 * PLERIG_CONFIG_PV_UNHALT_IF_OFFERED; the END frame says what the CPUID offered. */
#define PLERIG_CONFIG_PV_FROM_CPUID	   0x10u
#define PLERIG_CONFIG_PV_UNHALT_IF_OFFERED 0x20u

struct plerig_fault {
	uint64_t vector;
	uint64_t error_code;
	uint64_t rip;
	uint64_t cs;
	uint64_t rflags;
	uint64_t rsp;
	uint64_t cr2;
};

/*
 * Lock pvqspin's halt path, counted by the lock from the vCPU's start and
 * turned into the measured interval's figures by the storm.
 */
struct plerig_pv_counts {
	uint64_t halts;		   /* halted (HLT executed) waiting for the lock */
	uint64_t kicks_sent;	   /* as releasing holder, kicked a halted successor */
	uint64_t kicks_received;   /* found its state KICKED: a holder kicked it */
	uint64_t spurious_wakeups; /* came back from a halt with the lock still not handed over */
	uint64_t early_halts;	   /* halted before the spin threshold: predecessor preempted */
};

struct plerig_vcpu_result {
	uint32_t state; /* enum plerig_vcpu_state */
	uint32_t apic_id;
	uint64_t acquisitions;
	uint64_t unmeasured_acquisitions; /* in warm-up, or across the start or end of MEASURE */
	uint64_t contended;		  /* acquisitions that found the lock taken */
	uint64_t wait_total_cycles;
	uint64_t wait_max_cycles;
	uint64_t stalls; /* contended waits over stall_cycles */
	uint64_t stalled_cycles;
	uint64_t hold_total_cycles;
	uint64_t hold_max_cycles;
	uint64_t holder_preemptions;
	uint64_t preempted_hold_cycles;
	/* with PLERIG_CONFIG_STEAL_TIME: the vCPU's steal time grew during the
	 * stall (the waiter itself lost its CPU: not the holder's doing) or during
	 * the long hold (the holder's preemption, seen by the hypervisor) */
	uint64_t stalls_self_preempted;
	uint64_t holder_preemptions_steal;
	uint64_t measure_start_tsc; /* guest TSC at the first measured iteration */
	uint64_t measure_end_tsc;   /* guest TSC at the end of the last one */
	struct plerig_fault fault;
	struct plerig_pv_counts pv;	  /* lock pvqspin only */
	uint64_t kick_latency_max_cycles; /* the longest of hist_kick's values */
	uint64_t hist_wait[PLERIG_HIST_BUCKETS];
	uint64_t hist_hold[PLERIG_HIST_BUCKETS];
	/* lock pvqspin: cycles from the kicker's TSC at its kick to the kicked waiter's after
	 * its halt, one value per kick received */
	uint64_t hist_kick[PLERIG_HIST_BUCKETS];
} __attribute__((aligned(PLERIG_CACHELINE)));

/* One MCS queue node per vCPU; links are vCPU index + 1, 0 = none, so the
 * layout means the same at any virtual address (guest, host, native). */
struct plerig_mcs_node {
	uint32_t next;
	uint32_t locked;
} __attribute__((aligned(PLERIG_CACHELINE)));

/* Where a pvqspin waiter is, as the releasing holder sees it (Linux's vcpu_running,
 * vcpu_halted; KICKED is the holder's claim on the one kick). */
enum plerig_pv_state {
	PLERIG_PV_RUNNING = 0,
	PLERIG_PV_HALTED = 1, /* about to halt or halted: a releasing holder must kick */
	PLERIG_PV_KICKED = 2, /* the holder handed over and kicked */
};

/* Lock pvqspin's per-vCPU half, beside its MCS node. */
struct plerig_pv_node {
	uint32_t state;	       /* enum plerig_pv_state */
	uint32_t unhalted;     /* native baseline and tests only: their stand-in for KVM's
				* pv_unhalted, set by a kick, consumed by the next halt */
	uint64_t kick_tsc;     /* the kicker's TSC at its kick */
	uint64_t kick_latency; /* cycles kick -> running of the last kick received, 0 none */
	struct plerig_pv_counts counts; /* running totals since the vCPU started */
	/* the guest only: what KVM_HC_KICK_CPU returned to the kicks of this waiter (0 is
	 * success), for the watchdog: a kick KVM refused leaves a waiter halted for good */
	uint32_t kick_failures; /* kicks whose hypercall returned non-zero */
	int32_t kick_last_ret;	/* the last non-zero return, e.g. -1000 (-KVM_ENOSYS) */
} __attribute__((aligned(PLERIG_CACHELINE)));

struct plerig_lock_state {
	/* ticket: head (now serving) and tail (next ticket) in one word, as
	 * Linux's ticket spinlocks had them */
	uint32_t ticket_head __attribute__((aligned(PLERIG_CACHELINE)));
	uint32_t ticket_tail;
	uint32_t tas_word __attribute__((aligned(PLERIG_CACHELINE)));
	uint32_t mcs_tail __attribute__((aligned(PLERIG_CACHELINE)));
	struct plerig_mcs_node mcs_nodes[PLERIG_MAX_VCPUS];
	/* Incremented non-atomically inside every critical section: equals the
	 * sum of all acquisitions iff the lock really excluded. */
	uint64_t protected_counter __attribute__((aligned(PLERIG_CACHELINE)));
	uint32_t holder; /* vCPU index of the last acquirer: whom pv-yield on tas yields to */
	/* vCPU index that took each ticket, by ticket % PLERIG_MAX_VCPUS (at most that many
	 * are outstanding): whom pv-yield on a ticket lock yields to. Kept by pv-yield only. */
	uint32_t ticket_owner[PLERIG_MAX_VCPUS];
	/* read by every pv-yield spin: a line of its own that nobody writes while spinning */
	uint32_t pv_yield_spins __attribute__((aligned(PLERIG_CACHELINE)));
	uint32_t pv_spin_threshold; /* pvqspin: relaxes before halting */
	uint32_t pv_unhalt;	    /* pvqspin: 1 halt and kick, 0 test-and-set (no PV_UNHALT) */
	uint32_t pv_preempt_check;  /* pvqspin: the steal areas' preempted bytes are live */
	struct plerig_pv_node pv_nodes[PLERIG_MAX_VCPUS];
};

/* KVM's struct kvm_steal_time: KVM writes it, 64-byte aligned, per vCPU. */
#define PLERIG_STEAL_PREEMPTED 0x1u /* KVM_VCPU_PREEMPTED in .preempted: scheduled out */
struct plerig_steal_time {
	uint64_t steal; /* ns runnable but not running */
	uint32_t version;
	uint32_t flags;
	uint8_t preempted;
	uint8_t pad8[3];
	uint32_t pad32[11];
} __attribute__((aligned(64)));

struct plerig_shared {
	struct plerig_config config;
	uint32_t phase __attribute__((aligned(PLERIG_CACHELINE))); /* enum plerig_phase */
	uint64_t start_tsc; /* self-timed: written by vCPU 0 before it leaves BOOT */
	struct plerig_lock_state lock;
	struct plerig_vcpu_result vcpu[PLERIG_MAX_VCPUS];
	struct plerig_steal_time steal[PLERIG_MAX_VCPUS];
};

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(struct plerig_shared) <= PLERIG_SHARED_SIZE,
	       "shared block must fit its guest-physical window");
_Static_assert(sizeof(struct plerig_config) == 128, "config layout is ABI");
_Static_assert(sizeof(struct plerig_steal_time) == 64, "KVM's steal-time layout");
#endif

#endif /* __ASSEMBLER__ */

#endif
