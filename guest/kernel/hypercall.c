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

#define KVM_HC_SCHED_YIELD 11
#define AMD_EBX		   0x68747541u /* "Auth" of AuthenticAMD */
#define HYGON_EBX	   0x6f677948u /* "Hygo" of HygonGenuine */

static int use_vmmcall = -1; /* every vCPU computes the same answer */

static int cpu_is_amd(void)
{
	uint32_t eax = 0, ebx, ecx = 0, edx;
	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return ebx == AMD_EBX || ebx == HYGON_EBX;
}

void storm_yield_to(unsigned vcpu)
{
	long ret;
	if (use_vmmcall < 0)
		use_vmmcall = cpu_is_amd();
	if (use_vmmcall)
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
