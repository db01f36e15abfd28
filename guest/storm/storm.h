/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The spin-lock storm: one source, compiled into the guest and into the
 * host's native baseline, so both measure the same instructions.
 */
#ifndef PLERIG_STORM_H
#define PLERIG_STORM_H

#include "plerig/abi.h"

/*
 * Run the storm as vCPU @me of @sh->config.nr_vcpus: report READY, spin
 * until the host leaves PLERIG_PHASE_BOOT, take and release the shared
 * lock until PLERIG_PHASE_STOP, keep figures only during MEASURE, and
 * leave with state DONE. With PLERIG_CONFIG_SELF_TIMED only the step out
 * of BOOT comes from the phase word (and start_tsc); the rest is timed
 * by the TSC.
 */
void storm_run(struct plerig_shared *sh, unsigned me);

/*
 * Give this CPU to the (v)CPU running storm @vcpu, for relax pv-yield.
 * Not part of the storm: each environment provides it, the guest with
 * the KVM_HC_SCHED_YIELD hypercall, the native baseline with sched_yield().
 */
void storm_yield_to(unsigned vcpu);

/*
 * Lock pvqspin's halt and kick, from the environment too: the guest halts
 * with HLT (interrupts on) and kicks with KVM_HC_KICK_CPU, the native
 * baseline stands in for KVM with a futex on the node's unhalted word.
 *
 * storm_halt(): halt vCPU @me while *@state == @val, looked at with
 * interrupts off (as kvm_wait does), until a kick or an interrupt wakes
 * it; a kick that came earlier makes it return at once, as KVM's
 * pv_unhalted does. Returns 1 if it halted, 0 if *@state had changed.
 * storm_kick(): wake vCPU @vcpu of @l's VM from its halt, or make its
 * next halt return at once.
 */
int storm_halt(struct plerig_lock_state *l, unsigned me, const uint32_t *state, uint32_t val);
void storm_kick(struct plerig_lock_state *l, unsigned vcpu);

#endif
