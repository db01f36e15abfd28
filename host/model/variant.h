/* SPDX-License-Identifier: GPL-2.0 */
/* One point of the experiment matrix: everything that defines a run. */
#ifndef PLERIG_VARIANT_H
#define PLERIG_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plerig/abi.h"

enum backend_kind {
	BACKEND_KVM = 0,     /* raw KVM ioctls, our own VMM */
	BACKEND_NATIVE,	     /* host threads: the same storm without virtualisation */
	BACKEND_LIBVIRT,     /* QEMU with KVM, through libvirt */
	BACKEND_LIBVIRT_TCG, /* QEMU's TCG through libvirt: emulated, labelled so everywhere */
	BACKEND_COUNT
};

/* Hardware PAUSE interception of the VM: host default, or off for this VM only. */
enum ple_mode {
	PLE_ON = 0,  /* as the host is configured (ple_gap/ple_window, pause filter) */
	PLE_OFF = 1, /* KVM_CAP_X86_DISABLE_EXITS with KVM_X86_DISABLE_EXITS_PAUSE */
	PLE_COUNT
};

#define PLERIG_MAX_PCPUS 1024u
#define PLERIG_MAX_VMS	 64u /* VMs of one variant, all running at once */

struct variant {
	/* the host it runs on: an index into the outcome's hosts (--connect LIST), 0 with one */
	unsigned host;
	enum backend_kind backend;
	enum plerig_lock_kind lock;
	enum plerig_relax_kind relax;
	enum plerig_ring ring;
	unsigned vms;
	unsigned vcpus;	   /* per VM */
	unsigned nr_pcpus; /* host CPUs the vCPU threads run on */
	unsigned pcpus[PLERIG_MAX_PCPUS];
	bool pin_each; /* vCPU i of the run on pcpus[i % nr], else floating on the set */
	uint64_t cs_cycles;
	uint64_t think_cycles;
	double stall_us; /* wait (and hold) threshold for a stall */
	double warmup_s;
	double duration_s;
	double timeout_s;	   /* watchdog for boot and stop, on top of the run */
	enum plerig_inject inject; /* tests of plerig itself: a guest that faults or hangs */
	enum ple_mode ple;
	unsigned pv_yield_spins;    /* relax pv-yield: PAUSEs between two yields */
	unsigned pv_spin_threshold; /* lock pvqspin: relaxes before a waiter halts */
	/* KVM's halt polling of this VM's vCPUs in ns (KVM_CAP_HALT_POLL);
	 * HALT_POLL_HOST: not set, the host's kvm.halt_poll_ns */
	int64_t halt_poll_ns;
	bool exit_times; /* time every KVM exit (kvm_exit to kvm_entry): costs time */
};

/*
 * A FIFO lock (ticket, MCS): a waiter is served before anyone who came
 * after it, so no vCPU that keeps its CPU starves. TAS may starve one.
 */
bool lock_is_fair(enum plerig_lock_kind l);

#define HALT_POLL_HOST (-1)
/* " halt-poll=50000ns" for labels, "" where the host's setting holds. */
const char *halt_poll_label(const struct variant *v, char *buf, size_t len);

/* The names of the axes (model/names.h holds the tables). */
const char *backend_name(enum backend_kind b);
const char *lock_name(enum plerig_lock_kind l);
const char *relax_name(enum plerig_relax_kind r);
const char *ring_name(enum plerig_ring r);
const char *ple_name(enum ple_mode p);

#endif
