/* SPDX-License-Identifier: GPL-2.0 */
/* One VM of plerig's VMM: guest memory with the image and the shared block. */
#ifndef PLERIG_KVM_VM_H
#define PLERIG_KVM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/kvm/vcpu.h"
#include "plerig/abi.h"

struct kvm_system;

struct vm_options {
	bool disable_pause_exits; /* --ple off: KVM_CAP_X86_DISABLE_EXITS, PAUSE */
	/*
	 * An in-kernel local APIC per vCPU: KVM_HC_SCHED_YIELD finds its
	 * target through the APIC map, which only an in-kernel irqchip has.
	 */
	bool in_kernel_apic;
	int64_t halt_poll_ns; /* KVM_CAP_HALT_POLL; HALT_POLL_HOST: left as the host has it */
};

struct guest_image {
	const void *data; /* the ELF file */
	size_t size;
	const char *path;
};

struct kvm_vm {
	unsigned index;
	int fd;
	uint8_t *mem;
	size_t mem_size;
	struct plerig_shared *shared; /* inside mem, at PLERIG_SHARED_GPA */
	unsigned nr_vcpus;
	struct kvm_vcpu *vcpus;
};

/*
 * Create a VM with @cfg->nr_vcpus vCPUs, the image loaded and @cfg in the
 * shared block; no vCPU runs yet. 0, or -errno with @err filled and
 * everything released.
 */
int kvm_vm_create(struct kvm_vm *vm, const struct kvm_system *sys, unsigned index,
		  const struct guest_image *image, const struct plerig_config *cfg,
		  const struct vm_options *opts, char *err, size_t errlen);
/*
 * A VM with one vCPU in real mode (CS base 0) at the start of @code, @len
 * bytes at most a few KiB; no image, no shared block. Its vCPU runs in the
 * caller's thread, through kvm_vcpu_enter(). 0, or -errno with @err
 * filled and everything released.
 */
int kvm_vm_create_raw(struct kvm_vm *vm, const struct kvm_system *sys, const void *code, size_t len,
		      char *err, size_t errlen);
void kvm_vm_destroy(struct kvm_vm *vm);

/* An empty VM (no memory, no vCPU): the start of both, and what doctor probes. */
int kvm_vm_open(struct kvm_vm *vm, const struct kvm_system *sys, unsigned index, char *err,
		size_t errlen);
/*
 * PLE off for this VM only (KVM_CAP_X86_DISABLE_EXITS, PAUSE): before its
 * first vCPU exists. 0, or -errno with @err.
 */
int kvm_vm_disable_pause_exits(struct kvm_vm *vm, const struct kvm_system *sys, char *err,
			       size_t errlen);

#endif
