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

#endif
