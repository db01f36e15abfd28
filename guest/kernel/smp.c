// SPDX-License-Identifier: GPL-2.0
/*
 * INIT and one SIPI, each broadcast to all but ourselves through the xAPIC
 * (x2APIC would spare the mapping, but TCG in QEMU 7.2 has no x2APIC).
 * KVM and TCG act on an ICR write at once, so none of the waits between
 * the IPIs that real hardware needs, and no second SIPI: on PVM each of
 * these instructions is emulated, and the waits would be spin loops.
 */
#include "kernel/smp.h"

#include <stdint.h>

#include "kernel/io.h"
#include "kernel/layout.h"

#define APIC_ICR_LOW	 0x300
#define ICR_ALL_BUT_SELF (3u << 18)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_MODE_INIT	 (5u << 8)
#define ICR_MODE_STARTUP (6u << 8)

extern const uint8_t ap_trampoline[], ap_trampoline_end[];

void smp_start_aps(void)
{
	uint64_t n = (uint64_t)(ap_trampoline_end - ap_trampoline);
	const void *src = ap_trampoline;
	void *dst = (void *)TRAMPOLINE_GPA;

	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	mmio_write32(XAPIC_GPA + APIC_ICR_LOW, ICR_ALL_BUT_SELF | ICR_LEVEL_ASSERT | ICR_MODE_INIT);
	mmio_write32(XAPIC_GPA + APIC_ICR_LOW, ICR_ALL_BUT_SELF | ICR_LEVEL_ASSERT |
						   ICR_MODE_STARTUP | (TRAMPOLINE_GPA >> 12));
}
