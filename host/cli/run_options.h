/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig run` options: the command-line contract scripts are written against. */
#ifndef PLERIG_RUN_OPTIONS_H
#define PLERIG_RUN_OPTIONS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/variant.h"

#define RUN_OPTIONS_MAX_VCPU_COUNTS 16u

enum ring_choice { RING_CHOICE_AUTO, RING_CHOICE_USER, RING_CHOICE_KERNEL };

/* How repeats of the variants are ordered in time. */
enum run_order {
	ORDER_INTERLEAVE, /* A B C A B C ...: drift lands on every variant alike */
	ORDER_SHUFFLE,	  /* a new random permutation each round (--seed) */
	ORDER_SEQUENTIAL, /* A A A B B B ...: only to show what interleaving hides */
};

/* The axis a comparison holds fixed at one value: --baseline AXIS=VALUE. */
enum baseline_axis {
	BASELINE_AUTO,
	BASELINE_BACKEND,
	BASELINE_LOCK,
	BASELINE_RELAX,
	BASELINE_VCPUS,
	BASELINE_PLE
};

struct run_options {
	enum backend_kind backends[BACKEND_COUNT];
	unsigned nr_backends;
	unsigned vms;
	unsigned vcpu_counts[RUN_OPTIONS_MAX_VCPU_COUNTS]; /* --vcpus 2,4: an axis */
	unsigned nr_vcpu_counts;
	unsigned pcpus[PLERIG_MAX_PCPUS]; /* --pcpus, in ascending order */
	unsigned nr_pcpus;
	enum plerig_lock_kind locks[PLERIG_LOCK_COUNT];
	unsigned nr_locks;
	enum plerig_relax_kind relaxes[PLERIG_RELAX_COUNT];
	unsigned nr_relaxes;
	enum ple_mode ples[PLE_COUNT]; /* --ple on,off: an axis */
	unsigned nr_ples;
	enum ring_choice ring;
	bool pin_each;
	double duration_s;
	double warmup_s;
	double timeout_s;
	double stall_us;
	unsigned long long cs_cycles;
	unsigned long long think_cycles;
	const char *json_path;	   /* NULL: no JSON */
	const char *guest_path;	   /* NULL: the image built next to the binary */
	bool quiet;		   /* no progress lines on stderr */
	enum plerig_inject inject; /* --inject: a guest failure on purpose, for tests */
	unsigned repeat;	   /* measured runs of every variant */
	unsigned pv_yield_spins;   /* relax pv-yield: PAUSEs between two yields */
	int discard_rounds;	   /* rounds run and thrown away first; -1: 1 if repeat > 1 */
	enum run_order order;
	unsigned long long seed; /* for ORDER_SHUFFLE */
	bool seed_given;
	enum baseline_axis baseline_axis;
	unsigned baseline_value; /* enum value of the axis, or the vCPU count */
	const char *csv_path;	 /* NULL: no CSV */
	const char *connect_uri; /* --connect: libvirt URI; NULL: the embedded driver */
	const char *cache_dir;	 /* --cache-dir: NULL: the default */
	bool accel_tcg;		 /* --accel tcg: libvirt backend under QEMU's emulator */
	bool accel_given;
};

enum run_options_status {
	RUN_OPTIONS_OK = 0,
	RUN_OPTIONS_HELP = 1,	/* --help was printed: exit 0 */
	RUN_OPTIONS_ERROR = -1, /* message in err: exit 2 */
};

void run_options_defaults(struct run_options *o);
/*
 * argv[0] is "run" (getopt starts at argv[1]). Starts from
 * run_options_defaults(), so @o needs no preparation; without --vcpus the
 * axis is sized to --pcpus (n and 2n, at most PLERIG_MAX_VCPUS). Lists
 * given twice: the last one wins.
 */
enum run_options_status run_options_parse(int argc, char **argv, struct run_options *o, char *err,
					  size_t errlen);
void run_options_usage(FILE *out);

#endif
