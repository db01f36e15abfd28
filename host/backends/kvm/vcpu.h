/* SPDX-License-Identifier: GPL-2.0 */
/* One vCPU of plerig's VMM: its fd, its run area, and the thread that runs it. */
#ifndef PLERIG_KVM_VCPU_H
#define PLERIG_KVM_VCPU_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/kvm_stats.h"
#include "measure/schedstat.h"
#include "util/start_line.h"

struct kvm_system;
struct kvm_vm;

enum vcpu_outcome {
	VCPU_OUTCOME_NONE = 0, /* still running, or never started */
	VCPU_OUTCOME_DONE,     /* the guest reported PLERIG_EVENT_DONE */
	VCPU_OUTCOME_STOPPED,  /* the host stopped it (watchdog, Ctrl-C, teardown) */
	VCPU_OUTCOME_FAILED,   /* guest fault, bad exit, or ioctl error: see message */
};

struct kvm_vcpu {
	struct kvm_vm *vm;
	unsigned index;
	int fd;
	struct kvm_run *run;
	size_t run_size;
	int host_cpu; /* -1: floats on the VM's CPU set */
	struct kvm_stats_reader stats;
	bool stats_open;

	struct start_line *start;
	cpu_set_t run_cpus; /* where it runs from the start line on */
	int ready;	    /* atomic: the guest reported READY */
	pthread_t thread;
	bool thread_started;
	pid_t tid; /* set by the thread before its first KVM_RUN */
	/* run by the thread before its first KVM_RUN (NULL: nothing): what must see
	 * the vCPU's whole life, such as per-thread counters, starts there */
	void (*thread_start)(struct kvm_vcpu *vcpu, void *arg);
	void *thread_start_arg;
	int stop_requested;		  /* atomic: leave the run loop */
	int outcome;			  /* atomic: enum vcpu_outcome, set once by the thread */
	struct schedstat_kept last_sched; /* the thread's, as it ended */
	char message[256];		  /* why, when FAILED; written before outcome */
};

/*
 * Create vCPU @index of @vm, with CPUID and registers set for the 32-bit
 * PVH entry at @entry. 0, or -errno with @err filled.
 */
int kvm_vcpu_create(struct kvm_vcpu *vcpu, struct kvm_vm *vm, const struct kvm_system *sys,
		    unsigned index, uint64_t entry, bool in_kernel_apic, char *err, size_t errlen);
/*
 * Write the vCPU's local APIC back as it is (KVM_GET_LAPIC, KVM_SET_LAPIC):
 * KVM rebuilds its map of APIC IDs from every vCPU online then. 0, or
 * -errno with @err filled.
 */
int kvm_vcpu_reload_lapic(struct kvm_vcpu *vcpu, char *err, size_t errlen);
/*
 * vCPU 0 of a raw VM (kvm_vm_create_raw): real mode, CS base 0, at @rip.
 * 0, or -errno with @err filled.
 */
int kvm_vcpu_create_real_mode(struct kvm_vcpu *vcpu, struct kvm_vm *vm,
			      const struct kvm_system *sys, uint64_t rip, char *err, size_t errlen);
/*
 * One KVM_RUN in the calling thread, for a vCPU that has no thread of its
 * own: 0 with the exit in vcpu->run, or -errno (-EINTR: a signal came).
 */
int kvm_vcpu_enter(struct kvm_vcpu *vcpu);
/*
 * Start the thread on @boot_cpus; once its guest is READY it waits at
 * @start, then moves to @run_cpus (the placement being measured) and goes on.
 */
int kvm_vcpu_start(struct kvm_vcpu *vcpu, struct start_line *start, const cpu_set_t *boot_cpus,
		   const unsigned *run_cpus, unsigned nr_run_cpus, char *err, size_t errlen);
bool kvm_vcpu_is_ready(const struct kvm_vcpu *vcpu);
/* Ask the thread to leave KVM_RUN now; safe to call more than once. */
void kvm_vcpu_kick(struct kvm_vcpu *vcpu);
int kvm_vcpu_outcome(const struct kvm_vcpu *vcpu);
pid_t kvm_vcpu_tid(const struct kvm_vcpu *vcpu);
/* Kick if still running, join the thread, close everything. */
void kvm_vcpu_destroy(struct kvm_vcpu *vcpu);
/* Install the signal used to kick vCPU threads; once per process. */
int kvm_vcpu_install_kick_signal(char *err, size_t errlen);

#endif
