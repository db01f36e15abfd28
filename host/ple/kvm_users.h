/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who holds KVM: the processes with /dev/kvm, a VM or a vCPU open. Each
 * such fd pins the vendor module (its refcnt), so these are the processes
 * to stop before the module can be reloaded with new PLE parameters.
 */
#ifndef PLERIG_KVM_USERS_H
#define PLERIG_KVM_USERS_H

#include <stddef.h>

/* $PLERIG_PROC_ROOT, or "/proc": tests point it at a fake tree. */
const char *kvm_users_proc_root(void);

/*
 * Describe the holders under @proc_root as "1234 qemu-system-x86 (3 fds),
 * 99 plerig (1 fd)" in @out. Returns how many processes hold KVM (0: none
 * visible here; processes in other PID namespaces are not). Under the
 * real /proc this process itself is left out.
 */
int kvm_users_describe(const char *proc_root, char *out, size_t outlen);

/*
 * This process's own KVM fds (/dev/kvm, VMs, vCPUs: each pins the module
 * once), read under the real /proc; 0 when @proc_root is any other tree.
 * They are part of the module's refcnt but no obstacle to a reload by
 * another process (doctor probes /dev/kvm before it judges the reload).
 */
unsigned kvm_users_self(const char *proc_root);

#endif
