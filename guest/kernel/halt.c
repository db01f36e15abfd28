// SPDX-License-Identifier: GPL-2.0
/*
 * storm_halt() for the guest, as Linux's kvm_wait() halts: interrupts off,
 * look at the word once more, then sti;hlt. STI enables interrupts only
 * after the next instruction, so none can slip in between the look and
 * the HLT and be taken before the halt (the classic lost wake-up). A
 * KVM_HC_KICK_CPU makes KVM set the vCPU's pv_unhalted: a halted vCPU
 * runs again, and one that has not halted yet returns from its next HLT at
 * once. Needs guest ring 0 (cli, sti and hlt fault at ring 3); the vCPU
 * runs with interrupts on and an IDT whose stub takes any stray interrupt
 * (boot/entry.S), which also ends a halt.
 */
#include "storm/storm.h"

int storm_halt(struct plerig_lock_state *l, unsigned me, const uint32_t *state, uint32_t val)
{
	(void)l;
	(void)me;
	__asm__ volatile("cli" : : : "memory");
	if (__atomic_load_n(state, __ATOMIC_ACQUIRE) != val) {
		__asm__ volatile("sti" : : : "memory");
		return 0;
	}
	__asm__ volatile("sti; hlt" : : : "memory");
	return 1;
}
