// SPDX-License-Identifier: GPL-2.0
/*
 * storm_yield_to() for the guest: KVM_HC_SCHED_YIELD, a directed yield to
 * the vCPU with that APIC ID (our vCPU index). Only ring 0 may make a
 * hypercall (KVM answers -KVM_EPERM at CPL 3), so the host runs pv-yield
 * at --ring kernel. Intel's instruction is vmcall and AMD's vmmcall; KVM
 * would emulate the wrong one after a #UD and patch the guest's code, so
 * the guest picks its CPU's own, once.
 */
#include <stdint.h>

#include "storm/storm.h"

#define KVM_HC_SCHED_YIELD	   11
#define KVM_CPUID_FEATURES	   0x40000001u
#define KVM_FEATURE_PV_SCHED_YIELD 13
#define AMD_EBX			   0x68747541u /* "Auth" of AuthenticAMD */
#define HYGON_EBX		   0x6f677948u /* "Hygo" of HygonGenuine */

enum hypercall { UNKNOWN = 0, NONE, VMCALL, VMMCALL };
static enum hypercall how; /* every vCPU computes the same answer */

static uint32_t cpuid_eax_ebx(uint32_t leaf, uint32_t *ebx)
{
	uint32_t eax = leaf, ecx = 0, edx;
	__asm__ volatile("cpuid" : "+a"(eax), "=b"(*ebx), "+c"(ecx), "=d"(edx));
	return eax;
}

/* Only a KVM that offers KVM_FEATURE_PV_SCHED_YIELD is asked; elsewhere the spin goes on. */
static enum hypercall probe(void)
{
	uint32_t ebx;
	if (!(cpuid_eax_ebx(KVM_CPUID_FEATURES, &ebx) & (1u << KVM_FEATURE_PV_SCHED_YIELD)))
		return NONE;
	cpuid_eax_ebx(0, &ebx);
	return ebx == AMD_EBX || ebx == HYGON_EBX ? VMMCALL : VMCALL;
}

void storm_yield_to(unsigned vcpu)
{
	long ret;
	if (how == UNKNOWN)
		how = probe();
	if (how == NONE)
		return;
	if (how == VMMCALL)
		__asm__ volatile("vmmcall"
				 : "=a"(ret)
				 : "a"((long)KVM_HC_SCHED_YIELD), "b"((long)vcpu)
				 : "memory");
	else
		__asm__ volatile("vmcall"
				 : "=a"(ret)
				 : "a"((long)KVM_HC_SCHED_YIELD), "b"((long)vcpu)
				 : "memory");
	(void)ret; /* a yield that did not happen is no error: the spin goes on */
}
