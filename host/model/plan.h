/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an experiment is asked to do: the axes of the matrix, the settings
 * every variant shares, the schedule of repeats, the comparison and the
 * outputs. The command line fills one (cli/), the sweep and the scenario
 * runner build them in memory; the experiment engine runs it.
 */
#ifndef PLERIG_PLAN_H
#define PLERIG_PLAN_H

#include <stdbool.h>

#include "model/variant.h"

#define PLAN_MAX_VCPU_COUNTS 16u
#define PLAN_MAX_HALT_POLLS  16u

enum ring_choice { RING_CHOICE_AUTO, RING_CHOICE_USER, RING_CHOICE_KERNEL };
enum pin_mode { PIN_EACH, PIN_FLOAT };
enum accel { ACCEL_KVM, ACCEL_TCG };

/* How repeats of the variants are ordered in time. */
enum run_order {
	ORDER_INTERLEAVE, /* A B C A B C ...: drift lands on every variant alike */
	ORDER_SHUFFLE,	  /* a new random permutation each round (--seed) */
	ORDER_SEQUENTIAL, /* A A A B B B ...: only to show what interleaving hides */
};

/* The axis a comparison holds fixed at one value: --reference AXIS=VALUE (--baseline, its old
 * name). */
enum reference_axis {
	REFERENCE_AUTO = 0,
	REFERENCE_BACKEND,
	REFERENCE_LOCK,
	REFERENCE_RELAX,
	REFERENCE_VCPUS,
	REFERENCE_PLE
};

struct run_plan {
	/* the axes: every combination is a variant */
	enum backend_kind backends[BACKEND_COUNT];
	unsigned nr_backends;
	unsigned vcpu_counts[PLAN_MAX_VCPU_COUNTS]; /* in the order given */
	unsigned nr_vcpu_counts;
	enum plerig_lock_kind locks[PLERIG_LOCK_COUNT];
	unsigned nr_locks;
	enum plerig_relax_kind relaxes[PLERIG_RELAX_COUNT];
	unsigned nr_relaxes;
	enum ple_mode ples[PLE_COUNT];
	unsigned nr_ples;
	int64_t halt_polls[PLAN_MAX_HALT_POLLS]; /* ns, or HALT_POLL_HOST; in the order given */
	unsigned nr_halt_polls;
	enum ring_choice ring; /* auto: the backend's default ring */
	/*
	 * What every variant shares (vms, host CPUs, placement, cycles,
	 * durations, thresholds, injection): a template the matrix copies,
	 * its axis fields unused.
	 */
	struct variant common;
	/* given on the command line: else sized, host by host, to the CPUs of each host */
	bool pcpus_given, vcpus_given;

	/* the schedule */
	unsigned repeat;    /* measured runs of every variant */
	int discard_rounds; /* rounds run and thrown away first; -1: 1 if repeat > 1 */
	enum run_order order;
	unsigned long long seed; /* for ORDER_SHUFFLE */
	bool seed_given;

	/* the comparison */
	enum reference_axis reference_axis;
	unsigned reference_value; /* enum value of the axis, or the vCPU count */
	double threshold_pct;	  /* smallest change a verdict counts (model/verdict.h) */

	/* where the VMs come from */
	const char *guest_path;	    /* NULL: the installed or built image */
	const char *connect_uri;    /* libvirt URI; NULL: the embedded driver */
	bool connect_auto;	    /* --connect auto was given (resolved into connect_uri) */
	char connect_auto_why[512]; /* it chose the emulated host: why; "" otherwise */
	const char *cache_dir;	  /* libvirt embedded driver state, L1's media; NULL: the default */
	const char *kernel_path;  /* --connect emulated: the kernel L1 boots; NULL: Debian's */
	const char *modules_path; /* its modules (a bzImage's INSTALL_MOD_PATH); NULL: none */
	const char
	    *module_params; /* --module-params: L1's modules reloaded with them; NULL: stock */
	enum accel accel;
	bool accel_given;

	/* outputs */
	const char *json_path;	 /* NULL: none; "-": stdout */
	const char *csv_path;	 /* NULL: none; "-": stdout */
	const char *report_path; /* the HTML report; NULL: none; "-": stdout */
	bool quiet;		 /* no progress on stderr */
};

/*
 * The defaults of `plerig run` with no options: kvm, ticket lock, PAUSE
 * against NOP, one vCPU per allowed host CPU and twice that.
 */
void run_plan_defaults(struct run_plan *p);
/* The default vCPU axis for the plan's host CPUs: n and 2n (capped). */
void run_plan_default_vcpus(struct run_plan *p);
/*
 * @p for a host of --connect with @cpus CPUs (its own, not this machine's):
 * where --pcpus was not given, all of them (0..cpus-1); where --vcpus was
 * not given, the default axis for those. @cpus 0 (unknown): unchanged.
 */
void run_plan_fit_host(struct run_plan *p, unsigned cpus);

/* Whether any backend of @p runs on KVM (native and TCG do not). */
bool run_plan_uses_kvm(const struct run_plan *p);
/* The CPUs this process may run on, ascending; returns how many (>= 1). */
unsigned allowed_host_cpus(unsigned *cpus, unsigned max);

#endif
