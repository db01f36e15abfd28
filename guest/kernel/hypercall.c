// SPDX-License-Identifier: GPL-2.0
/*
 * The storm's hypercalls: storm_yield_to() (relax pv-yield) with
 * KVM_HC_SCHED_YIELD, a directed yield to the vCPU with that APIC ID (our
 * vCPU index), and storm_kick() (lock pvqspin) with KVM_HC_KICK_CPU. Only
 * ring 0 may make a hypercall (KVM answers -KVM_EPERM at CPL 3), so the
 * host runs both at --ring kernel. Intel's instruction is vmcall and AMD's
 * vmmcall; KVM would emulate the wrong one after a #UD and patch the
 * guest's code, so the guest picks its CPU's own, once.
 */
#include <stdint.h>

#include "storm/storm.h"

#define KVM_HC_KICK_CPU		   5
#define KVM_HC_SCHED_YIELD	   11
#define KVM_CPUID_FEATURES	   0x40000001u
#define KVM_FEATURE_PV_SCHED_YIELD 13
#define AMD_EBX			   0x68747541u /* "Auth" of AuthenticAMD */
#define HYGON_EBX		   0x6f677948u /* "Hygo" of HygonGenuine */

enum hypercall { UNKNOWN = 0, VMCALL, VMMCALL };
static enum hypercall how; /* every vCPU computes the same answer */
static int can_yield;	   /* likewise: KVM offers KVM_FEATURE_PV_SCHED_YIELD */

static uint32_t cpuid_eax_ebx(uint32_t leaf, uint32_t *ebx)
{
	uint32_t eax = leaf, ecx = 0, edx;
	__asm__ volatile("cpuid" : "+a"(eax), "=b"(*ebx), "+c"(ecx), "=d"(edx));
	return eax;
}

static void probe(void)
{
	uint32_t ebx;
	can_yield = (cpuid_eax_ebx(KVM_CPUID_FEATURES, &ebx) >> KVM_FEATURE_PV_SCHED_YIELD) & 1;
	cpuid_eax_ebx(0, &ebx);
	how = ebx == AMD_EBX || ebx == HYGON_EBX ? VMMCALL : VMCALL;
}

/* KVM's hypercall ABI: number in rax, arguments in rbx, rcx, result in rax. */
static long hypercall2(long nr, long a0, long a1)
{
	long ret;
	if (how == UNKNOWN)
		probe();
	if (how == VMMCALL)
		__asm__ volatile("vmmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1) : "memory");
	else
		__asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1) : "memory");
	return ret;
}

/* Only a KVM that offers KVM_FEATURE_PV_SCHED_YIELD is asked; elsewhere the spin goes on. */
void storm_yield_to(unsigned vcpu)
{
	if (how == UNKNOWN)
		probe();
	if (can_yield) /* a yield that did not happen is no error: the spin goes on */
		(void)hypercall2(KVM_HC_SCHED_YIELD, (long)vcpu, 0);
}

/*
 * The host sets PLERIG_CONFIG_PV_UNHALT only where KVM offers
 * KVM_FEATURE_PV_UNHALT, so the kick needs no probe of its own.
 * Arguments: flags (none), the APIC ID to wake (our vCPU index).
 */
void storm_kick(struct plerig_lock_state *l, unsigned vcpu)
{
	const long ret = hypercall2(KVM_HC_KICK_CPU, 0, (long)vcpu);
	if (ret) { /* KVM refused it: the waiter is not woken, and the watchdog will say why */
		struct plerig_pv_node *pv = &l->pv_nodes[vcpu % PLERIG_MAX_VCPUS];
		__atomic_fetch_add(&pv->kick_failures, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&pv->kick_last_ret, (int32_t)ret, __ATOMIC_RELAXED);
	}
}
