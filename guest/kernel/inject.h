/* SPDX-License-Identifier: GPL-2.0 */
/* Failures the guest makes on purpose (PLERIG_INJECT_*), beyond a fault or a hang. */
#ifndef PLERIG_GUEST_INJECT_H
#define PLERIG_GUEST_INJECT_H

#include "plerig/abi.h"

/*
 * PLERIG_INJECT_GARBAGE: overwrite a finished vCPU's results with what a
 * hostile guest would write: 2^63 more acquisitions and 2^63 more
 * unmeasured ones (their sum, wrapped, still matches the protected
 * counter), 2^63 stalled cycles, histogram buckets near 2^64.
 */
void inject_garbage(struct plerig_vcpu_result *r);

#endif
