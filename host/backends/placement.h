/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the vCPUs of a run go, on every backend: with pin_each, vCPU g of
 * the run (g = vm * vcpus + vcpu) on the g-th CPU of the list, wrapping
 * around; otherwise every vCPU floats on the whole list.
 */
#ifndef PLERIG_PLACEMENT_H
#define PLERIG_PLACEMENT_H

#include "model/variant.h"

/* The host CPU vCPU @g is pinned to, or -1 when it floats on v->pcpus. */
int placement_cpu(const struct variant *v, unsigned g);
/* The CPUs vCPU @g may run on: sets *cpus (inside v->pcpus), returns how many. */
unsigned placement_cpus(const struct variant *v, unsigned g, const unsigned **cpus);

#endif
