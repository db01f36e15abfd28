// SPDX-License-Identifier: GPL-2.0
/*
 * storm_yield_to() for the native baseline: a host thread cannot direct
 * its yield at another, so relax pv-yield on bare metal is PAUSE with a
 * plain sched_yield() where a guest would make the hypercall.
 */
#include <sched.h>

#include "storm/storm.h"

void storm_yield_to(unsigned vcpu)
{
	(void)vcpu;
	sched_yield();
}
