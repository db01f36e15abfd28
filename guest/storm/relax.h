/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The relax instructions under test, as exact bytes: the assembler must
 * not get to choose ("rep; nop" and "pause" are the same f3 90, but a
 * compiler or assembler could pick another encoding of a nop).
 * tests/guest/test_relax_bytes.py checks the built spin loops hold them.
 */
#ifndef PLERIG_RELAX_H
#define PLERIG_RELAX_H

/*
 * Each relax takes the vCPU the spinner waits for (@target, an expression
 * the lock computes); only pv-yield evaluates it, and only when it yields,
 * so the other spin loops stay the bare instruction.
 */
#define RELAX_pause(...)     __asm__ volatile(".byte 0xf3, 0x90" : : : "memory")
#define RELAX_nop(...)	     __asm__ volatile(".byte 0x90" : : : "memory")
#define RELAX_rep_pause(...) __asm__ volatile(".byte 0xf3, 0xf3, 0x90" : : : "memory")
#define RELAX_none(...)	     __asm__ volatile("" : : : "memory")

/*
 * The paravirtual answer: PAUSE as above, and every pv_yield_spins of them
 * give the CPU to the vCPU the spinner waits for (KVM_HC_SCHED_YIELD in a
 * guest). KVM ignores a yield to the caller itself, so none is made: a
 * stale target (the waiter took the lock last) costs nothing. It needs a
 * spin count, which the RELAX_STATE_* declarations provide, and the locks
 * must know whom it waits for, which RELAX_WANTS_TARGET_* tells them; the
 * other relaxes need neither, so their locks do no such bookkeeping.
 * storm_yield_to() comes from the environment.
 */
#define RELAX_STATE_pause
#define RELAX_STATE_nop
#define RELAX_STATE_rep_pause
#define RELAX_STATE_none
#define RELAX_STATE_pv_yield	     unsigned pv_spins = 0;
#define RELAX_WANTS_TARGET_pause     0
#define RELAX_WANTS_TARGET_nop	     0
#define RELAX_WANTS_TARGET_rep_pause 0
#define RELAX_WANTS_TARGET_none	     0
#define RELAX_WANTS_TARGET_pv_yield  1
#define RELAX_pv_yield(target)                                                                     \
	do {                                                                                       \
		RELAX_pause();                                                                     \
		if (++pv_spins >= __atomic_load_n(&l->pv_yield_spins, __ATOMIC_RELAXED)) {         \
			pv_spins = 0;                                                              \
			const unsigned to = (target);                                              \
			if (to != me)                                                              \
				storm_yield_to(to);                                                \
		}                                                                                  \
	} while (0)

/* X-macro over every relax variant: X(c_name, enum value) */
#define FOR_EACH_RELAX(X)                                                                          \
	X(pause, PLERIG_RELAX_PAUSE)                                                               \
	X(nop, PLERIG_RELAX_NOP)                                                                   \
	X(rep_pause, PLERIG_RELAX_REP_PAUSE)                                                       \
	X(none, PLERIG_RELAX_NONE)                                                                 \
	X(pv_yield, PLERIG_RELAX_PV_YIELD)

#endif
