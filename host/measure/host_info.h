/* SPDX-License-Identifier: GPL-2.0 */
/* The host a run was measured on, as the results file records it. */
#ifndef PLERIG_HOST_INFO_H
#define PLERIG_HOST_INFO_H

#include <stddef.h>

struct host_info {
	char name[128]; /* hostname */
	char kernel[128];
	char kvm_module[32];
	/* "" where plerig read which module is loaded; else how kvm_module was inferred
	 * ("inferred from the host CPU's vmx flag; libvirt names no module") */
	char kvm_module_source[160];
	char cpu_model[128];
	unsigned cpus; /* in this process's affinity mask */
	long cpus_online;
	int smt; /* /sys/devices/system/cpu/smt/active: 1, 0, or -1 unknown */
	/* PLE / pause-filter module parameters, "name=value" pairs, as found */
	char ple_params[512];
	/* the KVM module parameters this host was given beyond its stock ones, as its
	 * modules read them: the emulated host's --module-params ("ple_window=16384
	 * kvm.halt_poll_ns=0"); "" where none were */
	char module_params[512];
	/* where the VMs ran on another host: how plerig reached it (its URI without
	 * credentials), its hypervisor, and why some fields say "unknown" */
	char connection[256];
	char hypervisor[128];
	char unknown_why[256];
	/* "" where times are this machine's seconds; else what one of this host's seconds
	 * is ("emulated seconds: Bochs' instruction clock, ...") */
	char clock[160];
};

/*
 * "kvm_intel", or "kvm_intel (inferred from the host CPU's vmx flag; libvirt
 * names no module)": the module as every output shows it.
 */
void host_kvm_module_text(const struct host_info *h, char *buf, size_t len);

/* "vmx", "svm" or NULL: the hardware virtualisation this CPU shows (/proc/cpuinfo). */
const char *host_cpu_virt_flag(void);

/* Fill @h for this host; @kvm_module is the module that drives KVM (NULL: none). */
void host_info_collect(struct host_info *h, const char *kvm_module);

#endif
