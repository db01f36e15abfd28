/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/kvm itself: the API check, what the host supports, which module drives it. */
#ifndef PLERIG_KVM_SYSTEM_H
#define PLERIG_KVM_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>

#include "plerig/abi.h"

struct kvm_system {
	int fd;
	int vcpu_mmap_size;
	struct kvm_cpuid2 *cpuid; /* KVM_GET_SUPPORTED_CPUID */
	bool has_tss_addr;	  /* VMX needs KVM_SET_TSS_ADDR before the first run */
	const char *module;	  /* "kvm_intel", "kvm_amd", "kvm_pvm" or "unknown" */
};

/* Default "/dev/kvm"; the PLERIG_KVM_DEVICE environment variable overrides it. */
const char *kvm_device_path(void);
int kvm_system_open(struct kvm_system *s, char *err, size_t errlen);
void kvm_system_close(struct kvm_system *s);

/* KVM paravirtual features, CPUID 0x40000001 EAX, as KVM_GET_SUPPORTED_CPUID offers them. */
#define KVM_FEATURE_STEAL_TIME	   5
#define KVM_FEATURE_PV_UNHALT	   7
#define KVM_FEATURE_PV_SCHED_YIELD 13
bool kvm_feature_supported(const struct kvm_system *s, unsigned bit);
/* KVM sets halt polling per VM (KVM_CAP_HALT_POLL, Linux >= 5.19). */
bool kvm_halt_poll_per_vm(const struct kvm_system *s);

/* Which module drives KVM here, from /sys/module. */
const char *kvm_detect_module(void);
/*
 * The same where the KVM device exists, "none" where it does not: a kernel
 * can list kvm_pvm in /sys/module (built in) and offer no /dev/kvm, and a
 * module that drives no device is no module a run used.
 */
const char *kvm_active_module(void);
/*
 * Ring for --ring auto: user on PVM (guest ring 0 is instruction-emulated
 * there, ~100x slow), kernel elsewhere (where Intel PLE counts PAUSE).
 */
enum plerig_ring kvm_default_ring(bool pvm);

/*
 * Why no hypercall of a plerig guest reaches KVM under PVM: its ring 0 never
 * becomes PVM's native supervisor mode, so KVM's x86 emulator runs it, and
 * the emulator's VMCALL/VMMCALL only "fixes" the instruction and restarts it
 * (emulator_fix_hypercall): VMCALL again, for ever (traced: 94653 times in
 * 3 s, no kvm_hypercall), or #UD. PVM's own hypercall is SYSCALL from its
 * supervisor mode, which needs a PVM-aware guest.
 */
#define KVM_PVM_NO_HYPERCALL                                                                       \
	"guest ring 0 is emulated and KVM's emulator restarts a VMCALL for ever instead of "       \
	"making the hypercall"

#endif
