/* SPDX-License-Identifier: GPL-2.0 */
/* What a guest reports of itself, in words for messages: its vCPU states and faults. */
#ifndef PLERIG_GUEST_STATUS_H
#define PLERIG_GUEST_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "plerig/abi.h"

/* "OFF", "READY", ... for a PLERIG_VCPU_* state; "?" for another value. */
const char *guest_state_name(uint32_t state);
/* "guest exception #GP (vector 13) error code 0x0 at rip ..." of @f, into @buf. */
void guest_fault_describe(const struct plerig_fault *f, char *buf, size_t len);
/*
 * The lock as a hung vCPU @vcpu left it, for the watchdog: the lock word,
 * and for the queued locks its queue node (pvqspin: its halt state too),
 * "" for a lock with nothing of the vCPU's own; into @buf.
 */
void guest_lock_describe(const struct plerig_shared *sh, unsigned vcpu, char *buf, size_t len);
/*
 * Queue node @vcpu of a queued lock as it is now: "locked 1 next link 2, pv
 * state halted" (pvqspin: its halt state, and kicks KVM refused); "" for
 * the other locks. Into @buf.
 */
void guest_node_describe(const struct plerig_shared *sh, unsigned vcpu, char *buf, size_t len);

#endif
