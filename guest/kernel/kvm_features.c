// SPDX-License-Identifier: GPL-2.0
#include "kernel/kvm_features.h"

#define KVM_CPUID_SIGNATURE 0x40000000u
#define KVM_CPUID_FEATURES  0x40000001u
/* "KVMKVMKVM\0\0\0" in EBX, ECX, EDX */
#define KVM_SIGNATURE_EBX 0x4b4d564bu
#define KVM_SIGNATURE_ECX 0x564b4d56u
#define KVM_SIGNATURE_EDX 0x0000004du

uint32_t kvm_cpuid_features(void)
{
	uint32_t eax = KVM_CPUID_SIGNATURE, ebx, ecx = 0, edx;
	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	/* a hypervisor other than KVM may use the leaf after it for something else (its
	 * EAX, the highest leaf, is not checked: old KVMs answered 0, as Linux allows) */
	if (ebx != KVM_SIGNATURE_EBX || ecx != KVM_SIGNATURE_ECX || edx != KVM_SIGNATURE_EDX)
		return 0;
	eax = KVM_CPUID_FEATURES;
	ecx = 0;
	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return eax;
}
